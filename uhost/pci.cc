#include "pci.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "error.h"

namespace uhost {
namespace {

constexpr uint32_t kPciCommand = 0x04, kCommandMaster = 1u << 2, kCapPtr = 0x34;
constexpr uint8_t kCapIdExp = 0x10;
constexpr uint32_t kExpDevCap = 4, kDevCapFlr = 1u << 28;

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (!f || !std::getline(f, s)) throw sys_error("cannot read " + path);
  return s;
}

void write_text(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY);
  if (fd < 0) throw sys_error("cannot open " + path);
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n != ssize_t(text.size())) {
    errno = err;
    throw sys_error("cannot write \"" + text + "\" to " + path);
  }
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

Error sys_error(const std::string& what) { return Error(what + ": " + std::strerror(errno)); }

PciFunction::PciFunction(const std::string& bdf) : bdf_(bdf) {
  static const std::regex form("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
  if (!std::regex_match(bdf, form))
    throw UsageError("malformed PCI address '" + bdf + "' (want DDDD:BB:DD.F, e.g. " +
                     kDefaultBdf + ")");
  if (!exists(sysfs()))
    throw Error("no PCI device " + bdf + " (is nvmev.ko loaded? wrong --bdf?)");
  uint32_t vendor = std::stoul(read_line(sysfs() + "/vendor"), nullptr, 16);
  uint32_t device = std::stoul(read_line(sysfs() + "/device"), nullptr, 16);
  if (vendor != kVendorId || device != kDeviceId) {
    std::ostringstream m;
    m << "PCI device " << bdf << " is " << std::hex << vendor << ":" << device
      << ", not an nvmev controller (1e5e:0001)";
    throw Error(m.str());
  }
  config_fd_ = open((sysfs() + "/config").c_str(), O_RDWR);
  if (config_fd_ < 0) throw sys_error("cannot open " + sysfs() + "/config (needs root)");
}

PciFunction::~PciFunction() {
  delete bar_;
  if (bar_map_) munmap(bar_map_, bar_bytes_);
  if (config_fd_ >= 0) close(config_fd_);
}

std::string PciFunction::driver() const {
  char buf[512];
  ssize_t n = readlink((sysfs() + "/driver").c_str(), buf, sizeof(buf) - 1);
  if (n < 0) return "";
  buf[n] = 0;
  std::string s(buf);
  return s.substr(s.rfind('/') + 1);
}

void PciFunction::bind_uio() {
  if (driver() == "uio_pci_generic") return;
  if (!exists("/sys/bus/pci/drivers/uio_pci_generic"))
    throw Error("uio_pci_generic is not loaded (modprobe uio_pci_generic)");
  if (!driver().empty()) write_text(sysfs() + "/driver/unbind", bdf_);
  write_text(sysfs() + "/driver_override", "uio_pci_generic");
  write_text("/sys/bus/pci/drivers_probe", bdf_);
  if (driver() != "uio_pci_generic")
    throw Error("binding " + bdf_ + " to uio_pci_generic failed (driver: '" + driver() +
                "'; see dmesg)");
}

uint64_t PciFunction::bar0_phys() const {
  std::istringstream in(read_line(sysfs() + "/resource"));
  std::string start;
  in >> start;
  return std::stoull(start, nullptr, 16);
}

Bar& PciFunction::bar0() {
  if (bar_) return *bar_;
  if (driver() != "uio_pci_generic")
    throw Error("device " + bdf_ + " is not bound to uio_pci_generic (driver: '" + driver() +
                "')");
  std::string path = sysfs() + "/resource0";
  int fd = open(path.c_str(), O_RDWR | O_SYNC);
  if (fd < 0) throw sys_error("cannot open " + path);
  struct stat st;
  fstat(fd, &st);
  bar_bytes_ = st.st_size ? size_t(st.st_size) : 16384;
  bar_map_ = mmap(nullptr, bar_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (bar_map_ == MAP_FAILED) {
    bar_map_ = nullptr;
    throw sys_error("cannot map " + path);
  }
  bar_ = new Bar(bar_map_, bar_bytes_);
  return *bar_;
}

uint16_t PciFunction::config16(uint32_t off) const {
  uint16_t v = 0;
  if (pread(config_fd_, &v, 2, off) != 2) throw sys_error("reading config space of " + bdf_);
  return v;
}

uint32_t PciFunction::config32(uint32_t off) const {
  uint32_t v = 0;
  if (pread(config_fd_, &v, 4, off) != 4) throw sys_error("reading config space of " + bdf_);
  return v;
}

void PciFunction::write_config16(uint32_t off, uint16_t v) {
  if (pwrite(config_fd_, &v, 2, off) != 2) throw sys_error("writing config space of " + bdf_);
}

void PciFunction::set_bus_master(bool on) {
  uint16_t cmd = config16(kPciCommand);
  write_config16(kPciCommand, on ? cmd | kCommandMaster : cmd & ~kCommandMaster);
}

bool PciFunction::bus_master() const { return config16(kPciCommand) & kCommandMaster; }

uint32_t PciFunction::find_capability(uint8_t id) const {
  uint32_t off = config16(kCapPtr) & 0xfc;
  for (int hops = 0; off && hops < 48; hops++) {
    uint16_t v = config16(off);
    if ((v & 0xff) == id) return off;
    off = (v >> 8) & 0xfc;
  }
  return 0;
}

bool PciFunction::flr_capable() const {
  uint32_t exp = find_capability(kCapIdExp);
  return exp && (config32(exp + kExpDevCap) & kDevCapFlr);
}

void PciFunction::reset() { write_text(sysfs() + "/reset", "1"); }

}  // namespace uhost
