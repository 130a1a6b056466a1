// The case table and the helpers the cases share.
#include "cases.h"

#include <iostream>
#include <thread>

#include "verify.h"

namespace uhost {

void CaseContext::note(const std::string& s) const { std::cout << "case " << name << ": " << s << "\n"; }

const std::map<std::string, CaseFn>& all_cases() {
  static const std::map<std::string, CaseFn> cases = {
      {"vector", case_vector},
      {"bad-prp", case_bad_prp},
      {"delete-sq-inflight", case_delete_sq_inflight},
      {"cq-full", case_cq_full},
      {"cq-full-shared", case_cq_full_shared},
      {"cc-toggle", case_cc_toggle},
      {"cc-bad", case_cc_bad},
      {"numq-after-create", case_numq_after_create},
      {"bme", case_bme},
      {"flr", case_flr},
      {"shutdown", case_shutdown},
      {"zero-read", case_zero_read},
      {"dsm-big", case_dsm_big},
      {"offline-ring", case_offline_ring},
  };
  return cases;
}

void Expectations::expect_status(const Cqe& e, uint16_t want, const std::string& what) {
  if (e.status() == want) return;
  Cqe w;
  w.sf = uint16_t((want & 0x700) << 1 | (want & 0xff) << 1);
  failed_.push_back(what + ": got " + status_name(e) + ", want " + status_name(w));
}

void Expectations::finish() const {
  if (failed_.empty()) return;
  std::string s;
  for (const std::string& f : failed_) s += (s.empty() ? "" : "; ") + f;
  throw CaseFail(s);
}

uint32_t lbas_per_block(const Controller& c) { return kVerifyBlock / c.info().lba_bytes; }

void sleep_ms(uint32_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

void verified_io(Controller& c, uint16_t qid, uint64_t lba, uint32_t blocks) {
  IoQueuePair q(c, qid, 16);
  DmaBuf buf = c.pool().alloc(blocks * kVerifyBlock);
  uint32_t per = lbas_per_block(c);
  uint64_t seed = now_ns();
  for (uint32_t i = 0; i < blocks; i++) fill_block(buf.data() + i * kVerifyBlock, lba / per + i, seed, 1);
  Cqe e = q.write(lba, blocks * per, buf.data());
  if (!e.ok()) throw CaseFail("verified I/O: write failed: " + status_name(e));
  std::memset(buf.data(), 0, buf.size());
  e = q.read(lba, blocks * per, buf.data());
  if (!e.ok()) throw CaseFail("verified I/O: read failed: " + status_name(e));
  for (uint32_t i = 0; i < blocks; i++) {
    BlockCheck v = check_block(buf.data() + i * kVerifyBlock, lba / per + i, seed, 1);
    if (v != BlockCheck::ok) throw CaseFail("verified I/O: block " + std::to_string(i) + ": " + to_string(v));
  }
}

void expect_working(Expectations& x, Controller& c, const std::string& what, bool bring_up,
                    uint16_t qid, uint64_t lba) {
  try {
    if (bring_up) c.bring_up(kCaseQueues);
    verified_io(c, qid, lba);
  } catch (const std::exception& e) {
    x.expect(false, what + ": " + e.what());
  }
}

uint32_t count_new(const CompletionQueue& cq, uint32_t max) {
  // entries from the head on whose phase says "new", without wrapping
  uint32_t n = 0;
  for (uint32_t i = cq.head(); i < cq.entries() && n < max; i++, n++)
    if (cq.slot(i).phase() != cq.phase()) break;
  return n;
}

}  // namespace uhost
