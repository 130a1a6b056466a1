// Garbage collection, trim, full-device behaviour and command errors,
// with the full L2P/P2L consistency check.
#include <algorithm>
#include <random>
#include <vector>

#include "helpers.h"

namespace nvmev::test {
namespace {

// Die of every 4 KiB unit (-1 = unmapped).
std::vector<int> die_map(const Model& m) {
  std::vector<int> v(m.capacity_bytes() / K4);
  for (size_t i = 0; i < v.size(); i++) v[i] = m.die_of(i * K4);
  return v;
}

TEST(Gc, RandomOverwriteOfThreeCapacitiesStaysConsistent) {
  Model m(small_config());
  Engine e(m, 16);
  const uint64_t units = m.capacity_bytes() / K4;
  for (uint64_t u = 0; u < units; u++) e.submit(cmd(FTL_OP_WRITE, u * K4, K4));

  std::vector<int> expect = die_map(m);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> pick(0, units - 1);
  uint64_t gc_seen = m.stats().gc_cycles, checks = 0;
  for (uint64_t i = 0; i < 3 * units; i++) {
    uint64_t u = pick(rng);
    Completion c = e.submit(cmd(FTL_OP_WRITE, u * K4, K4));
    ASSERT_EQ(c.status, FTL_OK);
    expect[u] = m.die_of(u * K4);
    if (m.stats().gc_cycles != gc_seen) {
      gc_seen = m.stats().gc_cycles;
      std::string err = m.check();
      ASSERT_TRUE(err.empty()) << "after GC cycle " << gc_seen << ": " << err;
      // relocation stays inside the die: placement survives GC
      ASSERT_EQ(die_map(m), expect) << "after GC cycle " << gc_seen;
      checks++;
    }
  }
  e.drain();
  ftl_stats st = m.stats();
  EXPECT_GT(checks, 50u);
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.placement_fallbacks, 0u);
  EXPECT_GT(m.write_amplification(), 1.2);
  for (const auto& d : m.die_stats()) {
    EXPECT_GT(d.erases, 0u);
    EXPECT_GT(d.gc_copies, 0u);
  }
  for (uint64_t u = 0; u < units; u++) ASSERT_GE(m.die_of(u * K4), 0) << "lost unit " << u;
}

// The same random overwrites back to back and with idle time between
// them: background GC may use the idle time, but must not turn it into
// copies of nearly valid blocks (it once raised write amplification from
// ~2 to ~30 on a drive with few spare blocks per die).
TEST(Gc, IdleTimeDoesNotMultiplyWriteAmplification) {
  auto waf = [](uint64_t gap_ns) {
    ftl_config c = small_config();
    c.op_percent = 7;
    Model m(c);
    const uint64_t units = m.capacity_bytes() / K4;
    uint64_t t = 0;
    for (uint64_t u = 0; u < units; u += 16) t = ok(m, cmd(FTL_OP_WRITE, u * K4, 16 * K4), t);
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<uint64_t> pick(0, units - 1);
    for (uint64_t i = 0; i < units; i++) t = ok(m, cmd(FTL_OP_WRITE, pick(rng) * K4, K4), t + gap_ns);
    EXPECT_TRUE(m.check().empty()) << m.check();
    return m.write_amplification();
  };
  double busy = waf(0), idle = waf(10'000'000);
  EXPECT_GT(busy, 1.2);
  EXPECT_LT(idle, busy * 1.5) << "back to back " << busy << ", with idle time " << idle;
}

TEST(Gc, TrimmedDataIsNotCopied) {
  auto run = [](bool trim) {
    Model m(small_config());
    Engine e(m, 16);
    const uint64_t cap = m.capacity_bytes();
    for (uint64_t off = 0; off < cap; off += 64 * K4) e.submit(cmd(FTL_OP_WRITE, off, 64 * K4));
    if (trim) e.submit(cmd(FTL_OP_TRIM, 0, cap / 2));
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<uint64_t> pick(cap / 2 / K4, cap / K4 - 1);
    for (uint64_t i = 0; i < 2 * cap / K4; i++) e.submit(cmd(FTL_OP_WRITE, pick(rng) * K4, K4));
    e.drain();
    EXPECT_TRUE(m.check().empty()) << m.check();
    return m.stats();
  };
  ftl_stats kept = run(false), trimmed = run(true);
  EXPECT_EQ(trimmed.trimmed_units, small_config().capacity_mib * 256 / 2);
  EXPECT_LT(trimmed.nand_write_units, kept.nand_write_units * 3 / 4);
}

TEST(Gc, TrimUnmapsWholeUnitsOnly) {
  Model m(small_config());
  ok(m, cmd(FTL_OP_WRITE, 0, 16 * K4), 0);
  ok(m, cmd(FTL_OP_TRIM, 4 * K4, 4 * K4), 0);
  ok(m, cmd(FTL_OP_TRIM, 12 * K4 + 512, 1024), 0);  // inside one unit: kept
  for (uint64_t u = 0; u < 16; u++)
    EXPECT_EQ(m.die_of(u * K4) < 0, u >= 4 && u < 8) << "unit " << u;
  EXPECT_EQ(m.stats().trimmed_units, 4u);
  // reads of trimmed data touch no flash
  ok(m, cmd(FTL_OP_READ, 4 * K4, 4 * K4), 0);
  EXPECT_EQ(m.stats().unmapped_read_units, 4u);
  EXPECT_TRUE(m.check().empty()) << m.check();
}

// The query a transport reads never-written and trimmed units by.
TEST(Map, MappedRunReportsRunsOfOneState) {
  Model m(small_config());
  ftl* f = m.raw();
  const uint64_t units = m.capacity_bytes() / K4;
  bool mapped = true;
  EXPECT_EQ(ftl_mapped_run(f, 0, units, &mapped), units);
  EXPECT_FALSE(mapped);
  ok(m, cmd(FTL_OP_WRITE, 2 * K4, 3 * K4), 0);
  ok(m, cmd(FTL_OP_WRITE, 9 * K4 + 512, 512), 0);  // part of a unit maps it
  EXPECT_EQ(ftl_mapped_run(f, 0, 100, &mapped), 2u);
  EXPECT_FALSE(mapped);
  EXPECT_EQ(ftl_mapped_run(f, 2, 100, &mapped), 3u);
  EXPECT_TRUE(mapped);
  EXPECT_EQ(ftl_mapped_run(f, 3, 1, &mapped), 1u);  // at most n
  EXPECT_TRUE(mapped);
  EXPECT_EQ(ftl_mapped_run(f, 5, 100, &mapped), 4u);
  EXPECT_FALSE(mapped);
  EXPECT_EQ(ftl_mapped_run(f, 9, 100, &mapped), 1u);
  EXPECT_TRUE(mapped);
  EXPECT_EQ(ftl_mapped_run(f, 10, ~0ull, &mapped), units - 10);  // up to the end
  EXPECT_FALSE(mapped);
  EXPECT_EQ(ftl_mapped_run(f, units, 1, &mapped), 0u);
  EXPECT_EQ(ftl_mapped_run(f, 0, 0, &mapped), 0u);
  ok(m, cmd(FTL_OP_TRIM, 3 * K4, K4), 0);
  EXPECT_EQ(ftl_mapped_run(f, 2, 100, &mapped), 1u);
  EXPECT_EQ(ftl_mapped_run(f, 3, 100, &mapped), 1u);
  EXPECT_FALSE(mapped);
}

// A trim timed at once and deallocated later in slices (what nvmev.ko does
// with long ones) leaves the model exactly as one ftl_submit() of it:
// same completion, mapping, counters, and timing of what follows.
TEST(Map, TrimInSlicesIsTheSameTrim) {
  ftl_config c = small_config();
  c.jitter_ns = 5000;  // the jitter's random sequence must not shift either
  Model whole(c), sliced(c);
  const uint64_t units = whole.capacity_bytes() / K4;
  uint64_t t = 0;
  for (uint64_t u = 0; u < units; u += 32) {
    const ftl_cmd w = cmd(FTL_OP_WRITE, u * K4, 32 * K4);
    ASSERT_EQ(ok(sliced, w, t), ok(whole, w, t));
    t += 20000;
  }
  // bytes [512, 3/4 of the drive + 1000): partial units at both ends stay
  const ftl_cmd trim = cmd(FTL_OP_TRIM, 512, units * K4 * 3 / 4 + 488);
  Completion a = whole.submit(trim, t);
  uint64_t done = 0;
  ASSERT_EQ(ftl_trim_begin(sliced.raw(), &trim, t, &done), FTL_OK);
  EXPECT_EQ(done, a.done_ns);
  EXPECT_EQ(sliced.stats().trimmed_units, 0u);  // nothing deallocated yet
  for (uint64_t u = 1, end = units * 3 / 4; u < end; u += 7)
    ftl_unmap(sliced.raw(), u, std::min<uint64_t>(7, end - u));
  ftl_unmap(sliced.raw(), units, 5);  // beyond the capacity: nothing
  EXPECT_EQ(die_map(sliced), die_map(whole));
  EXPECT_EQ(sliced.stats().trimmed_units, units * 3 / 4 - 1);
  EXPECT_EQ(sliced.stats().trimmed_units, whole.stats().trimmed_units);
  EXPECT_EQ(sliced.stats().cmds[FTL_OP_TRIM], whole.stats().cmds[FTL_OP_TRIM]);
  EXPECT_GE(sliced.die_of(0), 0);
  EXPECT_GE(sliced.die_of(units * K4 * 3 / 4), 0);
  for (uint64_t i = 0; i < 200; i++) {
    ftl_cmd w = cmd(FTL_OP_WRITE, (i * 37 % units) * K4, K4);
    t += 3000;
    EXPECT_EQ(sliced.submit(w, t).done_ns, whole.submit(w, t).done_ns) << "write " << i;
  }
  EXPECT_TRUE(sliced.check().empty()) << sliced.check();
  // only trims begin so
  const ftl_cmd write = cmd(FTL_OP_WRITE, 0, K4);
  EXPECT_EQ(ftl_trim_begin(sliced.raw(), &write, t, &done), FTL_ERR_INVALID);
  EXPECT_GT(done, t);
}

TEST(Gc, AFullDeviceKeepsAcceptingOverwrites) {
  Model m(small_config());
  Engine e(m, 64);
  const uint64_t cap = m.capacity_bytes();
  for (uint64_t off = 0; off < cap; off += 128 * K4) e.submit(cmd(FTL_OP_WRITE, off, 128 * K4));
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<uint64_t> pick(0, cap / (16 * K4) - 1);
  for (uint64_t i = 0; i < cap / (16 * K4) * 4; i++) {
    Completion c = e.submit(cmd(FTL_OP_WRITE, pick(rng) * 16 * K4, 16 * K4));
    ASSERT_EQ(c.status, FTL_OK) << "write " << i;
  }
  e.drain();
  EXPECT_EQ(m.stats().errors, 0u);
  EXPECT_TRUE(m.check().empty()) << m.check();
}

// Overwrite only data that is not on die 0: every eighth new copy lands on
// die 0 and never leaves, until die 0 is full of valid data. Its writes
// must then go to a neighbour die instead of failing.
TEST(Gc, AFullDieFallsBackToANeighbour) {
  ftl_config c = small_config();
  Model m(c);
  const uint64_t units = m.capacity_bytes() / K4;
  for (uint64_t u = 0; u < units; u++) ok(m, cmd(FTL_OP_WRITE, u * K4, K4), 0);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<uint64_t> pick(0, units - 1);
  uint64_t t = 0, writes = 0;
  while (m.stats().placement_fallbacks == 0 && writes < 40 * units) {
    uint64_t u = pick(rng);
    if (m.die_of(u * K4) == 0) continue;
    t += 1000;
    ASSERT_EQ(m.submit(cmd(FTL_OP_WRITE, u * K4, K4), t).status, FTL_OK);
    writes++;
  }
  EXPECT_GT(m.stats().placement_fallbacks, 0u) << "die 0 never filled up";
  const ftl_geometry& g = m.geometry();
  EXPECT_GT(m.die_stats()[0].valid_units, g.units_per_die - 3 * g.units_per_block);
  EXPECT_EQ(m.stats().errors, 0u);
  EXPECT_TRUE(m.check().empty()) << m.check();
}

TEST(Commands, BadCommandsGetAStatusAndChangeNothing) {
  Model m(small_config());
  const uint64_t cap = m.capacity_bytes();
  ok(m, cmd(FTL_OP_WRITE, 0, K4), 0);
  auto status = [&](const ftl_cmd& c) { return m.submit(c, 0).status; };
  EXPECT_EQ(status(cmd(FTL_OP_WRITE, cap, K4)), FTL_ERR_RANGE);
  EXPECT_EQ(status(cmd(FTL_OP_WRITE, cap - K4, 2 * K4)), FTL_ERR_RANGE);
  EXPECT_EQ(status(cmd(FTL_OP_READ, ~0ull - 100, 4096)), FTL_ERR_RANGE);  // offset + len wraps
  EXPECT_EQ(status(cmd(FTL_OP_TRIM, cap - K4, ~0ull)), FTL_ERR_RANGE);
  EXPECT_EQ(status(cmd(FTL_OP_READ, 0, 0)), FTL_ERR_INVALID);
  EXPECT_EQ(status(cmd(FTL_OP_WRITE, 0, (1ull << 32) + 4096)), FTL_ERR_INVALID);
  EXPECT_EQ(status(cmd(FTL_OP_NR, 0, K4)), FTL_ERR_INVALID);
  EXPECT_EQ(status(cmd(200, 0, K4)), FTL_ERR_INVALID);
  EXPECT_EQ(m.stats().errors, 8u);
  EXPECT_EQ(m.stats().host_write_units, 1u);
  EXPECT_EQ(m.die_of(0), 0);
  EXPECT_TRUE(m.check().empty()) << m.check();
  // the failed command still gets a completion time
  Completion c = m.submit(cmd(FTL_OP_READ, cap, K4), 5000);
  EXPECT_GT(c.done_ns, 5000u);
}

TEST(Stats, ResetZeroesCountersButKeepsGauges) {
  Model m(small_config());
  ok(m, cmd(FTL_OP_WRITE, 0, 64 * K4), 0);
  ok(m, cmd(FTL_OP_READ, 0, 64 * K4), 1000000);
  m.reset_stats();
  ftl_stats st = m.stats();
  EXPECT_EQ(st.cmds[FTL_OP_WRITE], 0u);
  EXPECT_EQ(st.host_write_units, 0u);
  uint64_t valid = 0;
  for (const auto& d : m.die_stats()) {
    EXPECT_EQ(d.programs, 0u);
    EXPECT_EQ(d.host_reads, 0u);
    valid += d.valid_units;
  }
  EXPECT_EQ(valid, 64u);
  EXPECT_EQ(m.write_amplification(), 0.0);
}

}  // namespace
}  // namespace nvmev::test
