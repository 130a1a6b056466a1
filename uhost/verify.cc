#include "verify.h"

#include <array>
#include <cstring>

namespace uhost {
namespace {

constexpr uint32_t kMagic = 0x42564855;  // "UHVB"

struct Header {
  uint32_t magic;
  uint32_t crc;  // of the whole block with this field 0
  uint64_t block;
  uint64_t seed;
  uint32_t gen;
  uint32_t pad;
};
static_assert(sizeof(Header) == 32);

std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
    t[i] = c;
  }
  return t;
}

// the SSE4.2 instruction: 8 bytes per step; TCG emulates it in one helper
__attribute__((target("sse4.2"))) uint32_t crc32c_hw(const uint8_t* p, size_t len, uint32_t c) {
  uint64_t crc = c;
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    crc = __builtin_ia32_crc32di(crc, v);
  }
  uint32_t c32 = uint32_t(crc);
  for (; len; p++, len--) c32 = __builtin_ia32_crc32qi(c32, *p);
  return c32;
}

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint32_t block_crc(const uint8_t* p) {
  Header h;
  std::memcpy(&h, p, sizeof(h));
  h.crc = 0;
  uint32_t c = crc32c(&h, sizeof(h));
  return crc32c(p + sizeof(h), kVerifyBlock - sizeof(h), c);
}

}  // namespace

uint32_t crc32c(const void* data, size_t len, uint32_t crc) {
  static const bool hw = __builtin_cpu_supports("sse4.2");
  const uint8_t* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  if (hw) return ~crc32c_hw(p, len, crc);
  static const std::array<uint32_t, 256> table = make_table();
  for (size_t i = 0; i < len; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

void fill_block(void* buf, uint64_t block, uint64_t seed, uint32_t gen) {
  uint8_t* p = static_cast<uint8_t*>(buf);
  uint64_t s = seed ^ (block * 0xd6e8feb86659fd93ull) ^ (uint64_t(gen) << 40);
  for (size_t off = sizeof(Header); off < kVerifyBlock; off += 8) {
    uint64_t v = splitmix(s);
    std::memcpy(p + off, &v, 8);
  }
  Header h{kMagic, 0, block, seed, gen, 0};
  std::memcpy(p, &h, sizeof(h));
  h.crc = block_crc(p);
  std::memcpy(p, &h, sizeof(h));
}

BlockCheck check_block(const void* buf, uint64_t block, uint64_t seed, uint32_t expect_gen,
                       uint32_t* found_gen) {
  const uint8_t* p = static_cast<const uint8_t*>(buf);
  Header h;
  std::memcpy(&h, p, sizeof(h));
  if (found_gen) *found_gen = h.magic == kMagic ? h.gen : 0;
  if (expect_gen == 0) {
    for (size_t i = 0; i < kVerifyBlock; i++)
      if (p[i]) return BlockCheck::zero;
    return BlockCheck::ok;
  }
  if (h.magic != kMagic || h.crc != block_crc(p)) return BlockCheck::bad_crc;
  if (h.block != block) return BlockCheck::wrong_block;
  if (h.seed != seed) return BlockCheck::wrong_seed;
  if (h.gen != expect_gen) return BlockCheck::wrong_generation;
  return BlockCheck::ok;
}

std::string to_string(BlockCheck c) {
  switch (c) {
    case BlockCheck::ok: return "ok";
    case BlockCheck::zero: return "not zeroes where nothing was written";
    case BlockCheck::bad_crc: return "bad magic or CRC-32C (corrupt data)";
    case BlockCheck::wrong_block: return "data of another block (misplaced)";
    case BlockCheck::wrong_seed: return "data of another run";
    case BlockCheck::wrong_generation: return "stale data (an older write)";
  }
  return "?";
}

}  // namespace uhost
