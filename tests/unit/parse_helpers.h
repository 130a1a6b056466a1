// What the command parser's tests share (nvmev/nvmev_cmd.c, the file
// nvmev.ko builds): a command built from its dwords, and what the parser
// made of it, its status and the Parameter Error Location of a refusal.
#pragma once

#include <initializer_list>
#include <ostream>

extern "C" {
#include "nvmev_cmd.h"
}

namespace nvmev::test {

constexpr u16 Dnr(u16 sc) { return sc | NVME_STATUS_DNR; }

// The Error Information log's Parameter Error Location of a refused
// command: the byte of the entry holding the bad field in bits 7:0, the
// bit of that byte it starts at in bits 10:8.
constexpr u16 Loc(u16 byte, u16 bit = 0) { return byte | bit << 8; }
constexpr u16 kNoLoc = 0xffff;

struct Refusal {
  u16 status;
  u16 loc;
  bool operator==(const Refusal& o) const { return status == o.status && loc == o.loc; }
};

inline std::ostream& operator<<(std::ostream& os, const Refusal& r) {
  return os << "status 0x" << std::hex << r.status << " at 0x" << r.loc;
}

// a command with dword 0 @cdw0 (opcode, PSDT) to NSID @nsid, CDW10.. @cdw10
inline nvmev_sqe Sqe(u32 cdw0, u32 nsid, std::initializer_list<u32> cdw10) {
  nvmev_sqe e{};
  e.dw[0] = cdw0;
  e.dw[1] = nsid;
  u32 i = 10;
  for (u32 dw : cdw10) e.dw[i++] = dw;
  return e;
}

inline Refusal io(const nvmev_ns_view& v, u32 cdw0, u32 nsid,
                  std::initializer_list<u32> cdw10 = {}) {
  nvmev_sqe e = Sqe(cdw0, nsid, cdw10);
  nvmev_io_req req;
  u16 status = nvmev_io_parse(&v, &e, &req);
  return {status, req.error_loc};
}

inline Refusal admin(const nvmev_ns_view& v, u32 cdw0, u32 nsid,
                     std::initializer_list<u32> cdw10 = {}) {
  nvmev_sqe e = Sqe(cdw0, nsid, cdw10);
  nvmev_admin_req req;
  u16 status = nvmev_admin_parse(&v, &e, &req);
  return {status, req.error_loc};
}

}  // namespace nvmev::test
