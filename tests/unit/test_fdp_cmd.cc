// Flexible Data Placement's interface (nvmev/nvmev_fdp.c, the file nvmev.ko
// builds) over a real flash model: a Write's placement identifier, I/O
// Management's fields, the features' and logs' checks, and the bytes of
// logs 20h-23h and of RUH Status as a host reads them.
#include <cstring>
#include <vector>

#include "helpers.h"

extern "C" {
#include "nvmev_fdp.h"
}

namespace nvmev::test {
namespace {

constexpr u16 Dnr(u16 sc) { return sc | NVME_STATUS_DNR; }

u16 le16(const std::vector<u8>& b, size_t at) { return static_cast<u16>(b[at] | b[at + 1] << 8); }
u32 le32(const std::vector<u8>& b, size_t at) { return le16(b, at) | u32{le16(b, at + 2)} << 16; }
u64 le64(const std::vector<u8>& b, size_t at) { return le32(b, at) | u64{le32(b, at + 4)} << 32; }

// The paper's drive, @ruhs handles in @groups reclaim groups, units of one
// block on each die; NSID 1 conventional, NSID 2 zoned (no handles).
struct Drive {
  Model m;
  nvmev_ns_view v{};
  explicit Drive(u16 ruhs, u16 groups = 1) : m(config(ruhs, groups)) {
    v.nn = 2;
    v.ns[0].nsze = (64u << 20) >> 12;
    v.ns[0].lba_shift = 12;
    v.ns[1] = v.ns[0];
    v.ns[1].base = 64u << 20;
    v.ns[1].csi = NVME_CSI_ZNS;
    nvmev_fdp_conf_init(&v.fdp, m.raw());
    v.ns[0].nphndls = v.fdp.ruhs;
    for (u16 i = 0; i < v.fdp.ruhs; i++) v.ns[0].phndl[i] = static_cast<u16>(v.fdp.ruhs - 1 - i);
  }
  static ftl_config config(u16 ruhs, u16 groups) {
    ftl_config c = paper_config(256);
    c.fdp_ruhs = ruhs;
    c.fdp_reclaim_groups = groups;
    return c;
  }
  u16 io(nvmev_sqe& e, nvmev_io_req& req) { return nvmev_io_parse(&v, &e, &req); }
  u16 admin(nvmev_sqe& e, nvmev_admin_req& req) { return nvmev_admin_parse(&v, &e, &req); }
  std::vector<u8> log(u8 lid, u8 lsp = 0) {
    nvmev_admin_req req{};
    req.lid = lid;
    req.lsp = lsp;
    std::vector<u8> page(nvmev_fdp_log_size(&v, lid));
    std::vector<ftl_fdp_event> scratch(FTL_FDP_EVENTS);
    nvmev_fdp_log(m.raw(), &v, &req, 0, scratch.data(), page.data());
    return page;
  }
  std::vector<u8> ruh_status() {
    std::vector<u8> b(nvmev_fdp_ruh_status_size(&v, &v.ns[0]));
    nvmev_fdp_ruh_status(m.raw(), &v, &v.ns[0], b.data());
    return b;
  }
};

nvmev_sqe write_cmd(u32 nsid, u32 dtype, u16 pid) {
  nvmev_sqe e{};
  e.dw[0] = nvme_cmd_write;
  e.dw[1] = nsid;
  e.dw[12] = dtype << 20;  // NLB 0: one LBA
  e.dw[13] = u32{pid} << 16;
  return e;
}

TEST(FdpCmd, APlacementIdentifierNamesTheNamespacesHandle) {
  Drive d(4);
  nvmev_io_req req;
  nvmev_sqe e = write_cmd(1, NVMEV_DTYPE_PLACEMENT, 1);
  ASSERT_EQ(d.io(e, req), 0);
  EXPECT_EQ(req.model.fdp, 1);
  EXPECT_EQ(req.model.fdp_ruh, 2);  // placement handle 1 of the list 3,2,1,0
  EXPECT_FALSE(req.pid_invalid);
}

TEST(FdpCmd, ABadIdentifierFallsBackToHandleZeroAndIsReported) {
  Drive d(4);
  nvmev_io_req req;
  nvmev_sqe e = write_cmd(1, NVMEV_DTYPE_PLACEMENT, 4);
  ASSERT_EQ(d.io(e, req), 0);
  EXPECT_TRUE(req.pid_invalid);
  EXPECT_EQ(req.pid, 4);
  EXPECT_EQ(req.model.fdp_ruh, 3);  // placement handle 0
  EXPECT_EQ(req.model.fdp_rg, 0);
  // none at all: placement handle 0, nothing to report
  e = write_cmd(1, 0, 2);
  ASSERT_EQ(d.io(e, req), 0);
  EXPECT_FALSE(req.pid_invalid);
  EXPECT_EQ(req.model.fdp_ruh, 3);
}

TEST(FdpCmd, TheReclaimGroupIsInThePidsTopBits) {
  Drive d(2, 4);  // RGIF 2: PID bits 15:14
  ASSERT_EQ(d.v.fdp.rgif, 2);
  nvmev_io_req req;
  nvmev_sqe e = write_cmd(1, NVMEV_DTYPE_PLACEMENT, (3u << 14) | 1);
  ASSERT_EQ(d.io(e, req), 0);
  EXPECT_EQ(req.model.fdp_rg, 3);
  EXPECT_EQ(req.model.fdp_ruh, 0);
  EXPECT_FALSE(req.pid_invalid);
}

TEST(FdpCmd, DirectivesThatAreNotEnabledAreInvalidFields) {
  Drive d(4);
  nvmev_io_req req;
  nvmev_sqe e = write_cmd(1, 1, 0);  // Streams
  EXPECT_EQ(d.io(e, req), Dnr(NVME_SC_INVALID_FIELD));
  EXPECT_EQ(req.error_loc, nvmev_err_loc(12, 20));
  Drive plain(0);
  e = write_cmd(1, NVMEV_DTYPE_PLACEMENT, 0);
  EXPECT_EQ(plain.io(e, req), Dnr(NVME_SC_INVALID_FIELD));
  // a zoned namespace's zones place its data: the identifier is ignored
  e = write_cmd(2, NVMEV_DTYPE_PLACEMENT, 0);
  ASSERT_EQ(d.io(e, req), 0);
  EXPECT_EQ(req.model.fdp, 0);
}

TEST(FdpCmd, IoManagementOnlyOnAnFdpDrive) {
  Drive d(4), plain(0);
  nvmev_sqe e{};
  e.dw[0] = NVMEV_CMD_IO_MGMT_RECV;
  e.dw[1] = 1;
  e.dw[10] = NVMEV_IO_MGMT_RUHS;
  e.dw[11] = 1023;  // 4 KiB
  nvmev_io_req req;
  ASSERT_EQ(d.io(e, req), 0);
  EXPECT_EQ(req.xfer, 4096u);
  EXPECT_EQ(plain.io(e, req), Dnr(NVME_SC_INVALID_OPCODE));
  e.dw[10] = 2;  // no such operation
  EXPECT_EQ(d.io(e, req), Dnr(NVME_SC_INVALID_FIELD));
  // Send: at most every handle of the namespace in every group
  e.dw[0] = NVMEV_CMD_IO_MGMT_SEND;
  e.dw[10] = NVMEV_IO_MGMT_RUHU | (3u << 16);
  ASSERT_EQ(d.io(e, req), 0);
  EXPECT_EQ(req.npids, 4u);
  e.dw[10] = NVMEV_IO_MGMT_RUHU | (4u << 16);
  EXPECT_EQ(d.io(e, req), Dnr(NVME_SC_INVALID_FIELD));
  EXPECT_EQ(req.error_loc, nvmev_err_loc(10, 16));
}

TEST(FdpCmd, AnUpdateChecksEveryPidBeforeAnyHandleMoves) {
  Drive d(4);
  const u8 good[] = {0, 0, 3, 0};
  const u8 bad[] = {0, 0, 9, 0};
  u16 ruh[2], rg[2];
  ASSERT_EQ(nvmev_fdp_update_check(&d.v, &d.v.ns[0], good, 2, ruh, rg), 0);
  EXPECT_EQ(ruh[0], 3);
  EXPECT_EQ(ruh[1], 0);
  EXPECT_EQ(nvmev_fdp_update_check(&d.v, &d.v.ns[0], bad, 2, ruh, rg), Dnr(NVME_SC_INVALID_FIELD));
}

nvmev_sqe feature(u8 opcode, u8 fid, u32 nsid, u32 cdw11) {
  nvmev_sqe e{};
  e.dw[0] = opcode;
  e.dw[1] = nsid;
  e.dw[10] = fid;
  e.dw[11] = cdw11;
  return e;
}

TEST(FdpCmd, FdpCannotBeChangedWithNamespacesPresent) {
  Drive d(4), plain(0);
  nvmev_admin_req req;
  nvmev_sqe e = feature(nvme_admin_get_features, NVMEV_FEAT_FDP, 0, NVMEV_ENDGID);
  ASSERT_EQ(d.admin(e, req), 0);
  EXPECT_EQ(plain.admin(e, req), Dnr(NVME_SC_INVALID_FIELD));
  e = feature(nvme_admin_get_features, NVMEV_FEAT_FDP, 0, 2);  // no such group
  EXPECT_EQ(d.admin(e, req), Dnr(NVME_SC_INVALID_FIELD));
  e = feature(nvme_admin_set_features, NVMEV_FEAT_FDP, 0, NVMEV_ENDGID);
  EXPECT_EQ(d.admin(e, req), Dnr(NVME_SC_CMD_SEQ_ERROR));
}

TEST(FdpCmd, EventsOfAPlacementHandleTheNamespaceHas) {
  Drive d(4);
  nvmev_admin_req req;
  nvmev_sqe e = feature(nvme_admin_get_features, NVMEV_FEAT_FDP_EVENTS, 1, 3 | (255u << 16));
  ASSERT_EQ(d.admin(e, req), 0);
  EXPECT_EQ(req.phndl, 3);
  EXPECT_EQ(req.noet, 255);
  e.dw[11] = 4 | (255u << 16);  // placement handle 4 of 4
  EXPECT_EQ(d.admin(e, req), Dnr(NVME_SC_INVALID_FIELD));
  e.dw[11] = 0;  // no event types
  EXPECT_EQ(d.admin(e, req), Dnr(NVME_SC_INVALID_FIELD));
  e = feature(nvme_admin_set_features, NVMEV_FEAT_FDP_EVENTS, NVME_NSID_ALL, 1u << 16);
  EXPECT_EQ(d.admin(e, req), Dnr(NVME_SC_INVALID_NS));
}

nvmev_sqe log_cmd(u8 lid, u16 lsi, u32 bytes, u8 lsp = 0) {
  nvmev_sqe e{};
  e.dw[0] = nvme_admin_get_log_page;
  u32 numd = bytes / 4 - 1;
  e.dw[10] = lid | u32{lsp} << 8 | (numd & 0xffff) << 16;
  e.dw[11] = numd >> 16 | u32{lsi} << 16;
  return e;
}

TEST(FdpCmd, LogsOfTheEnduranceGroupOnly) {
  Drive d(4), plain(0);
  nvmev_admin_req req;
  nvmev_sqe e = log_cmd(NVMEV_LOG_FDP_CONFIGS, NVMEV_ENDGID, 16);
  ASSERT_EQ(d.admin(e, req), 0);
  EXPECT_EQ(plain.admin(e, req), Dnr(NVME_SC_INVALID_LOG_PAGE));
  e = log_cmd(NVMEV_LOG_FDP_STATS, 0, 64);
  EXPECT_EQ(d.admin(e, req), Dnr(NVME_SC_INVALID_FIELD));
  EXPECT_EQ(req.error_loc, nvmev_err_loc(11, 16));
  e = log_cmd(NVMEV_LOG_FDP_EVENTS, NVMEV_ENDGID, 4096, 1);
  EXPECT_EQ(d.admin(e, req), 0);
  e = log_cmd(NVMEV_LOG_FDP_STATS, NVMEV_ENDGID, 64, 1);  // LSP only for events
  EXPECT_EQ(d.admin(e, req), Dnr(NVME_SC_INVALID_FIELD));
}

TEST(FdpCmd, TheConfigurationIsTheModels) {
  Drive d(4);
  const ftl_geometry* g = ftl_get_geometry(d.m.raw());
  std::vector<u8> p = d.log(NVMEV_LOG_FDP_CONFIGS);
  ASSERT_EQ(p.size(), 16u + 64 + 16);
  EXPECT_EQ(le16(p, 0), 0);           // one configuration
  EXPECT_EQ(le32(p, 4), p.size());    // SZE
  EXPECT_EQ(le16(p, 16), 64 + 16);    // DSZE
  EXPECT_EQ(p[18], 0x90);             // valid, volatile write cache, RGIF 0
  EXPECT_EQ(le32(p, 20), 1u);         // NRG
  EXPECT_EQ(le16(p, 24), 4);          // NRUH
  EXPECT_EQ(le16(p, 26), NVMEV_FDP_MAX_PHNDLS - 1);
  EXPECT_EQ(le64(p, 32), u64{g->dies} * g->units_per_block * K4);  // a block on each die
  for (int i = 0; i < 4; i++) EXPECT_EQ(p[16 + 64 + 4 * i], 1) << i;  // initially isolated
}

TEST(FdpCmd, RuhStatusListsTheNamespacesHandlesAndWhatTheyHaveLeft) {
  Drive d(4);
  std::vector<u8> b = d.ruh_status();
  ASSERT_EQ(le16(b, 14), 4);
  u64 runs = d.v.fdp.runs >> 12;
  for (u16 i = 0; i < 4; i++) {
    EXPECT_EQ(le16(b, 16 + 32 * i), i);          // PID
    EXPECT_EQ(le16(b, 18 + 32 * i), 3 - i);      // RUHID
    EXPECT_EQ(le64(b, 24 + 32 * i), runs) << i;  // RUAMW, LBAs
  }
  ftl_cmd c = cmd(FTL_OP_WRITE, 0, 5 * K4);
  c.fdp = 1;
  c.fdp_ruh = 2;  // placement handle 1
  ok(d.m, c, 1000);
  b = d.ruh_status();
  EXPECT_EQ(le64(b, 24 + 32), runs - 5);
  EXPECT_EQ(le64(b, 24), runs);
}

TEST(FdpCmd, StatisticsCountBytes) {
  Drive d(2);
  ftl_cmd c = cmd(FTL_OP_WRITE, 0, 3 * K4);
  c.fdp = 1;
  ok(d.m, c, 1000);
  std::vector<u8> p = d.log(NVMEV_LOG_FDP_STATS);
  EXPECT_EQ(le64(p, 0), 3 * K4);  // HBMW
  EXPECT_EQ(le64(p, 8), 0u);
}

TEST(FdpCmd, UsageShowsTheHandlesANamespaceLists) {
  Drive d(4);
  d.v.ns[0].nphndls = 2;  // handles 3 and 2
  std::vector<u8> p = d.log(NVMEV_LOG_FDP_RUH_USAGE);
  EXPECT_EQ(le16(p, 0), 4);
  EXPECT_EQ(p[8 + 8 * 0], 0);
  EXPECT_EQ(p[8 + 8 * 1], 0);
  EXPECT_EQ(p[8 + 8 * 2], 1);
  EXPECT_EQ(p[8 + 8 * 3], 1);
}

TEST(FdpCmd, EventsAreRecordedOnlyWhileEnabledAndAsTheirKind) {
  Drive d(2);
  ftl* f = d.m.raw();
  for (u8 t : {FTL_FDP_EV_RU_NOT_FULL, FTL_FDP_EV_INVALID_PID})
    for (u32 h = 0; h < 2; h++) ASSERT_EQ(ftl_fdp_event_enable(f, h, t, false), 0);
  ftl_cmd c = cmd(FTL_OP_WRITE, 0, K4);
  c.fdp = 1;
  ok(d.m, c, 1000);
  ASSERT_EQ(ftl_fdp_update(f, 0, 0, 2000), 0);  // not recorded: off
  EXPECT_EQ(le32(d.log(NVMEV_LOG_FDP_EVENTS, 1), 0), 0u);
  ASSERT_EQ(ftl_fdp_event_enable(f, 0, FTL_FDP_EV_RU_NOT_FULL, true), 0);
  ASSERT_EQ(ftl_fdp_event_enable(f, 1, FTL_FDP_EV_INVALID_PID, true), 0);
  ok(d.m, c, 3000);
  ASSERT_EQ(ftl_fdp_update(f, 0, 0, 4000000), 0);
  ftl_fdp_event_invalid_pid(f, 1, 77, 1, 5000000);
  ftl_fdp_event_invalid_pid(f, 0, 78, 1, 6000000);  // handle 0 has it off
  std::vector<u8> p = d.log(NVMEV_LOG_FDP_EVENTS, 1);
  ASSERT_EQ(le32(p, 0), 2u);
  EXPECT_EQ(p[64], FTL_FDP_EV_RU_NOT_FULL);
  EXPECT_EQ(p[65], 0x4);               // location valid
  EXPECT_EQ(le64(p, 64 + 4), 4u);      // ms
  EXPECT_EQ(p[128], FTL_FDP_EV_INVALID_PID);
  EXPECT_EQ(p[129], 0x7);              // PID, NSID and location valid
  EXPECT_EQ(le16(p, 128 + 2), 77);
  EXPECT_EQ(le32(p, 128 + 12), 1u);
  EXPECT_EQ(p[128 + 34], 1);           // RUHID
  // the controller's events are a log of their own
  EXPECT_EQ(le32(d.log(NVMEV_LOG_FDP_EVENTS, 0), 0), 0u);
  EXPECT_EQ(ftl_fdp_event_enable(f, 0, 0x01, true), -EINVAL);  // not a type it records
}

}  // namespace
}  // namespace nvmev::test
