// Simulation speed: simulated I/Os per second of wall-clock time, on one
// core, for the model calls the simulator and the module make.
#include <benchmark/benchmark.h>

#include <random>

#include "engine.h"
#include "model.h"
#include "units.h"

namespace nvmev {
namespace {

constexpr uint64_t K4 = 4096;

ftl_cmd cmd(uint8_t op, uint64_t off, uint64_t len) { return make_cmd(op, off, len); }

ftl_config config(uint64_t capacity_mib) {
  ftl_config c = default_config();
  c.capacity_mib = capacity_mib;
  return c;
}

// 4 KiB random reads of written data, 64 in flight.
void BM_RandomRead4k(benchmark::State& state) {
  Model m(config(1024));
  Engine e(m, 64);
  for (uint64_t off = 0; off < (1024 * MiB); off += MiB) e.submit(cmd(FTL_OP_WRITE, off, MiB));
  e.drain();
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> pick(0, (1024 * MiB) / K4 - 1);
  for (auto _ : state) e.submit(cmd(FTL_OP_READ, pick(rng) * K4, K4));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RandomRead4k);

// 4 KiB random overwrites of a full device: garbage collection included.
void BM_RandomWrite4kWithGc(benchmark::State& state) {
  Model m(config(1024));
  Engine e(m, 32);
  const uint64_t cap = m.capacity_bytes();
  for (uint64_t off = 0; off < cap; off += MiB) e.submit(cmd(FTL_OP_WRITE, off, MiB));
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> pick(0, cap / K4 - 1);
  for (auto _ : state) e.submit(cmd(FTL_OP_WRITE, pick(rng) * K4, K4));
  state.SetItemsProcessed(state.iterations());
  state.counters["waf"] = m.write_amplification();
}
BENCHMARK(BM_RandomWrite4kWithGc);

// 128 KiB sequential writes, wrapping around the device.
void BM_SequentialWrite128k(benchmark::State& state) {
  Model m(config(1024));
  Engine e(m, 32);
  const uint64_t cap = m.capacity_bytes();
  uint64_t off = 0;
  for (auto _ : state) {
    e.submit(cmd(FTL_OP_WRITE, off, 128 * KiB));
    off = (off + 128 * KiB) % cap;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * 128 * KiB);
}
BENCHMARK(BM_SequentialWrite128k);

}  // namespace
}  // namespace nvmev

BENCHMARK_MAIN();
