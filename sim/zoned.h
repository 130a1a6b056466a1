// nvmev-sim's zoned workloads: the model's zones on flash (ftl/ftl_zone.c)
// under the two experiments of zoned-namespace studies.
#pragma once

#include <cstdint>
#include <vector>

#include "engine.h"
#include "model.h"
#include "units.h"

namespace nvmev {

// Throughput against zone width and open zones: for each width (dies a
// zone spans) and each number k of zones open at once, a fresh drive
// whose whole capacity is zoned writes total_bytes as k streams, each
// filling zones one after another (stream i: zones i, i + k, ...), the
// streams' write_bytes commands round-robin at queue depth qd; then reads
// it all back the same way. total_bytes is several times the write
// buffer, so writes run at the speed of the flash, not of the buffer.
struct ZoneSweepParams {
  uint64_t zone_bytes = 0;  // 0: one erase block on every die at full width
  uint64_t total_bytes = 256 * MiB;
  std::vector<uint32_t> widths;
  std::vector<uint32_t> open_zones;
  uint64_t write_bytes = 64 * KiB;
  uint64_t read_bytes = 64 * KiB;
  unsigned queue_depth = 32;
};

struct ZoneSweepPoint {
  uint32_t width;
  uint32_t open_zones;
  PhaseResult write;
  PhaseResult read;
};

std::vector<ZoneSweepPoint> run_zone_sweep(const ftl_config& cfg, const ZoneSweepParams& p);

// The same log-structured workload on a zoned drive and a conventional
// one: open_zones zones are filled at once, round-robin; when one is
// full, a full zone chosen at random is reset (zoned) or deallocated
// whole (conventional, a TRIM of its range) and a fresh one opened, until
// passes x the capacity has been written. The drive is first filled to
// fill_percent. Write amplification and write latency compare.
struct ZoneLogParams {
  uint64_t zone_bytes = 0;  // as ZoneSweepParams
  uint32_t width = 0;       // 0: every die
  uint32_t open_zones = 4;
  uint64_t write_bytes = 64 * KiB;
  unsigned queue_depth = 16;
  double passes = 3;
  unsigned fill_percent = 90;
  uint64_t seed = 1;
};

struct ZoneLogResult {
  bool zoned;
  PhaseResult writes;
  double write_amplification;
  uint64_t gc_copies;
  uint64_t resets;
};

ZoneLogResult run_zone_log(const ftl_config& cfg, const ZoneLogParams& p, bool zoned);

// The zone size these workloads use for @p's zone_bytes on @m's drive.
uint64_t zone_bytes_for(const Model& m, uint64_t requested);

}  // namespace nvmev
