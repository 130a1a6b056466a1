// nvmev-sim hotcold: write amplification of a hot and a cold region, with
// FDP handles by lifetime or region, or without.
#include <algorithm>
#include <map>
#include <memory>

#include "commands.h"
#include "hotcold.h"

namespace nvmev::cli {

Subcommand add_hotcold(CLI::App& app) {
  struct Options {
    HotColdParams hp;
    uint64_t bs_kib = 4;
    uint64_t cold_kib = 1024;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "hotcold", "fill, then random writes mostly to a small hot region: write amplification "
                 "per FDP handle (--fdp-ruhs) against none");
  cmd->add_option("--utilization", o->hp.utilization_percent, "percent of the capacity used")
      ->capture_default_str();
  cmd->add_option("--hot-percent", o->hp.hot_percent, "percent of the used space that is hot")
      ->capture_default_str();
  cmd->add_option("--hot-writes", o->hp.hot_write_percent, "percent of the bytes written that go to the hot region")
      ->capture_default_str();
  add_random_write_options(cmd, o->hp, o->bs_kib, "used-space multiples written");
  const std::map<std::string, HandleBy> by{
      {"none", HandleBy::None}, {"lifetime", HandleBy::Lifetime}, {"region", HandleBy::Region}};
  cmd->add_option("--handle-by", o->hp.handle_by,
                  "FDP handle of a write: none, lifetime (hot 1, cold 0) or region (LBA range "
                  "in fdp_ruhs parts)")
      ->transform(CLI::CheckedTransformer(by, CLI::ignore_case))
      ->default_str("lifetime");
  const std::map<std::string, ColdWrites> cold{{"random", ColdWrites::Random},
                                               {"log", ColdWrites::Log}};
  cmd->add_option("--cold-writes", o->hp.cold_writes,
                  "how the cold region is rewritten: random blocks, or a log of --cold-kib "
                  "segments in order (a flash cache's large objects)")
      ->transform(CLI::CheckedTransformer(cold, CLI::ignore_case))
      ->default_str("random");
  cmd->add_option("--cold-kib", o->cold_kib, "a cold log segment's size")->capture_default_str();

  return {cmd, [o](const RunContext& c) {
            HotColdParams& hp = o->hp;
            Model model(c.cfg);
            hp.block_bytes = o->bs_kib * KiB;
            hp.cold_bytes = o->cold_kib * KiB;
            HotColdResult r = run_hotcold(model, hp);
            json rep = base_report("hotcold", model);
            json& s = rep["summary"];
            s["utilization_percent"] = hp.utilization_percent;
            add_random_write_summary(s, r);
            s["hot_bytes_percent"] =
                100.0 * static_cast<double>(r.hot_bytes) /
                static_cast<double>(std::max<uint64_t>(r.hot_bytes + r.cold_bytes, 1));
            s["gc_cycles"] = r.stats.gc_cycles;
            s["errors"] = r.stats.errors;
            json rows = json::array();
            for (size_t h = 0; h < r.ruh.size(); h++) {
              const ftl_fdp_stats& s = r.ruh[h];
              rows.push_back({{"ruh", h},
                              {"host_units", s.host_units},
                              {"media_units", s.media_units},
                              {"gc_units", s.gc_units},
                              {"pad_units", s.pad_units},
                              {"erased_units", s.erased_units},
                              {"ru_fills", s.ru_fills},
                              {"write_amplification",
                               s.host_units ? static_cast<double>(s.media_units) /
                                                  static_cast<double>(s.host_units)
                                            : 0.0}});
            }
            rep["rows"] = rows;
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
