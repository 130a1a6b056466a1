// Result output shared by every nvmev tool (the simulator, the guest tools):
// JSON (nlohmann-json) or CSV, and the per-die columns of a report row.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "device_files.h"

namespace nvmev {

using json = nlohmann::ordered_json;

// append die<i>_reads, collisions, collision_wait_us and dies_used to @row
void add_die_columns(json& row, const DieCounters& d);

// A report is {"workload", "config", "geometry", "summary", "rows"}; CSV
// prints the summary as "# key=value" comment lines, then the rows table.
void print_report(std::ostream& out, const json& report, bool csv);

}  // namespace nvmev
