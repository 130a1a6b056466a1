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

}  // namespace nvmev
