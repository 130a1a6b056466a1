// The one percentile of every userspace tool's latency reports: nearest
// rank, the smallest sample with at least p % of all samples at or below
// it (so p100 is the maximum and no value is interpolated).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace nvmev {

// 0-based index of the p-th percentile (p in (0, 100]) among n > 0 sorted
// samples.
size_t percentile_index(size_t n, double p);

// The p-th percentile of sorted samples; T{} if there are none.
template <class T>
T percentile_of_sorted(const std::vector<T>& sorted, double p) {
  return sorted.empty() ? T{} : sorted[percentile_index(sorted.size(), p)];
}

// The same of unsorted samples, which it partly reorders (nth_element:
// linear time, for the simulator's millions of samples).
template <class T>
T percentile(std::vector<T>& samples, double p) {
  if (samples.empty()) return T{};
  auto nth = samples.begin() + static_cast<std::ptrdiff_t>(percentile_index(samples.size(), p));
  std::nth_element(samples.begin(), nth, samples.end());
  return *nth;
}

}  // namespace nvmev
