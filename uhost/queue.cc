#include "queue.h"

#include <time.h>

#include <algorithm>
#include <thread>

#include "controller.h"
#include "error.h"
#include "prp.h"

namespace uhost {

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

SubmissionQueue::SubmissionQueue(DmaPool& pool, uint16_t qid, uint32_t entries,
                                 volatile uint32_t* doorbell)
    : mem_(pool.alloc(size_t(entries) * sizeof(Sqe), true)),
      qid_(qid),
      ring_(entries),
      doorbell_(doorbell) {}

void SubmissionQueue::push(const Sqe& e) {
  if (ring_.full()) throw Error("submission queue " + std::to_string(qid_) + " is full");
  uint32_t slot = ring_.advance();
  std::memcpy(mem_.data() + size_t(slot) * sizeof(Sqe), &e, sizeof(e));
}

void SubmissionQueue::ring() {
  // the entries must be in memory before the controller reads the tail
  std::atomic_thread_fence(std::memory_order_release);
  *doorbell_ = ring_.tail();
}

CompletionQueue::CompletionQueue(DmaPool& pool, uint16_t qid, uint32_t entries,
                                 volatile uint32_t* doorbell)
    : mem_(pool.alloc(size_t(entries) * sizeof(Cqe), true)),
      qid_(qid),
      ring_(entries),
      doorbell_(doorbell) {}

Cqe CompletionQueue::slot(uint32_t i) const {
  Cqe e;
  const volatile uint32_t* src = reinterpret_cast<volatile uint32_t*>(mem_.data() + i * sizeof(Cqe));
  uint32_t dw[4];
  // the dword with the phase tag first: the rest is valid only after it
  dw[3] = src[3];
  std::atomic_thread_fence(std::memory_order_acquire);
  dw[0] = src[0];
  dw[1] = src[1];
  dw[2] = src[2];
  std::memcpy(&e, dw, sizeof(e));
  return e;
}

bool CompletionQueue::peek(Cqe* out) const {
  const volatile uint32_t* status =
      reinterpret_cast<volatile uint32_t*>(mem_.data() + ring_.head() * sizeof(Cqe)) + 3;
  if (!ring_.is_new((*status >> 16) & 1)) return false;
  *out = slot(ring_.head());
  return true;
}

void CompletionQueue::ring_head() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *doorbell_ = ring_.head();
}

IoQueuePair::IoQueuePair(Controller& ctrl, uint16_t qid, uint32_t entries)
    : ctrl_(ctrl),
      qid_(qid),
      entries_(entries),
      prp_lists_(ctrl.pool().alloc(size_t(entries) * kPageBytes)) {
  if (entries < 2 || entries > ctrl.max_queue_entries())
    throw UsageError("queue size " + std::to_string(entries) + " outside 2.." +
                     std::to_string(ctrl.max_queue_entries()) + " (CAP.MQES)");
  create();
  ctrl_.register_queue(this);
}

IoQueuePair::~IoQueuePair() {
  ctrl_.unregister_queue(this);
  try {
    if (ctrl_.ready()) {
      ctrl_.delete_sq(qid_);
      ctrl_.delete_cq(qid_);
    }
  } catch (const std::exception&) {
    // a dead controller keeps its queues; nothing to give back
  }
}

void IoQueuePair::create() {
  cq_ = std::make_unique<CompletionQueue>(ctrl_.pool(), qid_, entries_, ctrl_.cq_doorbell(qid_));
  sq_ = std::make_unique<SubmissionQueue>(ctrl_.pool(), qid_, entries_, ctrl_.sq_doorbell(qid_));
  ctrl_.check(ctrl_.create_cq(qid_, cq_->phys(), entries_, false, 0),
              "Create I/O CQ " + std::to_string(qid_));
  ctrl_.check(ctrl_.create_sq(qid_, sq_->phys(), entries_, qid_),
              "Create I/O SQ " + std::to_string(qid_));
  slots_.assign(entries_, Slot{});
  free_.clear();
  // CIDs 0..entries-2: at most entries-1 commands fit in the SQ
  for (uint32_t c = entries_ - 1; c-- > 0;) free_.push_back(uint16_t(c));
}

uint32_t IoQueuePair::recreate() {
  uint32_t lost = outstanding();
  create();
  return lost;
}

bool IoQueuePair::submit(Sqe cmd, void* data, size_t len, uint64_t tag, bool ring) {
  if (free_.empty() || sq_->full()) return false;
  uint16_t cid = free_.back();
  cmd.set_cid(cid);
  if (data && len) {
    DmaPool& pool = ctrl_.pool();
    uint8_t* page0 = reinterpret_cast<uint8_t*>(uintptr_t(data) & ~uintptr_t(kPageBytes - 1));
    uint8_t* list = prp_lists_.data() + size_t(cid) * kPageBytes;
    Prps p = build_prps(
        pool.phys(data), len, [&](size_t i) { return pool.phys(page0 + i * kPageBytes); },
        reinterpret_cast<uint64_t*>(list), prp_lists_.phys(size_t(cid) * kPageBytes));
    cmd.set_prp1(p.prp1);
    cmd.set_prp2(p.prp2);
  }
  free_.pop_back();
  slots_[cid] = Slot{tag, now_ns(), true};
  sq_->push(cmd);
  if (ring) sq_->ring();
  return true;
}

size_t IoQueuePair::poll(std::vector<Completion>& out) {
  size_t n = 0;
  Cqe e;
  while (cq_->peek(&e)) {
    cq_->pop();
    sq_->set_head(e.sq_head);
    if (e.cid < slots_.size() && slots_[e.cid].busy) {
      Slot& s = slots_[e.cid];
      out.push_back({s.tag, e, now_ns() - s.submit_ns});
      s.busy = false;
      free_.push_back(e.cid);
      n++;
    }
    // a CID we did not submit (or a second completion of one) is dropped
  }
  if (n) cq_->ring_head();
  return n;
}

uint64_t IoQueuePair::oldest_age_ns() const {
  uint64_t oldest = 0, now = now_ns();
  for (const Slot& s : slots_)
    if (s.busy) oldest = std::max(oldest, now - s.submit_ns);
  return oldest;
}

Cqe IoQueuePair::run(const Sqe& cmd, void* data, size_t len, int timeout_ms) {
  static constexpr uint64_t kSyncTag = ~0ull;
  if (!submit(cmd, data, len, kSyncTag)) throw Error("queue " + std::to_string(qid_) + " full");
  std::vector<Completion> done;
  uint64_t deadline = now_ns() + uint64_t(timeout_ms) * 1000000;
  while (true) {
    done.clear();
    poll(done);
    for (const Completion& c : done)
      if (c.tag == kSyncTag) return c.cqe;
    if (now_ns() > deadline) {
      ctrl_.check_alive();
      throw Timeout("I/O command (opcode " + std::to_string(cmd.opcode()) + ") on queue " +
                    std::to_string(qid_) + " timed out after " + std::to_string(timeout_ms) +
                    " ms");
    }
    std::this_thread::yield();
  }
}

Cqe IoQueuePair::read(uint64_t lba, uint32_t nlb, void* buf, int timeout_ms) {
  return run(rw_sqe(io::READ, 1, lba, nlb), buf, size_t(nlb) * ctrl_.info().lba_bytes, timeout_ms);
}

Cqe IoQueuePair::write(uint64_t lba, uint32_t nlb, void* buf, int timeout_ms) {
  return run(rw_sqe(io::WRITE, 1, lba, nlb), buf, size_t(nlb) * ctrl_.info().lba_bytes,
             timeout_ms);
}

Cqe IoQueuePair::flush(int timeout_ms) {
  Sqe s;
  s.set_opcode(io::FLUSH);
  s.dw[1] = 1;
  return run(s, nullptr, 0, timeout_ms);
}

Cqe IoQueuePair::write_zeroes(uint64_t lba, uint32_t nlb, int timeout_ms) {
  return run(rw_sqe(io::WRITE_ZEROES, 1, lba, nlb), nullptr, 0, timeout_ms);
}

Cqe IoQueuePair::deallocate(uint64_t lba, uint32_t nlb, int timeout_ms) {
  DmaBuf ranges = ctrl_.pool().alloc(kPageBytes);
  put_dsm_range(ranges.data(), 0, lba, nlb);
  return run(dsm_sqe(1, 1, true), ranges.data(), io::DSM_RANGE_BYTES, timeout_ms);
}

}  // namespace uhost
