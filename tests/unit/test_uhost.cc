// The user-level driver's pure logic: PRP lists, ring and phase
// arithmetic, latency summaries, the verify blocks.
#include <gtest/gtest.h>

#include <vector>

#include "latency.h"
#include "prp.h"
#include "ring.h"
#include "verify.h"

using namespace uhost;

namespace {
// page i of a buffer at physical 0x10000 whose pages are scattered
uint64_t scattered(size_t i) { return 0x100000 + i * 0x3000; }
}  // namespace

TEST(UhostPrp, OnePageNeedsOnlyPrp1) {
  uint64_t list[kPrpListEntries] = {};
  Prps p = build_prps(0x5000, 4096, scattered, list, 0x9000);
  EXPECT_EQ(p.prp1, 0x5000u);
  EXPECT_EQ(p.prp2, 0u);
  EXPECT_EQ(p.list_entries, 0u);
}

TEST(UhostPrp, TwoPagesPutTheSecondInPrp2) {
  uint64_t list[kPrpListEntries] = {};
  Prps p = build_prps(0x5000, 8192, scattered, list, 0x9000);
  EXPECT_EQ(p.prp2, scattered(1));
  EXPECT_EQ(p.list_entries, 0u);
}

TEST(UhostPrp, AnOffsetCanSpillIntoASecondPage) {
  uint64_t list[kPrpListEntries] = {};
  Prps p = build_prps(0x5800, 4096, scattered, list, 0x9000);
  EXPECT_EQ(prp_pages(0x5800, 4096), 2u);
  EXPECT_EQ(p.prp1, 0x5800u);
  EXPECT_EQ(p.prp2, scattered(1));
}

TEST(UhostPrp, ThreePagesOrMoreUseAList) {
  uint64_t list[kPrpListEntries] = {};
  Prps p = build_prps(0x5000, 3 * 4096, scattered, list, 0x9000);
  EXPECT_EQ(p.prp2, 0x9000u);
  ASSERT_EQ(p.list_entries, 2u);
  EXPECT_EQ(list[0], scattered(1));
  EXPECT_EQ(list[1], scattered(2));
}

TEST(UhostPrp, OneListPageCoversTwoMegabytesAndOnePage) {
  uint64_t list[kPrpListEntries] = {};
  Prps p = build_prps(0x5000, (kPrpListEntries + 1) * 4096, scattered, list, 0x9000);
  EXPECT_EQ(p.list_entries, kPrpListEntries);
  EXPECT_EQ(list[kPrpListEntries - 1], scattered(kPrpListEntries));
  EXPECT_THROW(build_prps(0x5000, (kPrpListEntries + 2) * 4096, scattered, list, 0x9000),
               std::invalid_argument);
}

TEST(UhostPrp, RejectsWhatTheSpecForbids) {
  uint64_t list[kPrpListEntries] = {};
  EXPECT_THROW(build_prps(0x5002, 512, scattered, list, 0x9000), std::invalid_argument);
  EXPECT_THROW(build_prps(0x5000, 0, scattered, list, 0x9000), std::invalid_argument);
  EXPECT_THROW(build_prps(0x5000, 3 * 4096, scattered, list, 0x9008), std::invalid_argument);
}

TEST(UhostRing, SubmissionQueueKeepsOneSlotFree) {
  SqRing r(4);
  EXPECT_EQ(r.advance(), 0u);
  EXPECT_EQ(r.advance(), 1u);
  EXPECT_EQ(r.advance(), 2u);
  EXPECT_TRUE(r.full());
  EXPECT_EQ(r.used(), 3u);
  r.set_head(2);
  EXPECT_FALSE(r.full());
  EXPECT_EQ(r.used(), 1u);
  EXPECT_EQ(r.advance(), 3u);
  EXPECT_EQ(r.tail(), 0u);  // wrapped
  EXPECT_EQ(r.used(), 2u);
}

TEST(UhostRing, CompletionPhaseFlipsOnEveryWrap) {
  CqRing r(3);
  EXPECT_TRUE(r.is_new(true));
  EXPECT_FALSE(r.is_new(false));  // a zeroed ring holds nothing new
  r.advance();
  r.advance();
  EXPECT_TRUE(r.phase());
  r.advance();
  EXPECT_EQ(r.head(), 0u);
  EXPECT_FALSE(r.phase());
  EXPECT_TRUE(r.is_new(false));  // the second lap's entries carry phase 0
  for (int i = 0; i < 3; i++) r.advance();
  EXPECT_TRUE(r.phase());
  r.reset();
  EXPECT_EQ(r.head(), 0u);
  EXPECT_TRUE(r.phase());
}

TEST(UhostLatency, NearestRankPercentiles) {
  std::vector<uint64_t> v;
  for (uint64_t i = 1; i <= 1000; i++) v.push_back(i * 1000);  // 1..1000 us
  LatencySummary s = summarize(v);
  EXPECT_EQ(s.count, 1000u);
  EXPECT_DOUBLE_EQ(s.mean_us, 500.5);
  EXPECT_DOUBLE_EQ(s.p50_us, 500);
  EXPECT_DOUBLE_EQ(s.p99_us, 990);
  EXPECT_DOUBLE_EQ(s.p999_us, 999);
  EXPECT_DOUBLE_EQ(s.max_us, 1000);
}

TEST(UhostLatency, SmallAndEmptySamples) {
  std::vector<uint64_t> one = {7000};
  EXPECT_DOUBLE_EQ(summarize(one).p999_us, 7);
  std::vector<uint64_t> two = {9000, 1000};  // unsorted on purpose
  LatencySummary s = summarize(two);
  EXPECT_DOUBLE_EQ(s.p50_us, 1);
  EXPECT_DOUBLE_EQ(s.p99_us, 9);
  std::vector<uint64_t> none;
  EXPECT_EQ(summarize(none).count, 0u);
}

TEST(UhostVerify, Crc32cKnownValue) {
  // the check value of CRC-32C (iSCSI): "123456789" -> e3069283
  EXPECT_EQ(crc32c("123456789", 9), 0xe3069283u);
}

TEST(UhostVerify, DetectsEachKindOfBadBlock) {
  std::vector<uint8_t> b(kVerifyBlock), zero(kVerifyBlock, 0);
  fill_block(b.data(), 42, 7, 3);
  EXPECT_EQ(check_block(b.data(), 42, 7, 3), BlockCheck::ok);
  EXPECT_EQ(check_block(b.data(), 43, 7, 3), BlockCheck::wrong_block);
  EXPECT_EQ(check_block(b.data(), 42, 8, 3), BlockCheck::wrong_seed);
  uint32_t found = 0;
  EXPECT_EQ(check_block(b.data(), 42, 7, 4, &found), BlockCheck::wrong_generation);
  EXPECT_EQ(found, 3u);
  EXPECT_EQ(check_block(zero.data(), 42, 7, 0), BlockCheck::ok);
  EXPECT_EQ(check_block(b.data(), 42, 7, 0), BlockCheck::zero);
  EXPECT_EQ(check_block(zero.data(), 42, 7, 1), BlockCheck::bad_crc);
  b[2000] ^= 1;
  EXPECT_EQ(check_block(b.data(), 42, 7, 3), BlockCheck::bad_crc);
}
