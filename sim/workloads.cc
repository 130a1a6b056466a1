#include "workloads.h"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace nvmev {

uint64_t DieActivity::total_reads() const {
  uint64_t s = 0;
  for (auto v : reads) s += v;
  return s;
}

uint64_t DieActivity::total_collisions() const {
  uint64_t s = 0;
  for (auto v : collisions) s += v;
  return s;
}

uint64_t DieActivity::total_wait_ns() const {
  uint64_t s = 0;
  for (auto v : wait_ns) s += v;
  return s;
}

unsigned DieActivity::dies_used() const {
  return static_cast<unsigned>(
      std::count_if(reads.begin(), reads.end(), [](uint64_t v) { return v > 0; }));
}

namespace {

void submit_checked(Engine& e, const ftl_cmd& c) {
  Completion r = e.submit(c);
  if (r.status != FTL_OK)
    throw std::runtime_error("model returned status " + std::to_string(r.status) +
                             " for a workload command");
}

// Write [off, off+len) in commands of at most `piece` bytes, through FDP
// handle @ruh (make_write()).
void write_range(Engine& e, uint64_t off, uint64_t len, uint64_t piece, int ruh = -1) {
  for (uint64_t done = 0; done < len; done += piece)
    submit_checked(e, make_write(off + done, std::min(piece, len - done), ruh));
}

// fdatasync: flush, and wait for it and everything before it.
void sync(Engine& e) {
  e.drain();
  submit_checked(e, make_cmd(FTL_OP_FLUSH, 0, 0));
  e.drain();
}

DieActivity activity(const std::vector<ftl_die_stats>& before,
                     const std::vector<ftl_die_stats>& after) {
  DieActivity a;
  for (size_t d = 0; d < after.size(); d++) {
    a.reads.push_back(after[d].host_reads - before[d].host_reads);
    a.collisions.push_back(after[d].read_collisions - before[d].read_collisions);
    a.wait_ns.push_back(after[d].read_wait_ns - before[d].read_wait_ns);
  }
  return a;
}

}  // namespace

std::vector<AlignmentPoint> run_alignment(Model& model, const AlignmentParams& p) {
  if (p.region_bytes == 0 || p.region_bytes % (4 * KiB) ||
      p.region_bytes > model.capacity_bytes())
    throw std::invalid_argument("alignment: region must be a non-zero multiple of 4 KiB "
                                "within the device capacity");
  if (p.strides.empty()) throw std::invalid_argument("alignment: no strides given");
  for (uint64_t s : p.strides)
    if (s == 0 || s % (4 * KiB) || s > p.region_bytes)
      throw std::invalid_argument("alignment: stride " + std::to_string(s) +
                                  " is not a multiple of 4 KiB within the region");

  Engine e(model, 8);
  write_range(e, 0, p.region_bytes, 1 * MiB);
  sync(e);

  std::mt19937_64 rng(p.seed);
  std::vector<AlignmentPoint> out;
  e.set_queue_depth(p.queue_depth);
  for (uint64_t stride : p.strides) {
    std::uniform_int_distribution<uint64_t> pick(0, p.region_bytes / stride - 1);
    auto before = model.die_stats();
    e.begin_phase();
    for (uint64_t i = 0; i < p.reads_per_stride; i++)
      submit_checked(e, make_cmd(FTL_OP_READ, pick(rng) * stride, 4 * KiB));
    AlignmentPoint pt{stride, e.end_phase(), 0, activity(before, model.die_stats())};
    out.push_back(pt);
  }
  double base = out.front().phase.mb_per_s();
  for (auto& pt : out) pt.relative = base > 0 ? pt.phase.mb_per_s() / base : 0;
  return out;
}

RandWriteResult run_randwrite(Model& model, const RandWriteParams& p) {
  const uint64_t cap = model.capacity_bytes();
  if (p.block_bytes == 0 || p.block_bytes % (4 * KiB) || p.block_bytes > cap)
    throw std::invalid_argument("randwrite: block size must be a non-zero multiple of 4 KiB");
  if (!(p.passes > 0)) throw std::invalid_argument("randwrite: passes must be positive");

  RandWriteResult r{};
  Engine e(model, p.queue_depth);
  e.begin_phase();
  write_range(e, 0, cap - cap % p.block_bytes, std::max<uint64_t>(p.block_bytes, 128 * KiB));
  r.fill = e.end_phase();

  std::mt19937_64 rng(p.seed);
  std::uniform_int_distribution<uint64_t> pick(0, cap / p.block_bytes - 1);
  const auto writes = static_cast<uint64_t>(p.passes * static_cast<double>(cap / p.block_bytes));
  model.reset_stats();
  e.begin_phase();
  for (uint64_t i = 0; i < writes; i++)
    submit_checked(e, make_cmd(FTL_OP_WRITE, pick(rng) * p.block_bytes, p.block_bytes));
  r.random = e.end_phase();
  r.write_amplification = model.write_amplification();
  r.stats = model.stats();
  r.dies = model.die_stats();
  return r;
}

namespace {

// Writes everything that is not the target file, in order, wrapping.
class OtherData {
 public:
  OtherData(uint64_t start, uint64_t end, int ruh)
      : start_(start), end_(end), next_(start), ruh_(ruh) {}
  void write(Engine& e, uint64_t len) {
    while (len) {
      uint64_t n = std::min(len, end_ - next_);
      write_range(e, next_, n, 1 * MiB, ruh_);
      next_ += n;
      len -= n;
      if (next_ == end_) next_ = start_;
    }
  }

 private:
  uint64_t start_, end_, next_;
  int ruh_;
};

PhaseResult read_file(Engine& e, const FragmentParams& p) {
  e.idle(p.settle_ns);
  e.set_queue_depth(1);
  e.begin_phase();
  for (uint64_t off = 0; off < p.file_bytes; off += p.read_bytes)
    submit_checked(e, make_cmd(FTL_OP_READ, off, std::min(p.read_bytes, p.file_bytes - off)));
  return e.end_phase();
}

}  // namespace

FragmentResult run_fragment(const ftl_config& cfg, const FragmentParams& p) {
  Model frag(cfg), contig(cfg);
  const ftl_geometry& g = frag.geometry();
  const uint64_t gran = static_cast<uint64_t>(g.gran_units) * 4 * KiB;
  const uint64_t chunk = p.chunk_bytes ? p.chunk_bytes : gran;
  const uint64_t cap = frag.capacity_bytes();

  if (chunk % (4 * KiB) || p.file_bytes == 0 || p.file_bytes % chunk)
    throw std::invalid_argument("fragment: file size must be a non-zero multiple of the "
                                "chunk, and the chunk a multiple of 4 KiB");
  if (p.read_bytes == 0 || p.read_bytes % (4 * KiB))
    throw std::invalid_argument("fragment: read size must be a non-zero multiple of 4 KiB");
  if (p.file_bytes + std::max(chunk, 32 * MiB) > cap)
    throw std::invalid_argument("fragment: the device must hold the file plus 32 MiB of "
                                "other data");

  std::mt19937_64 rng(p.seed);
  std::uniform_int_distribution<uint64_t> random_chunks(1, 1024);
  auto gap = [&]() -> uint64_t {
    if (p.gap == FragmentParams::Gap::Worst)
      return g.stripe_bytes > chunk ? g.stripe_bytes - chunk : g.stripe_bytes;
    return random_chunks(rng) * chunk;
  };

  FragmentResult r{};
  {
    Engine e(frag, 32);
    OtherData other(p.file_bytes, cap, p.other_ruh);
    if (p.kind == FragmentParams::Kind::Overwrite) {
      write_range(e, 0, p.file_bytes, chunk, p.file_ruh);
      sync(e);
    }
    const bool append = p.kind == FragmentParams::Kind::Append;
    for (uint64_t off = 0; off < p.file_bytes; off += chunk) {
      ftl_cmd w = make_write(off, chunk, p.file_ruh);
      if (p.send_hints && !append) {
        w.hint = FTL_HINT_OVERWRITE;
      } else if (p.send_hints && off) {  // the file's first block has no predecessor
        w.hint = FTL_HINT_APPEND;
        w.hint_prev_off = off - 4 * KiB;
      }
      submit_checked(e, w);
      sync(e);
      other.write(e, gap());
      sync(e);
    }
    auto before = frag.die_stats();
    r.fragmented = read_file(e, p);
    r.fragmented_dies = activity(before, frag.die_stats());
    r.fragmented_stats = frag.stats();
  }
  {
    Engine e(contig, 32);
    write_range(e, 0, p.file_bytes, chunk, p.file_ruh);
    sync(e);
    auto before = contig.die_stats();
    r.contiguous = read_file(e, p);
    r.contiguous_dies = activity(before, contig.die_stats());
  }
  double base = r.contiguous.mb_per_s();
  r.relative = base > 0 ? r.fragmented.mb_per_s() / base : 0;
  return r;
}

namespace {

// Where append @at of file @f lives: after the file's earlier appends, or
// with extents its own extent between the other files' appends.
uint64_t append_offset(const SubpageParams& p, unsigned f, uint64_t at) {
  if (!p.extents) return f * p.file_bytes + at;
  return (at / p.append_bytes * p.files + f) * p.append_bytes;
}

// Read each file in order: in read_bytes commands at QD1 from
// [f * file_bytes, (f + 1) * file_bytes), or, for the fragmented files
// with extents, as its extents all at once.
PhaseResult read_files(Engine& e, const SubpageParams& p, bool contiguous) {
  const bool extents = p.extents && !contiguous;
  e.idle(p.settle_ns);
  e.set_queue_depth(extents ? static_cast<unsigned>(p.file_bytes / p.append_bytes + 1) : 1);
  e.begin_phase();
  for (unsigned f = 0; f < p.files; f++) {
    if (extents) {
      for (uint64_t at = 0; at < p.file_bytes; at += p.append_bytes)
        submit_checked(e, make_cmd(FTL_OP_READ, append_offset(p, f, at),
                                   std::min(p.append_bytes, p.file_bytes - at)));
      e.drain();  // the file's read returns once all its extents are in
      continue;
    }
    for (uint64_t off = 0; off < p.file_bytes; off += p.read_bytes)
      submit_checked(e, make_cmd(FTL_OP_READ, f * p.file_bytes + off,
                                 std::min(p.read_bytes, p.file_bytes - off)));
  }
  return e.end_phase();
}

}  // namespace

SubpageResult run_subpage(const ftl_config& cfg, const SubpageParams& p) {
  Model frag(cfg), contig(cfg);
  const ftl_geometry& g = frag.geometry();
  const uint64_t cap = frag.capacity_bytes(), files_bytes = p.files * p.file_bytes;

  if (p.append_bytes == 0 || p.append_bytes % (4 * KiB) || p.other_bytes % (4 * KiB) ||
      p.file_bytes == 0 || p.file_bytes % (4 * KiB) || p.read_bytes == 0 ||
      p.read_bytes % (4 * KiB) || p.files == 0)
    throw std::invalid_argument("subpage: files, sizes and reads must be non-zero multiples "
                                "of 4 KiB");
  if (files_bytes + std::max<uint64_t>(p.other_bytes, 32 * MiB) > cap)
    throw std::invalid_argument("subpage: the device must hold the files plus 32 MiB of "
                                "other data");

  SubpageResult r{};
  {
    Engine e(frag, 32);
    OtherData other(files_bytes, cap, -1);
    for (uint64_t at = 0; at < p.file_bytes; at += p.append_bytes) {
      for (unsigned f = 0; f < p.files; f++) {
        const uint64_t off = append_offset(p, f, at);
        ftl_cmd w = make_cmd(FTL_OP_WRITE, off, std::min(p.append_bytes, p.file_bytes - at));
        if (p.send_hints && at) {  // a file's first block has no predecessor
          w.hint = FTL_HINT_APPEND;
          w.hint_prev_off = append_offset(p, f, at - p.append_bytes) + p.append_bytes - 4 * KiB;
        }
        submit_checked(e, w);
        sync(e);
        if (p.other_bytes) {
          other.write(e, p.other_bytes);
          sync(e);
        }
      }
    }
    auto before = frag.die_stats();
    r.fragmented = read_files(e, p, false);
    r.reads_per_file =
        static_cast<double>(activity(before, frag.die_stats()).total_reads()) / p.files;
    r.stats = frag.stats();
  }
  {
    Engine e(contig, 32);
    write_range(e, 0, files_bytes, 128 * KiB);
    sync(e);
    auto before = contig.die_stats();
    r.contiguous = read_files(e, p, true);
    r.contiguous_reads_per_file =
        static_cast<double>(activity(before, contig.die_stats()).total_reads()) / p.files;
  }
  const double base = r.contiguous.mb_per_s();
  r.relative = base > 0 ? r.fragmented.mb_per_s() / base : 0;
  r.file_program_units =
      static_cast<double>(p.file_bytes) / (static_cast<double>(g.pu_units) * 4 * KiB);
  return r;
}

const char* to_string(FragmentParams::Kind k) {
  return k == FragmentParams::Kind::Append ? "append" : "overwrite";
}

const char* to_string(FragmentParams::Gap g) {
  return g == FragmentParams::Gap::Worst ? "worst" : "random";
}

}  // namespace nvmev
