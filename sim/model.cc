#include "model.h"

namespace nvmev {

void apply_default_capacity(ftl_config& cfg) {
  if (!cfg.capacity_mib && !cfg.blocks_per_plane) cfg.capacity_mib = kDefaultCapacityMib;
}

ftl_config default_config() {
  ftl_config cfg;
  ftl_config_defaults(&cfg);
  apply_default_capacity(cfg);
  return cfg;
}

ftl_config small_config() {
  ftl_config c = default_config();
  c.channels = 2;
  c.dies_per_channel = 2;
  c.planes_per_die = 1;
  c.page_bytes = 16384;
  c.pages_per_block = 16;
  c.capacity_mib = 32;
  c.op_percent = 20;
  c.write_buffer_kib = 1024;
  return c;
}

ftl_cmd make_cmd(uint8_t op, uint64_t off, uint64_t len, uint8_t hint) {
  ftl_cmd c{};
  c.op = op;
  c.off = off;
  c.len = len;
  c.hint = hint;
  return c;
}

ftl_cmd make_write(uint64_t off, uint64_t len, int ruh, uint16_t rg) {
  ftl_cmd c = make_cmd(FTL_OP_WRITE, off, len);
  if (ruh >= 0) {
    c.fdp = 1;
    c.fdp_ruh = static_cast<uint16_t>(ruh);
    c.fdp_rg = rg;
  }
  return c;
}

Model::Model(const ftl_config& cfg) : cfg_(cfg) {
  char err[FTL_ERRMSG_LEN] = "";
  ftl* f = nullptr;
  int ret = ftl_create(&cfg, &f, err, sizeof(err));
  if (ret == -ENOMEM) throw std::bad_alloc();
  if (ret) throw ConfigError(err);
  ftl_.reset(f);
}

Completion Model::submit(const ftl_cmd& cmd, uint64_t now_ns) {
  Completion c{};
  c.status = ftl_submit(ftl_.get(), &cmd, now_ns, &c.done_ns);
  return c;
}

ftl_stats Model::stats() const {
  ftl_stats st;
  ftl_stats_get(ftl_.get(), &st);
  return st;
}

std::vector<ftl_die_stats> Model::die_stats() const {
  std::vector<ftl_die_stats> v(geometry().dies);
  for (uint32_t d = 0; d < v.size(); d++) ftl_die_stats_get(ftl_.get(), d, &v[d]);
  return v;
}

double Model::write_amplification() const {
  return static_cast<double>(ftl_waf_milli(ftl_.get())) / 1000.0;
}

int Model::die_of(uint64_t off) const {
  ftl_location loc;
  if (ftl_locate(ftl_.get(), off, &loc)) return -1;
  return static_cast<int>(loc.die);
}

void Model::add_zones(uint64_t off, uint64_t zone_bytes, uint64_t cap_bytes, uint32_t nr_zones,
                      uint32_t width) {
  char err[FTL_ERRMSG_LEN] = "";
  int ret = ftl_zoned_add(ftl_.get(), off, zone_bytes, cap_bytes, nr_zones, width, err,
                          sizeof(err));
  if (ret == -ENOMEM) throw std::bad_alloc();
  if (ret) throw ConfigError(err);
}

Completion Model::zone_reset(uint64_t off, uint64_t now_ns) {
  Completion c{};
  c.status = ftl_zone_reset(ftl_.get(), off, now_ns, &c.done_ns);
  return c;
}

Completion Model::zone_finish(uint64_t off, uint64_t now_ns) {
  Completion c{};
  c.status = ftl_zone_finish(ftl_.get(), off, now_ns, &c.done_ns);
  return c;
}

ftl_zone_stats Model::zone_stats(uint64_t off) const {
  ftl_zone_stats st;
  ftl_zone_stats_get(ftl_.get(), off, &st);
  return st;
}

std::string Model::check() const {
  char err[256] = "";
  if (ftl_check(ftl_.get(), err, sizeof(err))) return err;
  return {};
}

}  // namespace nvmev
