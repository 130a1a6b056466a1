#include "nvme_device.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace nvmev {

namespace {

constexpr uint8_t kAdminIdentify = 0x06;
constexpr uint8_t kAdminSetFeatures = 0x09;
constexpr uint8_t kAdminGetFeatures = 0x0a;
constexpr uint8_t kIoFlush = 0x00;
constexpr uint8_t kIoWrite = 0x01;

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

NvmeDevice::NvmeDevice(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_DIRECT);
  if (fd_ < 0) throw DeviceError(errno_text(path));
  int id = ::ioctl(fd_, NVME_IOCTL_ID);
  if (id <= 0) {
    ::close(fd_);
    throw DeviceError(path + ": not an NVMe namespace (NVME_IOCTL_ID failed)");
  }
  nsid_ = static_cast<uint32_t>(id);
  std::vector<uint8_t> ns(4096);
  nvme_passthru_cmd64 c{};
  c.opcode = kAdminIdentify;
  c.nsid = nsid_;
  c.addr = reinterpret_cast<uintptr_t>(ns.data());
  c.data_len = 4096;
  c.cdw10 = 0;  // CNS 0: namespace
  if (::ioctl(fd_, NVME_IOCTL_ADMIN64_CMD, &c) != 0) {
    ::close(fd_);
    throw DeviceError(path + ": Identify Namespace failed");
  }
  std::memcpy(&lbas_, ns.data(), 8);
  uint8_t flbas = ns[26] & 0xf;
  uint8_t lbads = ns[128 + 4 * flbas + 2];
  lba_bytes_ = 1u << lbads;
}

NvmeDevice::~NvmeDevice() {
  if (fd_ >= 0) ::close(fd_);
}

int NvmeDevice::admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, void* buf, uint32_t len,
                      uint32_t* result) {
  nvme_passthru_cmd64 c{};
  c.opcode = opcode;
  c.addr = reinterpret_cast<uintptr_t>(buf);
  c.data_len = len;
  c.cdw10 = cdw10;
  c.cdw11 = cdw11;
  int ret = ::ioctl(fd_, NVME_IOCTL_ADMIN64_CMD, &c);
  if (ret < 0) throw DeviceError(errno_text(path_ + ": admin command"));
  if (result) *result = static_cast<uint32_t>(c.result);
  return ret;
}

HintCapability NvmeDevice::capability() {
  std::vector<uint8_t> id(4096);
  if (admin(kAdminIdentify, 1 /* CNS 1: controller */, 0, id.data(), 4096) != 0)
    throw DeviceError(path_ + ": Identify Controller failed");
  nvmev_hint_id rec;
  std::memcpy(&rec, id.data() + NVMEV_HINT_ID_OFFSET, sizeof(rec));
  HintCapability cap;
  cap.present = std::memcmp(rec.signature, NVMEV_HINT_SIGNATURE, sizeof(rec.signature)) == 0;
  if (cap.present) {
    cap.version = rec.version;
    cap.caps = rec.caps;
    cap.dies = rec.dies;
    cap.granularity = rec.granularity;
  }
  return cap;
}

bool NvmeDevice::hints_enabled() {
  uint32_t result = 0;
  if (admin(kAdminGetFeatures, NVMEV_HINT_FID, 0, nullptr, 0, &result) != 0) return false;
  return result & NVMEV_HINT_FEAT_ENABLE;
}

void NvmeDevice::set_hints(bool on) {
  int status = admin(kAdminSetFeatures, NVMEV_HINT_FID, on ? NVMEV_HINT_FEAT_ENABLE : 0, nullptr, 0);
  if (status != 0)
    throw DeviceError(path_ + ": the device refused feature 0xc0 (status " +
                      std::to_string(status) + "): placement hints not supported");
}

void NvmeDevice::write(uint64_t slba, uint32_t nblocks, const void* buf, nvmev_hint_kind hint,
                       uint64_t prev_lba) {
  if (nblocks == 0 || nblocks > 65536) throw DeviceError("write: 1..65536 blocks per command");
  nvme_passthru_cmd64 c{};
  c.opcode = kIoWrite;
  c.nsid = nsid_;
  c.addr = reinterpret_cast<uintptr_t>(buf);
  c.data_len = nblocks * lba_bytes_;
  c.cdw10 = static_cast<uint32_t>(slba);
  c.cdw11 = static_cast<uint32_t>(slba >> 32);
  c.cdw12 = nblocks - 1;
  __u32 cdw2 = 0, cdw3 = 0, cdw12 = c.cdw12;
  nvmev_hint_encode(hint, prev_lba, &cdw2, &cdw3, &cdw12);
  c.cdw2 = cdw2;
  c.cdw3 = cdw3;
  c.cdw12 = cdw12;
  int ret = ::ioctl(fd_, NVME_IOCTL_IO64_CMD, &c);
  if (ret < 0) throw DeviceError(errno_text(path_ + ": write"));
  if (ret > 0)
    throw DeviceError(path_ + ": write at LBA " + std::to_string(slba) + " failed, NVMe status " +
                      std::to_string(ret));
}

void NvmeDevice::discard_all() {
  uint64_t range[2] = {0, lbas_ * lba_bytes_};
  if (::ioctl(fd_, BLKDISCARD, range) != 0) throw DeviceError(errno_text(path_ + ": discard"));
}

void NvmeDevice::flush() {
  nvme_passthru_cmd64 c{};
  c.opcode = kIoFlush;
  c.nsid = nsid_;
  int ret = ::ioctl(fd_, NVME_IOCTL_IO64_CMD, &c);
  if (ret != 0) throw DeviceError(path_ + ": flush failed");
}

}  // namespace nvmev
