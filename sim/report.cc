#include "report.h"

namespace nvmev {

json to_json(const PhaseResult& p) {
  return json{{"ops", p.ops},
              {"bytes", p.bytes},
              {"errors", p.errors},
              {"elapsed_ns", p.elapsed_ns()},
              {"mb_per_s", p.mb_per_s()},
              {"iops", p.iops()},
              {"mean_latency_ns", p.mean_latency_ns},
              {"p50_latency_ns", p.p50_latency_ns},
              {"p99_latency_ns", p.p99_latency_ns},
              {"max_latency_ns", p.max_latency_ns}};
}

json to_json(const ftl_stats& st) {
  return json{{"reads", st.cmds[FTL_OP_READ]},
              {"writes", st.cmds[FTL_OP_WRITE]},
              {"trims", st.cmds[FTL_OP_TRIM]},
              {"flushes", st.cmds[FTL_OP_FLUSH]},
              {"errors", st.errors},
              {"host_read_units", st.host_read_units},
              {"host_write_units", st.host_write_units},
              {"nand_write_units", st.nand_write_units},
              {"trimmed_units", st.trimmed_units},
              {"unmapped_read_units", st.unmapped_read_units},
              {"gc_cycles", st.gc_cycles},
              {"gc_fg_cycles", st.gc_fg_cycles},
              {"placement_fallbacks", st.placement_fallbacks},
              {"wb_stalls", st.wb_stalls},
              {"wb_stall_ns", st.wb_stall_ns},
              {"pad_units", st.pad_units},
              {"wpt_evictions", st.wpt_evictions},
              {"wpt_idle_flushes", st.wpt_idle_flushes},
              {"hint_append", st.hint_append},
              {"hint_overwrite", st.hint_overwrite},
              {"hint_honoured", st.hint_honoured},
              {"hint_ignored_off", st.hint_ignored_off},
              {"hint_ignored_invalid", st.hint_ignored_invalid},
              {"hint_ignored_opcode", st.hint_ignored_opcode},
              {"hint_ignored_range", st.hint_ignored_range},
              {"hint_ignored_unmapped", st.hint_ignored_unmapped},
              {"hint_ignored_wear", st.hint_ignored_wear},
              {"hint_new_units", st.hint_new_units},
              {"hint_fallback_units", st.hint_fallback_units},
              {"hint_ignored_fdp", st.hint_ignored_fdp},
              {"fdp_ignored_zone", st.fdp_ignored_zone}};
}

json to_json(const ftl_die_stats& st) {
  return json{{"host_reads", st.host_reads},
              {"host_read_units", st.host_read_units},
              {"read_collisions", st.read_collisions},
              {"read_wait_ns", st.read_wait_ns},
              {"read_merges", st.read_merges},
              {"buffer_hits", st.buffer_hits},
              {"host_write_units", st.host_write_units},
              {"programs", st.programs},
              {"gc_reads", st.gc_reads},
              {"gc_copies", st.gc_copies},
              {"erases", st.erases},
              {"busy_ns", st.busy_ns},
              {"free_blocks", st.free_blocks},
              {"valid_units", st.valid_units},
              {"erases_total", st.erases_total}};
}

json geometry_json(const Model& m) {
  const ftl_geometry& g = m.geometry();
  return json{{"dies", g.dies},
              {"channels", g.channels},
              {"program_unit_bytes", uint64_t{g.pu_units} * FTL_MAP_UNIT},
              {"block_bytes", uint64_t{g.units_per_block} * FTL_MAP_UNIT},
              {"blocks_per_die", g.blocks_per_die},
              {"granularity_bytes", uint64_t{g.gran_units} * FTL_MAP_UNIT},
              {"stripe_bytes", g.stripe_bytes},
              {"capacity_bytes", m.capacity_bytes()},
              {"physical_bytes", g.phys_units * FTL_MAP_UNIT}};
}

json config_json(const ftl_config& cfg) {
  json j = json::object();
  for (size_t i = 0; i < ftl_nr_params; i++)
    j[ftl_params[i].name] = *ftl_param_ptr(const_cast<ftl_config*>(&cfg), &ftl_params[i]);
  return j;
}

json base_report(const char* workload, const Model& m) {
  return json{{"workload", workload},
              {"config", config_json(m.config())},
              {"geometry", geometry_json(m)}};
}

json die_rows(const std::vector<ftl_die_stats>& dies) {
  json rows = json::array();
  for (size_t d = 0; d < dies.size(); d++) {
    json row{{"die", d}};
    row.update(to_json(dies[d]));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace nvmev
