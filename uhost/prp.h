// PRP (Physical Region Page) entries for a transfer: PRP1 is the first
// page (which may start at an offset), PRP2 the second page when the
// transfer touches exactly two, otherwise the address of a list of the
// remaining pages. One list page (512 entries) covers 2 MiB, more than the
// device's MDTS; longer transfers are refused rather than chained.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace uhost {

struct Prps {
  uint64_t prp1 = 0, prp2 = 0;
  size_t list_entries = 0;  // entries written to the list page
};

// Pages a transfer of @len bytes starting at byte @offset of a page covers.
size_t prp_pages(uint64_t offset, size_t len);

// Build the PRPs of @len bytes whose byte 0 is at physical @first and
// whose page i (i >= 1, counted from @first's page) is at page_phys(i).
// @list (512 entries at physical @list_phys) receives the list when one is
// needed. Throws std::invalid_argument for an empty, misaligned (PRP1
// must be dword aligned) or too long transfer.
Prps build_prps(uint64_t first, size_t len, const std::function<uint64_t(size_t)>& page_phys,
                uint64_t* list, uint64_t list_phys);

constexpr size_t kPrpListEntries = 512;

}  // namespace uhost
