#include "prp.h"

#include <stdexcept>

#include "spec.h"

namespace uhost {

size_t prp_pages(uint64_t offset, size_t len) {
  offset %= kPageBytes;
  return (offset + len + kPageBytes - 1) / kPageBytes;
}

Prps build_prps(uint64_t first, size_t len, const std::function<uint64_t(size_t)>& page_phys,
                uint64_t* list, uint64_t list_phys) {
  if (len == 0) throw std::invalid_argument("PRP: empty transfer");
  if (first & 3) throw std::invalid_argument("PRP: first address not dword aligned");
  size_t pages = prp_pages(first, len);
  // the list holds pages 1..n-1 and must not need chaining
  if (pages - 1 > kPrpListEntries) throw std::invalid_argument("PRP: transfer too long");
  Prps p;
  p.prp1 = first;
  if (pages == 2) {
    p.prp2 = page_phys(1);
  } else if (pages > 2) {
    if (list_phys & (kPageBytes - 1)) throw std::invalid_argument("PRP: list not page aligned");
    for (size_t i = 1; i < pages; i++) list[i - 1] = page_phys(i);
    p.prp2 = list_phys;
    p.list_entries = pages - 1;
  }
  return p;
}

}  // namespace uhost
