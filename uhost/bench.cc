#include "bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "controller.h"
#include "latency.h"
#include "units.h"
#include "verify.h"

namespace uhost {
namespace {

using json = nlohmann::ordered_json;
constexpr uint64_t kBlock = kVerifyBlock;  // the unit of sizes, offsets and verification

struct Pattern {
  bool random = false, reads = false, writes = false;
};

Pattern parse_rw(const std::string& rw) {
  if (rw == "randread") return {true, true, false};
  if (rw == "randwrite") return {true, false, true};
  if (rw == "read") return {false, true, false};
  if (rw == "write") return {false, false, true};
  if (rw == "randrw") return {true, true, true};
  throw UsageError("--rw " + rw + ": want randread, randwrite, read, write or randrw");
}

double cpu_seconds() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// What one thread measured.
struct QueueResult {
  uint16_t qid = 0;
  uint64_t ios = 0, read_bytes = 0, write_bytes = 0, errors = 0;
  uint64_t verified_blocks = 0, verify_errors = 0;
  std::vector<uint64_t> lat_ns;
  std::string first_error;
  bool timed_out = false;
};

// The shared limits of a run and its stop flag.
struct RunControl {
  uint64_t deadline_ns = 0;  // 0 = none
  uint64_t ios_left_init = 0;
  std::atomic<int64_t> ios_left{INT64_MAX};
  std::atomic<int64_t> bytes_left{INT64_MAX};
  std::atomic<bool> stop{false};
};

class Worker {
 public:
  Worker(Controller& c, const BenchOptions& o, const Pattern& p, uint16_t qid, uint64_t first_block,
         uint64_t blocks, uint64_t bs_min, uint64_t bs_max, RunControl& rc)
      : ctrl_(c), o_(o), p_(p), first_(first_block), blocks_(blocks), bs_min_(bs_min / kBlock),
        bs_max_(bs_max / kBlock), rc_(rc), rng_(o.seed * 1000003 + qid) {
    r_.qid = qid;
    gen_.assign(o.verify ? blocks : 0, 0);
    busy_.assign(blocks, false);
  }

  void run() {
    try {
      IoQueuePair q(ctrl_, r_.qid, std::min(o_.qd + 1, ctrl_.max_queue_entries()));
      for (uint32_t i = 0; i < q.depth(); i++) bufs_.push_back(ctrl_.pool().alloc(bs_max_ * kBlock));
      inflight_.resize(q.depth());
      for (uint32_t i = 0; i < q.depth(); i++) free_.push_back(i);
      load(q);
      if (o_.verify && !r_.timed_out && p_.writes) read_back(q);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  QueueResult& result() { return r_; }

 private:
  struct Inflight {
    uint64_t block = 0, nblocks = 0;
    bool write = false, timed = true;
  };

  void fail(const std::string& m) {
    if (r_.first_error.empty()) r_.first_error = "queue " + std::to_string(r_.qid) + ": " + m;
  }

  bool more() {
    if (rc_.stop) return false;
    if (rc_.deadline_ns && now_ns() >= rc_.deadline_ns) return false;
    if (rc_.ios_left.fetch_sub(1) <= 0) return false;
    return rc_.bytes_left.load() > 0;
  }

  // a free extent for the next I/O, false if none found (all busy)
  bool pick(uint64_t n, uint64_t* block) {
    for (int tries = 0; tries < 64; tries++) {
      uint64_t b;
      if (p_.random) {
        b = std::uniform_int_distribution<uint64_t>(0, blocks_ - n)(rng_);
      } else {
        if (cursor_ + n > blocks_) cursor_ = 0;
        b = cursor_;
        cursor_ += n;
      }
      // verification needs each block's writes in order: no two I/Os on
      // one block at a time
      bool clash = false;
      for (uint64_t i = 0; o_.verify && i < n && !clash; i++) clash = busy_[b + i];
      if (!clash) {
        *block = b;
        return true;
      }
    }
    return false;
  }

  bool submit_one(IoQueuePair& q, bool write, uint64_t block, uint64_t n, bool timed) {
    uint32_t slot = free_.back();
    uint8_t* buf = bufs_[slot].data();
    for (uint64_t i = 0; i < n; i++) busy_[block + i] = true;
    if (write) {
      for (uint64_t i = 0; i < n; i++) {
        uint32_t g = o_.verify ? ++gen_[block + i] : 1;
        fill_block(buf + i * kBlock, first_ + block + i, o_.seed, g);
      }
    }
    uint32_t per_block = uint32_t(kBlock / ctrl_.info().lba_bytes);
    Sqe cmd = rw_sqe(write ? io::WRITE : io::READ, 1, (first_ + block) * per_block,
                     uint32_t(n * per_block));
    if (!q.submit(cmd, buf, n * kBlock, slot)) {
      for (uint64_t i = 0; i < n; i++) busy_[block + i] = false;
      return false;
    }
    free_.pop_back();
    inflight_[slot] = {block, n, write, timed};
    return true;
  }

  void complete(const Completion& c) {
    Inflight& f = inflight_[c.tag];
    uint64_t bytes = f.nblocks * kBlock;
    if (f.timed) {
      r_.ios++;
      r_.lat_ns.push_back(c.latency_ns);
      (f.write ? r_.write_bytes : r_.read_bytes) += bytes;
    }
    if (!c.cqe.ok()) {
      r_.errors++;
      fail(std::string(f.write ? "write" : "read") + " of block " +
           std::to_string(first_ + f.block) + ": " + status_name(c.cqe));
    } else if (!f.write && o_.verify) {
      const uint8_t* buf = bufs_[c.tag].data();
      for (uint64_t i = 0; i < f.nblocks; i++) {
        uint32_t want = gen_[f.block + i];
        if (!want) continue;  // never written in this run: contents unknown
        uint32_t found = 0;
        BlockCheck v = check_block(buf + i * kBlock, first_ + f.block + i, o_.seed, want, &found);
        r_.verified_blocks++;
        if (v != BlockCheck::ok) {
          r_.verify_errors++;
          fail("verify of 4 KiB block " + std::to_string(first_ + f.block + i) + ": " +
               to_string(v) + " (generation " + std::to_string(found) + ", want " +
               std::to_string(want) + ")");
        }
      }
    }
    for (uint64_t i = 0; i < f.nblocks; i++) busy_[f.block + i] = false;
    free_.push_back(uint32_t(c.tag));
  }

  // poll once; false after a command timeout
  bool reap(IoQueuePair& q) {
    done_.clear();
    if (!q.poll(done_)) {
      if (q.outstanding() && q.oldest_age_ns() > uint64_t(o_.timeout_ms) * 1000000) {
        r_.timed_out = true;
        fail("command timeout after " + std::to_string(o_.timeout_ms) + " ms");
        rc_.stop = true;
        return false;
      }
      std::this_thread::yield();
    }
    for (const Completion& c : done_) complete(c);
    return true;
  }

  void load(IoQueuePair& q) {
    bool go = true;
    while (go || q.outstanding()) {
      while (go && !free_.empty()) {
        if (!more()) {
          go = false;
          break;
        }
        uint64_t n = std::uniform_int_distribution<uint64_t>(bs_min_, bs_max_)(rng_);
        bool write = p_.writes && (!p_.reads ||
                                   std::uniform_int_distribution<uint32_t>(1, 100)(rng_) >
                                       o_.rwmix_read);
        uint64_t block;
        if (!pick(n, &block)) break;
        if (!submit_one(q, write, block, n, true)) break;
        rc_.bytes_left -= int64_t(n * kBlock);
      }
      if (!reap(q)) return;
    }
  }

  // read every block written and check it: catches what random reads missed
  void read_back(IoQueuePair& q) {
    uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(bs_max_, ctrl_.info().max_transfer / kBlock));
    uint64_t next = 0;
    while (next < blocks_ || q.outstanding()) {
      while (next < blocks_ && !free_.empty()) {
        uint64_t n = std::min(chunk, blocks_ - next);
        if (!submit_one(q, false, next, n, false)) break;
        next += n;
      }
      if (!reap(q)) return;
    }
  }

  Controller& ctrl_;
  const BenchOptions& o_;
  Pattern p_;
  uint64_t first_, blocks_, bs_min_, bs_max_;
  RunControl& rc_;
  std::mt19937_64 rng_;
  QueueResult r_;
  std::vector<uint32_t> gen_;  // per block: last generation written, 0 = none
  std::vector<bool> busy_;     // per block: an I/O in flight touches it
  std::vector<DmaBuf> bufs_;
  std::vector<Inflight> inflight_;
  std::vector<uint32_t> free_;
  std::vector<Completion> done_;
  uint64_t cursor_ = 0;
};

json latency_fields(json row, std::vector<uint64_t>& lat) {
  LatencySummary s = summarize(lat);
  row["lat_mean_us"] = s.mean_us;
  row["lat_p50_us"] = s.p50_us;
  row["lat_p99_us"] = s.p99_us;
  row["lat_p999_us"] = s.p999_us;
  row["lat_max_us"] = s.max_us;
  return row;
}

}  // namespace

uint64_t parse_size(const std::string& s) {
  size_t pos = 0;
  uint64_t v;
  try {
    v = std::stoull(s, &pos);
  } catch (const std::exception&) {
    throw UsageError("'" + s + "' is not a size (e.g. 4k, 64k, 1m)");
  }
  std::string unit = s.substr(pos);
  if (unit == "k" || unit == "K") v <<= 10;
  else if (unit == "m" || unit == "M") v <<= 20;
  else if (unit == "g" || unit == "G") v <<= 30;
  else if (!unit.empty()) throw UsageError("'" + s + "': unknown unit (k, m, g)");
  return v;
}

namespace {

struct BlockSizes {
  uint64_t min, max;
};

BlockSizes parse_bs(const std::string& bs) {
  size_t colon = bs.find(':');
  BlockSizes b{parse_size(bs.substr(0, colon)), 0};
  b.max = colon == std::string::npos ? b.min : parse_size(bs.substr(colon + 1));
  if (b.min == 0 || b.min % kBlock || b.max % kBlock || b.max < b.min)
    throw UsageError("--bs " + bs + ": sizes must be multiples of 4k, MIN <= MAX");
  return b;
}

}  // namespace

void check_options(const BenchOptions& o) {
  parse_rw(o.rw);
  parse_bs(o.bs);
  if (!o.size.empty()) parse_size(o.size);
  if (!o.io_bytes.empty()) parse_size(o.io_bytes);
  if (o.qd < 1) throw UsageError("--qd must be at least 1");
  if (!o.duration_s && !o.ios && o.io_bytes.empty())
    throw UsageError("say how long: --duration, --ios or --io-bytes");
}

json run_bench(Controller& ctrl, const BenchOptions& o) {
  check_options(o);
  Pattern p = parse_rw(o.rw);
  BlockSizes bs = parse_bs(o.bs);
  const uint64_t bs_min = bs.min, bs_max = bs.max;
  const ControllerInfo& info = ctrl.info();
  if (bs_max > info.max_transfer)
    throw UsageError("--bs " + o.bs + ": larger than the controller's maximum transfer (" +
                     std::to_string(info.max_transfer) + " bytes)");
  if (o.queues < 1 || o.queues > info.io_queues)
    throw UsageError("--queues " + std::to_string(o.queues) + ": the controller grants 1.." +
                     std::to_string(info.io_queues));
  if (o.qd + 1 > ctrl.max_queue_entries())
    throw UsageError("--qd " + std::to_string(o.qd) + ": want 1.." +
                     std::to_string(ctrl.max_queue_entries() - 1));
  uint64_t ns_bytes = info.nsze * info.lba_bytes;
  uint64_t region = o.size.empty() ? ns_bytes : parse_size(o.size);
  if (region > ns_bytes || region < kBlock)
    throw UsageError("--size " + o.size + ": the namespace has " + std::to_string(ns_bytes) +
                     " bytes");
  RunControl rc;
  if (o.ios) rc.ios_left = int64_t(o.ios);
  if (!o.io_bytes.empty()) rc.bytes_left = int64_t(parse_size(o.io_bytes));
  uint64_t blocks = region / kBlock;
  // verification needs one writer per block: each queue gets its own slice
  uint64_t per = o.verify ? blocks / o.queues : blocks;
  if (per < bs_max / kBlock) throw UsageError("--size too small for --bs and --queues");
  std::vector<std::unique_ptr<Worker>> workers;
  for (uint32_t t = 0; t < o.queues; t++)
    workers.push_back(std::make_unique<Worker>(ctrl, o, p, uint16_t(t + 1),
                                               o.verify ? t * per : 0, per, bs_min, bs_max, rc));
  double cpu0 = cpu_seconds();
  uint64_t t0 = now_ns();
  if (o.duration_s) rc.deadline_ns = t0 + uint64_t(o.duration_s * 1e9);
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->run(); });
  for (auto& t : threads) t.join();
  double elapsed = (now_ns() - t0) / 1e9, cpu = cpu_seconds() - cpu0;

  json rows = json::array();
  std::vector<uint64_t> all;
  uint64_t ios = 0, rbytes = 0, wbytes = 0, errors = 0, vblocks = 0, verrors = 0;
  std::string first_error;
  bool timed_out = false;
  for (auto& w : workers) {
    QueueResult& r = w->result();
    all.insert(all.end(), r.lat_ns.begin(), r.lat_ns.end());
    json row = {{"queue", r.qid}, {"ios", r.ios}, {"iops", r.ios / elapsed},
                {"mib_s", (r.read_bytes + r.write_bytes) / elapsed / nvmev::MiB}};
    rows.push_back(latency_fields(row, r.lat_ns));
    rows.back()["errors"] = r.errors + r.verify_errors;
    ios += r.ios;
    rbytes += r.read_bytes;
    wbytes += r.write_bytes;
    errors += r.errors;
    vblocks += r.verified_blocks;
    verrors += r.verify_errors;
    timed_out |= r.timed_out;
    if (first_error.empty()) first_error = r.first_error;
  }
  if (timed_out) {
    uint32_t lost = ctrl.recover();
    first_error += "; controller reset and re-initialised (" + std::to_string(lost) +
                   " commands lost)";
  }
  json summary = {{"elapsed_s", elapsed},
                  {"ios", ios},
                  {"iops", ios / elapsed},
                  {"mib_s", (rbytes + wbytes) / elapsed / nvmev::MiB},
                  {"read_mib_s", rbytes / elapsed / nvmev::MiB},
                  {"write_mib_s", wbytes / elapsed / nvmev::MiB}};
  summary = latency_fields(summary, all);
  summary["cpu_us_per_io"] = ios ? cpu * 1e6 / ios : 0;
  summary["errors"] = errors;
  summary["verified_blocks"] = vblocks;
  summary["verify_errors"] = verrors;
  summary["first_error"] = first_error;
  json config = {{"rw", o.rw}, {"bs", o.bs}, {"qd", o.qd}, {"queues", o.queues},
                 {"duration_s", o.duration_s}, {"ios", o.ios}, {"io_bytes", o.io_bytes},
                 {"size_bytes", region}, {"rwmix_read", o.rwmix_read}, {"verify", o.verify},
                 {"seed", o.seed}, {"lba_bytes", info.lba_bytes}};
  return {{"workload", "uhost-bench"}, {"config", config}, {"summary", summary}, {"rows", rows}};
}

}  // namespace uhost
