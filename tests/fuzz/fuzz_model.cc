// libFuzzer differential target of data and zone state. The input picks
// a drive -- the flash geometry, namespaces of 512 B or 4 KiB LBAs,
// conventional or zoned with random zone size, capacity, width and
// open/active limits, write points, a linear or a page-backed store with
// or without a cap -- then a sequence of NVM and zoned commands and
// controller resets. Every command goes through the module's own code, as
// nvmev.ko runs it: nvmev_io_execute() (nvmev_io.c) parses it
// (nvmev_cmd.c), keeps the zones' rules (nvmev_zoned.c,
// nvmev_zone_state.c), moves the data between fake host memory
// (nvmev_host_mem.c, nvmev_prp.c) and the store (nvmev_store.c), and asks the flash model (ftl/). Only
// kernel calls are stand-ins (kshim/); this file is the host.
//
// After every command its data is read back and every zone's state and
// write pointer are compared with a reference model: a content tag per
// LBA (0: reads as zeroes) and the zone state tables of the NVMe Zoned
// Namespace Command Set 1.1, written here from the spec, not from
// nvmev_zone_state.c. The checks, each a name FUZZ_MODEL_ALLOW may list to
// let it pass (to measure another behind it):
//   limits        the Identify limits (WZSL, MDTS = ZASL) let a command
//                 name more LBAs than its 16-bit NLB holds on some
//                 namespace (checked once per layout)
//   no-space      a write the spec allows failed with Capacity Exceeded
//                 although the store's cap was not what it met: the
//                 drive powered on with less flash than its namespaces
//                 promise (allowed: the failure is taken as a refusal)
//   refused       a write the spec allows failed with another status
//   accepted      a command the spec refuses succeeded
//   status        both failed, with a status the spec does not give
//   changed       a command that failed changed data or a zone
//   zone          a zone's state or write pointer differs after success
//   data          data read back differs from the reference
//   store-leak    the page-backed store holds a page for a unit the
//                 model does not map (a failed write kept its pages)
//   report        Zone Management Receive's report differs
//   fdp           with flexible data placement on, the model's own
//                 checker (ftl_check(): mapping, counters, no reclaim
//                 unit holding data of a handle it may not) fails, its
//                 counters do not add up, or a handle update is refused
// Allowed, any but no-space and limits ends the input there.
// FUZZ_MODEL_TRACE=1 prints the layout and every command.
//
// Flexible data placement: the upper bits of the layout's write point
// byte turn it on (handles, handle type, reclaim groups, unit layout and
// size; 0 in every seed without it). Each step of such a drive then reads
// a handle byte: the step's Writes carry that placement identifier
// (DTYPE 2h, DSPEC), now and then one the namespace may not use, or none;
// after each, every 4 KiB unit it wrote must be the named handle's (the
// fallback's, placement handle 0, for none or a bad one). The step that
// verifies everything also moves the handle to a fresh unit through I/O
// Management Send, refused with Invalid Field for a bad identifier. A
// byte after the layout names which namespaces list their placement
// handles (handle_lists()): identifier i then names the list's i-th.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "nvmev.h"
#include "nvmev_fdp.h"
}
#include "fuzz_input.h"

namespace {

using nvmev_fuzz::Input;

const bool kTrace = std::getenv("FUZZ_MODEL_TRACE") != nullptr;

std::set<std::string> allowed_checks() {
  std::set<std::string> s;
  const char* e = std::getenv("FUZZ_MODEL_ALLOW");
  std::stringstream ss(e ? e : "");
  std::string item;
  while (std::getline(ss, item, ',')) s.insert(item);
  return s;
}
const std::set<std::string> kAllowed = allowed_checks();

// A check that failed: abort with its name (fuzz-defects.sh greps for it),
// or, when allowed, end the input.
struct Skip {};
// An allowed no-space returns: the write is then taken as a refusal.
void fail(const std::string& check, const std::string& what) {
  if (kAllowed.count(check) && check == "no-space") return;
  if (kAllowed.count(check)) throw Skip{};
  std::cerr << "fuzz_model: " << check << ": " << what << "\n";
  std::abort();
}

constexpr u64 kXfer = NVMEV_MAX_XFER;
constexpr u32 kPage = 4096;
// host memory: data (MDTS), a PRP list page, a DSM range page
constexpr u64 kHostBytes = kXfer + 2 * kPage;
constexpr u16 kSqid = 1;
constexpr u16 kSc = 0x7ff;  // status without DNR and More

struct Completion {
  u16 cid, status;
  u64 result;
};
std::vector<Completion>* g_done;

// ---- the reference ----

enum : u8 {
  ZE = NVMEV_ZS_EMPTY, ZIO = NVMEV_ZS_IMP_OPEN, ZEO = NVMEV_ZS_EXP_OPEN,
  ZC = NVMEV_ZS_CLOSED, ZRO = NVMEV_ZS_READ_ONLY, ZF = NVMEV_ZS_FULL,
  ZO = NVMEV_ZS_OFFLINE,
};

struct RZone {
  u8 st = ZE;
  u64 wp = 0;
};

struct RNs {
  u32 nsid;
  u32 lba_shift;
  u64 nsze;
  bool zoned = false;
  u64 zone_lbas = 0, zcap = 0;
  u32 max_open = 0, max_active = 0;
  std::vector<RZone> z;
  std::vector<u32> tag;  // content of each LBA; 0: zeroes
  std::vector<u32> alt;  // kNoAlt, or what an interrupted command left
  static constexpr u32 kNoAlt = ~0u;

  u32 lba_bytes() const { return 1u << lba_shift; }
  bool open(u8 s) const { return s == ZIO || s == ZEO; }
  bool active(u8 s) const { return open(s) || s == ZC; }
  u32 nr_open() const {
    u32 n = 0;
    for (auto& x : z) n += open(x.st);
    return n;
  }
  u32 nr_active() const {
    u32 n = 0;
    for (auto& x : z) n += active(x.st);
    return n;
  }
  bool any_imp_open() const {
    for (auto& x : z)
      if (x.st == ZIO) return true;
    return false;
  }
  // LBAs from @slba on read as tags @t, @t + 1, ... (0: all zeroes)
  void set(u64 slba, u64 nlb, u32 t) {
    for (u64 i = 0; i < nlb; i++) {
      tag[slba + i] = t ? t + static_cast<u32>(i) : 0;
      alt[slba + i] = kNoAlt;
    }
  }
};

// The statuses a command may fail with, by the spec; empty: it succeeds.
using Refusals = std::set<u16>;

// Zone resources for zone @zi to open (ZNS 1.1 2.1.1.4, "Managing
// resources"): an active one unless active, an open one -- which the
// controller may take from an implicitly opened zone by closing it.
void open_rules(const RNs& ns, u32 zi, Refusals& r) {
  u8 s = ns.z[zi].st;
  if (ns.open(s)) return;
  if (s == ZE && ns.max_active && ns.nr_active() >= ns.max_active) r.insert(NVME_SC_ZONE_TOO_MANY_ACTIVE);
  if (ns.max_open && ns.nr_open() >= ns.max_open && !ns.any_imp_open())
    r.insert(NVME_SC_ZONE_TOO_MANY_OPEN);
}

// Zone @zi opens (@state: ZIO or ZEO); true if an implicitly opened zone
// must close for it, which one being the controller's choice.
bool open_zone(RNs& ns, u32 zi, u8 state) {
  RZone& z = ns.z[zi];
  bool victim = false;
  if (!ns.open(z.st)) victim = ns.max_open && ns.nr_open() >= ns.max_open;
  if (z.st != ZEO) z.st = state;
  return victim;
}

// Write, Write Zeroes (@append false: at @slba) and Zone Append (to the
// zone at @slba) on a zoned namespace: ZNS 1.1 3.4.1 and 4.x.
void zone_write_rules(const RNs& ns, u64 slba, u64 nlb, bool append, Refusals& r) {
  u32 zi = static_cast<u32>(slba / ns.zone_lbas);
  const RZone& z = ns.z[zi];
  u64 zs = zi * ns.zone_lbas;
  if (z.st == ZF) r.insert(NVME_SC_ZONE_FULL);
  if (z.st == ZRO) r.insert(NVME_SC_ZONE_READ_ONLY);
  if (z.st == ZO) r.insert(NVME_SC_ZONE_OFFLINE);
  if (z.st == ZF || z.st == ZRO || z.st == ZO) return;
  if (!append && slba != zs + z.wp) r.insert(NVME_SC_ZONE_INVALID_WRITE);
  if ((append ? zs + z.wp : slba) + nlb > zs + ns.zcap) r.insert(NVME_SC_ZONE_BOUNDARY_ERROR);
  open_rules(ns, zi, r);
}

// ---- the drive and the host ----

struct Drive {
  nvmev_dev* dev = nullptr;
  bool fdp = false;
  u8* host = nullptr;
  u8* linear = nullptr;
  std::vector<RNs> ns;
  u16 next_cid = 1;
  u32 next_tag = 1;
  u32 drain_passes = 0;  // worker passes between a command and its check
  std::vector<Completion> done;

  ~Drive() {
    if (!dev) return;
    nvmev_io_reset(dev);
    nvmev_zoned_destroy(dev);
    if (!linear) nvmev_store_exit(dev);
    nvmev_host_exit(dev);
    if (dev->ftl) ftl_destroy(dev->ftl);
    std::free(dev->zeroes);
    std::free(dev);
    std::free(host);
    std::free(linear);
  }
};

u64 host_addr(const Drive& d, u64 off) { return reinterpret_cast<uintptr_t>(d.host) + off; }

// PRP entries for @len bytes at the host buffer's start, a list if needed.
void set_prps(Drive& d, nvmev_sqe& sqe, u64 len) {
  u64 prp1 = host_addr(d, 0), prp2 = 0;
  u64 pages = (len + kPage - 1) / kPage;
  if (pages == 2) {
    prp2 = host_addr(d, kPage);
  } else if (pages > 2) {
    u64* list = reinterpret_cast<u64*>(d.host + kXfer);
    for (u64 i = 1; i < pages; i++) list[i - 1] = host_addr(d, i * kPage);
    prp2 = host_addr(d, kXfer);
  }
  sqe.dw[6] = static_cast<u32>(prp1);
  sqe.dw[7] = static_cast<u32>(prp1 >> 32);
  sqe.dw[8] = static_cast<u32>(prp2);
  sqe.dw[9] = static_cast<u32>(prp2 >> 32);
}

nvmev_sqe make_sqe(Drive& d, u8 opcode, u32 nsid) {
  nvmev_sqe sqe{};
  u16 cid = d.next_cid++;
  sqe.dw[0] = opcode | (u32{cid} << 16);
  sqe.dw[1] = nsid;
  return sqe;
}

void set_lbas(nvmev_sqe& sqe, u64 slba, u64 nlb) {
  sqe.dw[10] = static_cast<u32>(slba);
  sqe.dw[11] = static_cast<u32>(slba >> 32);
  sqe.dw[12] = static_cast<u32>((nlb - 1) & 0xffff);
}

// The bytes LBA content @tag reads as: zeroes, or a pattern of the tag.
void fill(u8* p, u32 bytes, u32 tag) {
  if (!tag) {
    std::memset(p, 0, bytes);
    return;
  }
  for (u32 i = 0; i < bytes; i += 8) {
    u64 v = (u64{tag} * 0x9e3779b97f4a7c15ull) ^ i;
    std::memcpy(p + i, &v, 8);
  }
}

bool matches(const u8* p, u32 bytes, u32 tag) {
  static const std::vector<u8> zeroes(4096);
  static std::vector<u8> want(4096);
  if (!tag) return !std::memcmp(p, zeroes.data(), bytes);
  fill(want.data(), bytes, tag);
  return !std::memcmp(p, want.data(), bytes);
}

// Run one command the way the worker does, and the worker's passes that
// carry out a long deallocation, unless @interrupt: then a controller
// reset comes after @d.drain_passes passes. Returns the completion, or
// none (status 0xffff) if a reset dropped it.
Completion run(Drive& d, const nvmev_sqe& sqe, bool interrupt = false) {
  u16 cid = static_cast<u16>(sqe.dw[0] >> 16);
  d.done.clear();
  g_done = &d.done;
  kshim_now_ns += 1000;
  nvmev_io_execute(d.dev, kSqid, &sqe);
  u32 passes = 0;
  while (d.dev->nr_trims && (!interrupt || passes < d.drain_passes)) {
    nvmev_io_background(d.dev);
    if (++passes > 1000000) fail("completion", "a deallocation never ends");
  }
  if (interrupt) nvmev_io_reset(d.dev);
  if (d.done.size() > 1) fail("completion", "a command completed twice");
  if (d.done.empty()) {
    if (!interrupt) fail("completion", "a command did not complete");
    return Completion{cid, 0xffff, 0};
  }
  if (d.done[0].cid != cid) fail("completion", "completion of another command");
  if (kTrace) std::cerr << "  -> status " << std::hex << d.done[0].status << std::dec << "\n";
  return d.done[0];
}

std::string where(const RNs& ns, u64 lba) {
  std::ostringstream o;
  o << "namespace " << ns.nsid << " (" << ns.lba_bytes() << " B";
  if (ns.zoned) o << ", zoned, zone " << lba / ns.zone_lbas;
  o << ") LBA " << lba;
  return o.str();
}

// Read [@slba, @slba + @nlb) through Read commands and compare it with
// the reference (pinning what an interrupted command left).
void verify(Drive& d, RNs& ns, u64 slba, u64 nlb, const char* check) {
  // what a command named beyond the namespace (it was refused) is no data
  if (slba >= ns.nsze) return;
  nlb = std::min(nlb, ns.nsze - slba);
  u32 per = static_cast<u32>(kXfer >> ns.lba_shift);
  for (u64 at = slba; at < slba + nlb; at += per) {
    u64 n = std::min<u64>(per, slba + nlb - at);
    nvmev_sqe sqe = make_sqe(d, nvme_cmd_read, ns.nsid);
    set_lbas(sqe, at, n);
    set_prps(d, sqe, n << ns.lba_shift);
    std::memset(d.host, 0x5a, n << ns.lba_shift);
    Completion c = run(d, sqe);
    bool offline = false;
    if (ns.zoned)
      for (u64 zi = at / ns.zone_lbas; zi <= (at + n - 1) / ns.zone_lbas; zi++)
        offline |= ns.z[zi].st == ZO;
    if (offline) {
      if ((c.status & kSc) != NVME_SC_ZONE_OFFLINE) fail(check, "a read of an offline zone did not fail");
      continue;
    }
    if (c.status) fail(check, "a read failed with status " + std::to_string(c.status) + ": " + where(ns, at));
    for (u64 i = 0; i < n; i++) {
      const u8* p = d.host + (i << ns.lba_shift);
      u64 lba = at + i;
      if (matches(p, ns.lba_bytes(), ns.tag[lba])) {
        ns.alt[lba] = RNs::kNoAlt;
      } else if (ns.alt[lba] != RNs::kNoAlt && matches(p, ns.lba_bytes(), ns.alt[lba])) {
        ns.tag[lba] = ns.alt[lba];
        ns.alt[lba] = RNs::kNoAlt;
      } else {
        std::ostringstream o;
        o << where(ns, lba) << " reads other than tag " << ns.tag[lba] << " (first bytes "
          << std::hex;
        for (int k = 0; k < 8; k++) o << int{p[k]} << " ";
        o << ")";
        fail(check, o.str());
      }
    }
  }
}

// Every zone's state and write pointer, and the open/active counts, as
// the reference has them. @victim: an implicitly opened zone was to be
// closed for an open; the one the device chose is taken.
void check_zones(Drive& d, RNs& ns, bool victim, const char* check) {
  if (!ns.zoned) return;
  const nvmev_zns* z = d.dev->zns[ns.nsid - 1];
  if (victim) {
    u32 closed = 0;
    for (u32 i = 0; i < ns.z.size(); i++)
      if (ns.z[i].st == ZIO && z->zones[i].state == ZC) {
        ns.z[i].st = ZC;
        closed++;
      }
    if (closed != 1) fail(check, "an open at the open limit closed " + std::to_string(closed) + " zones, not 1");
  }
  for (u32 i = 0; i < ns.z.size(); i++) {
    const RZone& r = ns.z[i];
    if (z->zones[i].state != r.st || z->zones[i].wp != r.wp) {
      std::ostringstream o;
      o << "namespace " << ns.nsid << " zone " << i << ": state " << std::hex << int{z->zones[i].state}
        << " wp " << std::dec << z->zones[i].wp << ", the reference state " << std::hex << int{r.st}
        << " wp " << std::dec << r.wp;
      fail(check, o.str());
    }
  }
  if (z->nr_open != ns.nr_open() || z->nr_active != ns.nr_active())
    fail(check, "namespace " + std::to_string(ns.nsid) + ": open/active counts " +
                    std::to_string(z->nr_open) + "/" + std::to_string(z->nr_active) + ", the zones say " +
                    std::to_string(ns.nr_open()) + "/" + std::to_string(ns.nr_active()));
}

// A page-backed store holds pages only for units the model maps: what
// the model does not map reads as zeroes, and a page for it is lost.
void check_store(Drive& d) {
  if (d.linear) return;
  unsigned long unit = 0;
  void* page;
  while ((page = xa_find(&d.dev->store.pages, &unit, ~0ul))) {
    bool mapped = false;
    if (!ftl_mapped_run(d.dev->ftl, unit, 1, &mapped) || !mapped)
      fail("store-leak", "the store holds a page for unit " + std::to_string(unit) +
                             ", which the model does not map");
    unit++;
  }
}

// Compare a completion with what the spec allows (@refusals empty: it
// succeeds). Returns whether the command took effect. @store_full: the
// store's count of writes it had no page for, before the command.
bool judge(Drive& d, const Completion& c, const Refusals& refusals, u64 store_full, const std::string& what) {
  u16 sc = c.status & kSc;
  if (refusals.empty()) {
    if (!sc) return true;
    if (sc == NVME_SC_CAP_EXCEEDED && d.dev->store.full_writes > store_full) return false;
    if (sc == NVME_SC_CAP_EXCEEDED) {
      fail("no-space", what + " failed with Capacity Exceeded: the flash the layout promised is not there");
      return false;  // allowed: taken as a refusal that changed nothing
    }
    std::ostringstream o;
    o << what << " failed with status " << std::hex << c.status;
    fail("refused", o.str());
  }
  if (!sc) fail("accepted", what + " succeeded, the spec refuses it");
  if (!refusals.count(sc)) {
    std::ostringstream o;
    o << what << " failed with status " << std::hex << c.status << ", the spec's:";
    for (u16 r : refusals) o << " " << r;
    fail("status", o.str());
  }
  return false;
}

std::string describe(const char* op, const RNs& ns, u64 slba, u64 nlb) {
  std::ostringstream o;
  o << op << " of " << nlb << " LBAs at " << where(ns, slba);
  return o.str();
}

// The parser's checks (nvmev_cmd.c's order): LBA range, then transfer size.
bool range_rules(const RNs& ns, u64 slba, u64 nlb, bool xfer_limited, Refusals& r) {
  if (slba >= ns.nsze || nlb > ns.nsze - slba) {
    r.insert(NVME_SC_LBA_RANGE);
    return false;
  }
  if (xfer_limited && (nlb << ns.lba_shift) > kXfer) {
    r.insert(NVME_SC_INVALID_FIELD);
    return false;
  }
  return true;
}

// After a command that failed (or, allowed, was refused for space): the
// data it named and every zone as they were.
void check_unchanged(Drive& d, RNs& ns, u64 slba, u64 nlb) {
  check_zones(d, ns, false, "changed");
  check_store(d);
  if (slba < ns.nsze) verify(d, ns, slba, std::min(nlb, ns.nsze - slba), "changed");
}

// ---- placement identifiers (flexible data placement) ----

// The placement identifier the Writes of the current step carry.
struct StepHandle {
  bool named = false;  // DTYPE 2h
  u16 pid = 0;
  bool valid = false;  // one the namespace may use
  u32 rg = 0, ph = 0;  // what it names, if valid
} g_handle;

// The step's handle byte: bit 7 no identifier; bit 6 with bits 5:0 zero
// a placement handle past the namespace's (its list's length, or the
// drive's handles for a zoned one, which has none); else a handle of its
// list and a group.
void pick_handle(Drive& d, const RNs& ns, Input& in) {
  const nvmev_fdp_conf& c = d.dev->ns.fdp;
  const nvmev_ns& n = d.dev->ns.ns[ns.nsid - 1];
  const u32 phs = n.nphndls ? n.nphndls : c.ruhs;
  u8 h = in.u8();
  g_handle = StepHandle{};
  g_handle.named = !(h & 0x80);
  g_handle.valid = !(h & 0x40) || (h & 0x3f);
  g_handle.ph = g_handle.valid ? h % phs : phs;
  g_handle.rg = (h >> 3) % c.rgs;
  g_handle.pid = static_cast<u16>((c.rgif ? g_handle.rg << (16 - c.rgif) : 0) | g_handle.ph);
}

// A Write's identifier into its command, on a drive with FDP.
void name_handle(const Drive& d, nvmev_sqe& sqe) {
  if (!d.fdp || !g_handle.named) return;
  sqe.dw[12] |= u32{NVMEV_DTYPE_PLACEMENT} << 20;
  sqe.dw[13] = u32{g_handle.pid} << 16;
}

// Every 4 KiB unit of a Write that succeeded holds data of the handle it
// named: placement handle i is the namespace's i-th handle, a bad
// identifier or none its first, of group 0. (The reclaim group shows only
// in which unit it took.)
void check_placed(const Drive& d, const RNs& ns, u64 slba, u64 nlb, const std::string& what) {
  if (!d.fdp || ns.zoned) return;
  const nvmev_ns& n = d.dev->ns.ns[ns.nsid - 1];
  u32 want = g_handle.named && g_handle.valid ? n.phndl[g_handle.ph] : n.phndl[0];
  u64 first = (n.base + (slba << ns.lba_shift)) >> FTL_MAP_SHIFT;
  u64 end = (n.base + ((slba + nlb) << ns.lba_shift) + FTL_MAP_UNIT - 1) >> FTL_MAP_SHIFT;
  for (u64 u = first; u < end; u++) {
    u32 ru, ruh;
    if (ftl_fdp_locate(d.dev->ftl, u << FTL_MAP_SHIFT, &ru, &ruh))
      fail("fdp", what + ": unit " + std::to_string(u) + " is in no reclaim unit");
    if (ruh != want)
      fail("fdp", what + ": unit " + std::to_string(u) + " holds handle " + std::to_string(ruh) +
                      "'s data, the command named " + std::to_string(want));
  }
}

// RUH Update of the step's identifier through I/O Management Send.
void update_handle(Drive& d, RNs& ns) {
  if (ns.zoned) return;
  nvmev_sqe sqe = make_sqe(d, NVMEV_CMD_IO_MGMT_SEND, ns.nsid);
  set_prps(d, sqe, 2);
  std::memcpy(d.host, &g_handle.pid, 2);
  sqe.dw[10] = NVMEV_IO_MGMT_RUHU;  // one PID
  Completion c = run(d, sqe);
  u16 want = g_handle.valid ? 0 : (NVME_SC_INVALID_FIELD | NVME_STATUS_DNR);
  if (c.status != want)
    fail("fdp", "RUH Update of PID " + std::to_string(g_handle.pid) + " completed with status " +
                    std::to_string(c.status) + ", not " + std::to_string(want));
}

// Write, Write Zeroes or Zone Append of @nlb LBAs at @slba.
void do_write(Drive& d, RNs& ns, u8 opcode, u64 slba, u64 nlb) {
  bool append = opcode == nvme_cmd_zone_append, zeroes = opcode == nvme_cmd_write_zeroes;
  const char* name = append ? "Zone Append" : zeroes ? "Write Zeroes" : "Write";
  nlb = ((nlb - 1) & 0xffff) + 1;  // what CDW12's 16-bit NLB can name
  Refusals r;
  bool parsed = range_rules(ns, slba, nlb, !zeroes, r);
  if (parsed && append && (!ns.zoned || slba % ns.zone_lbas)) {
    r.insert(NVME_SC_INVALID_FIELD);
    parsed = false;
  }
  if (parsed && ns.zoned) zone_write_rules(ns, slba, nlb, append, r);
  u32 tag = zeroes ? 0 : d.next_tag;
  if (!zeroes) d.next_tag += static_cast<u32>(nlb);
  nvmev_sqe sqe = make_sqe(d, opcode, ns.nsid);
  set_lbas(sqe, slba, nlb);
  if (opcode == nvme_cmd_write) name_handle(d, sqe);
  u64 bytes = nlb << ns.lba_shift;
  if (!zeroes) {
    set_prps(d, sqe, std::min(bytes, kXfer));
    // each LBA a content of its own: data moved to the wrong LBA shows
    for (u64 i = 0; i < nlb && (i << ns.lba_shift) < kXfer; i++)
      fill(d.host + (i << ns.lba_shift), ns.lba_bytes(), tag + static_cast<u32>(i));
    // One write in seven of more than two pages: its PRP list's last
    // entry lies past host memory. Data Transfer Error, and the blocks
    // and the store as they were (the pages it took given back).
    u64 pages = (std::min(bytes, kXfer) + kPage - 1) / kPage;
    if (parsed && pages > 2 && (sqe.dw[0] >> 16) % 7 == 3) {
      u64* list = reinterpret_cast<u64*>(d.host + kXfer);
      list[pages - 2] = host_addr(d, kHostBytes) + kPage;
      r.insert(NVME_SC_DATA_XFER_ERROR);
    }
  }
  if (kTrace) std::cerr << describe(name, ns, slba, nlb) << "\n";
  u64 full = d.dev->store.full_writes;
  Completion c = run(d, sqe);
  std::string what = describe(name, ns, slba, nlb);
  if (!judge(d, c, r, full, what)) {
    check_unchanged(d, ns, slba, nlb);
    return;
  }
  u64 at = slba;
  bool victim = false;
  if (ns.zoned) {
    u32 zi = static_cast<u32>(slba / ns.zone_lbas);
    RZone& z = ns.z[zi];
    at = append ? zi * ns.zone_lbas + z.wp : slba;
    if (append && c.result != at) fail("zone", what + ": the append's completion names LBA " + std::to_string(c.result) + ", not the write pointer's " + std::to_string(at));
    victim = open_zone(ns, zi, ZIO);
    z.wp += nlb;
    if (z.wp == ns.zcap) z.st = ZF;
  }
  ns.set(at, nlb, tag);
  check_zones(d, ns, victim, "zone");
  verify(d, ns, at, nlb, "data");
  if (opcode == nvme_cmd_write) check_placed(d, ns, at, nlb, what);
}


// Dataset Management, deallocating (@ad) @ranges. @interrupt: a controller
// reset comes while it is under way (after d.drain_passes worker passes):
// what it did not reach keeps its data, what it did reads as zeroes.
void do_dsm(Drive& d, RNs& ns, const std::vector<std::pair<u64, u32>>& ranges, bool ad, bool interrupt) {
  Refusals r;
  for (auto& rg : ranges)
    if (ad && (rg.first >= ns.nsze || rg.second > ns.nsze - rg.first)) r.insert(NVME_SC_LBA_RANGE);
  nvmev_sqe sqe = make_sqe(d, nvme_cmd_dsm, ns.nsid);
  u8* page = d.host + kXfer + kPage;
  std::memset(page, 0, kPage);
  for (size_t i = 0; i < ranges.size(); i++) {
    u32 nlb = ranges[i].second;
    u64 slba = ranges[i].first;
    std::memcpy(page + i * 16 + 4, &nlb, 4);
    std::memcpy(page + i * 16 + 8, &slba, 8);
  }
  u64 addr = host_addr(d, kXfer + kPage);
  sqe.dw[6] = static_cast<u32>(addr);
  sqe.dw[7] = static_cast<u32>(addr >> 32);
  sqe.dw[10] = static_cast<u32>(ranges.size() - 1);
  sqe.dw[11] = ad ? NVME_DSMGMT_AD : 0;
  if (kTrace) {
    std::cerr << "Dataset Management" << (ad ? "" : " (no AD)") << (interrupt ? ", reset midway," : "") << " of namespace " << ns.nsid << ":";
    for (auto& rg : ranges) std::cerr << " " << rg.first << "+" << rg.second;
    std::cerr << "\n";
  }
  Completion c = run(d, sqe, interrupt);
  std::string what = "Dataset Management of namespace " + std::to_string(ns.nsid);
  if (c.status == 0xffff) {
    if (!r.empty()) fail("accepted", what + ": refused ranges held for the worker");
    for (auto& rg : ranges)
      for (u64 l = rg.first; l < rg.first + rg.second; l++)
        if (ns.tag[l]) {
          ns.alt[l] = ns.tag[l];
          ns.tag[l] = 0;
        }
  } else if (!judge(d, c, r, d.dev->store.full_writes, what)) {
    for (auto& rg : ranges) check_unchanged(d, ns, rg.first, rg.second);
    return;
  } else if (ad) {
    for (auto& rg : ranges) ns.set(rg.first, rg.second, 0);
  }
  check_zones(d, ns, false, "zone");
  check_store(d);
  for (auto& rg : ranges) verify(d, ns, rg.first, rg.second, "data");
}

// Zone Management Send @zsa on zone @zi (@misalign LBAs past its start), or
// every zone it applies to (@all): ZNS 1.1 4.3.1.
void do_zone_send(Drive& d, RNs& ns, u8 zsa, u32 zi, u32 misalign, bool all) {
  Refusals r;
  u64 slba = u64{zi} * ns.zone_lbas + misalign;
  std::vector<RZone> before = ns.z;
  std::vector<u32> emptied;
  bool victim = false;
  if (zsa < NVME_ZONE_CLOSE || zsa > NVME_ZONE_OFFLINE) {
    r.insert(NVME_SC_INVALID_FIELD);
  } else if (!all && slba >= ns.nsze) {
    r.insert(NVME_SC_LBA_RANGE);
  } else if (!all && misalign) {
    r.insert(NVME_SC_INVALID_FIELD);
  } else if (all) {
    u32 closed = 0;
    for (auto& z : ns.z) closed += z.st == ZC;
    if (zsa == NVME_ZONE_OPEN && ns.max_open && ns.nr_open() + closed > ns.max_open) r.insert(NVME_SC_ZONE_TOO_MANY_OPEN);
    for (u32 i = 0; r.empty() && i < ns.z.size(); i++) {
      RZone& z = ns.z[i];
      if (zsa == NVME_ZONE_OPEN && z.st == ZC) z.st = ZEO;
      if (zsa == NVME_ZONE_CLOSE && ns.open(z.st)) z.st = ZC;
      if (zsa == NVME_ZONE_FINISH && ns.active(z.st)) z = RZone{ZF, ns.zcap};
      if (zsa == NVME_ZONE_RESET && (ns.active(z.st) || z.st == ZF)) {
        z = RZone{ZE, 0};
        emptied.push_back(i);
      }
      if (zsa == NVME_ZONE_OFFLINE && z.st == ZRO) z.st = ZO;
    }
  } else {
    RZone& z = ns.z[zi];
    u8 st = z.st;
    switch (zsa) {
      case NVME_ZONE_CLOSE:
        if (ns.open(st)) z.st = ZC;
        else if (st != ZC) r.insert(NVME_SC_ZONE_INVALID_TRANSITION);
        break;
      case NVME_ZONE_FINISH:
        if (st == ZE && ns.max_active && ns.nr_active() >= ns.max_active) r.insert(NVME_SC_ZONE_TOO_MANY_ACTIVE);
        else if (st == ZE || ns.active(st)) z = RZone{ZF, ns.zcap};
        else if (st != ZF) r.insert(NVME_SC_ZONE_INVALID_TRANSITION);
        break;
      case NVME_ZONE_OPEN:
        if (st == ZE || ns.active(st)) {
          open_rules(ns, zi, r);
          if (r.empty()) victim = open_zone(ns, zi, ZEO);
        } else {
          r.insert(NVME_SC_ZONE_INVALID_TRANSITION);
        }
        break;
      case NVME_ZONE_RESET:
        if (ns.active(st) || st == ZF) {
          z = RZone{ZE, 0};
          emptied.push_back(zi);
        } else if (st != ZE) {
          r.insert(NVME_SC_ZONE_INVALID_TRANSITION);
        }
        break;
      case NVME_ZONE_OFFLINE:
        if (st == ZRO) z.st = ZO;
        else if (st != ZO) r.insert(NVME_SC_ZONE_INVALID_TRANSITION);
        break;
    }
  }
  nvmev_sqe sqe = make_sqe(d, nvme_cmd_zone_mgmt_send, ns.nsid);
  sqe.dw[10] = static_cast<u32>(slba);
  sqe.dw[11] = static_cast<u32>(slba >> 32);
  sqe.dw[13] = zsa | (all ? 1u << 8 : 0);
  std::ostringstream o;
  o << "Zone Management Send " << int{zsa} << (all ? " (all)" : "") << " at " << where(ns, slba);
  if (kTrace) std::cerr << o.str() << "\n";
  Completion c = run(d, sqe);
  if (!judge(d, c, r, d.dev->store.full_writes, o.str())) {
    ns.z = before;
    check_zones(d, ns, false, "changed");
    return;
  }
  for (u32 e : emptied) ns.set(u64{e} * ns.zone_lbas, ns.zone_lbas, 0);
  check_zones(d, ns, victim, "zone");
  check_store(d);
  for (u32 e : emptied) verify(d, ns, u64{e} * ns.zone_lbas, ns.zcap, "data");
}

u64 get_le64(const u8* p) {
  u64 v;
  std::memcpy(&v, p, 8);
  return v;
}

// Zone Management Receive, Report Zones from @slba: ZNS 1.1 4.4.
void do_report(Drive& d, RNs& ns, u64 slba, u8 zrasf, bool partial, u32 numd) {
  static const u8 kFilter[] = {0, ZE, ZIO, ZEO, ZC, ZF, ZRO, ZO};
  u64 bytes = (u64{numd} + 1) * 4;
  Refusals r;
  if (zrasf > 7 || bytes > kXfer) r.insert(NVME_SC_INVALID_FIELD);
  else if (slba >= ns.nsze) r.insert(NVME_SC_LBA_RANGE);
  nvmev_sqe sqe = make_sqe(d, nvme_cmd_zone_mgmt_recv, ns.nsid);
  sqe.dw[10] = static_cast<u32>(slba);
  sqe.dw[11] = static_cast<u32>(slba >> 32);
  sqe.dw[12] = numd;
  sqe.dw[13] = (u32{zrasf} << 8) | (partial ? 1u << 16 : 0);
  set_prps(d, sqe, std::min(bytes, kXfer));
  std::memset(d.host, 0x5a, std::min(bytes, kXfer));
  std::ostringstream o;
  o << "Report Zones (filter " << int{zrasf} << (partial ? ", partial" : "") << ", " << bytes << " bytes) from "
    << where(ns, slba);
  if (kTrace) std::cerr << o.str() << "\n";
  Completion c = run(d, sqe);
  if (!judge(d, c, r, d.dev->store.full_writes, o.str())) return;
  u64 room = bytes / 64 ? bytes / 64 - 1 : 0, n = 0, shown = 0;
  for (u64 zi = slba / ns.zone_lbas; zi < ns.z.size(); zi++) {
    const RZone& z = ns.z[zi];
    if (zrasf && kFilter[zrasf] != z.st) continue;
    if (n < room) {
      const u8* p = d.host + (n + 1) * 64;
      u64 zs = zi * ns.zone_lbas;
      if (p[0] != NVME_ZONE_TYPE_SEQWRITE_REQ || p[1] >> 4 != z.st || get_le64(p + 8) != ns.zcap ||
          get_le64(p + 16) != zs || (z.st != ZF && get_le64(p + 24) != zs + z.wp))
        fail("report", o.str() + ": descriptor " + std::to_string(n) + " (zone " + std::to_string(zi) +
                           ") differs from the zone");
      shown++;
    }
    n++;
  }
  if (bytes >= 8 && get_le64(d.host) != (partial ? shown : n))
    fail("report", o.str() + ": the header counts " + std::to_string(get_le64(d.host)) + " zones, not " +
                       std::to_string(partial ? shown : n));
}

// A Namespace Management delete and a create of the same size in the
// same place (nvmev_nsmgmt_exec.c): the slice is deallocated
// (nvmev_io_ns_release()), and the namespace made there reads zeroes,
// nothing of what the deleted one held.
void release_ns(Drive& d, RNs& ns) {
  const nvmev_ns& n = d.dev->ns.ns[ns.nsid - 1];
  if (kTrace) std::cerr << "Namespace " << ns.nsid << " deleted and made again\n";
  nvmev_io_ns_release(d.dev, ns.nsid, n.base, n.base + (n.nsze << n.lba_shift));
  std::fill(ns.tag.begin(), ns.tag.end(), 0);
  std::fill(ns.alt.begin(), ns.alt.end(), RNs::kNoAlt);
  check_store(d);
}

void do_flush(Drive& d, u32 nsid) {
  nvmev_sqe sqe = make_sqe(d, nvme_cmd_flush, nsid);
  if (kTrace) std::cerr << "Flush of " << nsid << "\n";
  Completion c = run(d, sqe);
  if (c.status) fail("refused", "Flush of " + std::to_string(nsid) + " failed");
}

// The Identify limits against the 16-bit NLB of the commands they bound:
// Write Zeroes up to 2^WZSL, Read/Write and Zone Append (ZASL 0: MDTS)
// up to 2^MDTS units of CAP.MPSMIN (4 KiB), on every namespace's format.
// (DMRSL bounds Dataset Management's 32-bit range lengths; it is
// computed in nvmev_admin.c, which this build does not include.)
void check_limits(const std::vector<RNs>& nss) {
  for (const RNs& ns : nss) {
    u64 wz = (u64{4096} << NVMEV_WZSL) >> ns.lba_shift;
    u64 xfer = kXfer >> ns.lba_shift;
    if (wz > 65536)
      fail("limits", "Identify (CNS 06h) WZSL " + std::to_string(NVMEV_WZSL) + " allows Write Zeroes of " +
                         std::to_string(wz) + " LBAs on namespace " + std::to_string(ns.nsid) + " (" +
                         std::to_string(ns.lba_bytes()) + " B), NLB holds 65536");
    if (xfer > 65536)
      fail("limits", "MDTS allows " + std::to_string(xfer) + " LBAs on namespace " + std::to_string(ns.nsid) +
                         ", NLB holds 65536");
  }
}

// ---- flexible data placement ----

void check_fdp(Drive& d) {
  char err[FTL_ERRMSG_LEN] = "";
  if (ftl_check(d.dev->ftl, err, sizeof(err))) fail("fdp", err);
  ftl_fdp_stats st{};
  if (ftl_fdp_stats_get(d.dev->ftl, FTL_FDP_NONE, false, &st) == 0 && kTrace)
    std::cerr << "fdp: host " << st.host_units << " media " << st.media_units << " gc " << st.gc_units
              << " pad " << st.pad_units << " erased " << st.erased_units << " fills " << st.ru_fills
              << " updates " << st.ru_updates << " implicit " << st.ru_implicit << "\n";
  if (ftl_fdp_stats_get(d.dev->ftl, FTL_FDP_NONE, false, &st) ||
      st.media_units != st.host_units + st.gc_units + st.pad_units)
    fail("fdp", "media units " + std::to_string(st.media_units) + " are not host " +
                    std::to_string(st.host_units) + " + GC " + std::to_string(st.gc_units) +
                    " + padding " + std::to_string(st.pad_units));
}

// The upper bits of the write point byte: handles 0 (off) to 3, their
// type, two reclaim groups, units on one die, two or all dies of a group
// with one or two blocks on each.
void set_fdp(ftl_config& cfg, u8 wp) {
  u32 dies = static_cast<u32>(cfg.channels * cfg.dies_per_channel), layout = wp >> 6;
  cfg.fdp_ruhs = (wp >> 2) % 4;
  cfg.fdp_ruh_type = 1 + ((wp >> 4) & 1);
  cfg.fdp_reclaim_groups = (wp >> 5) & 1 && dies % 2 == 0 ? 2 : 1;
  u32 rg_dies = dies / static_cast<u32>(cfg.fdp_reclaim_groups);
  cfg.fdp_ru_dies = layout == 1 ? 1 : layout == 2 && rg_dies % 2 == 0 ? 2 : 0;
  cfg.fdp_ru_blocks = layout == 3 ? 2 * rg_dies : 0;
}

// ---- the layout ----

// The namespaces' placement_handles: namespace i lists handles when bit i
// of @lists is set, a run of distinct ones (1 to all of them, from a start
// the byte names, wrapping); the others use every handle, the module's
// default.
std::unique_ptr<nvmev_drive_conf> handle_lists(const ftl_config& cfg, u8 nn, u8 lists) {
  auto conf = std::make_unique<nvmev_drive_conf>();
  const u32 ruhs = cfg.fdp_ruhs;
  for (u32 i = 0; i < nn && ruhs; i++) {
    if (!(lists >> i & 1)) continue;
    nvmev_ns_conf& c = conf->ns[i];
    const u32 start = ((lists >> 3) + i) % ruhs;
    c.nphndls = static_cast<u16>(1 + ((lists >> 5) + i) % ruhs);
    for (u32 k = 0; k < c.nphndls; k++) c.phndl[k] = static_cast<u16>((start + k) % ruhs);
  }
  return conf;
}

std::unique_ptr<Drive> make_drive(Input& in) {
  auto d = std::make_unique<Drive>();
  ftl_config cfg{};
#define FTL_DEFAULT(name, def, min, max, desc) cfg.name = def;
  FTL_CONFIG_PARAMS(FTL_DEFAULT)
#undef FTL_DEFAULT
  cfg.channels = 1 + in.u8() % 2;
  cfg.dies_per_channel = 1 + in.u8() % 2;
  cfg.planes_per_die = 1 + in.u8() % 2;
  cfg.page_bytes = 4096u << (in.u8() % 3);
  cfg.pages_per_block = 4u << (in.u8() % 3);
  cfg.capacity_mib = 4 + in.u8() % 21;
  cfg.op_percent = 3 + in.u8() % 25;
  u8 wp = in.u8();
  cfg.write_points_per_die = wp % 4;
  set_fdp(cfg, wp);
  cfg.write_buffer_kib = 256u << (in.u8() % 4);
  cfg.jitter_ns = 0;
  u8 nn = 1 + in.u8() % 3;
  struct NsConf {
    nvmev_ns_conf c{};
    u32 lba_shift;
  } conf[3];
  for (u8 i = 0; i < nn; i++) {
    nvmev_ns_conf& c = conf[i].c;
    c.present = true;
    conf[i].lba_shift = in.u8() & 1 ? 12 : 9;
    c.zoned = in.u8() & 1;
    c.size_mib = in.u8() % 16;  // 0: what the others leave
    c.zone_mib = 1u << (in.u8() % 3);
    c.zone_cap_mib = in.u8() % (c.zone_mib + 1);
    c.zone_width = in.u8() % 5;
    c.max_open = in.u8() % 4;
    c.max_active = in.u8() % 5;
  }
  u8 store = in.u8();
  d->drain_passes = in.u8() % 4;
  // with FDP: which namespaces name their placement handles (configfs
  // placement_handles), as make_handle_lists() reads it
  u8 lists = cfg.fdp_ruhs ? in.u8() : 0;

  nvmev_dev* dev = static_cast<nvmev_dev*>(std::calloc(1, sizeof(nvmev_dev)));
  d->dev = dev;
  dev->cfg = cfg;
  // enabled as Linux enables a drive with zoned namespaces: CC.CSS 110b,
  // every I/O command set CAP.CSS names (000b refuses zone commands)
  dev->ctrl.cc = 0x6u << 4 | 1u;
  dev->zeroes = std::calloc(1, kXfer);
  d->host = static_cast<u8*>(std::aligned_alloc(kPage, kHostBytes));
  kshim_ram_start = host_addr(*d, 0);
  kshim_ram_end = kshim_ram_start + kHostBytes;
  if (nvmev_host_init(dev)) return nullptr;
  char err[FTL_ERRMSG_LEN];
  if (ftl_create(&cfg, &dev->ftl, err, sizeof(err))) return nullptr;
  d->fdp = cfg.fdp_ruhs;
  u64 cap_mib = ftl_capacity_bytes(dev->ftl) >> 20;
  // The namespaces' slices as nvmev_drive.c lays them out: in NSID order,
  // each a whole number of MiB, the one of size 0 taking what is left.
  u64 sized = 0, base = 0;
  int rest = -1;
  for (u8 i = 0; i < nn; i++) {
    sized += conf[i].c.size_mib;
    if (!conf[i].c.size_mib) {
      if (rest >= 0) return nullptr;
      rest = i;
    }
  }
  if (sized > cap_mib || (rest >= 0 && sized == cap_mib)) return nullptr;
  dev->ns.nn = nn;
  for (u8 i = 0; i < nn; i++) {
    nvmev_ns* ns = &dev->ns.ns[i];
    u64 bytes = (conf[i].c.size_mib ? conf[i].c.size_mib : cap_mib - sized) << 20;
    ns->lba_shift = conf[i].lba_shift;
    ns->base = base;
    ns->nsze = bytes >> ns->lba_shift;
    base += bytes;
    // refused as the module refuses it: this layout does not power on
    if (conf[i].c.zoned && nvmev_zoned_create(dev, i + 1, &conf[i].c)) return nullptr;
  }
  dev->ns.hints_supported = cfg.hints;
  // refused as the module refuses it (a list on a zoned namespace)
  if (nvmev_fdp_setup(dev, handle_lists(cfg, nn, lists).get())) return nullptr;
  // the store: linear (memmap=, stale bytes) or pages, capped or not
  if (store & 1) {
    d->linear = static_cast<u8*>(std::malloc(cap_mib << 20));
    std::memset(d->linear, 0xa5, cap_mib << 20);
    nvmev_store_init_linear(dev, d->linear);
  } else {
    nvmev_store_init_pages(dev, store & 2 ? u64{1 + (store >> 2) % cap_mib} << 8 : cap_mib << 8);
  }
  for (u8 i = 0; i < nn; i++) {
    const nvmev_ns& n = dev->ns.ns[i];
    RNs r;
    r.nsid = i + 1;
    r.lba_shift = n.lba_shift;
    r.nsze = n.nsze;
    r.tag.assign(n.nsze, 0);
    r.alt.assign(n.nsze, RNs::kNoAlt);
    if (n.csi == NVME_CSI_ZNS) {
      const nvmev_zns* z = dev->zns[i];
      r.zoned = true;
      r.zone_lbas = u64{1} << n.zone_shift;
      // the layout's own numbers, not the module's reading of them
      r.zcap = (conf[i].c.zone_cap_mib ? conf[i].c.zone_cap_mib : conf[i].c.zone_mib) << 20 >> n.lba_shift;
      r.max_open = conf[i].c.max_open;
      r.max_active = conf[i].c.max_active;
      r.z.assign(z->nr_zones, RZone{});
      if (r.zone_lbas != conf[i].c.zone_mib << 20 >> n.lba_shift || z->nr_zones != r.nsze / r.zone_lbas)
        fail("zone", "the zones are not the layout's");
    }
    d->ns.push_back(std::move(r));
  }
  if (kTrace) {
    std::cerr << "drive: " << cfg.channels << "x" << cfg.dies_per_channel << " dies, " << cap_mib << " MiB, page "
              << cfg.page_bytes << ", " << cfg.pages_per_block << " pages/block, op " << cfg.op_percent
              << "%, store " << (d->linear ? "linear" : "pages") << " max " << dev->store.max_pages << ", fdp "
              << cfg.fdp_ruhs << " handles type " << cfg.fdp_ruh_type << " groups " << cfg.fdp_reclaim_groups
              << " unit dies " << cfg.fdp_ru_dies << " blocks " << cfg.fdp_ru_blocks << "\n";
    for (auto& r : d->ns)
      std::cerr << " ns " << r.nsid << ": " << r.nsze << " x " << r.lba_bytes() << " B"
                << (r.zoned ? ", zoned: " + std::to_string(r.z.size()) + " zones of " +
                                  std::to_string(r.zone_lbas) + " cap " + std::to_string(r.zcap) + " open " +
                                  std::to_string(r.max_open) + " active " + std::to_string(r.max_active)
                            : std::string())
                << ", " << dev->ns.ns[r.nsid - 1].nphndls << " placement handles\n";
  }
  return d;
}

// An LBA count: mostly small, sometimes as much as a command may name.
u64 pick_nlb(Input& in, const RNs& ns, bool zeroes) {
  u8 k = in.u8();
  u64 most = zeroes ? 65536 : kXfer >> ns.lba_shift;
  switch (k % 4) {
    case 0: return 1 + in.u8() % 8;
    case 1: return 1 + in.u32() % most;
    case 2: return (1 + in.u8() % 4) * (4096 >> ns.lba_shift);  // whole units
    default: return 1 + in.u32() % (most + 8);                   // past the limit too
  }
}

// An LBA: on a zoned namespace mostly at (or near) a zone's write pointer.
u64 pick_slba(Input& in, const RNs& ns) {
  u8 k = in.u8();
  if (ns.zoned && k % 4) {
    u32 zi = in.u8() % ns.z.size();
    u64 at = zi * ns.zone_lbas + ns.z[zi].wp;
    if (k % 4 == 3) at += static_cast<int8_t>(in.u8()) % 9;
    return std::min(at, ns.nsze + 1);
  }
  return in.u32() % (ns.nsze + 2);
}

void verify_all(Drive& d) {
  for (RNs& ns : d.ns) verify(d, ns, 0, ns.nsze, "data");
  check_store(d);
  if (d.fdp) check_fdp(d);
}

void step(Drive& d, Input& in) {
  RNs& ns = d.ns[in.u8() % d.ns.size()];
  u8 op = in.u8() % 13;
  if (d.fdp) pick_handle(d, ns, in);
  switch (op) {
    case 0:
    case 1: {
      u64 slba = pick_slba(in, ns);
      do_write(d, ns, nvme_cmd_write, slba, pick_nlb(in, ns, false));
      break;
    }
    case 2: {
      u64 slba = pick_slba(in, ns), nlb = pick_nlb(in, ns, false);
      Refusals r;
      if (range_rules(ns, slba, nlb, true, r)) verify(d, ns, slba, nlb, "data");
      break;
    }
    case 3: {
      u64 slba = pick_slba(in, ns);
      do_write(d, ns, nvme_cmd_write_zeroes, slba, pick_nlb(in, ns, true));
      break;
    }
    case 4: {
      std::vector<std::pair<u64, u32>> ranges(1 + in.u8() % 4);
      for (auto& rg : ranges) {
        rg.first = pick_slba(in, ns);
        // units around the write pointer, from a unit's start
        if (in.u8() & 1) rg.first &= ~((u64{4096} >> ns.lba_shift) - 1);
        rg.second = static_cast<u32>(pick_nlb(in, ns, true));
      }
      u8 f = in.u8();
      do_dsm(d, ns, ranges, f % 8 != 0, f % 5 == 1);
      break;
    }
    case 5:
      do_flush(d, in.u8() & 1 ? ns.nsid : NVME_NSID_ALL);
      break;
    case 6:
      if (ns.zoned) {
        u8 f = in.u8();
        u8 zsa = f % 8 == 7 ? in.u8() : 1 + f % 5;
        u32 zi = in.u8() % (ns.z.size() + 1);
        do_zone_send(d, ns, zsa, zi, f % 16 == 15 ? 1 : 0, (f >> 4) % 4 == 0);
      }
      break;
    case 7:
      if (ns.zoned) {
        u8 f = in.u8();
        u64 slba = f & 1 ? pick_slba(in, ns) : 0;
        do_report(d, ns, slba, (f >> 1) % 9, f & 0x20, f & 0x40 ? in.u32() % 4096 : 15 + in.u8() * 16);
      }
      break;
    case 8:
      if (ns.zoned) {
        u32 zi = in.u8() % ns.z.size();
        do_write(d, ns, nvme_cmd_zone_append, zi * ns.zone_lbas + (in.u8() % 16 == 0), pick_nlb(in, ns, false));
      }
      break;
    case 9:
      // fill a zone to its capacity, as a host writing a zone out would
      if (ns.zoned) {
        u32 zi = in.u8() % ns.z.size();
        u64 chunk = 1 + in.u32() % (kXfer >> ns.lba_shift);
        for (int i = 0; i < 4096 && ns.z[zi].st != ZF; i++) {
          u64 wp = ns.z[zi].wp;
          do_write(d, ns, nvme_cmd_write, zi * ns.zone_lbas + wp, std::min(chunk, ns.zcap - wp));
          if (ns.z[zi].wp == wp) break;  // refused: the spec said why
        }
      }
      break;
    case 10:
      // rewrite a conventional namespace whole, as a filesystem's churn
      if (!ns.zoned) {
        u64 chunk = kXfer >> ns.lba_shift;
        for (u64 at = 0; at < ns.nsze; at += chunk) do_write(d, ns, nvme_cmd_write, at, std::min(chunk, ns.nsze - at));
      }
      break;
    case 12:
      if (!ns.zoned) release_ns(d, ns);
      break;
    default:
      if (d.fdp) update_handle(d, ns);
      verify_all(d);
      break;
  }
  g_handle = StepHandle{};
}

}  // namespace

// The queue engine's and the error log's entries, which nvmev_io.c calls:
// the host sees the completion; the error log is not what is checked.
extern "C" void nvmev_ctrl_complete(struct nvmev_ctrl*, u16, u16 cid, u16 status, u64 result, u64) {
  g_done->push_back(Completion{cid, status, result});
}
extern "C" void nvmev_errlog_add(struct nvmev_dev*, u16, u16, u32, u16, u64, u16) {}
extern "C" void nvmev_errlog_io(struct nvmev_dev*, u16, const struct nvmev_sqe*, u16, u16) {}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  kshim_now_ns = 1000000;
  try {
    std::unique_ptr<Drive> d = make_drive(in);
    if (!d) return 0;
    if (!kAllowed.count("limits")) check_limits(d->ns);
    for (int i = 0; i < 96 && !in.empty(); i++) step(*d, in);
    verify_all(*d);
    for (RNs& ns : d->ns) check_zones(*d, ns, false, "zone");
  } catch (const Skip&) {
  }
  return 0;
}
