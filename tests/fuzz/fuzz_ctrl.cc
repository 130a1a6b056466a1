// libFuzzer target over the controller's state machine (nvmev/nvmev_ctrl.c,
// the same file nvmev.ko builds): a host that is anything but polite
// drives it through register writes, doorbells, admin and I/O commands,
// late reaping, Bus Master Enable and the passing of time. The fuzzer
// plays the host (queues in a fake host memory), the command executors
// (which complete at once, later, or hold a command) and the clock, and
// asserts, besides what ASan and UBSan see:
//  - every command the host submitted and the controller fetched
//    completes exactly once, unless its SQ was deleted or the
//    controller reset (then it may be dropped);
//  - nothing is posted for a deleted SQ once its Delete completed, nor
//    for commands of before a reset;
//  - no completion lands in a CQ slot the host has not reaped yet;
//  - nothing in host memory changes while Bus Master Enable is off;
//  - at the end, with the host reaping and time passing, everything
//    outstanding completes (no lost completion, no stall).
// Input: a sequence of host actions, each a byte and its fields.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <vector>

extern "C" {
#include "nvmev_ctrl.h"
}
#include "fuzz_input.h"

namespace {

using nvmev_fuzz::Input;

[[noreturn]] void fail(const char* what) {
  std::cerr << "fuzz_ctrl: " << what << "\n";
  std::abort();
}

constexpr u64 kRamBase = 0x100000;
constexpr u32 kPage = 4096;
constexpr u32 kRamPages = 96;
constexpr u32 kBarBytes = 16384;
constexpr u16 kQueues = 5;  // host uses queue ids 0..4 (the engine has 65)

// A queue pair as the host set it up (host memory and its own indices).
struct HostQueue {
  bool sq_live = false, cq_live = false;
  bool tracked = true;  // the host wrote only what it can account for
  bool closing = false;  // Delete SQ sent: the host no longer uses it
  u64 sq_addr = 0, cq_addr = 0;
  u32 sq_size = 0, cq_size = 0;
  u16 cqid = 0;
  u32 sq_tail = 0;   // next slot the host writes
  u32 rung = 0;      // tail value last rung
  u32 cq_head = 0;   // next slot the host reads
  u8 phase = 1;
};

struct Held {
  u16 sqid, cid;
};

// An admin command in flight and what its success changes on the host.
struct AdminCmd {
  u8 opcode;
  u16 qid;
  u64 addr;
  u32 size;
  u16 cqid;
};

struct Fuzz {
  std::vector<u8> ram = std::vector<u8>(uint64_t{kRamPages} * kPage);
  alignas(64) u8 bar[kBarBytes] = {};
  nvmev_ctrl c{};
  u64 clock = 1000;
  bool bme = true;
  u32 next_page = 0;  // bump allocator of host memory for queues
  u16 next_cid = 1;
  HostQueue q[kQueues];
  // submitted, not yet seen completed: cid -> sqid (cids are unique)
  std::map<u16, u16> outstanding;
  // cids of a deleted SQ whose aborted completion was already posted
  std::set<u16> doomed;
  std::vector<Held> held;            // I/O the executor holds
  std::map<u16, AdminCmd> admin;     // admin cid -> what it does
  // a raw register write left the controller in a state the host cannot
  // know; until a reset it saw through (RDY = 0), nothing is checked
  bool tainted = false;
};

Fuzz* g;  // the callbacks' context
// FUZZ_CTRL_TRACE=1: print each host action (to read a crashing input)
const bool kTrace = std::getenv("FUZZ_CTRL_TRACE") != nullptr;

void trace(const char* what, u64 a = 0, u64 b = 0, u64 c = 0) {
  if (kTrace) std::cerr << what << " " << a << " " << b << " " << c << "\n";
}

u8* ram_at(u64 addr, u64 len) {
  if (addr < kRamBase || addr + len < addr || addr + len > kRamBase + g->ram.size()) return nullptr;
  return g->ram.data() + (addr - kRamBase);
}

// ---- the engine's ops ----

u64 op_now(void*) { return g->clock; }
void* op_host_ptr(void*, u64 addr, u64 len, bool) { return ram_at(addr, len); }
bool op_dma(void*) { return g->bme; }
void op_signal(void*, u16 vector) {
  if (vector >= NVMEV_NR_VECTORS) fail("signal of a vector beyond the MSI-X table");
}

// The admin executor: queue management through the engine, the rest done.
void op_admin(void*, const nvmev_sqe* sqe) {
  nvmev_admin_req req;
  nvmev_ns_view ns{};
  ns.nn = 1;
  ns.ns[0].nsze = 1 << 20;
  ns.ns[0].lba_shift = 9;
  u16 status = nvmev_admin_parse(&ns, sqe, &req);
  u32 result = 0;
  if (!status) {
    switch (req.opcode) {
      case nvme_admin_create_cq: status = nvmev_ctrl_create_cq(&g->c, &req); break;
      case nvme_admin_create_sq: status = nvmev_ctrl_create_sq(&g->c, &req); break;
      case nvme_admin_delete_sq: status = nvmev_ctrl_delete_sq(&g->c, req.qid); break;
      case nvme_admin_delete_cq: status = nvmev_ctrl_delete_cq(&g->c, req.qid); break;
      case nvme_admin_set_features:
        if (req.fid == NVME_FEAT_NUM_QUEUES) status = nvmev_ctrl_set_num_queues(&g->c, req.cdw11, &result);
        break;
      default: break;
    }
  }
  nvmev_ctrl_complete(&g->c, 0, req.cid, status, result, g->clock);
}

// The I/O executor: CDW13 says how (0: now, 1: after CDW14 ns, 2: hold).
void op_io(void*, u16 sqid, const nvmev_sqe* sqe) {
  u16 cid = nvmev_sqe_cid(sqe);
  switch (sqe->dw[13] % 3) {
    case 0: nvmev_ctrl_complete(&g->c, sqid, cid, 0, 0, g->clock); break;
    case 1: nvmev_ctrl_complete(&g->c, sqid, cid, 0, 0, g->clock + sqe->dw[14] % 100000); break;
    default: g->held.push_back({sqid, cid}); break;
  }
}

void op_reset(void*) { g->held.clear(); }

void op_sq_deleted(void*, u16 sqid) {
  // complete some, drop the rest: both are allowed
  std::vector<Held> kept;
  for (const Held& h : g->held) {
    if (h.sqid != sqid) kept.push_back(h);
    else if (h.cid & 1) nvmev_ctrl_complete(&g->c, sqid, h.cid, NVME_SC_ABORT_QUEUE, 0, g->clock);
  }
  g->held = kept;
}

// An executor holds at most kHeldSlots commands, as nvmev.ko holds long
// deallocations: a command it would hold waits in its SQ while they are
// all taken (the engine must neither consume nor lose it).
constexpr size_t kHeldSlots = 4;
bool op_io_ready(void*, u16, const nvmev_sqe* sqe) { return sqe->dw[13] % 3 != 2 || g->held.size() < kHeldSlots; }

const nvmev_ctrl_ops kOps = {op_now, op_host_ptr,   op_dma,     op_signal, op_admin,
                             op_io,  op_reset,      op_sq_deleted, op_io_ready};

// ---- the host ----

u32 sq_db(u16 qid) { return NVME_REG_DBS + 8u * qid; }
u32 cq_db(u16 qid) { return NVME_REG_DBS + 8u * qid + 4; }

u64 alloc_pages(u32 n) {
  if (g->next_page + n > kRamPages) g->next_page = 0;  // reuse: the host may be careless
  u64 addr = kRamBase + uint64_t{g->next_page} * kPage;
  g->next_page += n;
  std::memset(ram_at(addr, uint64_t{n} * kPage), 0, uint64_t{n} * kPage);
  return addr;
}

// Cids posted in CQ @cqid and not reaped yet, one per valid slot.
std::multiset<u16> posted_cids(u16 cqid) {
  std::multiset<u16> cids;
  const HostQueue& h = g->q[cqid];
  if (!h.cq_live) return cids;
  u32 i = h.cq_head;
  u8 phase = h.phase;
  for (u32 k = 0; k < h.cq_size; k++) {
    u32 dw3;
    std::memcpy(&dw3, ram_at(h.cq_addr + uint64_t{i} * 16 + 12, 4), 4);
    if ((dw3 >> 16 & 1) != phase) break;
    cids.insert(dw3 & 0xffff);
    if (++i == h.cq_size) {
      i = 0;
      phase ^= 1;
    }
  }
  return cids;
}

// Delete SQ @qid completed: what of it is posted may still be reaped,
// everything else of it must never appear.
void forget_sq(u16 qid) {
  std::multiset<u16> posted = posted_cids(g->q[qid].cqid);
  for (auto it = g->outstanding.begin(); it != g->outstanding.end();) {
    if (it->second != qid) {
      ++it;
      continue;
    }
    if (posted.count(it->first)) g->doomed.insert(it->first);
    it = g->outstanding.erase(it);
  }
  g->q[qid].sq_live = false;
}

// A reset: nothing of before may be posted.
void forget_all() {
  for (auto& h : g->q) {
    h = HostQueue{};
    h.tracked = !g->tainted;
  }
  g->outstanding.clear();
  g->doomed.clear();
  g->admin.clear();
}

// Write @cmd into SQ @qid at the host's tail (CID assigned here).
bool submit(u16 qid, nvmev_sqe cmd, bool ring) {
  HostQueue& h = g->q[qid];
  if (!h.sq_live || h.closing) return false;
  u32 in_queue = 0;
  for (auto& [cid, sq] : g->outstanding) in_queue += sq == qid;
  if (in_queue + 1 >= h.sq_size) return false;  // the host never overfills a SQ
  u16 cid = g->next_cid++;
  if (!g->next_cid) g->next_cid = 1;
  cmd.dw[0] = (cmd.dw[0] & 0xffff) | (u32{cid} << 16);
  std::memcpy(ram_at(h.sq_addr + uint64_t{h.sq_tail} * 64, 64), &cmd, 64);
  h.sq_tail = (h.sq_tail + 1) % h.sq_size;
  g->outstanding[cid] = qid;
  trace("  submit sq/cid/opcode", qid, cid, cmd.dw[0] & 0xff);
  if (ring) {
    h.rung = h.sq_tail;
    nvmev_wr32(g->bar, sq_db(qid), h.sq_tail);
  }
  return true;
}

// A reaped admin completion changes what the host believes exists.
void admin_reply(u16 cid, u16 status) {
  auto it = g->admin.find(cid);
  if (it == g->admin.end()) return;
  const AdminCmd a = it->second;
  g->admin.erase(it);
  if (status) return;
  HostQueue& h = g->q[a.qid];
  switch (a.opcode) {
    case nvme_admin_create_cq:
      h.cq_live = true;
      h.cq_addr = a.addr;
      h.cq_size = a.size;
      h.cq_head = 0;
      h.phase = 1;
      break;
    case nvme_admin_create_sq:
      h.sq_live = true;
      h.closing = false;
      h.sq_addr = a.addr;
      h.sq_size = a.size;
      h.sq_tail = h.rung = 0;
      h.cqid = a.cqid;
      break;
    case nvme_admin_delete_sq: forget_sq(a.qid); break;
    case nvme_admin_delete_cq: h.cq_live = false; break;
  }
}

// Read what is valid in CQ @qid, up to @max entries, then ring its head.
void reap(u16 qid, u32 max) {
  HostQueue& h = g->q[qid];
  if (!h.cq_live) return;
  u32 n = 0;
  for (; n < max; n++) {
    u8* e = ram_at(h.cq_addr + uint64_t{h.cq_head} * 16, 16);
    u32 dw3;
    std::memcpy(&dw3, e + 12, 4);
    if ((dw3 >> 16 & 1) != h.phase) break;
    u16 cid = dw3 & 0xffff, status = (dw3 >> 17) & 0x7fff, sqid;
    std::memcpy(&sqid, e + 10, 2);
    bool tracked = g->q[sqid < kQueues ? sqid : 0].tracked;
    auto it = g->outstanding.find(cid);
    if (it != g->outstanding.end()) {
      if (it->second != sqid && tracked) fail("a completion names the wrong SQ");
      g->outstanding.erase(it);
    } else if (g->doomed.erase(cid)) {
      // posted (aborted) before its SQ's Delete completed: allowed
    } else if (tracked) {
      trace("  unexpected cq/cid/sqid", qid, cid, sqid);
      fail("a completion nobody is waiting for (duplicate, stale or after delete)");
    }
    trace("  reaped cq/cid/status", qid, cid, status);
    if (qid == 0) admin_reply(cid, status);
    if (++h.cq_head == h.cq_size) {
      h.cq_head = 0;
      h.phase ^= 1;
    }
  }
  if (n) nvmev_wr32(g->bar, cq_db(qid), h.cq_head);
}

// Slots the host has not reaped: the controller must not write them.
std::vector<u8> unreaped_snapshot(u16 qid) {
  HostQueue& h = g->q[qid];
  std::vector<u8> snap;
  if (!h.cq_live || !h.tracked) return snap;
  u8* ring = ram_at(h.cq_addr, uint64_t{h.cq_size} * 16);
  snap.assign(ring, ring + uint64_t{h.cq_size} * 16);
  return snap;
}

void check_unreaped(u16 qid, const std::vector<u8>& before) {
  HostQueue& h = g->q[qid];
  if (before.empty() || !h.cq_live) return;
  // a CQ of N entries holds N - 1 the host has not reaped
  if (posted_cids(qid).size() >= h.cq_size) fail("a completion posted into a full CQ");
  const u8* ring = ram_at(h.cq_addr, uint64_t{h.cq_size} * 16);
  // a valid (current phase) entry written before must stay as it was
  u32 i = h.cq_head;
  u8 phase = h.phase;
  for (u32 k = 0; k < h.cq_size; k++) {
    u32 dw3;
    std::memcpy(&dw3, before.data() + uint64_t{i} * 16 + 12, 4);
    if ((dw3 >> 16 & 1) != phase) break;
    if (std::memcmp(before.data() + uint64_t{i} * 16, ring + uint64_t{i} * 16, 16))
      fail("a completion overwrote one the host had not reaped (CQ full)");
    if (++i == h.cq_size) {
      i = 0;
      phase ^= 1;
    }
  }
}

void poll(int times) {
  std::vector<u8> snaps[kQueues];
  std::vector<u8> ram_before;
  if (!g->bme) ram_before = g->ram;
  for (u16 i = 0; i < kQueues; i++) snaps[i] = unreaped_snapshot(i);
  for (int t = 0; t < times; t++) {
    u64 next;
    nvmev_ctrl_poll(&g->c, &next);
  }
  for (u16 i = 0; i < kQueues; i++) check_unreaped(i, snaps[i]);
  if (!g->bme && ram_before != g->ram) fail("host memory written with Bus Master Enable off");
}

void enable(Input& in) {
  u32 sqs = 2 + in.u8() % 31, cqs = 2 + in.u8() % 31;
  u64 old_sq = nvmev_rd64(g->bar, NVME_REG_ASQ);
  bool polite = in.u8() & 1;
  if (polite)  // disable and let the controller see it
    nvmev_wr32(g->bar, NVME_REG_CC, 0);
  // Rude or not, the controller has seen what the host last rang: a
  // doorbell rung for the old queues right before an unseen EN 1-0-1 would
  // look like one rung for the new queues (docs/controller.md).
  poll(1);
  if (polite && !(nvmev_rd32(g->bar, NVME_REG_CSTS) & NVME_CSTS_RDY)) g->tainted = false;
  forget_all();
  HostQueue& a = g->q[0];
  // rude: EN 1-0-1 unseen; the controller knows by the new admin queues
  do {
    a.sq_addr = alloc_pages(1);
  } while (a.sq_addr == old_sq);
  a.cq_addr = alloc_pages(1);
  a.sq_size = sqs;
  a.cq_size = cqs;
  a.sq_live = a.cq_live = true;
  nvmev_wr32(g->bar, NVME_REG_AQA, (sqs - 1) | ((cqs - 1) << 16));
  nvmev_wr64(g->bar, NVME_REG_ASQ, a.sq_addr);
  nvmev_wr64(g->bar, NVME_REG_ACQ, a.cq_addr);
  u32 cc = 1 | (6u << 16) | (4u << 20);
  if (in.u8() % 8 == 7) cc = in.u32() | 1;  // anything with EN set
  nvmev_wr32(g->bar, NVME_REG_CC, cc);
  // the host may ring its new admin queue before the controller saw this
}

void admin(Input& in) {
  nvmev_sqe cmd{};
  u8 kind = in.u8() % 6;
  u16 qid = 1 + in.u8() % (kQueues - 1);
  u32 size = 2 + in.u8() % 40;
  u8 op = 0;
  switch (kind) {
    case 0: {  // Create I/O CQ, interrupts on or off, any vector
      op = nvme_admin_create_cq;
      u64 addr = in.u8() % 8 != 7 ? alloc_pages((size * 16 + kPage - 1) / kPage) : in.u64();
      u16 vector = in.u8() % 4 != 3 ? in.u8() % 4 : static_cast<u16>(in.u32());
      cmd.dw[6] = static_cast<u32>(addr);
      cmd.dw[7] = static_cast<u32>(addr >> 32);
      cmd.dw[10] = qid | ((size - 1) << 16);
      cmd.dw[11] = 1 | (in.u8() & 2) | (u32{vector} << 16);
      break;
    }
    case 1: {  // Create I/O SQ on some CQ
      op = nvme_admin_create_sq;
      u16 cqid = 1 + in.u8() % (kQueues - 1);
      u64 addr = in.u8() % 8 != 7 ? alloc_pages((size * 64 + kPage - 1) / kPage) : in.u64();
      cmd.dw[6] = static_cast<u32>(addr);
      cmd.dw[7] = static_cast<u32>(addr >> 32);
      cmd.dw[10] = qid | ((size - 1) << 16);
      cmd.dw[11] = 1 | (u32{cqid} << 16);
      break;
    }
    case 2:
      op = nvme_admin_delete_sq;
      cmd.dw[10] = qid;
      // what the host rings after this would be for a queue re-created
      // under the same id
      g->q[qid].closing = true;
      break;
    case 3: op = nvme_admin_delete_cq; cmd.dw[10] = qid; break;
    case 4:
      op = nvme_admin_set_features;
      cmd.dw[10] = NVME_FEAT_NUM_QUEUES;
      cmd.dw[11] = in.u8() % 4 != 3 ? 0x00030003 : in.u32();
      break;
    default: in.bytes(&cmd, sizeof(cmd)); op = cmd.dw[0] & 0xff; break;
  }
  cmd.dw[0] = (cmd.dw[0] & ~0xffu) | op;
  u16 cid = g->next_cid;
  if (kind == 5)  // a raw command: the host no longer knows what exists
    for (auto& h : g->q) h.tracked = false;
  if (submit(0, cmd, in.u8() % 4))
    g->admin[cid] = {op, qid, u64{cmd.dw[6]} | u64{cmd.dw[7]} << 32, size, static_cast<u16>(cmd.dw[11] >> 16)};
}

void io(Input& in) {
  u16 qid = 1 + in.u8() % (kQueues - 1);
  HostQueue& h = g->q[qid];
  // the host only uses a SQ whose CQ it also created and still has
  if (!h.sq_live || !g->q[h.cqid].cq_live) return;
  nvmev_sqe cmd{};
  cmd.dw[0] = nvme_cmd_read;
  cmd.dw[1] = 1;
  cmd.dw[13] = in.u8();
  cmd.dw[14] = in.u32();
  submit(qid, cmd, in.u8() % 4);
}

void step(Input& in) {
  u8 action = in.u8() % 12;
  trace("step", action);
  switch (action) {
    case 0: enable(in); break;
    case 1:  // EN = 0: a reset; the host waits for RDY = 0 or not
      nvmev_wr32(g->bar, NVME_REG_CC, 0);
      forget_all();
      if (in.u8() & 1) poll(1);
      break;
    case 2: admin(in); break;
    case 3: case 4: io(in); break;
    case 5: {  // ring a SQ tail: what the host wrote, or anything
      u16 qid = in.u8() % kQueues;
      HostQueue& h = g->q[qid];
      if (h.closing) break;
      if (in.u8() % 8 != 7) {
        h.rung = h.sq_tail;
        nvmev_wr32(g->bar, sq_db(qid), h.sq_tail);
      } else {
        h.tracked = false;  // the controller may fetch what was never written
        nvmev_wr32(g->bar, sq_db(qid), in.u32() % 2048);
      }
      break;
    }
    case 6: reap(in.u8() % kQueues, in.u8() % 8); break;
    case 7: g->clock += in.u32() % 200000; break;
    case 8: poll(1 + in.u8() % 3); break;
    case 9: g->bme = !g->bme; break;
    case 10:  // the executor finishes a held command
      if (!g->held.empty()) {
        Held h = g->held[in.u8() % g->held.size()];
        g->held.erase(std::find_if(g->held.begin(), g->held.end(),
                                   [&](const Held& x) { return x.cid == h.cid; }));
        nvmev_ctrl_complete(&g->c, h.sqid, h.cid, 0, 0, g->clock);
      }
      break;
    default: {  // a raw register write
      static const u32 regs[] = {NVME_REG_CC, NVME_REG_AQA, NVME_REG_ASQ, NVME_REG_ASQ + 4,
                                 NVME_REG_ACQ, NVME_REG_ACQ + 4};
      nvmev_wr32(g->bar, regs[in.u8() % 6], in.u32());
      g->tainted = true;
      for (auto& h : g->q) h.tracked = false;
      break;
    }
  }
}

// With BME on, the executor finishing, time passing and the host reaping,
// every outstanding command of a queue the host still has completes.
void drain() {
  g->bme = true;
  poll(1);  // what the host last wrote into CC takes effect
  if (!(nvmev_rd32(g->bar, NVME_REG_CSTS) & NVME_CSTS_RDY)) return;
  for (auto& h : g->q)
    if (!h.tracked) return;
  g->bme = true;
  for (u16 i = 0; i < kQueues; i++)
    if (g->q[i].sq_live && !g->q[i].closing) nvmev_wr32(g->bar, sq_db(i), g->q[i].rung = g->q[i].sq_tail);
  for (int round = 0; round < 200 && !(g->outstanding.empty() && g->admin.empty()); round++) {
    for (const Held& h : g->held) nvmev_ctrl_complete(&g->c, h.sqid, h.cid, 0, 0, g->clock);
    g->held.clear();
    g->clock += 200000;
    poll(1);
    for (u16 i = 0; i < kQueues; i++) reap(i, 64);
  }
  for (auto& [cid, sqid] : g->outstanding) {
    const HostQueue& h = g->q[sqid];
    if (h.sq_live && g->q[h.cqid].cq_live && g->q[0].cq_live) fail("a command never completed");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto f = std::make_unique<Fuzz>();
  g = f.get();
  if (nvmev_ctrl_init(&f->c, &kOps, f.get(), f->bar, 4)) fail("init");
  Input in(data, size);
  while (!in.empty()) step(in);
  drain();
  nvmev_ctrl_exit(&f->c);
  g = nullptr;
  return 0;
}
