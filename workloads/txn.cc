// nvmev-txn: synchronous vectored transactions on a block device, the
// unit NIO (lazy polling) classifies as a whole. Each transaction is one
// preadv2/pwritev2 call at a random 4 KiB-aligned offset whose iovecs are
// the members (fio's pvsync2 sends one iovec per call). --hipri marks the
// calls RWF_HIPRI (polled with host patch 4 or NIO). Prints the mean,
// standard deviation and 99th percentile of the transaction latency and
// the CPU the calling thread used (user, system, context switches).
// --sleep-probe-us N measures instead how late a sleep of N us wakes up
// (COUNT sleeps): the sleep cost NIO subtracts (nio_sleep_cost_ns).
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fsutil.h"
#include "percentile.h"

using nvmev::json;
using nvmev::KiB;
using nvmev::MiB;
using namespace nvmev::fs;

namespace {

double seconds(const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; }

// How much later than asked COUNT sleeps of `us` wake up: mean and 90th
// percentile, in ns.
json sleep_probe(uint64_t us, unsigned count) {
  // no timer slack: NIO's in-kernel hrtimer sleep has none either
  if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0)) throw sys_error("prctl(PR_SET_TIMERSLACK)");
  std::vector<double> late;
  for (unsigned i = 0; i < count; i++) {
    const auto s = std::chrono::steady_clock::now();
    timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000 * 1000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
    }
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - s).count();
    late.push_back(std::max(0.0, ns - us * 1000.0));
  }
  std::sort(late.begin(), late.end());
  double sum = 0;
  for (double l : late) sum += l;
  return {{"sleep_us", us},
          {"sleeps", count},
          {"late_mean_ns", sum / count},
          {"late_p90_ns", nvmev::percentile_of_sorted(late, 90)}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-txn: vectored preadv2/pwritev2 transactions, latency and CPU"};
  std::string device, rw = "read", format = "json";
  std::vector<uint64_t> member_kib{4};
  unsigned members = 1, count = 1000;
  uint64_t span_mib = 64, seed = 1;
  bool hipri = false, in_order = false;
  uint64_t probe_us = 0;
  app.add_option("device", device, "block device (opened O_DIRECT)");
  app.add_option("--sleep-probe-us", probe_us, "measure how late sleeps of this many us wake up; no I/O")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--rw", rw)->check(CLI::IsMember({"read", "write"}))->capture_default_str();
  app.add_option("--members", members, "iovecs per call")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--member-kib", member_kib, "member sizes, one picked at random per member (KiB)")
      ->check(CLI::Range(4, 1024))
      ->delimiter(',');
  app.add_option("--count", count, "transactions")->check(CLI::Range(1, 10000000))->capture_default_str();
  app.add_option("--span-mib", span_mib, "offsets fall in the first MiB of the device")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  app.add_option("--seed", seed)->capture_default_str();
  app.add_flag("--in-order", in_order, "member i takes size i of --member-kib (cycling), not a random one");
  app.add_flag("--hipri", hipri, "RWF_HIPRI: ask for polled completion");
  app.add_option("--format", format)->check(CLI::IsMember({"json", "text"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto print = [&](const json& out) {
    if (format == "json") {
      std::cout << out.dump(2) << "\n";
    } else {
      for (auto& [k, v] : out.items()) std::cout << k << "=" << v << "\n";
    }
  };
  // bad input: status 2, like a parse error, before anything is touched
  auto usage_error = [](const std::string& what) {
    std::cerr << "nvmev-txn: " << what << "\n";
    return 2;
  };
  if (!probe_us && device.empty()) return usage_error("a device is required (or --sleep-probe-us)");
  for (uint64_t k : member_kib)
    if (k % 4) return usage_error("--member-kib " + std::to_string(k) + " is not a multiple of 4");
  const uint64_t max_member = *std::max_element(member_kib.begin(), member_kib.end()) * KiB;
  if (!probe_us && uint64_t{members} * max_member > span_mib * MiB)
    return usage_error("a transaction is larger than --span-mib");
  try {
    if (probe_us) {
      print(sleep_probe(probe_us, count));
      return 0;
    }
    const bool write = rw == "write";
    File dev(device, (write ? O_RDWR : O_RDONLY) | O_DIRECT);
    std::vector<Buffer> bufs;
    for (unsigned m = 0; m < members; m++) bufs.push_back(aligned_buffer(max_member));
    std::mt19937_64 rng(seed);
    std::vector<iovec> iov(members);
    std::vector<double> lat_us;
    lat_us.reserve(count);
    uint64_t bytes = 0;

    rusage r0{}, r1{};
    getrusage(RUSAGE_THREAD, &r0);
    const auto t0 = std::chrono::steady_clock::now();
    for (unsigned t = 0; t < count; t++) {
      uint64_t total = 0;
      for (unsigned m = 0; m < members; m++) {
        iov[m].iov_base = bufs[m].get();
        iov[m].iov_len = member_kib[in_order ? m % member_kib.size() : rng() % member_kib.size()] * KiB;
        total += iov[m].iov_len;
      }
      const uint64_t off = rng() % ((span_mib * MiB - total) / 4096 + 1) * 4096;
      const auto s = std::chrono::steady_clock::now();
      ssize_t n = write ? pwritev2(dev.fd(), iov.data(), members, off, hipri ? RWF_HIPRI : 0)
                        : preadv2(dev.fd(), iov.data(), members, off, hipri ? RWF_HIPRI : 0);
      const auto e = std::chrono::steady_clock::now();
      if (n < 0) throw sys_error(device + ": " + rw + " at " + std::to_string(off));
      if (static_cast<uint64_t>(n) != total)
        throw std::runtime_error(device + ": short " + rw + " (" + std::to_string(n) + " of " +
                                 std::to_string(total) + " bytes)");
      bytes += total;
      lat_us.push_back(std::chrono::duration<double, std::micro>(e - s).count());
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    getrusage(RUSAGE_THREAD, &r1);

    double sum = 0, sq = 0;
    for (double l : lat_us) sum += l;
    const double mean = sum / count;
    for (double l : lat_us) sq += (l - mean) * (l - mean);
    std::sort(lat_us.begin(), lat_us.end());
    const double p99 = nvmev::percentile_of_sorted(lat_us, 99);
    const double usr = seconds(r1.ru_utime) - seconds(r0.ru_utime);
    const double sys = seconds(r1.ru_stime) - seconds(r0.ru_stime);
    json out = {{"device", device},
                {"rw", rw},
                {"members", members},
                {"member_kib", member_kib},
                {"in_order", in_order},
                {"hipri", hipri},
                {"transactions", count},
                {"bytes", bytes},
                {"mean_us", mean},
                {"stdev_us", std::sqrt(sq / count)},
                {"p99_us", p99},
                {"wall_s", wall},
                {"usr_cpu_pct", 100 * usr / wall},
                {"sys_cpu_pct", 100 * sys / wall},
                {"ctx_voluntary", r1.ru_nvcsw - r0.ru_nvcsw},
                {"ctx_involuntary", r1.ru_nivcsw - r0.ru_nivcsw}};
    print(out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "nvmev-txn: " << e.what() << "\n";
    return 1;
  }
}
