// Reading and writing nvmev's debugfs files from userspace tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nvmev {

// Per-die counters from /sys/kernel/debug/nvmev/stats (one row per die).
struct DieCounters {
  std::vector<uint64_t> reads, collisions, wait_ns;
};

// Empty path: no counters. Throws std::runtime_error if the file is unreadable.
DieCounters read_die_counters(const std::string& path);
// b - a, die by die
DieCounters operator-(const DieCounters& b, const DieCounters& a);

uint64_t read_number(const std::string& path);
void write_number(const std::string& path, uint64_t v);

}  // namespace nvmev
