// Several write points per die (write_points_per_die): a hinted stream
// fills program units of its own, the least recently used stream point is
// evicted (padded) when all are taken, an idle die programs its points padded,
// Flush keeps partial units buffered, GC copies into a point of its own,
// and one write point per die is the shared model unchanged.
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "helpers.h"
#include "units.h"

namespace nvmev::test {
namespace {

constexpr uint64_t kGran = 32768;
constexpr uint64_t kSecond = 1000000000;  // ns: everything earlier has finished

ftl_location where(const Model& m, uint64_t off) {
  ftl_location loc{};
  EXPECT_EQ(ftl_locate(const_cast<Model&>(m).raw(), off, &loc), 0) << off;
  return loc;
}

// the program units (die, block, unit) holding [off, off+len)
size_t program_units(const Model& m, uint64_t off, uint64_t len) {
  const uint32_t pu = m.geometry().pu_units;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> s;
  for (uint64_t o = off; o < off + len; o += K4) {
    ftl_location l = where(m, o);
    s.insert({l.die, l.block, l.offset / pu});
  }
  return s.size();
}

// A full granule on die 0 (the cursor then sits on die 1): appends whose
// previous block is in it do not continue it and start on die 1.
void fill_die0(Model& m) { ok(m, cmd(FTL_OP_WRITE, 512 * MiB, kGran), 0); }

TEST(WritePoints, AStreamTakesAPointOfItsOwnAndFillsItsProgramUnit) {
  Model m(wp_config(3));
  fill_die0(m);
  ok(m, append(0, 4 * K4, 512 * MiB), 0);           // file A: die 1, a stream point
  ok(m, cmd(FTL_OP_WRITE, 600 * MiB, 4 * K4), 0);   // unhinted: die 1's shared point
  ok(m, append(4 * K4, 4 * K4, 3 * K4), 0);          // A continues its point
  EXPECT_EQ(program_units(m, 0, 8 * K4), 1u) << "A's 32 KiB fill one program unit";
  EXPECT_EQ(where(m, 0).die, 1u);
  EXPECT_EQ(where(m, 600 * MiB).die, 1u);
  EXPECT_NE(where(m, 600 * MiB).offset / 8, where(m, 0).offset / 8)
      << "the shared point's own program unit";
  EXPECT_FALSE(where(m, 0).buffered) << "a full program unit is programmed";
  EXPECT_EQ(m.stats().wpt_evictions, 0u);
  EXPECT_EQ(m.check(), "");
}

TEST(WritePoints, OnePointPerDieSharesTheGranuleAsBefore) {
  Model m(wp_config(1));
  fill_die0(m);
  ok(m, append(0, 4 * K4, 512 * MiB), 0);
  ok(m, cmd(FTL_OP_WRITE, 600 * MiB, 4 * K4), 0);
  ok(m, append(4 * K4, 4 * K4, 3 * K4), 0);
  // A's first half shares die 1's granule with the unhinted write; its
  // second half no longer fits there and starts a granule elsewhere
  EXPECT_EQ(program_units(m, 0, 8 * K4), 2u);
  EXPECT_EQ(where(m, 600 * MiB).block, where(m, 0).block);
}

TEST(WritePoints, TheLeastRecentlyUsedStreamIsEvictedPadded) {
  Model m(wp_config(2));  // one stream point per die
  fill_die0(m);
  ok(m, append(0, 4 * K4, 512 * MiB), 0);          // A on die 1's stream point
  EXPECT_TRUE(where(m, 0).buffered);
  const uint64_t nand = m.stats().nand_write_units;
  ok(m, append(MiB, 4 * K4, 512 * MiB + K4), 0);  // B wants die 1 too
  EXPECT_EQ(m.stats().wpt_evictions, 1u);
  EXPECT_EQ(m.stats().pad_units, 4u);
  EXPECT_EQ(m.stats().nand_write_units, nand + 8) << "A's unit programmed, half padding";
  EXPECT_FALSE(where(m, 0).buffered);
  EXPECT_EQ(where(m, MiB).die, 1u);
  EXPECT_NE(where(m, MiB).offset / 8, where(m, 0).offset / 8) << "B starts a new unit";
  // A's next append no longer continues a granule: it starts on die 2
  ok(m, append(4 * K4, 4 * K4, 3 * K4), 0);
  EXPECT_EQ(where(m, 4 * K4).die, 2u);
  EXPECT_EQ(m.check(), "");

  Model two(wp_config(3));  // two stream points: both streams keep theirs
  fill_die0(two);
  ok(two, append(0, 4 * K4, 512 * MiB), 0);
  ok(two, append(MiB, 4 * K4, 512 * MiB + K4), 0);
  ok(two, append(4 * K4, 4 * K4, 3 * K4), 0);
  EXPECT_EQ(two.stats().wpt_evictions, 0u);
  EXPECT_EQ(two.stats().pad_units, 0u);
  EXPECT_EQ(program_units(two, 0, 8 * K4), 1u);
}

// ... but not while its die is busy with other writers.
TEST(WritePoints, ABusyDieKeepsItsStreamsUnits) {
  Model m(wp_config(2));
  const uint64_t idle = m.geometry().t_wpt_idle;
  fill_die0(m);
  ok(m, append(0, 4 * K4, 512 * MiB), 0);
  uint64_t other = 700 * MiB;
  for (uint64_t t = idle / 4; t < 3 * idle; t += idle / 4) {
    ok(m, cmd(FTL_OP_WRITE, other, 8 * kGran), t);  // a stripe: every die
    other += 8 * kGran;
  }
  EXPECT_TRUE(where(m, 0).buffered);
  EXPECT_EQ(m.stats().wpt_idle_flushes, 0u);
  m.idle(6 * idle);
  EXPECT_FALSE(where(m, 0).buffered);
  EXPECT_EQ(m.stats().wpt_idle_flushes, 1u);
}

TEST(WritePoints, AnIdleStreamPointIsProgrammedPadded) {
  Model m(wp_config(2));
  const uint64_t idle = m.geometry().t_wpt_idle;
  fill_die0(m);
  ok(m, append(0, 4 * K4, 512 * MiB), 0);
  const uint64_t last = m.stats().nand_write_units;
  m.idle(idle / 2);
  EXPECT_TRUE(where(m, 0).buffered) << "not yet idle long enough";
  EXPECT_EQ(m.stats().wpt_idle_flushes, 0u);
  m.idle(2 * idle);
  EXPECT_FALSE(where(m, 0).buffered);
  EXPECT_EQ(m.stats().wpt_idle_flushes, 1u);
  EXPECT_EQ(m.stats().pad_units, 4u);
  EXPECT_EQ(m.stats().nand_write_units, last + 8);
  // the die programmed it: a read right after waits for the program
  const uint64_t t = 2 * idle;
  const uint64_t done = ok(m, cmd(FTL_OP_READ, 0, K4), t);
  EXPECT_GT(m.die_stats()[1].programs, 0u);
  EXPECT_GE(done, t);
  EXPECT_EQ(m.check(), "");
}

// Power-loss protection: Flush makes nothing durable that is not already,
// so it pads nothing (as with one write point).
TEST(WritePoints, FlushLeavesPartialUnitsInTheBuffer) {
  Model m(wp_config(4));
  fill_die0(m);
  ok(m, append(0, 4 * K4, 512 * MiB), 0);
  ok(m, cmd(FTL_OP_FLUSH, 0, 0), 1000);
  EXPECT_TRUE(where(m, 0).buffered);
  EXPECT_EQ(m.stats().pad_units, 0u);
}

// Small appends of several files interleaved with other data: with stream
// points each file's units fill program units of their own, so reading a
// file senses about its size in pages; sharing one point, about twice.
uint64_t nand_reads_per_file(uint64_t points, size_t* pus) {
  Model m(wp_config(points));
  constexpr int kFiles = 16, kAppends = 16;
  constexpr uint64_t kApp = 16384, kFile = kAppends * kApp;
  uint64_t now = 0, other = 700 * MiB;
  for (int f = 0; f < kFiles; f++)
    now = ok(m, cmd(FTL_OP_WRITE, f * 8 * MiB, kApp), now);  // each file's first piece
  for (int a = 1; a < kAppends; a++) {
    for (int f = 0; f < kFiles; f++) {
      const uint64_t off = f * 8 * MiB + a * kApp;
      now = ok(m, append(off, kApp, off - K4), now);
      now = ok(m, cmd(FTL_OP_WRITE, other, 3 * K4), now);  // unrelated data between
      other += 3 * K4;
    }
  }
  m.idle(now + 10 * m.geometry().t_wpt_idle);
  uint64_t before = 0, after = 0;
  for (const ftl_die_stats& d : m.die_stats()) before += d.host_reads;
  *pus = 0;
  for (int f = 0; f < kFiles; f++) {
    now = ok(m, cmd(FTL_OP_READ, f * 8 * MiB, kFile), now + 1);
    *pus += program_units(m, f * 8 * MiB, kFile);
  }
  for (const ftl_die_stats& d : m.die_stats()) after += d.host_reads;
  EXPECT_EQ(m.check(), "");
  return (after - before) / kFiles;
}

TEST(WritePoints, SmallAppendsReadAboutTheirSizeInPages) {
  size_t shared_pus = 0, stream_pus = 0;
  const uint64_t shared = nand_reads_per_file(1, &shared_pus);
  const uint64_t streams = nand_reads_per_file(8, &stream_pus);
  // 256 KiB files = 8 program units, and the first piece shares one
  EXPECT_EQ(streams, 9u) << "shared point: " << shared;
  EXPECT_EQ(stream_pus, 16u * 9);
  EXPECT_GE(shared, 15u) << "the defect this fixes: about two pages per program unit";
}

// ext4 gives each small append of a file that others write beside an
// extent of its own: the file's next append still continues its stream's
// program unit, and the extents, read at once, cost one NAND read.
TEST(WritePoints, AppendsInExtentsOfTheirOwnFillTheFilesProgramUnit) {
  Model m(wp_config(4));
  fill_die0(m);
  for (uint64_t k = 0; k < 4; k++) {
    for (uint64_t f = 0; f < 2; f++) {  // files A and B, extents 1 MiB apart
      const uint64_t off = f * 64 * MiB + k * MiB;
      const uint64_t prev = k ? off - MiB + K4 : 512 * MiB;  // previous extent's last block
      ok(m, append(off, 2 * K4, prev), 0);
      ok(m, cmd(FTL_OP_WRITE, 700 * MiB + (k * 2 + f) * 2 * K4, 2 * K4), 0);  // unhinted
    }
  }
  for (uint64_t f = 0; f < 2; f++) {
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> pus;
    for (uint64_t k = 0; k < 4; k++)
      for (uint64_t o = 0; o < 2 * K4; o += K4) {
        const ftl_location l = where(m, f * 64 * MiB + k * MiB + o);
        pus.insert({l.die, l.block, l.offset / m.geometry().pu_units});
      }
    EXPECT_EQ(pus.size(), 1u) << "file " << f << "'s four extents fill one program unit";
  }
  EXPECT_EQ(m.stats().wpt_evictions, 0u);
  const uint64_t die = where(m, 0).die, reads = m.die_stats()[die].host_reads;
  for (uint64_t k = 0; k < 4; k++) ok(m, cmd(FTL_OP_READ, k * MiB, 2 * K4), kSecond);
  EXPECT_EQ(m.die_stats()[die].host_reads - reads, 1u);
  EXPECT_EQ(m.die_stats()[die].read_merges, 3u);
  EXPECT_EQ(m.check(), "");
}

// A stream moving on skips a die that holds three granules more valid data
// than the die after it: files made alike begin their rounds on the same
// dies, and their last, partial rounds would pile reads there.
// @freed granules are deallocated from die 3 before file A's appends.
std::vector<uint32_t> stream_dies_with_die3_lighter_by(uint64_t freed) {
  Model m(wp_config(4));
  const uint64_t base = 256 * MiB;  // granule i of 3 rounds lands on die i % 8
  ok(m, cmd(FTL_OP_WRITE, base, 24 * kGran), 0);
  for (uint64_t r = 0; r < freed; r++) ok(m, cmd(FTL_OP_TRIM, base + (3 + 8 * r) * kGran, kGran), 0);
  EXPECT_EQ(where(m, base + kGran).die, 1u);
  // file A's previous block ends granule 1 (die 1); its 3 granules go on
  ok(m, append(0, 3 * kGran, base + 2 * kGran - K4), 0);
  std::vector<uint32_t> dies;
  for (uint64_t g = 0; g < 3; g++) dies.push_back(where(m, g * kGran).die);
  EXPECT_EQ(m.check(), "");
  return dies;
}

TEST(WritePoints, AStreamSkipsADieHoldingThreeGranulesMoreThanTheNext) {
  EXPECT_THAT(stream_dies_with_die3_lighter_by(0), ::testing::ElementsAre(2u, 3u, 4u))
      << "balanced dies: die by die";
  EXPECT_THAT(stream_dies_with_die3_lighter_by(2), ::testing::ElementsAre(2u, 3u, 4u))
      << "two granules of difference: not worth a skip";
  EXPECT_THAT(stream_dies_with_die3_lighter_by(3), ::testing::ElementsAre(3u, 4u, 5u))
      << "die 2 holds three granules more than die 3: skipped";
}

// GC relocates into a point of its own: sequential writes that trigger
// foreground GC still fill program units of their own (sharing the open
// block, GC's copies split their granules).
TEST(WritePoints, GcCopiesDoNotSplitTheHostsProgramUnits) {
  constexpr uint64_t kFile = 96 * MiB;
  auto run = [](uint64_t points, uint64_t* gc) {
    ftl_config c = wp_config(points, 0);  // the same flash for both
    c.blocks_per_plane = 24;
    c.op_percent = 30;
    Model m(c);
    const uint64_t cap = m.capacity_bytes();
    std::mt19937_64 rng(7);
    uint64_t now = 0;
    for (uint64_t o = 0; o < cap; o += 128 * 1024)
      now = ok(m, cmd(FTL_OP_WRITE, o, std::min<uint64_t>(128 * 1024, cap - o)), now);
    for (int i = 0; i < 40000; i++)
      now = ok(m, cmd(FTL_OP_WRITE, (rng() % (cap / K4)) * K4, K4), now);
    const uint64_t before = m.stats().gc_cycles;
    // 96 MiB rewritten in order, back to back
    for (uint64_t o = 0; o < kFile; o += 16384) now = ok(m, cmd(FTL_OP_WRITE, o, 16384), now);
    *gc = m.stats().gc_cycles - before;
    EXPECT_EQ(m.check(), "");
    return program_units(m, 0, kFile);
  };
  uint64_t gc_shared = 0, gc_own = 0;
  const size_t shared = run(1, &gc_shared);
  const size_t own = run(2, &gc_own);
  EXPECT_GT(gc_shared, 0u);
  EXPECT_GT(gc_own, 0u) << "the appends must run GC for this test to mean anything";
  // + 8: each die's shared unit was part-filled by the random writes
  EXPECT_LE(own, kFile / kGran + 8) << "with one point: " << shared;
  EXPECT_GT(shared, own + 16);
}

// Many streams, GC, overwrites and unhinted writes together: consistency,
// no write refused while the drive has room, buffer within its size.
TEST(WritePoints, MixedTrafficKeepsTheModelConsistent) {
  for (uint64_t points : {2u, 5u, 16u, 48u}) {
    Model m(wp_config(points, 64));
    const uint64_t units = m.capacity_bytes() / K4;
    std::mt19937_64 rng(points);
    std::vector<uint64_t> pos(32, 1);  // units of each file's region written
    const uint64_t seg = units / pos.size();
    uint64_t now = 0;
    for (int i = 0; i < 40000; i++) {
      const uint64_t kind = rng() % 4, len = (1 + rng() % 8) * K4;
      if (kind == 0) {
        const uint64_t o = (rng() % (units - 8)) * K4;
        now = ok(m, cmd(FTL_OP_WRITE, o, len), now);
      } else if (kind == 1) {
        const uint64_t o = (rng() % (units - 8)) * K4;
        now = ok(m, cmd(FTL_OP_WRITE, o, len, FTL_HINT_OVERWRITE), now);
      } else {
        const uint64_t f = rng() % pos.size();
        if (pos[f] + 8 >= seg) pos[f] = 1;
        const uint64_t at = f * seg + pos[f];
        now = ok(m, append(at * K4, len, (at - 1) * K4), now);
        pos[f] += len / K4;
      }
      if (i % 997 == 0) now += rng() % (3 * m.geometry().t_wpt_idle);
      if (i % 5000 == 0) {
        ASSERT_EQ(m.check(), "") << points << " points, step " << i;
      }
    }
    EXPECT_EQ(m.check(), "");
    EXPECT_EQ(m.stats().errors, 0u);
    EXPECT_GT(m.stats().gc_cycles, 0u);
    EXPECT_GT(m.stats().wpt_idle_flushes, 0u);
  }
}

}  // namespace
}  // namespace nvmev::test
