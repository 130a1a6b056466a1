#include "dma.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "error.h"
#include "spec.h"

namespace uhost {
namespace {

// HugePages_Free from /proc/meminfo, -1 if unknown
long free_hugepages() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  long v;
  while (f >> key >> v) {
    if (key == "HugePages_Free:") return v;
    f.ignore(256, '\n');
  }
  return -1;
}

}  // namespace

DmaBuf::~DmaBuf() {
  if (pool_) pool_->release(virt_, bytes_);
}

DmaBuf& DmaBuf::operator=(DmaBuf&& o) noexcept {
  if (this != &o) {
    if (pool_) pool_->release(virt_, bytes_);
    pool_ = o.pool_;
    virt_ = o.virt_;
    bytes_ = o.bytes_;
    o.pool_ = nullptr;
    o.virt_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

uint64_t DmaBuf::phys(size_t off) const { return pool_->phys(virt_ + off); }

DmaPool::DmaPool(size_t bytes) {
  size_t pages = (bytes + kHugePage - 1) / kHugePage;
  bytes_ = pages * kHugePage;
  long avail = free_hugepages();
  if (avail >= 0 && size_t(avail) < pages)
    throw Error("need " + std::to_string(pages) + " free 2 MiB hugepages, " +
                std::to_string(avail) + " free (echo " + std::to_string(pages + 8) +
                " > /proc/sys/vm/nr_hugepages)");
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED)
    throw Error(std::string("cannot map hugepages (") + std::strerror(errno) + "): echo " +
                std::to_string(pages + 8) + " > /proc/sys/vm/nr_hugepages");
  base_ = static_cast<uint8_t*>(p);
  // the device keeps these addresses: the pages must never move or swap
  if (mlock(base_, bytes_) != 0) {
    munmap(base_, bytes_);
    throw sys_error("mlock of the DMA pool");
  }
  int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) {
    munmap(base_, bytes_);
    throw sys_error("cannot open /proc/self/pagemap");
  }
  for (size_t i = 0; i < pages; i++) {
    uint8_t* v = base_ + i * kHugePage;
    *reinterpret_cast<volatile uint8_t*>(v) = 0;  // fault it in
    uint64_t entry = 0;
    off_t off = off_t(uintptr_t(v) / 4096 * 8);
    if (pread(fd, &entry, 8, off) != 8 || !(entry >> 63)) {
      close(fd);
      munmap(base_, bytes_);
      throw Error("pagemap has no entry for a DMA hugepage");
    }
    uint64_t pfn = entry & ((1ull << 55) - 1);
    if (!pfn) {
      close(fd);
      munmap(base_, bytes_);
      throw Error("pagemap shows no physical addresses: run as root");
    }
    huge_phys_.push_back(pfn * 4096);
  }
  close(fd);
  used_.assign(bytes_ / kPageBytes, false);
}

DmaPool::~DmaPool() {
  if (base_) munmap(base_, bytes_);
}

DmaBuf DmaPool::alloc(size_t bytes, bool contiguous) {
  size_t n = (bytes + kPageBytes - 1) / kPageBytes;
  if (n == 0) n = 1;
  std::lock_guard<std::mutex> g(lock_);
  size_t total = used_.size(), per_huge = kHugePage / kPageBytes;
  if (contiguous && n > per_huge) throw Error("a contiguous DMA buffer must fit in 2 MiB");
  // first fit, starting where the last allocation ended, wrapping once
  for (size_t tries = 0, i = next_; tries < total;) {
    if (i + n > total) {
      tries += total - i;
      i = 0;
      continue;
    }
    if (contiguous && i / per_huge != (i + n - 1) / per_huge) {
      size_t next = (i / per_huge + 1) * per_huge;
      tries += next - i;
      i = next;
      continue;
    }
    size_t run = 0;
    while (run < n && !used_[i + run]) run++;
    if (run == n) {
      for (size_t k = 0; k < n; k++) used_[i + k] = true;
      next_ = (i + n) % total;
      uint8_t* v = base_ + i * kPageBytes;
      std::memset(v, 0, n * kPageBytes);
      return DmaBuf(this, v, n * kPageBytes);
    }
    tries += run + 1;
    i += run + 1;
  }
  throw Error("DMA pool exhausted (" + std::to_string(bytes_ >> 20) +
              " MiB): raise --dma-mib and the reserved hugepages");
}

void DmaPool::release(uint8_t* p, size_t bytes) {
  std::lock_guard<std::mutex> g(lock_);
  size_t first = size_t(p - base_) / kPageBytes;
  for (size_t k = 0; k < bytes / kPageBytes; k++) used_[first + k] = false;
}

uint64_t DmaPool::phys(const void* p) const {
  size_t off = size_t(static_cast<const uint8_t*>(p) - base_);
  if (off >= bytes_) throw Error("address outside the DMA pool");
  return huge_phys_[off / kHugePage] + off % kHugePage;
}

size_t DmaPool::free_bytes() const {
  std::lock_guard<std::mutex> g(lock_);
  size_t n = 0;
  for (bool u : used_) n += !u;
  return n * kPageBytes;
}

}  // namespace uhost
