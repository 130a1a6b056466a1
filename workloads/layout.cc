// nvmev-layout: where the blocks of files sit on an nvmev drive. For each
// file: extents (FIEMAP), 4 KiB units per die, and the program units a
// whole-file read must sense -- more than size / program unit means the
// file shares program units with other data. Uses the device's debugfs
// "locate" query, one unit at a time; the file system must be on the whole
// namespace (no partition). --window-kib W also says, for each W-sized
// stretch of a file (a readahead window, a request), how many program
// units the busiest die must sense: what a read of that stretch waits for.
// --units lists every unit instead of one row per file.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "fsutil.h"
#include "output.h"

using nvmev::json;
using nvmev::KiB;
using nvmev::locate;
using nvmev::read_key;
using namespace nvmev::fs;

int main(int argc, char** argv) {
  CLI::App app{"nvmev-layout: dies and program units holding files on an nvmev drive"};
  std::vector<std::string> files;
  std::string debugfs = nvmev::kDebugfsDir, format = "json";
  uint64_t window_kib = 128;
  bool list_units = false;
  app.add_option("files", files, "files on a file system on the nvmev namespace")->required();
  app.add_option("--debugfs", debugfs, "nvmev debugfs directory")->capture_default_str();
  app.add_option("--format", format)->check(CLI::IsMember({"json", "csv"}));
  app.add_option("--window-kib", window_kib, "stretch of a file read at once")
      ->check(CLI::Range(4, 1 << 20))
      ->capture_default_str();
  app.add_flag("--units", list_units, "one row per 4 KiB unit (file offset, die, block, offset)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    const std::string geo = debugfs + "/geometry";
    const uint64_t lba_bytes = read_key(geo, "lba_bytes"), dies = read_key(geo, "dies");
    const uint64_t pu_units = read_key(geo, "program_unit_bytes") / 4096;
    json rows = json::array();
    uint64_t all_units = 0, all_pus = 0, all_busiest = 0, all_windows = 0;
    for (const auto& f : files) {
      std::vector<uint64_t> per_die(dies);
      std::set<std::tuple<uint64_t, uint64_t, uint64_t>> pus;
      // program units of each window, by window index
      std::vector<std::set<std::tuple<uint64_t, uint64_t, uint64_t>>> windows;
      const uint64_t window = window_kib * KiB;
      uint64_t units = 0, unmapped = 0;
      auto ext = fiemap(f);
      for (const auto& e : ext) {
        for (uint64_t off = 0; off < e.length; off += 4096) {
          auto loc = locate(debugfs + "/locate", (e.physical + off) / lba_bytes);
          units++;
          if (list_units)
            rows.push_back({{"file", f},
                            {"offset", e.logical + off},
                            {"lba", (e.physical + off) / lba_bytes},
                            {"die", loc.mapped ? static_cast<int64_t>(loc.die) : -1},
                            {"block", loc.block},
                            {"unit", loc.offset}});
          if (!loc.mapped) {
            unmapped++;
            continue;
          }
          per_die.at(loc.die)++;
          pus.insert({loc.die, loc.block, loc.offset / pu_units});
          uint64_t w = (e.logical + off) / window;
          if (w >= windows.size()) windows.resize(w + 1);
          windows[w].insert({loc.die, loc.block, loc.offset / pu_units});
        }
      }
      // per window: program units on its busiest die
      uint64_t busiest_sum = 0, used = 0;
      for (const auto& w : windows) {
        if (w.empty()) continue;
        std::vector<uint64_t> n(dies);
        for (const auto& pu : w) n[std::get<0>(pu)]++;
        busiest_sum += *std::max_element(n.begin(), n.end());
        used++;
      }
      json row{{"file", f},
               {"extents", ext.size()},
               {"units", units},
               {"unmapped", unmapped},
               {"program_units", pus.size()},
               {"ideal_program_units", (units + pu_units - 1) / pu_units},
               {"window_busiest_die", used ? static_cast<double>(busiest_sum) / used : 0.0}};
      for (uint64_t d = 0; d < dies; d++) row["die" + std::to_string(d) + "_units"] = per_die[d];
      if (!list_units) rows.push_back(row);
      all_busiest += busiest_sum;
      all_windows += used;
      all_units += units;
      all_pus += pus.size();
    }
    json summary{{"files", files.size()},
                 {"units", all_units},
                 {"program_units", all_pus},
                 {"ideal_program_units", (all_units + pu_units - 1) / pu_units},
                 {"window_kib", window_kib},
                 {"window_busiest_die",
                  all_windows ? static_cast<double>(all_busiest) / all_windows : 0.0}};
    nvmev::print_report(std::cout, json{{"workload", "layout"}, {"summary", summary}, {"rows", rows}},
                        format == "csv");
  } catch (const std::exception& e) {
    std::cerr << "nvmev-layout: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
