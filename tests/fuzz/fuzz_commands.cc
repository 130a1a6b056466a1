// libFuzzer target over what a host controls in a command, built from the
// same C files as nvmev.ko:
//  - the PRP walker (nvmev/nvmev_prp.c) over a fake host memory whose
//    pages are separate allocations, so AddressSanitizer sees any access
//    past a mapped page, and whose map/unmap calls must balance;
//  - the hint wire format (hint-proto/nvmev_hint.h): any CDW2/CDW3/CDW12
//    decodes to a defined kind, and a valid kind re-encodes to the same;
//  - the flash model's command entry (ftl_submit) with arbitrary op,
//    offset, length and hint fields on a small drive: only defined
//    statuses, and the mapping tables stay consistent.
// Input: first byte selects the part, the rest are its fields.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

extern "C" {
#include "nvmev_hint.h"
#include "nvmev_prp.h"
}
#include "model.h"

namespace {

// Reads fields off the input; zeros once it runs out.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  uint64_t u64() {
    uint64_t v = 0;
    size_t n = std::min<size_t>(8, static_cast<size_t>(end_ - p_));
    std::memcpy(&v, p_, n);
    p_ += n;
    return v;
  }
  uint32_t u32() { return static_cast<uint32_t>(u64()); }
  uint8_t u8() { return p_ < end_ ? *p_++ : 0; }
  bool empty() const { return p_ == end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

[[noreturn]] void fail(const char* what) {
  std::cerr << "fuzz_commands: " << what << "\n";
  std::abort();
}

constexpr uint64_t kRamBase = 0x10000000;
constexpr unsigned kRamPages = 16;

struct HostMem {
  std::vector<std::unique_ptr<uint8_t[]>> pages;
  int mapped = 0;
};

void* map_page(void* ctx, u64 addr) {
  auto* m = static_cast<HostMem*>(ctx);
  if (addr % NVMEV_PRP_PAGE) fail("map of an unaligned address");
  if (addr < kRamBase || addr >= kRamBase + uint64_t{kRamPages} * NVMEV_PRP_PAGE) return nullptr;
  m->mapped++;
  return m->pages[(addr - kRamBase) / NVMEV_PRP_PAGE].get();
}

void unmap_page(void* ctx, void*) {
  if (--static_cast<HostMem*>(ctx)->mapped < 0) fail("unmap without map");
}

// A host address: mostly inside the fake RAM (or just past it), sometimes
// anything at all.
uint64_t host_addr(Input& in) {
  uint64_t v = in.u64();
  if (v >> 63) return v & ~(uint64_t{1} << 63);
  return kRamBase + v % ((kRamPages + 1) * uint64_t{NVMEV_PRP_PAGE});
}

void fuzz_prp(Input& in) {
  HostMem mem;
  uint64_t prp1 = host_addr(in), prp2 = host_addr(in);
  uint64_t len = 1 + in.u32() % (2 * kRamPages * NVMEV_PRP_PAGE);
  bool to_host = in.u8() & 1;
  for (unsigned i = 0; i < kRamPages; i++) {
    mem.pages.emplace_back(new uint8_t[NVMEV_PRP_PAGE]);
    for (unsigned k = 0; k < NVMEV_PRP_PAGE / 8; k++) {
      uint64_t e = host_addr(in);  // PRP list entries, if it is a list
      std::memcpy(&mem.pages[i][k * 8], &e, 8);
    }
  }
  std::vector<uint8_t> buf(len);  // exactly len: ASan sees an overrun
  const nvmev_host_mem ops = {map_page, unmap_page, &mem};
  auto r = nvmev_prp_copy_mem(&ops, prp1, prp2, buf.data(), len, to_host);
  if (r != NVMEV_PRP_OK && r != NVMEV_PRP_BAD_OFFSET && r != NVMEV_PRP_NOT_RAM)
    fail("undefined PRP result");
  if (mem.mapped) fail("pages left mapped");
}

void fuzz_hint(Input& in) {
  __u32 cdw2 = in.u32(), cdw3 = in.u32(), cdw12 = in.u32();
  __u64 prev = 0;
  auto kind = nvmev_hint_decode(cdw2, cdw3, cdw12, &prev);
  switch (kind) {
    case NVMEV_HINT_NONE:
    case NVMEV_HINT_KIND_INVALID:
      return;
    case NVMEV_HINT_KIND_APPEND:
    case NVMEV_HINT_KIND_OVERWRITE: {
      __u32 c2 = 0, c3 = 0, c12 = cdw12 & ~NVMEV_HINT_MASK;
      __u64 again = 0;
      nvmev_hint_encode(kind, prev, &c2, &c3, &c12);
      if (nvmev_hint_decode(c2, c3, c12, &again) != kind) fail("hint kind lost in re-encoding");
      if (kind == NVMEV_HINT_KIND_APPEND && again != prev) fail("previous LBA lost in re-encoding");
      return;
    }
    default:
      fail("undefined hint kind");
  }
}

void fuzz_model(Input& in) {
  nvmev::Model m(nvmev::small_config());
  const uint64_t cap = m.capacity_bytes();
  uint64_t now = 0;
  for (int i = 0; i < 64 && !in.empty(); i++) {
    ftl_cmd c{};
    c.op = in.u8() % (FTL_OP_NR + 2);
    c.hint = in.u8() % (FTL_HINT_INVALID + 3);
    uint64_t off = in.u64(), len = in.u64(), prev = in.u64();
    // mostly inside the drive, at times anywhere
    c.off = off >> 63 ? off : off % (cap + 65536);
    c.len = len >> 63 ? len : len % (1 << 20);
    c.hint_prev_off = prev >> 63 ? prev : prev % (cap + 65536);
    now += in.u8() * 1000ull;
    auto r = m.submit(c, now);
    if (r.status < FTL_OK || r.status > FTL_ERR_INVALID) fail("undefined model status");
  }
  std::string err = m.check();
  if (!err.empty()) fail(err.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  switch (in.u8() % 3) {
    case 0:
      fuzz_prp(in);
      break;
    case 1:
      fuzz_hint(in);
      break;
    default:
      fuzz_model(in);
      break;
  }
  return 0;
}
