#include "output.h"

#include <string>

namespace nvmev {

namespace {

std::string csv_cell(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  return v.dump();
}

}  // namespace

void print_report(std::ostream& out, const json& report, bool csv) {
  if (!csv) {
    out << report.dump(2) << "\n";
    return;
  }
  out << "# workload=" << report.value("workload", "") << "\n";
  if (report.contains("summary"))
    for (auto& [k, v] : report["summary"].items()) out << "# " << k << "=" << csv_cell(v) << "\n";
  const json& rows = report["rows"];
  if (rows.empty()) return;
  bool first = true;
  for (auto& [k, v] : rows[0].items()) {
    (void)v;
    out << (first ? "" : ",") << k;
    first = false;
  }
  out << "\n";
  for (const auto& row : rows) {
    first = true;
    for (auto& [k, v] : row.items()) {
      (void)k;
      out << (first ? "" : ",") << csv_cell(v);
      first = false;
    }
    out << "\n";
  }
}

void add_die_columns(json& row, const DieCounters& d) {
  uint64_t coll = 0, wait = 0, used = 0;
  for (size_t i = 0; i < d.reads.size(); i++) {
    row["die" + std::to_string(i) + "_reads"] = d.reads[i];
    coll += d.collisions[i];
    wait += d.wait_ns[i];
    used += d.reads[i] > 0;
  }
  row["collisions"] = coll;
  row["collision_wait_us"] = wait / 1000;
  row["dies_used"] = used;
}

}  // namespace nvmev
