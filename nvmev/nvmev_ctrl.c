// SPDX-License-Identifier: GPL-2.0
/*
 * The controller's queue engine (nvmev_ctrl.h): registers, queues,
 * doorbells, completion posting and interrupt decisions, portable.
 *
 * A host writes registers and doorbells into memory the engine polls; it
 * cannot trap a write. So CC is compared with what was latched at the
 * last enable, and a host that disables and re-enables between two polls
 * without waiting for CSTS.RDY = 0 (which the spec's initialisation asks
 * it to wait for) is still seen when it re-programmed the admin queues.
 */
#include "nvmev_ctrl.h"

#define NVMEV_SQ_BUDGET		64	/* commands per SQ per pass */

#define CC_MPS(cc)	(((cc) >> 7) & 0xf)
#define CC_CSS(cc)	(((cc) >> 4) & 0x7)
#define CC_AMS(cc)	(((cc) >> 11) & 0x7)
#define CC_SHN(cc)	(((cc) >> 14) & 0x3)
#define CC_IOSQES(cc)	(((cc) >> 16) & 0xf)
#define CC_IOCQES(cc)	(((cc) >> 20) & 0xf)

static u32 nvmev_sq_doorbell(u16 qid)
{
	return NVME_REG_DBS + 8 * qid;		/* CAP.DSTRD = 0 */
}

static u32 nvmev_cq_doorbell(u16 qid)
{
	return NVME_REG_DBS + 8 * qid + 4;
}

static u64 nvmev_now(struct nvmev_ctrl *c)
{
	return c->ops->now(c->ctx);
}

/* ---- completion heap, ordered by (due_ns, seq) ---- */

static bool nvmev_done_before(const struct nvmev_done *a, const struct nvmev_done *b)
{
	return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void nvmev_done_swap(struct nvmev_done *a, struct nvmev_done *b)
{
	struct nvmev_done t = *a;

	*a = *b;
	*b = t;
}

static void nvmev_done_sift_down(struct nvmev_ctrl *c, u32 i)
{
	struct nvmev_done *h = c->done;

	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, m = i;

		if (l < c->nr_done && nvmev_done_before(&h[l], &h[m]))
			m = l;
		if (r < c->nr_done && nvmev_done_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		nvmev_done_swap(&h[i], &h[m]);
		i = m;
	}
}

static void nvmev_done_sift_up(struct nvmev_ctrl *c, u32 i)
{
	while (i && nvmev_done_before(&c->done[i], &c->done[(i - 1) / 2])) {
		nvmev_done_swap(&c->done[i], &c->done[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static void nvmev_done_pop(struct nvmev_ctrl *c)
{
	c->done[0] = c->done[--c->nr_done];
	nvmev_done_sift_down(c, 0);
}

void nvmev_ctrl_complete(struct nvmev_ctrl *c, u16 sqid, u16 cid, u16 status,
			 u64 result, u64 due_ns)
{
	struct nvmev_sq *sq = &c->sqs[sqid];
	struct nvmev_done *e;

	/*
	 * Every entry comes from a fetched command of a live SQ, at most
	 * size - 1 of each: neither can fail unless the engine is wrong.
	 */
	if (ftl_warn_once(sqid >= NVMEV_MAX_QUEUES || !sq->live ||
			  c->nr_done + c->nr_parked >= NVMEV_DONE_SLOTS))
		return;
	e = &c->done[c->nr_done];
	e->due_ns = due_ns;
	e->seq = c->seq++;
	e->sqid = sqid;
	e->cqid = sq->cqid;
	e->cid = cid;
	e->status = status;
	e->result = result;
	c->cqs[sq->cqid].queued++;
	nvmev_done_sift_up(c, c->nr_done++);
}

/* ---- queues ---- */

static u32 nvmev_cq_used(const struct nvmev_cq *cq)
{
	return (cq->tail + cq->size - cq->head) % cq->size;
}

/* entries the host has room for, less what is already queued for it */
static bool nvmev_cq_has_room(const struct nvmev_cq *cq)
{
	return cq->size - 1 - nvmev_cq_used(cq) > cq->queued;
}

static void *nvmev_queue_ring(struct nvmev_ctrl *c, u64 addr, u64 bytes, bool cq)
{
	/* CAP.MPSMIN = 4 KiB: a contiguous queue starts on a page */
	if (!addr || (addr & 4095))
		return NULL;
	return c->ops->host_ptr(c->ctx, addr, bytes, cq);
}

static bool nvmev_cq_setup(struct nvmev_ctrl *c, u16 qid, u64 addr, u32 size,
			   bool ien, u16 vector)
{
	struct nvmev_cq *cq = &c->cqs[qid];
	void *ring = nvmev_queue_ring(c, addr, (u64)size << NVMEV_CQES, true);

	if (!ring)
		return false;
	ftl_memset(cq, 0, sizeof(*cq));
	cq->ring = ring;
	cq->qid = qid;
	cq->size = size;
	cq->phase = 1;
	cq->irq_enabled = ien;
	cq->vector = vector;
	cq->live = true;
	/* what was rung for a deleted queue of this id is not for this one */
	if (qid)
		nvmev_wr32(c->bar, nvmev_cq_doorbell(qid), 0);
	return true;
}

static bool nvmev_sq_setup(struct nvmev_ctrl *c, u16 qid, u64 addr, u32 size,
			   u16 cqid)
{
	struct nvmev_sq *sq = &c->sqs[qid];
	const void *ring = nvmev_queue_ring(c, addr, (u64)size << NVMEV_SQES, false);

	if (!ring)
		return false;
	ftl_memset(sq, 0, sizeof(*sq));
	sq->ring = ring;
	sq->qid = qid;
	sq->size = size;
	sq->cqid = cqid;
	sq->live = true;
	c->cqs[cqid].nr_sqs++;
	if (qid)
		nvmev_wr32(c->bar, nvmev_sq_doorbell(qid), 0);
	return true;
}

u16 nvmev_ctrl_create_cq(struct nvmev_ctrl *c, struct nvmev_admin_req *req)
{
	if (req->qid > c->nr_io_queues || c->cqs[req->qid].live)
		return nvmev_admin_bad_field(req, NVME_SC_QID_INVALID, NVMEV_ERR_LOC_QID);
	/* the queue's base (PRP1) is not host memory the ring may live in */
	if (!nvmev_cq_setup(c, req->qid, req->prp1, req->qsize, req->ien, req->vector))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_DPTR);
	return NVME_SC_SUCCESS;
}

u16 nvmev_ctrl_create_sq(struct nvmev_ctrl *c, struct nvmev_admin_req *req)
{
	if (req->cqid > c->nr_io_queues || !c->cqs[req->cqid].live)
		return nvmev_admin_bad_field(req, NVME_SC_CQ_INVALID, NVMEV_ERR_LOC_CQID);
	if (req->qid > c->nr_io_queues || c->sqs[req->qid].live)
		return nvmev_admin_bad_field(req, NVME_SC_QID_INVALID, NVMEV_ERR_LOC_QID);
	if (!nvmev_sq_setup(c, req->qid, req->prp1, req->qsize, req->cqid))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_DPTR);
	return NVME_SC_SUCCESS;
}

static void nvmev_io_done(struct nvmev_ctrl *c, struct nvmev_sq *sq, u64 t)
{
	sq->inflight--;
	if (sq->qid && !--c->io_inflight)
		c->busy_ns += t - c->busy_since_ns;
}

static void nvmev_post(struct nvmev_ctrl *c, struct nvmev_cq *cq,
		       const struct nvmev_done *e);

/* Post @e of a SQ being deleted as aborted, or drop it if its CQ is full. */
static bool nvmev_abort_entry(struct nvmev_ctrl *c, struct nvmev_done *e, u64 t)
{
	struct nvmev_cq *cq = &c->cqs[e->cqid];
	bool posted = false;

	cq->queued--;
	e->status = NVME_SC_ABORT_QUEUE;
	if (cq->live && cq->size - 1 - nvmev_cq_used(cq) > 0) {
		nvmev_post(c, cq, e);
		c->stats.aborted++;
		posted = true;
	} else {
		c->stats.dropped++;
	}
	nvmev_io_done(c, &c->sqs[e->sqid], t);
	return posted;
}

/*
 * Abort every completion of SQ @sqid still parked or in the heap, in one
 * pass over each (parked ones first: they are older), then restore the
 * heap once. Returns whether any was posted.
 */
static bool nvmev_abort_sq_entries(struct nvmev_ctrl *c, u16 sqid, u64 t)
{
	bool posted = false;
	u32 i, kept = 0;

	for (i = 0; i < c->nr_parked; i++) {
		if (c->parked[i].sqid == sqid)
			posted |= nvmev_abort_entry(c, &c->parked[i], t);
		else
			c->parked[kept++] = c->parked[i];
	}
	c->nr_parked = kept;
	for (i = 0, kept = 0; i < c->nr_done; i++) {
		if (c->done[i].sqid == sqid)
			posted |= nvmev_abort_entry(c, &c->done[i], t);
		else
			c->done[kept++] = c->done[i];
	}
	c->nr_done = kept;
	for (i = c->nr_done / 2; i-- > 0;)
		nvmev_done_sift_down(c, i);
	return posted;
}

/*
 * Delete I/O SQ: what the executors still hold of it completes first;
 * then every completion of it not yet posted is posted now as Command
 * Aborted due to SQ Deletion, where the CQ has room, or dropped: nothing
 * of this SQ reaches its CQ after the Delete completes.
 */
u16 nvmev_ctrl_delete_sq(struct nvmev_ctrl *c, u16 qid)
{
	struct nvmev_sq *sq = &c->sqs[qid];
	struct nvmev_cq *cq;
	bool posted;
	u64 t = nvmev_now(c);

	if (qid > c->nr_io_queues || !sq->live)
		return NVME_SC_QID_INVALID | NVME_STATUS_DNR;
	c->ops->sq_deleted(c->ctx, qid);
	cq = &c->cqs[sq->cqid];
	posted = nvmev_abort_sq_entries(c, qid, t);
	/* commands an executor holds and did not complete are dropped */
	c->io_inflight -= sq->inflight;
	if (sq->inflight && !c->io_inflight)
		c->busy_ns += t - c->busy_since_ns;
	c->stats.dropped += sq->inflight;
	sq->inflight = 0;
	if (posted && cq->irq_enabled) {
		c->ops->signal(c->ctx, cq->vector);
		c->stats.irqs++;
	}
	cq->nr_sqs--;
	sq->live = false;
	return NVME_SC_SUCCESS;
}

u16 nvmev_ctrl_delete_cq(struct nvmev_ctrl *c, u16 qid)
{
	struct nvmev_cq *cq = &c->cqs[qid];

	if (qid > c->nr_io_queues || !cq->live)
		return NVME_SC_QID_INVALID | NVME_STATUS_DNR;
	if (cq->nr_sqs)
		return NVME_SC_INVALID_QUEUE | NVME_STATUS_DNR;
	cq->live = false;
	return NVME_SC_SUCCESS;
}

u16 nvmev_ctrl_set_num_queues(struct nvmev_ctrl *c, u32 cdw11, u32 *result)
{
	u32 n, q;

	/* the counts size the queues the host is about to create */
	for (q = 1; q < NVMEV_MAX_QUEUES; q++)
		if (c->sqs[q].live || c->cqs[q].live)
			return NVME_SC_CMD_SEQ_ERROR;
	n = ftl_min64(ftl_min64((cdw11 & 0xffff) + 1, (cdw11 >> 16) + 1),
		      c->max_io_queues);
	c->nr_io_queues = n;
	*result = (n - 1) | ((n - 1) << 16);
	return NVME_SC_SUCCESS;
}

/* also read by debugfs as the worker runs: never wraps, may be an interval off */
u64 nvmev_ctrl_busy_ns(const struct nvmev_ctrl *c, u64 t)
{
	u64 since = nvmev_read_once(c->busy_since_ns);

	return nvmev_read_once(c->busy_ns) +
	       (nvmev_read_once(c->io_inflight) && t > since ? t - since : 0);
}

/* ---- registers ---- */

void nvmev_ctrl_reset(struct nvmev_ctrl *c)
{
	u64 t = nvmev_now(c);
	int q;

	c->ops->reset(c->ctx);
	c->stats.dropped += c->nr_done + c->nr_parked;
	if (c->io_inflight)
		c->busy_ns += t - c->busy_since_ns;
	c->io_inflight = 0;
	for (q = 0; q < NVMEV_MAX_QUEUES; q++) {
		c->sqs[q].live = false;
		c->cqs[q].live = false;
	}
	c->nr_done = 0;
	c->nr_parked = 0;
	/* Number of Queues is back at its default, what Get Features says */
	c->nr_io_queues = c->max_io_queues;
	c->coalesce_thr = 0;
	c->coalesce_time_us = 0;
	ftl_memset(c->vector_no_coalesce, 0, sizeof(c->vector_no_coalesce));
	c->enabled = false;
	c->shutdown = false;
	c->stats.resets++;
}

void nvmev_ctrl_flr(struct nvmev_ctrl *c)
{
	u32 off;

	nvmev_ctrl_reset(c);
	c->failed = false;
	nvmev_wr32(c->bar, NVME_REG_CC, 0);
	nvmev_wr32(c->bar, NVME_REG_CSTS, 0);
	nvmev_wr32(c->bar, NVME_REG_AQA, 0);
	nvmev_wr64(c->bar, NVME_REG_ASQ, 0);
	nvmev_wr64(c->bar, NVME_REG_ACQ, 0);
	for (off = 0; off < 8 * NVMEV_MAX_QUEUES; off += 4)
		nvmev_wr32(c->bar, NVME_REG_DBS + off, 0);
}

static void nvmev_ctrl_fail(struct nvmev_ctrl *c)
{
	c->failed = true;
	nvmev_wr32(c->bar, NVME_REG_CSTS, NVME_CSTS_CFS);
}

/* CC.EN 0 -> 1: what the host configured, checked once, then latched */
static void nvmev_ctrl_enable(struct nvmev_ctrl *c, u32 cc)
{
	u32 aqa = nvmev_rd32(c->bar, NVME_REG_AQA);
	u64 asq = nvmev_rd64(c->bar, NVME_REG_ASQ);
	u64 acq = nvmev_rd64(c->bar, NVME_REG_ACQ);
	u32 sqs = (aqa & 0xfff) + 1, cqs = ((aqa >> 16) & 0xfff) + 1;

	c->cc = cc;
	c->aqa = aqa;
	c->asq = asq;
	c->acq = acq;
	/*
	 * CAP: 4 KiB pages, round robin; the NVM command set alone (CSS 0)
	 * or every I/O command set the namespaces have (CSS 6: NVM, zoned);
	 * Identify: SQES, CQES
	 */
	if (CC_MPS(cc) || (CC_CSS(cc) && CC_CSS(cc) != 6) || CC_AMS(cc) ||
	    CC_IOSQES(cc) != NVMEV_SQES || CC_IOCQES(cc) != NVMEV_CQES ||
	    sqs < 2 || cqs < 2 || !nvmev_cq_setup(c, 0, acq, cqs, true, 0) ||
	    !nvmev_sq_setup(c, 0, asq, sqs, 0)) {
		c->sqs[0].live = false;
		c->cqs[0].live = false;
		nvmev_ctrl_fail(c);
		return;
	}
	/* CSTS.RDY is the caller's to set, once the doorbells are settled */
	c->enabled = true;
}

/*
 * After an unseen EN 1-0-1: is the admin SQ tail doorbell the host's ring
 * of its new queue, or what it rang for the old one? A value that changed
 * since it was last read is new. An unchanged one (the new tail equal to
 * the old) is new if the host wrote a command into every slot up to it
 * (this function): a fresh queue's unused slots are zero, and an all-zero
 * entry is no valid command (Delete I/O SQ of queue 0).
 */
static bool nvmev_slots_written(const struct nvmev_sq *sq, u32 tail)
{
	u32 i, w;

	if (!tail || tail >= sq->size)
		return false;
	nvmev_rmb();
	for (i = 0; i < tail; i++) {
		const u32 *e = (const u32 *)(sq->ring + ((u64)i << NVMEV_SQES));
		bool written = false;

		for (w = 0; w < 16 && !written; w++)
			written = e[w] != 0;
		if (!written)
			return false;
	}
	return true;
}

/*
 * Clear the admin SQ tail doorbell unless it is the host's ring of its
 * new queue. The host may ring while this runs: with another value, which
 * the exchange then leaves alone; or with the very value read, having
 * written the command before, so a second look at the slots tells, and
 * puts the ring back (unless the host rang again meanwhile).
 */
static void nvmev_clear_stale_admin_tail(struct nvmev_ctrl *c, u32 seen)
{
	u32 db = nvmev_sq_doorbell(0), tail = nvmev_rd32(c->bar, db);

	if (tail != seen || nvmev_slots_written(&c->sqs[0], tail))
		return;
	if (nvmev_cmpxchg32(c->bar, db, tail, 0) != tail)
		return;
	if (nvmev_slots_written(&c->sqs[0], tail))
		nvmev_cmpxchg32(c->bar, db, 0, tail);
}

/*
 * While disabled: note what the admin SQ tail doorbell holds, for the
 * enable to tell a ring after it from what was there before (@reset: this
 * is the poll that saw EN 1 -> 0; the tail is the old queue's). The value
 * is read after CC and kept only if CC still reads EN = 0 after it: then
 * it cannot be the ring of a host that has since set EN and rung at the
 * RDY = 1 of before.
 */
static void nvmev_note_disabled_admin_tail(struct nvmev_ctrl *c, bool reset)
{
	u32 tail = nvmev_rd32(c->bar, nvmev_sq_doorbell(0));

	if (reset)
		c->admin_rung_disabled = false;
	nvmev_rmb();
	if (nvmev_rd32(c->bar, NVME_REG_CC) & NVME_CC_ENABLE)
		return;
	if (!reset && tail != c->sqs[0].tail_seen)
		c->admin_rung_disabled = true;
	c->sqs[0].tail_seen = tail;
}

static bool nvmev_admin_queues_moved(struct nvmev_ctrl *c)
{
	return nvmev_rd32(c->bar, NVME_REG_AQA) != c->aqa ||
	       nvmev_rd64(c->bar, NVME_REG_ASQ) != c->asq ||
	       nvmev_rd64(c->bar, NVME_REG_ACQ) != c->acq;
}

/* React to what the host wrote into CC. Returns true when it acted. */
static bool nvmev_poll_registers(struct nvmev_ctrl *c)
{
	u32 cc = nvmev_rd32(c->bar, NVME_REG_CC);
	bool on = c->enabled || c->failed;

	if (!(cc & NVME_CC_ENABLE)) {
		nvmev_note_disabled_admin_tail(c, on);
		if (!on)
			return false;
		/* EN 1 -> 0: a Controller Reset; CSTS.RDY and CFS clear */
		nvmev_ctrl_reset(c);
		c->failed = false;
		nvmev_wr32(c->bar, NVME_REG_CSTS, 0);
		return true;
	}
	if (c->failed)
		return false;		/* until the host clears EN */
	if (!c->enabled) {
		/*
		 * EN 0 -> 1. A tail doorbell that changed since it was last seen
		 * disabled is a ring after EN = 1, by a host that went on at the
		 * RDY = 1 of before an EN 1-0-1 (the reset was seen in between).
		 * An unchanged one is left from before: it rings nothing, unless
		 * it is the old queue's tail (not rung while disabled), the admin
		 * SQ moved, and the host wrote every slot up to it (the new ring
		 * happens to equal the old tail).
		 * Before RDY = 1 a polite host rings nothing; the CQ head doorbell
		 * it rings only for what this controller has yet to post.
		 */
		u32 seen = c->sqs[0].tail_seen;
		bool moved = nvmev_admin_queues_moved(c);

		nvmev_wr32(c->bar, nvmev_cq_doorbell(0), 0);
		nvmev_ctrl_enable(c, cc);
		if (c->enabled && moved && !c->admin_rung_disabled)
			nvmev_clear_stale_admin_tail(c, seen);
		else if (c->enabled)
			nvmev_cmpxchg32(c->bar, nvmev_sq_doorbell(0), seen, 0);
		else
			nvmev_wr32(c->bar, nvmev_sq_doorbell(0), 0);
		/*
		 * Only now RDY = 1: a host that waits for it rings after the
		 * stale tail is gone, never into the clearing above.
		 */
		if (c->enabled)
			nvmev_wr32(c->bar, NVME_REG_CSTS, NVME_CSTS_RDY);
		return true;
	}
	if (nvmev_admin_queues_moved(c)) {
		/*
		 * EN 1 -> 0 -> 1 between two polls: reset, then enable. Such a
		 * host saw the RDY = 1 of before and may already have rung the
		 * admin doorbells for its new queues.
		 */
		u32 sq_seen = c->sqs[0].tail_seen, cq_seen = c->cqs[0].head_seen;

		nvmev_ctrl_reset(c);
		nvmev_ctrl_enable(c, cc);
		if (c->enabled) {
			nvmev_clear_stale_admin_tail(c, sq_seen);
			nvmev_wr32(c->bar, NVME_REG_CSTS, NVME_CSTS_RDY);
		}
		/* an old head is refused as beyond the new, empty, CQ anyway */
		nvmev_cmpxchg32(c->bar, nvmev_cq_doorbell(0), cq_seen, 0);
		return true;
	}
	if (CC_SHN(cc) && !c->shutdown) {
		/* commands run to completion as fetched: nothing to flush */
		c->shutdown = true;
		nvmev_wr32(c->bar, NVME_REG_CSTS,
			   (nvmev_rd32(c->bar, NVME_REG_CSTS) & ~NVME_CSTS_SHST_MASK) |
			   NVME_CSTS_SHST_CMPLT);
		return true;
	}
	if (!CC_SHN(cc) && c->shutdown) {
		c->shutdown = false;
		nvmev_wr32(c->bar, NVME_REG_CSTS,
			   nvmev_rd32(c->bar, NVME_REG_CSTS) & ~NVME_CSTS_SHST_MASK);
	}
	return false;
}

/* ---- submission ---- */

/*
 * The highest queue id that can be live: I/O queues are created only up
 * to the count Set Features granted, which changes only while none
 * exists. The worker's passes scan this far, not all 65 ids: each pass is
 * the delay before a doorbell is seen.
 */
static int nvmev_last_qid(const struct nvmev_ctrl *c)
{
	return (int)c->nr_io_queues;
}

static int nvmev_poll_sq(struct nvmev_ctrl *c, struct nvmev_sq *sq)
{
	struct nvmev_cq *cq = &c->cqs[sq->cqid];
	u32 tail = nvmev_rd32(c->bar, nvmev_sq_doorbell(sq->qid));
	int n = 0;

	sq->tail_seen = tail;
	if (tail >= sq->size) {
		c->stats.bad_doorbells++;
		return 0;
	}
	/* the SQ entries were written before the doorbell */
	nvmev_rmb();
	while (sq->head != tail && n < NVMEV_SQ_BUDGET && nvmev_cq_has_room(cq)) {
		struct nvmev_sqe cmd;

		ftl_memcpy(&cmd, sq->ring + ((u64)sq->head << NVMEV_SQES),
			   sizeof(cmd));
		if (sq->qid && c->ops->io_ready &&
		    !c->ops->io_ready(c->ctx, sq->qid, &cmd)) {
			c->stats.deferred++;
			break;
		}
		sq->head = (sq->head + 1) % sq->size;
		sq->inflight++;
		c->stats.fetched++;
		if (sq->qid && !c->io_inflight++)
			c->busy_since_ns = nvmev_now(c);
		if (sq->qid == 0)
			c->ops->admin(c->ctx, &cmd);
		else
			c->ops->io(c->ctx, sq->qid, &cmd);
		n++;
		/* a command may have deleted this very queue, or the CQ */
		if (!c->enabled || !sq->live)
			break;
	}
	return n;
}

/* A CQ head the host rang: valid if it lies between our head and tail. */
static void nvmev_read_cq_head(struct nvmev_ctrl *c, struct nvmev_cq *cq)
{
	u32 head = nvmev_rd32(c->bar, nvmev_cq_doorbell(cq->qid));

	cq->head_seen = head;
	if (head == cq->head)
		return;
	if (head < cq->size &&
	    (head + cq->size - cq->head) % cq->size <= nvmev_cq_used(cq))
		cq->head = head;
	else
		c->stats.bad_doorbells++;
}

static int nvmev_poll_sqs(struct nvmev_ctrl *c)
{
	int q, n = 0;

	for (q = 0; q <= nvmev_last_qid(c) && c->enabled; q++) {
		if (c->cqs[q].live)
			nvmev_read_cq_head(c, &c->cqs[q]);
		if (c->sqs[q].live && c->cqs[c->sqs[q].cqid].live)
			n += nvmev_poll_sq(c, &c->sqs[q]);
	}
	return n;
}

/* ---- completion ---- */

static bool nvmev_coalesced(struct nvmev_ctrl *c, struct nvmev_cq *cq)
{
	return cq->qid && (c->coalesce_thr || c->coalesce_time_us) &&
	       !c->vector_no_coalesce[cq->vector];
}

static void nvmev_post(struct nvmev_ctrl *c, struct nvmev_cq *cq,
		       const struct nvmev_done *e)
{
	u32 *slot = (u32 *)(cq->ring + ((u64)cq->tail << NVMEV_CQES));
	u16 status = (u16)(e->status << 1) | cq->phase;
	u16 sq_head = (u16)c->sqs[e->sqid].head;

	nvmev_write_once(slot[0], nvmev_cpu_to_le32((u32)e->result));
	nvmev_write_once(slot[1], nvmev_cpu_to_le32((u32)(e->result >> 32)));
	nvmev_write_once(slot[2], nvmev_cpu_to_le32(sq_head | ((u32)e->sqid << 16)));
	/* the phase tag says "valid": it must be the last thing the host sees */
	nvmev_wmb();
	nvmev_write_once(slot[3], nvmev_cpu_to_le32(e->cid | ((u32)status << 16)));
	if (++cq->tail == cq->size) {
		cq->tail = 0;
		cq->phase ^= 1;
	}
}

/* Post @e to its CQ if there is room; false if it must wait. */
static bool nvmev_try_post(struct nvmev_ctrl *c, const struct nvmev_done *e, u64 t,
			   bool *raise)
{
	struct nvmev_cq *cq = &c->cqs[e->cqid];
	struct nvmev_sq *sq = &c->sqs[e->sqid];

	if (ftl_warn_once(!cq->live || !sq->live || sq->cqid != e->cqid)) {
		c->stats.dropped++;
		return true;
	}
	if (cq->size - 1 - nvmev_cq_used(cq) == 0)
		return false;
	nvmev_post(c, cq, e);
	cq->queued--;
	nvmev_io_done(c, sq, t);
	/* the emulator's own timing error, for the user to check */
	if (t > e->due_ns) {
		c->stats.post_late_ns += t - e->due_ns;
		c->stats.post_late_max_ns = ftl_max64(c->stats.post_late_max_ns,
						      t - e->due_ns);
	}
	c->stats.posted++;
	if (!cq->irq_enabled)
		return true;
	if (!nvmev_coalesced(c, cq)) {
		raise[cq->vector] = true;
		return true;
	}
	if (!cq->irq_pending++)
		cq->irq_first_ns = t;
	if (cq->irq_pending > c->coalesce_thr)
		raise[cq->vector] = true;
	else
		c->stats.irqs_held++;
	return true;
}

/* Post what is parked and has room now, then every due completion. */
static int nvmev_post_due(struct nvmev_ctrl *c, u64 t, bool *raise)
{
	u32 i, kept = 0;
	int n = 0;

	for (i = 0; i < c->nr_parked; i++) {
		if (nvmev_try_post(c, &c->parked[i], t, raise))
			n++;
		else
			c->parked[kept++] = c->parked[i];
	}
	c->nr_parked = kept;
	while (c->nr_done && c->done[0].due_ns <= t) {
		if (nvmev_try_post(c, &c->done[0], t, raise)) {
			n++;
		} else {
			/* CQ full: wait for the host to reap, in due order */
			c->parked[c->nr_parked++] = c->done[0];
			c->stats.cq_full_waits++;
		}
		nvmev_done_pop(c);
	}
	return n;
}

/* Coalescing time limits; returns the earliest pending deadline. */
static u64 nvmev_irq_deadlines(struct nvmev_ctrl *c, u64 t, bool *raise)
{
	u64 next = U64_MAX;
	int q;

	for (q = 1; q <= nvmev_last_qid(c); q++) {
		struct nvmev_cq *cq = &c->cqs[q];
		u64 due;

		if (!cq->live || !cq->irq_pending)
			continue;
		due = cq->irq_first_ns + (u64)c->coalesce_time_us * 1000;
		if (due <= t || raise[cq->vector])
			raise[cq->vector] = true;
		else
			next = ftl_min64(next, due);
	}
	return next;
}

/* only live CQs' vectors are ever raised: each is signalled once */
static void nvmev_raise_irqs(struct nvmev_ctrl *c, bool *raise)
{
	int q;

	for (q = 0; q <= nvmev_last_qid(c); q++)
		if (c->cqs[q].live && raise[c->cqs[q].vector])
			c->cqs[q].irq_pending = 0;
	for (q = 0; q <= nvmev_last_qid(c); q++) {
		u16 v = c->cqs[q].vector;

		if (!c->cqs[q].live || !raise[v])
			continue;
		raise[v] = false;
		c->ops->signal(c->ctx, v);
		c->stats.irqs++;
	}
}

int nvmev_ctrl_poll(struct nvmev_ctrl *c, u64 *next_ns)
{
	bool raise[NVMEV_NR_VECTORS] = { false };
	int work = 0;
	u64 t;

	*next_ns = U64_MAX;
	if (nvmev_poll_registers(c))
		work++;
	if (!c->enabled)
		return work;
	/* Bus Master Enable off: no fetch, no data, no completion */
	if (!c->ops->dma_enabled(c->ctx)) {
		/* doorbells are registers, not DMA: noted for an EN 1-0-1 */
		c->sqs[0].tail_seen = nvmev_rd32(c->bar, nvmev_sq_doorbell(0));
		c->cqs[0].head_seen = nvmev_rd32(c->bar, nvmev_cq_doorbell(0));
		return work;
	}
	work += nvmev_poll_sqs(c);
	t = nvmev_now(c);
	work += nvmev_post_due(c, t, raise);
	*next_ns = nvmev_irq_deadlines(c, t, raise);
	nvmev_raise_irqs(c, raise);
	if (c->nr_done)
		*next_ns = ftl_min64(*next_ns, c->done[0].due_ns);
	return work;
}

int nvmev_ctrl_init(struct nvmev_ctrl *c, const struct nvmev_ctrl_ops *ops,
		    void *ctx, void __iomem *bar, u32 max_io_queues)
{
	u64 cap;

	ftl_memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->ctx = ctx;
	c->bar = bar;
	c->max_io_queues = max_io_queues;
	c->nr_io_queues = max_io_queues;
	c->done = ftl_zalloc(NVMEV_DONE_SLOTS, sizeof(*c->done));
	c->parked = ftl_zalloc(NVMEV_DONE_SLOTS, sizeof(*c->parked));
	if (!c->done || !c->parked) {
		nvmev_ctrl_exit(c);
		return -ENOMEM;
	}
	cap = NVMEV_MQES |			/* MQES */
	      (1ull << 16) |			/* CQR: contiguous queues */
	      (20ull << 24) |			/* TO: 10 s */
	      (1ull << 37) |			/* CSS: NVM command set, */
	      (1ull << 43);			/* and I/O command sets */
	nvmev_wr64(bar, NVME_REG_CAP, cap);
	nvmev_wr32(bar, NVME_REG_VS, NVMEV_VERSION);
	return 0;
}

void nvmev_ctrl_exit(struct nvmev_ctrl *c)
{
	ftl_free(c->done);
	ftl_free(c->parked);
	c->done = NULL;
	c->parked = NULL;
}
