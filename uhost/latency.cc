#include "latency.h"

#include <algorithm>
#include <cmath>

namespace uhost {

uint64_t percentile(const std::vector<uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  // rank ceil(p/100 * n), 1-based: the smallest sample with at least p %
  // of all samples at or below it; the epsilon keeps 99.9 % of 1000 at
  // rank 999, where binary floating point would give 999.0000000000001
  double rank = std::ceil(p * double(sorted.size()) / 100.0 - 1e-9);
  size_t i = rank < 1 ? 0 : size_t(rank) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

LatencySummary summarize(std::vector<uint64_t>& samples_ns) {
  LatencySummary s;
  s.count = samples_ns.size();
  if (samples_ns.empty()) return s;
  std::sort(samples_ns.begin(), samples_ns.end());
  long double sum = 0;
  for (uint64_t v : samples_ns) sum += v;
  s.mean_us = double(sum / samples_ns.size()) / 1000.0;
  s.p50_us = percentile(samples_ns, 50) / 1000.0;
  s.p99_us = percentile(samples_ns, 99) / 1000.0;
  s.p999_us = percentile(samples_ns, 99.9) / 1000.0;
  s.max_us = samples_ns.back() / 1000.0;
  return s;
}

}  // namespace uhost
