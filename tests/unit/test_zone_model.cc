// Zones on flash (ftl/ftl_zone.c): placement over a zone's dies, no GC
// inside a zoned region, reset as erase, finish as padding, the
// write-once rule, and what the zone width does to throughput.
#include <algorithm>
#include <ostream>
#include <random>
#include <string>
#include <set>
#include <vector>

#include "helpers.h"
#include "units.h"

extern "C" {
#include "ftl_state.h"
}

namespace nvmev::test {
namespace {

// small_config(): 4 dies, 16 KiB program unit and granule (4 units),
// 256 KiB blocks (64 units), 32 MiB. The zoned region is the upper half.
struct Zoned {
  explicit Zoned(uint32_t width, uint64_t zone = MiB, uint64_t cap = MiB,
                 ftl_config cfg = small_config())
      : m(cfg), zone_bytes(zone) {
    base = m.capacity_bytes() / 2 / zone * zone;
    nr = static_cast<uint32_t>((m.capacity_bytes() - base) / zone);
    m.add_zones(base, zone, cap, nr, width);
  }
  uint64_t zone_off(uint32_t z) const { return base + z * zone_bytes; }
  Model m;
  uint64_t zone_bytes, base;
  uint32_t nr;
};

uint64_t die_host_units(const Model& m, uint32_t die) {
  return m.die_stats()[die].host_write_units;
}

TEST(ZoneModel, GranulesFollowTheWritePointerOverTheZonesDies) {
  Zoned z(2);
  const auto& g = z.m.geometry();
  uint64_t now = 0;
  for (uint32_t zone = 0; zone < 3; zone++)
    now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(zone), MiB), now);
  for (uint32_t zone = 0; zone < 3; zone++) {
    ftl_zone_stats st = z.m.zone_stats(z.zone_off(zone));
    EXPECT_EQ(st.first_die, zone * 2 % g.dies);
    EXPECT_EQ(st.width, 2u);
    for (uint64_t o = 0; o < MiB; o += K4) {
      uint64_t granule = o / (g.gran_units * K4);
      ASSERT_EQ(z.m.die_of(z.zone_off(zone) + o), int((st.first_die + granule % 2) % g.dies))
          << "zone " << zone << " offset " << o;
    }
  }
  // zones 0 and 2 on dies 0-1, zone 1 on dies 2-3: 1 MiB and 0.5 MiB each
  EXPECT_EQ(die_host_units(z.m, 0), MiB / K4);
  EXPECT_EQ(die_host_units(z.m, 2), MiB / 2 / K4);
  EXPECT_EQ(z.m.check(), "");
}

TEST(ZoneModel, FullZonesWriteOnceAndTakeWholeBlocks) {
  Zoned z(4);
  const auto& g = z.m.geometry();
  uint64_t now = 0;
  for (uint32_t zone = 0; zone < z.nr; zone++)
    for (uint64_t o = 0; o < MiB; o += 64 * 1024)
      now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(zone) + o, 64 * 1024), now);
  ftl_stats st = z.m.stats();
  EXPECT_EQ(st.nand_write_units, st.host_write_units) << "WAF 1";
  EXPECT_EQ(st.gc_cycles, 0u);
  for (uint32_t zone = 0; zone < z.nr; zone++) {
    ftl_zone_stats zs = z.m.zone_stats(z.zone_off(zone));
    EXPECT_EQ(zs.host_write_units, MiB / K4);
    EXPECT_EQ(zs.nand_write_units, MiB / K4);
    EXPECT_EQ(zs.pad_units, 0u);
    // 1 MiB over 4 dies: 256 KiB a die, one block of 64 units each
    EXPECT_EQ(zs.blocks, 4u) << "zone " << zone;
  }
  EXPECT_EQ(g.units_per_block, 64u);
  EXPECT_EQ(z.m.check(), "");
}

// Zones reset and rewritten many times over while the conventional half
// is overwritten at random: GC runs, but never touches a zone's unit.
TEST(ZoneModel, NoGcInsideTheZonedRegion) {
  Zoned z(2);
  Engine e(z.m, 8);
  const uint64_t conv_units = z.base / K4;
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<uint64_t> pick(0, conv_units - 1);
  for (uint64_t u = 0; u < conv_units; u++) e.submit(cmd(FTL_OP_WRITE, u * K4, K4));
  for (int round = 0; round < 6; round++) {
    for (uint32_t zone = 0; zone < z.nr; zone++) {
      e.drain();
      if (round) {
        ASSERT_EQ(z.m.zone_reset(z.zone_off(zone), e.now()).status, FTL_OK);
      }
      for (uint64_t o = 0; o < MiB; o += 32 * 1024) {
        e.submit(cmd(FTL_OP_WRITE, z.zone_off(zone) + o, 32 * 1024));
        e.submit(cmd(FTL_OP_WRITE, pick(rng) * K4, K4));
      }
    }
    std::string err = z.m.check();
    ASSERT_EQ(err, "") << "round " << round;
  }
  e.drain();
  ftl_stats st = z.m.stats();
  EXPECT_GT(st.gc_cycles, 10u) << "the conventional half must be under GC pressure";
  EXPECT_EQ(st.errors, 0u);
  uint64_t zone_host = 0, zone_nand = 0, gc_copies = 0;
  for (uint32_t zone = 0; zone < z.nr; zone++) {
    ftl_zone_stats zs = z.m.zone_stats(z.zone_off(zone));
    zone_host += zs.host_write_units;
    zone_nand += zs.nand_write_units;
    EXPECT_EQ(zs.resets, 5u);
  }
  for (const auto& d : z.m.die_stats()) gc_copies += d.gc_copies;
  EXPECT_EQ(zone_nand, zone_host) << "zoned WAF 1";
  EXPECT_EQ(zone_host, 6 * (z.m.capacity_bytes() - z.base) / K4);
  // every NAND unit written beyond the host's is a GC copy of conventional
  // data; short of it are only the units still in open program units
  const auto& g = z.m.geometry();
  EXPECT_LE(st.nand_write_units, st.host_write_units + gc_copies);
  EXPECT_GE(st.nand_write_units + g.dies * g.pu_units, st.host_write_units + gc_copies);
}

TEST(ZoneModel, ResetErasesTheZonesBlocksAndFreesThem) {
  Zoned z(2);
  const auto& g = z.m.geometry();
  auto free_blocks = [&] {
    uint64_t n = 0;
    for (const auto& d : z.m.die_stats()) n += d.free_blocks;
    return n;
  };
  uint64_t before = free_blocks();
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(1), MiB), 0);
  EXPECT_EQ(free_blocks(), before - 4) << "1 MiB over 2 dies: 2 blocks each";
  uint64_t t0 = now + 10'000'000;  // dies idle
  Completion r = z.m.zone_reset(z.zone_off(1), t0);
  ASSERT_EQ(r.status, FTL_OK);
  // two blocks on each die, erased one after the other
  EXPECT_GE(r.done_ns, t0 + 2 * g.t_erase);
  EXPECT_LT(r.done_ns, t0 + 3 * g.t_erase);
  EXPECT_EQ(free_blocks(), before);
  auto dies = z.m.die_stats();
  EXPECT_EQ(dies[2].erases + dies[3].erases, 4u);
  EXPECT_EQ(dies[0].erases + dies[1].erases, 0u);
  EXPECT_EQ(z.m.zone_stats(z.zone_off(1)).erases, 4u);
  EXPECT_EQ(z.m.zone_stats(z.zone_off(1)).blocks, 0u);
  EXPECT_EQ(z.m.die_of(z.zone_off(1)), -1) << "reads as deallocated";
  // an empty zone's reset erases nothing
  Completion empty = z.m.zone_reset(z.zone_off(1), r.done_ns);
  EXPECT_EQ(empty.done_ns, r.done_ns + g.t_fw_write);
  EXPECT_EQ(z.m.zone_stats(z.zone_off(1)).erases, 4u);
  EXPECT_EQ(z.m.check(), "");
}

TEST(ZoneModel, FlashIsWrittenOnceUntilTheReset) {
  Zoned z(1);
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0), 64 * 1024), 0);
  EXPECT_EQ(z.m.submit(cmd(FTL_OP_WRITE, z.zone_off(0), K4), now).status, FTL_ERR_INVALID);
  EXPECT_EQ(z.m.submit(cmd(FTL_OP_WRITE, z.zone_off(0) + MiB - K4, 2 * K4), now).status,
            FTL_ERR_INVALID)
      << "across the zone's end";
  now = z.m.zone_reset(z.zone_off(0), now).done_ns;
  EXPECT_EQ(z.m.submit(cmd(FTL_OP_WRITE, z.base - K4, 2 * K4), now).status, FTL_ERR_INVALID)
      << "from conventional space into the first zone";
  ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0), K4), now);
  EXPECT_EQ(z.m.check(), "");
}

TEST(ZoneModel, CapacityBelowSizeLeavesTheRestUnwritable) {
  Zoned z(4, MiB, MiB / 2);
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0), MiB / 2), 0);
  EXPECT_EQ(z.m.submit(cmd(FTL_OP_WRITE, z.zone_off(0) + MiB / 2, K4), now).status,
            FTL_ERR_INVALID);
  // 128 KiB a die, half a block: all of it a tail, in the dies' shared blocks
  EXPECT_EQ(z.m.zone_stats(z.zone_off(0)).blocks, 0u);
  const auto& g = z.m.geometry();
  for (uint64_t o = 0; o < MiB / 2; o += K4)
    ASSERT_EQ(z.m.die_of(z.zone_off(0) + o), int(o / (g.gran_units * K4) % 4)) << "offset " << o;
  EXPECT_EQ(z.m.check(), "");
}

// A share of 1.5 blocks on the zone's one die: its first block is the
// zone's own, the other half block a tail in the die's shared blocks,
// which GC may move (inside the die) and a reset deallocates.
TEST(ZoneModel, TheTailOfAShareGoesToTheDiesSharedBlocks) {
  const uint64_t zone = 384 * 1024;  // 96 units: a block of 64 and 32 more
  Zoned z(1, zone, zone);
  const auto& g = z.m.geometry();
  ASSERT_EQ(g.units_per_block, 64u);
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(1), zone), 0);
  ftl_zone_stats zs = z.m.zone_stats(z.zone_off(1));
  EXPECT_EQ(zs.blocks, 1u);
  EXPECT_EQ(zs.host_write_units, 96u);
  ftl_location own, loc;
  ASSERT_EQ(ftl_locate(z.m.raw(), z.zone_off(1), &own), 0);
  for (uint64_t u = 0; u < 96; u++) {
    ASSERT_EQ(ftl_locate(z.m.raw(), z.zone_off(1) + u * K4, &loc), 0);
    EXPECT_EQ(loc.die, own.die) << "unit " << u;
    if (u < 64) {
      EXPECT_EQ(loc.block, own.block) << "unit " << u;
      EXPECT_EQ(loc.offset, u) << "unit " << u;
    } else {
      EXPECT_NE(loc.block, own.block) << "unit " << u;
    }
  }
  EXPECT_EQ(z.m.check(), "");
  // the unit at the write pointer of the tail may be written again (the
  // rest of its sectors), nothing below it
  EXPECT_EQ(z.m.submit(cmd(FTL_OP_WRITE, z.zone_off(1) + 64 * K4, K4), now).status,
            FTL_ERR_INVALID);
  now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(1) + 95 * K4 + 2048, 2048), now);
  EXPECT_EQ(z.m.zone_stats(z.zone_off(1)).host_write_units, 96u);
  now = z.m.zone_reset(z.zone_off(1), now).done_ns;
  zs = z.m.zone_stats(z.zone_off(1));
  EXPECT_EQ(zs.blocks, 0u);
  EXPECT_EQ(zs.erases, 1u) << "its own block; the tail's are GC's to erase";
  for (uint64_t u = 0; u < 96; u++)
    ASSERT_EQ(z.m.die_of(z.zone_off(1) + u * K4), -1) << "unit " << u;
  ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(1), zone), now);
  EXPECT_EQ(z.m.check(), "");
}

TEST(ZoneModel, FinishProgramsTheOpenProgramUnitPadded) {
  Zoned z(1);
  const auto& g = z.m.geometry();
  ASSERT_EQ(g.pu_units, 4u);
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0), K4), 0);
  ftl_location loc;
  ASSERT_EQ(ftl_locate(z.m.raw(), z.zone_off(0), &loc), 0);
  EXPECT_TRUE(loc.buffered);
  EXPECT_EQ(z.m.zone_stats(z.zone_off(0)).nand_write_units, 0u);
  Completion f = z.m.zone_finish(z.zone_off(0), now + 1'000'000);
  ASSERT_EQ(f.status, FTL_OK);
  EXPECT_GE(f.done_ns, now + 1'000'000 + g.t_prog);
  ASSERT_EQ(ftl_locate(z.m.raw(), z.zone_off(0), &loc), 0);
  EXPECT_FALSE(loc.buffered);
  ftl_zone_stats zs = z.m.zone_stats(z.zone_off(0));
  EXPECT_EQ(zs.nand_write_units, 4u);
  EXPECT_EQ(zs.pad_units, 3u);
  EXPECT_EQ(zs.finishes, 1u);
  // the padded unit is read from NAND now
  Completion r = z.m.submit(cmd(FTL_OP_READ, z.zone_off(0), K4), f.done_ns);
  EXPECT_GE(r.done_ns, f.done_ns + g.t_read);
  EXPECT_EQ(z.m.check(), "");
}

// 512-byte sectors at the write pointer: the unit is placed by its first
// sector, the rest join it, and its program unit is programmed only once
// its last unit is whole.
TEST(ZoneModel, SectorsOfOneUnitShareItsSlot) {
  Zoned z(1);
  uint64_t now = 0;
  // units 0..2 whole, unit 3 (the program unit's last) sector by sector
  now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0), 3 * K4), now);
  ftl_location first;
  for (uint64_t s = 0; s < 8; s++) {
    now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0) + 3 * K4 + s * 512, 512), now);
    ftl_location loc;
    ASSERT_EQ(ftl_locate(z.m.raw(), z.zone_off(0) + 3 * K4, &loc), 0);
    if (!s) first = loc;
    EXPECT_EQ(loc.block, first.block);
    EXPECT_EQ(loc.offset, first.offset);
    EXPECT_EQ(loc.buffered, s < 7) << "sector " << s;
  }
  EXPECT_EQ(z.m.zone_stats(z.zone_off(0)).host_write_units, 4u);
  EXPECT_EQ(z.m.zone_stats(z.zone_off(0)).nand_write_units, 4u);
  EXPECT_EQ(z.m.check(), "");
}

// Write Zeroes leaves holes (deallocated units the pointer passed): the
// program unit they end is programmed padded when the next one starts.
TEST(ZoneModel, AHoleInTheZoneIsPadded) {
  Zoned z(1);
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0), 2 * K4), 0);
  now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0) + 4 * K4, 4 * K4), now);
  ftl_zone_stats zs = z.m.zone_stats(z.zone_off(0));
  EXPECT_EQ(zs.nand_write_units, 8u);
  EXPECT_EQ(zs.pad_units, 2u);
  EXPECT_EQ(z.m.check(), "");
}

// Sequential reads of a zone at QD 8: spread over 4 dies it reads at
// least twice as fast as on one (the model's die parallelism).
TEST(ZoneModel, WiderZonesReadFaster) {
  auto read_time = [](uint32_t width) {
    Zoned z(width);
    Engine e(z.m, 8);
    for (uint64_t o = 0; o < MiB; o += 128 * 1024)
      e.submit(cmd(FTL_OP_WRITE, z.zone_off(0) + o, 128 * 1024));
    e.idle(100'000'000);
    e.begin_phase();
    for (uint64_t o = 0; o < MiB; o += 16 * 1024)
      e.submit(cmd(FTL_OP_READ, z.zone_off(0) + o, 16 * 1024));
    return e.end_phase().elapsed_ns();
  };
  uint64_t one = read_time(1), four = read_time(4);
  EXPECT_GT(one, 2 * four) << "width 1: " << one << " ns, width 4: " << four << " ns";
}

TEST(ZoneModel, BadRegionsAreRefusedWithTheirReason) {
  Model m(small_config());
  const uint64_t cap = m.capacity_bytes();
  auto refuse = [&](uint64_t off, uint64_t zone, uint64_t zcap, uint32_t nr, uint32_t width,
                    const char* why) {
    try {
      m.add_zones(off, zone, zcap, nr, width);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const ConfigError& e) {
      EXPECT_STRNE(e.what(), "") << why;
    }
  };
  refuse(512, MiB, MiB, 1, 1, "unaligned start");
  refuse(0, MiB, 2 * MiB, 1, 1, "capacity above size");
  refuse(0, MiB, 0, 1, 1, "no capacity");
  refuse(0, MiB, MiB, 0, 1, "no zones");
  refuse(0, MiB, MiB, 1, 0, "width 0");
  refuse(0, MiB, MiB, 1, 5, "width beyond the dies");
  refuse(cap - MiB, MiB, MiB, 2, 1, "beyond the drive");
  refuse(0, 16 * MiB, 16 * MiB, 1, 1, "a zone bigger than a die can hold");
  ok(m, cmd(FTL_OP_WRITE, 4 * MiB, K4), 0);
  refuse(4 * MiB, MiB, MiB, 1, 1, "range holds data");
  m.add_zones(8 * MiB, MiB, MiB, 4, 2);
  refuse(10 * MiB, MiB, MiB, 4, 2, "overlap");
  EXPECT_EQ(m.zone_reset(9 * MiB + K4, 0).status, FTL_ERR_INVALID) << "not a zone start";
  EXPECT_EQ(m.zone_reset(0, 0).status, FTL_ERR_RANGE) << "not zoned";
  EXPECT_EQ(m.check(), "");
}


// A zoned layout next to conventional space, as a drive's namespaces lay
// it out: @conv_mib conventional from 0, then zones of @zone_mib over
// @width dies up to the drive's capacity.
struct Layout {
  const char* name;
  uint64_t channels, dies_per_channel, capacity_mib, conv_mib, zone_mib;
  uint32_t width;
};

std::ostream& operator<<(std::ostream& os, const Layout& l) { return os << l.name; }

class ZoneLayout : public ::testing::TestWithParam<Layout> {};

// Every zone filled to its capacity, two at a time and interleaved (as
// fio's zoned mode and file systems keep several open), while the
// conventional space is rewritten at random three times over; then half
// the zones reset and filled again, the rewrites going on. No write may
// fail: a layout that powers on must hold all of it.
TEST_P(ZoneLayout, EveryZoneFillsWhileTheConventionalSpaceIsRewritten) {
  const Layout& l = GetParam();
  ftl_config c = default_config();
  c.channels = l.channels;
  c.dies_per_channel = l.dies_per_channel;
  c.capacity_mib = l.capacity_mib;
  Model m(c);
  const uint64_t zone = l.zone_mib * MiB, base = l.conv_mib * MiB;
  const auto nr = static_cast<uint32_t>((m.capacity_bytes() - base) / zone);
  ASSERT_NO_THROW(m.add_zones(base, zone, zone, nr, l.width));
  const uint64_t chunk = 64 * 1024, conv_chunks = base / chunk;
  const uint64_t zone_chunks = zone / chunk, total = uint64_t(nr) * zone_chunks;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> pick(0, conv_chunks - 1);
  uint64_t now = 0, conv_due = 0, failed = 0;
  std::string first_failure;
  auto write = [&](uint64_t off) {
    Completion r = m.submit(cmd(FTL_OP_WRITE, off, chunk), now);
    if (r.status != FTL_OK && !failed++)
      first_failure = "write at " + std::to_string(off) + ": status " + std::to_string(r.status);
    now = std::max(now, r.done_ns);
  };
  // three conventional rewrites spread over the zone writes
  auto conv = [&] {
    for (conv_due += 3 * conv_chunks; conv_due >= total; conv_due -= total) write(pick(rng) * chunk);
  };
  auto fill_pair = [&](uint32_t a, uint32_t b) {
    for (uint64_t k = 0; k < zone_chunks; k++) {
      write(base + a * zone + k * chunk);
      conv();
      if (b != a) {
        write(base + b * zone + k * chunk);
        conv();
      }
    }
  };
  for (uint32_t z = 0; z < nr; z += 2) fill_pair(z, std::min(z + 1, nr - 1));
  EXPECT_EQ(failed, 0u) << l << ": first fill: " << first_failure;
  ASSERT_EQ(m.check(), "");
  // half the zones, every other one, reset and filled again
  for (uint32_t z = 0; z < nr; z += 4) {
    ASSERT_EQ(m.zone_reset(base + z * zone, now).status, FTL_OK);
    if (z + 2 < nr) {
      ASSERT_EQ(m.zone_reset(base + (z + 2) * zone, now).status, FTL_OK);
    }
    fill_pair(z, z + 2 < nr ? z + 2 : z);
  }
  EXPECT_EQ(failed, 0u) << l << ": refill: " << first_failure;
  EXPECT_EQ(m.check(), "");
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, ZoneLayout,
    ::testing::Values(Layout{"16 dies, 256 MiB, 16 MiB zones", 8, 2, 256, 64, 16, 16},
                      Layout{"8 dies, 256 MiB, 8 MiB zones", 4, 2, 256, 64, 8, 8},
                      Layout{"8 dies, 256 MiB, 4 MiB zones", 4, 2, 256, 64, 4, 8},
                      Layout{"8 dies, 256 MiB, 1 MiB zones", 4, 2, 256, 64, 1, 8},
                      Layout{"8 dies, 4 GiB, 1 GiB of 4 MiB zones", 4, 2, 4096, 3072, 4, 8},
                      Layout{"8 dies, 4 GiB, zones over 3 dies", 4, 2, 4096, 64, 16, 3}),
    [](const ::testing::TestParamInfo<Layout>& i) { return "layout" + std::to_string(i.index); });

// Zones whose shares a die cannot hold beside GC's headroom are refused
// when they are added, with the die and what they need of it: here a
// third zoned region whose first zone lands on die 0, which the first
// zones of the other two already fill (small_config(): 8 MiB of data a
// die). The conventional space would fit on the other dies.
TEST(ZoneModel, ZonesADieCannotHoldAreRefused) {
  Model m(small_config());
  m.add_zones(0, 4 * MiB, 4 * MiB, 1, 1);
  m.add_zones(4 * MiB, 4 * MiB, 4 * MiB, 1, 1);
  try {
    m.add_zones(8 * MiB, 4 * MiB, 4 * MiB, 1, 1);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("die 0")) << e.what();
  }
  EXPECT_EQ(m.check(), "");
}

// A conventional write the dies' conventional part has no room for fails
// before a unit of it is placed. An accepted layout never gets there, so
// the dies' share of the zones is raised by hand to leave one unit of
// room on each of the 4 dies.
TEST(ZoneModel, AConventionalWriteWithoutRoomPlacesNothing) {
  Zoned z(2);
  const auto& g = z.m.geometry();
  const uint64_t data = uint64_t(g.blocks_per_die - g.gc_fg - 2) * g.units_per_block;
  ftl* f = z.m.raw();
  for (uint32_t d = 0; d < g.dies; d++) f->dies[d].zone_claim = data;
  Completion r = z.m.submit(cmd(FTL_OP_WRITE, 0, 5 * K4), 0);
  EXPECT_EQ(r.status, FTL_ERR_NO_SPACE);
  for (uint64_t u = 0; u < 5; u++) EXPECT_EQ(z.m.die_of(u * K4), -1) << "unit " << u << " placed";
  EXPECT_EQ(z.m.stats().host_write_units, 0u);
  // four fit, one a die
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, 0, 4 * K4), r.done_ns);
  std::set<int> dies;
  for (uint64_t u = 0; u < 4; u++) dies.insert(z.m.die_of(u * K4));
  EXPECT_EQ(dies.size(), 4u);
  // and then not even an overwrite, which leaves the old copy where it was
  ftl_location before, after;
  ASSERT_EQ(ftl_locate(f, 0, &before), 0);
  EXPECT_EQ(z.m.submit(cmd(FTL_OP_WRITE, 0, K4), now).status, FTL_ERR_NO_SPACE);
  ASSERT_EQ(ftl_locate(f, 0, &after), 0);
  EXPECT_EQ(after.die, before.die);
  EXPECT_EQ(after.block, before.block);
  EXPECT_EQ(after.offset, before.offset);
  EXPECT_EQ(z.m.check(), "");
}

// A zoned write that the model refuses part-way (here the unit it reaches
// on the zone's second die lies below what that die already holds) must
// leave the zone as it was: nothing of it placed.
TEST(ZoneModel, AZonedWriteThatFailsPlacesNothing) {
  Zoned z(2);
  const auto& g = z.m.geometry();
  const uint64_t gran = g.gran_units * K4;
  // the second die's first granule, ahead of the first die's
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0) + gran, gran), 0);
  Completion r = z.m.submit(cmd(FTL_OP_WRITE, z.zone_off(0), 2 * gran), now);
  EXPECT_EQ(r.status, FTL_ERR_INVALID);
  for (uint64_t o = 0; o < gran; o += K4)
    EXPECT_EQ(z.m.die_of(z.zone_off(0) + o), -1) << "offset " << o << " placed";
  EXPECT_EQ(z.m.zone_stats(z.zone_off(0)).host_write_units, gran / K4);
  EXPECT_EQ(z.m.check(), "");
}

// 512-byte LBAs: the unit at the write pointer, its first half written,
// is deallocated whole; the write of its second half at the pointer must
// still go in, into the unit's slot, and the zone go on from there.
TEST(ZoneModel, ADeallocatedUnitAtTheWritePointerTakesTheRestOfItsSectors) {
  Zoned z(1);
  uint64_t now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0), 2048), 0);
  now = ok(z.m, cmd(FTL_OP_TRIM, z.zone_off(0), K4), now);
  EXPECT_EQ(z.m.die_of(z.zone_off(0)), -1) << "deallocated";
  now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0) + 2048, 2048), now);
  EXPECT_NE(z.m.die_of(z.zone_off(0)), -1);
  now = ok(z.m, cmd(FTL_OP_WRITE, z.zone_off(0) + K4, 3 * K4), now);
  ftl_zone_stats zs = z.m.zone_stats(z.zone_off(0));
  EXPECT_EQ(zs.nand_write_units, 4u) << "one program unit, whole";
  EXPECT_EQ(zs.pad_units, 0u);
  EXPECT_EQ(z.m.check(), "");
}

}  // namespace
}  // namespace nvmev::test
