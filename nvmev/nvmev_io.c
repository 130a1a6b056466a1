// SPDX-License-Identifier: GPL-2.0
/*
 * NVM command set and data movement.
 *
 * Data is copied between the host's PRP pages and the namespace's store
 * (nvmev_store.c) when the command is fetched; the flash model then says
 * when its completion is due.
 *
 * What a block reads as follows the model's mapping, not the storage: a
 * 4 KiB unit the model has not mapped (never written since the load, or
 * deallocated) reads as zeroes (Identify Namespace DLFEAT=1), whatever the
 * memmap= reservation kept from before. So a load costs nothing, a
 * deallocation model time (and, page-backed, freeing pages), and storage
 * bytes matter only in mapped
 * units: a write that maps a unit in part zeroes the rest of it first, a
 * deallocation of part of a mapped unit zeroes that part.
 *
 * Dataset Management and Write Zeroes may cover the namespace many times
 * over. What is not done at once is held in dev->trims and continued a
 * slice per worker pass (nvmev_io_background()), so the other queues are
 * served meanwhile; it completes, no earlier than the model said, when
 * the last unit is deallocated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "nvmev.h"
#include "nvmev_fdp.h"

/* the parser reads the host's entry as 16 dwords */
static_assert(sizeof(struct nvmev_sqe) == sizeof(struct nvme_command));

/*
 * Units of deallocation work (a 4 KiB unit, a partial unit or a range)
 * done when the command is fetched -- as many as a 1 MiB read moves -- and
 * in each later worker pass.
 */
#define NVMEV_TRIM_INLINE	(NVMEV_MAX_XFER / FTL_MAP_UNIT)
#define NVMEV_TRIM_SLICE	4096

static u16 ftl_status(int ret)
{
	switch (ret) {
	case FTL_OK:
		return NVME_SC_SUCCESS;
	case FTL_ERR_RANGE:
		return NVME_SC_LBA_RANGE | NVME_STATUS_DNR;
	case FTL_ERR_NO_SPACE:
		return NVME_SC_CAP_EXCEEDED | NVME_STATUS_DNR;
	default:
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	}
}

/*
 * Run @c through the model at now (a trim: its timing only, see
 * ftl_trim_begin()); returns the completion time.
 */
static u16 nvmev_model_cmd(struct nvmev_dev *dev, const struct ftl_cmd *c, u64 *due)
{
	int ret;

	mutex_lock(&dev->model_lock);
	if (c->op == FTL_OP_TRIM)
		ret = ftl_trim_begin(dev->ftl, c, ktime_get_ns(), due);
	else
		ret = ftl_submit(dev->ftl, c, ktime_get_ns(), due);
	mutex_unlock(&dev->model_lock);
	return ftl_status(ret);
}

/*
 * The worker is the only thread that changes the mapping, so it reads it
 * without the model lock.
 */
static bool nvmev_unit_mapped(struct nvmev_dev *dev, u64 unit)
{
	bool mapped;

	ftl_mapped_run(dev->ftl, unit, 1, &mapped);
	return mapped;
}

/* A Read: the store's bytes for mapped units, zeroes for the others. */
static u16 nvmev_read_data(struct nvmev_dev *dev, const struct nvmev_io_req *req)
{
	u64 off = req->model.off, len = req->model.len;
	u64 first = off >> FTL_MAP_SHIFT;
	u64 end = (off + len + FTL_MAP_UNIT - 1) >> FTL_MAP_SHIFT;
	u64 unit, run;
	bool mapped;

	run = ftl_mapped_run(dev->ftl, first, end - first, &mapped);
	if (run < end - first) {
		/* some units unmapped: what their storage holds is nobody's */
		for (unit = first; unit < end; unit += run) {
			run = ftl_mapped_run(dev->ftl, unit, end - unit, &mapped);
			if (!mapped)
				nvmev_store_zero_units(dev, unit, run);
		}
	} else if (!mapped) {
		return nvmev_prp_copy(dev, req->prp1, req->prp2, dev->zeroes,
				      len, true);
	}
	return nvmev_prp_copy_store(dev, req->prp1, req->prp2, off, len, true);
}

/*
 * A Write that covers part of a unit nobody wrote: the rest of the unit
 * reads as zeroes once the model maps it, so the storage must hold them.
 */
static void nvmev_zero_unwritten_edges(struct nvmev_dev *dev, u64 off, u64 len)
{
	u64 head = off & (FTL_MAP_UNIT - 1), end = off + len;
	u64 tail = end & (FTL_MAP_UNIT - 1);

	if (head && !nvmev_unit_mapped(dev, off >> FTL_MAP_SHIFT))
		nvmev_store_zero(dev, off - head, head);
	if (tail && !nvmev_unit_mapped(dev, end >> FTL_MAP_SHIFT))
		nvmev_store_zero(dev, end, FTL_MAP_UNIT - tail);
}

/* once per load: which limit a failed write met, and what to raise */
static void nvmev_store_full(struct nvmev_dev *dev)
{
	struct nvmev_store *s = &dev->store;

	u64 held = (s->nr_pages << FTL_MAP_SHIFT) >> 20;

	if (s->full_writes++)
		return;
	if (s->nr_pages >= s->max_pages)
		pr_warn("a write failed with Capacity Exceeded: the data holds its cap of %llu MiB; raise data_max_mib, or deallocate\n",
			held);
	else
		pr_warn("a write failed with Capacity Exceeded: the kernel had no free page (%llu MiB of data held); free memory, or lower data_max_mib\n",
			held);
}

/*
 * A write that failed: the pages taken for [@off, @end) of units the
 * model has not mapped hold nothing, and go back (they count against
 * data_max_mib, which every namespace shares).
 */
static void nvmev_store_unprepare(struct nvmev_dev *dev, u64 off, u64 end)
{
	u64 unit;

	if (dev->store.linear)
		return;
	for (unit = off >> FTL_MAP_SHIFT; unit << FTL_MAP_SHIFT < end; unit++)
		if (!nvmev_unit_mapped(dev, unit))
			nvmev_store_drop(dev, unit, 1);
}

/*
 * A page for every unit a write covers, before a byte of it moves: a
 * write that cannot have them all changes nothing, and what the drive
 * held stays readable.
 */
static u16 nvmev_store_prepare(struct nvmev_dev *dev, u64 off, u64 len)
{
	u64 pos = off, end = off + len;
	u32 n;

	if (dev->store.linear)
		return NVME_SC_SUCCESS;
	while (pos < end) {
		n = min_t(u64, end - pos, FTL_MAP_UNIT);
		if (!nvmev_store_at(dev, pos, &n, true)) {
			nvmev_store_unprepare(dev, off, pos);
			nvmev_store_full(dev);
			return NVME_SC_CAP_EXCEEDED | NVME_STATUS_DNR;
		}
		pos += n;
	}
	return NVME_SC_SUCCESS;
}

u16 nvmev_io_flush(struct nvmev_dev *dev, u16 sqid,
		   struct nvmev_io_req *req, u64 *due)
{
	return nvmev_model_cmd(dev, &req->model, due);
}

/*
 * A Write: the PRPs walked and a page for every unit taken before the
 * model places it, and the data copied only once it has: a write that
 * fails at any step leaves the blocks' old data, and the store's pages,
 * as they were (a list that breaks off part-way, no page, no flash).
 */
static u16 nvmev_write_data(struct nvmev_dev *dev,
			    const struct nvmev_io_req *req, u64 *due)
{
	u64 off = req->model.off, len = req->model.len;
	u16 status;

	status = nvmev_prp_check_host(dev, req->prp1, req->prp2, len, false);
	if (!status)
		status = nvmev_store_prepare(dev, off, len);
	if (status)
		return status;
	/* while the model still says which units hold nothing */
	nvmev_zero_unwritten_edges(dev, off, len);
	status = nvmev_model_cmd(dev, &req->model, due);
	if (!status)
		status = nvmev_prp_copy_store(dev, req->prp1, req->prp2, off,
					      len, false);
	if (status)
		nvmev_store_unprepare(dev, off, off + len);
	return status;
}

/* A Read's or Write's data moved and timed, counted for its namespace. */
u16 nvmev_io_data(struct nvmev_dev *dev, const struct nvmev_io_req *req,
		  bool write, u64 *due)
{
	struct nvmev_ns_stats *st = &dev->ns_stats[req->nsid - 1];
	u64 sectors = req->model.len >> 9;
	u16 status;

	if (write)
		status = nvmev_write_data(dev, req, due);
	else
		status = nvmev_read_data(dev, req);
	if (!status && !write)
		status = nvmev_model_cmd(dev, &req->model, due);
	if (status)
		return status;
	if (write) {
		st->writes++;
		st->write_sectors += sectors;
	} else {
		st->reads++;
		st->read_sectors += sectors;
	}
	if (req->hint_bits_ignored)
		dev->stats.hint_bits_disabled++;
	return NVME_SC_SUCCESS;
}

/* a Read or Write of an NVM namespace (a zoned one's: nvmev_zoned.c) */
u16 nvmev_io_rw(struct nvmev_dev *dev, u16 sqid,
		struct nvmev_io_req *req, u64 *due)
{
	bool write = req->opcode == nvme_cmd_write;
	u16 status = nvmev_io_data(dev, req, write, due);

	if (!status && write)
		nvmev_fdp_write_done(dev, req);
	return status;
}

/* ---- deallocation, in slices ---- */

/*
 * Deallocate from *@off towards @end, at most @budget (> 0) units; returns
 * the work done. Part of a unit stays mapped in the model: if it is, that
 * part of its storage is zeroed.
 */
static u64 nvmev_dealloc_some(struct nvmev_dev *dev, u64 *off, u64 end, u64 budget)
{
	u64 unit = *off >> FTL_MAP_SHIFT, n;
	u64 unit_end = (unit + 1) << FTL_MAP_SHIFT;

	if ((*off & (FTL_MAP_UNIT - 1)) || end < unit_end) {
		u64 stop = min(end, unit_end);

		if (nvmev_unit_mapped(dev, unit))
			nvmev_store_zero(dev, *off, stop - *off);
		*off = stop;
		return 1;
	}
	n = min(budget, (end - *off) >> FTL_MAP_SHIFT);
	mutex_lock(&dev->model_lock);
	ftl_unmap(dev->ftl, unit, n);
	mutex_unlock(&dev->model_lock);
	nvmev_store_drop(dev, unit, n);
	*off += n << FTL_MAP_SHIFT;
	return n;
}

/* Work on @t for about @budget units; true when nothing is left of it. */
static bool nvmev_trim_step(struct nvmev_dev *dev, struct nvmev_trim *t, u64 budget)
{
	u64 used = 0, len;

	while (used < budget) {
		if (t->off < t->end) {
			used += nvmev_dealloc_some(dev, &t->off, t->end, budget - used);
		} else if (t->next < t->nr) {
			nvmev_dsm_range(t->ns, t->ranges, t->next++, &t->off,
					&len);
			t->end = t->off + len;
			used++;
		} else {
			return true;
		}
	}
	return t->off == t->end && t->next == t->nr;
}

static void nvmev_trim_complete(struct nvmev_dev *dev, struct nvmev_trim *t,
				u16 status)
{
	kfree(t->ranges);
	/* an abort for a deleted SQ is not an error of the command */
	if (status && status != NVME_SC_ABORT_QUEUE)
		nvmev_errlog_add(dev, t->sqid, t->cid, t->nsid, status, 0,
				 NVMEV_ERR_LOC_NONE);
	nvmev_ctrl_complete(&dev->ctrl, t->sqid, t->cid, status, 0, t->due_ns);
}

/*
 * Carry out @t, which the model has timed: at once if it is short, else
 * held for the worker's passes. nvmev_io_ready() kept the command in its
 * SQ until a slot was free, so there is one: the work is never done here
 * in one go while the other queues, and the host's CC, wait for it.
 * Completes the command either way.
 */
static void nvmev_trim_run(struct nvmev_dev *dev, struct nvmev_trim *t)
{
	if (t->status) {
		dev->stats.io_errors++;
		dev->ns_stats[t->nsid - 1].errors++;
	}
	if (nvmev_trim_step(dev, t, NVMEV_TRIM_INLINE)) {
		nvmev_trim_complete(dev, t, t->status);
		return;
	}
	if (WARN_ON_ONCE(dev->nr_trims >= NVMEV_HELD_TRIMS)) {
		nvmev_trim_complete(dev, t, NVME_SC_INTERNAL);
		return;
	}
	dev->trims[dev->nr_trims++] = *t;
}

/*
 * A command that may deallocate (Dataset Management, Write Zeroes) waits
 * in its SQ while every held slot is taken: the slots drain a slice per
 * worker pass, and the SQs of other commands are fetched meanwhile.
 */
bool nvmev_io_ready(struct nvmev_dev *dev, const struct nvmev_sqe *sqe)
{
	return dev->nr_trims < NVMEV_HELD_TRIMS || !nvmev_io_may_hold(sqe);
}

/*
 * A Write Zeroes timed in the model: *@t its deallocation, nothing of it
 * if the model failed it (t->status). nvmev_io_zeroes_run() carries it out.
 */
void nvmev_io_zeroes_begin(struct nvmev_dev *dev, u16 sqid,
			   const struct nvmev_io_req *req, struct nvmev_trim *t)
{
	*t = (struct nvmev_trim) {
		.sqid = sqid,
		.cid = req->cid,
		.nsid = req->nsid,
		.ns = req->ns,
		.off = req->model.off,
		.end = req->model.off + req->model.len,
	};
	t->status = nvmev_model_cmd(dev, &req->model, &t->due_ns);
	if (t->status)
		t->end = t->off;
}

/* ... deallocated (it reads as zeroes), in slices if it is long */
u16 nvmev_io_zeroes_run(struct nvmev_dev *dev, struct nvmev_trim *t)
{
	nvmev_trim_run(dev, t);
	return NVMEV_SC_HELD;
}

/* the data of an NVM namespace deallocated (a zoned one's: nvmev_zoned.c) */
u16 nvmev_io_write_zeroes(struct nvmev_dev *dev, u16 sqid,
			  struct nvmev_io_req *req, u64 *due)
{
	struct nvmev_trim t;

	nvmev_io_zeroes_begin(dev, sqid, req, &t);
	return nvmev_io_zeroes_run(dev, &t);
}

/* Fetch and check the ranges, time them in the model, then deallocate. */
u16 nvmev_io_dsm(struct nvmev_dev *dev, u16 sqid,
		 struct nvmev_io_req *req, u64 *due)
{
	const struct nvmev_ns *ns = req->ns;
	struct nvmev_trim t = {
		.sqid = sqid,
		.cid = req->cid,
		.nsid = req->nsid,
		.ns = ns,
		.due_ns = ktime_get_ns(),
	};
	u32 nr = req->nr_ranges, i;

	if (nr)				/* else access hints only */
		t.ranges = kmalloc_array(nr, NVMEV_DSM_RANGE_BYTES, GFP_KERNEL);
	if (nr && !t.ranges)
		t.status = NVME_SC_INTERNAL;
	else if (nr)
		t.status = nvmev_prp_copy(dev, req->prp1, req->prp2, t.ranges,
					  nr * NVMEV_DSM_RANGE_BYTES, false);
	/* every range is checked before any is deallocated */
	if (!t.status)
		t.status = nvmev_dsm_check(ns, t.ranges, nr);
	for (i = 0; !t.status && i < nr; i++) {
		struct ftl_cmd c = { .op = FTL_OP_TRIM };
		u64 range_due;

		nvmev_dsm_range(ns, t.ranges, i, &c.off, &c.len);
		if (!c.len)
			continue;
		t.status = nvmev_model_cmd(dev, &c, &range_due);
		t.due_ns = max(t.due_ns, range_due);
	}
	/* a command that fails deallocates nothing */
	t.nr = t.status ? 0 : nr;
	nvmev_trim_run(dev, &t);
	return NVMEV_SC_HELD;
}

int nvmev_io_background(struct nvmev_dev *dev)
{
	struct nvmev_trim t;

	if (!dev->nr_trims)
		return 0;
	/* round robin: a slice of the first, which then goes last */
	t = dev->trims[0];
	dev->nr_trims--;
	memmove(&dev->trims[0], &dev->trims[1],
		dev->nr_trims * sizeof(dev->trims[0]));
	if (nvmev_trim_step(dev, &t, NVMEV_TRIM_SLICE))
		nvmev_trim_complete(dev, &t, t.status);
	else
		dev->trims[dev->nr_trims++] = t;
	return 1;
}

void nvmev_io_sq_deleted(struct nvmev_dev *dev, u16 sqid)
{
	u32 i, kept = 0;

	for (i = 0; i < dev->nr_trims; i++) {
		if (dev->trims[i].sqid == sqid)
			nvmev_trim_complete(dev, &dev->trims[i], NVME_SC_ABORT_QUEUE);
		else
			dev->trims[kept++] = dev->trims[i];
	}
	dev->nr_trims = kept;
}

/*
 * Namespace @nsid's slice [@off, @end) of the flash is the drive's again
 * (a Namespace Management delete): its held deallocations finish now,
 * then all of the slice is deallocated, so that a namespace made there
 * later reads zeroes, never what this one held.
 */
void nvmev_io_ns_release(struct nvmev_dev *dev, u32 nsid, u64 off, u64 end)
{
	u32 i = 0;

	while (i < dev->nr_trims) {
		struct nvmev_trim t = dev->trims[i];

		if (t.nsid != nsid) {
			i++;
			continue;
		}
		dev->trims[i] = dev->trims[--dev->nr_trims];
		while (!nvmev_trim_step(dev, &t, NVMEV_TRIM_SLICE))
			cond_resched();
		nvmev_trim_complete(dev, &t, t.status);
	}
	while (off < end) {
		nvmev_dealloc_some(dev, &off, end, NVMEV_TRIM_SLICE);
		cond_resched();
	}
}

void nvmev_io_reset(struct nvmev_dev *dev)
{
	while (dev->nr_trims)
		kfree(dev->trims[--dev->nr_trims].ranges);
}

int nvmev_io_init(struct nvmev_dev *dev)
{
	u32 i, n = NVMEV_MAX_XFER >> PAGE_SHIFT;
	struct page **pages;

	/* the zero page, over and over: a read of unmapped units copies it */
	pages = kmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		pages[i] = ZERO_PAGE(0);
	dev->zeroes = vmap(pages, n, VM_MAP, PAGE_KERNEL_RO);
	kfree(pages);
	return dev->zeroes ? 0 : -ENOMEM;
}

void nvmev_io_exit(struct nvmev_dev *dev)
{
	nvmev_io_reset(dev);
	if (dev->zeroes)
		vunmap(dev->zeroes);
	dev->zeroes = NULL;
}

void nvmev_io_execute(struct nvmev_dev *dev, u16 sqid,
		      const struct nvmev_sqe *sqe)
{
	struct nvmev_io_req req;
	u64 due = 0;
	u16 status;

	dev->ns.nvm_only = nvmev_ctrl_nvm_only(&dev->ctrl);
	status = nvmev_io_parse(&dev->ns, sqe, &req);
	dev->stats.io_cmds[req.opcode]++;
	if (!status)
		status = req.cmd->exec(dev, sqid, &req, &due);
	if (status == NVMEV_SC_HELD)
		return;
	if (status) {
		dev->stats.io_errors++;
		if (req.ns)
			dev->ns_stats[req.nsid - 1].errors++;
		nvmev_errlog_io(dev, sqid, sqe, status, req.error_loc);
	}
	nvmev_ctrl_complete(&dev->ctrl, sqid, req.cid, status, 0,
			    due ? due : ktime_get_ns());
}
