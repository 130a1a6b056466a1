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
 *
 * A queue's ring is checked once, at Create, and used until the queue is
 * deleted. Memory a user-level driver's rings live in (hugepages) can be
 * migrated while it runs, when the kernel takes that memory offline: the
 * ring would move and the controller go on with the old page, free memory
 * or, once removed, no mapping at all. So offlining a range that holds a
 * live ring is refused (a memory notifier), as memory pinned by a real
 * device's DMA would be; while a range is going offline no ring is
 * accepted in it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/memory.h>
#include <linux/sched.h>
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
	spin_lock_init(&dev->offline_lock);
	init_completion(&dev->offline_done);
	dev->offline_start = 0;
	dev->offline_end = 0;
	dev->offline_check = false;
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

/* [addr, addr + len) overlaps pfns [start, end) */
static bool nvmev_in_pfns(u64 addr, u64 len, unsigned long start,
			  unsigned long end)
{
	return PHYS_PFN(addr) < end && PHYS_PFN(addr + len - 1) >= start;
}

/* a range going offline has [addr, addr + len) in it */
static bool nvmev_going_offline(struct nvmev_dev *dev, u64 addr, u64 len)
{
	bool in;

	spin_lock(&dev->offline_lock);
	in = nvmev_in_pfns(addr, len, dev->offline_start, dev->offline_end);
	spin_unlock(&dev->offline_lock);
	return in;
}

/* host memory for a queue's ring: the only caller is the ring's Create */
void *nvmev_host_ptr(struct nvmev_dev *dev, u64 addr, u64 len, bool write)
{
	u64 off;

	if (!nvmev_host_host_ram(&dev->host_ram, addr, len) ||
	    nvmev_going_offline(dev, addr, len))
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

/* ---- memory going offline ---- */

/* a live ring [@ring, + @bytes) in pfns [start, end): log it, true */
static bool nvmev_ring_in(struct nvmev_dev *dev, const u8 *ring, u64 bytes,
			  u32 qid, const char *what, unsigned long start,
			  unsigned long end)
{
	u64 addr = virt_to_phys((void *)ring);

	if (!nvmev_in_pfns(addr, bytes, start, end))
		return false;
	pr_warn("%smemory %#llx-%#llx may not go offline: queue %u's %s ring is at %#llx\n",
		dev->tag, (u64)PFN_PHYS(start), (u64)PFN_PHYS(end) - 1, qid,
		what, addr);
	return true;
}

/* a live ring of the controller in pfns [start, end) */
static bool nvmev_rings_in(struct nvmev_dev *dev, unsigned long start,
			   unsigned long end)
{
	const struct nvmev_ctrl *c = &dev->ctrl;
	u32 q;

	for (q = 0; q < NVMEV_MAX_QUEUES; q++) {
		const struct nvmev_sq *sq = &c->sqs[q];
		const struct nvmev_cq *cq = &c->cqs[q];

		if (sq->live &&
		    nvmev_ring_in(dev, sq->ring, (u64)sq->size << NVMEV_SQES,
				  q, "submission", start, end))
			return true;
		if (cq->live &&
		    nvmev_ring_in(dev, cq->ring, (u64)cq->size << NVMEV_CQES,
				  q, "completion", start, end))
			return true;
	}
	return false;
}

/*
 * In the worker, which owns the queues, each pass: a notifier asked
 * whether a live ring lies in the range going offline. A Create later
 * than this pass sees the range in nvmev_host_ptr(). True if it looked.
 */
bool nvmev_host_poll(struct nvmev_dev *dev)
{
	if (likely(!READ_ONCE(dev->offline_check)))
		return false;
	/* the range was written before the flag was set */
	smp_rmb();
	dev->offline_veto = nvmev_rings_in(dev, dev->offline_start,
					   dev->offline_end);
	WRITE_ONCE(dev->offline_check, false);
	complete(&dev->offline_done);
	return true;
}

static void nvmev_set_offline_range(struct nvmev_dev *dev,
				    unsigned long start, unsigned long end)
{
	spin_lock(&dev->offline_lock);
	dev->offline_start = start;
	dev->offline_end = end;
	spin_unlock(&dev->offline_lock);
}

/*
 * The kernel offlines one range at a time (under mem_hotplug_lock), so
 * one range per drive is enough. The worker answers within a pass, or a
 * sleep's length when idle; no answer refuses, to be safe.
 */
static int nvmev_memory_event(struct notifier_block *nb, unsigned long action,
			      void *arg)
{
	struct nvmev_dev *dev = container_of(nb, struct nvmev_dev, mem_nb);
	const struct memory_notify *mn = arg;

	switch (action) {
	case MEM_GOING_OFFLINE:
		nvmev_set_offline_range(dev, mn->start_pfn,
					mn->start_pfn + mn->nr_pages);
		reinit_completion(&dev->offline_done);
		dev->offline_veto = false;
		/* the range and the verdict before the worker sees the flag */
		smp_wmb();
		WRITE_ONCE(dev->offline_check, true);
		wake_up_process(dev->worker);
		if (!wait_for_completion_timeout(&dev->offline_done, 5 * HZ)) {
			pr_warn("%sthe controller thread did not answer: memory %#llx-%#llx may not go offline\n",
				dev->tag, (u64)PFN_PHYS(mn->start_pfn),
				(u64)PFN_PHYS(mn->start_pfn + mn->nr_pages) - 1);
			return notifier_from_errno(-EBUSY);
		}
		/* EBUSY to the writer of the block's state, as pinned pages */
		return dev->offline_veto ? notifier_from_errno(-EBUSY) :
					   NOTIFY_OK;
	case MEM_OFFLINE:
	case MEM_CANCEL_OFFLINE:
		nvmev_set_offline_range(dev, 0, 0);
		return NOTIFY_OK;
	default:
		return NOTIFY_OK;
	}
}

/*
 * While the worker runs: started after it, stopped before it, so that the
 * notifier never waits for a thread that is gone.
 */
int nvmev_host_watch(struct nvmev_dev *dev)
{
	dev->mem_nb.notifier_call = nvmev_memory_event;
	return register_memory_notifier(&dev->mem_nb);
}

void nvmev_host_unwatch(struct nvmev_dev *dev)
{
	unregister_memory_notifier(&dev->mem_nb);
}
