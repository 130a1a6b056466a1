// Shared fixtures for the unit tests of the flash model.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "engine.h"
#include "model.h"

namespace nvmev::test {

constexpr uint64_t K4 = 4096;

// The research's 8-die drive (4 channels x 2 dies, 32 KiB program unit
// and granularity) on a small capacity.
inline ftl_config paper_config(uint64_t capacity_mib = 1024) {
  ftl_config c = default_config();
  c.capacity_mib = capacity_mib;
  return c;
}

// The same drive with @points write points per die (0: the automatic choice).
inline ftl_config wp_config(uint64_t points, uint64_t capacity_mib = 1024) {
  ftl_config c = paper_config(capacity_mib);
  c.write_points_per_die = points;
  return c;
}

inline ftl_cmd cmd(uint8_t op, uint64_t off, uint64_t len, uint8_t hint = FTL_HINT_NONE) {
  return make_cmd(op, off, len, hint);
}

// A write hinted as an append after the block at byte @prev_off.
inline ftl_cmd append(uint64_t off, uint64_t len, uint64_t prev_off) {
  ftl_cmd c = cmd(FTL_OP_WRITE, off, len, FTL_HINT_APPEND);
  c.hint_prev_off = prev_off;
  return c;
}

// Submit and require success; returns the completion time.
inline uint64_t ok(Model& m, const ftl_cmd& c, uint64_t now) {
  Completion r = m.submit(c, now);
  EXPECT_EQ(r.status, FTL_OK) << "op " << int(c.op) << " off " << c.off << " len " << c.len;
  return r.done_ns;
}

// Config validation result: empty string when valid.
inline std::string validate(const ftl_config& c) {
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN] = "";
  if (ftl_config_derive(&c, &g, err, sizeof(err)) == 0) return {};
  return err[0] ? err : "(empty message)";
}

}  // namespace nvmev::test
