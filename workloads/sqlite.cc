// nvmev-sqlite: the SQLite workload of the FAST'24 fragmentation paper.
// Rows of about --row-kib are inserted one transaction at a time; after each
// one, --dummy-kib are appended to another file and fdatasync'ed, so the
// database grows interleaved with other data. The reference is what the
// paper compared with: the same inserts into another database with nothing
// in between (one extent), built with the drive's placement hints off
// (--reference-hints names the switch). A copy of the fragmented database
// written in one go is read too: every page written once, in order, which
// no database that SQLite updates in place has. `SELECT *` over each is
// timed with a cold page cache (buffered reads: SQLite's pages, the
// kernel's readahead). --hinted-reference builds the reference a second
// time with the hints on: does placement cost an in-place-updated
// database that is not fragmented anything? The SQLite settings default
// to the paper's artifact: no rollback journal, synchronous=NORMAL.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fsutil.h"
#include "output.h"

using nvmev::json;
using nvmev::KiB;
using nvmev::ScopedSetting;
using namespace nvmev::fs;

namespace {

struct Options : ToolOptions {
  std::string dir;
  uint64_t rows = 1000, row_kib = 16, dummy_kib = 100, page_size = 4096, seed = 1;
  uint64_t row_spread = 8;
  std::string journal_mode = "off", synchronous = "normal", reference_hints;
  bool hinted_reference = false;
  Options() { cpu = 0; }  // one writer, pinned: see ToolOptions::cpu
};

class Db {
 public:
  Db(const std::string& path, int flags) {
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      std::string msg = path + ": " + (db_ ? sqlite3_errmsg(db_) : "cannot open");
      sqlite3_close(db_);
      throw std::runtime_error(msg);
    }
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = sql + ": " + (err ? err : "error");
      sqlite3_free(err);
      throw std::runtime_error(msg);
    }
  }
  sqlite3* get() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

class Stmt {
 public:
  Stmt(Db& db, const char* sql) {
    if (sqlite3_prepare_v2(db.get(), sql, -1, &st_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string(sql) + ": " + sqlite3_errmsg(db.get()));
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  sqlite3_stmt* get() { return st_; }

 private:
  sqlite3_stmt* st_ = nullptr;
};

// Insert the rows into a new database at @path; with @interleave, append
// to the other file after each. The same seed gives the same rows.
void insert_rows(const Options& o, const std::string& path, bool interleave) {
  ::unlink(path.c_str());
  Db db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  db.exec("PRAGMA page_size=" + std::to_string(o.page_size));
  db.exec("PRAGMA journal_mode=" + o.journal_mode);
  db.exec("PRAGMA synchronous=" + o.synchronous);
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)");
  Stmt ins(db, "INSERT INTO t(id, v) VALUES(?, ?)");
  std::mt19937_64 rng(o.seed);
  // "about row_kib": +-1/row_spread around it (0: all the same size)
  const uint64_t row = o.row_kib * KiB, spread = o.row_spread ? row / o.row_spread : 0;
  std::uniform_int_distribution<uint64_t> size(row - spread, row + spread);
  std::vector<uint8_t> blob(row + spread);
  for (auto& b : blob) b = static_cast<uint8_t>(rng());
  std::unique_ptr<File> dummy;
  if (interleave) dummy = std::make_unique<File>(o.dir + "/dummy", O_WRONLY | O_CREAT | O_TRUNC);
  for (uint64_t i = 0; i < o.rows; i++) {
    sqlite3_reset(ins.get());
    sqlite3_bind_int64(ins.get(), 1, static_cast<sqlite3_int64>(i));
    sqlite3_bind_blob(ins.get(), 2, blob.data(), static_cast<int>(size(rng)), SQLITE_STATIC);
    if (sqlite3_step(ins.get()) != SQLITE_DONE)
      throw std::runtime_error(std::string("insert: ") + sqlite3_errmsg(db.get()));
    if (dummy) write_sync(*dummy, i * o.dummy_kib * KiB, o.dummy_kib * KiB);
  }
}

// SELECT * (the caller drops the page cache); returns the database's size.
uint64_t select_all(const std::string& path, uint64_t rows) {
  Db db(path, SQLITE_OPEN_READONLY);
  Stmt sel(db, "SELECT id, v FROM t");
  uint64_t n = 0;
  int rc;
  while ((rc = sqlite3_step(sel.get())) == SQLITE_ROW) {
    sqlite3_column_blob(sel.get(), 1);  // makes SQLite read the row's overflow pages
    n++;
  }
  if (rc != SQLITE_DONE) throw std::runtime_error(path + ": SELECT: " + sqlite3_errmsg(db.get()));
  if (n != rows) throw std::runtime_error(path + ": SELECT returned " + std::to_string(n) + " rows");
  return file_size(path);
}

json run(const Options& o) {
  if (!o.rows || !o.row_kib) throw std::invalid_argument("--rows and --row-kib must be > 0");
  if (o.page_size < 512 || o.page_size > 65536 || (o.page_size & (o.page_size - 1)))
    throw std::invalid_argument("--page-size must be a power of two in 512..65536");
  const std::string frag = o.dir + "/fragmented.db", contig = o.dir + "/contiguous.db",
                    copy = o.dir + "/copy.db", hinted = o.dir + "/contiguous-hinted.db";
  if (o.hinted_reference && o.reference_hints.empty())
    throw std::invalid_argument("--hinted-reference needs --reference-hints");
  // each database starts on a granule, as after a sequential fill: one
  // that starts part-way into a granule is read slower than it should be
  uint64_t pad = o.align ? align_cursor(o.dir, o.dev) : 0;
  insert_rows(o, frag, true);
  if (o.align) pad += align_cursor(o.dir, o.dev);
  {
    ScopedSetting hints_off(o.reference_hints, 0);
    insert_rows(o, contig, false);
  }
  if (o.align) pad += align_cursor(o.dir, o.dev);
  copy_file(frag, copy);
  std::vector<std::pair<std::string, const char*>> dbs{
      {contig, "contiguous"}, {frag, "fragmented"}, {copy, "copy"}};
  if (o.hinted_reference) {
    if (o.align) pad += align_cursor(o.dir, o.dev);
    ScopedSetting hints_on(o.reference_hints, 1);
    insert_rows(o, hinted, false);
    dbs.emplace_back(hinted, "contiguous_hinted");
  }
  ::sync();
  TimeScale scale(o.dev, o.read_time_scale);
  json rows = json::array();
  for (const auto& [path, name] : dbs) {
    drop_caches();
    auto extents = fiemap(path).size();  // also loads the block map: see fsutil.h
    auto r = timed_read(o.dev, [&] { return select_all(path, o.rows); });
    rows.push_back(read_row(name, r, "extents", extents));
  }
  json summary{{"rows", o.rows},
               {"row_bytes", o.row_kib * KiB},
               {"dummy_bytes", o.dummy_kib * KiB},
               {"db_bytes", file_size(frag)},
               {"pad_bytes", pad}};
  summary.update(compare_rows(rows, "extents"));
  // the fragmented database against the copy: the stricter reference
  const double copy_mb_per_s = rows[2]["mb_per_s"].get<double>();
  summary["relative_to_copy"] = copy_mb_per_s > 0 ? rows[1]["mb_per_s"].get<double>() / copy_mb_per_s : 0.0;
  // an unfragmented database updated in place, built with hints against without
  if (o.hinted_reference)
    summary["hinted_reference_relative"] = rows[3]["relative"];
  return json{{"workload", "sqlite"}, {"summary", summary}, {"rows", rows}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-sqlite: SQLite inserts interleaved with appends to another file, then SELECT *", "nvmev-sqlite"};
  Options o;
  app.add_option("dir", o.dir, "directory on the file system under test")->required();
  app.add_option("--rows", o.rows, "rows inserted (the paper: 10000)")->capture_default_str();
  app.add_option("--row-kib", o.row_kib, "row size, about")->capture_default_str();
  app.add_option("--dummy-kib", o.dummy_kib, "appended to the other file after each row")
      ->capture_default_str();
  app.add_option("--page-size", o.page_size, "SQLite page size")->capture_default_str();
  app.add_option("--row-spread", o.row_spread, "row sizes vary by +- row-kib/N (0: all the same)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  app.add_option("--journal-mode", o.journal_mode, "SQLite journal_mode of the inserts")
      ->check(CLI::IsMember({"off", "delete", "truncate", "persist", "memory", "wal"}))
      ->capture_default_str();
  app.add_option("--synchronous", o.synchronous, "SQLite synchronous setting of the inserts")
      ->check(CLI::IsMember({"off", "normal", "full", "extra"}))
      ->capture_default_str();
  app.add_option("--reference-hints", o.reference_hints,
                 "file that switches the drive's placement hints (1/0), held at 0 while the "
                 "reference database is built (ext4: /sys/fs/ext4/<dev>/placement_hints)");
  app.add_flag("--hinted-reference", o.hinted_reference,
               "also build the reference with the hints on and read it (contiguous_hinted)");
  app.add_option("--seed", o.seed)->capture_default_str();
  add_tool_options(app, o);
  return run_tool(app, argc, argv, o, [&] { return run(o); });
}
