// Result formatting of nvmev-sim: JSON (nlohmann-json) or CSV.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "device_files.h"
#include "engine.h"
#include "model.h"

namespace nvmev {

using json = nlohmann::ordered_json;

json to_json(const PhaseResult& p);
json to_json(const ftl_stats& st);
json to_json(const ftl_die_stats& st);
json geometry_json(const Model& m);
json config_json(const ftl_config& cfg);

// append die<i>_reads, collisions, collision_wait_us and dies_used to @row
void add_die_columns(json& row, const DieCounters& d);

// A report is {"workload", "config", "geometry", "summary", "rows"}; CSV
// prints the summary as "# key=value" comment lines, then the rows table.
void print_report(std::ostream& out, const json& report, bool csv);

}  // namespace nvmev
