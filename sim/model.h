// C++ handle for the flash model in ftl/ (the same C code nvmev.ko runs).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include "ftl.h"
}

namespace nvmev {

// The model refused its configuration; what() is the validator's message.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Completion {
  uint64_t done_ns;
  int status;  // enum ftl_status
};

class Model {
 public:
  explicit Model(const ftl_config& cfg);

  Completion submit(const ftl_cmd& cmd, uint64_t now_ns);
  // The drive is idle until now_ns: background GC may run.
  void idle(uint64_t now_ns) { ftl_idle(ftl_.get(), now_ns); }

  const ftl_geometry& geometry() const { return *ftl_get_geometry(ftl_.get()); }
  const ftl_config& config() const { return cfg_; }
  uint64_t capacity_bytes() const { return ftl_capacity_bytes(ftl_.get()); }
  ftl_stats stats() const;
  std::vector<ftl_die_stats> die_stats() const;
  void reset_stats() { ftl_stats_reset(ftl_.get()); }
  double write_amplification() const;
  // Die holding the 4 KiB unit at byte offset off; -1 when unmapped.
  int die_of(uint64_t off) const;
  // Empty string when consistent, otherwise the first inconsistency.
  std::string check() const;
  ftl* raw() { return ftl_.get(); }

  // Zones on flash (ftl_zoned_add); throws ConfigError with the reason.
  void add_zones(uint64_t off, uint64_t zone_bytes, uint64_t cap_bytes, uint32_t nr_zones,
                 uint32_t width);
  Completion zone_reset(uint64_t off, uint64_t now_ns);
  Completion zone_finish(uint64_t off, uint64_t now_ns);
  ftl_zone_stats zone_stats(uint64_t off) const;

 private:
  struct Deleter {
    void operator()(ftl* f) const { ftl_destroy(f); }
  };
  ftl_config cfg_;
  std::unique_ptr<ftl, Deleter> ftl_;
};

// nvmev-sim's drive when neither capacity_mib nor blocks_per_plane is set
constexpr uint64_t kDefaultCapacityMib = 4096;

// The table's defaults with the simulator's default capacity.
ftl_config default_config();
// A small drive that garbage-collects a lot: 4 dies, 256 KiB blocks,
// 32 MiB (unit tests, the fuzz target).
ftl_config small_config();
// Fill in the simulator's default capacity if no size was given.
void apply_default_capacity(ftl_config& cfg);

// A command for the model; offsets and lengths in bytes.
ftl_cmd make_cmd(uint8_t op, uint64_t off, uint64_t len, uint8_t hint = FTL_HINT_NONE);
// A write through FDP reclaim unit handle @ruh of reclaim group @rg, as a
// write stream or a placement identifier names one; none named if @ruh < 0.
ftl_cmd make_write(uint64_t off, uint64_t len, int ruh = -1, uint16_t rg = 0);

}  // namespace nvmev
