// Built-in workloads of nvmev-sim: the experiments of the fragmentation
// research (fragmentation-hints.md) expressed against the flash model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine.h"
#include "model.h"
#include "units.h"

namespace nvmev {

// Per-die counters of one phase (differences of ftl_die_stats).
struct DieActivity {
  std::vector<uint64_t> reads;       // NAND reads for the host
  std::vector<uint64_t> collisions;  // of which waited for a busy die
  std::vector<uint64_t> wait_ns;     // and how long they waited
  uint64_t total_reads() const;
  uint64_t total_collisions() const;
  uint64_t total_wait_ns() const;
  unsigned dies_used() const;
};

// "Alignment": write a region sequentially, then read 4 KiB at random
// multiples of a stride; throughput falls once the stride exceeds the
// die-allocation granularity and repeats with the stripe.
struct AlignmentParams {
  uint64_t region_bytes = 256 * MiB;
  std::vector<uint64_t> strides;  // bytes, each a multiple of 4 KiB
  uint64_t reads_per_stride = 20000;
  unsigned queue_depth = 64;
  uint64_t seed = 1;
};

struct AlignmentPoint {
  uint64_t stride_bytes;
  PhaseResult phase;
  double relative;  // throughput / throughput at the first stride
  DieActivity dies;
};

std::vector<AlignmentPoint> run_alignment(Model& model, const AlignmentParams& p);

// Random overwrite with garbage collection: fill sequentially, then write
// passes x capacity at random block-aligned offsets.
struct RandWriteParams {
  double passes = 3.0;
  uint64_t block_bytes = 4 * KiB;
  unsigned queue_depth = 32;
  uint64_t seed = 1;
};

struct RandWriteResult {
  PhaseResult fill;
  PhaseResult random;
  double write_amplification;
  ftl_stats stats;
  std::vector<ftl_die_stats> dies;
};

RandWriteResult run_randwrite(Model& model, const RandWriteParams& p);

// The fragmented-file experiment. A target file of file_bytes is written
// in chunk_bytes pieces, each followed by fdatasync and by a write of
// `gap` bytes to other data (worst case: stripe - chunk, so every chunk
// lands on the same die; random: chunk .. 1024 chunks). The file occupies
// LBAs [0, file_bytes); the other data fills the rest of the device in
// order, wrapping around. Append: the file is built this way. Overwrite:
// the file is first written contiguously, then each chunk is overwritten
// this way. After settle_ns of idle time the file is read sequentially, read_bytes per command at
// queue depth 1, and compared with a file written contiguously on an
// identical fresh device.
struct FragmentParams {
  enum class Kind { Append, Overwrite } kind = Kind::Append;
  enum class Gap { Worst, Random } gap = Gap::Worst;
  uint64_t file_bytes = 8 * MiB;
  uint64_t chunk_bytes = 0;  // 0 = the die-allocation granularity
  uint64_t read_bytes = 1 * MiB;
  uint64_t settle_ns = 1000000000;  // idle time before the read (background GC)
  bool send_hints = false;  // append/overwrite hints on the target file's writes
  // FDP handles (write streams) of the target file's writes and of the
  // other data's, -1: none named; the contiguous copy is written through
  // the file's
  int file_ruh = -1, other_ruh = -1;
  uint64_t seed = 1;
};

struct FragmentResult {
  PhaseResult fragmented;
  PhaseResult contiguous;
  double relative;  // fragmented / contiguous read throughput
  DieActivity fragmented_dies;
  DieActivity contiguous_dies;
  ftl_stats fragmented_stats;  // of the fragmented drive, hint counters included
};

FragmentResult run_fragment(const ftl_config& cfg, const FragmentParams& p);

// Sub-page appends (the research's page-level fragmentation): `files`
// files grow together, round-robin, by appends of append_bytes (less than
// a program unit), each followed by fdatasync and by other_bytes of other,
// unhinted data. After settle_ns of idle time each file is read
// sequentially at queue depth 1, and compared with the same files written
// contiguously on an identical fresh device: throughput, and the NAND
// reads a file costs against its size in program units.
struct SubpageParams {
  unsigned files = 16;
  uint64_t file_bytes = 1 * MiB;
  uint64_t append_bytes = 16 * KiB;
  uint64_t other_bytes = 16 * KiB;
  uint64_t read_bytes = 1 * MiB;
  uint64_t settle_ns = 2000000000;  // past the idle flush (write_point_idle_ns)
  bool send_hints = false;
  // Each append in an extent of its own, the files' appends interleaved in
  // logical blocks (ext4 with several files growing at once); a file is
  // read as its extents, all in flight at once (an O_DIRECT read of the
  // whole file, split by the block layer).
  bool extents = false;
};

struct SubpageResult {
  PhaseResult fragmented;
  PhaseResult contiguous;
  double relative;              // fragmented / contiguous read throughput
  double reads_per_file;        // NAND reads to read one file
  double contiguous_reads_per_file;
  double file_program_units;    // file_bytes / program unit
  ftl_stats stats;              // of the fragmented drive
};

SubpageResult run_subpage(const ftl_config& cfg, const SubpageParams& p);

const char* to_string(FragmentParams::Kind k);
const char* to_string(FragmentParams::Gap g);

}  // namespace nvmev
