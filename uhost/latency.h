// Latency summaries: mean and nearest-rank percentiles of samples in ns.
#pragma once

#include <cstdint>
#include <vector>

namespace uhost {

struct LatencySummary {
  uint64_t count = 0;
  double mean_us = 0, p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
};

// Nearest-rank percentile (p in (0, 100]) of sorted samples; 0 if empty.
uint64_t percentile(const std::vector<uint64_t>& sorted, double p);

// Sorts @samples_ns in place.
LatencySummary summarize(std::vector<uint64_t>& samples_ns);

}  // namespace uhost
