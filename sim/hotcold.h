// nvmev-sim's two-lifetime workload: a small hot region rewritten often
// beside a large cold one (a flash cache's shape), its writes sent
// through FDP reclaim unit handles chosen by lifetime class or by LBA
// region, or through none, so that write amplification with and without
// FDP can be compared on one drive.
#pragma once

#include <cstdint>
#include <vector>

#include "engine.h"
#include "model.h"
#include "units.h"
#include "workloads.h"

namespace nvmev {

// How writes name a handle: not at all; hot writes handle 1 and cold
// ones handle 0 (modulo fdp_ruhs); or the used LBA range cut into
// fdp_ruhs equal regions, region i handle i. The reclaim group is that of
// the write's part of the used range cut into fdp_reclaim_groups.
enum class HandleBy { None, Lifetime, Region };

// How the cold region is rewritten: random block_bytes writes, or as a
// log (a flash cache's large-object region: cold_bytes segments in
// order, wrapping around, so that the oldest segment is rewritten next).
enum class ColdWrites { Random, Log };

// The first utilization_percent of the capacity is used, its first
// hot_percent hot; after a sequential fill, passes x the used space is
// written, hot_write_percent of its bytes to the hot region (random
// block_bytes writes) and the rest to the cold one as cold_writes says
// (log segments of cold_bytes, or random block_bytes blocks).
struct HotColdParams : RandWriteParams {
  unsigned utilization_percent = 100;
  unsigned hot_percent = 10;
  unsigned hot_write_percent = 90;
  HandleBy handle_by = HandleBy::Lifetime;
  ColdWrites cold_writes = ColdWrites::Random;
  uint64_t cold_bytes = 1024 * KiB;
};

// RandWriteResult's figures, of the random writes, and per handle
struct HotColdResult : RandWriteResult {
  std::vector<ftl_fdp_stats> ruh;  // empty without FDP
  uint64_t hot_bytes = 0, cold_bytes = 0;  // written after the fill
};

HotColdResult run_hotcold(Model& model, const HotColdParams& p);

// The handle a write at @off goes to (HandleBy::None: none, -1).
int hotcold_handle(const HotColdParams& p, uint64_t used, uint64_t hot, uint32_t ruhs,
                   uint64_t off);

}  // namespace nvmev
