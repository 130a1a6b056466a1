// nvmev-sim randwrite: random overwrites after a fill (garbage collection).
#include <memory>

#include "commands.h"
#include "workloads.h"

namespace nvmev::cli {

void add_random_write_options(CLI::App* cmd, RandWriteParams& p, uint64_t& bs_kib,
                              const char* passes) {
  cmd->add_option("--passes", p.passes, passes)->capture_default_str();
  cmd->add_option("--bs-kib", bs_kib, "write size")->capture_default_str();
  cmd->add_option("--qd", p.queue_depth, "queue depth")->capture_default_str();
  cmd->add_option("--seed", p.seed, "random seed")->capture_default_str();
}

void add_random_write_summary(json& summary, const RandWriteResult& r) {
  summary["write_amplification"] = r.write_amplification;
  summary["fill_mb_per_s"] = r.fill.mb_per_s();
  summary["random_mb_per_s"] = r.random.mb_per_s();
}

Subcommand add_randwrite(CLI::App& app) {
  struct Options {
    RandWriteParams rp;
    uint64_t bs_kib = 4;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "randwrite", "fill, then random overwrites of passes x capacity (garbage collection)");
  add_random_write_options(cmd, o->rp, o->bs_kib, "capacity multiples written");

  return {cmd, [o](const RunContext& c) {
            RandWriteParams& rp = o->rp;
            Model model(c.cfg);
            rp.block_bytes = o->bs_kib * KiB;
            RandWriteResult r = run_randwrite(model, rp);
            json rep = base_report("randwrite", model);
            json& s = rep["summary"];
            s["passes"] = rp.passes;
            add_random_write_summary(s, r);
            s["random_iops"] = r.random.iops();
            s["random_p99_latency_us"] = r.random.p99_latency_ns / 1000.0;
            s["gc_cycles"] = r.stats.gc_cycles;
            s["placement_fallbacks"] = r.stats.placement_fallbacks;
            s["errors"] = r.stats.errors;
            rep["rows"] = die_rows(r.dies);
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
