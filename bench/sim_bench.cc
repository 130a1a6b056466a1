// Simulation speed: simulated I/Os per second of wall-clock time, on one
// core, for the model calls the simulator and the module make. Each runs
// without FDP (/0) and with 4 reclaim unit handles (/4), writes then
// naming handles in turn by 1 MiB region, so that the cost of FDP shows
// as a ratio measured in one run.
#include <benchmark/benchmark.h>

#include <random>

#include "engine.h"
#include "model.h"
#include "units.h"

namespace nvmev {
namespace {

constexpr uint64_t K4 = 4096;

ftl_cmd cmd(uint8_t op, uint64_t off, uint64_t len) { return make_cmd(op, off, len); }

// A write through handle (1 MiB region) mod @ruhs, or none without FDP.
ftl_cmd write(uint64_t off, uint64_t len, int64_t ruhs) {
  return make_write(off, len, ruhs ? static_cast<int>(off / MiB % static_cast<uint64_t>(ruhs)) : -1);
}

ftl_config config(uint64_t capacity_mib, int64_t ruhs) {
  ftl_config c = default_config();
  c.capacity_mib = capacity_mib;
  c.fdp_ruhs = static_cast<uint32_t>(ruhs);
  return c;
}

// 4 KiB random reads of written data, 64 in flight.
void BM_RandomRead4k(benchmark::State& state) {
  Model m(config(1024, state.range(0)));
  Engine e(m, 64);
  for (uint64_t off = 0; off < (1024 * MiB); off += MiB) e.submit(write(off, MiB, state.range(0)));
  e.drain();
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> pick(0, (1024 * MiB) / K4 - 1);
  for (auto _ : state) e.submit(cmd(FTL_OP_READ, pick(rng) * K4, K4));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RandomRead4k)->Arg(0)->Arg(4);

// 4 KiB random overwrites of a full device: garbage collection included.
void BM_RandomWrite4kWithGc(benchmark::State& state) {
  Model m(config(1024, state.range(0)));
  Engine e(m, 32);
  const uint64_t cap = m.capacity_bytes();
  for (uint64_t off = 0; off < cap; off += MiB) e.submit(write(off, MiB, state.range(0)));
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> pick(0, cap / K4 - 1);
  for (auto _ : state) e.submit(write(pick(rng) * K4, K4, state.range(0)));
  state.SetItemsProcessed(state.iterations());
  state.counters["waf"] = m.write_amplification();
}
BENCHMARK(BM_RandomWrite4kWithGc)->Arg(0)->Arg(4);

// 128 KiB sequential writes, wrapping around the device.
void BM_SequentialWrite128k(benchmark::State& state) {
  Model m(config(1024, state.range(0)));
  Engine e(m, 32);
  const uint64_t cap = m.capacity_bytes();
  uint64_t off = 0;
  for (auto _ : state) {
    e.submit(write(off, 128 * KiB, state.range(0)));
    off = (off + 128 * KiB) % cap;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * 128 * KiB);
}
BENCHMARK(BM_SequentialWrite128k)->Arg(0)->Arg(4);

}  // namespace
}  // namespace nvmev

BENCHMARK_MAIN();
