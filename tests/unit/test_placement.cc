// Default placement: round-robin over dies at the die-allocation
// granularity, in write order, channel-first.
#include "helpers.h"

namespace nvmev::test {
namespace {

class RoundRobin : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RoundRobin, SequentialWritesRotateAtGranularity) {
  const uint64_t gran = GetParam();
  ftl_config c = paper_config();
  c.granularity_bytes = gran;
  Model m(c);
  const uint64_t dies = m.geometry().dies;
  const uint64_t len = 3 * dies * gran;
  for (uint64_t off = 0; off < len; off += K4) ok(m, cmd(FTL_OP_WRITE, off, K4), 0);
  for (uint64_t off = 0; off < len; off += K4)
    ASSERT_EQ(m.die_of(off), int((off / gran) % dies)) << "offset " << off;
  for (const auto& d : m.die_stats()) EXPECT_EQ(d.host_write_units, 3 * gran / K4);
  EXPECT_TRUE(m.check().empty()) << m.check();
}

// 4 KiB and 16 KiB (SATA-like, below the program unit), the 32 KiB program
// unit, 64 KiB (two program units) and a non-power-of-two 72 KiB.
INSTANTIATE_TEST_SUITE_P(Granularity, RoundRobin,
                         ::testing::Values(4096, 16384, 32768, 65536, 73728));

TEST(Placement, FollowsWriteOrderNotAddresses) {
  Model m(paper_config());
  const uint64_t gran = 32768;
  ok(m, cmd(FTL_OP_WRITE, 512ull << 20, gran), 0);  // far away: die 0
  ok(m, cmd(FTL_OP_WRITE, 0, gran), 0);             // next die
  ok(m, cmd(FTL_OP_WRITE, 7 * gran, 2 * gran), 0);  // dies 2 and 3
  EXPECT_EQ(m.die_of(512ull << 20), 0);
  EXPECT_EQ(m.die_of(0), 1);
  EXPECT_EQ(m.die_of(7 * gran), 2);
  EXPECT_EQ(m.die_of(8 * gran), 3);
}

TEST(Placement, OverwritesMoveToTheCursorDie) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, 32768), 0);      // die 0
  ok(m, cmd(FTL_OP_WRITE, 0, 32768), 0);      // rewritten: die 1
  EXPECT_EQ(m.die_of(0), 1);
  EXPECT_EQ(m.die_stats()[0].valid_units, 0u);
  EXPECT_EQ(m.die_stats()[1].valid_units, 8u);
}

TEST(Placement, PartialProgramUnitsWaitInTheBuffer) {
  ftl_config c = paper_config();
  c.granularity_bytes = 4096;  // each die gets 4 KiB per turn
  Model m(c);
  ok(m, cmd(FTL_OP_WRITE, 0, 8 * K4), 0);  // one unit on each die
  ftl_location loc;
  ASSERT_EQ(ftl_locate(m.raw(), 0, &loc), 0);
  EXPECT_EQ(loc.die, 0u);
  EXPECT_TRUE(loc.buffered);
  EXPECT_EQ(m.die_stats()[0].programs, 0u);
  // seven more turns fill die 0's 32 KiB program unit
  ok(m, cmd(FTL_OP_WRITE, 8 * K4, 56 * K4), 0);
  ASSERT_EQ(ftl_locate(m.raw(), 0, &loc), 0);
  EXPECT_FALSE(loc.buffered);
  EXPECT_EQ(m.die_stats()[0].programs, 1u);
  EXPECT_EQ(ftl_locate(m.raw(), 64 * K4, &loc), -ENOENT);
  EXPECT_EQ(ftl_locate(m.raw(), m.capacity_bytes(), &loc), -ERANGE);
}

TEST(Placement, UnalignedWritesMapEveryTouchedUnit) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 4096 - 512, 1024), 0);  // straddles units 0 and 1
  EXPECT_GE(m.die_of(0), 0);
  EXPECT_GE(m.die_of(4096), 0);
  EXPECT_EQ(m.die_of(8192), -1);
  EXPECT_EQ(m.stats().host_write_units, 2u);
}

}  // namespace
}  // namespace nvmev::test
