// nvmev-sim's subcommands: each cmd_*.cc adds one to the command line
// (its options, their defaults) and returns what runs it once the command
// line is parsed; main.cc lists them in the order --help shows them.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <vector>

#include "model.h"
#include "report.h"
#include "workloads.h"

namespace nvmev::cli {

// What a subcommand runs with: the model's parameters (geometry and timing
// options, default capacity applied) and where its report goes.
struct RunContext {
  const ftl_config& cfg;
  std::ostream& out;
  bool csv;
};

// A subcommand's parsed options live in its run function's closure.
// run() throws ConfigError, TraceError or std::invalid_argument for bad
// input (exit status 2), anything else for a failure (1).
struct Subcommand {
  CLI::App* app;
  std::function<void(const RunContext&)> run;
};

// --passes (described by @passes), --bs-kib, --qd and --seed of a
// workload that fills the drive, then writes at random (cmd_randwrite.cc)
void add_random_write_options(CLI::App* cmd, RandWriteParams& p, uint64_t& bs_kib,
                              const char* passes);
// its write amplification and the fill's and random writes' throughput
void add_random_write_summary(json& summary, const RandWriteResult& r);

Subcommand add_params(CLI::App& app);
Subcommand add_alignment(CLI::App& app);
Subcommand add_randwrite(CLI::App& app);
Subcommand add_hotcold(CLI::App& app);
Subcommand add_fragment(CLI::App& app);
Subcommand add_subpage(CLI::App& app);
Subcommand add_zone_sweep(CLI::App& app);
Subcommand add_zone_log(CLI::App& app);
Subcommand add_trace(CLI::App& app);

}  // namespace nvmev::cli
