// The parts of the NVMe base specification (1.4) the user-level driver
// speaks: register offsets and fields, the 64-byte submission and 16-byte
// completion entries, opcodes and status codes. Our own names and layout.
#pragma once

#include <cstdint>
#include <cstring>

namespace uhost {

constexpr uint32_t kPageBytes = 4096;  // CC.MPS = 0: memory pages are 4 KiB

// Controller registers (offsets into BAR0).
namespace reg {
constexpr uint32_t CAP = 0x00, VS = 0x08, CC = 0x14, CSTS = 0x1c, AQA = 0x24, ASQ = 0x28,
                   ACQ = 0x30, DOORBELLS = 0x1000;
}  // namespace reg

// CAP fields
inline uint32_t cap_mqes(uint64_t cap) { return (cap & 0xffff) + 1; }  // entries per queue
inline uint32_t cap_timeout_ms(uint64_t cap) { return ((cap >> 24) & 0xff) * 500; }
inline uint32_t cap_dstrd(uint64_t cap) { return (cap >> 32) & 0xf; }
inline uint32_t cap_ams(uint64_t cap) { return (cap >> 17) & 0x3; }

// CC fields
namespace cc {
constexpr uint32_t EN = 1u << 0;
constexpr uint32_t SHN_NORMAL = 1u << 14, SHN_MASK = 3u << 14;
inline uint32_t css(uint32_t v) { return v << 4; }
inline uint32_t mps(uint32_t v) { return v << 7; }
inline uint32_t ams(uint32_t v) { return v << 11; }
inline uint32_t iosqes(uint32_t v) { return v << 16; }
inline uint32_t iocqes(uint32_t v) { return v << 20; }
// what the driver enables with: 64-byte SQEs, 16-byte CQEs, 4 KiB pages,
// NVM command set, round robin
inline uint32_t standard() { return iosqes(6) | iocqes(4) | mps(0) | css(0) | ams(0); }
}  // namespace cc

// CSTS fields
namespace csts {
constexpr uint32_t RDY = 1u << 0, CFS = 1u << 1, SHST_MASK = 3u << 2, SHST_DONE = 2u << 2;
}

namespace admin {
constexpr uint8_t DELETE_SQ = 0x00, CREATE_SQ = 0x01, DELETE_CQ = 0x04, CREATE_CQ = 0x05,
                  IDENTIFY = 0x06, SET_FEATURES = 0x09, GET_FEATURES = 0x0a;
constexpr uint8_t FEAT_NUM_QUEUES = 0x07;
constexpr uint8_t CNS_NS = 0x00, CNS_CTRL = 0x01, CNS_CTRL_CSI = 0x06;
}  // namespace admin

namespace io {
constexpr uint8_t FLUSH = 0x00, WRITE = 0x01, READ = 0x02, WRITE_ZEROES = 0x08, DSM = 0x09;
constexpr uint32_t DSM_AD = 1u << 2;  // CDW11: deallocate
constexpr size_t DSM_RANGE_BYTES = 16;
}  // namespace io

// status: (SCT << 8) | SC, as the tests and messages name them
namespace status {
constexpr uint16_t SUCCESS = 0x000, INVALID_FIELD = 0x002, DATA_XFER_ERROR = 0x004,
                   ABORTED_SQ_DELETION = 0x008, COMMAND_SEQUENCE = 0x00c,
                   INVALID_VECTOR = 0x108;
}

// A submission queue entry: 16 little-endian dwords (x86 is little endian).
struct Sqe {
  uint32_t dw[16] = {};

  uint8_t opcode() const { return dw[0] & 0xff; }
  uint16_t cid() const { return dw[0] >> 16; }
  void set_opcode(uint8_t op) { dw[0] = (dw[0] & ~0xffu) | op; }
  void set_cid(uint16_t cid) { dw[0] = (dw[0] & 0xffff) | (uint32_t(cid) << 16); }
  void set_prp1(uint64_t a) { set_qw(6, a); }
  void set_prp2(uint64_t a) { set_qw(8, a); }
  uint64_t prp1() const { return qw(6); }
  uint64_t prp2() const { return qw(8); }
  void set_qw(int i, uint64_t v) {
    dw[i] = uint32_t(v);
    dw[i + 1] = uint32_t(v >> 32);
  }
  uint64_t qw(int i) const { return dw[i] | (uint64_t(dw[i + 1]) << 32); }
};
static_assert(sizeof(Sqe) == 64);

// A completion queue entry as the controller posts it.
struct Cqe {
  uint32_t result = 0;
  uint32_t reserved = 0;
  uint16_t sq_head = 0;
  uint16_t sq_id = 0;
  uint16_t cid = 0;
  uint16_t sf = 0;  // status field: phase tag in bit 0

  bool phase() const { return sf & 1; }
  uint8_t sc() const { return (sf >> 1) & 0xff; }
  uint8_t sct() const { return (sf >> 9) & 0x7; }
  bool dnr() const { return sf >> 15; }
  uint16_t status() const { return uint16_t(sct()) << 8 | sc(); }  // SCT/SC
  bool ok() const { return status() == status::SUCCESS; }
};
static_assert(sizeof(Cqe) == 16);

// I/O commands on namespace @nsid; @nlb counts blocks (not 0's based).
inline Sqe rw_sqe(uint8_t opcode, uint32_t nsid, uint64_t lba, uint32_t nlb) {
  Sqe s;
  s.set_opcode(opcode);
  s.dw[1] = nsid;
  s.set_qw(10, lba);
  s.dw[12] = nlb - 1;
  return s;
}

// Dataset Management of @nr ranges (1..256) on namespace @nsid; the
// ranges go in the data buffer (put_dsm_range), 16 bytes each.
inline Sqe dsm_sqe(uint32_t nsid, uint32_t nr, bool deallocate) {
  Sqe s;
  s.set_opcode(io::DSM);
  s.dw[1] = nsid;
  s.dw[10] = nr - 1;
  s.dw[11] = deallocate ? io::DSM_AD : 0;
  return s;
}

// range @i of a DSM buffer: context attributes 0, @nlb blocks from @lba
inline void put_dsm_range(void* buf, size_t i, uint64_t lba, uint32_t nlb) {
  uint32_t r[4] = {0, nlb, uint32_t(lba), uint32_t(lba >> 32)};
  std::memcpy(static_cast<uint8_t*>(buf) + i * io::DSM_RANGE_BYTES, r, sizeof(r));
}

}  // namespace uhost
