// DMA memory for the controller: 2 MiB hugepages, locked, with their
// physical addresses from /proc/self/pagemap (a hugepage is physically
// contiguous, so one lookup per hugepage serves all its 4 KiB pages), cut
// into 4 KiB-aligned buffers by a first-fit allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "units.h"

namespace uhost {

constexpr size_t kHugePage = 2 * nvmev::MiB;

class DmaPool;

// A buffer out of a DmaPool, freed (back to the pool) on destruction;
// zeroed when allocated.
class DmaBuf {
 public:
  DmaBuf() = default;
  DmaBuf(DmaPool* pool, uint8_t* virt, size_t bytes) : pool_(pool), virt_(virt), bytes_(bytes) {}
  ~DmaBuf();
  DmaBuf(DmaBuf&& o) noexcept { *this = std::move(o); }
  DmaBuf& operator=(DmaBuf&& o) noexcept;
  DmaBuf(const DmaBuf&) = delete;
  DmaBuf& operator=(const DmaBuf&) = delete;

  uint8_t* data() const { return virt_; }
  size_t size() const { return bytes_; }
  uint64_t phys(size_t off = 0) const;

 private:
  DmaPool* pool_ = nullptr;
  uint8_t* virt_ = nullptr;
  size_t bytes_ = 0;
};

class DmaPool {
 public:
  // Map @bytes (rounded up to hugepages). Throws Error naming the fix
  // when too few hugepages are reserved or pagemap hides the addresses.
  explicit DmaPool(size_t bytes);
  ~DmaPool();
  DmaPool(const DmaPool&) = delete;
  DmaPool& operator=(const DmaPool&) = delete;

  // @bytes rounded up to 4 KiB; throws Error when the pool is exhausted.
  // @contiguous: inside one hugepage, i.e. physically contiguous (queues)
  DmaBuf alloc(size_t bytes, bool contiguous = false);
  // physical address of any byte inside the pool
  uint64_t phys(const void* p) const;
  size_t free_bytes() const;

 private:
  friend class DmaBuf;
  void release(uint8_t* p, size_t bytes);

  uint8_t* base_ = nullptr;
  size_t bytes_ = 0;
  std::vector<uint64_t> huge_phys_;  // per hugepage
  mutable std::mutex lock_;
  std::vector<bool> used_;  // per 4 KiB page
  size_t next_ = 0;         // where the next search starts
};

}  // namespace uhost
