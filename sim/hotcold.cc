#include "hotcold.h"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace nvmev {

int hotcold_handle(const HotColdParams& p, uint64_t used, uint64_t hot, uint32_t ruhs,
                   uint64_t off) {
  if (p.handle_by == HandleBy::None || !ruhs) return -1;
  if (p.handle_by == HandleBy::Lifetime) return off < hot ? static_cast<int>(1 % ruhs) : 0;
  return static_cast<int>(off / ((used + ruhs - 1) / ruhs));
}

namespace {

struct Layout {
  uint64_t used, hot;
  uint32_t ruhs, groups;
};

void write_at(Engine& e, const HotColdParams& p, const Layout& l, uint64_t off, uint64_t len) {
  const int h = hotcold_handle(p, l.used, l.hot, l.ruhs, off);
  // a group holds what its dies hold: the used space is spread over them
  const auto rg = static_cast<uint16_t>(h < 0 ? 0 : off / ((l.used + l.groups - 1) / l.groups));
  Completion r = e.submit(make_write(off, len, h, rg));
  if (r.status != FTL_OK)
    throw std::runtime_error("model returned status " + std::to_string(r.status) +
                             " for a hotcold write");
}

}  // namespace

HotColdResult run_hotcold(Model& model, const HotColdParams& p) {
  const uint64_t cap = model.capacity_bytes(), bs = p.block_bytes;
  if (!bs || bs % (4 * KiB)) throw std::invalid_argument("hotcold: block size must be a non-zero multiple of 4 KiB");
  if (!p.utilization_percent || p.utilization_percent > 100 || !p.hot_percent ||
      p.hot_percent >= 100 || p.hot_write_percent > 100)
    throw std::invalid_argument(
        "hotcold: utilization 1..100 %, hot region 1..99 %, hot writes 0..100 %");
  if (!(p.passes > 0)) throw std::invalid_argument("hotcold: passes must be positive");
  if (p.cold_writes == ColdWrites::Log && (!p.cold_bytes || p.cold_bytes % bs))
    throw std::invalid_argument("hotcold: the cold segment must be a non-zero multiple of the block size");
  Layout l{};
  l.used = cap / 100 * p.utilization_percent / bs * bs;
  l.hot = l.used / 100 * p.hot_percent / bs * bs;
  l.ruhs = model.geometry().fdp_ruhs;
  l.groups = model.geometry().fdp_rgs;
  if (l.hot < bs || l.used - l.hot < bs)
    throw std::invalid_argument("hotcold: the hot and the cold region must each hold a block");

  HotColdResult r{};
  Engine e(model, p.queue_depth);
  e.begin_phase();
  for (uint64_t off = 0; off < l.used;) {
    // no write crosses from the hot region into the cold one
    uint64_t end = off < l.hot ? l.hot : l.used;
    uint64_t len = std::min<uint64_t>(std::max<uint64_t>(bs, 128 * KiB), end - off);
    write_at(e, p, l, off, len);
    off += len;
  }
  r.fill = e.end_phase();

  std::mt19937_64 rng(p.seed);
  // hot_write_percent is the share of the bytes written: a write is hot
  // with the probability that gives it, whatever the cold writes' size
  const double h = p.hot_write_percent / 100.0;
  const auto cold_len = static_cast<double>(p.cold_writes == ColdWrites::Log ? p.cold_bytes : bs);
  std::bernoulli_distribution hot_write(h * cold_len / (h * cold_len + (1 - h) * static_cast<double>(bs)));
  std::uniform_int_distribution<uint64_t> hot_block(0, l.hot / bs - 1);
  std::uniform_int_distribution<uint64_t> cold_block(l.hot / bs, l.used / bs - 1);
  const auto total = static_cast<uint64_t>(p.passes * static_cast<double>(l.used));
  uint64_t log_head = l.hot;  // the cold log's next segment
  model.reset_stats();
  e.begin_phase();
  while (r.hot_bytes + r.cold_bytes < total) {
    if (hot_write(rng)) {
      write_at(e, p, l, hot_block(rng) * bs, bs);
      r.hot_bytes += bs;
    } else if (p.cold_writes == ColdWrites::Random) {
      write_at(e, p, l, cold_block(rng) * bs, bs);
      r.cold_bytes += bs;
    } else {
      const uint64_t len = std::min(p.cold_bytes, l.used - log_head);
      write_at(e, p, l, log_head, len);
      r.cold_bytes += len;
      log_head = log_head + len == l.used ? l.hot : log_head + len;
    }
  }
  r.random = e.end_phase();
  r.write_amplification = model.write_amplification();
  r.stats = model.stats();
  r.dies = model.die_stats();
  for (uint32_t h = 0; h < l.ruhs; h++) {
    ftl_fdp_stats st{};
    ftl_fdp_stats_get(model.raw(), h, true, &st);
    r.ruh.push_back(st);
  }
  return r;
}

}  // namespace nvmev
