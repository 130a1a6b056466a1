// nvmev-fileserver: the fileserver workload of the FAST'24 fragmentation
// paper (filebench's fileserver personality, modified there; filebench is
// not in Debian). --files files of --file-kib are written one after the
// other; then --threads threads append --append-kib to random files, each
// append made durable with fdatasync so the drive sees the appends in the
// order the threads issue them, until --appends appends are done. Every
// file is then copied contiguously, and whole-file O_DIRECT reads (1 MiB)
// by --threads threads over each set are timed with a cold cache.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <exception>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fsutil.h"
#include "output.h"

using nvmev::json;
using nvmev::KiB;
using nvmev::MiB;
using namespace nvmev::fs;

namespace {

struct Options : ToolOptions {
  std::string dir;
  uint64_t files = 64, file_kib = 128, append_kib = 32, appends = 1024, threads = 4;
  uint64_t read_kib = 1024, seed = 1;
};

std::string name(const std::string& dir, const char* set, uint64_t i) {
  return dir + "/" + set + "/f" + std::to_string(i);
}

// Run fn(thread, item) for items 0..n-1 on @threads threads; rethrows the
// first failure after all threads stopped.
void parallel(uint64_t threads, uint64_t n, const std::function<void(uint64_t, uint64_t)>& fn) {
  std::atomic<uint64_t> next{0};
  std::exception_ptr failure;
  std::mutex m;
  std::vector<std::thread> pool;
  for (uint64_t t = 0; t < threads; t++) {
    pool.emplace_back([&, t] {
      try {
        for (uint64_t i; (i = next++) < n;) fn(t, i);
      } catch (...) {
        std::lock_guard<std::mutex> g(m);
        if (!failure) failure = std::current_exception();
        next = n;
      }
    });
  }
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}

json read_set(const Options& o, const char* set) {
  drop_caches();
  uint64_t extents = 0;  // FIEMAP also loads the block maps: see fsutil.h
  for (uint64_t i = 0; i < o.files; i++) extents += fiemap(name(o.dir, set, i)).size();
  auto r = timed_read(o.dev, [&] {
    std::atomic<uint64_t> bytes{0};
    parallel(o.threads, o.files, [&](uint64_t, uint64_t i) {
      const std::string path = name(o.dir, set, i);
      bytes += read_direct(path, file_size(path), o.read_kib * KiB);
    });
    return bytes.load();
  });
  return read_row(set, r, "extents_per_file",
                  static_cast<double>(extents) / static_cast<double>(o.files));
}

json run(const Options& o) {
  if (!o.files || !o.file_kib || !o.append_kib || !o.threads || !o.read_kib)
    throw std::invalid_argument("--files, --file-kib, --append-kib, --threads, --read-kib must be > 0");
  if (o.threads > 256) throw std::invalid_argument("--threads must be at most 256");
  for (const char* set : {"fragmented", "contiguous"}) {
    const std::string d = o.dir + "/" + set;
    if (::mkdir(d.c_str(), 0755) && errno != EEXIST) throw sys_error(d);
  }
  uint64_t pad = o.align ? align_cursor(o.dir, o.dev) : 0;
  for (uint64_t i = 0; i < o.files; i++) write_sync(name(o.dir, "fragmented", i), 0, o.file_kib * KiB, true);
  std::vector<std::mt19937_64> rngs;
  for (uint64_t t = 0; t < o.threads; t++) rngs.emplace_back(o.seed * 1000003 + t);
  parallel(o.threads, o.appends, [&](uint64_t t, uint64_t) {
    uint64_t i = std::uniform_int_distribution<uint64_t>(0, o.files - 1)(rngs[t]);
    File f(name(o.dir, "fragmented", i), O_WRONLY | O_APPEND);
    write_sync(f, 0, o.append_kib * KiB);  // O_APPEND: the offset is the end
  });
  for (uint64_t i = 0; i < o.files; i++)
    copy_file(name(o.dir, "fragmented", i), name(o.dir, "contiguous", i));
  ::sync();
  TimeScale scale(o.dev, o.read_time_scale);
  json rows = json::array();
  rows.push_back(read_set(o, "contiguous"));
  rows.push_back(read_set(o, "fragmented"));
  json summary{{"files", o.files},
               {"file_bytes", o.file_kib * KiB},
               {"append_bytes", o.append_kib * KiB},
               {"appends", o.appends},
               {"threads", o.threads},
               {"pad_bytes", pad}};
  summary.update(compare_rows(rows, "extents_per_file"));
  return json{{"workload", "fileserver"}, {"summary", summary}, {"rows", rows}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-fileserver: threads appending to random files, then whole-file reads", "nvmev-fileserver"};
  Options o;
  app.add_option("dir", o.dir, "directory on the file system under test")->required();
  app.add_option("--files", o.files, "files (the paper: 10000)")->capture_default_str();
  app.add_option("--file-kib", o.file_kib, "initial size of each file")->capture_default_str();
  app.add_option("--append-kib", o.append_kib, "size of one append (the small variant: 16)")
      ->capture_default_str();
  app.add_option("--appends", o.appends, "appends in total")->capture_default_str();
  app.add_option("--threads", o.threads, "threads appending, then reading")->capture_default_str();
  app.add_option("--read-kib", o.read_kib, "O_DIRECT read size")->capture_default_str();
  app.add_option("--seed", o.seed)->capture_default_str();
  add_tool_options(app, o);
  return run_tool(app, argc, argv, o, [&] { return run(o); });
}
