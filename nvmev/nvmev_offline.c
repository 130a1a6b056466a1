// SPDX-License-Identifier: GPL-2.0
/*
 * Memory going offline under a live queue ring.
 *
 * A queue's ring is checked once, at Create (nvmev_host_mem.c), and used
 * until the queue is deleted. Memory a user-level driver's rings live in
 * (hugepages) can be migrated while it runs, when the kernel takes that
 * memory offline (virtio-mem, or this module's own block mode powering on
 * another drive): the ring would move and the controller go on with the
 * old page, free memory or, once removed, no mapping at all. So offlining
 * a range that holds a live ring is refused (a memory notifier), as memory
 * pinned by a real device's DMA would be; while a range is going offline
 * no ring is accepted in it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memory.h>
#include <linux/sched.h>

#include "nvmev.h"

void nvmev_offline_init(struct nvmev_dev *dev)
{
	spin_lock_init(&dev->offline_lock);
	init_completion(&dev->offline_done);
	dev->offline_start = 0;
	dev->offline_end = 0;
	dev->offline_check = false;
}

/* [addr, addr + len) overlaps pfns [start, end) */
static bool nvmev_in_pfns(u64 addr, u64 len, unsigned long start,
			  unsigned long end)
{
	return PHYS_PFN(addr) < end && PHYS_PFN(addr + len - 1) >= start;
}

/* a range going offline has [addr, addr + len) in it */
bool nvmev_offline_holds(struct nvmev_dev *dev, u64 addr, u64 len)
{
	bool in;

	spin_lock(&dev->offline_lock);
	in = nvmev_in_pfns(addr, len, dev->offline_start, dev->offline_end);
	spin_unlock(&dev->offline_lock);
	return in;
}

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
bool nvmev_offline_poll(struct nvmev_dev *dev)
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
int nvmev_offline_watch(struct nvmev_dev *dev)
{
	dev->mem_nb.notifier_call = nvmev_memory_event;
	return register_memory_notifier(&dev->mem_nb);
}

void nvmev_offline_unwatch(struct nvmev_dev *dev)
{
	unregister_memory_notifier(&dev->mem_nb);
}
