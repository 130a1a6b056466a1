// nvmev-fsfrag: the fragmented-file workloads of the FAST'24 paper through a
// file system. A target file is written in chunks, each followed by
// fdatasync and by other data written to a new dummy file (worst case:
// stripe - chunk bytes, so every chunk follows the same die; random: up to
// --max-gap-kib). Overwrite: the file is written first, then each chunk is
// rewritten that way. A contiguous copy is written in one go. Both are read
// sequentially with O_DIRECT and timed; extents come from FIEMAP.
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_files.h"
#include "report.h"

using nvmev::json;

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

std::unique_ptr<uint8_t, FreeDeleter> buffer(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, n)) throw std::bad_alloc();
  std::memset(p, 0x5a, n);
  return std::unique_ptr<uint8_t, FreeDeleter>(static_cast<uint8_t*>(p));
}

// pwrite len bytes at off (in pieces of at most 1 MiB), then fdatasync
void write_sync(const std::string& path, uint64_t off, uint64_t len, bool truncate = false) {
  Fd f(::open(path.c_str(), O_WRONLY | O_CREAT | (truncate ? O_TRUNC : 0), 0644));
  if (f.fd < 0) throw sys_error(path);
  auto buf = buffer(MiB);
  for (uint64_t done = 0; done < len; done += MiB) {
    size_t n = std::min<uint64_t>(MiB, len - done);
    if (::pwrite(f.fd, buf.get(), n, static_cast<off_t>(off + done)) != static_cast<ssize_t>(n))
      throw sys_error(path + ": write");
  }
  if (::fdatasync(f.fd)) throw sys_error(path + ": fdatasync");
}

uint64_t extents(const std::string& path) {
  Fd f(::open(path.c_str(), O_RDONLY));
  if (f.fd < 0) throw sys_error(path);
  fiemap fm{};
  fm.fm_length = ~0ull;
  fm.fm_flags = FIEMAP_FLAG_SYNC;
  if (::ioctl(f.fd, FS_IOC_FIEMAP, &fm)) throw sys_error(path + ": FIEMAP");
  return fm.fm_mapped_extents;
}

// MB/s of sequential O_DIRECT reads of the whole file, read_bytes each
double read_mb_per_s(const std::string& path, uint64_t len, uint64_t read_bytes) {
  Fd f(::open(path.c_str(), O_RDONLY | O_DIRECT));
  if (f.fd < 0) throw sys_error(path);
  auto buf = buffer(read_bytes);
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t done = 0; done < len; done += read_bytes) {
    size_t n = std::min(read_bytes, len - done);
    if (::pread(f.fd, buf.get(), n, static_cast<off_t>(done)) != static_cast<ssize_t>(n))
      throw sys_error(path + ": read");
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(len) / s / 1e6;
}

struct Options {
  std::string dir, kind = "append", gap = "worst", stats = "/sys/kernel/debug/nvmev/stats";
  std::string time_scale_file = "/sys/kernel/debug/nvmev/time_scale";
  uint64_t file_kib = 8192, chunk_kib = 32, stripe_kib = 256, max_gap_kib = 2048, read_kib = 1024;
  uint64_t seed = 1, read_time_scale = 0;
};

json run(const Options& o) {
  const uint64_t file = o.file_kib * KiB, chunk = o.chunk_kib * KiB;
  if (!chunk || file % chunk) throw std::invalid_argument("--file-kib must be a multiple of --chunk-kib");
  if (o.stripe_kib <= o.chunk_kib && o.gap == "worst")
    throw std::invalid_argument("--stripe-kib must exceed --chunk-kib");
  const std::string target = o.dir + "/target", contig = o.dir + "/contiguous";
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<uint64_t> pick(1, std::max<uint64_t>(1, o.max_gap_kib / o.chunk_kib));

  write_sync(contig, 0, file, true);
  if (o.kind == "overwrite") write_sync(target, 0, file, true);
  for (uint64_t off = 0, i = 0; off < file; off += chunk, i++) {
    write_sync(target, off, chunk, o.kind == "append" && off == 0);
    uint64_t gap = o.gap == "worst" ? (o.stripe_kib - o.chunk_kib) * KiB : pick(rng) * chunk;
    write_sync(o.dir + "/dummy" + std::to_string(i), 0, gap, true);
  }
  ::sync();
  uint64_t old_scale = 0;
  if (o.read_time_scale) {  // write fast, read with the modelled delays dominating
    old_scale = nvmev::read_number(o.time_scale_file);
    nvmev::write_number(o.time_scale_file, o.read_time_scale);
  }
  json rows = json::array();
  double base = 0;
  for (const auto& path : {contig, target}) {
    auto before = nvmev::read_die_counters(o.stats);
    double mbps = read_mb_per_s(path, file, o.read_kib * KiB);
    auto d = nvmev::read_die_counters(o.stats) - before;
    if (path == contig) base = mbps;
    json row{{"file", path == contig ? "contiguous" : "fragmented"},
             {"mb_per_s", mbps},
             {"relative", mbps / base},
             {"extents", extents(path)}};
    uint64_t coll = 0, used = 0;
    for (size_t i = 0; i < d.reads.size(); i++) {
      row["die" + std::to_string(i) + "_reads"] = d.reads[i];
      coll += d.collisions[i];
      used += d.reads[i] > 0;
    }
    row["collisions"] = coll;
    row["dies_used"] = used;
    rows.push_back(row);
  }
  if (o.read_time_scale) nvmev::write_number(o.time_scale_file, old_scale);
  json summary{{"kind", o.kind},
               {"gap", o.gap},
               {"file_bytes", file},
               {"chunk_bytes", chunk},
               {"relative_throughput", rows[1]["relative"]},
               {"dof", static_cast<double>(rows[1]["extents"].get<uint64_t>()) /
                           std::max<uint64_t>(1, rows[0]["extents"].get<uint64_t>())}};
  return json{{"workload", "fsfrag"}, {"summary", summary}, {"rows", rows}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-fsfrag: fragmented-file workloads through a file system"};
  Options o;
  std::string format = "json";
  app.add_option("dir", o.dir, "directory on the file system under test")->required();
  app.add_option("--kind", o.kind)->check(CLI::IsMember({"append", "overwrite"}))->capture_default_str();
  app.add_option("--gap", o.gap)->check(CLI::IsMember({"worst", "random"}))->capture_default_str();
  app.add_option("--file-kib", o.file_kib)->capture_default_str();
  app.add_option("--chunk-kib", o.chunk_kib)->capture_default_str();
  app.add_option("--stripe-kib", o.stripe_kib, "worst case: other data per chunk = stripe - chunk")
      ->capture_default_str();
  app.add_option("--max-gap-kib", o.max_gap_kib, "random case: other data per chunk, at most")
      ->capture_default_str();
  app.add_option("--read-kib", o.read_kib)->capture_default_str();
  app.add_option("--seed", o.seed)->capture_default_str();
  app.add_option("--stats", o.stats, "nvmev statistics file for per-die reads ('' = none)");
  app.add_option("--format", format)->check(CLI::IsMember({"json", "csv"}));
  app.add_option("--read-time-scale", o.read_time_scale,
                 "set nvmev's time_scale for the reads (0 = leave)")->capture_default_str();
  app.add_option("--time-scale-file", o.time_scale_file)->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    nvmev::print_report(std::cout, run(o), format == "csv");
  } catch (const std::invalid_argument& e) {
    std::cerr << "nvmev-fsfrag: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "nvmev-fsfrag: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
