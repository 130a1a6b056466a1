// Cases about queues and commands: interrupt vectors, PRPs into memory
// that is not host RAM, Set Features after queue creation, Bus Master
// Enable, deleting an SQ with commands in flight, a full CQ, the memory
// under a live ring going offline.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "cases.h"
#include "verify.h"

namespace uhost {
namespace {

// An I/O CQ and SQs on it, made through raw admin commands, so a case
// controls sizes and sharing and sees every slot.
struct RawQueues {
  RawQueues(CaseContext& c, uint32_t cq_entries) : ctx(c) {
    cq = std::make_unique<CompletionQueue>(c.pool, 1, cq_entries, c.ctrl.cq_doorbell(1));
    c.ctrl.check(c.ctrl.create_cq(1, cq->phys(), cq_entries, false, 0), "Create I/O CQ 1");
  }
  SubmissionQueue& add_sq(uint16_t qid, uint32_t entries) {
    sqs.push_back(std::make_unique<SubmissionQueue>(ctx.pool, qid, entries, ctx.ctrl.sq_doorbell(qid)));
    ctx.ctrl.check(ctx.ctrl.create_sq(qid, sqs.back()->phys(), entries, 1),
                   "Create I/O SQ " + std::to_string(qid));
    return *sqs.back();
  }
  // delete what the controller still has (best effort: a case may have deleted some)
  void remove() {
    for (auto& sq : sqs) ctx.ctrl.delete_sq(sq->qid());
    ctx.ctrl.delete_cq(1);
  }
  CaseContext& ctx;
  std::unique_ptr<CompletionQueue> cq;
  std::vector<std::unique_ptr<SubmissionQueue>> sqs;
};

Sqe read_4k(const Controller& c, uint64_t block, uint16_t cid, uint64_t prp1) {
  uint32_t per = lbas_per_block(c);
  Sqe s = rw_sqe(io::READ, 1, block * per, per);
  s.set_cid(cid);
  s.set_prp1(prp1);
  return s;
}

}  // namespace

void case_vector(CaseContext& c) {
  c.ctrl.bring_up(kCaseQueues);
  Expectations x;
  struct Bad {
    bool ien;
    uint16_t iv;
  };
  for (Bad b : {Bad{false, 0x4000}, Bad{false, 0xffff}, Bad{true, 65}}) {
    CompletionQueue cq(c.pool, 1, 16, c.ctrl.cq_doorbell(1));
    Cqe e = c.ctrl.create_cq(1, cq.phys(), 16, b.ien, b.iv);
    x.expect_status(e, status::INVALID_VECTOR,
                    "Create I/O CQ IEN=" + std::to_string(b.ien) + " IV=" + std::to_string(b.iv));
    if (e.ok()) c.ctrl.delete_cq(1);
  }
  verified_io(c.ctrl, 1, 0);  // IEN=0 IV=0, polled
  x.finish();
}

void case_bad_prp(CaseContext& c) {
  if (!c.addr) throw UsageError("case bad-prp needs --addr PHYS");
  c.ctrl.bring_up(kCaseQueues);
  Expectations x;
  const uint64_t a = c.addr;
  uint32_t per = lbas_per_block(c.ctrl);
  IoQueuePair q(c.ctrl, 1, 16);
  DmaBuf buf = c.pool.alloc(3 * kPageBytes);

  Sqe w = rw_sqe(io::WRITE, 1, 0, per);
  w.set_prp1(a);
  x.expect_status(q.run(w, nullptr, 0), status::DATA_XFER_ERROR, "Write with PRP1 at the address");
  // the list pointer is tried with a write: a device that follows it
  // anyway then reads, rather than writes, wherever the entries point.
  // Blocks 0-2 hold data first: a write that fails keeps them as they
  // were, even the block its good PRP1 names.
  DmaBuf old = c.pool.alloc(3 * kPageBytes), back = c.pool.alloc(3 * kPageBytes);
  for (uint64_t b = 0; b < 3; b++) fill_block(old.data() + b * kPageBytes, b, 91, 1);
  c.ctrl.check(q.write(0, 3 * per, old.data()), "Write of blocks 0-2");
  std::memset(buf.data(), 0x5a, 3 * kPageBytes);
  Sqe wl = rw_sqe(io::WRITE, 1, 0, 3 * per);
  wl.set_prp1(buf.phys());
  wl.set_prp2(a);
  x.expect_status(q.run(wl, nullptr, 0), status::DATA_XFER_ERROR, "Write with the PRP list at the address");
  c.ctrl.check(q.read(0, 3 * per, back.data()), "Read of blocks 0-2");
  x.expect(std::memcmp(back.data(), old.data(), 3 * kPageBytes) == 0,
           "the failed write changed blocks 0-2");

  Cqe e = c.ctrl.create_cq(2, a, 16, false, 0);
  x.expect_status(e, status::INVALID_FIELD, "Create I/O CQ at the address");
  if (e.ok()) c.ctrl.delete_cq(2);
  CompletionQueue cq(c.pool, 2, 16, c.ctrl.cq_doorbell(2));
  c.ctrl.check(c.ctrl.create_cq(2, cq.phys(), 16, false, 0), "Create I/O CQ 2");
  x.expect_status(c.ctrl.create_sq(2, a, 16, 2), status::INVALID_FIELD, "Create I/O SQ at the address");
  c.ctrl.delete_sq(2);  // in case it was created
  c.ctrl.delete_cq(2);

  // Last, as it is the one that can hurt: a device that transfers anyway
  // writes a block there. When the address is our own BAR, the block holds
  // what the registers hold now, so such a write changes nothing.
  Bar& bar = c.ctrl.bar();
  if (a == c.pci.bar0_phys()) {
    for (uint32_t off = 0; off < kPageBytes; off += 4)
      *reinterpret_cast<uint32_t*>(buf.data() + off) = bar.read32(off);
    c.ctrl.check(q.write(8 * per, per, buf.data()), "Write of the register image");
  }
  Sqe r = rw_sqe(io::READ, 1, (a == c.pci.bar0_phys() ? 8 : 16) * per, per);
  r.set_prp1(a);
  x.expect_status(q.run(r, nullptr, 0), status::DATA_XFER_ERROR, "Read with PRP1 at the address");
  expect_working(x, c.ctrl, "afterwards", false, 2, 32 * per);
  x.finish();
}

void case_numq_after_create(CaseContext& c) {
  c.ctrl.bring_up(kCaseQueues);
  Expectations x;
  x.expect_status(c.ctrl.set_num_queues(kCaseQueues), status::SUCCESS,
                  "Set Features Number of Queues before any I/O queue");
  CompletionQueue cq(c.pool, 1, 16, c.ctrl.cq_doorbell(1));
  c.ctrl.check(c.ctrl.create_cq(1, cq.phys(), 16, false, 0), "Create I/O CQ 1");
  x.expect_status(c.ctrl.set_num_queues(kCaseQueues), status::COMMAND_SEQUENCE,
                  "Set Features Number of Queues after Create I/O CQ");
  c.ctrl.delete_cq(1);
  x.finish();
}

void case_bme(CaseContext& c) {
  c.ctrl.bring_up(kCaseQueues);
  Expectations x;
  uint32_t per = lbas_per_block(c.ctrl);
  IoQueuePair q(c.ctrl, 1, 16);
  DmaBuf data = c.pool.alloc(kPageBytes), buf = c.pool.alloc(kPageBytes);
  fill_block(data.data(), 5, 77, 1);
  c.ctrl.check(q.write(5 * per, per, data.data()), "Write");
  std::memset(buf.data(), 0xa5, kPageBytes);

  struct BusMasterOn {  // whatever happens, the device gets BME back
    PciFunction& p;
    ~BusMasterOn() { p.set_bus_master(true); }
  } restore{c.pci};
  c.pci.set_bus_master(false);
  x.expect(q.submit(rw_sqe(io::READ, 1, 5 * per, per), buf.data(), kPageBytes, 1), "submit");
  std::vector<Completion> done;
  uint64_t end = now_ns() + 200000000ull;
  while (now_ns() < end) q.poll(done);
  x.expect(done.empty(), "a read completed with Bus Master Enable clear");
  bool untouched = true;
  for (uint32_t i = 0; i < kPageBytes; i++) untouched &= buf.data()[i] == 0xa5;
  x.expect(untouched, "the buffer changed with Bus Master Enable clear");

  c.pci.set_bus_master(true);
  end = now_ns() + 10000000000ull;
  while (done.empty() && now_ns() < end) q.poll(done);
  x.expect(!done.empty(), "no completion within 10 s after Bus Master Enable was set again");
  if (!done.empty()) {
    x.expect_status(done[0].cqe, status::SUCCESS, "the read");
    x.expect(std::memcmp(buf.data(), data.data(), kPageBytes) == 0, "the read returned wrong data");
  }
  x.finish();
}

void case_delete_sq_inflight(CaseContext& c) {
  c.ctrl.bring_up(kCaseQueues);
  Expectations x;
  constexpr uint16_t n = 32;
  DmaBuf bufs = c.pool.alloc(n * kPageBytes);
  uint64_t t32;
  {  // the modelled time of 32 reads, on another queue
    IoQueuePair probe(c.ctrl, 2, 64);
    uint64_t t0 = now_ns();
    for (uint16_t i = 0; i < n; i++)
      probe.submit(read_4k(c.ctrl, i, 0, 0), bufs.data() + i * kPageBytes, kPageBytes, i);
    std::vector<Completion> done;
    while (done.size() < n && now_ns() - t0 < 20000000000ull) probe.poll(done);
    t32 = now_ns() - t0;
    x.expect(done.size() == n, "the 32 probe reads did not complete");
  }
  uint32_t wait_ms = uint32_t(std::max<uint64_t>(3 * t32 / 1000000, 300));
  c.note("32 reads take " + std::to_string(t32 / 1000) + " us; waiting " + std::to_string(wait_ms) + " ms");

  // Round 1 deletes at once (a device may take the admin command before
  // it fetches the reads); round 2 a quarter of the reads' time later,
  // with the reads fetched and in flight inside the device.
  for (uint64_t delay_us : {uint64_t(0), t32 / 4000}) {
    const std::string round = delay_us ? "in flight: " : "at once: ";
    RawQueues rq(c, 64);
    SubmissionQueue& sq = rq.add_sq(1, 64);
    for (uint16_t i = 0; i < n; i++) sq.push(read_4k(c.ctrl, 100 + i, i, bufs.phys(i * kPageBytes)));
    sq.ring();
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    x.expect_status(c.ctrl.delete_sq(1), status::SUCCESS, round + "Delete I/O SQ 1");
    uint32_t at_delete = count_new(*rq.cq, n + 1);
    sleep_ms(wait_ms);
    uint32_t later = count_new(*rq.cq, n + 1);
    c.note(round + std::to_string(at_delete) + " of 32 completed before Delete SQ completed");
    x.expect(later == at_delete, round + std::to_string(later - at_delete) +
                                     " completions were posted after Delete SQ completed");
    std::set<uint16_t> seen;
    for (uint32_t i = 0; i < later; i++) {
      Cqe e = rq.cq->slot(i);
      x.expect(e.cid < n && seen.insert(e.cid).second, round + "CID " + std::to_string(e.cid) + " unknown or twice");
      x.expect(e.ok() || e.status() == status::ABORTED_SQ_DELETION,
               round + "CID " + std::to_string(e.cid) + ": " + status_name(e));
    }
    x.expect_status(c.ctrl.delete_cq(1), status::SUCCESS, round + "Delete I/O CQ 1");

    // same ids, fresh zeroed memory: nothing of the old SQ may show up here
    RawQueues fresh(c, 64);
    fresh.add_sq(1, 64);
    sleep_ms(wait_ms);
    uint32_t stale = count_new(*fresh.cq, 64);
    x.expect(stale == 0, round + std::to_string(stale) + " stale completions in the re-created CQ 1");
    fresh.remove();
  }
  expect_working(x, c.ctrl, "afterwards", false);
  x.finish();
}

namespace {

// @sqs SQs of 64 entries sharing a CQ of 4 (3 usable), 32 reads each
void cq_full(CaseContext& c, uint16_t nsq) {
  c.ctrl.bring_up(kCaseQueues);
  Expectations x;
  constexpr uint16_t per_sq = 32;
  RawQueues rq(c, 4);
  DmaBuf bufs = c.pool.alloc(nsq * per_sq * kPageBytes);
  for (uint16_t s = 0; s < nsq; s++) {
    SubmissionQueue& sq = rq.add_sq(uint16_t(s + 1), 64);
    for (uint16_t i = 0; i < per_sq; i++) {
      uint32_t k = s * per_sq + i;
      sq.push(read_4k(c.ctrl, k, i, bufs.phys(k * kPageBytes)));
    }
  }
  for (auto& sq : rq.sqs) sq->ring();
  sleep_ms(300);  // the head doorbell stays at 0 all this time
  uint32_t valid = 0;
  for (uint32_t i = 0; i < 4; i++) valid += rq.cq->slot(i).phase();
  Cqe tail = rq.cq->slot(3);
  x.expect(valid == 3, std::to_string(valid) + " valid entries in a CQ of 4 after 300 ms, want 3");
  x.expect(!tail.sf && !tail.cid && !tail.sq_id && !tail.result, "the slot at the tail was written");

  std::set<std::pair<uint16_t, uint16_t>> seen;
  uint32_t total = nsq * per_sq, dups = 0;
  uint64_t end = now_ns() + 20000000000ull;
  Cqe e;
  while (seen.size() + dups < total && now_ns() < end) {
    if (!rq.cq->peek(&e)) continue;
    rq.cq->pop();
    rq.cq->ring_head();  // one at a time
    if (e.sq_id >= 1 && e.sq_id <= nsq) rq.sqs[e.sq_id - 1]->set_head(e.sq_head);
    if (!seen.insert({e.sq_id, e.cid}).second) dups++;
    if (!e.ok()) x.expect(false, "SQ " + std::to_string(e.sq_id) + " CID " + std::to_string(e.cid) + ": " + status_name(e));
  }
  sleep_ms(200);  // anything more is a duplicate
  while (rq.cq->peek(&e)) {
    rq.cq->pop();
    rq.cq->ring_head();
    dups++;
  }
  x.expect(seen.size() == total, std::to_string(seen.size()) + " of " + std::to_string(total) + " commands completed");
  x.expect(dups == 0, std::to_string(dups) + " duplicate completions");
  rq.remove();
  x.finish();
}

}  // namespace

void case_cq_full(CaseContext& c) { cq_full(c, 1); }
void case_cq_full_shared(CaseContext& c) { cq_full(c, 2); }

// The memory block under a live SQ ring may not go offline: the kernel
// would migrate the hugepage the ring lives in, and the controller, which
// checked the ring's address once at Create, would go on with the old
// page. Offlining it must fail (EBUSY); the queue works after.
void case_offline_ring(CaseContext& c) {
  Controller& k = c.ctrl;
  k.bring_up(kCaseQueues);
  CompletionQueue cq(c.pool, 1, 16, k.cq_doorbell(1));
  SubmissionQueue sq(c.pool, 1, 16, k.sq_doorbell(1));
  k.check(k.create_cq(1, cq.phys(), 16, false, 0), "Create I/O CQ 1");
  k.check(k.create_sq(1, sq.phys(), 16, 1), "Create I/O SQ 1");
  std::ifstream bsf("/sys/devices/system/memory/block_size_bytes");
  std::string bs_text;
  if (!(bsf >> bs_text)) throw CaseFail("no /sys/devices/system/memory/block_size_bytes");
  const uint64_t block = sq.phys() / std::stoull(bs_text, nullptr, 16);
  const std::string state = "/sys/devices/system/memory/memory" + std::to_string(block) + "/state";
  std::ostringstream at;
  at << "SQ 1's ring at 0x" << std::hex << sq.phys() << std::dec << ", in memory block " << block;
  c.note(at.str());
  int fd = ::open(state.c_str(), O_WRONLY);
  if (fd < 0) throw CaseFail(state + ": " + std::strerror(errno));
  const bool offlined = ::write(fd, "offline", 7) == 7;
  const int err = errno;
  if (offlined) {
    // give the block back before failing: the rest of the run needs it
    if (::write(fd, "online", 6) != 6) c.note("could not online memory block " + std::to_string(block));
    ::close(fd);
    throw CaseFail("memory block " + std::to_string(block) + " went offline under a live SQ ring");
  }
  ::close(fd);
  c.note(std::string("offline refused: ") + std::strerror(err));
  if (err != EBUSY) throw CaseFail(std::string("offline failed, but not with EBUSY: ") + std::strerror(err));
  k.check(k.delete_sq(1), "Delete I/O SQ 1");
  k.check(k.delete_cq(1), "Delete I/O CQ 1");
  verified_io(k, 2, 0);
}

}  // namespace uhost
