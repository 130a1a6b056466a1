// nvmev-uhost bench: a polled I/O load over one queue pair per thread,
// with optional verification of every block read (see verify.h) and a
// final read-back of everything written.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace uhost {

class Controller;

struct BenchOptions {
  std::string rw = "randread";  // randread randwrite read write randrw
  std::string bs = "4k";        // SIZE or MIN:MAX (random multiples of 4 KiB)
  uint32_t qd = 1;
  uint32_t queues = 1;
  double duration_s = 0;   // stop after this long, or
  uint64_t ios = 0;        // after this many I/Os, or
  std::string io_bytes;    // after this many bytes moved (e.g. 128m)
  std::string size;        // region of the namespace, from LBA 0; "" = all
  uint32_t rwmix_read = 50;  // randrw: percent reads
  bool verify = false;
  uint64_t seed = 1;
  uint32_t timeout_ms = 30000;  // per command
};

// "4k", "64K", "1m", "2G", "4096": bytes; throws UsageError
uint64_t parse_size(const std::string& s);

// The checks that need no device (a usage error before the device is
// touched); run_bench() checks the rest against the controller.
void check_options(const BenchOptions& o);

// Run the load on @ctrl (brought up, no I/O queues). The report has
// "workload", "config", "summary", "rows" (one row per queue).
nlohmann::ordered_json run_bench(Controller& ctrl, const BenchOptions& o);

}  // namespace uhost
