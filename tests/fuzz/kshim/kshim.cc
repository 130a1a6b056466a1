// The userspace side of kshim.h: the clock, the page allocator and the
// xarray that nvmev_store.c indexes its pages with, for fuzz_model.
#include <cstdlib>
#include <cstring>
#include <map>

extern "C" {
#include "kshim.h"
}

using Index = std::map<unsigned long, void*>;

extern "C" {

u64 kshim_now_ns;
u64 kshim_pages;
u64 kshim_ram_start, kshim_ram_end;

struct page* alloc_page(gfp_t gfp) {
  auto* p = static_cast<struct page*>(std::malloc(sizeof(struct page)));
  if (!p) return nullptr;
  // garbage unless asked for zeroes: see kshim.h
  std::memset(p->data, (gfp & __GFP_ZERO) ? 0 : 0xa5, sizeof(p->data));
  kshim_pages++;
  return p;
}

void __free_page(struct page* page) {
  kshim_pages--;
  std::free(page);
}

void* vmap(struct page**, unsigned int, unsigned long, int) { return nullptr; }
void vunmap(const void*) {}

static Index* idx(struct xarray* xa) {
  if (!xa->map) xa->map = new Index;
  return static_cast<Index*>(xa->map);
}

void xa_init(struct xarray* xa) { xa->map = nullptr; }

void xa_destroy(struct xarray* xa) {
  delete static_cast<Index*>(xa->map);
  xa->map = nullptr;
}

void* xa_load(struct xarray* xa, unsigned long index) {
  Index* m = idx(xa);
  auto it = m->find(index);
  return it == m->end() ? nullptr : it->second;
}

void* xa_store(struct xarray* xa, unsigned long index, void* entry, gfp_t) {
  Index* m = idx(xa);
  void* old = xa_load(xa, index);
  if (entry)
    (*m)[index] = entry;
  else
    m->erase(index);
  return old;
}

void* xa_erase(struct xarray* xa, unsigned long index) { return xa_store(xa, index, nullptr, 0); }

void* xa_find(struct xarray* xa, unsigned long* index, unsigned long last) {
  Index* m = idx(xa);
  auto it = m->lower_bound(*index);
  if (it == m->end() || it->first > last) return nullptr;
  *index = it->first;
  return it->second;
}

}  // extern "C"
