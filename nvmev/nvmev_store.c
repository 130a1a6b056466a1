// SPDX-License-Identifier: GPL-2.0
/*
 * Where the namespace's bytes live: the store.
 *
 * Two kinds, chosen at load:
 *  - linear: the memmap= reservation after the register area, byte LBA
 *    << lba_shift at that offset;
 *  - pages: ordinary kernel pages, one per 4 KiB unit, allocated when a
 *    unit is first written (as brd and null_blk's memory_backed do) and
 *    freed when it is deallocated. A unit without a page reads as zeroes.
 *    At most max_pages are allocated: the drive may be larger than RAM as
 *    long as what is written fits.
 *
 * What a unit reads as still follows the model's mapping (nvmev_io.c):
 * the store only holds bytes. Only the worker thread calls in here, so
 * the page index needs no lock of its own; debugfs reads the counts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/xarray.h>

#include "nvmev.h"

static struct page *nvmev_store_page(struct nvmev_store *s, u64 unit)
{
	return xa_load(&s->pages, unit);
}

/*
 * The page of @unit, allocated if it has none; NULL when the cap is
 * reached or the kernel has no page to give. @whole: the caller writes
 * all of it, so it need not be zeroed first.
 */
static struct page *nvmev_store_get(struct nvmev_store *s, u64 unit, bool whole)
{
	gfp_t gfp = GFP_NOIO | __GFP_NOWARN | __GFP_NORETRY;
	struct page *page = nvmev_store_page(s, unit);
	void *old;

	if (page)
		return page;
	if (s->nr_pages >= s->max_pages)
		return NULL;
	/*
	 * No reclaim that waits on I/O: the host may be writing back to
	 * this very drive to free memory.
	 */
	page = alloc_page(whole ? gfp : gfp | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_store(&s->pages, unit, page, GFP_NOIO | __GFP_NOWARN);
	if (xa_is_err(old)) {
		__free_page(page);
		return NULL;
	}
	s->nr_pages++;
	s->peak_pages = max(s->peak_pages, s->nr_pages);
	return page;
}

static void nvmev_store_put(struct nvmev_store *s, u64 unit)
{
	struct page *page = xa_erase(&s->pages, unit);

	if (page) {
		__free_page(page);
		s->nr_pages--;
	}
}

u8 *nvmev_store_at(struct nvmev_dev *dev, u64 off, u32 *n, bool write)
{
	struct nvmev_store *s = &dev->store;
	u64 unit = off >> FTL_MAP_SHIFT;
	u32 in_unit = off & (FTL_MAP_UNIT - 1);
	struct page *page;

	if (s->linear)
		return s->linear + off;
	*n = min_t(u32, *n, FTL_MAP_UNIT - in_unit);
	if (write)
		page = nvmev_store_get(s, unit, !in_unit && *n == FTL_MAP_UNIT);
	else
		page = nvmev_store_page(s, unit);
	if (!page)
		return write ? NULL : dev->zeroes;
	return (u8 *)page_address(page) + in_unit;
}

void nvmev_store_zero(struct nvmev_dev *dev, u64 off, u64 len)
{
	struct nvmev_store *s = &dev->store;
	struct page *page;

	if (s->linear) {
		memset(s->linear + off, 0, len);
		return;
	}
	/* within one unit; a unit without a page reads as zeroes already */
	page = nvmev_store_page(s, off >> FTL_MAP_SHIFT);
	if (page)
		memset((u8 *)page_address(page) + (off & (FTL_MAP_UNIT - 1)), 0,
		       len);
}

void nvmev_store_zero_units(struct nvmev_dev *dev, u64 unit, u64 n)
{
	if (dev->store.linear)
		memset(dev->store.linear + (unit << FTL_MAP_SHIFT), 0,
		       n << FTL_MAP_SHIFT);
	else
		nvmev_store_drop(dev, unit, n);
}

void nvmev_store_drop(struct nvmev_dev *dev, u64 unit, u64 n)
{
	struct nvmev_store *s = &dev->store;
	struct page *page;
	unsigned long i;

	if (s->linear || !n || !s->nr_pages)
		return;
	xa_for_each_range(&s->pages, i, page, unit, unit + n - 1)
		nvmev_store_put(s, i);
}

void nvmev_store_init_linear(struct nvmev_dev *dev, void *data)
{
	dev->store.linear = data;
}

void nvmev_store_init_pages(struct nvmev_dev *dev, u64 max_pages)
{
	xa_init(&dev->store.pages);
	dev->store.max_pages = max_pages;
}

void nvmev_store_exit(struct nvmev_dev *dev)
{
	struct nvmev_store *s = &dev->store;
	struct page *page;
	unsigned long i;

	if (s->linear) {
		s->linear = NULL;
		return;
	}
	xa_for_each(&s->pages, i, page) {
		nvmev_store_put(s, i);
		if (!(i & 0xffff))
			cond_resched();
	}
	xa_destroy(&s->pages);
}
