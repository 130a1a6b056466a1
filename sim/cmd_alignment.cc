// nvmev-sim alignment: 4 KiB random reads at multiples of a stride.
#include <memory>

#include "commands.h"
#include "workloads.h"

namespace nvmev::cli {

Subcommand add_alignment(CLI::App& app) {
  struct Options {
    AlignmentParams ap;
    uint64_t stride_min = 4, stride_max = 1024, stride_step = 4, region_mib = 256;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "alignment", "sequential write, then 4 KiB random reads at multiples of a stride");
  cmd->add_option("--region-mib", o->region_mib, "region written and read")->capture_default_str();
  cmd->add_option("--stride-min-kib", o->stride_min, "first stride")->capture_default_str();
  cmd->add_option("--stride-max-kib", o->stride_max, "last stride")->capture_default_str();
  cmd->add_option("--stride-step-kib", o->stride_step, "stride increment")->capture_default_str();
  cmd->add_option("--reads", o->ap.reads_per_stride, "reads per stride")->capture_default_str();
  cmd->add_option("--qd", o->ap.queue_depth, "queue depth")->capture_default_str();
  cmd->add_option("--seed", o->ap.seed, "random seed")->capture_default_str();

  return {cmd, [o](const RunContext& c) {
            AlignmentParams& ap = o->ap;
            Model model(c.cfg);
            if (o->stride_step == 0 || o->stride_min == 0 || o->stride_min > o->stride_max)
              throw std::invalid_argument(
                  "alignment: need 0 < stride-min <= stride-max and step > 0");
            for (uint64_t s = o->stride_min; s <= o->stride_max; s += o->stride_step)
              ap.strides.push_back(s * KiB);
            ap.region_bytes = o->region_mib * MiB;
            auto points = run_alignment(model, ap);
            json rep = base_report("alignment", model);
            json rows = json::array();
            for (const auto& pt : points)
              rows.push_back({{"stride_kib", pt.stride_bytes / KiB},
                              {"iops", pt.phase.iops()},
                              {"mb_per_s", pt.phase.mb_per_s()},
                              {"relative", pt.relative},
                              {"mean_latency_us", pt.phase.mean_latency_ns / 1000},
                              {"p99_latency_us", pt.phase.p99_latency_ns / 1000.0},
                              {"dies_used", pt.dies.dies_used()},
                              {"collisions", pt.dies.total_collisions()}});
            rep["summary"] = {{"reads_per_stride", ap.reads_per_stride},
                              {"queue_depth", ap.queue_depth}};
            rep["rows"] = rows;
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
