// nvmev-sim zone-log: one log-structured workload on a zoned and on a
// conventional drive (write amplification, latency).
#include <memory>

#include "commands.h"
#include "workloads.h"
#include "zoned.h"

namespace nvmev::cli {

Subcommand add_zone_log(CLI::App& app) {
  struct Options {
    ZoneLogParams zlp;
    uint64_t zone_mib = 0, write_kib = 64;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "zone-log",
      "the same log-structured zone workload on a zoned and a conventional drive (WAF, latency)");
  cmd->add_option("--zone-mib", o->zone_mib, "zone size; 0 = one block on every die")
      ->capture_default_str();
  cmd->add_option("--width", o->zlp.width, "zone width in dies; 0 = all")->capture_default_str();
  cmd->add_option("--open-zones", o->zlp.open_zones, "zones written at once")
      ->capture_default_str();
  cmd->add_option("--write-kib", o->write_kib, "write size")->capture_default_str();
  cmd->add_option("--qd", o->zlp.queue_depth, "queue depth")->capture_default_str();
  cmd->add_option("--passes", o->zlp.passes, "capacity multiples written")->capture_default_str();
  cmd->add_option("--fill-percent", o->zlp.fill_percent, "zones full before the run")
      ->check(CLI::Range(1, 99))
      ->capture_default_str();
  cmd->add_option("--seed", o->zlp.seed, "random seed")->capture_default_str();

  return {cmd, [o](const RunContext& c) {
            ZoneLogParams& zlp = o->zlp;
            zlp.zone_bytes = o->zone_mib * MiB;
            zlp.write_bytes = o->write_kib * KiB;
            Model probe(c.cfg);
            json rep = base_report("zone-log", probe);
            rep["summary"] = {{"zone_bytes", zone_bytes_for(probe, zlp.zone_bytes)},
                              {"open_zones", zlp.open_zones},
                              {"passes", zlp.passes},
                              {"fill_percent", zlp.fill_percent}};
            json rows = json::array();
            for (bool zoned : {true, false}) {
              ZoneLogResult r = run_zone_log(c.cfg, zlp, zoned);
              rows.push_back({{"drive", zoned ? "zoned" : "conventional"},
                              {"write_amplification", r.write_amplification},
                              {"gc_copies", r.gc_copies},
                              {"zone_resets", r.resets},
                              {"write_mb_per_s", r.writes.mb_per_s()},
                              {"write_mean_latency_us", r.writes.mean_latency_ns / 1000},
                              {"write_p99_latency_us", r.writes.p99_latency_ns / 1000.0},
                              {"write_max_latency_us", r.writes.max_latency_ns / 1000.0}});
            }
            rep["rows"] = rows;
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
