/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of the flash model: struct ftl and the parts it is made of,
 * with the address arithmetic every layer uses. Private to ftl/: what the
 * files of the model read and change, a layer above configuration and
 * below the first file that acts on it (docs/model.md lists the layers).
 *
 * Physical addresses (ppa) are u32 indices of 4 KiB slots:
 *   ppa = (die * blocks_per_die + block) * units_per_block + offset
 * Metadata is two flat u32 arrays (L2P, P2L), 8 bytes per 4 KiB page,
 * plus a few words per erase block; nothing is allocated per page.
 */
#ifndef FTL_STATE_H
#define FTL_STATE_H

#include "ftl_config.h"
#include "ftl_types.h"

#define FTL_NONE	U32_MAX		/* unmapped / no block / empty slot */

enum ftl_block_state {
	FTL_BLK_FREE,
	FTL_BLK_OPEN,
	FTL_BLK_FULL,
	FTL_BLK_ZONE,		/* a zone's, until its reset; never a GC victim */
};

/* Blocks that only GC may take, so relocation always has a destination. */
#define FTL_GC_RESERVE	1

struct ftl_block {
	u32 valid;		/* valid units */
	u32 erases;
	u32 next;		/* free-list link */
	u32 prog;		/* a zone block: units programmed so far */
	u8 state;
	u8 own_open;		/* an FDP point still hands out its program units */
	u16 pending;		/* program units write points hold, unprogrammed */
};

/*
 * A write point: a program unit being assembled in the write buffer, and
 * the granule placement is filling. Every die has write_points_per_die of
 * them for host data: point 0 is shared (the round-robin cursor, unhinted
 * writes, overwrites), the others each take one hinted stream, so a
 * file's small appends fill program units of their own, as the streams of
 * a multi-stream SSD do. With more than one, GC has a point of its own too
 * (the last); with one, GC shares point 0. A point takes the next program
 * unit of its die's open block when it starts one, so the points of a die
 * interleave in one block at program-unit granularity; the block is full
 * once every unit is handed out and programmed. (A drive assembles units
 * in its buffer and programs them in order as they complete; handing the
 * slot out at the start gives the same program times and read grouping
 * without remapping a unit when it is programmed.)
 */
struct ftl_wpt {
	u32 pu;			/* first slot of its program unit, FTL_NONE if none */
	u32 fill;		/* units placed in it */
	u32 pu_host_units;	/* of them, host units */
	/* placement: the granule this point is filling (ftl_placement.c) */
	u32 gran_fill;		/* host units in it */
	u32 gran_gen;		/* granules completed so far */
	u32 gran_start;		/* slot of its first unit */
	u64 seq;		/* placement order of that unit (eviction) */
	/*
	 * An FDP point (index geo.fdp_wpt on) takes its program units from
	 * a block of its own reclaim unit instead of the die's open block.
	 */
	u32 own_blk;		/* that block, FTL_NONE if none */
	u32 own_next_pu;	/* its next program unit to hand out */
};

struct ftl_die {
	u64 busy_until;		/* NAND timeline of this die */
	u64 last_write;		/* time its last host unit arrived */
	u32 reg_pu;		/* program unit of its last host read */
	u64 reg_ready;		/* when that read's data was in the register */
	u64 reg_end;		/* busy_until as that read left it */
	u32 open_blk;		/* block handing out program units, FTL_NONE */
	u32 next_pu;		/* its next program unit to hand out */
	struct ftl_wpt *wpt;	/* its write points (geo.wpts) */
	u32 free_head;
	u32 free_tail;
	u32 free_count;
	u64 valid_units;
	u64 zone_valid;		/* of them, units of zoned regions */
	u64 zone_claim;		/* units zones take here once all are full */
	u64 erases_total;	/* wear, never reset */
	struct ftl_die_stats st;
};

/* Min-heap of pending write-buffer releases (program completion times). */
struct ftl_wbuf {
	u64 *when;
	u32 *units;
	u32 len;
	u32 cap;
	u32 used;		/* units held: queued programs + open units */
	u64 last_release;	/* latest completion ever queued */
};

/*
 * A bandwidth-limited resource (a flash channel, one direction of the host
 * link). Time is cut into buckets that each carry @cap bytes; a transfer
 * fills buckets from the moment its data is ready. Unlike a single
 * "busy until" stamp this lets a transfer that is ready early use idle
 * bandwidth before one reserved later in the future (no head-of-line
 * blocking between commands submitted in a different order than their
 * data becomes ready).
 */
struct ftl_bw {
	u64 mbps;
	u64 width;		/* bucket length, ns */
	u64 cap;		/* bytes per bucket */
	u32 nr;			/* ring size; horizon = nr * width */
	u64 *id;		/* bucket number held by each ring slot */
	u64 *used;		/* bytes taken in that bucket */
};

/* Round-robin cursor of the default placement policy. */
struct ftl_place {
	u32 last_ppa;		/* last host unit placed, FTL_NONE after an overwrite */
	u32 die;
	u32 gen;		/* @die's gran_gen when the cursor came to it */
};

struct ftl_fdp;

/* Most zoned regions (ftl_zone.c) one model holds. */
#define FTL_MAX_ZONED	16

struct ftl {
	struct ftl_config cfg;
	struct ftl_geometry geo;
	u32 *l2p;		/* logical unit -> ppa */
	u32 *p2l;		/* ppa -> logical unit */
	struct ftl_block *blocks;
	struct ftl_die *dies;
	struct ftl_wpt *wpts;	/* [die][geo.wpts] */
	u64 place_seq;		/* host units placed, for ftl_wpt.seq */
	u64 wpt_flush_at;	/* earliest a stream point may be due */
	struct ftl_bw *chan;	/* per-channel transfers */
	struct ftl_bw link_rx;	/* host -> device */
	struct ftl_bw link_tx;	/* device -> host */
	u32 dies_below_bg;	/* dies whose free blocks < gc_bg */
	struct ftl_wbuf wb;
	struct ftl_place place;
	struct ftl_stats st;
	u64 jitter_state;	/* splitmix64, from jitter_seed */
	struct ftl_zoned *zoned[FTL_MAX_ZONED];
	u32 nr_zoned;
	struct ftl_fdp *fdp;	/* flexible data placement, NULL when off */
};

static inline u32 ftl_die_of(const struct ftl *ftl, u32 ppa)
{
	/* units_per_die < 2^32: validated, so a 32-bit division suffices */
	return ppa / (u32)ftl->geo.units_per_die;
}

static inline u32 ftl_blk_index(const struct ftl *ftl, u32 die, u32 blk)
{
	return die * ftl->geo.blocks_per_die + blk;
}

static inline u32 ftl_ppa(const struct ftl *ftl, u32 die, u32 blk, u32 off)
{
	return ftl_blk_index(ftl, die, blk) * ftl->geo.units_per_block + off;
}

/* Block @bi (an index into ftl->blocks) is @die's open block. */
static inline bool ftl_is_open_blk(const struct ftl *ftl, u32 die, u32 bi)
{
	u32 open = ftl->dies[die].open_blk;

	return open != FTL_NONE && bi == ftl_blk_index(ftl, die, open);
}

/* The write point GC copies data outside reclaim units into. */
static inline u32 ftl_gc_wpt(const struct ftl *ftl)
{
	return ftl->geo.gc_wpt;
}

/* Write point @w fills blocks of its own (an FDP point). */
static inline bool ftl_wpt_owns_blocks(const struct ftl *ftl, u32 w)
{
	return w >= ftl->geo.fdp_wpt;
}

static inline u32 ftl_channel_of(const struct ftl *ftl, u32 die)
{
	/* channel-first numbering: consecutive dies sit on different channels */
	return die % ftl->geo.channels;
}

#endif /* FTL_STATE_H */
