// SPDX-License-Identifier: GPL-2.0
/*
 * Controller core: BAR registers, queues, doorbells, completion posting
 * and the worker thread that drives them.
 *
 * One kthread owns all controller state. It polls the register page and
 * the doorbells, executes commands (copying data at once), and posts each
 * completion when the flash model says it is due. When nothing happens it
 * backs off from spinning to sleeps of growing length, so an idle device
 * costs almost no CPU; a due completion always ends a sleep on time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "nvmev.h"

#define NVMEV_SQ_BUDGET		64	/* commands per SQ per pass */
#define NVMEV_SLEEP_MIN_US	5
/* after a second without commands, sleeps may grow 10 x longer */
#define NVMEV_DEEP_IDLE_NS	NSEC_PER_SEC
#define NVMEV_DEEP_IDLE_FACTOR	10

static void __iomem *reg(struct nvmev_dev *dev, u32 off)
{
	return dev->bar + off;
}

/* ---- completion heap, ordered by (due_ns, seq) ---- */

static bool done_before(const struct nvmev_done *a, const struct nvmev_done *b)
{
	return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void done_sift_down(struct nvmev_dev *dev, u32 i)
{
	struct nvmev_done *h = dev->done;

	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, m = i;

		if (l < dev->nr_done && done_before(&h[l], &h[m]))
			m = l;
		if (r < dev->nr_done && done_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		swap(h[i], h[m]);
		i = m;
	}
}

static void done_pop(struct nvmev_dev *dev)
{
	dev->done[0] = dev->done[--dev->nr_done];
	done_sift_down(dev, 0);
}

/*
 * Queue the completion of command @cid from SQ @sqid for @due_ns. A host
 * can have at most size - 1 commands of a queue in flight, and the heap
 * has a slot for every entry of every possible queue.
 */
void nvmev_complete(struct nvmev_dev *dev, u16 sqid, u16 cid, u16 status,
		    u32 result, u64 due_ns)
{
	struct nvmev_sq *sq = &dev->sqs[sqid];
	struct nvmev_done *e;
	u32 i;

	if (dev->nr_done == NVMEV_DONE_SLOTS) {
		pr_warn_ratelimited("completion heap full, dropping cid %u\n", cid);
		return;
	}
	i = dev->nr_done++;
	e = &dev->done[i];
	memset(e, 0, sizeof(*e));
	e->due_ns = due_ns;
	e->seq = dev->seq++;
	e->cqid = sq->cqid;
	e->cqe.result.u32 = cpu_to_le32(result);
	e->cqe.sq_id = cpu_to_le16(sqid);
	e->cqe.command_id = cid;
	e->cqe.status = cpu_to_le16(status << 1);
	while (i && done_before(&dev->done[i], &dev->done[(i - 1) / 2])) {
		swap(dev->done[i], dev->done[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

/* ---- queues ---- */

static void *host_mem(u64 addr)
{
	return pfn_valid(PHYS_PFN(addr)) ? phys_to_virt(addr) : NULL;
}

/* every page of a contiguous host queue must be RAM we can address */
static void *host_queue(u64 addr, u64 bytes)
{
	u64 off;

	if (!addr || !IS_ALIGNED(addr, PAGE_SIZE))
		return NULL;
	for (off = 0; off < bytes; off += PAGE_SIZE)
		if (!host_mem(addr + off))
			return NULL;
	return phys_to_virt(addr);
}

bool nvmev_cq_create(struct nvmev_dev *dev, u16 qid, u64 addr, u32 size,
		     bool ien, u16 vector)
{
	struct nvmev_cq *cq = &dev->cqs[qid];
	void *ring = host_queue(addr, (u64)size * sizeof(struct nvme_completion));

	if (!ring)
		return false;
	memset(cq, 0, sizeof(*cq));
	cq->ring = ring;
	cq->qid = qid;
	cq->size = size;
	cq->phase = 1;
	cq->irq_enabled = ien;
	cq->vector = vector;
	cq->live = true;
	writel(0, &dev->dbs[2 * qid + 1]);
	return true;
}

bool nvmev_sq_create(struct nvmev_dev *dev, u16 qid, u64 addr, u32 size,
		     u16 cqid)
{
	struct nvmev_sq *sq = &dev->sqs[qid];
	void *ring = host_queue(addr, (u64)size * sizeof(struct nvme_command));

	if (!ring)
		return false;
	memset(sq, 0, sizeof(*sq));
	sq->ring = ring;
	sq->qid = qid;
	sq->size = size;
	sq->cqid = cqid;
	sq->live = true;
	dev->cqs[cqid].nr_sqs++;
	writel(0, &dev->dbs[2 * qid]);
	return true;
}

void nvmev_sq_delete(struct nvmev_dev *dev, u16 qid)
{
	struct nvmev_sq *sq = &dev->sqs[qid];

	if (!sq->live)
		return;
	dev->cqs[sq->cqid].nr_sqs--;
	sq->live = false;
}

void nvmev_cq_delete(struct nvmev_dev *dev, u16 qid)
{
	dev->cqs[qid].live = false;
}

/* ---- registers ---- */

static void nvmev_ctrl_reset(struct nvmev_dev *dev)
{
	int q;

	for (q = NVMEV_MAX_QUEUES - 1; q >= 0; q--) {
		nvmev_sq_delete(dev, q);
		nvmev_cq_delete(dev, q);
	}
	dev->nr_done = 0;
	dev->nr_aers = 0;
	dev->nr_io_queues = 0;
	dev->coalesce_thr = 0;
	dev->coalesce_time_us = 0;
	bitmap_zero(dev->vector_no_coalesce, NVMEV_MAX_QUEUES);
	dev->vwc = true;
	dev->ns.hints_enabled = false;	/* a host enables hints after each reset */
}

static void nvmev_ctrl_fail(struct nvmev_dev *dev, const char *why)
{
	pr_warn("controller fatal status: %s\n", why);
	writel(readl(reg(dev, NVME_REG_CSTS)) | NVME_CSTS_CFS,
	       reg(dev, NVME_REG_CSTS));
}

static void nvmev_ctrl_enable(struct nvmev_dev *dev)
{
	u32 aqa = readl(reg(dev, NVME_REG_AQA));
	u64 asq = lo_hi_readq(reg(dev, NVME_REG_ASQ));
	u64 acq = lo_hi_readq(reg(dev, NVME_REG_ACQ));
	u32 sqs = (aqa & 0xfff) + 1, cqs = ((aqa >> 16) & 0xfff) + 1;
	u32 cc = dev->cc;

	if (((cc >> NVME_CC_MPS_SHIFT) & 0xf) != 0 ||
	    (cc & NVME_CC_CSS_MASK) != NVME_CC_CSS_NVM) {
		nvmev_ctrl_fail(dev, "CC.MPS or CC.CSS not supported");
		return;
	}
	if (sqs < 2 || cqs < 2 || !nvmev_cq_create(dev, 0, acq, cqs, true, 0) ||
	    !nvmev_sq_create(dev, 0, asq, sqs, 0)) {
		nvmev_ctrl_reset(dev);
		nvmev_ctrl_fail(dev, "bad admin queue attributes or addresses");
		return;
	}
	writel(NVME_CSTS_RDY, reg(dev, NVME_REG_CSTS));
}

/* React to a host write of CC. Returns true when something changed. */
static bool nvmev_poll_registers(struct nvmev_dev *dev)
{
	u32 cc = readl(reg(dev, NVME_REG_CC));
	u32 old = dev->cc;

	if (cc == old)
		return false;
	dev->cc = cc;
	if ((cc & NVME_CC_SHN_MASK) && !(old & NVME_CC_SHN_MASK)) {
		writel((readl(reg(dev, NVME_REG_CSTS)) & ~NVME_CSTS_SHST_MASK) |
		       NVME_CSTS_SHST_CMPLT, reg(dev, NVME_REG_CSTS));
	}
	if ((cc & NVME_CC_ENABLE) && !(old & NVME_CC_ENABLE)) {
		nvmev_ctrl_enable(dev);
	} else if (!(cc & NVME_CC_ENABLE) && (old & NVME_CC_ENABLE)) {
		nvmev_ctrl_reset(dev);
		writel(0, reg(dev, NVME_REG_CSTS));
	}
	return true;
}

/* ---- submission ---- */

static int nvmev_poll_sq(struct nvmev_dev *dev, struct nvmev_sq *sq)
{
	u32 tail = readl(&dev->dbs[2 * sq->qid]);
	int n = 0;

	if (tail >= sq->size) {
		dev->stats.bad_doorbells++;
		return 0;
	}
	/* the SQ entries were written before the doorbell */
	rmb();
	while (sq->head != tail && n < NVMEV_SQ_BUDGET) {
		struct nvme_command cmd;

		memcpy(&cmd, &sq->ring[sq->head], sizeof(cmd));
		sq->head = (sq->head + 1) % sq->size;
		if (sq->qid == 0)
			nvmev_admin_execute(dev, &cmd);
		else
			nvmev_io_execute(dev, sq->qid, &cmd);
		n++;
	}
	return n;
}

static int nvmev_poll_sqs(struct nvmev_dev *dev)
{
	int q, n = 0;

	for (q = 0; q < NVMEV_MAX_QUEUES; q++) {
		struct nvmev_cq *cq = &dev->cqs[q];
		u32 head;

		if (cq->live) {
			head = readl(&dev->dbs[2 * q + 1]);
			if (head < cq->size)
				cq->head = head;
			else
				dev->stats.bad_doorbells++;
		}
		if (dev->sqs[q].live)
			n += nvmev_poll_sq(dev, &dev->sqs[q]);
		if (!(dev->cc & NVME_CC_ENABLE))
			break;		/* a command reset the controller */
	}
	return n;
}

/* ---- completion ---- */

static bool nvmev_coalesced(struct nvmev_dev *dev, struct nvmev_cq *cq)
{
	return cq->qid && (dev->coalesce_thr || dev->coalesce_time_us) &&
	       !test_bit(cq->vector, dev->vector_no_coalesce);
}

static void nvmev_post(struct nvmev_dev *dev, struct nvmev_cq *cq,
		       struct nvmev_done *e)
{
	struct nvme_completion *slot = &cq->ring[cq->tail];
	u32 *dst = (u32 *)slot, *src = (u32 *)&e->cqe;

	e->cqe.sq_head = cpu_to_le16(dev->sqs[le16_to_cpu(e->cqe.sq_id)].head);
	e->cqe.status |= cpu_to_le16(cq->phase);
	WRITE_ONCE(dst[0], src[0]);
	WRITE_ONCE(dst[1], src[1]);
	WRITE_ONCE(dst[2], src[2]);
	/* the phase tag says "valid": it must be the last thing the host sees */
	dma_wmb();
	WRITE_ONCE(dst[3], src[3]);
	if (++cq->tail == cq->size) {
		cq->tail = 0;
		cq->phase ^= 1;
	}
}

/* Post every due completion; returns how many. */
static int nvmev_post_due(struct nvmev_dev *dev, u64 now,
			  unsigned long *irq_vectors)
{
	int n = 0;

	while (dev->nr_done && dev->done[0].due_ns <= now) {
		struct nvmev_done *e = &dev->done[0];
		struct nvmev_cq *cq = &dev->cqs[e->cqid];
		u64 late;

		if (!cq->live) {
			done_pop(dev);
			continue;
		}
		if ((cq->tail + 1) % cq->size == cq->head) {
			/* CQ full: retry this entry once the host reaps */
			dev->stats.cq_full_waits++;
			e->due_ns = now + NSEC_PER_USEC;
			done_sift_down(dev, 0);
			break;
		}
		nvmev_post(dev, cq, e);
		/* the emulator's own timing error, for the user to check */
		late = now - e->due_ns;
		dev->stats.posted++;
		dev->stats.post_late_ns += late;
		dev->stats.post_late_max_ns = max(dev->stats.post_late_max_ns, late);
		done_pop(dev);
		n++;
		if (!cq->irq_enabled)
			continue;
		if (!nvmev_coalesced(dev, cq)) {
			__set_bit(cq->vector, irq_vectors);
			continue;
		}
		if (!cq->irq_pending++)
			cq->irq_first_ns = now;
		if (cq->irq_pending > dev->coalesce_thr)
			__set_bit(cq->vector, irq_vectors);
	}
	return n;
}

/* Coalescing time limits; returns the earliest pending deadline. */
static u64 nvmev_irq_deadlines(struct nvmev_dev *dev, u64 now,
			       unsigned long *irq_vectors)
{
	u64 next = U64_MAX;
	int q;

	for (q = 1; q < NVMEV_MAX_QUEUES; q++) {
		struct nvmev_cq *cq = &dev->cqs[q];
		u64 due;

		if (!cq->live || !cq->irq_pending)
			continue;
		due = cq->irq_first_ns + dev->coalesce_time_us * NSEC_PER_USEC;
		if (due <= now || test_bit(cq->vector, irq_vectors))
			__set_bit(cq->vector, irq_vectors);
		else
			next = min(next, due);
	}
	return next;
}

static void nvmev_raise(struct nvmev_dev *dev, unsigned long *irq_vectors)
{
	int q, v;

	for (q = 0; q < NVMEV_MAX_QUEUES; q++)
		if (dev->cqs[q].live && test_bit(dev->cqs[q].vector, irq_vectors))
			dev->cqs[q].irq_pending = 0;
	for_each_set_bit(v, irq_vectors, NVMEV_MAX_QUEUES)
		nvmev_pci_signal(dev, v);
}

/* ---- worker ---- */

/*
 * Sleep @ns. The timer slack is kept to a few microseconds: a sleep that
 * ends at a completion's due time must not post it late.
 */
static void nvmev_idle_sleep(u64 ns)
{
	ktime_t t = ns_to_ktime(ns);

	set_current_state(TASK_INTERRUPTIBLE);
	schedule_hrtimeout_range(&t, min_t(u64, ns / 8, 2 * NSEC_PER_USEC),
				 HRTIMER_MODE_REL);
}

static int nvmev_worker(void *arg)
{
	struct nvmev_dev *dev = arg;
	u64 last_work = ktime_get_ns(), sleep_ns = NVMEV_SLEEP_MIN_US * 1000ull;

	while (!kthread_should_stop()) {
		DECLARE_BITMAP(irq_vectors, NVMEV_MAX_QUEUES);
		u64 now = ktime_get_ns(), next, max_ns;
		int work = 0;

		bitmap_zero(irq_vectors, NVMEV_MAX_QUEUES);
		if (nvmev_poll_registers(dev))
			work++;
		if (dev->cc & NVME_CC_ENABLE)
			work += nvmev_poll_sqs(dev);
		now = ktime_get_ns();
		work += nvmev_post_due(dev, now, irq_vectors);
		next = nvmev_irq_deadlines(dev, now, irq_vectors);
		nvmev_raise(dev, irq_vectors);
		if (dev->nr_done)
			next = min(next, dev->done[0].due_ns);

		if (work) {
			last_work = now;
			sleep_ns = NVMEV_SLEEP_MIN_US * 1000ull;
			cond_resched();
			continue;
		}
		if (now - last_work < dev->spin_us * NSEC_PER_USEC &&
		    next > now + NSEC_PER_USEC) {
			cpu_relax();
			cond_resched();
			continue;
		}
		/* idle: let the model use the time, then sleep */
		mutex_lock(&dev->model_lock);
		ftl_idle(dev->ftl, now);
		mutex_unlock(&dev->model_lock);
		if (next <= now + NSEC_PER_USEC) {
			cond_resched();
			continue;
		}
		nvmev_idle_sleep(min(next - now, sleep_ns));
		max_ns = dev->sleep_max_us * NSEC_PER_USEC;
		if (now - last_work > NVMEV_DEEP_IDLE_NS)
			max_ns *= NVMEV_DEEP_IDLE_FACTOR;
		sleep_ns = min(sleep_ns * 2, max_ns);
	}
	return 0;
}

int nvmev_ctrl_start(struct nvmev_dev *dev)
{
	u64 cap;

	/* room for every entry of the largest possible set of queues */
	dev->done = kvcalloc(NVMEV_DONE_SLOTS, sizeof(*dev->done), GFP_KERNEL);
	if (!dev->done)
		return -ENOMEM;

	memset_io(dev->bar, 0, NVMEV_BAR_SIZE);
	dev->dbs = (u32 __iomem *)(dev->bar + NVME_REG_DBS);
	cap = NVMEV_MQES |			/* MQES */
	      (1ull << 16) |			/* CQR: contiguous queues */
	      (20ull << 24) |			/* TO: 10 s */
	      (1ull << 37);			/* CSS: NVM command set */
	lo_hi_writeq(cap, reg(dev, NVME_REG_CAP));
	writel(NVME_VS(1, 4, 0), reg(dev, NVME_REG_VS));
	dev->cc = 0;
	nvmev_ctrl_reset(dev);

	dev->worker = kthread_create(nvmev_worker, dev, "nvmev");
	if (IS_ERR(dev->worker)) {
		int ret = PTR_ERR(dev->worker);

		dev->worker = NULL;
		kvfree(dev->done);
		dev->done = NULL;
		return ret;
	}
	if (dev->cpu >= 0)
		kthread_bind(dev->worker, dev->cpu);
	wake_up_process(dev->worker);
	return 0;
}

void nvmev_ctrl_stop(struct nvmev_dev *dev)
{
	if (dev->worker)
		kthread_stop(dev->worker);
	dev->worker = NULL;
	kvfree(dev->done);
	dev->done = NULL;
}
