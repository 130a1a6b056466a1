// The I/O command parser (nvmev/nvmev_cmd.c, the file nvmev.ko builds):
// which command sets a namespace takes, by its CSI and by the command
// sets the host enabled (CC.CSS).
#include <gtest/gtest.h>

extern "C" {
#include "nvmev_cmd.h"
}

namespace {

constexpr u16 Dnr(u16 sc) { return sc | NVME_STATUS_DNR; }

// NSID 1 conventional, NSID 2 zoned (zones of 16 LBAs), 512-byte LBAs
struct View {
  nvmev_ns_view v{};
  View() {
    v.nn = 2;
    v.ns[0] = {1024, 0, 9, NVME_CSI_NVM, 0};
    v.ns[1] = {1024, 1 << 20, 9, NVME_CSI_ZNS, 4};
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

}  // namespace
