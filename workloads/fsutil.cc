#include "fsutil.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "device_files.h"

namespace nvmev::fs {

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

File::File(const std::string& path, int flags, int mode)
    : path_(path), fd_(::open(path.c_str(), flags, mode)) {
  if (fd_ < 0) throw sys_error(path);
}

File::~File() { ::close(fd_); }

void FreeDeleter::operator()(void* p) const { std::free(p); }

Buffer aligned_buffer(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, n)) throw std::bad_alloc();
  std::memset(p, 0x5a, n);
  return Buffer(static_cast<uint8_t*>(p));
}

void write_sync(const File& f, uint64_t off, uint64_t len) {
  auto buf = aligned_buffer(std::min<uint64_t>(MiB, len ? len : 1));
  for (uint64_t done = 0; done < len; done += MiB) {
    size_t n = std::min<uint64_t>(MiB, len - done);
    if (::pwrite(f.fd(), buf.get(), n, static_cast<off_t>(off + done)) != static_cast<ssize_t>(n))
      throw sys_error(f.path() + ": write");
  }
  if (::fdatasync(f.fd())) throw sys_error(f.path() + ": fdatasync");
}

void write_sync(const std::string& path, uint64_t off, uint64_t len, bool truncate) {
  File f(path, O_WRONLY | O_CREAT | (truncate ? O_TRUNC : 0));
  write_sync(f, off, len);
}

void copy_file(const std::string& from, const std::string& to) {
  File in(from, O_RDONLY), out(to, O_WRONLY | O_CREAT | O_TRUNC);
  auto buf = aligned_buffer(MiB);
  for (;;) {
    ssize_t n = ::read(in.fd(), buf.get(), MiB);
    if (n < 0) throw sys_error(from + ": read");
    if (!n) break;
    if (::write(out.fd(), buf.get(), static_cast<size_t>(n)) != n) throw sys_error(to + ": write");
  }
  if (::fdatasync(out.fd())) throw sys_error(to + ": fdatasync");
}

uint64_t file_size(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st)) throw sys_error(path);
  return static_cast<uint64_t>(st.st_size);
}

std::vector<Extent> fiemap(const std::string& path) {
  File f(path, O_RDONLY);
  std::vector<Extent> out;
  constexpr unsigned kBatch = 256;
  std::vector<uint8_t> mem(sizeof(struct fiemap) + kBatch * sizeof(struct fiemap_extent));
  auto* fm = reinterpret_cast<struct fiemap*>(mem.data());
  uint64_t start = 0;
  for (;;) {
    std::memset(mem.data(), 0, mem.size());
    fm->fm_start = start;
    fm->fm_length = ~0ull - start;
    fm->fm_flags = FIEMAP_FLAG_SYNC;
    fm->fm_extent_count = kBatch;
    if (::ioctl(f.fd(), FS_IOC_FIEMAP, fm)) throw sys_error(path + ": FIEMAP");
    if (!fm->fm_mapped_extents) return out;
    bool last = false;
    for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
      const auto& e = fm->fm_extents[i];
      out.push_back({e.fe_logical, e.fe_physical, e.fe_length});
      last = e.fe_flags & FIEMAP_EXTENT_LAST;
      start = e.fe_logical + e.fe_length;
    }
    if (last) return out;
  }
}

uint64_t read_direct(const std::string& path, uint64_t len, uint64_t read_bytes) {
  File f(path, O_RDONLY | O_DIRECT);
  auto buf = aligned_buffer(read_bytes);
  for (uint64_t done = 0; done < len; done += read_bytes) {
    size_t n = std::min(read_bytes, len - done);
    if (::pread(f.fd(), buf.get(), n, static_cast<off_t>(done)) != static_cast<ssize_t>(n))
      throw sys_error(path + ": read");
  }
  return len;
}

void drop_caches() {
  ::sync();
  std::ofstream f("/proc/sys/vm/drop_caches");
  f << "3\n";
  f.flush();
  if (!f) throw std::runtime_error("/proc/sys/vm/drop_caches: cannot write (root?)");
}

ReadResult timed_read(const Device& dev, const std::function<uint64_t()>& read) {
  ReadResult r;
  auto before = read_die_counters(dev.stats);
  auto t0 = std::chrono::steady_clock::now();
  r.bytes = read();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.dies = read_die_counters(dev.stats) - before;
  r.mb_per_s = static_cast<double>(r.bytes) / s / 1e6;
  return r;
}

json read_row(const std::string& name, const ReadResult& r, const std::string& extents_key,
              const json& extents) {
  json row{{"file", name},
           {"mb_per_s", r.mb_per_s},
           {"relative", 0.0},
           {"bytes", r.bytes},
           {extents_key, extents}};
  add_die_columns(row, r.dies);
  return row;
}

json compare_rows(json& rows, const std::string& extents_key) {
  if (rows.size() < 2) throw std::logic_error("compare_rows: needs a contiguous and a fragmented row");
  const double base = rows[0]["mb_per_s"].get<double>();
  for (auto& row : rows) row["relative"] = base > 0 ? row["mb_per_s"].get<double>() / base : 0.0;
  return json{{"relative_throughput", rows[1]["relative"]},
              {"dof", rows[1][extents_key].get<double>() /
                          std::max(1.0, rows[0][extents_key].get<double>())}};
}

uint64_t align_cursor(const std::string& dir, const Device& dev) {
  const uint64_t unit = 4096;
  const uint64_t gran = read_key(dev.geometry, "effective_granularity_bytes") / unit;
  // each pad completes the granule of the die the cursor is on; the next
  // die's may be part-filled too (overwrites go back to their die's shared
  // granule), so it can take one pad per die
  const uint64_t attempts = read_key(dev.geometry, "dies") + 1;
  uint64_t total = 0;
  ScopedSetting hints_off(::access(dev.hints_switch.c_str(), F_OK) == 0 ? dev.hints_switch : "", 0);
  for (uint64_t attempt = 0; attempt < attempts; attempt++) {
    uint64_t fill = read_key(dev.stats, "cursor_granule_units");
    if (!fill) return total;
    uint64_t pad = (gran - fill) * unit;
    write_sync(dir + "/.nvmev-pad" + std::to_string(attempt), 0, pad, true);
    total += pad;
  }
  throw std::runtime_error("the drive's cursor did not line up with a granule after " +
                           std::to_string(attempts) +
                           " pads: is something else writing to the device?");
}

void add_tool_options(CLI::App& app, ToolOptions& t) {
  app.add_option("--stats", t.dev.stats, "nvmev statistics file")->capture_default_str();
  app.add_option("--geometry", t.dev.geometry, "nvmev geometry file")->capture_default_str();
  app.add_flag("--align,!--no-align", t.align,
               "first pad the drive's cursor to a granule boundary (needs --stats, --geometry)");
  app.add_option("--read-time-scale", t.read_time_scale,
                 "set nvmev's time_scale for the reads (0 = leave)")->capture_default_str();
  app.add_option("--time-scale-file", t.dev.time_scale)->capture_default_str();
  app.add_option("--hints-switch", t.dev.hints_switch,
                 "the file system's placement-hint switch, off while --align pads")
      ->capture_default_str();
  app.add_option("--cpu", t.cpu, "run on this CPU only (-1 = wherever the scheduler puts it)")
      ->check(CLI::Range(-1, CPU_SETSIZE - 1))
      ->capture_default_str();
  app.add_option("--format", t.format)->check(CLI::IsMember({"json", "csv"}));
}

namespace {

void pin_to_cpu(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set))
    throw std::invalid_argument("--cpu " + std::to_string(cpu) + ": " + std::strerror(errno));
}

}  // namespace

int run_tool(CLI::App& app, int argc, char** argv, const ToolOptions& t,
             const std::function<json()>& run) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const std::string name = app.get_name();
  try {
    pin_to_cpu(t.cpu);
    print_report(std::cout, run(), t.format == "csv");
  } catch (const std::invalid_argument& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace nvmev::fs
