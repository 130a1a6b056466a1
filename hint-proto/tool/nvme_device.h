// NVMe passthrough access to a namespace block device (/dev/nvmeXnY):
// the commands nvmev-hint needs, with the hint fields of nvmev_hint.h.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

extern "C" {
#include "nvmev_hint.h"
}

namespace nvmev {

class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HintCapability {
  bool present = false;
  uint16_t version = 0;
  uint16_t caps = 0;
  uint32_t dies = 0;
  uint32_t granularity = 0;
};

class NvmeDevice {
 public:
  explicit NvmeDevice(const std::string& path);  // throws DeviceError
  ~NvmeDevice();
  NvmeDevice(const NvmeDevice&) = delete;
  NvmeDevice& operator=(const NvmeDevice&) = delete;

  uint32_t lba_bytes() const { return lba_bytes_; }
  uint64_t lbas() const { return lbas_; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  HintCapability capability();
  bool hints_enabled();
  void set_hints(bool on);  // Set Features NVMEV_HINT_FID

  // Write nblocks LBAs at slba from buf (at most MDTS) with an optional hint.
  void write(uint64_t slba, uint32_t nblocks, const void* buf, nvmev_hint_kind hint = NVMEV_HINT_NONE,
             uint64_t prev_lba = 0);
  void flush();
  // Deallocate the whole namespace (BLKDISCARD): a fresh drive, no GC debt.
  void discard_all();

 private:
  // Returns the NVMe status (0 = success); throws on ioctl failure.
  int admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, void* buf, uint32_t len,
            uint32_t* result = nullptr);

  std::string path_;
  int fd_ = -1;
  uint32_t nsid_ = 0;
  uint32_t lba_bytes_ = 512;
  uint64_t lbas_ = 0;
};

}  // namespace nvmev
