#include "device_files.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace nvmev {

std::string debugfs_file(const std::string& name) { return kDebugfsDir + "/" + name; }

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

uint64_t read_key(const std::string& path, const std::string& key) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot read");
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, key.size() + 1, key + "=") == 0)
      return std::stoull(line.substr(key.size() + 1));
  }
  throw std::runtime_error(path + ": no " + key + "=");
}

Location locate(const std::string& path, uint64_t lba) {
  write_number(path, lba);
  std::ifstream r(path);
  std::string line;
  if (!std::getline(r, line)) throw std::runtime_error(path + ": cannot read");
  Location loc;
  if (line.find("unmapped") != std::string::npos) return loc;
  unsigned long long l, d, b, o;
  if (std::sscanf(line.c_str(), "lba=%llu die=%llu block=%llu offset=%llu", &l, &d, &b, &o) != 4)
    throw std::runtime_error(path + ": unexpected \"" + line + "\"");
  loc = {true, d, b, o};
  return loc;
}

ScopedSetting::ScopedSetting(const std::string& path, uint64_t value) {
  if (path.empty()) return;
  old_ = read_number(path);
  write_number(path, value);
  path_ = path;
}

ScopedSetting::~ScopedSetting() {
  if (path_.empty()) return;
  try {
    write_number(path_, old_);
  } catch (const std::exception& e) {
    std::cerr << "warning: " << e.what() << "\n";
  }
}

}  // namespace nvmev
