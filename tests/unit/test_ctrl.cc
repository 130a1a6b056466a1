// The controller's state machine (nvmev/nvmev_ctrl.c, the file nvmev.ko
// builds) on sequences the fuzzer reaches only by luck: when the worker's
// poll lands between a host's register writes. Each test plays the host
// with fake host memory and polls the controller at a chosen moment.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" {
#include "nvmev_ctrl.h"
}

namespace {

constexpr u64 kRamBase = 0x100000;
constexpr u32 kPage = 4096;
constexpr u32 kRamPages = 8;
constexpr u32 kCc = 1 | (6u << 16) | (4u << 20);  // EN, IOSQES 6, IOCQES 4

struct Host {
  std::vector<u8> ram = std::vector<u8>(kRamPages * kPage);
  alignas(64) u8 bar[16384] = {};
  nvmev_ctrl c{};
  std::vector<u16> admin_cids;  // what the admin executor was given
  std::vector<std::pair<u16, u16>> io_cids;  // (sqid, cid) the I/O executor was given
  bool sq1_full = false;
};

Host* g;

// A host write timed between a register read of the controller's and
// what it does with the value: on the next read of @off, @value goes in.
struct WriteOnRead {
  bool armed = false;
  u32 off = 0, value = 0;
} write_on_read;

u64 op_now(void*) { return 1000; }
void* op_host_ptr(void*, u64 addr, u64 len, bool) {
  if (addr < kRamBase || addr + len > kRamBase + g->ram.size()) return nullptr;
  return g->ram.data() + (addr - kRamBase);
}
bool op_dma(void*) { return true; }
void op_signal(void*, u16) {}
void op_admin(void*, const nvmev_sqe* sqe) {
  u16 cid = nvmev_sqe_cid(sqe);
  g->admin_cids.push_back(cid);
  nvmev_ctrl_complete(&g->c, 0, cid, 0, 0, 0);
}
void op_io(void*, u16 sqid, const nvmev_sqe* sqe) {
  u16 cid = nvmev_sqe_cid(sqe);
  g->io_cids.push_back({sqid, cid});
  nvmev_ctrl_complete(&g->c, sqid, cid, 0, 0, 0);
}
void op_reset(void*) {}
void op_sq_deleted(void*, u16) {}
// an executor with no room for SQ 1's commands while g->sq1_full
bool op_io_ready(void*, u16 sqid, const nvmev_sqe*) { return !(sqid == 1 && g->sq1_full); }
const nvmev_ctrl_ops kOps = {op_now,   op_host_ptr, op_dma,        op_signal,  op_admin,
                             op_io,    op_reset,    op_sq_deleted, op_io_ready};

class CtrlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g = &h;
    ASSERT_EQ(nvmev_ctrl_init(&h.c, &kOps, &h, h.bar, 4), 0);
  }
  void TearDown() override { nvmev_ctrl_exit(&h.c); }

  void poll() {
    u64 next;
    nvmev_ctrl_poll(&h.c, &next);
  }
  void wr(u32 off, u32 v) { nvmev_wr32(h.bar, off, v); }
  u32 rd(u32 off) { return nvmev_rd32(h.bar, off); }
  // admin SQ in page sq_page, CQ in page sq_page + 1, 8 entries each
  void program_admin(u32 sq_page) {
    sq_addr = kRamBase + u64{sq_page} * kPage;
    wr(NVME_REG_AQA, 7 | (7u << 16));
    nvmev_wr64(h.bar, NVME_REG_ASQ, sq_addr);
    nvmev_wr64(h.bar, NVME_REG_ACQ, sq_addr + kPage);
  }
  // an admin command (Get Features, any) into slot @slot of the SQ
  void write_cmd(u32 slot, u16 cid) {
    nvmev_sqe e{};
    e.dw[0] = 0x0a | (u32{cid} << 16);
    e.dw[10] = 0x07;
    std::memcpy(h.ram.data() + (sq_addr - kRamBase) + slot * 64, &e, sizeof(e));
  }
  void ring_admin(u32 tail) { wr(NVME_REG_DBS, tail); }
  // a controller enabled on the queues at page 0 that ran admin commands
  // 1..n from slots 0..n-1
  void enable_and_run(u16 n) {
    program_admin(0);
    wr(NVME_REG_CC, kCc);
    poll();
    for (u16 cid = 1; cid <= n; cid++) write_cmd(cid - 1, cid);
    ring_admin(n);
    poll();
  }

  // I/O CQ 1 in page 4, I/O SQs 1 and 2 in pages 5 and 6, 8 entries each;
  // Set Features Number of Queues not sent: the default must allow them
  void create_io_queues() {
    nvmev_admin_req req{};
    req.qid = 1;
    req.prp1 = kRamBase + 4 * kPage;
    req.qsize = 8;
    ASSERT_EQ(nvmev_ctrl_create_cq(&h.c, &req), 0) << "CQ 1 without Set Features";
    for (u16 q = 1; q <= 2; q++) {
      req.qid = q;
      req.cqid = 1;
      req.prp1 = kRamBase + (4u + q) * kPage;
      ASSERT_EQ(nvmev_ctrl_create_sq(&h.c, &req), 0) << "SQ " << q;
    }
  }
  // a Read into slot @slot of I/O SQ @q, rung up to @slot + 1
  void submit_io(u16 q, u32 slot, u16 cid) {
    nvmev_sqe e{};
    e.dw[0] = 0x02 | (u32{cid} << 16);
    e.dw[1] = 1;
    std::memcpy(h.ram.data() + (4u + q) * kPage + slot * 64, &e, sizeof(e));
    wr(NVME_REG_DBS + 8 * q, slot + 1);
  }

  Host h;
  u64 sq_addr = 0;
};

// The polite host: enable, one command, and the controller runs it.
TEST_F(CtrlTest, EnableThenRing) {
  program_admin(0);
  wr(NVME_REG_CC, kCc);
  poll();
  ASSERT_EQ(rd(NVME_REG_CSTS) & NVME_CSTS_RDY, NVME_CSTS_RDY);
  write_cmd(0, 1);
  ring_admin(1);
  poll();
  EXPECT_EQ(h.admin_cids, std::vector<u16>({1}));
}

// A host that writes EN = 0, new admin queues, EN = 1 back to back and
// rings on the RDY = 1 of before. The worker polled between EN = 0 and
// EN = 1 (it reset), and next after the ring: that ring is the host's,
// not a stale one, and must run.
TEST_F(CtrlTest, RingAfterResetSeenBetweenDisableAndEnable) {
  enable_and_run(3);
  ASSERT_EQ(h.admin_cids.size(), 3u);

  wr(NVME_REG_CC, 0);
  poll();  // the reset, seen
  program_admin(2);
  wr(NVME_REG_CC, kCc);
  write_cmd(0, 9);
  ring_admin(1);
  poll();  // the enable, seen after the ring
  poll();
  ASSERT_EQ(rd(NVME_REG_CSTS) & NVME_CSTS_RDY, NVME_CSTS_RDY);
  EXPECT_EQ(h.admin_cids, std::vector<u16>({1, 2, 3, 9}));
}

// The same, with the new ring equal to the old tail: the new queue's slot
// is written, so the value is the new ring.
TEST_F(CtrlTest, RingEqualToOldTailOnNewQueues) {
  enable_and_run(1);
  wr(NVME_REG_CC, 0);
  poll();
  program_admin(2);
  wr(NVME_REG_CC, kCc);
  write_cmd(0, 9);
  ring_admin(1);
  poll();
  poll();
  EXPECT_EQ(h.admin_cids, std::vector<u16>({1, 9}));
}

// Linux's reset: EN = 0, wait for RDY = 0, the same admin queue memory
// (old commands still in its slots), EN = 1, wait for RDY = 1. The old
// tail left in the doorbell rings nothing: the old commands do not run
// again; the host's first ring afterwards runs its one command.
TEST_F(CtrlTest, PoliteResetOnSameQueuesRunsNothingStale) {
  enable_and_run(3);
  wr(NVME_REG_CC, 0);
  poll();
  ASSERT_EQ(rd(NVME_REG_CSTS) & NVME_CSTS_RDY, 0u);
  program_admin(0);
  wr(NVME_REG_CC, kCc);
  poll();
  ASSERT_EQ(rd(NVME_REG_CSTS) & NVME_CSTS_RDY, NVME_CSTS_RDY);
  poll();
  EXPECT_EQ(h.admin_cids.size(), 3u) << "old commands ran again";
  write_cmd(0, 7);
  ring_admin(1);
  poll();
  EXPECT_EQ(h.admin_cids, std::vector<u16>({1, 2, 3, 7}));
}

// A doorbell written while the controller is disabled, and seen so,
// rings nothing once it is enabled.
TEST_F(CtrlTest, DoorbellWrittenWhileDisabledRingsNothing) {
  program_admin(0);
  for (u16 cid = 1; cid <= 2; cid++) write_cmd(cid - 1, cid);
  ring_admin(2);
  poll();  // disabled: seen, and nothing to do
  wr(NVME_REG_CC, kCc);
  poll();
  poll();
  ASSERT_EQ(rd(NVME_REG_CSTS) & NVME_CSTS_RDY, NVME_CSTS_RDY);
  EXPECT_TRUE(h.admin_cids.empty());
}

// A host that goes on at the RDY = 1 of before rings its new admin queue
// at any moment of the controller's enable. A ring that lands between the
// controller's read of the stale doorbell and its clearing must survive:
// a plain write of 0 lost it, and the command never ran (the host timed
// out; seen by the guest's uhost cc-toggle case on the debug kernel).
TEST_F(CtrlTest, RingWhileClearingStaleTailAfterSeenReset) {
  enable_and_run(5);
  wr(NVME_REG_CC, 0);
  poll();  // the reset, seen
  program_admin(2);
  wr(NVME_REG_CC, kCc);
  write_cmd(0, 9);
  write_on_read = {true, NVME_REG_DBS, 1};  // the ring, mid-enable
  poll();
  poll();
  EXPECT_FALSE(write_on_read.armed) << "the controller never read the doorbell";
  EXPECT_EQ(h.admin_cids, std::vector<u16>({1, 2, 3, 4, 5, 9}));
}

// The same with EN 1 -> 0 -> 1 between two polls (the reset unseen).
TEST_F(CtrlTest, RingWhileClearingStaleTailAfterUnseenReset) {
  enable_and_run(5);
  wr(NVME_REG_CC, 0);
  program_admin(2);
  wr(NVME_REG_CC, kCc);
  write_cmd(0, 9);
  write_on_read = {true, NVME_REG_DBS, 1};
  poll();
  poll();
  EXPECT_FALSE(write_on_read.armed) << "the controller never read the doorbell";
  EXPECT_EQ(h.admin_cids, std::vector<u16>({1, 2, 3, 4, 5, 9}));
}

// Number of Queues has a default: a host that never sends Set Features
// creates I/O queues, before and after a reset, and Get Features'
// current value (the engine's count) is what it may create.
TEST_F(CtrlTest, IoQueuesWithoutSetFeatures) {
  enable_and_run(1);
  EXPECT_EQ(h.c.nr_io_queues, 4u);
  create_io_queues();
  wr(NVME_REG_CC, 0);
  poll();  // the reset
  EXPECT_EQ(h.c.nr_io_queues, 4u) << "reset to 0: no I/O queue can be created";
  program_admin(0);
  wr(NVME_REG_CC, kCc);
  poll();
  create_io_queues();
}

// Create I/O CQ and SQ refused when run, for what the controller holds:
// the field the Error Information log names (byte 40: CDW10 QID; byte 24:
// the queue's base, PRP1; byte 46: CDW11 CQID).
TEST_F(CtrlTest, CreateQueueNamesItsBadField) {
  enable_and_run(1);
  create_io_queues();
  nvmev_admin_req req{};
  req.qid = 1;
  req.prp1 = kRamBase + 7 * kPage;
  req.qsize = 8;
  EXPECT_EQ(nvmev_ctrl_create_cq(&h.c, &req), NVME_SC_QID_INVALID | NVME_STATUS_DNR) << "CQ 1 exists";
  EXPECT_EQ(req.error_loc, 40);
  req.qid = 2;
  req.prp1 = kRamBase + kRamPages * kPage;
  EXPECT_EQ(nvmev_ctrl_create_cq(&h.c, &req), NVME_SC_INVALID_FIELD | NVME_STATUS_DNR)
      << "a base outside host RAM";
  EXPECT_EQ(req.error_loc, 24);
  req.qid = 3;
  req.cqid = 2;
  req.prp1 = kRamBase + 7 * kPage;
  EXPECT_EQ(nvmev_ctrl_create_sq(&h.c, &req), NVME_SC_CQ_INVALID | NVME_STATUS_DNR) << "no CQ 2";
  EXPECT_EQ(req.error_loc, 46);
}

// An executor with no room for a command leaves it in its SQ: the SQ
// stops there for the pass, the other SQ is served, and the command runs,
// in order, once there is room.
TEST_F(CtrlTest, IoNotReadyStaysInItsSq) {
  enable_and_run(1);
  create_io_queues();
  h.sq1_full = true;
  submit_io(1, 0, 11);
  submit_io(1, 1, 12);
  submit_io(2, 0, 21);
  poll();
  poll();
  EXPECT_EQ(h.io_cids, (std::vector<std::pair<u16, u16>>{{2, 21}}));
  EXPECT_GE(h.c.stats.deferred, 2u);
  EXPECT_EQ(h.c.sqs[1].head, 0u) << "a deferred command was consumed";
  h.sq1_full = false;
  poll();
  EXPECT_EQ(h.io_cids, (std::vector<std::pair<u16, u16>>{{2, 21}, {1, 11}, {1, 12}}));
}

}  // namespace

extern "C" void nvmev_test_after_read(const void* bar, u32 off) {
  if (!write_on_read.armed || !g || bar != g->bar || off != write_on_read.off) return;
  write_on_read.armed = false;
  nvmev_wr32(g->bar, off, write_on_read.value);
}
