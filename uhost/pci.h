// The controller's PCI function through sysfs: which driver owns it,
// handing it to uio_pci_generic, BAR0, Bus Master Enable and the
// function's configuration space.
#pragma once

#include <cstdint>
#include <string>

namespace uhost {

constexpr const char* kDefaultBdf = "7e00:00:00.0";
constexpr uint16_t kVendorId = 0x1e5e, kDeviceId = 0x0001;

// BAR0 mapped from sysfs resource0: registers at 0, doorbells at 0x1000.
class Bar {
 public:
  Bar(void* base, size_t bytes) : base_(static_cast<volatile uint8_t*>(base)), bytes_(bytes) {}
  uint32_t read32(uint32_t off) const { return *reinterpret_cast<volatile uint32_t*>(base_ + off); }
  void write32(uint32_t off, uint32_t v) { *reinterpret_cast<volatile uint32_t*>(base_ + off) = v; }
  // 64-bit registers as two dwords, low first (what the device expects)
  uint64_t read64(uint32_t off) const { return read32(off) | uint64_t(read32(off + 4)) << 32; }
  void write64(uint32_t off, uint64_t v) {
    write32(off, uint32_t(v));
    write32(off + 4, uint32_t(v >> 32));
  }
  volatile uint32_t* dword(uint32_t off) { return reinterpret_cast<volatile uint32_t*>(base_ + off); }
  size_t bytes() const { return bytes_; }

 private:
  volatile uint8_t* base_;
  size_t bytes_;
};

class PciFunction {
 public:
  // Throws UsageError for a malformed BDF, Error if there is no such
  // device or it is not an nvmev controller.
  explicit PciFunction(const std::string& bdf);
  ~PciFunction();
  PciFunction(const PciFunction&) = delete;
  PciFunction& operator=(const PciFunction&) = delete;

  const std::string& bdf() const { return bdf_; }
  std::string sysfs() const { return "/sys/bus/pci/devices/" + bdf_; }
  // the bound driver's name, "" if none
  std::string driver() const;
  // Unbind whatever else is bound (the nvme driver) and bind
  // uio_pci_generic, which must be loaded.
  void bind_uio();
  // BAR0's physical address (sysfs "resource", first line)
  uint64_t bar0_phys() const;
  // Map BAR0 (once); throws if the device is not bound to uio
  Bar& bar0();

  uint16_t config16(uint32_t off) const;
  uint32_t config32(uint32_t off) const;
  void write_config16(uint32_t off, uint16_t v);
  void set_bus_master(bool on);
  bool bus_master() const;
  // offset of capability @id in configuration space, 0 if absent
  uint32_t find_capability(uint8_t id) const;
  // Function Level Reset as advertised (PCIe DEVCAP bit 28)
  bool flr_capable() const;
  // sysfs "reset": the kernel's reset of the function
  void reset();

 private:
  std::string bdf_;
  int config_fd_ = -1;
  void* bar_map_ = nullptr;
  size_t bar_bytes_ = 0;
  Bar* bar_ = nullptr;
};

}  // namespace uhost
