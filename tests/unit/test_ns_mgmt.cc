// Namespace Management and Attachment (nvmev/nvmev_nsmgmt.c, the file
// nvmev.ko builds): the fields of both commands, the host's create data,
// and where a created namespace goes, held against a small model of the
// drive's flash: after any sequence of creates and deletes no two
// namespaces share a MiB, and a create is refused for capacity exactly
// when no gap of free MiB is large enough.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "parse_helpers.h"

extern "C" {
#include "nvmev_fdp.h"
#include "nvmev_nsmgmt.h"
}

namespace {

using namespace nvmev::test;
constexpr u64 kMiB = 1 << 20;

// a drive of @mib MiB of flash and 4 KiB LBAs, no namespace yet
nvmev_ns_view Drive(u64 mib, u16 ruhs = 0) {
  nvmev_ns_view v{};
  v.nn = NVMEV_MAX_NS;
  v.flash_bytes = mib * kMiB;
  v.lba_shift = 12;
  v.fdp.ruhs = ruhs;
  return v;
}

void Place(nvmev_ns_view& v, u32 nsid, u64 base_mib, u64 mib, u8 csi = NVME_CSI_NVM) {
  nvmev_ns& n = v.ns[nsid - 1];
  n.base = base_mib * kMiB;
  n.lba_shift = 12;
  n.nsze = mib * kMiB >> 12;
  n.csi = csi;
}

// the host's create data: NSZE = NCAP = @lbas, the rest as given
struct Create {
  std::array<u8, NVMEV_NSM_BYTES> d{};
  explicit Create(u64 lbas) {
    put64(NVMEV_NSM_NSZE, lbas);
    put64(NVMEV_NSM_NCAP, lbas);
  }
  void put16(u32 off, u16 v) {
    d[off] = v & 0xff;
    d[off + 1] = v >> 8;
  }
  void put64(u32 off, u64 v) {
    for (int i = 0; i < 8; i++) d[off + i] = (v >> (8 * i)) & 0xff;
  }
  void handles(std::initializer_list<u16> list) {
    put16(NVMEV_NSM_NPHNDLS, list.size());
    u32 i = 0;
    for (u16 h : list) put16(NVMEV_NSM_PHNDL + 2 * i++, h);
  }
  u16 check(const nvmev_ns_view& v, nvmev_ns* out = nullptr, u32* nsid = nullptr) const {
    nvmev_ns n;
    u32 id;
    return nvmev_ns_create_check(&v, d.data(), out ? out : &n, nsid ? nsid : &id);
  }
};

constexpr u16 kLocNsid = 4;
constexpr u16 kLocSel = 40;
constexpr u16 kLocCsi = 44 + 3;

TEST(NsMgmtParse, FieldsNameTheirErrors) {
  nvmev_ns_view v = Drive(64);
  Place(v, 1, 0, 16);
  Place(v, 2, 16, 16, NVME_CSI_ZNS);
  constexpr u8 kMgmt = NVMEV_ADMIN_NS_MGMT, kAttach = NVMEV_ADMIN_NS_ATTACH;
  EXPECT_EQ(admin(v, kMgmt, 0, {NVMEV_NS_MGMT_CREATE}), (Refusal{0, kNoLoc}));
  EXPECT_EQ(admin(v, kMgmt, 0, {NVMEV_NS_MGMT_CREATE, NVME_CSI_ZNS << 24}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), kLocCsi}))
      << "a zoned namespace is the configuration's, not a create's";
  EXPECT_EQ(admin(v, kMgmt, 0, {2}), (Refusal{Dnr(NVME_SC_INVALID_FIELD), kLocSel})) << "SEL 2";
  EXPECT_EQ(admin(v, kMgmt, 1, {NVMEV_NS_MGMT_DELETE}), (Refusal{0, kNoLoc}));
  EXPECT_EQ(admin(v, kMgmt, 3, {NVMEV_NS_MGMT_DELETE}),
            (Refusal{Dnr(NVME_SC_INVALID_NS), kLocNsid}))
      << "an NSID with no namespace";
  EXPECT_EQ(admin(v, kMgmt, 0, {NVMEV_NS_MGMT_DELETE}),
            (Refusal{Dnr(NVME_SC_INVALID_NS), kLocNsid}));
  EXPECT_EQ(admin(v, kMgmt, 2, {NVMEV_NS_MGMT_DELETE}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), kLocNsid}))
      << "a zoned namespace's zones are the model's from its load";
  EXPECT_EQ(admin(v, kMgmt, NVME_NSID_ALL, {NVMEV_NS_MGMT_DELETE}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), kLocNsid}))
      << "every namespace, a zoned one among them";
  v.ns[1] = nvmev_ns{};
  EXPECT_EQ(admin(v, kMgmt, NVME_NSID_ALL, {NVMEV_NS_MGMT_DELETE}), (Refusal{0, kNoLoc}));

  EXPECT_EQ(admin(v, kAttach, 1, {NVMEV_NS_ATTACH}), (Refusal{0, kNoLoc}));
  EXPECT_EQ(admin(v, kAttach, 1, {NVMEV_NS_DETACH}), (Refusal{0, kNoLoc}));
  EXPECT_EQ(admin(v, kAttach, 1, {2}), (Refusal{Dnr(NVME_SC_INVALID_FIELD), kLocSel}));
  EXPECT_EQ(admin(v, kAttach, 2, {NVMEV_NS_ATTACH}),
            (Refusal{Dnr(NVME_SC_INVALID_NS), kLocNsid}));
  EXPECT_EQ(admin(v, kAttach, NVME_NSID_ALL, {NVMEV_NS_ATTACH}),
            (Refusal{Dnr(NVME_SC_INVALID_NS), kLocNsid}));
}

// a detached namespace is allocated, not active: I/O and Identify CNS 00h
// see nothing there, Namespace Management and Attachment do
TEST(NsMgmtParse, DetachedIsInactive) {
  nvmev_ns_view v = Drive(64);
  Place(v, 1, 0, 16);
  v.ns[0].detached = true;
  EXPECT_EQ(nvmev_ns_get(&v, 1), nullptr);
  EXPECT_EQ(admin(v, NVMEV_ADMIN_NS_ATTACH, 1, {NVMEV_NS_ATTACH}), (Refusal{0, kNoLoc}));
  EXPECT_EQ(admin(v, NVMEV_ADMIN_NS_MGMT, 1, {NVMEV_NS_MGMT_DELETE}), (Refusal{0, kNoLoc}));
  v.ns[0].detached = false;
  EXPECT_NE(nvmev_ns_get(&v, 1), nullptr);
}

TEST(NsCreate, TakesTheLowestFreeNsidAndGap) {
  nvmev_ns_view v = Drive(64);
  Place(v, 1, 0, 16);
  Place(v, 3, 32, 16);
  nvmev_ns n;
  u32 nsid;
  ASSERT_EQ(Create(16 * kMiB >> 12).check(v, &n, &nsid), 0);
  EXPECT_EQ(nsid, 2u);
  EXPECT_EQ(n.base, 16 * kMiB);
  EXPECT_EQ(n.nsze, 16 * kMiB >> 12);
  EXPECT_EQ(n.lba_shift, 12u);
  EXPECT_TRUE(n.detached) << "created, attached to no controller yet";
  EXPECT_EQ(v.ns[1].nsze, 0u) << "the check changes nothing";
  // 17 MiB fits neither 16 MiB gap; a size of a MiB and one LBA takes two
  EXPECT_EQ(Create(17 * kMiB >> 12).check(v), Dnr(NVMEV_SC_NS_INSUFFICIENT_CAP));
  EXPECT_EQ(Create((16 * kMiB >> 12) + 1).check(v), Dnr(NVMEV_SC_NS_INSUFFICIENT_CAP));
  EXPECT_EQ(Create(1).check(v), 0);
  EXPECT_EQ(nvmev_ns_unallocated(&v), 32 * kMiB);
}

TEST(NsCreate, RefusesWhatTheDriveDoesNotOffer) {
  nvmev_ns_view v = Drive(64);
  const u64 lbas = kMiB >> 12;
  EXPECT_EQ(Create(0).check(v), Dnr(NVME_SC_INVALID_FIELD)) << "NSZE 0";
  Create thin(lbas);
  thin.put64(NVMEV_NSM_NCAP, lbas / 2);
  EXPECT_EQ(thin.check(v), Dnr(NVME_SC_INVALID_FIELD)) << "NCAP below NSZE";
  Create fmt(lbas);
  fmt.d[NVMEV_NSM_FLBAS] = 1;
  EXPECT_EQ(fmt.check(v), Dnr(NVMEV_SC_INVALID_FORMAT)) << "LBA format 1";
  fmt.d[NVMEV_NSM_FLBAS] = 0x10;
  EXPECT_EQ(fmt.check(v), Dnr(NVMEV_SC_INVALID_FORMAT)) << "extended LBAs";
  for (u32 off : {NVMEV_NSM_DPS, NVMEV_NSM_NMIC, NVMEV_NSM_ANAGRPID, NVMEV_NSM_NVMSETID,
                  NVMEV_NSM_LBSTM}) {
    Create c(lbas);
    c.d[off] = 1;
    EXPECT_EQ(c.check(v), Dnr(NVME_SC_INVALID_FIELD)) << "byte " << off;
  }
  Create eg(lbas);
  eg.put16(NVMEV_NSM_ENDGID, NVMEV_ENDGID);
  EXPECT_EQ(eg.check(v), Dnr(NVME_SC_INVALID_FIELD)) << "an endurance group without FDP";
  Create handles(lbas);
  handles.handles({0});
  EXPECT_EQ(handles.check(v), Dnr(NVME_SC_INVALID_FIELD)) << "handles without FDP";
  EXPECT_EQ(Create(64 * kMiB >> 12).check(v), 0) << "the whole drive";
  EXPECT_EQ(Create((64 * kMiB >> 12) + 1).check(v), Dnr(NVMEV_SC_NS_INSUFFICIENT_CAP));
  EXPECT_EQ(Create(~0ull).check(v), Dnr(NVMEV_SC_NS_INSUFFICIENT_CAP)) << "no overflow";
}

TEST(NsCreate, PlacementHandleLists) {
  nvmev_ns_view v = Drive(64, 4);
  const u64 lbas = kMiB >> 12;
  nvmev_ns n;
  u32 nsid;
  ASSERT_EQ(Create(lbas).check(v, &n, &nsid), 0);
  EXPECT_EQ(n.nphndls, 4) << "no list: every handle, as configfs gives one";
  for (u16 i = 0; i < 4; i++) EXPECT_EQ(n.phndl[i], i);
  Create two(lbas);
  two.handles({3, 1});
  two.put16(NVMEV_NSM_ENDGID, NVMEV_ENDGID);
  ASSERT_EQ(two.check(v, &n, &nsid), 0);
  ASSERT_EQ(n.nphndls, 2);
  EXPECT_EQ(n.phndl[0], 3);
  EXPECT_EQ(n.phndl[1], 1);
  Create beyond(lbas);
  beyond.handles({0, 4});
  EXPECT_EQ(beyond.check(v), Dnr(NVMEV_SC_INVALID_PHNDL_LIST)) << "RUH 4 of 4";
  Create twice(lbas);
  twice.handles({2, 2});
  EXPECT_EQ(twice.check(v), Dnr(NVMEV_SC_INVALID_PHNDL_LIST)) << "a handle twice";
  Create many(lbas);
  many.handles({0, 1, 2, 3, 0});
  EXPECT_EQ(many.check(v), Dnr(NVMEV_SC_INVALID_PHNDL_LIST)) << "more than the drive has";
  Create eg(lbas);
  eg.put16(NVMEV_NSM_ENDGID, 2);
  EXPECT_EQ(eg.check(v), Dnr(NVME_SC_INVALID_FIELD)) << "endurance group 2 of 1";
}

TEST(NsCreate, EveryNsidTaken) {
  nvmev_ns_view v = Drive(64);
  for (u32 i = 1; i <= NVMEV_MAX_NS; i++) Place(v, i, i - 1, 1);
  EXPECT_EQ(Create(1).check(v), Dnr(NVMEV_SC_NS_ID_UNAVAILABLE))
      << "before capacity: there is room, but no NSID";
}

TEST(NsAttach, ControllerList) {
  std::array<u8, NVMEV_CTRL_LIST_BYTES> l{};
  EXPECT_EQ(nvmev_ctrl_list_check(l.data()), Dnr(NVMEV_SC_CTRL_LIST_INVALID)) << "empty";
  l[0] = 1;
  l[2] = 1;
  EXPECT_EQ(nvmev_ctrl_list_check(l.data()), 0);
  l[2] = 2;
  EXPECT_EQ(nvmev_ctrl_list_check(l.data()), Dnr(NVMEV_SC_CTRL_LIST_INVALID)) << "CNTLID 2";
  l[0] = 2;
  l[2] = 1;
  l[4] = 2;
  EXPECT_EQ(nvmev_ctrl_list_check(l.data()), Dnr(NVMEV_SC_CTRL_LIST_INVALID))
      << "a controller the subsystem does not have";
}

// Random creates and deletes of random sizes on drives of random sizes,
// against a map of which namespace holds each MiB: created namespaces
// lie in free MiB at the lowest gap that fits, take the lowest free
// NSID, and are refused for capacity exactly when no gap fits.
TEST(NsCreate, LayoutsAgainstAMapOfTheFlash) {
  std::mt19937_64 rng(20261207);
  for (int drive = 0; drive < 200; drive++) {
    const u64 mib = 1 + rng() % 96;
    nvmev_ns_view v = Drive(mib);
    std::vector<u32> owner(mib, 0);  // NSID per MiB, 0: free
    for (int step = 0; step < 60; step++) {
      if (rng() % 3 == 0) {  // delete an allocated one, as the module does
        const u32 nsid = 1 + rng() % NVMEV_MAX_NS;
        if (!v.ns[nsid - 1].nsze) continue;
        v.ns[nsid - 1] = nvmev_ns{};
        for (u32& o : owner)
          if (o == nsid) o = 0;
        continue;
      }
      const u64 lbas = 1 + rng() % ((mib * kMiB >> 12) / 2 + 1);
      const u64 need = (lbas * 4096 + kMiB - 1) / kMiB;
      u32 want_nsid = 1;
      while (want_nsid <= NVMEV_MAX_NS && v.ns[want_nsid - 1].nsze) want_nsid++;
      u64 want_base = ~0ull, run = 0;
      for (u64 m = 0; m < mib && want_base == ~0ull; m++) {
        run = owner[m] ? 0 : run + 1;
        if (run == need) want_base = m + 1 - need;
      }
      nvmev_ns n;
      u32 nsid;
      const u16 status = Create(lbas).check(v, &n, &nsid);
      if (want_nsid > NVMEV_MAX_NS) {
        ASSERT_EQ(status, Dnr(NVMEV_SC_NS_ID_UNAVAILABLE));
        continue;
      }
      if (want_base == ~0ull) {
        ASSERT_EQ(status, Dnr(NVMEV_SC_NS_INSUFFICIENT_CAP))
            << "drive " << drive << " step " << step << ": " << need << " MiB";
        continue;
      }
      ASSERT_EQ(status, 0) << "drive " << drive << " step " << step;
      ASSERT_EQ(nsid, want_nsid);
      ASSERT_EQ(n.base, want_base * kMiB);
      for (u64 m = want_base; m < want_base + need; m++) owner[m] = nsid;
      v.ns[nsid - 1] = n;
      u64 free_mib = 0;
      for (u32 o : owner) free_mib += !o;
      ASSERT_EQ(nvmev_ns_unallocated(&v), free_mib * kMiB);
    }
  }
}

}  // namespace
