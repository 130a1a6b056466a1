// Cases about the controller as a whole: CC.EN toggles and bad CC values,
// Function Level Reset, shutdown, what unwritten and deallocated blocks
// read as, and huge Dataset Management / Write Zeroes commands next to
// other I/O.
#include <algorithm>
#include <atomic>
#include <sstream>
#include <thread>

#include "cases.h"
#include "verify.h"

namespace uhost {
namespace {

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

}  // namespace

void case_cc_toggle(CaseContext& c) {
  c.ctrl.bring_up(kCaseQueues);
  Expectations x;
  Controller& k = c.ctrl;
  CompletionQueue old_cq(c.pool, 1, 16, k.cq_doorbell(1));
  SubmissionQueue old_sq(c.pool, 1, 16, k.sq_doorbell(1));
  k.check(k.create_cq(1, old_cq.phys(), 16, false, 0), "Create I/O CQ 1");
  k.check(k.create_sq(1, old_sq.phys(), 16, 1), "Create I/O SQ 1");

  // Several rounds: a device that samples CC can see EN=0 by luck in
  // one round; it must get every round right.
  DmaBuf id = c.pool.alloc(kPageBytes);
  const uint32_t cc = k.cc();
  for (int round = 1; round <= 5 && x.ok(); round++) {
    const std::string r = "round " + std::to_string(round) + ": ";
    k.new_admin_queues();
    // back to back, so that a device that samples CC may never see EN=0:
    // it must still notice the reset (and the new admin queues)
    k.bar().write32(reg::CC, cc & ~cc::EN);
    k.program_admin_queues();
    k.write_cc(cc | cc::EN);
    x.expect(k.wait_csts(csts::RDY, csts::RDY, k.timeout_ms()), r + "CSTS.RDY did not become 1 within CAP.TO");
    try {
      x.expect_status(k.identify(admin::CNS_CTRL, 0, id), status::SUCCESS, r + "Identify on the new admin queues");
    } catch (const Timeout&) {
      // say whether the device lost our tail write: a re-enable that it
      // carried out after we rang zeroes the doorbells
      uint32_t db = *k.sq_doorbell(0);
      x.expect(false, r + "Identify on the new admin queues timed out (admin SQ tail doorbell reads " +
                          std::to_string(db) + (db ? ")" : ": the device reset it after the host rang)"));
    }
  }
  DmaBuf buf = c.pool.alloc(kPageBytes);
  Sqe r = rw_sqe(io::READ, 1, 0, lbas_per_block(k));
  r.set_prp1(buf.phys());
  old_sq.push(r);
  old_sq.ring();
  sleep_ms(200);
  x.expect(count_new(old_cq, 16) == 0, "the old I/O SQ's doorbell produced a completion");
  x.finish();
}

void case_cc_bad(CaseContext& c) {
  Controller& k = c.ctrl;
  k.bring_up(kCaseQueues);
  Expectations x;
  struct Bad {
    const char* name;
    uint32_t cc;
  };
  const uint32_t good = cc::standard();
  std::vector<Bad> bad = {{"IOSQES=0", good & ~cc::iosqes(0xf)}, {"IOCQES=0", good & ~cc::iocqes(0xf)}};
  if (cap_ams(k.info().cap) == 0) bad.push_back({"AMS=1", good | cc::ams(1)});
  for (const Bad& b : bad) {
    k.disable();
    k.setup_admin_queues();
    k.write_cc(b.cc | cc::EN);
    // CFS is the answer; RDY means the controller took the bad value
    k.wait_csts(csts::CFS | csts::RDY, csts::CFS, k.timeout_ms());
    uint32_t s = k.bar().read32(reg::CSTS);
    x.expect((s & csts::CFS) && !(s & csts::RDY),
             std::string("enable with ") + b.name + ": CSTS=" + hex(s) + ", want CFS=1 RDY=0");
    k.write_cc(0);
    x.expect(k.wait_csts(~0u, 0, k.timeout_ms()),
             std::string("after ") + b.name + ", EN=0 left CSTS=" + hex(k.bar().read32(reg::CSTS)));
  }
  expect_working(x, k, "a correct enable afterwards", true);
  x.finish();
}

void case_flr(CaseContext& c) {
  Controller& k = c.ctrl;
  Expectations x;
  if (c.phase == "before" || c.phase == "all") {
    c.note(std::string("FLR advertised in DEVCAP: ") + (c.pci.flr_capable() ? "yes" : "no"));
    k.bring_up(kCaseQueues);
    verified_io(k, 1, 0);
    // leave the controller enabled with an I/O queue pair, as the reset finds it
    CompletionQueue* cq = new CompletionQueue(c.pool, 1, 16, k.cq_doorbell(1));
    k.check(k.create_cq(1, cq->phys(), 16, false, 0), "Create I/O CQ 1");
    if (c.phase == "before") return;  // the memory stays with the (exiting) process
    c.pci.reset();
  }
  uint32_t cc = k.bar().read32(reg::CC), s = k.bar().read32(reg::CSTS);
  x.expect(cc == 0, "CC=" + hex(cc) + " after the reset, want 0");
  x.expect(!(s & csts::RDY), "CSTS=" + hex(s) + " after the reset, want RDY=0");
  c.pci.set_bus_master(true);
  expect_working(x, k, "bring-up after the reset", true);
  x.finish();
}

void case_shutdown(CaseContext& c) {
  c.ctrl.bring_up(kCaseQueues);
  verified_io(c.ctrl, 1, 0);
  uint64_t t0 = now_ns();
  c.ctrl.shutdown();  // throws unless SHST becomes 10b within CAP.TO
  c.note("CSTS.SHST=10b after " + std::to_string((now_ns() - t0) / 1000) + " us");
}

void case_zero_read(CaseContext& c) {
  Controller& k = c.ctrl;
  k.bring_up(kCaseQueues);
  Expectations x;
  IoQueuePair q(k, 1, 16);
  const uint32_t per = lbas_per_block(k), blocks = 4;
  const uint64_t nblocks = k.info().nsze / per;
  DmaBuf buf = c.pool.alloc(blocks * kVerifyBlock);
  auto read_zero = [&](uint64_t block, const std::string& what) {
    std::memset(buf.data(), 0xee, buf.size());
    Cqe e = q.read(block * per, blocks * per, buf.data());
    x.expect_status(e, status::SUCCESS, what + ": read");
    x.expect(all_zero(buf.data(), buf.size()), what + ": not zeroes");
  };
  auto write_pattern = [&](uint64_t block) {
    for (uint32_t i = 0; i < blocks; i++) fill_block(buf.data() + i * kVerifyBlock, block + i, 9, 1);
    k.check(q.write(block * per, blocks * per, buf.data()), "Write");
  };
  read_zero(nblocks / 2, "never-written blocks in the middle");
  read_zero(nblocks - blocks, "never-written blocks at the end");
  if (c.lba >= 0) {
    std::memset(buf.data(), 0xee, kVerifyBlock);
    x.expect_status(q.read(uint64_t(c.lba), per, buf.data()), status::SUCCESS, "read of LBA " + std::to_string(c.lba));
    x.expect(all_zero(buf.data(), kVerifyBlock), "LBA " + std::to_string(c.lba) + " written before the reload: not zeroes");
  }

  const uint64_t d = nblocks / 4;
  write_pattern(d);
  x.expect_status(q.deallocate(d * per, blocks * per), status::SUCCESS, "Deallocate");
  read_zero(d, "deallocated blocks");

  const uint64_t z = nblocks / 4 + 64;
  write_pattern(z);
  x.expect_status(q.write_zeroes(z * per, blocks * per), status::SUCCESS, "Write Zeroes");
  x.expect_status(q.flush(), status::SUCCESS, "Flush");
  read_zero(z, "blocks after Write Zeroes");
  x.finish();
}

namespace {

// Run @cmd, which names @span bytes of LBAs, on queue 1 while a thread
// reads 4 KiB at QD1 on queue 2; expects success within 30 s and the
// reads served meanwhile. A controller that does the command in one pass
// completes only the read it held while the command is out, and holds it
// about all along; one that slices it serves reads between slices. So: a
// command of more than kFewSlices that takes 100 ms or more has at least
// 3 reads completed beside it, and no read waited 100 ms or more while
// the command was out, unless that is under half the command's time or
// under 4 times the worst of the same reads alone over as long a window
// right after the command (a busy host stretches every read: a debug
// kernel beside another guest read at worst 164 ms in an 877 ms DSM, and
// 93 ms in a 156 ms one; a read stalled before the command began counts
// only from its start). A shorter command is a slice or two, however long
// a slow host makes them (a debug kernel beside two busy guests took
// 173 ms for a 32 MiB Write Zeroes): a read may wait for all of it.
// Returns false if the command did not complete (the controller is then
// abandoned: it is stuck).
constexpr uint64_t kFewSlices = 64ull << 20;

bool big_command_beside_reads(CaseContext& c, Expectations& x, const std::string& what, const Sqe& cmd,
                              uint64_t span, void* data, size_t len) {
  Controller& k = c.ctrl;
  IoQueuePair q(k, 1, 4), reads(k, 2, 4);
  DmaBuf rbuf = c.pool.alloc(kPageBytes);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> start{0}, end{0}, alone_from{0};
  uint64_t worst = 0, during = 0, stuck_since = 0, worst_alone = 0;
  std::string read_error;
  std::thread reader([&] {
    uint32_t per = lbas_per_block(k);
    uint64_t blocks = k.info().nsze / per, i = 0;
    std::vector<Completion> done;
    while (!stop) {
      uint64_t t0 = now_ns();
      if (!reads.submit(rw_sqe(io::READ, 1, (i++ * 7919 % blocks) * per, per), rbuf.data(), kPageBytes, 0)) {
        read_error = "read queue full";
        return;
      }
      done.clear();
      while (done.empty() && !stop) reads.poll(done);
      if (done.empty()) {  // still out when the command ended: as slow as that
        stuck_since = t0;
        return;
      }
      uint64_t t1 = now_ns();
      if (!done[0].cqe.ok()) read_error = status_name(done[0].cqe);
      // a read overlaps the command if it ran while the command was out;
      // what counts is how long it waited while the command was out (a
      // read a busy host stalled before the command began is not its doing)
      uint64_t s = start, e = end;
      if (s && t1 > s && (!e || t0 < e)) {
        during++;
        worst = std::max(worst, (e ? std::min(t1, e) : t1) - std::max(t0, s));
      }
      if (alone_from && t0 >= alone_from) worst_alone = std::max(worst_alone, t1 - t0);
    }
  });
  sleep_ms(50);
  start = now_ns();
  Cqe e;
  bool done = false;
  try {
    e = q.run(cmd, data, len, 30000);
    done = true;
  } catch (const Timeout&) {
  }
  end = now_ns();
  sleep_ms(20);
  // the control: the same reads alone, as long as the command took
  alone_from = now_ns();
  sleep_ms(std::clamp<uint64_t>((end - start) / 1000000, 50, 2000));
  stop = true;
  reader.join();
  // a read still out at the stop counts only if it began while the
  // command ran (one begun after it ended is not "meanwhile")
  if (stuck_since && stuck_since < end)
    worst = std::max(worst, end - std::max<uint64_t>(stuck_since, start));
  uint64_t took = end - start;
  c.note(what + ": " + std::to_string(took / 1000) + " us, " + std::to_string(during) +
         " reads meanwhile, worst " + std::to_string(worst / 1000) + " us (alone after: worst " +
         std::to_string(worst_alone / 1000) + " us)");
  x.expect(done, what + " did not complete within 30 s");
  if (done) x.expect_status(e, status::SUCCESS, what);
  x.expect(read_error.empty(), what + ": reads on the other queue: " + read_error);
  bool sliced = span > kFewSlices;
  x.expect(!sliced || during >= 3 || took < 100000000ull,
           what + ": " + std::to_string(during) + " reads completed during its " +
               std::to_string(took / 1000) + " us: the other queue was not served");
  x.expect(!sliced || worst < 100000000ull || worst < took / 2 || worst < 4 * worst_alone,
           what + ": worst read latency meanwhile " + std::to_string(worst / 1000) +
               " us, >= 100 ms, >= half the command's " + std::to_string(took / 1000) +
               " us and >= 4 times the worst alone " + std::to_string(worst_alone / 1000) + " us");
  if (!done) k.abandon();
  return done;
}

}  // namespace

void case_dsm_big(CaseContext& c) {
  Controller& k = c.ctrl;
  k.bring_up(kCaseQueues);
  Expectations x;
  const uint64_t nsze = k.info().nsze;
  uint32_t dmrl = 0, dmrsl = 0, wzsl = 0;
  DmaBuf id = c.pool.alloc(kPageBytes);
  Cqe e = k.identify(admin::CNS_CTRL_CSI, 0, id, 0 /* CSI 0: NVM */);
  if (e.ok()) {
    wzsl = id.data()[1];
    dmrl = id.data()[3];
    std::memcpy(&dmrsl, id.data() + 4, 4);
  }
  c.note("Identify CNS 06h: " + status_name(e) + ", DMRL " + std::to_string(dmrl) + ", DMRSL " +
         std::to_string(dmrsl) + ", WZSL " + std::to_string(wzsl));
  uint32_t nr = dmrl ? std::min<uint32_t>(256, dmrl) : 256;
  uint64_t len = std::min<uint64_t>(nsze, 0xffffffffull);
  if (dmrsl) len = std::min<uint64_t>(len, dmrsl);
  DmaBuf ranges = c.pool.alloc(kPageBytes);
  for (uint32_t i = 0; i < nr; i++) {
    uint64_t slba = len < nsze ? (i * len) % (nsze - len + 1) : 0;
    put_dsm_range(ranges.data(), i, slba, uint32_t(len));
  }
  Sqe dsm = dsm_sqe(1, nr, true);
  if (!big_command_beside_reads(c, x, "DSM of " + std::to_string(nr) + " ranges of " + std::to_string(len) + " LBAs",
                                dsm, uint64_t(nr) * len * k.info().lba_bytes, ranges.data(),
                                nr * io::DSM_RANGE_BYTES)) {
    c.note("Write Zeroes skipped: the controller is stuck in the DSM");
    x.finish();
  }

  uint64_t wz = std::min<uint64_t>(nsze, 65536);  // NLB is 16 bits
  if (wzsl) wz = std::min<uint64_t>(wz, (uint64_t(kPageBytes) << wzsl) / k.info().lba_bytes);
  big_command_beside_reads(c, x, "Write Zeroes of " + std::to_string(wz) + " LBAs",
                           rw_sqe(io::WRITE_ZEROES, 1, 0, uint32_t(wz)), wz * k.info().lba_bytes, nullptr, 0);
  x.finish();
}

}  // namespace uhost
