/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The controller's queue engine: the registers a host programs (CC, CSTS,
 * the admin queue attributes), submission and completion queues and their
 * doorbells, the order in which completions are posted, and which
 * interrupts are raised. It reaches the host only through struct
 * nvmev_ctrl_ops and uses nothing but nvmev_compat.h, so the same file
 * builds into nvmev.ko (nvmev_worker.c drives it from the controller
 * thread) and into the userspace state-machine fuzzer (tests/fuzz/),
 * which plays a hostile host against it.
 *
 * What the engine guarantees, whatever the host does:
 *   - every command fetched completes exactly once, or is dropped when
 *     its queue is deleted or the controller reset;
 *   - no completion is written into a full CQ: a SQ is fetched only while
 *     its CQ has room for what is already queued for it, and a
 *     completion that finds its CQ full waits (parked) until the host
 *     reaps, without busy-waiting;
 *   - nothing is posted for a deleted queue, and nothing is fetched,
 *     copied or posted while the host has Bus Master Enable off.
 */
#ifndef NVMEV_CTRL_H
#define NVMEV_CTRL_H

#include "nvmev_compat.h"
#include "nvmev_cmd.h"

#define NVMEV_NR_VECTORS	NVMEV_MAX_QUEUES	/* MSI-X table entries */
/* one slot per entry of every possible queue: the heap cannot overflow */
#define NVMEV_DONE_SLOTS	(NVMEV_MAX_QUEUES * (NVMEV_MQES + 1))
#define NVMEV_SQES		6	/* 64-byte SQ entries, CC.IOSQES */
#define NVMEV_CQES		4	/* 16-byte CQ entries, CC.IOCQES */

struct nvmev_sq {
	bool live;
	u16 qid;
	u16 cqid;
	u32 size;
	u32 head;
	u32 tail_seen;			/* the tail doorbell as last read */
	u32 inflight;			/* fetched, completion not yet posted */
	const u8 *ring;			/* host memory */
};

struct nvmev_cq {
	bool live;
	bool irq_enabled;
	u16 qid;
	u16 vector;
	u32 size;
	u32 tail;
	u32 head;			/* last valid head the host rang */
	u32 head_seen;			/* the head doorbell as last read */
	u8 phase;
	u16 nr_sqs;			/* SQs bound to this CQ */
	u32 queued;			/* completions for it, heap or parked */
	u32 irq_pending;		/* posted, interrupt not yet raised */
	u64 irq_first_ns;		/* when the oldest of those was posted */
	u8 *ring;			/* host memory */
};

/* A completion queue entry as the host reads it: four little-endian dwords. */
struct nvmev_cqe {
	u32 dw[4];
};

/* A completion waiting for its modelled time (or for CQ space). */
struct nvmev_done {
	u64 due_ns;
	u64 seq;			/* FIFO among equal due times */
	u16 sqid;
	u16 cqid;
	u16 cid;
	u16 status;			/* without the phase tag */
	u64 result;			/* dwords 0 and 1 (Zone Append: an LBA) */
};

struct nvmev_ctrl_stats {
	u64 irqs;			/* interrupts requested */
	u64 irqs_held;			/* posts whose interrupt aggregation held back */
	u64 bad_doorbells;
	u64 cq_full_waits;		/* completions parked on a full CQ */
	u64 deferred;			/* fetches put off: io_ready said not yet */
	u64 aborted;			/* posted as aborted: SQ deleted */
	u64 dropped;			/* dropped: queue gone, reset */
	u64 resets;
	u64 fetched;			/* commands fetched from SQs */
	/* how late completions were posted against the model's due time */
	u64 posted;
	u64 post_late_ns;		/* sum */
	u64 post_late_max_ns;
};

/* How the engine reaches its host and its command executors. */
struct nvmev_ctrl_ops {
	u64 (*now)(void *ctx);
	/*
	 * [addr, addr + len) of host RAM as one pointer, NULL if it is not
	 * (or, for @write, if the device may not write it)
	 */
	void *(*host_ptr)(void *ctx, u64 addr, u64 len, bool write);
	/* PCI_COMMAND's Bus Master Enable */
	bool (*dma_enabled)(void *ctx);
	/* raise MSI-X @vector (< NVMEV_NR_VECTORS) */
	void (*signal)(void *ctx, u16 vector);
	/* execute a command; each completes with nvmev_ctrl_complete() */
	void (*admin)(void *ctx, const struct nvmev_sqe *sqe);
	void (*io)(void *ctx, u16 sqid, const struct nvmev_sqe *sqe);
	/* controller reset: executors drop held commands and features */
	void (*reset)(void *ctx);
	/* SQ @sqid is being deleted: complete or drop what is held of it */
	void (*sq_deleted)(void *ctx, u16 sqid);
	/*
	 * May I/O command @sqe of SQ @sqid be fetched now? false leaves it,
	 * and what follows it, in the SQ until a later pass: an executor
	 * that has no room to hold the command's work must not do it all
	 * inline while every other queue waits. NULL: always.
	 */
	bool (*io_ready)(void *ctx, u16 sqid, const struct nvmev_sqe *sqe);
};

struct nvmev_ctrl {
	const struct nvmev_ctrl_ops *ops;
	void *ctx;			/* the ops' first argument */
	void __iomem *bar;		/* registers and doorbells */
	u32 max_io_queues;

	/* registers, latched when the controller was enabled */
	u32 cc;
	u32 aqa;
	u64 asq, acq;
	bool enabled;			/* CSTS.RDY set */
	bool failed;			/* CSTS.CFS set until the host clears EN */
	bool shutdown;			/* CC.SHN acted on */
	bool admin_rung_disabled;	/* admin SQ doorbell written, EN = 0 */

	u32 nr_io_queues;		/* granted by Set Features 07h */
	struct nvmev_sq sqs[NVMEV_MAX_QUEUES];
	struct nvmev_cq cqs[NVMEV_MAX_QUEUES];
	u32 coalesce_thr;		/* feature 08h, 0's based */
	u32 coalesce_time_us;
	bool vector_no_coalesce[NVMEV_NR_VECTORS];	/* feature 09h */

	/* completions: a min-heap on (due_ns, seq) and those parked on full CQs */
	struct nvmev_done *done;
	u32 nr_done;
	struct nvmev_done *parked;
	u32 nr_parked;
	u64 seq;

	/* SMART's controller busy time: I/O commands outstanding */
	u32 io_inflight;
	u64 busy_since_ns;
	u64 busy_ns;

	struct nvmev_ctrl_stats stats;
};

/* Set up the engine on the zeroed @bar (CAP, VS); 0 or -ENOMEM. */
int nvmev_ctrl_init(struct nvmev_ctrl *c, const struct nvmev_ctrl_ops *ops,
		    void *ctx, void __iomem *bar, u32 max_io_queues);
void nvmev_ctrl_exit(struct nvmev_ctrl *c);

/*
 * One pass: act on CC, fetch and execute commands, post due completions,
 * raise interrupts. Returns how much work it did (0: none); *next_ns is
 * when a completion or a coalescing deadline is next due (U64_MAX: none;
 * parked completions wait for the host's doorbell, not for a time).
 */
int nvmev_ctrl_poll(struct nvmev_ctrl *c, u64 *next_ns);

/* A Controller Reset, as the host's CC.EN 1 -> 0 causes. */
void nvmev_ctrl_reset(struct nvmev_ctrl *c);
/*
 * A Function Level Reset: a Controller Reset, and the registers the host
 * programs (CC, CSTS, AQA, ASQ, ACQ) and the doorbells back to zero.
 */
void nvmev_ctrl_flr(struct nvmev_ctrl *c);

/* Queue the completion of command @cid of SQ @sqid for @due_ns. */
void nvmev_ctrl_complete(struct nvmev_ctrl *c, u16 sqid, u16 cid, u16 status,
			 u64 result, u64 due_ns);

/* The queue management commands; each returns an NVMe status. */
u16 nvmev_ctrl_create_cq(struct nvmev_ctrl *c, struct nvmev_admin_req *req);
u16 nvmev_ctrl_create_sq(struct nvmev_ctrl *c, struct nvmev_admin_req *req);
u16 nvmev_ctrl_delete_sq(struct nvmev_ctrl *c, u16 qid);
u16 nvmev_ctrl_delete_cq(struct nvmev_ctrl *c, u16 qid);
/* CC.CSS as the host enabled the controller: 000b, the NVM Command Set alone */
static inline bool nvmev_ctrl_nvm_only(const struct nvmev_ctrl *c)
{
	return !((c->cc >> 4) & 0x7);
}

/* Set Features Number of Queues: CDW11 in, the granted counts in *result */
u16 nvmev_ctrl_set_num_queues(struct nvmev_ctrl *c, u32 cdw11, u32 *result);

/* No I/O command outstanding: whatever comes next is the host's move. */
static inline bool nvmev_ctrl_quiet(const struct nvmev_ctrl *c)
{
	return !c->io_inflight;
}

/* Time the controller has had I/O commands outstanding, as of @now. */
u64 nvmev_ctrl_busy_ns(const struct nvmev_ctrl *c, u64 now);

#endif /* NVMEV_CTRL_H */
