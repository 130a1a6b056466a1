// nvmev-layout: where the blocks of files sit on an nvmev drive. For each
// file: extents (FIEMAP), 4 KiB units per die, and the program units a
// whole-file read must sense -- more than size / program unit means the
// file shares program units with other data. Uses the device's debugfs
// "locate" query, one unit at a time; the file system must be on the whole
// namespace (no partition).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "fsutil.h"
#include "report.h"

using nvmev::json;
using namespace nvmev::fs;

namespace {

struct Location {
  bool mapped = false;
  uint64_t die = 0, block = 0, offset = 0;
};

Location locate(const std::string& file, uint64_t lba) {
  {
    std::ofstream w(file);
    w << lba << "\n";
    w.flush();
    if (!w) throw std::runtime_error(file + ": cannot write " + std::to_string(lba));
  }
  std::ifstream r(file);
  std::string line;
  if (!std::getline(r, line)) throw std::runtime_error(file + ": cannot read");
  Location loc;
  if (line.find("unmapped") != std::string::npos) return loc;
  unsigned long long l, d, b, o;
  if (std::sscanf(line.c_str(), "lba=%llu die=%llu block=%llu offset=%llu", &l, &d, &b, &o) != 4)
    throw std::runtime_error(file + ": unexpected \"" + line + "\"");
  loc = {true, d, b, o};
  return loc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-layout: dies and program units holding files on an nvmev drive"};
  std::vector<std::string> files;
  std::string debugfs = "/sys/kernel/debug/nvmev", format = "json";
  app.add_option("files", files, "files on a file system on the nvmev namespace")->required();
  app.add_option("--debugfs", debugfs, "nvmev debugfs directory")->capture_default_str();
  app.add_option("--format", format)->check(CLI::IsMember({"json", "csv"}));
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
    uint64_t all_units = 0, all_pus = 0;
    for (const auto& f : files) {
      std::vector<uint64_t> per_die(dies);
      std::set<std::tuple<uint64_t, uint64_t, uint64_t>> pus;
      uint64_t units = 0, unmapped = 0;
      auto ext = fiemap(f);
      for (const auto& e : ext) {
        for (uint64_t off = 0; off < e.length; off += 4096) {
          auto loc = locate(debugfs + "/locate", (e.physical + off) / lba_bytes);
          units++;
          if (!loc.mapped) {
            unmapped++;
            continue;
          }
          per_die.at(loc.die)++;
          pus.insert({loc.die, loc.block, loc.offset / pu_units});
        }
      }
      json row{{"file", f},
               {"extents", ext.size()},
               {"units", units},
               {"unmapped", unmapped},
               {"program_units", pus.size()},
               {"ideal_program_units", (units + pu_units - 1) / pu_units}};
      for (uint64_t d = 0; d < dies; d++) row["die" + std::to_string(d) + "_units"] = per_die[d];
      rows.push_back(row);
      all_units += units;
      all_pus += pus.size();
    }
    json summary{{"files", files.size()},
                 {"units", all_units},
                 {"program_units", all_pus},
                 {"ideal_program_units", (all_units + pu_units - 1) / pu_units}};
    nvmev::print_report(std::cout, json{{"workload", "layout"}, {"summary", summary}, {"rows", rows}},
                        format == "csv");
  } catch (const std::exception& e) {
    std::cerr << "nvmev-layout: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
