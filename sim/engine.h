// Virtual-time driver: keeps up to qd commands in flight against a Model.
//
// Time only moves when the engine waits: for a free queue slot (the
// earliest completion), for a timestamp in a trace, or for a drain. A
// command is submitted at the current virtual time and the model returns
// its completion time at once, so a run costs no wall-clock waiting.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "model.h"

namespace nvmev {

struct PhaseResult {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  uint64_t errors = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  double mean_latency_ns = 0;
  uint64_t p50_latency_ns = 0;
  uint64_t p99_latency_ns = 0;
  uint64_t max_latency_ns = 0;

  uint64_t elapsed_ns() const { return end_ns - start_ns; }
  double mb_per_s() const;  // 10^6 bytes per second
  double iops() const;
};

class Engine {
 public:
  Engine(Model& model, unsigned queue_depth);

  void set_queue_depth(unsigned qd);
  unsigned queue_depth() const { return qd_; }
  uint64_t now() const { return now_; }

  // Submit at the first moment a queue slot is free and now >= not_before.
  Completion submit(const ftl_cmd& cmd, uint64_t not_before = 0);
  // Wait for every command in flight (an fsync-like barrier).
  void drain();
  // Drain, then leave the drive idle for ns (background GC may run).
  void idle(uint64_t ns);

  // Measurement window: begin drains and clears, end drains and reports
  // all commands of the window; op_result() then has one op's share.
  void begin_phase();
  PhaseResult end_phase();
  const PhaseResult& op_result(uint8_t op) const { return per_op_[op]; }

 private:
  struct Samples {
    std::vector<uint64_t> latencies;
    long double sum = 0;
  };
  void wait_one();
  static void account(PhaseResult& p, Samples& s, const ftl_cmd& cmd, const Completion& c,
                      uint64_t now);
  static void summarise(PhaseResult& p, Samples& s);

  Model& model_;
  unsigned qd_;
  uint64_t now_ = 0;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>>
      inflight_;
  PhaseResult phase_;
  PhaseResult per_op_[FTL_OP_NR];
  Samples samples_;
  Samples op_samples_[FTL_OP_NR];
};

}  // namespace nvmev
