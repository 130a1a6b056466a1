// Text trace format of nvmev-sim (documented in docs/sim.md, "Trace format").
//
//   # comment                         blank lines are ignored too
//   [@<ns>] R <offset> <length>       read
//   [@<ns>] W <offset> <length> [append=<offset> | overwrite]
//   [@<ns>] T <offset> <length>       trim (deallocate)
//   [@<ns>] F                         flush
//   B                                 barrier: wait for everything in flight
//
// Offsets and lengths are bytes with an optional K, M or G suffix (powers
// of 1024). "@<ns>" submits no earlier than that virtual time; without it
// a command goes as soon as the queue depth allows.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine.h"
#include "model.h"

namespace nvmev {

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TraceOp {
  bool barrier = false;
  ftl_cmd cmd{};
  std::optional<uint64_t> at_ns;
  unsigned line = 0;
};

// Throws TraceError("<name>:<line>: <what is wrong>").
std::vector<TraceOp> parse_trace(std::istream& in, const std::string& name);

struct TraceResult {
  PhaseResult total;
  PhaseResult per_op[FTL_OP_NR];
};

TraceResult run_trace(Model& model, const std::vector<TraceOp>& ops, unsigned queue_depth);

}  // namespace nvmev
