// Timing model: exact latencies of single operations, serialisation on
// dies and channels, the write buffer, flush and time scaling.
#include <algorithm>
#include <cmath>
#include <vector>

#include "helpers.h"

namespace nvmev::test {
namespace {

constexpr uint64_t kGran = 32768;  // paper drive: program unit = granularity
constexpr uint64_t T = 1000000000; // 1 s: everything earlier has finished

// fw(<=4K) + tR + 4 KiB over the channel (800 MB/s) + over the link (3360 MB/s)
constexpr uint64_t kRead4k = 21500 + 36000 + 5120 + 1220;

// Write `granules` program units from offset 0 at t=0 and let them program.
void prefill(Model& m, uint64_t granules) {
  ok(m, cmd(FTL_OP_WRITE, 0, granules * kGran), 0);
  ok(m, cmd(FTL_OP_FLUSH, 0, 0), 0);
}

TEST(Timing, SingleReadIsFirmwarePlusSensePlusTransfers) {
  Model m(paper_config());
  prefill(m, 1);
  EXPECT_NEAR(double(ok(m, cmd(FTL_OP_READ, 0, K4), T) - T), double(kRead4k), 4);
  auto d = m.die_stats()[0];
  EXPECT_EQ(d.host_reads, 1u);
  EXPECT_EQ(d.read_collisions, 0u);
}

TEST(Timing, TimeScaleScalesEveryDelay) {
  ftl_config c = paper_config();
  c.time_scale = 1000;
  Model m(c);
  ok(m, cmd(FTL_OP_WRITE, 0, kGran), 0);
  ok(m, cmd(FTL_OP_FLUSH, 0, 0), 0);
  const uint64_t t = 1000 * T;
  EXPECT_NEAR(double(ok(m, cmd(FTL_OP_READ, 0, K4), t) - t), 1000.0 * kRead4k, 1000.0 * 4);
  // a write completes after firmware + link time, also scaled
  EXPECT_NEAR(double(ok(m, cmd(FTL_OP_WRITE, 1 << 20, K4), 2 * t) - 2 * t),
              1000.0 * (4000 + 460 + 1220), 1000.0 * 4);
}

TEST(Timing, NoOverflowAt100GBpsAndTimeScale10000) {
  ftl_config c = paper_config();
  c.time_scale = 10000;
  c.channel_mbps = 100000;
  c.link_mbps = 100000;
  Model m(c);
  const uint64_t now = 1000000000000000ull;  // 10^15 ns of uptime
  const uint64_t big = 256ull << 20;
  uint64_t w = ok(m, cmd(FTL_OP_WRITE, 0, big), now);
  // firmware alone: (4000 + 460 x 65536) ns x 10000
  EXPECT_GE(w - now, (4000ull + 460ull * 65536) * 10000);
  EXPECT_LT(w - now, 1ull << 50);
  uint64_t f = ok(m, cmd(FTL_OP_FLUSH, 0, 0), w);
  EXPECT_GT(f, w);
  uint64_t r = ok(m, cmd(FTL_OP_READ, 0, big), f);
  EXPECT_GT(r, f);
  EXPECT_LT(r - f, 1ull << 50);
  EXPECT_TRUE(m.check().empty()) << m.check();
}

TEST(Timing, ReadsOnOneDieSerialiseAndCountACollision) {
  Model m(paper_config());
  prefill(m, 9);  // granule 0 on die 0, granule 1 on die 1, granule 8 on die 0
  uint64_t a = ok(m, cmd(FTL_OP_READ, 0, K4), T);
  uint64_t b = ok(m, cmd(FTL_OP_READ, 8 * kGran, K4), T);  // die 0 again
  uint64_t c = ok(m, cmd(FTL_OP_READ, kGran, K4), T);    // die 1
  EXPECT_NEAR(double(a - T), double(kRead4k), 4);
  EXPECT_GE(b - a, 36000u);  // waited for die 0: one more tR
  EXPECT_LT(c - T, kRead4k + 1300);  // die 1 is free: only shares the link
  auto d = m.die_stats();
  EXPECT_EQ(d[0].read_collisions, 1u);
  EXPECT_GT(d[0].read_wait_ns, 0u);
  EXPECT_EQ(d[1].read_collisions, 0u);
}

// Two commands reading one program unit at once (a file's two extents in
// one unit) share one sense; a read after the first one ended, or after
// the die was booked for another unit, senses again.
TEST(Timing, ConcurrentReadsOfOneUnitShareItsSense) {
  Model m(paper_config());
  prefill(m, 9);
  uint64_t a = ok(m, cmd(FTL_OP_READ, 0, K4), T);
  uint64_t b = ok(m, cmd(FTL_OP_READ, K4, K4), T + 1000);  // same unit, in flight
  EXPECT_NEAR(double(a - T), double(kRead4k), 4);
  EXPECT_LT(b - a, 36000u);  // no second tR: only its own transfers
  auto d = m.die_stats()[0];
  EXPECT_EQ(d.host_reads, 1u);
  EXPECT_EQ(d.read_merges, 1u);
  EXPECT_EQ(d.host_read_units, 2u);

  // later: the first read is over, a lone read costs tR again
  uint64_t t2 = 2 * T;
  EXPECT_NEAR(double(ok(m, cmd(FTL_OP_READ, 2 * K4, K4), t2) - t2), double(kRead4k), 4);
  EXPECT_EQ(m.die_stats()[0].host_reads, 2u);

  // another unit of the die booked in between: no merge
  uint64_t t3 = 3 * T;
  ok(m, cmd(FTL_OP_READ, 0, K4), t3);
  ok(m, cmd(FTL_OP_READ, 8 * kGran, K4), t3);
  uint64_t c = ok(m, cmd(FTL_OP_READ, K4, K4), t3);
  EXPECT_GE(c - t3, 3 * 36000u);  // three senses in a row
  EXPECT_EQ(m.die_stats()[0].host_reads, 5u);

  // a program booked on the die after the read (the cursor is on die 1:
  // the eighth granule of this write is die 0's): the register is lost
  uint64_t t4 = 4 * T;
  ok(m, cmd(FTL_OP_READ, 0, K4), t4);
  ok(m, cmd(FTL_OP_WRITE, 9 * kGran, 8 * kGran), t4);
  EXPECT_EQ(m.die_stats()[0].programs, 3u);  // granules 0, 8 and this one
  ok(m, cmd(FTL_OP_READ, K4, K4), t4);
  EXPECT_EQ(m.die_stats()[0].host_reads, 7u);
  EXPECT_EQ(m.die_stats()[0].read_merges, 1u);
}

TEST(Timing, DiesOfOneChannelShareItsBandwidth) {
  Model m(paper_config());
  prefill(m, 8);
  // dies are numbered channel-first: die 4 is on channel 0 like die 0
  uint64_t a = ok(m, cmd(FTL_OP_READ, 0, kGran), T);
  uint64_t b = ok(m, cmd(FTL_OP_READ, 4 * kGran, kGran), T);
  // 32 KiB at 800 MB/s after die 0's transfer; bandwidth is accounted in
  // 2 us buckets, so allow one bucket of error
  EXPECT_GE(b - a, 40960u - 2000);
  uint64_t t2 = 2 * T;
  uint64_t c = ok(m, cmd(FTL_OP_READ, 0, kGran), t2);
  uint64_t d = ok(m, cmd(FTL_OP_READ, 1 * kGran, kGran), t2);  // channel 1
  EXPECT_LE(d - c, 9753u + 2000);  // only the host link (32 KiB at 3360 MB/s) is shared
  EXPECT_EQ(m.die_stats()[4].read_collisions, 0u);
}

TEST(Timing, WritesCompleteEarlyFromTheBuffer) {
  Model m(paper_config());
  uint64_t w = ok(m, cmd(FTL_OP_WRITE, 0, K4), T);
  EXPECT_NEAR(double(w - T), 4000 + 460 + 1220, 4);
  EXPECT_LT(w - T, 185000u);
}

TEST(Timing, AFullBufferMakesWritesWaitForPrograms) {
  ftl_config c = paper_config();
  c.write_buffer_kib = 9 * 32;  // the minimum: (dies + 1) program units
  Model m(c);
  Engine e(m, 64);
  e.begin_phase();
  for (uint64_t off = 0; off < (64u << 20); off += kGran) e.submit(cmd(FTL_OP_WRITE, off, kGran));
  PhaseResult p = e.end_phase();
  EXPECT_GT(m.stats().wb_stalls, 0u);
  // sustained rate = 8 dies x 32 KiB per (channel transfer + tPROG)
  const double expect = 8 * 32768 * 1e3 / (40960 + 185000);  // MB/s
  EXPECT_GT(p.mb_per_s(), 0.85 * expect);
  EXPECT_LT(p.mb_per_s(), 1.02 * expect);
}

TEST(Timing, FlushWaitsForQueuedPrograms) {
  Model m(paper_config());
  EXPECT_NEAR(double(ok(m, cmd(FTL_OP_FLUSH, 0, 0), T) - T), 4000, 1);  // idle drive
  ok(m, cmd(FTL_OP_WRITE, 0, 8 * kGran), 2 * T);
  uint64_t f = ok(m, cmd(FTL_OP_FLUSH, 0, 0), 2 * T);
  EXPECT_GE(f - 2 * T, 185000u + 40960u);
  EXPECT_EQ(m.die_stats()[7].programs, 1u);
}

TEST(Timing, UnmappedReadsNeedNoFlash) {
  Model m(paper_config());
  EXPECT_NEAR(double(ok(m, cmd(FTL_OP_READ, 0, K4), T) - T), 21500 + 1220, 2);
  for (const auto& d : m.die_stats()) EXPECT_EQ(d.host_reads, 0u);
  EXPECT_EQ(m.stats().unmapped_read_units, 1u);
}

TEST(Timing, DataStillInTheBufferIsReadFromIt) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, K4), 0);  // 4 KiB of a 32 KiB program unit
  EXPECT_NEAR(double(ok(m, cmd(FTL_OP_READ, 0, K4), T) - T), 21500 + 1220, 2);
  EXPECT_EQ(m.die_stats()[0].buffer_hits, 1u);
  EXPECT_EQ(m.die_stats()[0].host_reads, 0u);
}

TEST(Timing, OneNandReadPerProgramUnit) {
  Model m(paper_config());
  prefill(m, 8);
  ok(m, cmd(FTL_OP_READ, 0, 8 * kGran), T);  // 256 KiB: one 32 KiB read per die
  for (const auto& d : m.die_stats()) {
    EXPECT_EQ(d.host_reads, 1u);
    EXPECT_EQ(d.host_read_units, 8u);
  }
}

// Latencies of n 4 KiB reads of one written granule, each on an idle drive.
std::vector<uint64_t> read_latencies(const ftl_config& c, int n) {
  Model m(c);
  prefill(m, 1);
  std::vector<uint64_t> lat;
  for (int i = 0; i < n; i++) {
    const uint64_t t = T * (i + 1);
    lat.push_back(ok(m, cmd(FTL_OP_READ, 0, K4), t) - t);
  }
  return lat;
}

TEST(Timing, NoJitterByDefault) {
  for (uint64_t l : read_latencies(paper_config(), 100)) EXPECT_NEAR(double(l), double(kRead4k), 4);
}

TEST(Timing, JitterIsUniformBoundedAndSeeded) {
  ftl_config c = paper_config();
  c.jitter_ns = 20000;
  const auto a = read_latencies(c, 4000), b = read_latencies(c, 4000);
  EXPECT_EQ(a, b) << "the same seed must give the same delays";
  c.jitter_seed = 2;
  EXPECT_NE(read_latencies(c, 4000), a) << "another seed, other delays";
  double sum = 0, sq = 0;
  for (uint64_t l : a) {
    EXPECT_GE(l + 4, kRead4k);
    EXPECT_LE(l, kRead4k + 20000 + 4);
    sum += double(l);
  }
  const double mean = sum / a.size();
  for (uint64_t l : a) sq += (double(l) - mean) * (double(l) - mean);
  // uniform on [0, 20000]: mean 10000, standard deviation 20000 / sqrt(12)
  EXPECT_NEAR(mean, kRead4k + 10000.0, 400);
  EXPECT_NEAR(std::sqrt(sq / a.size()), 20000 / std::sqrt(12.0), 400);
}

TEST(Timing, TimeScaleScalesTheJitter) {
  ftl_config c = paper_config();
  c.time_scale = 100;
  const uint64_t base = read_latencies(c, 1)[0];
  c.jitter_ns = 1000;
  uint64_t least = UINT64_MAX, most = 0;
  for (uint64_t l : read_latencies(c, 2000)) {
    least = std::min(least, l);
    most = std::max(most, l);
  }
  EXPECT_GE(least, base);
  EXPECT_LE(most - base, 100u * 1000);
  EXPECT_GE(most - base, 90u * 1000);  // 2000 draws nearly reach the top
}

}  // namespace
}  // namespace nvmev::test
