#include "zoned.h"

#include <algorithm>
#include <deque>
#include <random>
#include <stdexcept>

namespace nvmev {

uint64_t zone_bytes_for(const Model& m, uint64_t requested) {
  if (requested) return requested;
  const ftl_geometry& g = m.geometry();
  return uint64_t{g.dies} * g.units_per_block * FTL_MAP_UNIT;
}

namespace {

struct ZonedDrive {
  ZonedDrive(const ftl_config& cfg, uint64_t zone_req, uint32_t width, bool zoned) : m(cfg) {
    zone = zone_bytes_for(m, zone_req);
    nr = static_cast<uint32_t>(m.capacity_bytes() / zone);
    if (nr < 2) throw std::invalid_argument("zones: the drive holds fewer than two zones");
    if (zoned) m.add_zones(0, zone, zone, nr, width ? width : m.geometry().dies);
  }
  Model m;
  uint64_t zone = 0;
  uint32_t nr = 0;
};

// Write (or read) zones @zones whole, round-robin, @bytes per command.
void round_robin(Engine& e, uint8_t op, const std::vector<uint32_t>& zones, uint64_t zone,
                 uint64_t bytes) {
  for (uint64_t o = 0; o < zone; o += bytes)
    for (uint32_t z : zones) e.submit(make_cmd(op, z * zone + o, std::min(bytes, zone - o)));
}

// @streams streams, each through @per_stream zones in turn (stream i:
// zones i, i + streams, ...), their commands round-robin.
void streams(Engine& e, uint8_t op, uint32_t nr, uint32_t per_stream, uint64_t zone,
             uint64_t bytes) {
  for (uint32_t round = 0; round < per_stream; round++) {
    std::vector<uint32_t> zones(nr);
    for (uint32_t i = 0; i < nr; i++) zones[i] = round * nr + i;
    round_robin(e, op, zones, zone, bytes);
  }
}

}  // namespace

std::vector<ZoneSweepPoint> run_zone_sweep(const ftl_config& cfg, const ZoneSweepParams& p) {
  std::vector<ZoneSweepPoint> points;
  for (uint32_t width : p.widths) {
    for (uint32_t k : p.open_zones) {
      ZonedDrive d(cfg, p.zone_bytes, width, true);
      const auto per_stream = static_cast<uint32_t>(p.total_bytes / d.zone / std::max(k, 1u));
      if (!k || !per_stream || uint64_t{per_stream} * k > d.nr)
        throw std::invalid_argument("zones: total_bytes must hold a zone per stream and fit the drive");
      Engine e(d.m, p.queue_depth);
      ZoneSweepPoint pt{width, k, {}, {}};
      e.begin_phase();
      streams(e, FTL_OP_WRITE, k, per_stream, d.zone, p.write_bytes);
      pt.write = e.end_phase();
      e.idle(1'000'000'000);  // every program done
      e.begin_phase();
      streams(e, FTL_OP_READ, k, per_stream, d.zone, p.read_bytes);
      pt.read = e.end_phase();
      points.push_back(pt);
    }
  }
  return points;
}

ZoneLogResult run_zone_log(const ftl_config& cfg, const ZoneLogParams& p, bool zoned) {
  ZonedDrive d(cfg, p.zone_bytes, p.width, zoned);
  const uint32_t filled = std::max<uint32_t>(1, d.nr * p.fill_percent / 100);
  if (filled + p.open_zones > d.nr)
    throw std::invalid_argument("zones: fill_percent leaves no room for the open zones");
  Engine e(d.m, p.queue_depth);
  std::deque<uint32_t> empty;
  std::vector<uint32_t> first(filled);
  for (uint32_t z = 0; z < filled; z++) first[z] = z;
  round_robin(e, FTL_OP_WRITE, first, d.zone, p.write_bytes);
  std::vector<uint32_t> full = first;
  for (uint32_t z = filled; z < d.nr; z++) empty.push_back(z);
  e.drain();
  d.m.reset_stats();

  std::mt19937_64 rng(p.seed);
  struct Open {
    uint32_t zone;
    uint64_t wp;
  };
  std::vector<Open> open;
  for (uint32_t i = 0; i < p.open_zones; i++) {
    open.push_back({empty.front(), 0});
    empty.pop_front();
  }
  const auto target = static_cast<uint64_t>(p.passes * static_cast<double>(d.m.capacity_bytes()));
  uint64_t written = 0, resets = 0;
  e.begin_phase();
  for (size_t i = 0; written < target; i = (i + 1) % open.size()) {
    Open& o = open[i];
    uint64_t n = std::min(p.write_bytes, d.zone - o.wp);
    e.submit(make_cmd(FTL_OP_WRITE, o.zone * d.zone + o.wp, n));
    o.wp += n;
    written += n;
    if (o.wp < d.zone) continue;
    // full: a random full zone goes back to the empty ones, a fresh one opens
    full.push_back(o.zone);
    size_t victim = std::uniform_int_distribution<size_t>(0, full.size() - 1)(rng);
    uint32_t vz = full[victim];
    full.erase(full.begin() + static_cast<std::ptrdiff_t>(victim));
    if (zoned) {
      if (d.m.zone_reset(vz * d.zone, e.now()).status != FTL_OK)
        throw std::runtime_error("zones: a reset failed");
    } else {
      e.submit(make_cmd(FTL_OP_TRIM, vz * d.zone, d.zone));
    }
    resets++;
    empty.push_back(vz);
    o = {empty.front(), 0};
    empty.pop_front();
  }
  e.end_phase();
  ZoneLogResult r{zoned, e.op_result(FTL_OP_WRITE), d.m.write_amplification(), 0, resets};
  for (const auto& die : d.m.die_stats()) r.gc_copies += die.gc_copies;
  if (r.writes.errors) throw std::runtime_error("zones: writes failed");
  return r;
}

}  // namespace nvmev
