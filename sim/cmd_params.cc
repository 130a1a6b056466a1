// nvmev-sim params: every geometry/timing parameter with its default and range.
#include "commands.h"

namespace nvmev::cli {

Subcommand add_params(CLI::App& app) {
  auto* cmd = app.add_subcommand("params", "list every geometry/timing parameter");
  return {cmd, [](const RunContext& c) {
            json rows = json::array();
            for (size_t i = 0; i < ftl_nr_params; i++)
              rows.push_back({{"name", ftl_params[i].name},
                              {"default", ftl_params[i].def},
                              {"min", ftl_params[i].min},
                              {"max", ftl_params[i].max},
                              {"description", ftl_params[i].desc}});
            print_report(c.out, json{{"workload", "params"}, {"rows", rows}}, c.csv);
          }};
}

}  // namespace nvmev::cli
