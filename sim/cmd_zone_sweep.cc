// nvmev-sim zone-sweep: a zoned drive's throughput against zone width and
// zones open at once.
#include <memory>

#include "commands.h"
#include "workloads.h"
#include "zoned.h"

namespace nvmev::cli {

namespace {

// "1,2,4" -> {1, 2, 4}
std::vector<uint32_t> number_list(const std::string& s) {
  std::vector<uint32_t> v;
  for (size_t i = 0; i < s.size();) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    v.push_back(static_cast<uint32_t>(std::stoul(s.substr(i, j - i))));
    i = j + 1;
  }
  return v;
}

}  // namespace

Subcommand add_zone_sweep(CLI::App& app) {
  struct Options {
    ZoneSweepParams zsp;
    uint64_t zone_mib = 0, write_kib = 64, read_kib = 64;
    std::string widths = "1,2,4,8", opens = "1,2,4,8";
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "zone-sweep", "zoned drive: write, then read, whole zones vs zone width and open zones");
  cmd->add_option("--zone-mib", o->zone_mib, "zone size; 0 = one block on every die")
      ->capture_default_str();
  cmd->add_option("--widths", o->widths, "zone widths in dies")->capture_default_str();
  cmd->add_option("--open-zones", o->opens, "zones written at once")->capture_default_str();
  cmd->add_option("--write-kib", o->write_kib, "write size")->capture_default_str();
  cmd->add_option("--read-kib", o->read_kib, "read size")->capture_default_str();
  cmd->add_option("--qd", o->zsp.queue_depth, "queue depth")->capture_default_str();

  return {cmd, [o](const RunContext& c) {
            ZoneSweepParams& zsp = o->zsp;
            zsp.zone_bytes = o->zone_mib * MiB;
            zsp.widths = number_list(o->widths);
            zsp.open_zones = number_list(o->opens);
            zsp.write_bytes = o->write_kib * KiB;
            zsp.read_bytes = o->read_kib * KiB;
            Model probe(c.cfg);
            json rep = base_report("zone-sweep", probe);
            rep["summary"] = {{"zone_bytes", zone_bytes_for(probe, zsp.zone_bytes)},
                              {"queue_depth", zsp.queue_depth}};
            json rows = json::array();
            for (const auto& pt : run_zone_sweep(c.cfg, zsp))
              rows.push_back({{"width", pt.width},
                              {"open_zones", pt.open_zones},
                              {"write_mb_per_s", pt.write.mb_per_s()},
                              {"read_mb_per_s", pt.read.mb_per_s()},
                              {"write_p99_latency_us", pt.write.p99_latency_ns / 1000.0},
                              {"read_p99_latency_us", pt.read.p99_latency_ns / 1000.0}});
            rep["rows"] = rows;
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
