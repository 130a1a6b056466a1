#include "latency.h"

#include <algorithm>

#include "percentile.h"

namespace uhost {

LatencySummary summarize(std::vector<uint64_t>& samples_ns) {
  LatencySummary s;
  s.count = samples_ns.size();
  if (samples_ns.empty()) return s;
  std::sort(samples_ns.begin(), samples_ns.end());
  long double sum = 0;
  for (uint64_t v : samples_ns) sum += v;
  s.mean_us = double(sum / samples_ns.size()) / 1000.0;
  s.p50_us = nvmev::percentile_of_sorted(samples_ns, 50) / 1000.0;
  s.p99_us = nvmev::percentile_of_sorted(samples_ns, 99) / 1000.0;
  s.p999_us = nvmev::percentile_of_sorted(samples_ns, 99.9) / 1000.0;
  s.max_us = samples_ns.back() / 1000.0;
  return s;
}

}  // namespace uhost
