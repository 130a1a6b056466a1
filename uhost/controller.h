// The NVMe controller behind BAR0: bring-up and shutdown as the base
// specification orders them, the admin queue, Identify, queue creation and
// deletion, and recovery (reset and re-initialisation) after a timeout.
// Every wait is bounded: by CAP.TO for register handshakes, by a per-
// command timeout for admin commands.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dma.h"
#include "error.h"
#include "pci.h"
#include "queue.h"
#include "spec.h"

namespace uhost {

struct Timeout : Error {
  using Error::Error;
};

// A command that completed with an error status.
struct CommandError : Error {
  CommandError(const std::string& what, const Cqe& e);
  Cqe cqe;
};

struct ControllerInfo {
  std::string serial, model, firmware;
  uint64_t cap = 0;
  uint32_t version = 0;
  uint32_t max_transfer = 0;  // bytes, from MDTS (capped at what one PRP list covers)
  uint16_t oncs = 0;
  uint64_t nsze = 0;  // LBAs of namespace 1
  uint32_t lba_bytes = 0;
  uint16_t io_queues = 0;  // granted by Set Features Number of Queues
};

// "SCT s SC 0xNN (name)"
std::string status_name(const Cqe& e);

class Controller {
 public:
  // @present says whether the device still exists (a sysfs check); used
  // to tell "gone" from "slow" when something times out.
  Controller(Bar& bar, DmaPool& pool, std::function<bool()> present = {});
  ~Controller();

  // --- bring-up steps, in the order bring_up() runs them ---
  // CC.EN = 0, wait CSTS.RDY = 0
  void disable();
  // fresh zeroed admin queues, programmed into AQA/ASQ/ACQ
  void setup_admin_queues(uint32_t entries = 32);
  // the two halves: new queue memory (the old queues are gone), then the
  // registers, so that a case can program them between two CC writes
  void new_admin_queues(uint32_t entries = 32);
  void program_admin_queues();
  // write CC = @cc_value | EN (no wait)
  void write_cc(uint32_t v);
  // CC.EN = 1 with @cc_value, wait CSTS.RDY = 1; throws on CSTS.CFS
  void enable(uint32_t cc_value = cc::standard());
  // Identify controller and namespace 1, Set Features Number of Queues
  void identify_all(uint16_t io_queues);
  // all of the above
  void bring_up(uint16_t io_queues);
  // CC.SHN = 01b, wait CSTS.SHST = 10b
  void shutdown();
  // a timeout's remedy: disable, bring up, create every live queue pair
  // again; returns how many outstanding commands were lost
  uint32_t recover();

  // wait until (CSTS & mask) == value, at most @timeout_ms; false on timeout
  bool wait_csts(uint32_t mask, uint32_t value, uint32_t timeout_ms);
  // throws Error if the device is gone or in controller fatal status
  void check_alive();
  bool ready() const { return ready_; }
  // a controller stuck in a command: give up on it, so that queue
  // destructors do not wait for admin commands it will not run
  void abandon() { ready_ = false; }

  // --- admin commands ---
  // raw: any 64-byte entry (its CID is ours), the CQE back; throws
  // Timeout. Threads may call it at once: one command at a time goes out.
  Cqe admin(Sqe cmd, int timeout_ms = 0);
  // throws CommandError unless @e succeeded
  void check(const Cqe& e, const std::string& what);
  Cqe identify(uint8_t cns, uint32_t nsid, const DmaBuf& out, uint32_t cdw11 = 0);
  Cqe set_num_queues(uint16_t n);  // result in CQE DW0
  Cqe create_cq(uint16_t qid, uint64_t phys, uint32_t entries, bool ien, uint16_t vector);
  Cqe create_sq(uint16_t qid, uint64_t phys, uint32_t entries, uint16_t cqid);
  Cqe delete_sq(uint16_t qid);
  Cqe delete_cq(uint16_t qid);

  const ControllerInfo& info() const { return info_; }
  uint32_t timeout_ms() const { return cap_timeout_ms(cap_); }
  uint32_t max_queue_entries() const { return cap_mqes(cap_); }
  uint32_t cc() const { return cc_; }
  Bar& bar() { return bar_; }
  DmaPool& pool() { return pool_; }
  volatile uint32_t* sq_doorbell(uint16_t qid);
  volatile uint32_t* cq_doorbell(uint16_t qid);
  CompletionQueue& admin_cq() { return *acq_; }

  void register_queue(IoQueuePair* q);
  void unregister_queue(IoQueuePair* q);

 private:
  Bar& bar_;
  DmaPool& pool_;
  std::function<bool()> present_;
  uint64_t cap_;
  uint32_t cc_ = 0;
  bool ready_ = false;
  std::unique_ptr<SubmissionQueue> asq_;
  std::unique_ptr<CompletionQueue> acq_;
  uint16_t next_cid_ = 0;
  ControllerInfo info_;
  std::vector<IoQueuePair*> queues_;
  std::mutex admin_lock_;  // the admin queue and queues_, shared by bench threads
};

}  // namespace uhost
