// nvmev-sim randwrite: random overwrites after a fill (garbage collection).
#include <memory>

#include "commands.h"
#include "workloads.h"

namespace nvmev::cli {

Subcommand add_randwrite(CLI::App& app) {
  struct Options {
    RandWriteParams rp;
    uint64_t bs_kib = 4;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "randwrite", "fill, then random overwrites of passes x capacity (garbage collection)");
  cmd->add_option("--passes", o->rp.passes, "capacity multiples written")->capture_default_str();
  cmd->add_option("--bs-kib", o->bs_kib, "write size")->capture_default_str();
  cmd->add_option("--qd", o->rp.queue_depth, "queue depth")->capture_default_str();
  cmd->add_option("--seed", o->rp.seed, "random seed")->capture_default_str();

  return {cmd, [o](const RunContext& c) {
            RandWriteParams& rp = o->rp;
            Model model(c.cfg);
            rp.block_bytes = o->bs_kib * KiB;
            RandWriteResult r = run_randwrite(model, rp);
            json rep = base_report("randwrite", model);
            rep["summary"] = {{"passes", rp.passes},
                              {"write_amplification", r.write_amplification},
                              {"fill_mb_per_s", r.fill.mb_per_s()},
                              {"random_mb_per_s", r.random.mb_per_s()},
                              {"random_iops", r.random.iops()},
                              {"random_p99_latency_us", r.random.p99_latency_ns / 1000.0},
                              {"gc_cycles", r.stats.gc_cycles},
                              {"placement_fallbacks", r.stats.placement_fallbacks},
                              {"errors", r.stats.errors}};
            rep["rows"] = die_rows(r.dies);
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
