// The torture cases of `nvmev-uhost case NAME`: each drives the controller
// into one corner of the specification and checks exactly what the device
// must do there. A case throws CaseFail with the first broken expectation
// (or all of them, joined) and prints notes (measured times) on the way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "controller.h"
#include "dma.h"
#include "pci.h"

namespace uhost {

struct CaseFail : Error {
  using Error::Error;
};

struct CaseContext {
  PciFunction& pci;
  DmaPool& pool;
  Controller& ctrl;
  std::string name;
  uint64_t addr = 0;          // bad-prp: the physical address to aim at
  std::string phase = "all";  // flr: before, after or all
  int64_t lba = -1;           // zero-read: an LBA the script wrote before a reload
  void note(const std::string& s) const;
};

using CaseFn = std::function<void(CaseContext&)>;
// name -> case; the names are those of `nvmev-uhost case NAME`
const std::map<std::string, CaseFn>& all_cases();

// ---- helpers shared by the cases ----
constexpr uint16_t kCaseQueues = 4;  // I/O queues the cases ask for

// Collects failed expectations so a case can check everything it set out
// to and report them together.
class Expectations {
 public:
  void expect(bool ok, const std::string& why) {
    if (!ok) failed_.push_back(why);
  }
  // @e must have status @want (SCT << 8 | SC)
  void expect_status(const Cqe& e, uint16_t want, const std::string& what);
  // throws CaseFail if anything failed
  void finish() const;
  bool ok() const { return failed_.empty(); }

 private:
  std::vector<std::string> failed_;
};

// LBAs per 4 KiB block of the namespace
uint32_t lbas_per_block(const Controller& c);
// Write @blocks verify blocks at @lba through I/O queue @qid, read them
// back and check them; throws CaseFail on any error.
void verified_io(Controller& c, uint16_t qid, uint64_t lba, uint32_t blocks = 4);
// The controller still works: (after bring_up() when @bring_up) verified
// I/O on queue @qid; a failure becomes an expectation "@what: why".
void expect_working(Expectations& x, Controller& c, const std::string& what, bool bring_up,
                    uint16_t qid = 1, uint64_t lba = 0);
// Poll @cq for new entries for @ms (without consuming them): how many.
uint32_t count_new(const CompletionQueue& cq, uint32_t max);
void sleep_ms(uint32_t ms);

// cases, by file
void case_vector(CaseContext& c);
void case_bad_prp(CaseContext& c);
void case_numq_after_create(CaseContext& c);
void case_bme(CaseContext& c);
void case_offline_ring(CaseContext& c);
void case_delete_sq_inflight(CaseContext& c);
void case_cq_full(CaseContext& c);
void case_cq_full_shared(CaseContext& c);
void case_cc_toggle(CaseContext& c);
void case_cc_bad(CaseContext& c);
void case_flr(CaseContext& c);
void case_shutdown(CaseContext& c);
void case_zero_read(CaseContext& c);
void case_dsm_big(CaseContext& c);

}  // namespace uhost
