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

// The first utilization_percent of the capacity is used, its first
// hot_percent hot; after a sequential fill, passes x the used space of
// random block_bytes writes, hot_write_percent of them to the hot region.
struct HotColdParams : RandWriteParams {
  unsigned utilization_percent = 100;
  unsigned hot_percent = 10;
  unsigned hot_write_percent = 90;
  HandleBy handle_by = HandleBy::Lifetime;
};

// RandWriteResult's figures, of the random writes, and per handle
struct HotColdResult : RandWriteResult {
  std::vector<ftl_fdp_stats> ruh;  // empty without FDP
};

HotColdResult run_hotcold(Model& model, const HotColdParams& p);

// The handle a write at @off goes to (HandleBy::None: none, -1).
int hotcold_handle(const HotColdParams& p, uint64_t used, uint64_t hot, uint32_t ruhs,
                   uint64_t off);

}  // namespace nvmev
