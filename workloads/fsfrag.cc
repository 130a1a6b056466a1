// nvmev-fsfrag: the fragmented-file workloads of the FAST'24 paper through a
// file system. A target file is written in chunks, each followed by
// fdatasync and by other data written to a new dummy file (worst case:
// stripe - chunk bytes, so every chunk follows the same die; random: a
// multiple of --gap-step-kib up to --max-gap-kib). Overwrite: the file is written first, then each chunk is
// rewritten that way. A contiguous copy is written in one go. Both are read
// sequentially with O_DIRECT and timed; extents come from FIEMAP.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <random>
#include <stdexcept>
#include <string>

#include "fsutil.h"
#include "output.h"

using nvmev::json;
using nvmev::KiB;
using namespace nvmev::fs;

namespace {

struct Options : ToolOptions {
  std::string dir, kind = "append", gap = "worst";
  uint64_t file_kib = 8192, chunk_kib = 32, stripe_kib = 256, max_gap_kib = 2048, gap_step_kib = 32;
  uint64_t read_kib = 1024;
  uint64_t seed = 1;
  // one writer, pinned: see ToolOptions::cpu (unpinned, 0-2 of the worst
  // append's 256 chunks came out as two extents per run)
  Options() { cpu = 0; }
};

json run(const Options& o) {
  const uint64_t file = o.file_kib * KiB, chunk = o.chunk_kib * KiB;
  if (!chunk || file % chunk) throw std::invalid_argument("--file-kib must be a multiple of --chunk-kib");
  if (o.stripe_kib <= o.chunk_kib && o.gap == "worst")
    throw std::invalid_argument("--stripe-kib must exceed --chunk-kib");
  const std::string target = o.dir + "/target", contig = o.dir + "/contiguous";
  std::mt19937_64 rng(o.seed);
  if (!o.gap_step_kib || o.max_gap_kib < o.gap_step_kib)
    throw std::invalid_argument("--max-gap-kib must be at least --gap-step-kib (> 0)");
  std::uniform_int_distribution<uint64_t> pick(1, o.max_gap_kib / o.gap_step_kib);

  uint64_t pad = o.align ? align_cursor(o.dir, o.dev) : 0;
  write_sync(contig, 0, file, true);
  if (o.kind == "overwrite") write_sync(target, 0, file, true);
  for (uint64_t off = 0, i = 0; off < file; off += chunk, i++) {
    write_sync(target, off, chunk, o.kind == "append" && off == 0);
    uint64_t gap = o.gap == "worst" ? (o.stripe_kib - o.chunk_kib) * KiB : pick(rng) * o.gap_step_kib * KiB;
    write_sync(o.dir + "/dummy" + std::to_string(i), 0, gap, true);
  }
  ::sync();
  TimeScale scale(o.dev, o.read_time_scale);  // write fast, read with device time dominating
  json rows = json::array();
  for (const auto& path : {contig, target}) {
    auto extents = fiemap(path).size();  // also loads the block map: see fsutil.h
    auto r = timed_read(o.dev, [&] { return read_direct(path, file, o.read_kib * KiB); });
    rows.push_back(read_row(path == contig ? "contiguous" : "fragmented", r, "extents", extents));
  }
  json summary{{"kind", o.kind},
               {"gap", o.gap},
               {"file_bytes", file},
               {"chunk_bytes", chunk},
               {"pad_bytes", pad}};
  summary.update(compare_rows(rows, "extents"));
  return json{{"workload", "fsfrag"}, {"summary", summary}, {"rows", rows}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-fsfrag: fragmented-file workloads through a file system", "nvmev-fsfrag"};
  Options o;
  app.add_option("dir", o.dir, "directory on the file system under test")->required();
  app.add_option("--kind", o.kind)->check(CLI::IsMember({"append", "overwrite"}))->capture_default_str();
  app.add_option("--gap", o.gap)->check(CLI::IsMember({"worst", "random"}))->capture_default_str();
  app.add_option("--file-kib", o.file_kib)->capture_default_str();
  app.add_option("--chunk-kib", o.chunk_kib)->capture_default_str();
  app.add_option("--stripe-kib", o.stripe_kib, "worst case: other data per chunk = stripe - chunk")
      ->capture_default_str();
  app.add_option("--max-gap-kib", o.max_gap_kib, "random case: other data per chunk, at most")
      ->capture_default_str();
  app.add_option("--gap-step-kib", o.gap_step_kib, "random case: other data per chunk, in steps of")
      ->capture_default_str();
  app.add_option("--read-kib", o.read_kib)->capture_default_str();
  app.add_option("--seed", o.seed)->capture_default_str();
  add_tool_options(app, o);
  return run_tool(app, argc, argv, o, [&] { return run(o); });
}
