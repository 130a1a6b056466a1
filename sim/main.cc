// nvmev-sim: the flash model of nvmev.ko, driven in virtual time. The
// options every subcommand shares are here; each subcommand is a
// cmd_*.cc (commands.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "trace.h"

using namespace nvmev;

namespace {

// --channels, --capacity-mib, ...: one option per row of ftl_params
void add_model_options(CLI::App& app, ftl_config& cfg) {
  auto* geo = app.add_option_group("Geometry and timing");
  for (size_t i = 0; i < ftl_nr_params; i++) {
    const ftl_param& p = ftl_params[i];
    // module-parameter spelling (capacity_mib) and the usual CLI one (capacity-mib)
    std::string dashed = p.name;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    std::string names = std::string("--") + p.name;
    if (dashed != p.name) names += ",--" + dashed;
    geo->add_option(names, *ftl_param_ptr(&cfg, &p), p.desc)->capture_default_str();
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nvmev-sim: the SSD model of nvmev.ko (ftl/) in virtual time.\n"
      "Geometry and timing options are the module parameters of nvmev.ko."};
  app.require_subcommand(1);
  app.fallthrough();

  ftl_config cfg;
  ftl_config_defaults(&cfg);
  add_model_options(app, cfg);
  std::string format = "json", output;
  app.add_option("--format", format, "output format")
      ->check(CLI::IsMember({"json", "csv"}))
      ->capture_default_str();
  app.add_option("--output,-o", output, "write results to this file instead of stdout");

  // the order of --help
  const std::vector<cli::Subcommand> commands = {
      cli::add_params(app),    cli::add_alignment(app),  cli::add_randwrite(app),
      cli::add_hotcold(app),   cli::add_fragment(app),   cli::add_subpage(app),
      cli::add_zone_sweep(app), cli::add_zone_log(app),  cli::add_trace(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and friends exit 0; every usage error exits 2
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  apply_default_capacity(cfg);
  std::ofstream file;
  if (!output.empty()) {
    file.open(output);
    if (!file) {
      std::cerr << "nvmev-sim: cannot write " << output << "\n";
      return 2;
    }
  }
  const cli::RunContext ctx{cfg, output.empty() ? std::cout : file, format == "csv"};

  try {
    for (const auto& c : commands)
      if (*c.app) c.run(ctx);
  } catch (const ConfigError& e) {
    std::cerr << "nvmev-sim: invalid configuration: " << e.what() << "\n";
    return 2;
  } catch (const TraceError& e) {
    std::cerr << "nvmev-sim: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "nvmev-sim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "nvmev-sim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
