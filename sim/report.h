// nvmev-sim's results as JSON: the model's statistics, geometry and
// configuration (printing: tools/output.h).
#pragma once

#include <vector>

#include "engine.h"
#include "model.h"
#include "output.h"

namespace nvmev {

json to_json(const PhaseResult& p);
json to_json(const ftl_stats& st);
json to_json(const ftl_die_stats& st);
json geometry_json(const Model& m);
json config_json(const ftl_config& cfg);

// {"workload", "config", "geometry"}: the start of every report
json base_report(const char* workload, const Model& m);
// one row per die of the model's per-die statistics, with its "die"
json die_rows(const std::vector<ftl_die_stats>& dies);

}  // namespace nvmev
