// nvmev-sim fragment: a fragmented file's sequential read against a
// contiguous copy's.
#include <memory>

#include "commands.h"
#include "workloads.h"

namespace nvmev::cli {

Subcommand add_fragment(CLI::App& app) {
  struct Options {
    FragmentParams fp;
    std::string kind = "append", gap = "worst";
    uint64_t file_mib = 8, chunk_kib = 0, read_kib = 1024, settle_ms = 1000;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "fragment", "fragmented-file write pattern, then a sequential read vs a contiguous file");
  cmd->add_option("--kind", o->kind, "how the file is fragmented")
      ->check(CLI::IsMember({"append", "overwrite"}))
      ->capture_default_str();
  cmd->add_option("--gap", o->gap, "other data written between chunks: stripe - chunk, or random")
      ->check(CLI::IsMember({"worst", "random"}))
      ->capture_default_str();
  cmd->add_option("--file-mib", o->file_mib, "target file size")->capture_default_str();
  cmd->add_option("--chunk-kib", o->chunk_kib, "file chunk; 0 = die-allocation granularity")
      ->capture_default_str();
  cmd->add_option("--read-kib", o->read_kib, "read command size")->capture_default_str();
  cmd->add_flag("--send-hints", o->fp.send_hints,
                "send append/overwrite hints with the target file's writes");
  cmd->add_option("--file-ruh", o->fp.file_ruh,
                  "FDP handle (write stream) of the target file's writes; -1 = none named")
      ->check(CLI::Range(-1, 65535))
      ->capture_default_str();
  cmd->add_option("--other-ruh", o->fp.other_ruh,
                  "FDP handle of the other data's writes; -1 = none named")
      ->check(CLI::Range(-1, 65535))
      ->capture_default_str();
  cmd->add_option("--settle-ms", o->settle_ms, "idle time before the read")->capture_default_str();
  cmd->add_option("--seed", o->fp.seed, "random seed")->capture_default_str();

  return {cmd, [o](const RunContext& c) {
            FragmentParams& fp = o->fp;
            fp.kind = o->kind == "append" ? FragmentParams::Kind::Append
                                          : FragmentParams::Kind::Overwrite;
            fp.gap = o->gap == "worst" ? FragmentParams::Gap::Worst : FragmentParams::Gap::Random;
            fp.file_bytes = o->file_mib * MiB;
            fp.chunk_bytes = o->chunk_kib * KiB;
            fp.read_bytes = o->read_kib * KiB;
            fp.settle_ns = o->settle_ms * 1000000;
            Model probe(c.cfg);
            FragmentResult r = run_fragment(c.cfg, fp);
            const ftl_stats& st = r.fragmented_stats;
            json rep = base_report("fragment", probe);
            rep["summary"] = {{"kind", to_string(fp.kind)},
                              {"gap", to_string(fp.gap)},
                              {"hints_sent", fp.send_hints},
                              {"file_ruh", fp.file_ruh},
                              {"other_ruh", fp.other_ruh},
                              {"hints_ignored_fdp", st.hint_ignored_fdp},
                              {"file_bytes", fp.file_bytes},
                              {"relative_throughput", r.relative},
                              {"hints_honoured", st.hint_honoured},
                              {"hints_ignored", st.hint_ignored_off + st.hint_ignored_unmapped +
                                                    st.hint_ignored_range + st.hint_ignored_wear +
                                                    st.hint_ignored_invalid}};
            json rows = json::array();
            auto row = [&](const char* layout, const PhaseResult& p, const DieActivity& a) {
              json j{{"layout", layout},
                     {"mb_per_s", p.mb_per_s()},
                     {"relative", p.mb_per_s() / r.contiguous.mb_per_s()},
                     {"mean_latency_us", p.mean_latency_ns / 1000},
                     {"nand_reads", a.total_reads()},
                     {"collisions", a.total_collisions()},
                     {"collision_wait_us", a.total_wait_ns() / 1000},
                     {"dies_used", a.dies_used()}};
              for (size_t d = 0; d < a.reads.size(); d++)
                j["die" + std::to_string(d) + "_reads"] = a.reads[d];
              rows.push_back(j);
            };
            row("fragmented", r.fragmented, r.fragmented_dies);
            row("contiguous", r.contiguous, r.contiguous_dies);
            rep["rows"] = rows;
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
