// Latency summaries: mean and percentiles (tools/percentile.h) of samples in ns.
#pragma once

#include <cstdint>
#include <vector>

namespace uhost {

struct LatencySummary {
  uint64_t count = 0;
  double mean_us = 0, p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
};

// Sorts @samples_ns in place.
LatencySummary summarize(std::vector<uint64_t>& samples_ns);

}  // namespace uhost
