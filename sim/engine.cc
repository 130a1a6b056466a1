#include "engine.h"

#include <algorithm>
#include <stdexcept>

#include "percentile.h"

namespace nvmev {

double PhaseResult::mb_per_s() const {
  if (!elapsed_ns()) return 0;
  return static_cast<double>(bytes) * 1e3 / static_cast<double>(elapsed_ns());
}

double PhaseResult::iops() const {
  if (!elapsed_ns()) return 0;
  return static_cast<double>(ops) * 1e9 / static_cast<double>(elapsed_ns());
}

Engine::Engine(Model& model, unsigned queue_depth) : model_(model) {
  set_queue_depth(queue_depth);
}

void Engine::set_queue_depth(unsigned qd) {
  if (qd == 0) throw std::invalid_argument("queue depth must be at least 1");
  qd_ = qd;
}

void Engine::wait_one() {
  now_ = std::max(now_, inflight_.top());
  inflight_.pop();
}

void Engine::account(PhaseResult& p, Samples& s, const ftl_cmd& cmd, const Completion& c,
                     uint64_t now) {
  p.ops++;
  if (cmd.op != FTL_OP_TRIM) p.bytes += cmd.len;
  if (c.status != FTL_OK) p.errors++;
  p.end_ns = std::max(p.end_ns, c.done_ns);
  s.latencies.push_back(c.done_ns - now);
  s.sum += c.done_ns - now;
}

void Engine::summarise(PhaseResult& p, Samples& s) {
  auto& v = s.latencies;
  if (v.empty()) return;
  p.mean_latency_ns = static_cast<double>(s.sum / v.size());
  p.p50_latency_ns = percentile(v, 50);
  p.p99_latency_ns = percentile(v, 99);
  p.max_latency_ns = *std::max_element(v.begin(), v.end());
}

Completion Engine::submit(const ftl_cmd& cmd, uint64_t not_before) {
  while (inflight_.size() >= qd_) wait_one();
  now_ = std::max(now_, not_before);
  while (!inflight_.empty() && inflight_.top() <= now_) inflight_.pop();

  Completion c = model_.submit(cmd, now_);
  inflight_.push(c.done_ns);
  account(phase_, samples_, cmd, c, now_);
  if (cmd.op < FTL_OP_NR) account(per_op_[cmd.op], op_samples_[cmd.op], cmd, c, now_);
  return c;
}

void Engine::drain() {
  while (!inflight_.empty()) wait_one();
}

void Engine::idle(uint64_t ns) {
  drain();
  now_ += ns;
  model_.idle(now_);
}

void Engine::begin_phase() {
  drain();
  phase_ = PhaseResult{};
  phase_.start_ns = phase_.end_ns = now_;
  samples_ = Samples{};
  for (int o = 0; o < FTL_OP_NR; o++) {
    per_op_[o] = phase_;
    op_samples_[o] = Samples{};
  }
}

PhaseResult Engine::end_phase() {
  drain();
  summarise(phase_, samples_);
  for (int o = 0; o < FTL_OP_NR; o++) {
    per_op_[o].end_ns = phase_.end_ns;
    summarise(per_op_[o], op_samples_[o]);
  }
  return phase_;
}

}  // namespace nvmev
