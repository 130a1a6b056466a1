// Submission and completion queues in DMA memory, and an I/O queue pair
// with command ids, PRP lists and submit-to-completion latencies.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "dma.h"
#include "ring.h"
#include "spec.h"

namespace uhost {

class Controller;

class SubmissionQueue {
 public:
  SubmissionQueue(DmaPool& pool, uint16_t qid, uint32_t entries, volatile uint32_t* doorbell);
  uint16_t qid() const { return qid_; }
  uint32_t entries() const { return ring_.entries(); }
  uint64_t phys() const { return mem_.phys(); }
  bool full() const { return ring_.full(); }
  uint32_t used() const { return ring_.used(); }
  // copy @e into the tail slot; the controller sees it after ring()
  void push(const Sqe& e);
  // publish the tail: entries first, then the doorbell
  void ring();
  // the controller's head, as a completion reported it
  void set_head(uint16_t head) { ring_.set_head(head); }
  uint32_t tail() const { return ring_.tail(); }

 private:
  DmaBuf mem_;
  uint16_t qid_;
  SqRing ring_;
  volatile uint32_t* doorbell_;
};

class CompletionQueue {
 public:
  CompletionQueue(DmaPool& pool, uint16_t qid, uint32_t entries, volatile uint32_t* doorbell);
  uint16_t qid() const { return qid_; }
  uint32_t entries() const { return ring_.entries(); }
  uint64_t phys() const { return mem_.phys(); }
  // the entry at the head if the controller posted it (phase tag)
  bool peek(Cqe* out) const;
  // consume the head entry (no doorbell)
  void pop() { ring_.advance(); }
  // tell the controller which entries it may reuse
  void ring_head();
  uint32_t head() const { return ring_.head(); }
  bool phase() const { return ring_.phase(); }
  // raw slot, for tests that look at what the controller wrote where
  Cqe slot(uint32_t i) const;

 private:
  DmaBuf mem_;
  uint16_t qid_;
  CqRing ring_;
  volatile uint32_t* doorbell_;
};

struct Completion {
  uint64_t tag;
  Cqe cqe;
  uint64_t latency_ns;
};

// monotonic clock in ns
uint64_t now_ns();

// One I/O CQ with one SQ on it, created through the controller's admin
// queue (and deleted in the destructor). One thread uses it at a time.
class IoQueuePair {
 public:
  IoQueuePair(Controller& ctrl, uint16_t qid, uint32_t entries);
  ~IoQueuePair();
  IoQueuePair(const IoQueuePair&) = delete;
  IoQueuePair& operator=(const IoQueuePair&) = delete;

  uint16_t qid() const { return qid_; }
  uint32_t depth() const { return entries_ - 1; }
  uint32_t outstanding() const { return entries_ - 1 - uint32_t(free_.size()); }
  // Submit @cmd (its CID and PRPs are filled in) moving @len bytes at
  // @data (inside the DMA pool; nullptr for none). False when the queue is
  // full. @ring = false defers the doorbell to ring().
  bool submit(Sqe cmd, void* data, size_t len, uint64_t tag, bool ring = true);
  void ring() { sq_->ring(); }
  // append every posted completion to @out; returns how many
  size_t poll(std::vector<Completion>& out);
  // age of the oldest outstanding command, 0 if none
  uint64_t oldest_age_ns() const;

  // Submit and wait; throws Timeout after @timeout_ms.
  Cqe run(const Sqe& cmd, void* data, size_t len, int timeout_ms = 10000);
  Cqe read(uint64_t lba, uint32_t nlb, void* buf, int timeout_ms = 10000);
  Cqe write(uint64_t lba, uint32_t nlb, void* buf, int timeout_ms = 10000);
  Cqe flush(int timeout_ms = 10000);
  Cqe write_zeroes(uint64_t lba, uint32_t nlb, int timeout_ms = 10000);
  // Dataset Management, deallocate: @nlb blocks from @lba
  Cqe deallocate(uint64_t lba, uint32_t nlb, int timeout_ms = 10000);

  // After a controller reset: fresh zeroed rings, queues created again;
  // outstanding commands are forgotten. Returns how many were.
  uint32_t recreate();

 private:
  struct Slot {
    uint64_t tag = 0;
    uint64_t submit_ns = 0;
    bool busy = false;
  };
  void create();

  Controller& ctrl_;
  uint16_t qid_;
  uint32_t entries_;
  std::unique_ptr<CompletionQueue> cq_;
  std::unique_ptr<SubmissionQueue> sq_;
  DmaBuf prp_lists_;  // one list page per slot
  std::vector<Slot> slots_;
  std::vector<uint16_t> free_;
};

}  // namespace uhost
