// Placement hints in the model: every rule and edge case of
// hint-proto/SPEC.md, under garbage collection and on a full die.
#include <random>
#include <vector>

#include "helpers.h"
#include "workloads.h"

extern "C" {
#include "nvmev_hint.h"
}

namespace nvmev::test {
namespace {

constexpr uint64_t kGran = 32768;
// The tests of the rules of one shared granule per die run with one write
// point per die (wp_config(1)); several points: test_write_points.cc.

// dies of the 4 KiB units of [off, off+len)
std::vector<int> dies_of(const Model& m, uint64_t off, uint64_t len) {
  std::vector<int> v;
  for (uint64_t o = off; o < off + len; o += K4) v.push_back(m.die_of(o));
  return v;
}

std::vector<int> repeat(std::initializer_list<int> dies, size_t each) {
  std::vector<int> v;
  for (int d : dies) v.insert(v.end(), each, d);
  return v;
}

TEST(WireFormat, EncodeDecodeRoundTrip) {
  __u32 cdw2 = 1, cdw3 = 2, cdw12 = 0x4000000fu;  // FUA-like bit and NLB kept
  nvmev_hint_encode(NVMEV_HINT_KIND_APPEND, 0x123456789aull, &cdw2, &cdw3, &cdw12);
  EXPECT_EQ(cdw12, 0x4000000fu | NVMEV_HINT_APPEND);
  __u64 prev = 0;
  EXPECT_EQ(nvmev_hint_decode(cdw2, cdw3, cdw12, &prev), NVMEV_HINT_KIND_APPEND);
  EXPECT_EQ(prev, 0x123456789aull);
  nvmev_hint_encode(NVMEV_HINT_KIND_OVERWRITE, 99, &cdw2, &cdw3, &cdw12);
  EXPECT_EQ(cdw12, 0x4000000fu | NVMEV_HINT_OVERWRITE);
  EXPECT_EQ(cdw2 | cdw3, 0u);
  EXPECT_EQ(nvmev_hint_decode(0, 0, cdw12, &prev), NVMEV_HINT_KIND_OVERWRITE);
  EXPECT_EQ(nvmev_hint_decode(0, 0, NVMEV_HINT_MASK, &prev), NVMEV_HINT_KIND_INVALID);
  EXPECT_EQ(nvmev_hint_decode(0, 0, 0x4000000fu, &prev), NVMEV_HINT_NONE);
  nvmev_hint_encode(NVMEV_HINT_NONE, 5, &cdw2, &cdw3, &cdw12);
  EXPECT_EQ(cdw12, 0x4000000fu);
  EXPECT_EQ(sizeof(nvmev_hint_id), 32u);  // fixed layout in Identify Controller
}

TEST(Hints, AppendStartsOnTheDieAfterThePreviousBlock) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, 3 * kGran), 0);  // dies 0, 1, 2; cursor at 3
  ok(m, append(1 << 20, kGran, kGran + 8192), 0);  // previous block on die 1
  EXPECT_EQ(dies_of(m, 1 << 20, kGran), repeat({2}, 8));
  EXPECT_EQ(m.stats().hint_honoured, 1u);
  // the drive's cursor did not move: the next plain write goes to die 3
  ok(m, cmd(FTL_OP_WRITE, 2 << 20, kGran), 0);
  EXPECT_EQ(m.die_of(2 << 20), 3);
}

TEST(Hints, LargeAppendsContinueRoundRobinFromTheHintedDie) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, 8 * kGran), 0);  // dies 0..7
  ok(m, append(1 << 20, 3 * kGran, 6 * kGran), 0);  // previous on die 6
  EXPECT_EQ(dies_of(m, 1 << 20, 3 * kGran), repeat({7, 0, 1}, 8));
}

// A new file's first block goes wherever the cursor is; the appends that
// extend it must fill that granule, not open a second one on the next die.
TEST(Hints, AppendContinuesTheGranuleOfTheExtentItExtends) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, K4), 0);  // die 0, its granule 1/8 full
  ok(m, cmd(FTL_OP_WRITE, 8 << 20, K4), 0);  // another file's block joins it
  ok(m, append(K4, 6 * K4 + 2 * kGran, 0), 0);
  std::vector<int> want = repeat({0}, 6);
  for (int d : repeat({1, 2}, 8)) want.push_back(d);
  EXPECT_EQ(dies_of(m, K4, 6 * K4 + 2 * kGran), want);
  // a file whose next block is elsewhere: read by a command of its own,
  // so the next die even though its previous block's granule is open
  ok(m, cmd(FTL_OP_WRITE, 4 << 20, K4), 0);  // cursor: die 1, granule 1/8
  EXPECT_EQ(m.die_of(4 << 20), 1);
  ok(m, cmd(FTL_OP_WRITE, K4, K4, FTL_HINT_OVERWRITE), 0);  // a unit elsewhere: die 0
  EXPECT_EQ(m.die_of(K4), 0);
  ok(m, append(5 << 20, kGran, 4 << 20), 0);
  EXPECT_EQ(dies_of(m, 5 << 20, kGran), repeat({2}, 8));
  // the block right after it does continue die 1's granule
  ok(m, append((4 << 20) + K4, 7 * K4, 4 << 20), 0);
  EXPECT_EQ(dies_of(m, (4 << 20) + K4, 7 * K4), repeat({1}, 7));
}

// A file system that split one append over two extents writes the second
// straight after the first: it fills the same granule.
TEST(Hints, AnAppendSplitOverTwoExtentsFillsOneGranule) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, kGran), 0);  // die 0; cursor to die 1
  ok(m, append(1 << 20, 3 * K4, kGran - K4), 0);
  ok(m, append(2 << 20, 5 * K4, (1 << 20) + 2 * K4), 0);
  EXPECT_EQ(dies_of(m, 1 << 20, 3 * K4), repeat({1}, 3));
  EXPECT_EQ(dies_of(m, 2 << 20, 5 * K4), repeat({1}, 5));
}

// A database rewrites the page at the end of its last extent, then appends
// the next row after it: that row is an extent of its own and moves on.
TEST(Hints, AnAppendStraightAfterAnOverwriteMovesOn) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, kGran), 0);  // die 0; cursor to die 1
  const uint64_t row = 1 << 20, page = row + 2 * K4;
  ok(m, append(row, 3 * K4, kGran - K4), 0);
  ok(m, cmd(FTL_OP_WRITE, page, K4, FTL_HINT_OVERWRITE), 0);
  EXPECT_EQ(m.die_of(page), 1);  // the last unit placed, on die 1
  ok(m, append(2 << 20, 3 * K4, page), 0);
  EXPECT_EQ(dies_of(m, 2 << 20, 3 * K4), repeat({2}, 3));
}

// Two files appended in turns (a database's rows, a log): each chunk of
// either file is on the die after its previous chunk's, whole.
TEST(Hints, InterleavedAppendsEachMoveOneDieOn) {
  Model m(wp_config(1));
  ok(m, cmd(FTL_OP_WRITE, 0, kGran), 0);  // die 0
  constexpr uint64_t kChunk = 16384, kA = 1 << 20, kB = 2 << 20;
  // each file's chunks are a chunk apart: separate extents, as on a file
  // system where the other file's data lies between them
  auto at = [&](uint64_t base, uint64_t i) { return base + 2 * i * kChunk; };
  for (uint64_t i = 0; i < 12; i++) {
    ok(m, append(at(kA, i), kChunk, i ? at(kA, i - 1) + kChunk - K4 : 0), 0);
    ok(m, append(at(kB, i), kChunk, i ? at(kB, i - 1) + kChunk - K4 : K4), 0);
    int want = static_cast<int>((1 + i) % 8);
    EXPECT_EQ(dies_of(m, at(kA, i), kChunk), repeat({want}, 4)) << "chunk " << i;
    EXPECT_EQ(dies_of(m, at(kB, i), kChunk), repeat({want}, 4)) << "chunk " << i;
  }
}

// A write smaller than a granule that would straddle two goes to the die
// after if it fits there whole.
TEST(Hints, SmallAppendsAreNotSplitWhenTheNextDieHasRoom) {
  Model m(wp_config(1));
  ok(m, cmd(FTL_OP_WRITE, 0, kGran + 6 * K4), 0);  // die 0 full, die 1 6/8
  ok(m, append(1 << 20, 4 * K4, 0), 0);  // die 1 has room for 2 only
  EXPECT_EQ(dies_of(m, 1 << 20, 4 * K4), repeat({2}, 4));
  ok(m, append(2 << 20, 2 * K4, 0), 0);  // this one fits
  EXPECT_EQ(dies_of(m, 2 << 20, 2 * K4), repeat({1}, 2));
  // larger than a granule: split whatever the room
  ok(m, cmd(FTL_OP_WRITE, 3 << 20, 3 * K4), 0);  // cursor: die 2 now 7/8
  ok(m, append(4 << 20, kGran + K4, 1 << 20), 0);  // previous block on die 2
  std::vector<int> want = repeat({3}, 8);
  want.push_back(4);
  EXPECT_EQ(dies_of(m, 4 << 20, kGran + K4), want);
}

// Granules are per die and shared: a hinted write that completes the
// cursor's granule moves the cursor on, and a hinted write that starts in
// a granule someone else began fills it and moves on, so no granule ever
// spans two program units of one die.
TEST(Hints, WritersShareEachDiesGranule) {
  Model m(wp_config(1));
  ok(m, cmd(FTL_OP_WRITE, 0, kGran + K4), 0);  // die 0 full, die 1 at 1/8
  ok(m, append(1 << 20, 2 * kGran, 7 * K4), 0);  // previous block ends die 0's granule
  std::vector<int> want = repeat({1}, 7);
  for (int d : repeat({2}, 8)) want.push_back(d);
  want.push_back(3);
  EXPECT_EQ(dies_of(m, 1 << 20, 2 * kGran), want);
  ok(m, cmd(FTL_OP_WRITE, 2 << 20, kGran + 7 * K4), 0);  // die 1 is full: cursor to die 2
  want = repeat({2}, 8);
  for (int d : repeat({3}, 7)) want.push_back(d);
  EXPECT_EQ(dies_of(m, 2 << 20, kGran + 7 * K4), want);
  for (const auto& d : m.die_stats())
    EXPECT_EQ(d.host_write_units % 8, 0u) << "a granule was left part-filled";
}

TEST(Hints, OverwritesReturnToTheOldDie) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, 8 * kGran), 0);
  ok(m, cmd(FTL_OP_WRITE, 3 * kGran, kGran, FTL_HINT_OVERWRITE), 0);
  EXPECT_EQ(dies_of(m, 3 * kGran, kGran), repeat({3}, 8));
  ok(m, cmd(FTL_OP_WRITE, 5 * kGran, kGran), 0);  // unhinted: cursor die 0
  EXPECT_EQ(m.die_of(5 * kGran), 0);
  // a unit without an old copy is placed round-robin, and counted
  ok(m, cmd(FTL_OP_WRITE, 64 * kGran, K4, FTL_HINT_OVERWRITE), 0);
  EXPECT_EQ(m.die_of(64 * kGran), 1);
  EXPECT_EQ(m.stats().hint_new_units, 1u);
  EXPECT_EQ(m.stats().hint_overwrite, 2u);
}

TEST(Hints, IgnoredHintsAreCountedByReasonAndPlaceRoundRobin) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, kGran), 0);                  // die 0
  ok(m, append(kGran, kGran, 8 * kGran), 0);              // previous never written
  EXPECT_EQ(m.die_of(kGran), 1);
  ok(m, append(2 * kGran, kGran, m.capacity_bytes()), 0);  // beyond the drive
  EXPECT_EQ(m.die_of(2 * kGran), 2);
  ok(m, cmd(FTL_OP_WRITE, 3 * kGran, kGran, FTL_HINT_INVALID), 0);
  EXPECT_EQ(m.die_of(3 * kGran), 3);
  ok(m, cmd(FTL_OP_READ, 0, K4, FTL_HINT_APPEND), 1000000);
  ok(m, cmd(FTL_OP_TRIM, 0, K4, FTL_HINT_OVERWRITE), 1000000);
  ftl_stats st = m.stats();
  EXPECT_EQ(st.hint_ignored_unmapped, 1u);
  EXPECT_EQ(st.hint_ignored_range, 1u);
  EXPECT_EQ(st.hint_ignored_invalid, 1u);
  EXPECT_EQ(st.hint_ignored_opcode, 2u);
  EXPECT_EQ(st.hint_honoured, 0u);
  EXPECT_TRUE(m.check().empty()) << m.check();
}

TEST(Hints, SwitchedOffTheyAreIgnored) {
  ftl_config c = paper_config();
  c.hints = 0;
  Model m(c);
  ok(m, cmd(FTL_OP_WRITE, 0, kGran), 0);
  ok(m, append(1 << 20, kGran, 0), 0);
  EXPECT_EQ(m.die_of(1 << 20), 1);  // round-robin, not "die after 0"... which is also 1
  ok(m, cmd(FTL_OP_WRITE, 0, kGran, FTL_HINT_OVERWRITE), 0);
  EXPECT_EQ(m.die_of(0), 2);        // an honoured overwrite would have stayed on 0
  EXPECT_EQ(m.stats().hint_ignored_off, 2u);
  EXPECT_EQ(m.stats().hint_honoured, 0u);
}

// 3 x capacity of random overwrites, all with overwrite hints: after the
// sequential fill no unit may ever change die, through every GC cycle.
TEST(Hints, OverwritePlacementSurvivesGarbageCollection) {
  Model m(small_config());
  Engine e(m, 16);
  const uint64_t units = m.capacity_bytes() / K4;
  for (uint64_t u = 0; u < units; u++) e.submit(cmd(FTL_OP_WRITE, u * K4, K4));
  std::vector<int> dies = dies_of(m, 0, m.capacity_bytes());
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<uint64_t> pick(0, units - 1);
  uint64_t gc_seen = 0;
  for (uint64_t i = 0; i < 3 * units; i++) {
    Completion c = e.submit(cmd(FTL_OP_WRITE, pick(rng) * K4, K4, FTL_HINT_OVERWRITE));
    ASSERT_EQ(c.status, FTL_OK);
    if (m.stats().gc_cycles != gc_seen) {
      gc_seen = m.stats().gc_cycles;
      ASSERT_TRUE(m.check().empty()) << m.check();
      ASSERT_EQ(dies_of(m, 0, m.capacity_bytes()), dies) << "after GC cycle " << gc_seen;
    }
  }
  EXPECT_GT(gc_seen, 50u);
  EXPECT_EQ(m.stats().hint_honoured, 3 * units);
  EXPECT_EQ(m.stats().errors, 0u);
}

// Appends that all target die 0 fill it; the rest must go to a neighbour
// (counted), never fail.
TEST(Hints, AFullHintedDieFallsBack) {
  Model m(small_config());
  const uint64_t cap = m.capacity_bytes();
  const uint64_t gran = uint64_t{m.geometry().gran_units} * K4;
  const uint32_t dies = m.geometry().dies;
  ok(m, cmd(FTL_OP_WRITE, 0, dies * gran), 0);  // granule d on die d
  const uint64_t prev_on_last_die = (dies - 1) * gran;
  uint64_t t = 0;
  for (uint64_t off = dies * gran; off + gran <= cap; off += gran) {
    t += 100000;
    ASSERT_EQ(m.submit(append(off, gran, prev_on_last_die), t).status, FTL_OK) << off;
  }
  for (uint64_t off = dies * gran; off + gran <= cap; off += gran) {
    t += 100000;
    ASSERT_EQ(m.submit(append(off, gran, prev_on_last_die), t).status, FTL_OK) << off;
  }
  EXPECT_GT(m.stats().hint_fallback_units, 0u);
  EXPECT_EQ(m.stats().errors, 0u);
  EXPECT_TRUE(m.check().empty()) << m.check();
}

TEST(Hints, WearGapReSpreadsOverwrites) {
  auto run = [](uint64_t gap) {
    ftl_config c = small_config();
    c.hint_wear_gap = gap;
    Model m(c);
    Engine e(m, 16);
    const uint64_t units = m.capacity_bytes() / K4;
    for (uint64_t u = 0; u < units; u++) e.submit(cmd(FTL_OP_WRITE, u * K4, K4));
    // hammer the data of die 0 only
    std::vector<uint64_t> hot;
    for (uint64_t u = 0; u < units; u++)
      if (m.die_of(u * K4) == 0) hot.push_back(u);
    std::mt19937_64 rng(4);
    std::uniform_int_distribution<size_t> pick(0, hot.size() - 1);
    for (uint64_t i = 0; i < 4 * units; i++)
      e.submit(cmd(FTL_OP_WRITE, hot[pick(rng)] * K4, K4, FTL_HINT_OVERWRITE));
    e.drain();
    EXPECT_TRUE(m.check().empty()) << m.check();
    auto d = m.die_stats();
    return std::make_pair(d[0].erases_total, d[1].erases_total + m.stats().hint_ignored_wear * 0);
  };
  auto [hot0, other0] = run(0);
  auto [hot5, other5] = run(5);
  EXPECT_GT(hot0, 20 * std::max<uint64_t>(other0, 1));  // without re-spreading: one die wears
  EXPECT_LT(hot5, hot0);
  EXPECT_GT(other5, other0);  // with it, the other dies share the erases
}

TEST(Hints, FragmentedFileWithHintsReadsLikeAContiguousOne) {
  for (auto kind : {FragmentParams::Kind::Append, FragmentParams::Kind::Overwrite}) {
    for (auto gap : {FragmentParams::Gap::Worst, FragmentParams::Gap::Random}) {
      FragmentParams p;
      p.kind = kind;
      p.gap = gap;
      p.send_hints = true;
      FragmentResult r = run_fragment(paper_config(), p);
      SCOPED_TRACE(std::string(to_string(kind)) + "/" + to_string(gap));
      EXPECT_GE(r.relative, gap == FragmentParams::Gap::Worst ? 0.98 : 0.97);
      EXPECT_EQ(r.fragmented_dies.dies_used(), 8u);
      EXPECT_EQ(r.fragmented_stats.hint_honoured, kind == FragmentParams::Kind::Append ? 255u : 256u);
      p.send_hints = false;
      FragmentResult off = run_fragment(paper_config(), p);
      // the collision counters explain the difference: without hints reads
      // queue longer on fewer dies (a 1 MiB read queues 4 granules per die
      // even when it is spread perfectly)
      EXPECT_GT(off.fragmented_dies.total_wait_ns(), r.fragmented_dies.total_wait_ns() * 6 / 5);
      EXPECT_GE(off.fragmented_dies.total_collisions(), r.fragmented_dies.total_collisions());
    }
  }
}

TEST(TimeScale, ChangesAtRunTime) {
  Model m(paper_config());
  ok(m, cmd(FTL_OP_WRITE, 0, kGran), 0);
  ok(m, cmd(FTL_OP_FLUSH, 0, 0), 0);
  const uint64_t t1 = 1000000000, t2 = 2000000000000ull;
  uint64_t base = ok(m, cmd(FTL_OP_READ, 0, K4), t1) - t1;
  ASSERT_EQ(ftl_set_time_scale(m.raw(), 100), 0);
  uint64_t scaled = ok(m, cmd(FTL_OP_READ, 0, K4), t2) - t2;
  EXPECT_NEAR(double(scaled), 100.0 * base, 100.0 * 8);
  EXPECT_EQ(ftl_set_time_scale(m.raw(), 0), -EINVAL);
  EXPECT_EQ(ftl_set_time_scale(m.raw(), 10001), -EINVAL);
  EXPECT_EQ(m.geometry().time_scale, 100u);
}

}  // namespace
}  // namespace nvmev::test
