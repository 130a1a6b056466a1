// SPDX-License-Identifier: GPL-2.0
/*
 * Host memory as the device sees it: every address a host hands the
 * controller (queue bases, PRP entries, PRP lists) goes through here.
 *
 * A real device's DMA reaches RAM only. pfn_valid() is not that test: it
 * holds for reserved holes inside a memory section that are not in the
 * direct map (firmware areas below the top of low RAM), for the memmap=
 * range that holds this device's own BAR and data, and for other
 * reserved ranges; dereferencing such an address faults the controller
 * thread. So the System RAM ranges of the resource tree are copied once at
 * load, and an address is host memory only inside one of them and where
 * the direct map has it (writable, if the device writes it: the kernel's
 * text and rodata are read-only there too). A command that names anything
 * else fails with Data Transfer Error; a queue base, with Invalid Field.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/slab.h>

#include "nvmev.h"
#include "nvmev_prp.h"

struct ram_walk {
	struct nvmev_host_ram *ram;
	u32 nr;				/* ranges seen */
};

static int nvmev_count_or_add(struct resource *res, void *arg)
{
	struct ram_walk *w = arg;

	if (w->ram->ranges && w->nr < w->ram->nr) {
		w->ram->ranges[w->nr].start = res->start;
		w->ram->ranges[w->nr].end = res->end + 1;
	}
	w->nr++;
	return 0;
}

int nvmev_host_init(struct nvmev_dev *dev)
{
	struct nvmev_host_ram *ram = &dev->host_ram;
	struct ram_walk w = { .ram = ram };

	/* nvmev_host_ptr() looks at the range from the worker's first pass */
	nvmev_offline_init(dev);
	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_SYSTEM_RAM, 0, U64_MAX,
			    &w, nvmev_count_or_add);
	if (!w.nr) {
		pr_err("no System RAM in the resource tree: cannot check host addresses\n");
		return -ENODEV;
	}
	ram->ranges = kcalloc(w.nr, sizeof(*ram->ranges), GFP_KERNEL);
	if (!ram->ranges)
		return -ENOMEM;
	ram->nr = w.nr;
	w.nr = 0;
	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_SYSTEM_RAM, 0, U64_MAX,
			    &w, nvmev_count_or_add);
	/* RAM added since the first walk is not host memory to this device */
	ram->nr = min(ram->nr, w.nr);
	return 0;
}

void nvmev_host_exit(struct nvmev_dev *dev)
{
	kfree(dev->host_ram.ranges);
	dev->host_ram.ranges = NULL;
	dev->host_ram.nr = 0;
}

/* [addr, addr + len) lies in one System RAM range */
static bool nvmev_host_host_ram(const struct nvmev_host_ram *ram, u64 addr, u64 len)
{
	u32 i;

	if (!len || addr + len < addr)
		return false;
	for (i = 0; i < ram->nr; i++)
		if (addr >= ram->ranges[i].start &&
		    addr + len <= ram->ranges[i].end)
			return true;
	return false;
}

/* the direct map has the page, and lets us write it if we must */
static bool nvmev_mapped(u64 addr, bool write)
{
	unsigned int level;
	pte_t *pte;

	if (!pfn_valid(PHYS_PFN(addr)))
		return false;
	pte = lookup_address((unsigned long)phys_to_virt(addr), &level);
	return pte && pte_present(*pte) && (!write || pte_write(*pte));
}

/* host memory for a queue's ring: the only caller is the ring's Create */
void *nvmev_host_ptr(struct nvmev_dev *dev, u64 addr, u64 len, bool write)
{
	u64 off;

	if (!nvmev_host_host_ram(&dev->host_ram, addr, len) ||
	    nvmev_offline_holds(dev, addr, len))
		return NULL;
	for (off = 0; off < len; off += PAGE_SIZE)
		if (!nvmev_mapped(addr + off, write))
			return NULL;
	return phys_to_virt(addr);
}

/* Host RAM for the PRP walker: guest physical pages, mapped one by one. */
static void *nvmev_host_page_map(void *ctx, u64 addr, bool write)
{
	struct nvmev_dev *dev = ctx;

	if (!nvmev_host_host_ram(&dev->host_ram, addr, PAGE_SIZE) || !nvmev_mapped(addr, write))
		return NULL;
	return kmap_local_page(pfn_to_page(PHYS_PFN(addr)));
}

static void nvmev_host_page_unmap(void *ctx, void *page)
{
	kunmap_local(page);
}

/*
 * Copy @len bytes between @buf and the host buffer described by a
 * command's PRP entries (as nvmev_cmd.c decoded them). Returns an NVMe
 * status: offsets that break the PRP rules and addresses that are not
 * host RAM fail the command.
 */
static u16 nvmev_prp_status(enum nvmev_prp_result r)
{
	switch (r) {
	case NVMEV_PRP_OK:
		return NVME_SC_SUCCESS;
	case NVMEV_PRP_BAD_OFFSET:
		return NVME_SC_PRP_INVALID_OFFSET | NVME_STATUS_DNR;
	case NVMEV_PRP_NO_SPACE:
		/* a thin-provisioned namespace out of its backing */
		return NVME_SC_CAP_EXCEEDED | NVME_STATUS_DNR;
	default:
		return NVME_SC_DATA_XFER_ERROR | NVME_STATUS_DNR;
	}
}

static struct nvmev_host_mem nvmev_host_mem_of(struct nvmev_dev *dev)
{
	return (struct nvmev_host_mem) {
		.map = nvmev_host_page_map,
		.unmap = nvmev_host_page_unmap,
		.ctx = dev,
	};
}

u16 nvmev_prp_copy(struct nvmev_dev *dev, u64 prp1, u64 prp2, void *buf,
		   u64 len, bool to_host)
{
	const struct nvmev_host_mem mem = nvmev_host_mem_of(dev);

	return nvmev_prp_status(nvmev_prp_copy_mem(&mem, prp1, prp2, buf, len,
						   to_host));
}

/* the store at the transfer's offset: byte @pos of it is @off + @pos */
struct nvmev_store_xfer {
	struct nvmev_dev *dev;
	u64 off;
};

static u8 *nvmev_store_xfer_at(void *ctx, u64 pos, u32 *n, bool write)
{
	struct nvmev_store_xfer *x = ctx;

	return nvmev_store_at(x->dev, x->off + pos, n, write);
}

u16 nvmev_prp_check_host(struct nvmev_dev *dev, u64 prp1, u64 prp2, u64 len,
			 bool to_host)
{
	const struct nvmev_host_mem mem = nvmev_host_mem_of(dev);

	return nvmev_prp_status(nvmev_prp_check(&mem, prp1, prp2, len, to_host));
}

u16 nvmev_prp_copy_store(struct nvmev_dev *dev, u64 prp1, u64 prp2, u64 off,
			 u64 len, bool to_host)
{
	const struct nvmev_host_mem mem = nvmev_host_mem_of(dev);
	struct nvmev_store_xfer x = { .dev = dev, .off = off };
	const struct nvmev_dev_mem dm = { nvmev_store_xfer_at, &x };

	return nvmev_prp_status(nvmev_prp_xfer(&mem, prp1, prp2, &dm, len,
					       to_host));
}
