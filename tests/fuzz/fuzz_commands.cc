// libFuzzer target over what a host controls in a command, built from the
// same C files as nvmev.ko:
//  - the submission queue entry parsers (nvmev/nvmev_cmd.c): any 64 bytes
//    as an NVM command on a namespace of any size, or as an admin command,
//    end in a defined NVMe status; what they accept is within the
//    namespace, MDTS and the queue limits, and every NVM command they
//    accept the flash model accepts too (the parser is the only check
//    between a host and the model);
//  - the PRP walker (nvmev/nvmev_prp.c) over a fake host memory whose
//    pages are separate allocations, so AddressSanitizer sees any access
//    past a mapped page, and whose map/unmap calls must balance; the
//    device side a buffer or runs of separate allocations that may run
//    out of room (a page-backed store);
//  - the hint wire format (hint-proto/nvmev_hint.h): any CDW2/CDW3/CDW12
//    decodes to a defined kind, and a valid kind re-encodes to the same;
//  - the flash model's command entry (ftl_submit) with arbitrary op,
//    offset, length and hint fields on a small drive: only defined
//    statuses, and the mapping tables stay consistent;
//  - the zone state machine (nvmev/nvmev_zone_state.c) under any sequence of
//    writes, appends, zone actions and reports with any limits: only the
//    spec's statuses, a refused command changes nothing, the open and
//    active counts are the zones' and within the limits, write pointers
//    within the capacity, reports in order and as filtered.
// Input: first byte selects the part, the rest are its fields.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>
#include <vector>

extern "C" {
#include "nvmev_cmd.h"
#include "nvmev_fdp.h"
#include "nvmev_hint.h"
#include "nvmev_nsmgmt.h"
#include "nvmev_prp.h"
#include "nvmev_zone_state.h"
}
#include "fuzz_input.h"
#include "model.h"

namespace {

using nvmev_fuzz::Input;

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

void* map_page(void* ctx, u64 addr, bool /*write*/) {
  auto* m = static_cast<HostMem*>(ctx);
  if (addr % NVMEV_PRP_PAGE) fail("map of an unaligned address");
  if (addr < kRamBase || addr >= kRamBase + uint64_t{kRamPages} * NVMEV_PRP_PAGE) return nullptr;
  m->mapped++;
  return m->pages[(addr - kRamBase) / NVMEV_PRP_PAGE].get();
}

void unmap_page(void* ctx, void*) {
  if (--static_cast<HostMem*>(ctx)->mapped < 0) fail("unmap without map");
}

struct DevMem {
  std::vector<std::unique_ptr<uint8_t[]>> runs;  // separate: ASan sees overruns
  uint64_t len = 0, run = 1, room = 0;           // writes past room: no space
};

u8* dev_at(void* ctx, u64 pos, u32* n, bool write) {
  auto* d = static_cast<DevMem*>(ctx);
  if (!*n || pos + *n > d->len) fail("device access outside the transfer");
  if (write && pos >= d->room) return nullptr;
  *n = static_cast<u32>(std::min<uint64_t>(*n, d->run - pos % d->run));
  if (write) *n = static_cast<u32>(std::min<uint64_t>(*n, d->room - pos));
  return d->runs[pos / d->run].get() + pos % d->run;
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
  // the device side: one buffer, or runs of separate allocations (a
  // page-backed store) that may run out of room part way (read before
  // the pages, which take more input than a run is given)
  uint8_t seg = in.u8();
  uint64_t room = seg & 0x80 ? uint64_t{in.u32()} % (len + 1) : len;
  for (unsigned i = 0; i < kRamPages; i++) {
    mem.pages.emplace_back(new uint8_t[NVMEV_PRP_PAGE]);
    for (unsigned k = 0; k < NVMEV_PRP_PAGE / 8; k++) {
      uint64_t e = host_addr(in);  // PRP list entries, if it is a list
      std::memcpy(&mem.pages[i][k * 8], &e, 8);
    }
  }
  const nvmev_host_mem ops = {map_page, unmap_page, &mem};
  nvmev_prp_result r;
  if (!seg) {
    // the walk without a move (a write's check) says how the move ends:
    // the same failure, or, after OK, all moved or failed on its first
    // page. A write only: a read writes host memory, which may hold the
    // PRP list it walks (a host's error, the fuzzer's page pool), so its
    // list can change under it.
    nvmev_prp_result c = nvmev_prp_check(&ops, prp1, prp2, len, to_host);
    std::vector<uint8_t> buf(len);  // exactly len: ASan sees an overrun
    r = nvmev_prp_copy_mem(&ops, prp1, prp2, buf.data(), len, to_host);
    if (r == NVMEV_PRP_NO_SPACE) fail("no room in a contiguous buffer");
    if (!to_host && c != NVMEV_PRP_OK && r != c) fail("the check and the transfer disagree");
    if (!to_host && c == NVMEV_PRP_OK && r != NVMEV_PRP_OK &&
        len > NVMEV_PRP_PAGE - (prp1 & (NVMEV_PRP_PAGE - 1)))
      fail("a checked transfer failed part-way");
  } else {
    DevMem dm;
    dm.len = len;
    dm.run = 64 + (seg & 0x7f) * 97u;  // 64 B .. 12 KiB runs
    dm.room = room;
    for (uint64_t at = 0; at < len; at += dm.run)
      dm.runs.emplace_back(new uint8_t[std::min<uint64_t>(dm.run, len - at)]);
    const nvmev_dev_mem dev = {dev_at, &dm};
    r = nvmev_prp_xfer(&ops, prp1, prp2, &dev, len, to_host);
    if (r == NVMEV_PRP_NO_SPACE && (to_host || dm.room == len)) fail("no room where there was");
    if (r == NVMEV_PRP_OK && !to_host && dm.room < len) fail("a write past the room succeeded");
  }
  if (r != NVMEV_PRP_OK && r != NVMEV_PRP_BAD_OFFSET && r != NVMEV_PRP_NOT_RAM &&
      r != NVMEV_PRP_NO_SPACE)
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

// The model with 1-8 write points per die (idle flush after 1 s or
// 100 us) and, at times, its upper half zoned (1 MiB zones of any
// capacity over 1-4 dies), taking writes anywhere, resets and finishes.
void fuzz_model(Input& in) {
  ftl_config cfg = nvmev::small_config();
  const uint8_t wf = in.u8();
  cfg.write_points_per_die = 1 + wf % 8;
  if (wf & 8) cfg.write_point_idle_ns = 100000;
  nvmev::Model m(cfg);
  const uint64_t cap = m.capacity_bytes(), zoned = cap / 2, zone = 1 << 20;
  const uint8_t zf = in.u8();
  if (zf & 1)
    m.add_zones(zoned, zone, (zf >> 1) % (zone / 4096) * 4096 + 4096,
                static_cast<uint32_t>(zoned / zone), 1 + (zf >> 6) % m.geometry().dies);
  uint64_t now = 0;
  for (int i = 0; i < 64 && !in.empty(); i++) {
    ftl_cmd c{};
    c.op = in.u8() % (FTL_OP_NR + 4);
    if (c.op >= FTL_OP_NR + 2) {  // a zone's reset or finish, at times of no zone
      uint64_t z = in.u64(), off = z >> 63 ? z : zoned + z % (zoned / zone + 1) * zone;
      now += in.u8() * 1000ull;
      auto r = c.op == FTL_OP_NR + 2 ? m.zone_reset(off, now) : m.zone_finish(off, now);
      if (r.status < FTL_OK || r.status > FTL_ERR_INVALID) fail("undefined zone status");
      if (r.done_ns < now) fail("a zone action done before it began");
      continue;
    }
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

constexpr u16 dnr(u16 sc) { return sc | NVME_STATUS_DNR; }

nvmev_sqe read_sqe(Input& in) {
  nvmev_sqe sqe;
  in.bytes(&sqe, sizeof(sqe));
  return sqe;
}

// The namespaces of a real drive (the model's small_config()): one of the
// whole drive, or its two halves as NSIDs 1 and 3 (2 inactive), each of
// its own LBA format; or one whose size is anything up to 2^48 LBAs, or
// an empty one (an inactive NSID 1). With bit 6 the last namespace is
// zoned, of 1 MiB zones.
nvmev_ns_view read_ns(Input& in, uint64_t model_bytes) {
  nvmev_ns_view ns{};
  uint8_t f = in.u8();
  ns.hints_supported = f & 2;
  ns.hints_enabled = ns.hints_supported && (f & 4);
  uint64_t n = in.u64();
  ns.nn = 1;
  ns.ns[0].lba_shift = f & 1 ? 12 : 9;
  if (f & 8) {
    ns.ns[0].nsze = n % (uint64_t{1} << 48);
  } else if (f & 16) {
    uint64_t half = model_bytes / 2 & ~((uint64_t{1} << 20) - 1);
    ns.nn = 3;
    ns.ns[2].lba_shift = f & 32 ? 12 : 9;
    ns.ns[0].nsze = half >> ns.ns[0].lba_shift;
    ns.ns[2].base = half;
    ns.ns[2].nsze = half >> ns.ns[2].lba_shift;
  } else {
    ns.ns[0].nsze = model_bytes >> ns.ns[0].lba_shift;
  }
  if (f & 64) {
    nvmev_ns& z = ns.ns[ns.nn - 1];
    z.csi = NVME_CSI_ZNS;
    z.zone_shift = 20 - z.lba_shift;
    z.nsze = z.nsze >> z.zone_shift << z.zone_shift;
  }
  if (f & 128) {  // FDP: up to 128 handles in up to 5 reclaim groups
    ns.fdp.ruhs = static_cast<u16>(1 + in.u8() % 128);
    ns.fdp.rgs = static_cast<u16>(1 + in.u8() % 5);
    while ((1u << ns.fdp.rgif) < ns.fdp.rgs) ns.fdp.rgif++;
    ns.fdp.ruht = 1;
    ns.fdp.runs = 1 << 20;
    for (u32 i = 0; i < ns.nn; i++) {
      nvmev_ns& n = ns.ns[i];
      if (!n.nsze || n.csi == NVME_CSI_ZNS) continue;
      n.nphndls = std::min<u16>(ns.fdp.ruhs, NVMEV_FDP_MAX_PHNDLS);
      for (u16 k = 0; k < n.nphndls; k++) n.phndl[k] = static_cast<u16>(ns.fdp.ruhs - 1 - k);
    }
  }
  return ns;
}

// [off, off + len) lies in namespace @n's slice, in whole LBAs
bool within(const nvmev_ns& n, uint64_t off, uint64_t len) {
  uint64_t cap = n.nsze << n.lba_shift;
  if (off < n.base) return false;
  off -= n.base;
  return off < cap && len <= cap - off && off % (1u << n.lba_shift) == 0 &&
         len % (1u << n.lba_shift) == 0;
}

void fuzz_io_parse(Input& in) {
  nvmev::Model m(nvmev::small_config());
  nvmev_ns_view ns = read_ns(in, m.capacity_bytes());
  // the slices lie inside the model's capacity
  const bool real = ns.ns[0].nsze << ns.ns[0].lba_shift <= m.capacity_bytes();
  uint64_t now = 0;
  for (int i = 0; i < 16 && !in.empty(); i++) {
    nvmev_sqe sqe = read_sqe(in);
    nvmev_io_req req;
    u16 st = nvmev_io_parse(&ns, &sqe, &req);
    static const std::set<u16> kStatuses = {
        NVME_SC_SUCCESS, dnr(NVME_SC_INVALID_FIELD), dnr(NVME_SC_INVALID_NS),
        dnr(NVME_SC_LBA_RANGE), dnr(NVME_SC_INVALID_OPCODE)};
    if (!kStatuses.count(st)) fail("undefined NVM command status");
    if (req.cid != sqe.dw[0] >> 16) fail("command identifier lost");
    // the Command Effects log of the namespace's command set lists
    // exactly the commands the parser takes for it
    const u8 csi = req.ns ? req.ns->csi : NVME_CSI_NVM;
    const bool fdp = ns.fdp.ruhs;
    if (st == dnr(NVME_SC_INVALID_OPCODE) && nvmev_io_effects(req.opcode, csi, fdp))
      fail("refused an I/O opcode the effects log lists");
    if (st == NVME_SC_SUCCESS && !(nvmev_io_effects(req.opcode, csi, fdp) & NVME_CMD_EFFECTS_CSUPP))
      fail("accepted an I/O opcode the effects log does not list");
    if (st == NVME_SC_SUCCESS && !fdp &&
        (req.opcode == NVMEV_CMD_IO_MGMT_RECV || req.opcode == NVMEV_CMD_IO_MGMT_SEND))
      fail("accepted I/O Management on a drive without FDP");
    // a directive type only where it is enabled: Data Placement with FDP
    const u32 dtype = sqe.dw[12] >> 20 & 0xf;
    if (st == NVME_SC_SUCCESS && dtype &&
        (req.opcode == nvme_cmd_write || req.opcode == nvme_cmd_write_zeroes) &&
        (dtype != NVMEV_DTYPE_PLACEMENT || !fdp))
      fail("accepted a directive type that is not enabled");
    if (st == NVME_SC_SUCCESS && req.opcode == nvme_cmd_write) {
      const bool handles = fdp && req.ns->nphndls;
      if (req.model.fdp != handles) fail("a write's handle where there are none, or none where there are");
      if (handles && (req.model.fdp_ruh >= ns.fdp.ruhs || req.model.fdp_rg >= ns.fdp.rgs))
        fail("a write through a handle the drive has not");
      if (handles && !dtype && (req.model.fdp_ruh != req.ns->phndl[0] || req.model.fdp_rg))
        fail("a write naming no handle not placed through placement handle 0");
    }
    if (st) continue;
    // an active namespace of the view, or a Flush of all of them
    const uint32_t nsid = sqe.dw[1];
    if (req.nsid != nsid) fail("NSID lost");
    if (req.ns != nvmev_ns_get(&ns, nsid)) fail("not the namespace the NSID names");
    if (!req.ns && !(req.opcode == nvme_cmd_flush && nsid == NVME_NSID_ALL))
      fail("accepted a command of an inactive namespace");
    const ftl_cmd& c = req.model;
    switch (req.opcode) {
      case nvme_cmd_read:
      case nvme_cmd_write:
        if (!within(*req.ns, c.off, c.len) || c.len > NVMEV_MAX_XFER) fail("accepted I/O out of bounds");
        if (c.op != (req.opcode == nvme_cmd_write ? FTL_OP_WRITE : FTL_OP_READ)) fail("wrong op");
        if (c.hint != FTL_HINT_NONE && !ns.hints_enabled) fail("hint with the feature off");
        if (c.hint == FTL_HINT_APPEND && c.hint_prev_off != U64_MAX &&
            !within(*req.ns, c.hint_prev_off, 1u << req.ns->lba_shift))
          fail("append hint outside the namespace");
        break;
      case nvme_cmd_write_zeroes:
        if (!within(*req.ns, c.off, c.len) || c.op != FTL_OP_TRIM) fail("accepted write zeroes out of bounds");
        break;
      case nvme_cmd_flush:
        if (c.op != FTL_OP_FLUSH || c.len) fail("flush with a range");
        break;
      case nvme_cmd_zone_append:
        if (req.ns->csi != NVME_CSI_ZNS) fail("a zoned command on a namespace that is not");
        if (!within(*req.ns, c.off, c.len) || c.len > NVMEV_MAX_XFER) fail("accepted an append out of bounds");
        if ((c.off - req.ns->base) >> req.ns->lba_shift & ((1ull << req.ns->zone_shift) - 1))
          fail("accepted an append not at a zone's start");
        continue;  // the model sees the write at the zone's pointer
      case nvme_cmd_zone_mgmt_send:
      case nvme_cmd_zone_mgmt_recv:
        if (req.ns->csi != NVME_CSI_ZNS) fail("a zoned command on a namespace that is not");
        if (req.opcode == nvme_cmd_zone_mgmt_send &&
            (req.zsa < NVME_ZONE_CLOSE || req.zsa > NVME_ZONE_OFFLINE))
          fail("accepted an unknown zone action");
        if ((req.opcode == nvme_cmd_zone_mgmt_recv || !req.zone_all) &&
            (req.slba >= req.ns->nsze ||
             (req.opcode == nvme_cmd_zone_mgmt_send &&
              (req.slba & ((1ull << req.ns->zone_shift) - 1)))))
          fail("accepted a zone that is not one");
        if (req.opcode == nvme_cmd_zone_mgmt_recv && (req.xfer > NVMEV_MAX_XFER || req.zrasf > 7))
          fail("accepted an impossible report");
        continue;
      case nvme_cmd_dsm: {
        if (req.nr_ranges > 256) fail("more than 256 DSM ranges");
        std::vector<uint8_t> ranges(req.nr_ranges * NVMEV_DSM_RANGE_BYTES);
        in.bytes(ranges.data(), ranges.size());
        if (ranges.size() >= 16 && (in.u8() & 1)) {  // often a valid first range
          uint64_t slba = in.u64() % (req.ns->nsze + 1);
          uint32_t nlb = static_cast<uint32_t>(req.ns->nsze - slba);
          std::memcpy(&ranges[4], &nlb, 4);
          std::memcpy(&ranges[8], &slba, 8);
        }
        u16 rs = nvmev_dsm_check(req.ns, ranges.data(), req.nr_ranges);
        if (rs != NVME_SC_SUCCESS && rs != dnr(NVME_SC_LBA_RANGE)) fail("undefined DSM status");
        for (uint32_t r = 0; !rs && r < req.nr_ranges; r++) {
          ftl_cmd t{};
          t.op = FTL_OP_TRIM;
          nvmev_dsm_range(req.ns, ranges.data(), r, &t.off, &t.len);
          if (t.len && !within(*req.ns, t.off, t.len)) fail("accepted DSM range out of bounds");
          if (t.len && real && m.submit(t, now).status != FTL_OK) fail("model refused a checked range");
        }
        continue;
      }
      default:
        fail("accepted an unknown opcode");
    }
    now += 1000;
    // the model must take whatever the parser let through (a full drive
    // may still say so)
    if (real) {
      int r = m.submit(c, now).status;
      if (r != FTL_OK && r != FTL_ERR_NO_SPACE) fail("model refused a parsed command");
    }
  }
  std::string err = m.check();
  if (!err.empty()) fail(err.c_str());
}

void fuzz_admin_parse(Input& in) {
  nvmev_ns_view ns = read_ns(in, 64ull << 20);
  nvmev_sqe sqe = read_sqe(in);
  nvmev_admin_req req;
  u16 st = nvmev_admin_parse(&ns, &sqe, &req);
  static const std::set<u16> kStatuses = {
      NVME_SC_SUCCESS,          dnr(NVME_SC_INVALID_FIELD),       dnr(NVME_SC_INVALID_NS),
      dnr(NVME_SC_INVALID_OPCODE), dnr(NVME_SC_INVALID_LOG_PAGE), dnr(NVME_SC_FEATURE_NOT_SAVEABLE),
      dnr(NVME_SC_FEATURE_NOT_CHANGEABLE), dnr(NVME_SC_CMD_SEQ_ERROR),
      dnr(NVME_SC_QUEUE_SIZE),  dnr(NVME_SC_QID_INVALID),         dnr(NVME_SC_CQ_INVALID),
      dnr(NVME_SC_INVALID_VECTOR)};
  if (!kStatuses.count(st)) fail("undefined admin status");
  // the Command Effects log lists exactly the commands the parser knows
  if (st == dnr(NVME_SC_INVALID_OPCODE) && nvmev_admin_effects(req.opcode))
    fail("refused an opcode the effects log lists");
  if (st == NVME_SC_SUCCESS && !(nvmev_admin_effects(req.opcode) & NVME_CMD_EFFECTS_CSUPP))
    fail("accepted an opcode the effects log does not list");
  if (st) return;
  auto queue_ok = [](unsigned q) { return q >= 1 && q < NVMEV_MAX_QUEUES; };
  switch (req.opcode) {
    case nvme_admin_create_sq:
      if (!queue_ok(req.cqid)) fail("accepted SQ on an impossible CQ");
      [[fallthrough]];
    case nvme_admin_create_cq:
      if (!queue_ok(req.qid) || req.qsize < 2 || req.qsize > NVMEV_MQES + 1)
        fail("accepted an impossible queue");
      if (req.ien && req.vector >= NVMEV_MAX_QUEUES) fail("accepted an impossible vector");
      break;
    case nvme_admin_delete_sq:
    case nvme_admin_delete_cq:
      if (!queue_ok(req.qid)) fail("accepted deleting an impossible queue");
      break;
    case nvme_admin_get_log_page:
      if (req.lid >= NVMEV_LOG_FDP_CONFIGS && req.lid <= NVMEV_LOG_FDP_EVENTS &&
          (!ns.fdp.ruhs || req.lsi != NVMEV_ENDGID))
        fail("accepted an FDP log of no endurance group with FDP");
      if (!req.log_size || req.log_size != nvmev_log_page_size(&ns, req.lid) ||
          req.log_off >= req.log_size || req.log_off % 4 || req.log_len < 4 ||
          req.log_len > NVMEV_MAX_XFER)
        fail("accepted an impossible log page read");
      if (req.lid == NVME_LOG_SMART && req.nsid && req.nsid != NVME_NSID_ALL &&
          !nvmev_ns_get(&ns, req.nsid))
        fail("accepted the SMART log of an inactive namespace");
      break;
    case nvme_admin_identify: {
      const bool ns_mgmt_cns =
          req.cns >= NVMEV_ID_CNS_NS_ALLOC_LIST && req.cns <= NVMEV_ID_CNS_CTRL_LIST;
      if ((req.cns > NVME_ID_CNS_CS_CTRL && !ns_mgmt_cns) || req.cns == 4)
        fail("accepted an unknown CNS");
      if ((req.cns == NVME_ID_CNS_CS_NS || req.cns == NVME_ID_CNS_CS_CTRL) &&
          req.cdw11 >> 24 != NVME_CSI_NVM && req.cdw11 >> 24 != NVME_CSI_ZNS)
        fail("accepted an I/O command set other than NVM and zoned");
      if (req.cns == NVME_ID_CNS_CS_NS && req.cdw11 >> 24 == NVME_CSI_ZNS &&
          nvmev_ns_get(&ns, req.nsid) && nvmev_ns_get(&ns, req.nsid)->csi != NVME_CSI_ZNS)
        fail("accepted the zoned structure of a namespace that is not zoned");
      // a namespace's data: an NSID up to NN (an inactive one reads as
      // zeroes), but only an active one has identifiers to list
      if (req.cns != NVME_ID_CNS_CTRL && req.cns != NVME_ID_CNS_NS_ACTIVE_LIST &&
          req.cns != NVME_ID_CNS_CS_CTRL && req.cns != NVMEV_ID_CNS_NS_ALLOC_LIST &&
          req.cns != NVMEV_ID_CNS_CTRL_LIST && (!req.nsid || req.nsid > ns.nn))
        fail("accepted Identify of an NSID beyond NN");
      if (req.cns == NVME_ID_CNS_NS_DESC_LIST && !nvmev_ns_get(&ns, req.nsid))
        fail("listed the identifiers of an inactive namespace");
      break;
    }
    case NVMEV_ADMIN_NS_MGMT:
    case NVMEV_ADMIN_NS_ATTACH: {
      // an allocated namespace of the NVM command set (all of them for a
      // delete of FFFFFFFFh); a create of the NVM command set
      const bool create = req.opcode == NVMEV_ADMIN_NS_MGMT && req.sel == NVMEV_NS_MGMT_CREATE;
      if (req.sel > 1) fail("accepted an unknown SEL");
      if (create && req.cdw11 >> 24 != NVME_CSI_NVM) fail("created a namespace of another set");
      if (!create && req.nsid != NVME_NSID_ALL &&
          (!req.nsid || req.nsid > NVMEV_MAX_NS || !ns.ns[req.nsid - 1].nsze))
        fail("accepted a namespace that is not allocated");
      if (!create && req.opcode == NVMEV_ADMIN_NS_ATTACH && req.nsid == NVME_NSID_ALL)
        fail("attached every namespace at once");
      if (!create && req.opcode == NVMEV_ADMIN_NS_MGMT)
        for (u32 i = 0; i < NVMEV_MAX_NS; i++)
          if ((req.nsid == NVME_NSID_ALL || req.nsid == i + 1) && ns.ns[i].nsze &&
              ns.ns[i].csi == NVME_CSI_ZNS)
            fail("deleted a zoned namespace");
      break;
    }
    case nvme_admin_set_features:
    case nvme_admin_get_features:
      // a row of the feature table, and only of it
      if (!req.feat || req.feat->fid != req.fid ||
          req.feat < nvmev_features || req.feat >= nvmev_features + nvmev_nr_features)
        fail("accepted a feature the table does not have");
      if (req.opcode == nvme_admin_set_features && !(req.feat->caps & NVMEV_FEAT_CHANGEABLE))
        fail("accepted setting an unchangeable feature");
      if (req.feat->caps & NVMEV_FEAT_SAVEABLE) fail("a saveable feature");
      if (req.fid == NVMEV_HINT_FID && !ns.hints_supported)
        fail("hint feature without hint support");
      if ((req.fid == NVMEV_FEAT_FDP || req.fid == NVMEV_FEAT_FDP_EVENTS) && !ns.fdp.ruhs)
        fail("an FDP feature without FDP");
      if (req.fid == NVMEV_FEAT_FDP && req.opcode == nvme_admin_set_features)
        fail("changed FDP of an endurance group with namespaces");
      if (req.fid == NVMEV_FEAT_FDP_EVENTS && req.sel != 3 &&
          (!nvmev_ns_get(&ns, req.nsid) || req.phndl >= nvmev_ns_get(&ns, req.nsid)->nphndls || !req.noet))
        fail("FDP events of a placement handle the namespace has not");
      if (req.fid == NVME_FEAT_IRQ_CONFIG && req.sel != 3 && (req.cdw11 & 0xffff) >= NVMEV_MAX_QUEUES)
        fail("accepted an impossible interrupt vector");
      if (req.fid == NVME_FEAT_ERR_RECOVERY && req.opcode == nvme_admin_set_features &&
          (req.cdw11 & (1u << 16)))
        fail("accepted DULBE");
      break;
    case nvme_admin_abort_cmd:
    case nvme_admin_async_event:
    case nvme_admin_keep_alive:
      break;
    default:
      fail("accepted an unknown admin opcode");
  }
}

}  // namespace

// ---- zones ----

// The zones' own account: counts match the states, limits hold, every
// pointer lies within the capacity and says what its state says.
void zns_consistent(const nvmev_zns& z) {
  uint32_t open = 0, active = 0;
  for (uint32_t i = 0; i < z.nr_zones; i++) {
    const nvmev_zone& zn = z.zones[i];
    switch (zn.state) {
      case NVMEV_ZS_IMP_OPEN:
      case NVMEV_ZS_EXP_OPEN: open++; active++; break;
      case NVMEV_ZS_CLOSED: active++; break;
      case NVMEV_ZS_EMPTY: if (zn.wp) fail("an empty zone with data"); break;
      case NVMEV_ZS_FULL: if (zn.wp != z.zcap) fail("a full zone not at its capacity"); break;
      case NVMEV_ZS_READ_ONLY: case NVMEV_ZS_OFFLINE: break;
      default: fail("a zone in no state");
    }
    if (zn.wp > z.zcap) fail("a write pointer past the capacity");
  }
  if (open != z.nr_open || active != z.nr_active) fail("zone counts wrong");
  if ((z.max_open && open > z.max_open) || (z.max_active && active > z.max_active))
    fail("zone limits exceeded");
}

struct ZnsSnapshot {
  std::vector<nvmev_zone> zones;
  uint32_t open, active;
  explicit ZnsSnapshot(const nvmev_zns& z)
      : zones(z.zones, z.zones + z.nr_zones), open(z.nr_open), active(z.nr_active) {}
  bool same(const nvmev_zns& z) const {
    for (uint32_t i = 0; i < z.nr_zones; i++)
      if (zones[i].wp != z.zones[i].wp || zones[i].state != z.zones[i].state) return false;
    return open == z.nr_open && active == z.nr_active;
  }
};

// The zones an action asked the flash to reset or finish.
struct Resets {
  const nvmev_zns* z;
  std::vector<uint32_t> zones;
  std::vector<uint32_t> finished;
};

void zns_flash_cb(void* ctx, u8 zsa, u64 zslba) {
  auto* r = static_cast<Resets*>(ctx);
  if (zslba & ((1ull << r->z->zone_shift) - 1)) fail("flash action on no zone's start");
  if (zsa != NVME_ZONE_RESET && zsa != NVME_ZONE_FINISH) fail("flash action neither reset nor finish");
  (zsa == NVME_ZONE_RESET ? r->zones : r->finished)
      .push_back(static_cast<uint32_t>(zslba >> r->z->zone_shift));
}

void fuzz_zns(Input& in) {
  nvmev_zns z{};
  std::vector<nvmev_zone> zones(1 + in.u8() % 16);
  z.zones = zones.data();
  z.nr_zones = static_cast<uint32_t>(zones.size());
  z.zone_shift = 3 + in.u8() % 8;
  const uint64_t zsze = 1ull << z.zone_shift, nsze = z.nr_zones * zsze;
  z.zcap = 1 + in.u64() % zsze;
  z.max_active = in.u8() % 6;
  z.max_open = in.u8() % 5;
  if (z.max_active && z.max_open > z.max_active) z.max_open = z.max_active;
  nvmev_zns_init(&z);
  // a zone may be read-only (media the controller took out of service)
  if (in.u8() & 1) zones[in.u8() % z.nr_zones].state = NVMEV_ZS_READ_ONLY;
  static const std::set<u16> kStatuses = {
      NVME_SC_SUCCESS, dnr(NVME_SC_INVALID_FIELD), dnr(NVME_SC_ZONE_BOUNDARY_ERROR),
      dnr(NVME_SC_ZONE_FULL), dnr(NVME_SC_ZONE_READ_ONLY), dnr(NVME_SC_ZONE_OFFLINE),
      dnr(NVME_SC_ZONE_INVALID_WRITE), dnr(NVME_SC_ZONE_TOO_MANY_ACTIVE),
      dnr(NVME_SC_ZONE_TOO_MANY_OPEN), dnr(NVME_SC_ZONE_INVALID_TRANSITION)};
  for (int i = 0; i < 64 && !in.empty(); i++) {
    const uint8_t op = in.u8();
    const uint32_t zi = in.u8() % z.nr_zones;
    const uint64_t zslba = static_cast<uint64_t>(zi) << z.zone_shift;
    ZnsSnapshot before(z);
    u16 st;
    switch (op % 4) {
      case 0:    // a Write, often at the pointer
      case 1: {  // a Zone Append
        const bool append = op % 4 == 1;
        uint64_t slba = append ? zslba : (op & 16) ? in.u64() % nsze : zslba + zones[zi].wp;
        if (slba >= nsze) slba = zslba;
        const uint64_t nlb = 1 + in.u64() % std::min<uint64_t>(zsze, nsze - slba);
        u64 lba = ~0ull;
        st = nvmev_zns_write_check(&z, slba, nlb, append, &lba);
        if (!kStatuses.count(st)) fail("undefined zone write status");
        if (!before.same(z)) fail("a write check changed a zone");
        if (st) break;
        const nvmev_zone& zn = zones[slba >> z.zone_shift];
        if (lba != (slba & ~(zsze - 1)) + zn.wp || (!append && lba != slba))
          fail("a write placed off the pointer");
        if (zn.wp + nlb > z.zcap) fail("a write past the capacity accepted");
        const uint64_t wp = zn.wp;
        nvmev_zns_write_commit(&z, lba, nlb);
        if (zn.wp != (wp + nlb == z.zcap ? z.zcap : wp + nlb)) fail("the pointer did not move");
        if (zn.state != (zn.wp == z.zcap ? NVMEV_ZS_FULL : zn.state) ||
            (zn.wp < z.zcap && zn.state != NVMEV_ZS_IMP_OPEN && zn.state != NVMEV_ZS_EXP_OPEN))
          fail("a written zone neither open nor full");
        break;
      }
      case 2: {  // a zone action, on one zone or all
        Resets r{&z, {}, {}};
        const uint8_t zsa = in.u8() % 7;
        st = nvmev_zns_manage(&z, zsa, zslba, op & 32, zns_flash_cb, &r);
        if (!kStatuses.count(st)) fail("undefined zone action status");
        if (st && (!before.same(z) || !r.zones.empty() || !r.finished.empty()))
          fail("a refused action changed a zone");
        for (uint32_t f : r.finished)
          if (zones[f].state != NVMEV_ZS_FULL || before.zones[f].state == NVMEV_ZS_FULL)
            fail("a finish that did not fill a zone, or of a full one");
        // an empty zone's flash is reset too, when that zone is named
        for (uint32_t reset : r.zones)
          if (zones[reset].state != NVMEV_ZS_EMPTY ||
              (before.zones[reset].state == NVMEV_ZS_EMPTY && ((op & 32) || reset != zi)))
            fail("a reset that did not empty a zone, or of an empty one not named");
        break;
      }
      default: {  // a report
        const uint8_t filter = in.u8() % 9;
        const uint64_t len = in.u64() % (NVMEV_ZONE_DESC_BYTES * (z.nr_zones + 2) + 1);
        std::vector<uint8_t> buf(len + 8);
        nvmev_zns_report(&z, zslba + in.u64() % zsze, filter, op & 64, buf.data(), len);
        if (!before.same(z)) fail("a report changed a zone");
        uint64_t n = 0, prev = 0;
        if (len >= 8) std::memcpy(&n, buf.data(), 8);
        for (uint64_t k = 0; k < n && (k + 2) * NVMEV_ZONE_DESC_BYTES <= len; k++) {
          const uint8_t* d = buf.data() + (k + 1) * NVMEV_ZONE_DESC_BYTES;
          uint64_t start;
          std::memcpy(&start, d + 16, 8);
          if (start % zsze || start < zslba || (k && start <= prev) || start >= nsze)
            fail("a report out of order");
          // ZRASF 1-7: empty, opened (implicitly, explicitly), closed,
          // full, read only, offline
          static const uint8_t kFiltered[] = {0, 0x1, 0x2, 0x3, 0x4, 0xe, 0xd, 0xf};
          const uint8_t state = zones[start >> z.zone_shift].state;
          if (d[1] >> 4 != state || (filter && state != kFiltered[filter]))
            fail("a report of the wrong state");
          prev = start;
        }
        if (filter == 8 && n) fail("a report of a filter that does not exist");
        st = NVME_SC_SUCCESS;
        break;
      }
    }
    zns_consistent(z);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  switch (in.u8() % 6) {
    case 0:
      fuzz_prp(in);
      break;
    case 1:
      fuzz_hint(in);
      break;
    case 2:
      fuzz_model(in);
      break;
    case 3:
      fuzz_io_parse(in);
      break;
    case 5:
      fuzz_zns(in);
      break;
    default:
      fuzz_admin_parse(in);
      break;
  }
  return 0;
}
