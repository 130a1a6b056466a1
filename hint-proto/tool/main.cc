// nvmev-hint: send placement hints to an nvmev device from userspace, on a
// stock kernel, through the NVMe passthrough ioctl; and replay the
// fragmented-file patterns of the research on a raw device.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "device_files.h"
#include "nvme_device.h"
#include "output.h"
#include "units.h"

using nvmev::DeviceError;
using nvmev::DieCounters;
using nvmev::json;
using nvmev::KiB;
using nvmev::NvmeDevice;

namespace {

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, AlignedFree>;

Buffer aligned_buffer(size_t bytes, uint8_t seed) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes) != 0) throw std::bad_alloc();
  auto* b = static_cast<uint8_t*>(p);
  for (size_t i = 0; i < bytes; i++) b[i] = static_cast<uint8_t>(i * 131 + seed);
  return Buffer(b);
}

struct ReplayOptions {
  std::string pattern = "append", gap = "worst";
  bool hints = true;
  uint64_t file_kib = 8 * 1024, chunk_kib = 0, max_gap_kib = 2048, stripe_kib = 0, read_kib = 1024;
  uint64_t seed = 1, read_time_scale = 0;
  bool trim = true;
  std::string stats = nvmev::debugfs_file("stats");
  std::string time_scale = nvmev::debugfs_file("time_scale");
};

// Largest passthrough write: a user buffer is mapped page by page, and the
// nvme driver takes at most 127 segments per command.
constexpr uint64_t kMaxWrite = 256 * KiB;

class Writer {
 public:
  explicit Writer(NvmeDevice& dev) : dev_(dev), buf_(aligned_buffer(kMaxWrite, 7)) {}
  // Write [off, off+len) in commands of at most kMaxWrite; the first
  // command carries the hint (an overwrite hint goes on every command).
  void write(uint64_t off, uint64_t len, nvmev_hint_kind hint = NVMEV_HINT_NONE,
             uint64_t prev_lba = 0) {
    const uint32_t lba = dev_.lba_bytes();
    for (uint64_t done = 0; done < len; done += kMaxWrite) {
      uint64_t n = std::min<uint64_t>(kMaxWrite, len - done);
      dev_.write((off + done) / lba, static_cast<uint32_t>(n / lba), buf_.get(),
                 done ? (hint == NVMEV_HINT_KIND_OVERWRITE ? hint : NVMEV_HINT_NONE) : hint,
                 prev_lba + done / lba);
    }
  }

 private:
  NvmeDevice& dev_;
  Buffer buf_;
};

// Sequential O_DIRECT reads of [off, off+len), read_bytes each, QD 1.
double read_mb_per_s(NvmeDevice& dev, uint64_t off, uint64_t len, uint64_t read_bytes) {
  Buffer buf = aligned_buffer(read_bytes, 0);
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t done = 0; done < len; done += read_bytes) {
    size_t n = std::min(read_bytes, len - done);
    ssize_t r = ::pread(dev.fd(), buf.get(), n, static_cast<off_t>(off + done));
    if (r != static_cast<ssize_t>(n)) throw DeviceError(dev.path() + ": read failed");
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(len) / s / 1e6;
}

json replay(NvmeDevice& dev, const ReplayOptions& o) {
  nvmev::HintCapability cap = dev.capability();
  if (o.hints && !cap.present)
    throw DeviceError(dev.path() + ": the device does not advertise placement hints");
  if (cap.present) dev.set_hints(o.hints);
  const uint64_t lba = dev.lba_bytes(), cap_bytes = dev.lbas() * lba;
  const uint64_t chunk = (o.chunk_kib ? o.chunk_kib * KiB : cap.granularity);
  const uint64_t stripe = o.stripe_kib ? o.stripe_kib * KiB : uint64_t{cap.dies} * cap.granularity;
  const uint64_t file = o.file_kib * KiB;
  if (!chunk || !stripe)
    throw std::invalid_argument("no hint capability: give --chunk-kib and --stripe-kib");
  if (chunk % 4096 || file % chunk || chunk > kMaxWrite)
    throw std::invalid_argument("chunk must be a multiple of 4 KiB up to 256 KiB dividing the file");
  if (4 * file + o.max_gap_kib * KiB > cap_bytes)
    throw std::invalid_argument("the device is too small for this file and gap");
  if (o.read_kib == 0 || (o.read_kib * KiB) % lba)
    throw std::invalid_argument("read size must be a non-zero multiple of the LBA size");

  // like the paper: start from a fully trimmed drive, so no garbage
  // collection left over from earlier runs competes with the reads
  if (o.trim) dev.discard_all();
  // contiguous copy [0, file), target [file, 2 file), other data after
  Writer w(dev);
  w.write(0, file);
  dev.flush();
  const uint64_t target = file, other_start = 2 * file;
  uint64_t other = other_start;
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<uint64_t> random_chunks(1, std::max<uint64_t>(1, o.max_gap_kib * KiB / chunk));
  const bool append = o.pattern == "append";
  if (!append) {
    w.write(target, file);
    dev.flush();
  }
  for (uint64_t off = 0; off < file; off += chunk) {
    nvmev_hint_kind hint = NVMEV_HINT_NONE;
    uint64_t prev = 0;
    if (o.hints && !append) {
      hint = NVMEV_HINT_KIND_OVERWRITE;
    } else if (o.hints && off) {
      hint = NVMEV_HINT_KIND_APPEND;
      prev = (target + off - 4096) / lba;  // the file's previous 4 KiB block
    }
    w.write(target + off, chunk, hint, prev);
    dev.flush();
    uint64_t gap = o.gap == "worst" ? (stripe > chunk ? stripe - chunk : stripe)
                                    : random_chunks(rng) * chunk;
    while (gap) {
      uint64_t n = std::min(gap, cap_bytes - other);
      w.write(other, n);
      other = other + n == cap_bytes ? other_start : other + n;
      gap -= n;
    }
    dev.flush();
  }

  nvmev::ScopedSetting scale(o.read_time_scale ? o.time_scale : "", o.read_time_scale);
  json rows = json::array();
  double contiguous = 0;
  for (const char* layout : {"contiguous", "fragmented"}) {
    uint64_t base = std::string(layout) == "contiguous" ? 0 : target;
    DieCounters before = nvmev::read_die_counters(o.stats);
    double mbps = read_mb_per_s(dev, base, file, o.read_kib * KiB);
    DieCounters d = nvmev::read_die_counters(o.stats) - before;
    if (base == 0) contiguous = mbps;
    json row{{"layout", layout}, {"mb_per_s", mbps}, {"relative", mbps / contiguous}};
    nvmev::add_die_columns(row, d);
    rows.push_back(row);
  }
  json summary{{"pattern", o.pattern},     {"gap", o.gap},
                {"hints", o.hints},         {"file_bytes", file},
                {"chunk_bytes", chunk},     {"stripe_bytes", stripe},
                {"relative_throughput", rows[1]["relative"]}};
  return json{{"workload", "replay"}, {"summary", summary}, {"rows", rows}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-hint: placement hints for nvmev devices (hint-proto/SPEC.md)"};
  app.require_subcommand(1);
  std::string dev_path, format = "json";
  app.add_option("--format", format, "output of replay")->check(CLI::IsMember({"json", "csv"}));

  auto* info = app.add_subcommand("info", "show the device's hint capability and state");
  info->add_option("device", dev_path, "namespace, e.g. /dev/nvme0n1")->required();
  auto* enable = app.add_subcommand("enable", "enable hint handling (Set Features 0xc0)");
  enable->add_option("device", dev_path)->required();
  auto* disable = app.add_subcommand("disable", "disable hint handling");
  disable->add_option("device", dev_path)->required();

  uint64_t lba = 0, blocks = 0, prev = 0;
  bool overwrite = false;
  auto* wr = app.add_subcommand("write", "one write, optionally hinted (data: a fixed pattern)");
  wr->add_option("device", dev_path)->required();
  wr->add_option("--lba", lba, "first LBA")->required();
  wr->add_option("--blocks", blocks, "number of LBAs")->required()->check(CLI::Range(1, 65536));
  auto* app_opt = wr->add_option("--append", prev, "append hint: LBA of the file's previous block");
  wr->add_flag("--overwrite", overwrite, "overwrite hint")->excludes(app_opt);

  ReplayOptions ro;
  std::string hints = "on";
  auto* rp = app.add_subcommand("replay", "replay a fragmented-file pattern, then time reads");
  rp->add_option("device", dev_path)->required();
  rp->add_option("--pattern", ro.pattern)->check(CLI::IsMember({"append", "overwrite"}))->capture_default_str();
  rp->add_option("--gap", ro.gap, "worst = stripe - chunk, random = chunk .. --max-gap-kib")
      ->check(CLI::IsMember({"worst", "random"}))->capture_default_str();
  rp->add_option("--hints", hints)->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  rp->add_option("--file-kib", ro.file_kib)->capture_default_str();
  rp->add_option("--chunk-kib", ro.chunk_kib, "0 = the device's granularity")->capture_default_str();
  rp->add_option("--stripe-kib", ro.stripe_kib, "0 = dies x granularity")->capture_default_str();
  rp->add_option("--max-gap-kib", ro.max_gap_kib, "largest random gap")->capture_default_str();
  rp->add_option("--read-kib", ro.read_kib)->capture_default_str();
  rp->add_option("--seed", ro.seed)->capture_default_str();
  rp->add_option("--stats", ro.stats, "device statistics file ('' = none)")->capture_default_str();
  rp->add_option("--read-time-scale", ro.read_time_scale,
                 "set the device's time_scale for the reads (0 = leave)")->capture_default_str();
  rp->add_option("--time-scale-file", ro.time_scale)->capture_default_str();
  bool no_trim = false;
  rp->add_flag("--no-trim", no_trim, "do not deallocate the drive first");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    NvmeDevice dev(dev_path);
    if (*info) {
      nvmev::HintCapability c = dev.capability();
      json j{{"device", dev_path}, {"supported", c.present}};
      if (c.present)
        j.update({{"version", c.version},
                  {"append", bool(c.caps & NVMEV_HINT_CAP_APPEND)},
                  {"overwrite", bool(c.caps & NVMEV_HINT_CAP_OVERWRITE)},
                  {"dies", c.dies},
                  {"granularity_bytes", c.granularity},
                  {"enabled", dev.hints_enabled()}});
      std::cout << j.dump(2) << "\n";
    } else if (*enable || *disable) {
      dev.set_hints(static_cast<bool>(*enable));
    } else if (*wr) {
      Buffer buf = aligned_buffer(blocks * dev.lba_bytes(), 3);
      nvmev_hint_kind kind = overwrite ? NVMEV_HINT_KIND_OVERWRITE
                             : app_opt->count() ? NVMEV_HINT_KIND_APPEND
                                                : NVMEV_HINT_NONE;
      dev.write(lba, static_cast<uint32_t>(blocks), buf.get(), kind, prev);
    } else if (*rp) {
      ro.hints = hints == "on";
      ro.trim = !no_trim;
      nvmev::print_report(std::cout, replay(dev, ro), format == "csv");
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "nvmev-hint: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "nvmev-hint: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
