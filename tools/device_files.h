// Reading and writing nvmev's debugfs files from userspace tools: where
// they are, the per-die counters, "key=value" lines, plain numbers, the
// placement query, and a setting held for a scope.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nvmev {

// nvmev.ko's debugfs directory of its first device (docs/module.md)
inline const std::string kDebugfsDir = "/sys/kernel/debug/nvmev";
// one file of it: "stats", "geometry", "time_scale", "locate"
std::string debugfs_file(const std::string& name);

// Per-die counters from the stats file (one row per die).
struct DieCounters {
  std::vector<uint64_t> reads, collisions, wait_ns;
};

// Empty path: no counters. Throws std::runtime_error if the file is unreadable.
DieCounters read_die_counters(const std::string& path);
// b - a, die by die
DieCounters operator-(const DieCounters& b, const DieCounters& a);

uint64_t read_number(const std::string& path);
void write_number(const std::string& path, uint64_t v);
// the value of a file's "key=value" line (geometry, stats); throws
// std::runtime_error if the file is unreadable or has no such line
uint64_t read_key(const std::string& path, const std::string& key);

// Where the placement query ("locate": write an LBA, read its place) puts
// a logical block: unmapped, or a die, a block and a unit offset in it.
struct Location {
  bool mapped = false;
  uint64_t die = 0, block = 0, offset = 0;
};
Location locate(const std::string& path, uint64_t lba);

// Hold a number in a sysfs or debugfs file (the model's time scale, a
// placement-hint switch) for a scope and put the old value back afterwards.
// An empty path leaves everything alone.
class ScopedSetting {
 public:
  ScopedSetting(const std::string& path, uint64_t value);
  ~ScopedSetting();
  ScopedSetting(const ScopedSetting&) = delete;
  ScopedSetting& operator=(const ScopedSetting&) = delete;

 private:
  std::string path_;
  uint64_t old_ = 0;
};

}  // namespace nvmev
