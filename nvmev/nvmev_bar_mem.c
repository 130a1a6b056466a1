// SPDX-License-Identifier: GPL-2.0
/*
 * The physical memory the device's registers live in, and with memmap=
 * its data too. The host's nvme driver ioremap()s BAR0 and requests it
 * as a region, which it can only do outside System RAM (that resource is
 * busy): the registers need memory the kernel does not manage.
 *
 *  - memmap_start/memmap_size: a range the user hid from the kernel at
 *    boot with memmap=SIZE$START. Checked to be exactly that, claimed.
 *  - neither (the default): one memory block taken away from the running
 *    kernel with offline_and_remove_memory(), as virtio-mem unplugs
 *    memory, and given back with add_memory() at unload. Its first 16 KiB
 *    are BAR0; the data lives in kernel pages (nvmev_store.c). The
 *    kernel's own checks decide which block can go: one holding
 *    unmovable pages is refused at once and stays online. A block an
 *    unload gave back and nobody onlined is taken again first, so that
 *    reloads on a kernel that leaves hot-added memory offline do not
 *    leave a block offline each.
 *
 * Either way the range ends up as a non-busy resource of its own
 * (dev->reservation), everything after BAR0 claimed busy (dev->claim) and
 * BAR0 left for nvmev_pci_create() to nest as the function's BAR.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ioport.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <asm/e820/api.h>

#include "nvmev.h"

/* What the resource tree has in the range, for the refusal's one line. */
struct nvmev_iomem_scan {
	u64 at;				/* next address not yet seen */
	u64 start, end;			/* the first thing wrong: [start, end] */
	const char *what;
	bool reserved;			/* a Reserved range was seen */
};

/* walk_iomem_res_desc(): the top-level resources, in address order */
static int nvmev_scan_top(struct resource *res, void *arg)
{
	struct nvmev_iomem_scan *s = arg;

	if (res->start > s->at) {
		s->what = "a hole (no resource)";
		s->start = s->at;
		s->end = res->start - 1;
		return 1;
	}
	if (res->desc == IORES_DESC_RESERVED && !s->reserved) {
		s->reserved = true;
		s->at = res->end + 1;
		return 0;
	}
	s->what = s->reserved ? "a second resource" :
				"a resource that is not Reserved";
	s->start = res->start;
	s->end = res->end;
	return 1;
}

/* a resource some driver claimed (busy) */
static int nvmev_scan_busy(struct resource *res, void *arg)
{
	struct nvmev_iomem_scan *s = arg;

	s->what = "a range in use by a driver";
	s->start = res->start;
	s->end = res->end;
	return 1;
}

/* what is wrong: the resource tree's view, else @what (or a claim) */
static void nvmev_explain_reservation(struct nvmev_dev *dev, const char *what)
{
	u64 end = dev->memmap_start + dev->memmap_size - 1;
	struct nvmev_iomem_scan s = { .at = dev->memmap_start };

	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_MEM, dev->memmap_start,
			    end, &s, nvmev_scan_top);
	if (!s.what && s.at <= end) {
		s.what = "a hole (no resource)";
		s.start = s.at;
		s.end = end;
	}
	if (!s.what)
		walk_iomem_res_desc(IORES_DESC_NONE,
				    IORESOURCE_MEM | IORESOURCE_BUSY,
				    dev->memmap_start, end, &s, nvmev_scan_busy);
	if (!s.what) {
		s.what = what ?: "a range claimed inside the reservation";
		s.start = dev->memmap_start;
		s.end = end;
	}
	pr_err("memmap_start=%s memmap_size=%s is not (entirely) a memmap= reservation: %s at %#llx-%#llx (see /proc/iomem); boot with memmap=%s$%s\n",
	       dev->memmap_start_arg, dev->memmap_size_arg, s.what, s.start,
	       s.end, dev->memmap_size_arg, dev->memmap_start_arg);
}

/*
 * memmap=SIZE$START turns RAM into "Reserved" in the kernel's E820 table;
 * the firmware's own table still has it as RAM. A range the firmware
 * reserved (or did not map) is not memory memmap= set aside. How the
 * kernel lets a module read the firmware's table: nvmev_compat.h.
 */
static bool nvmev_firmware_ram(u64 start, u64 size)
{
	return nvmev_e820_firmware_ram(start, start + size);
}

/*
 * Refuse to touch memory that is not ours: the whole range must lie in one
 * "Reserved" resource (what memmap=SIZE$START makes) with nothing else
 * claimed inside it, and be RAM to the firmware. It is claimed for the
 * module at once: everything after BAR0 busy here (dev->claim), BAR0's
 * 16 KiB by nvmev_pci_create() as the PCI function's BAR (the nvme driver
 * requests that; it could not below a busy parent).
 */
static int nvmev_claim_reservation(struct nvmev_dev *dev)
{
	u64 start = dev->memmap_start, size = dev->memmap_size;
	struct resource *claim, *bar = NULL;
	const char *what = NULL;

	if (region_intersects(start, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_err("memmap_start=%s memmap_size=%s overlaps System RAM: boot with memmap=%s$%s\n",
		       dev->memmap_start_arg, dev->memmap_size_arg,
		       dev->memmap_size_arg, dev->memmap_start_arg);
		return -EINVAL;
	}
	/*
	 * request_mem_region() succeeds only inside non-busy resources and
	 * where nothing else is; its parent tells which resource that is.
	 */
	claim = request_mem_region(start + NVMEV_BAR_SIZE,
				   size - NVMEV_BAR_SIZE, KBUILD_MODNAME);
	if (!claim)
		goto refuse;
	if (claim->parent == &iomem_resource ||
	    claim->parent->desc != IORES_DESC_RESERVED)
		goto err_claim;
	/* BAR0's part: free in the same reservation (nvmev_pci_create()) */
	bar = request_mem_region(start, NVMEV_BAR_SIZE, KBUILD_MODNAME);
	if (!bar || bar->parent != claim->parent)
		goto err_bar;
	if (!nvmev_firmware_ram(start, size)) {
		what = "firmware's reserved memory (memmap= reserves RAM)";
		goto err_bar;
	}
	release_mem_region(start, NVMEV_BAR_SIZE);
	dev->reservation = claim->parent;
	dev->claim = claim;
	return 0;

err_bar:
	if (bar)
		release_mem_region(start, NVMEV_BAR_SIZE);
err_claim:
	release_mem_region(start + NVMEV_BAR_SIZE, size - NVMEV_BAR_SIZE);
refuse:
	nvmev_explain_reservation(dev, what);
	return -EINVAL;
}

/* ---- a memory block taken from the running kernel ---- */

#ifdef CONFIG_MEMORY_HOTREMOVE

/* blocks tried, from the top of RAM down, before giving up */
#define NVMEV_BLOCK_TRIES	16

/*
 * One lock for every drive's block, from the scan to the resource that
 * marks the block ours, and for the give-back: two drives powered on at
 * once would otherwise both pick the same block, and the kernel would be
 * asked to remove it twice.
 */
static DEFINE_MUTEX(nvmev_block_lock);

struct nvmev_block_scan {
	u64 size;			/* memory_block_size_bytes() */
	struct {
		u64 start;
		u64 ram_start, ram_end;	/* its System RAM range */
	} blk[NVMEV_BLOCK_TRIES];	/* the highest blocks, ascending */
	u32 nr;
	u64 back[NVMEV_BLOCK_TRIES];	/* offline ones given back, ascending */
	u32 nr_back;
};

/*
 * A block an unload gave back and nobody onlined: add_memory() made it a
 * System RAM range of its own, and it is offline. The module cannot know
 * its own give-back after a reload; boot RAM (the firmware's table says
 * RAM) removed and added back is what such a block is. It is what to take
 * first: it costs the running kernel nothing, and taking another would
 * leave one more block offline with every reload. Memory a driver
 * manages (virtio-mem, dax/kmem) or hot-plugged (a DIMM, a balloon) is
 * its driver's to online or remove, and is not boot RAM: hot-add puts it
 * in /sys/firmware/memmap (what 7.x reads as the firmware's table), never
 * in the kernel's E820 table.
 */
static bool nvmev_block_given_back(const struct resource *res, u64 size)
{
	return res->end - res->start + 1 == size &&
	       IS_ALIGNED(res->start, size) &&
	       !(res->flags & IORESOURCE_SYSRAM_DRIVER_MANAGED) &&
	       !pfn_to_online_page(PFN_DOWN(res->start)) &&
	       e820__mapped_any(res->start, res->end + 1, E820_TYPE_RAM) &&
	       nvmev_firmware_ram(res->start, size);
}

/* walk_iomem_res_desc(): the whole blocks of a top-level System RAM range */
static int nvmev_note_blocks(struct resource *res, void *arg)
{
	struct nvmev_block_scan *b = arg;
	u64 s;

	if (res->parent != &iomem_resource)	/* kernel code, data, ... */
		return 0;
	if (nvmev_block_given_back(res, b->size)) {
		if (b->nr_back == NVMEV_BLOCK_TRIES) {
			memmove(b->back, b->back + 1,
				sizeof(b->back[0]) * (NVMEV_BLOCK_TRIES - 1));
			b->nr_back--;
		}
		b->back[b->nr_back++] = res->start;
		return 0;
	}
	for (s = ALIGN(res->start, b->size); s + b->size - 1 <= res->end;
	     s += b->size) {
		if (b->nr == NVMEV_BLOCK_TRIES) {
			memmove(b->blk, b->blk + 1,
				sizeof(b->blk[0]) * (NVMEV_BLOCK_TRIES - 1));
			b->nr--;
		}
		b->blk[b->nr].start = s;
		b->blk[b->nr].ram_start = res->start;
		b->blk[b->nr].ram_end = res->end;
		b->nr++;
	}
	return 0;
}

/*
 * Can the block at @i go without leaving its System RAM range behind?
 * Removing it shrinks or splits that range's resource, and the kernel
 * (release_mem_region_adjustable()) can only do so when the range's
 * children - the kernel image, a crash kernel - all stay in the part
 * that remains: below the block, or above it for a block at the range's
 * start. Otherwise it WARNs and keeps the resource: the memory is gone,
 * yet its range still reads as busy System RAM, so neither this module
 * nor add_memory() can use it until reboot. With KASLR the kernel image
 * can sit high in RAM, making every block below it such a block.
 *
 * A block that is its range (one given back by an earlier unload) goes
 * whole, resource and all: a child there would be memory the kernel
 * reserved, which offlining refuses anyway. For the others a probe
 * resource over the part that must hold no child tells: insert_resource()
 * nests it inside the range and moves under it whatever lies there, or
 * fails when something straddles its edge.
 */
static bool nvmev_block_leaves_range(const struct nvmev_block_scan *b, u32 i)
{
	u64 s = b->blk[i].start, e = s + b->size - 1;
	struct resource probe = {
		.name = KBUILD_MODNAME " probe",
		.start = s,
		.end = s == b->blk[i].ram_start ? e : b->blk[i].ram_end,
		.flags = IORESOURCE_MEM,
	};
	bool clear;

	if (s == b->blk[i].ram_start && e == b->blk[i].ram_end)
		return true;
	if (insert_resource(&iomem_resource, &probe))
		return false;
	clear = !READ_ONCE(probe.child) && probe.parent &&
		probe.parent->parent == &iomem_resource;
	remove_resource(&probe);
	return clear;
}

/*
 * Offline and remove the highest memory block that the kernel lets go.
 * The top of RAM is tried first: early boot allocations sit there, but
 * so does little else a running system pins, and a refusal is quick.
 */
static int nvmev_remove_block(struct nvmev_dev *dev,
			      const struct nvmev_block_scan *b)
{
	int ret = -ENOSPC;
	u32 i, stuck = 0;

	for (i = b->nr_back; i-- > 0;) {
		u64 s = b->back[i];

		/* offline pages have no node yet: the one hot-add would use */
		dev->block_nid = memory_add_physaddr_to_nid(s);
		ret = offline_and_remove_memory(s, b->size);
		if (!ret) {
			dev->block_back = true;
			dev->memmap_start = s;
			dev->memmap_size = b->size;
			return 0;
		}
		if (ret == -EINTR)
			goto fail;
	}
	for (i = b->nr; i-- > 0;) {
		u64 s = b->blk[i].start;

		if (region_intersects(s, b->size, IORESOURCE_SYSTEM_RAM,
				      IORES_DESC_NONE) != REGION_INTERSECTS ||
		    !pfn_to_online_page(PFN_DOWN(s)))
			continue;
		if (!nvmev_block_leaves_range(b, i)) {
			stuck++;
			continue;
		}
		dev->block_nid = page_to_nid(pfn_to_page(PFN_DOWN(s)));
		ret = offline_and_remove_memory(s, b->size);
		if (!ret) {
			dev->memmap_start = s;
			dev->memmap_size = b->size;
			return 0;
		}
		if (ret == -EINTR)	/* the user gave up waiting */
			break;
	}
fail:
	pr_err("no memory block of %llu MiB could be taken offline for the registers (%u tried from the top of RAM, %u of them below the kernel image or another resource inside their RAM range, last error %d): load with memmap_start/memmap_size and a memmap= reservation\n",
	       b->size >> 20, b->nr, stuck, ret);
	return ret == -EINTR ? ret : -EBUSY;
}

/* under nvmev_block_lock */
static void nvmev_add_block(struct nvmev_dev *dev)
{
	u64 s = dev->memmap_start, size = dev->memmap_size;
	int ret;

	ret = add_memory(dev->block_nid, s, size, MHP_NONE);
	if (ret)
		pr_err("memory block at %#llx could not be given back (%d): %llu MiB stay unused until reboot\n",
		       s, ret, size >> 20);
	else if (!pfn_to_online_page(PFN_DOWN(s)))
		pr_info("memory block %llu (%llu MiB at %#llx) is back but offline (auto_online_blocks): echo online > /sys/devices/system/memory/memory%llu/state; the next load takes it first\n",
			s / size, size >> 20, s, s / size);
}

static int nvmev_take_block(struct nvmev_dev *dev)
{
	struct nvmev_block_scan b = { .size = memory_block_size_bytes() };
	struct resource *res = &dev->block_res;
	int ret;

	ret = mutex_lock_interruptible(&nvmev_block_lock);
	if (ret)
		return ret;
	walk_iomem_res_desc(IORES_DESC_NONE,
			    IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY, 0, U64_MAX,
			    &b, nvmev_note_blocks);
	ret = nvmev_remove_block(dev, &b);
	if (ret)
		goto out;
	/* the hole it left, ours: not busy, like memmap='s Reserved */
	res->name = KBUILD_MODNAME " registers";
	res->start = dev->memmap_start;
	res->end = dev->memmap_start + dev->memmap_size - 1;
	res->flags = IORESOURCE_MEM;
	ret = insert_resource(&iomem_resource, res);
	if (ret) {
		pr_err("the removed memory block %pR is claimed by another resource\n",
		       res);
		goto err_add;
	}
	dev->claim = request_mem_region(dev->memmap_start + NVMEV_BAR_SIZE,
					dev->memmap_size - NVMEV_BAR_SIZE,
					KBUILD_MODNAME);
	if (!dev->claim || dev->claim->parent != res) {
		pr_err("the removed memory block %pR is in use inside\n", res);
		ret = -EBUSY;
		goto err_claim;
	}
	dev->reservation = res;
	pr_info("registers in memory block %pR, %s node %d\n", res,
		dev->block_back ? "the offline one an unload gave back, of" :
				  "taken offline from", dev->block_nid);
	mutex_unlock(&nvmev_block_lock);
	return 0;

err_claim:
	if (dev->claim)
		release_mem_region(dev->memmap_start + NVMEV_BAR_SIZE,
				   dev->memmap_size - NVMEV_BAR_SIZE);
	dev->claim = NULL;
	release_resource(res);
err_add:
	nvmev_add_block(dev);
out:
	mutex_unlock(&nvmev_block_lock);
	return ret;
}

static void nvmev_give_block(struct nvmev_dev *dev)
{
	mutex_lock(&nvmev_block_lock);
	release_resource(&dev->block_res);
	nvmev_add_block(dev);
	mutex_unlock(&nvmev_block_lock);
}

#else
static int nvmev_take_block(struct nvmev_dev *dev)
{
	pr_err("this kernel cannot hot-remove memory (CONFIG_MEMORY_HOTREMOVE): load with memmap_start/memmap_size and a memmap= reservation\n");
	return -EOPNOTSUPP;
}

static void nvmev_give_block(struct nvmev_dev *dev)
{
}
#endif

int nvmev_bar_mem_claim(struct nvmev_dev *dev)
{
	return dev->block ? nvmev_take_block(dev) :
			    nvmev_claim_reservation(dev);
}

void nvmev_bar_mem_release(struct nvmev_dev *dev)
{
	release_mem_region(dev->memmap_start + NVMEV_BAR_SIZE,
			   dev->memmap_size - NVMEV_BAR_SIZE);
	dev->claim = NULL;
	dev->reservation = NULL;
	if (dev->block)
		nvmev_give_block(dev);
}
