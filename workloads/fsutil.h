// File helpers shared by the workload generators that run through a file
// system on an nvmev device: synced writes, FIEMAP, timed O_DIRECT reads,
// and lining the drive's cursor up with a granule before an experiment.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_files.h"
#include "output.h"
#include "units.h"

namespace CLI {
class App;
}

namespace nvmev::fs {

// Owns a file descriptor; throws on open failure with the path and errno.
class File {
 public:
  File(const std::string& path, int flags, int mode = 0644);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_;
};

std::runtime_error sys_error(const std::string& what);

struct FreeDeleter {
  void operator()(void* p) const;
};
using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;
// 4 KiB-aligned, filled with a fixed pattern (usable for O_DIRECT)
Buffer aligned_buffer(size_t n);

// pwrite len bytes at off (in pieces of at most 1 MiB), then fdatasync
void write_sync(const std::string& path, uint64_t off, uint64_t len, bool truncate = false);
// the same on an open file
void write_sync(const File& f, uint64_t off, uint64_t len);

// Copy @from to @to in 1 MiB writes, then fdatasync: the same bytes,
// written in one go (contiguous on an otherwise idle file system).
void copy_file(const std::string& from, const std::string& to);
uint64_t file_size(const std::string& path);

struct Extent {
  uint64_t logical, physical, length;  // bytes
};
// The tools call it on a file before timing a read of it: besides the
// extents it makes the file system load the file's block map (ext4's
// extent tree), so the timed read measures where the data sits, not the
// dependent metadata reads of a cold map. Those cost the same with and
// without placement hints, which cannot change them, and a device time
// scale inflates each into a whole NAND read on the critical path.
std::vector<Extent> fiemap(const std::string& path);

// Sequential O_DIRECT reads of the first len bytes, read_bytes each;
// returns len (throws on a short read).
uint64_t read_direct(const std::string& path, uint64_t len, uint64_t read_bytes);

// Write back and drop the page cache (needs root).
void drop_caches();

// nvmev's debugfs files (defaults: the first device).
struct Device {
  std::string stats = debugfs_file("stats");
  std::string geometry = debugfs_file("geometry");
  std::string time_scale = debugfs_file("time_scale");
  // the file system's placement-hint switch; align_cursor() turns it off
  // while padding (skipped if the file does not exist)
  std::string hints_switch = "/sys/fs/ext4/nvme0n1/placement_hints";
};

// Time read() -- which reads and returns the bytes it read -- and take the
// per-die NAND reads and collisions it caused from the device's counters.
struct ReadResult {
  double mb_per_s = 0;
  uint64_t bytes = 0;
  DieCounters dies;
};
ReadResult timed_read(const Device& dev, const std::function<uint64_t()>& read);

// Every tool reports the same rows: one per set of data read, the
// reference (the same data stored contiguously) first, the fragmented data
// second. read_row() makes one from a timed read: its throughput, bytes
// and per-die counters, @extents under @extents_key ("extents" of one
// file, "extents_per_file" of many), "relative" left 0. compare_rows()
// sets each row's "relative" to its throughput over the first row's and
// returns the summary fields all tools end with: the second row's relative
// throughput and degree of fragmentation (its extents over the first's).
json read_row(const std::string& name, const ReadResult& r, const std::string& extents_key,
              const json& extents);
json compare_rows(json& rows, const std::string& extents_key);

// Write a pad file in @dir so that the drive's round-robin cursor stands at
// a granule boundary: experiments then start from the same state as after
// a sequential fill, not from wherever mkfs left the cursor. Returns the
// pad's size in bytes; throws if the cursor does not line up (other
// writers, a journal on the same device). The pad is written without
// hints: the cursor is the unhinted writers', and with several write
// points per die a hinted pad would fill a stream point instead. It may
// take a pad per die: with several write points the shared granules of
// other dies hold only overwrites and unhinted data, and stay part-filled.
uint64_t align_cursor(const std::string& dir, const Device& dev);

// The model's time scale for a scope (0: leave it alone).
class TimeScale : public ScopedSetting {
 public:
  TimeScale(const Device& dev, uint64_t scale) : ScopedSetting(scale ? dev.time_scale : "", scale) {}
};

// What every workload generator takes besides its workload: the device's
// files, the time scale of the reads, the cursor alignment, the format.
struct ToolOptions {
  Device dev;
  uint64_t read_time_scale = 0;
  bool align = true;
  // the CPU the tool runs on, -1 = any. ext4's locality-group
  // preallocation is per CPU: a writer that the scheduler moves puts the
  // rest of a file's write into another group's area, i.e. another extent.
  int cpu = -1;
  std::string format = "json";
};
void add_tool_options(CLI::App& app, ToolOptions& t);

// Parse the command line, move to --cpu, run, print the report. Exit status 2 for bad
// input (CLI errors, std::invalid_argument), 1 for any other failure.
int run_tool(CLI::App& app, int argc, char** argv, const ToolOptions& t,
             const std::function<json()>& run);

}  // namespace nvmev::fs
