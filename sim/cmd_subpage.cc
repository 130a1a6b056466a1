// nvmev-sim subpage: files grown together by appends smaller than a
// program unit, read against contiguous copies.
#include <memory>

#include "commands.h"
#include "workloads.h"

namespace nvmev::cli {

Subcommand add_subpage(CLI::App& app) {
  struct Options {
    SubpageParams sp;
    uint64_t file_kib = 1024, append_kib = 16, other_kib = 16, read_kib = 1024;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "subpage", "files grown together by appends smaller than a program unit, then read");
  cmd->add_option("--files", o->sp.files, "files written at once")->capture_default_str();
  cmd->add_option("--file-kib", o->file_kib, "size of each file")->capture_default_str();
  cmd->add_option("--append-kib", o->append_kib, "append size")->capture_default_str();
  cmd->add_option("--other-kib", o->other_kib, "other data written after each append")
      ->capture_default_str();
  cmd->add_option("--read-kib", o->read_kib, "read command size")->capture_default_str();
  cmd->add_flag("--send-hints", o->sp.send_hints, "send append hints with the files' appends");
  cmd->add_flag("--extents", o->sp.extents,
                "each append in an extent of its own, read as its extents at once");

  return {cmd, [o](const RunContext& c) {
            SubpageParams& sp = o->sp;
            sp.file_bytes = o->file_kib * KiB;
            sp.append_bytes = o->append_kib * KiB;
            sp.other_bytes = o->other_kib * KiB;
            sp.read_bytes = o->read_kib * KiB;
            Model probe(c.cfg);
            SubpageResult r = run_subpage(c.cfg, sp);
            json rep = base_report("subpage", probe);
            rep["summary"] = {{"files", sp.files},
                              {"file_bytes", sp.file_bytes},
                              {"append_bytes", sp.append_bytes},
                              {"other_bytes", sp.other_bytes},
                              {"hints_sent", sp.send_hints},
                              {"extents", sp.extents},
                              {"write_points_per_die", probe.geometry().host_wpts}};
            json rows = json::array();
            // the write-side columns belong to the fragmented layout's run
            auto row = [&](const char* layout, const PhaseResult& p, double reads) {
              const bool frag = &p == &r.fragmented;
              rows.push_back(
                  {{"layout", layout},
                   {"mb_per_s", p.mb_per_s()},
                   {"relative", p.mb_per_s() / r.contiguous.mb_per_s()},
                   {"nand_reads_per_file", reads},
                   {"program_units_per_file", r.file_program_units},
                   {"pad_units", frag ? r.stats.pad_units : 0},
                   {"wpt_evictions", frag ? r.stats.wpt_evictions : 0},
                   {"waf", frag && r.stats.host_write_units
                               ? static_cast<double>(r.stats.nand_write_units) /
                                     static_cast<double>(r.stats.host_write_units)
                               : 0.0}});
            };
            row("fragmented", r.fragmented, r.reads_per_file);
            row("contiguous", r.contiguous, r.contiguous_reads_per_file);
            rep["rows"] = rows;
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
