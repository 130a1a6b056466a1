#include "controller.h"

#include <algorithm>
#include <sstream>
#include <thread>

#include "prp.h"

namespace uhost {
namespace {

std::string trimmed(const uint8_t* p, size_t n) {
  std::string s(reinterpret_cast<const char*>(p), n);
  size_t end = s.find_last_not_of(" \0", std::string::npos, 2);
  return end == std::string::npos ? "" : s.substr(0, end + 1);
}

void sleep_us(unsigned us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

}  // namespace

CommandError::CommandError(const std::string& what, const Cqe& e)
    : Error(what + " failed: " + status_name(e)), cqe(e) {}

std::string status_name(const Cqe& e) {
  static const struct {
    uint16_t status;
    const char* name;
  } names[] = {
      {status::SUCCESS, "success"},
      {status::INVALID_FIELD, "Invalid Field in Command"},
      {status::DATA_XFER_ERROR, "Data Transfer Error"},
      {status::ABORTED_SQ_DELETION, "Command Aborted due to SQ Deletion"},
      {status::COMMAND_SEQUENCE, "Command Sequence Error"},
      {status::INVALID_VECTOR, "Invalid Interrupt Vector"},
      {0x001, "Invalid Command Opcode"},
      {0x013, "PRP Offset Invalid"},
      {0x080, "LBA Out of Range"},
      {0x100, "Completion Queue Invalid"},
      {0x101, "Invalid Queue Identifier"},
      {0x102, "Invalid Queue Size"},
      {0x10c, "Invalid Queue Deletion"},
  };
  std::ostringstream s;
  s << "SCT " << int(e.sct()) << " SC 0x" << std::hex << int(e.sc());
  for (const auto& n : names)
    if (n.status == e.status()) s << " (" << n.name << ")";
  if (e.dnr()) s << " DNR";
  return s.str();
}

Controller::Controller(Bar& bar, DmaPool& pool, std::function<bool()> present)
    : bar_(bar), pool_(pool), present_(std::move(present)), cap_(bar.read64(reg::CAP)) {
  if (cap_ == ~0ull) throw Error("device gone: BAR0 reads all-ones");
}

Controller::~Controller() = default;

volatile uint32_t* Controller::sq_doorbell(uint16_t qid) {
  return bar_.dword(reg::DOORBELLS + (2 * qid) * (4u << cap_dstrd(cap_)));
}

volatile uint32_t* Controller::cq_doorbell(uint16_t qid) {
  return bar_.dword(reg::DOORBELLS + (2 * qid + 1) * (4u << cap_dstrd(cap_)));
}

void Controller::check_alive() {
  uint32_t csts = bar_.read32(reg::CSTS);
  if (csts == ~0u || (present_ && !present_()))
    throw Error("device gone: BAR reads all-ones or the PCI device was removed");
  if (csts & csts::CFS) throw Error("controller fatal status (CSTS.CFS=1)");
}

bool Controller::wait_csts(uint32_t mask, uint32_t value, uint32_t timeout_ms) {
  uint64_t deadline = now_ns() + uint64_t(timeout_ms) * 1000000;
  while (true) {
    uint32_t csts = bar_.read32(reg::CSTS);
    if (csts == ~0u) throw Error("device gone: BAR reads all-ones");
    if ((csts & mask) == value) return true;
    if (now_ns() > deadline) return false;
    sleep_us(100);
  }
}

void Controller::disable() {
  ready_ = false;
  cc_ = bar_.read32(reg::CC) & ~cc::EN;
  bar_.write32(reg::CC, cc_);
  if (!wait_csts(csts::RDY, 0, timeout_ms())) {
    check_alive();
    throw Timeout("CSTS.RDY stayed 1 for CAP.TO (" + std::to_string(timeout_ms()) +
                  " ms) after CC.EN=0");
  }
}

void Controller::setup_admin_queues(uint32_t entries) {
  new_admin_queues(entries);
  program_admin_queues();
}

void Controller::new_admin_queues(uint32_t entries) {
  acq_ = std::make_unique<CompletionQueue>(pool_, 0, entries, cq_doorbell(0));
  asq_ = std::make_unique<SubmissionQueue>(pool_, 0, entries, sq_doorbell(0));
}

void Controller::program_admin_queues() {
  uint32_t entries = asq_->entries();
  bar_.write32(reg::AQA, (entries - 1) << 16 | (entries - 1));
  bar_.write64(reg::ASQ, asq_->phys());
  bar_.write64(reg::ACQ, acq_->phys());
}

void Controller::write_cc(uint32_t v) {
  cc_ = v;
  bar_.write32(reg::CC, v);
}

void Controller::enable(uint32_t cc_value) {
  write_cc(cc_value | cc::EN);
  uint64_t deadline = now_ns() + uint64_t(timeout_ms()) * 1000000;
  while (true) {
    uint32_t csts = bar_.read32(reg::CSTS);
    if (csts == ~0u) throw Error("device gone: BAR reads all-ones");
    if (csts & csts::CFS) throw Error("controller fatal status (CSTS.CFS=1) on enable");
    if (csts & csts::RDY) break;
    if (now_ns() > deadline)
      throw Timeout("CSTS.RDY stayed 0 for CAP.TO (" + std::to_string(timeout_ms()) +
                    " ms) after CC.EN=1");
    sleep_us(100);
  }
  ready_ = true;
}

void Controller::identify_all(uint16_t io_queues) {
  DmaBuf page = pool_.alloc(kPageBytes);
  check(identify(admin::CNS_CTRL, 0, page), "Identify controller");
  const uint8_t* id = page.data();
  info_.cap = cap_;
  info_.version = bar_.read32(reg::VS);
  info_.serial = trimmed(id + 4, 20);
  info_.model = trimmed(id + 24, 40);
  info_.firmware = trimmed(id + 64, 8);
  uint8_t mdts = id[77];
  // MDTS 0 = no limit; one PRP list page bounds what we send anyway
  uint64_t limit = uint64_t(kPrpListEntries) * kPageBytes;
  info_.max_transfer = uint32_t(mdts ? std::min<uint64_t>(kPageBytes << mdts, limit) : limit);
  std::memcpy(&info_.oncs, id + 520, 2);

  std::memset(page.data(), 0, kPageBytes);
  check(identify(admin::CNS_NS, 1, page), "Identify namespace 1");
  std::memcpy(&info_.nsze, id, 8);
  uint8_t flbas = id[26] & 0xf;
  info_.lba_bytes = 1u << id[128 + 4 * flbas + 2];

  Cqe e = set_num_queues(io_queues);
  check(e, "Set Features Number of Queues");
  info_.io_queues = uint16_t(std::min(e.result & 0xffff, e.result >> 16) + 1);
}

void Controller::bring_up(uint16_t io_queues) {
  if (bar_.read32(reg::CSTS) == ~0u) throw Error("device gone: BAR0 reads all-ones");
  disable();
  setup_admin_queues();
  enable();
  identify_all(io_queues);
}

void Controller::shutdown() {
  write_cc((bar_.read32(reg::CC) & ~cc::SHN_MASK) | cc::SHN_NORMAL);
  if (!wait_csts(csts::SHST_MASK, csts::SHST_DONE, timeout_ms()))
    throw Timeout("CSTS.SHST did not become 10b (shutdown complete) within CAP.TO");
  ready_ = false;
}

uint32_t Controller::recover() {
  uint32_t lost = 0;
  bring_up(info_.io_queues ? info_.io_queues : 1);
  for (IoQueuePair* q : queues_) lost += q->recreate();
  return lost;
}

Cqe Controller::admin(Sqe cmd, int timeout_ms_) {
  std::lock_guard<std::mutex> g(admin_lock_);
  if (!asq_) throw Error("admin queue not set up");
  uint16_t cid = next_cid_++;
  cmd.set_cid(cid);
  asq_->push(cmd);
  asq_->ring();
  uint64_t limit = timeout_ms_ > 0 ? uint64_t(timeout_ms_) : timeout_ms();
  uint64_t deadline = now_ns() + limit * 1000000;
  Cqe e;
  while (true) {
    while (acq_->peek(&e)) {
      acq_->pop();
      acq_->ring_head();
      asq_->set_head(e.sq_head);
      if (e.cid == cid) return e;
    }
    if (now_ns() > deadline) {
      check_alive();
      throw Timeout("admin command (opcode " + std::to_string(cmd.opcode()) + ") timed out after " +
                    std::to_string(limit) + " ms");
    }
    std::this_thread::yield();
  }
}

void Controller::check(const Cqe& e, const std::string& what) {
  if (!e.ok()) throw CommandError(what, e);
}

Cqe Controller::identify(uint8_t cns, uint32_t nsid, const DmaBuf& out, uint32_t cdw11) {
  Sqe s;
  s.set_opcode(admin::IDENTIFY);
  s.dw[1] = nsid;
  s.set_prp1(out.phys());
  s.dw[10] = cns;
  s.dw[11] = cdw11;
  return admin(s);
}

Cqe Controller::set_num_queues(uint16_t n) {
  Sqe s;
  s.set_opcode(admin::SET_FEATURES);
  s.dw[10] = admin::FEAT_NUM_QUEUES;
  s.dw[11] = uint32_t(n - 1) << 16 | uint32_t(n - 1);
  return admin(s);
}

Cqe Controller::create_cq(uint16_t qid, uint64_t phys, uint32_t entries, bool ien,
                          uint16_t vector) {
  Sqe s;
  s.set_opcode(admin::CREATE_CQ);
  s.set_prp1(phys);
  s.dw[10] = (entries - 1) << 16 | qid;
  s.dw[11] = uint32_t(vector) << 16 | (ien ? 2u : 0u) | 1u;  // physically contiguous
  return admin(s);
}

Cqe Controller::create_sq(uint16_t qid, uint64_t phys, uint32_t entries, uint16_t cqid) {
  Sqe s;
  s.set_opcode(admin::CREATE_SQ);
  s.set_prp1(phys);
  s.dw[10] = (entries - 1) << 16 | qid;
  s.dw[11] = uint32_t(cqid) << 16 | 1u;
  return admin(s);
}

Cqe Controller::delete_sq(uint16_t qid) {
  Sqe s;
  s.set_opcode(admin::DELETE_SQ);
  s.dw[10] = qid;
  return admin(s);
}

Cqe Controller::delete_cq(uint16_t qid) {
  Sqe s;
  s.set_opcode(admin::DELETE_CQ);
  s.dw[10] = qid;
  return admin(s);
}

void Controller::register_queue(IoQueuePair* q) {
  std::lock_guard<std::mutex> g(admin_lock_);
  queues_.push_back(q);
}

void Controller::unregister_queue(IoQueuePair* q) {
  std::lock_guard<std::mutex> g(admin_lock_);
  queues_.erase(std::remove(queues_.begin(), queues_.end(), q), queues_.end());
}

}  // namespace uhost
