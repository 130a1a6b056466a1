#include "percentile.h"

#include <cmath>

namespace nvmev {

size_t percentile_index(size_t n, double p) {
  // rank ceil(p/100 * n), 1-based; the epsilon keeps 99.9 % of 1000 at
  // rank 999, where binary floating point would give 999.0000000000001
  const double rank = std::ceil(p * static_cast<double>(n) / 100.0 - 1e-9);
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return std::min(i, n - 1);
}

}  // namespace nvmev
