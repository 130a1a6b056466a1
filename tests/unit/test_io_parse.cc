// The command parser (nvmev/nvmev_cmd.c, the file nvmev.ko builds):
// which command sets a namespace takes, by its CSI and by the command
// sets the host enabled (CC.CSS); which field a refused command names for
// the Error Information log.
#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace {

using namespace nvmev::test;

// NSID 1 conventional, NSID 2 zoned (zones of 16 LBAs), 512-byte LBAs
struct View {
  nvmev_ns_view v{};
  operator const nvmev_ns_view&() const { return v; }
  View() {
    v.nn = 2;
    set(v.ns[0], 0, NVME_CSI_NVM, 0);
    set(v.ns[1], 1 << 20, NVME_CSI_ZNS, 4);
  }
  static void set(nvmev_ns& n, u64 base, u8 csi, u32 zone_shift) {
    n.nsze = 1024;
    n.base = base;
    n.lba_shift = 9;
    n.csi = csi;
    n.zone_shift = zone_shift;
  }
  u16 parse(u8 opcode, u32 nsid) {
    nvmev_sqe e{};
    e.dw[0] = opcode;
    e.dw[1] = nsid;
    nvmev_io_req req;
    return nvmev_io_parse(&v, &e, &req);
  }
};

// Zone Management Receive: a report of one zone descriptor, a valid command
constexpr u8 kZoneRecv = nvme_cmd_zone_mgmt_recv;

TEST(IoParse, ZoneCommandsOnAZonedNamespaceOnly) {
  View v;
  EXPECT_EQ(v.parse(nvme_cmd_read, 1), 0);
  EXPECT_EQ(v.parse(nvme_cmd_read, 2), 0);
  EXPECT_EQ(v.parse(kZoneRecv, 1), Dnr(NVME_SC_INVALID_OPCODE));
}

// With CC.CSS = 000b the host enabled the NVM Command Set alone: a zoned
// namespace takes NVM commands, and a Zoned Namespace command is an
// opcode the controller does not offer.
TEST(IoParse, NvmOnlyRefusesZoneCommands) {
  View v;
  v.v.nvm_only = true;
  EXPECT_EQ(v.parse(nvme_cmd_read, 2), 0);
  EXPECT_EQ(v.parse(kZoneRecv, 2), Dnr(NVME_SC_INVALID_OPCODE));
  EXPECT_EQ(v.parse(nvme_cmd_zone_append, 2), Dnr(NVME_SC_INVALID_OPCODE));
  EXPECT_EQ(v.parse(nvme_cmd_zone_mgmt_send, 2), Dnr(NVME_SC_INVALID_OPCODE));
}

TEST(ErrorLocation, IoCommandNamesItsBadField) {
  View v;
  EXPECT_EQ(io(v, nvme_cmd_read, 1, {0, 0, 7}), (Refusal{0, kNoLoc})) << "a good Read";
  EXPECT_EQ(io(v, 0xfd, 1), (Refusal{Dnr(NVME_SC_INVALID_OPCODE), Loc(0)})) << "opcode";
  EXPECT_EQ(io(v, nvme_cmd_read, 9), (Refusal{Dnr(NVME_SC_INVALID_NS), Loc(4)})) << "NSID";
  EXPECT_EQ(io(v, nvme_cmd_read | 0x4000, 1), (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(1, 6)}))
      << "PSDT: CDW0 bits 15:14";
  EXPECT_EQ(io(v, nvme_cmd_read, 1, {1024, 0, 0}), (Refusal{Dnr(NVME_SC_LBA_RANGE), Loc(40)}))
      << "SLBA";
  // 4096 LBAs of 512 bytes: 2 MiB, over MDTS's 1 MiB
  v.v.ns[0].nsze = 1 << 20;
  EXPECT_EQ(io(v, nvme_cmd_write, 1, {0, 0, 4095}), (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(48)}))
      << "NLB";
  // zoned namespace: ZSA, ZRASF, a Zone Append's ZSLBA not a zone's start
  EXPECT_EQ(io(v, nvme_cmd_zone_mgmt_send, 2, {0, 0, 0, 0x10}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(52)}))
      << "ZSA";
  EXPECT_EQ(io(v, nvme_cmd_zone_mgmt_recv, 2, {0, 0, 15, 8 << 8}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(53)}))
      << "ZRASF: CDW13 bits 15:8";
  EXPECT_EQ(io(v, nvme_cmd_zone_append, 2, {3, 0, 0}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(40)}))
      << "ZSLBA";
}

TEST(ErrorLocation, AdminCommandNamesItsBadField) {
  View v;
  constexpr u32 kGetFeatures = 0x0a, kSetFeatures = 0x09, kLog = 0x02, kIdentify = 0x06;
  constexpr u32 kCreateCq = 0x05, kCreateSq = 0x01;
  EXPECT_EQ(admin(v, kIdentify, 0, {1}), (Refusal{0, kNoLoc})) << "Identify Controller";
  EXPECT_EQ(admin(v, 0xfd, 0), (Refusal{Dnr(NVME_SC_INVALID_OPCODE), Loc(0)})) << "opcode";
  EXPECT_EQ(admin(v, kIdentify, 0, {0}), (Refusal{Dnr(NVME_SC_INVALID_NS), Loc(4)})) << "NSID";
  EXPECT_EQ(admin(v, kIdentify, 0, {0x42}), (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(40)}))
      << "CNS";
  EXPECT_EQ(admin(v, kIdentify, 0, {NVME_ID_CNS_CS_CTRL, 7u << 24}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(47)}))
      << "CSI: CDW11 bits 31:24";
  EXPECT_EQ(admin(v, kLog, 0, {0x7f | 15u << 16}),
            (Refusal{Dnr(NVME_SC_INVALID_LOG_PAGE), Loc(40)}))
      << "LID";
  EXPECT_EQ(admin(v, kLog, 0, {NVME_LOG_SMART | 15u << 16, 0, 2}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(48)}))
      << "LPOL: an offset not of dwords";
  EXPECT_EQ(admin(v, kGetFeatures, 0, {NVME_FEAT_ARBITRATION | 4u << 8}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(41)}))
      << "SEL: CDW10 bits 10:8";
  EXPECT_EQ(admin(v, kSetFeatures, 0, {NVME_FEAT_ARBITRATION | 1u << 31}),
            (Refusal{Dnr(NVME_SC_FEATURE_NOT_SAVEABLE), Loc(43, 7)}))
      << "SV: CDW10 bit 31";
  EXPECT_EQ(admin(v, kSetFeatures, 0, {NVME_FEAT_TEMP_THRESH, 2u << 20}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(46, 4)}))
      << "THSEL: CDW11 bits 21:20";
  EXPECT_EQ(admin(v, kSetFeatures, 0, {0x7e}), (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(40)}))
      << "FID";
  EXPECT_EQ(admin(v, kCreateCq, 0, {1}), (Refusal{Dnr(NVME_SC_QUEUE_SIZE), Loc(42)}))
      << "QSIZE: CDW10 bits 31:16";
  EXPECT_EQ(admin(v, kCreateCq, 0, {1 | 7u << 16, 0}),
            (Refusal{Dnr(NVME_SC_INVALID_FIELD), Loc(44)}))
      << "PC: CDW11 bit 0";
  EXPECT_EQ(admin(v, kCreateSq, 0, {1 | 7u << 16, 1}), (Refusal{Dnr(NVME_SC_CQ_INVALID), Loc(46)}))
      << "CQID: CDW11 bits 31:16";
}

}  // namespace
