// The zone state machine (nvmev/nvmev_zone_state.c, the file nvmev.ko builds):
// the transitions and statuses of the NVMe Zoned Namespace Command Set
// 1.1 on chosen sequences, each against what the specification says.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" {
#include "nvmev_zone_state.h"
}

namespace {

constexpr u16 Dnr(u16 sc) { return sc | NVME_STATUS_DNR; }

// 8 zones of 16 LBAs, 12 writable, at most 2 open and 3 active
struct Zones {
  std::vector<nvmev_zone> zones = std::vector<nvmev_zone>(8);
  nvmev_zns z{};
  std::vector<u64> resets;
  std::vector<u64> finishes;

  Zones(u32 max_open = 2, u32 max_active = 3) {
    z.zones = zones.data();
    z.nr_zones = 8;
    z.zone_shift = 4;
    z.zcap = 12;
    z.max_open = max_open;
    z.max_active = max_active;
    nvmev_zns_init(&z);
  }
  u8 state(u32 zone) const { return zones[zone].state; }
  u64 wp(u32 zone) const { return zones[zone].wp; }
  // a write of @nlb at @slba, checked and done
  u16 write(u64 slba, u64 nlb, bool append = false, u64* at = nullptr) {
    u64 lba = 0;
    u16 st = nvmev_zns_write_check(&z, slba, nlb, append, &lba);
    if (!st) nvmev_zns_write_commit(&z, lba, nlb);
    if (at) *at = lba;
    return st;
  }
  static void on_flash(void* ctx, u8 zsa, u64 zslba) {
    auto* self = static_cast<Zones*>(ctx);
    (zsa == NVME_ZONE_RESET ? self->resets : self->finishes).push_back(zslba);
  }
  u16 act(u8 zsa, u32 zone, bool all = false) {
    return nvmev_zns_manage(&z, zsa, u64{zone} << 4, all, on_flash, this);
  }
};

TEST(Zns, WritesFollowThePointerAndOpenTheZone) {
  Zones s;
  EXPECT_EQ(s.state(0), NVMEV_ZS_EMPTY);
  EXPECT_EQ(s.write(0, 4), NVME_SC_SUCCESS);
  EXPECT_EQ(s.state(0), NVMEV_ZS_IMP_OPEN);
  EXPECT_EQ(s.wp(0), 4u);
  EXPECT_EQ(s.write(2, 1), Dnr(NVME_SC_ZONE_INVALID_WRITE));
  EXPECT_EQ(s.write(5, 1), Dnr(NVME_SC_ZONE_INVALID_WRITE));
  EXPECT_EQ(s.wp(0), 4u) << "a refused write moves nothing";
  EXPECT_EQ(s.z.nr_open, 1u);
  EXPECT_EQ(s.z.nr_active, 1u);
}

TEST(Zns, CapacityAndFullZones) {
  Zones s;
  EXPECT_EQ(s.write(0, 13), Dnr(NVME_SC_ZONE_BOUNDARY_ERROR)) << "past the capacity";
  EXPECT_EQ(s.write(0, 8), NVME_SC_SUCCESS);
  EXPECT_EQ(s.write(8, 5), Dnr(NVME_SC_ZONE_BOUNDARY_ERROR));
  EXPECT_EQ(s.write(8, 4), NVME_SC_SUCCESS);
  EXPECT_EQ(s.state(0), NVMEV_ZS_FULL) << "written to its capacity";
  EXPECT_EQ(s.z.nr_open, 0u) << "a full zone holds no resource";
  EXPECT_EQ(s.z.nr_active, 0u);
  EXPECT_EQ(s.write(12, 1), Dnr(NVME_SC_ZONE_FULL));
  u64 at = 0;
  EXPECT_EQ(s.write(0, 1, true, &at), Dnr(NVME_SC_ZONE_FULL));
}

TEST(Zns, AppendWritesAtThePointerAndSaysWhere) {
  Zones s;
  u64 at = 0;
  ASSERT_EQ(s.write(16, 3, true, &at), NVME_SC_SUCCESS);
  EXPECT_EQ(at, 16u);
  ASSERT_EQ(s.write(16, 2, true, &at), NVME_SC_SUCCESS);
  EXPECT_EQ(at, 19u);
  EXPECT_EQ(s.write(17, 1, true, &at), Dnr(NVME_SC_INVALID_FIELD)) << "not a zone's start";
}

TEST(Zns, OpenLimitClosesAnImplicitlyOpenedZone) {
  Zones s;
  ASSERT_EQ(s.write(0, 1), NVME_SC_SUCCESS);
  ASSERT_EQ(s.write(16, 1), NVME_SC_SUCCESS);
  ASSERT_EQ(s.write(32, 1), NVME_SC_SUCCESS) << "a third write: one of the others closes";
  EXPECT_EQ(s.z.nr_open, 2u);
  EXPECT_EQ(s.z.nr_active, 3u);
  EXPECT_EQ(s.state(0), NVMEV_ZS_CLOSED);
  EXPECT_EQ(s.write(48, 1), Dnr(NVME_SC_ZONE_TOO_MANY_ACTIVE)) << "a fourth active zone";
  EXPECT_EQ(s.state(3), NVMEV_ZS_EMPTY);
}

TEST(Zns, ExplicitlyOpenedZonesStayOpen) {
  Zones s;
  ASSERT_EQ(s.act(NVME_ZONE_OPEN, 1), NVME_SC_SUCCESS);
  ASSERT_EQ(s.act(NVME_ZONE_OPEN, 2), NVME_SC_SUCCESS);
  EXPECT_EQ(s.state(1), NVMEV_ZS_EXP_OPEN);
  EXPECT_EQ(s.act(NVME_ZONE_OPEN, 3), Dnr(NVME_SC_ZONE_TOO_MANY_OPEN));
  EXPECT_EQ(s.write(0, 1), Dnr(NVME_SC_ZONE_TOO_MANY_OPEN)) << "no implicitly opened zone to close";
  ASSERT_EQ(s.write(16, 2), NVME_SC_SUCCESS);
  EXPECT_EQ(s.state(1), NVMEV_ZS_EXP_OPEN) << "a write keeps it explicitly opened";
  ASSERT_EQ(s.act(NVME_ZONE_CLOSE, 2), NVME_SC_SUCCESS);
  EXPECT_EQ(s.state(2), NVMEV_ZS_CLOSED);
  EXPECT_EQ(s.z.nr_open, 1u);
  EXPECT_EQ(s.z.nr_active, 2u);
}

TEST(Zns, InvalidTransitions) {
  Zones s;
  EXPECT_EQ(s.act(NVME_ZONE_CLOSE, 0), Dnr(NVME_SC_ZONE_INVALID_TRANSITION)) << "close an empty zone";
  EXPECT_EQ(s.act(NVME_ZONE_OFFLINE, 0), Dnr(NVME_SC_ZONE_INVALID_TRANSITION));
  ASSERT_EQ(s.act(NVME_ZONE_FINISH, 0), NVME_SC_SUCCESS);
  EXPECT_EQ(s.state(0), NVMEV_ZS_FULL);
  EXPECT_EQ(s.wp(0), 12u);
  EXPECT_EQ(s.act(NVME_ZONE_OPEN, 0), Dnr(NVME_SC_ZONE_INVALID_TRANSITION)) << "open a full zone";
  EXPECT_EQ(s.act(NVME_ZONE_CLOSE, 0), Dnr(NVME_SC_ZONE_INVALID_TRANSITION));
  EXPECT_EQ(s.act(NVME_ZONE_FINISH, 0), NVME_SC_SUCCESS) << "finishing a full zone does nothing";
  EXPECT_EQ(s.finishes, (std::vector<u64>{0})) << "the flash finishes a zone once";
  EXPECT_EQ(s.act(NVME_ZONE_SET_DESC_EXT, 0), Dnr(NVME_SC_INVALID_FIELD));
  s.zones[5].state = NVMEV_ZS_READ_ONLY;
  EXPECT_EQ(s.write(80, 1), Dnr(NVME_SC_ZONE_READ_ONLY));
  EXPECT_EQ(s.act(NVME_ZONE_RESET, 5), Dnr(NVME_SC_ZONE_INVALID_TRANSITION));
  ASSERT_EQ(s.act(NVME_ZONE_OFFLINE, 5), NVME_SC_SUCCESS);
  EXPECT_EQ(s.write(80, 1), Dnr(NVME_SC_ZONE_OFFLINE));
  EXPECT_EQ(nvmev_zns_read_check(&s.z, 70, 20), Dnr(NVME_SC_ZONE_OFFLINE)) << "a read into it";
  EXPECT_EQ(nvmev_zns_read_check(&s.z, 60, 10), NVME_SC_SUCCESS) << "across zones 3 and 4";
}

TEST(Zns, ResetEmptiesAndSelectAll) {
  Zones s;
  ASSERT_EQ(s.write(0, 12), NVME_SC_SUCCESS);  // full
  ASSERT_EQ(s.write(16, 3), NVME_SC_SUCCESS);  // open
  // an empty zone's flash is reset too: whatever the model holds there, a
  // reset brings the zone back to a writable, zero-reading state
  ASSERT_EQ(s.act(NVME_ZONE_RESET, 2), NVME_SC_SUCCESS);
  EXPECT_EQ(s.resets, (std::vector<u64>{32})) << "an empty zone's flash reset too";
  s.resets.clear();
  ASSERT_EQ(s.act(NVME_ZONE_CLOSE, 0, true), NVME_SC_SUCCESS);
  EXPECT_EQ(s.state(1), NVMEV_ZS_CLOSED);
  EXPECT_EQ(s.state(0), NVMEV_ZS_FULL);
  ASSERT_EQ(s.act(NVME_ZONE_RESET, 0, true), NVME_SC_SUCCESS);
  EXPECT_EQ(s.resets, (std::vector<u64>{0, 16})) << "only the zones that held data";
  for (u32 i = 0; i < 8; i++) EXPECT_EQ(s.state(i), NVMEV_ZS_EMPTY);
  EXPECT_EQ(s.z.nr_open + s.z.nr_active, 0u);
}

TEST(Zns, OpenAllTakesEveryClosedZoneOrNone) {
  Zones s(2, 4);
  for (u32 zone = 0; zone < 3; zone++) ASSERT_EQ(s.write(zone << 4, 1), NVME_SC_SUCCESS);
  ASSERT_EQ(s.act(NVME_ZONE_CLOSE, 0, true), NVME_SC_SUCCESS);
  EXPECT_EQ(s.act(NVME_ZONE_OPEN, 0, true), Dnr(NVME_SC_ZONE_TOO_MANY_OPEN));
  for (u32 zone = 0; zone < 3; zone++) EXPECT_EQ(s.state(zone), NVMEV_ZS_CLOSED);
}

TEST(Zns, ReportFiltersAndCounts) {
  Zones s;
  ASSERT_EQ(s.write(16, 2), NVME_SC_SUCCESS);
  ASSERT_EQ(s.act(NVME_ZONE_FINISH, 3), NVME_SC_SUCCESS);
  std::vector<u8> buf(64 * 3);
  u64 n = 0;
  nvmev_zns_report(&s.z, 0, 0, false, buf.data(), buf.size());
  std::memcpy(&n, buf.data(), 8);
  EXPECT_EQ(n, 8u) << "every zone matches; two fit";
  EXPECT_EQ(buf[64 + 1] >> 4, NVMEV_ZS_EMPTY);
  u64 wp = 0, start = 0;
  std::memcpy(&start, &buf[128 + 16], 8);
  std::memcpy(&wp, &buf[128 + 24], 8);
  EXPECT_EQ(start, 16u);
  EXPECT_EQ(wp, 18u);
  std::fill(buf.begin(), buf.end(), 0);
  nvmev_zns_report(&s.z, 0, 5, true, buf.data(), buf.size());  // full zones
  std::memcpy(&n, buf.data(), 8);
  EXPECT_EQ(n, 1u);
  std::memcpy(&start, &buf[64 + 16], 8);
  EXPECT_EQ(start, 48u);
  std::fill(buf.begin(), buf.end(), 0);
  nvmev_zns_report(&s.z, 20, 1, true, buf.data(), buf.size());  // empty, from zone 1
  std::memcpy(&n, buf.data(), 8);
  EXPECT_EQ(n, 2u) << "partial: what fits";
  std::memcpy(&start, &buf[64 + 16], 8);
  EXPECT_EQ(start, 32u);
}

}  // namespace
