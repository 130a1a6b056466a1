#include "device_files.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nvmev {

DieCounters read_die_counters(const std::string& path) {
  DieCounters c;
  if (path.empty()) return c;
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot read device statistics");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::istringstream ss(line);
    uint64_t die, reads, units, coll, wait;
    if (ss >> die >> reads >> units >> coll >> wait) {
      c.reads.push_back(reads);
      c.collisions.push_back(coll);
      c.wait_ns.push_back(wait);
    }
  }
  return c;
}

DieCounters operator-(const DieCounters& b, const DieCounters& a) {
  DieCounters d;
  for (size_t i = 0; i < a.reads.size() && i < b.reads.size(); i++) {
    d.reads.push_back(b.reads[i] - a.reads[i]);
    d.collisions.push_back(b.collisions[i] - a.collisions[i]);
    d.wait_ns.push_back(b.wait_ns[i] - a.wait_ns[i]);
  }
  return d;
}

uint64_t read_number(const std::string& path) {
  std::ifstream f(path);
  uint64_t v = 0;
  if (!(f >> v)) throw std::runtime_error(path + ": cannot read");
  return v;
}

void write_number(const std::string& path, uint64_t v) {
  std::ofstream f(path);
  f << v << "\n";
  f.flush();
  if (!f) throw std::runtime_error(path + ": cannot write " + std::to_string(v));
}

}  // namespace nvmev
