// nvmev-sim trace: replay a text trace (format in docs/sim.md).
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.h"
#include "trace.h"

namespace nvmev::cli {

Subcommand add_trace(CLI::App& app) {
  struct Options {
    std::string file;
    unsigned qd = 32;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("trace", "replay a text trace (format in docs/sim.md)");
  cmd->add_option("file", o->file, "trace file, - for stdin")->required();
  cmd->add_option("--qd", o->qd, "queue depth for commands without @time")->capture_default_str();

  return {cmd, [o](const RunContext& c) {
            Model model(c.cfg);
            std::ifstream tf;
            std::istream* in = &std::cin;
            if (o->file != "-") {
              tf.open(o->file);
              if (!tf) throw TraceError(o->file + ": cannot open");
              in = &tf;
            }
            auto ops = parse_trace(*in, o->file);
            TraceResult r = run_trace(model, ops, o->qd);
            json rep = base_report("trace", model);
            rep["summary"] = to_json(r.total);
            rep["summary"]["write_amplification"] = model.write_amplification();
            json rows = json::array();
            const char* names[FTL_OP_NR] = {"read", "write", "trim", "flush"};
            for (int op = 0; op < FTL_OP_NR; op++) {
              json row{{"op", names[op]}};
              row.update(to_json(r.per_op[op]));
              rows.push_back(row);
            }
            rep["rows"] = rows;
            rep["dies"] = die_rows(model.die_stats());
            rep["stats"] = to_json(model.stats());
            print_report(c.out, rep, c.csv);
          }};
}

}  // namespace nvmev::cli
