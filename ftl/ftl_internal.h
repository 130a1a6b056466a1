/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of the flash model, shared by the files of ftl/ only.
 *
 * Physical addresses (ppa) are u32 indices of 4 KiB slots:
 *   ppa = (die * blocks_per_die + block) * units_per_block + offset
 * Metadata is two flat u32 arrays (L2P, P2L), 8 bytes per 4 KiB page,
 * plus a few words per erase block; nothing is allocated per page.
 */
#ifndef FTL_INTERNAL_H
#define FTL_INTERNAL_H

#include "ftl.h"

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

/* One zone's share of one of its dies (ftl_zone.c). */
struct ftl_zone_die {
	u32 last_pos;		/* the zone's last unit placed there, FTL_NONE */
	u32 pu_fill;		/* host units in its unprogrammed program unit */
};

#define FTL_MAX_ZONED	16

/*
 * A zoned region of the logical space. A zone's share of one of its dies
 * fills blocks of the zone's own as far as it fills them whole; the rest
 * of it, the tail, goes to the die's shared blocks (ftl_zone.c).
 */
struct ftl_zoned {
	u64 first;		/* first logical unit */
	u64 zone_units;
	u64 cap_units;		/* writable units of each zone */
	u32 nr_zones;
	u32 width;		/* dies of each zone */
	u32 *own_units;		/* [width]: units of the share in own blocks */
	u32 blocks_per_zd;	/* most blocks a zone owns on one of its dies */
	u32 *blk;		/* [zone][width][blocks_per_zd]: block on the die */
	struct ftl_zone_die *zd;	/* [zone][width] */
	struct ftl_zone_stats *st;	/* [zone] */
};

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

/* The write point GC copies into. */
static inline u32 ftl_gc_wpt(const struct ftl *ftl)
{
	return ftl->geo.wpts - 1;
}

static inline u32 ftl_channel_of(const struct ftl *ftl, u32 die)
{
	/* channel-first numbering: consecutive dies sit on different channels */
	return die % ftl->geo.channels;
}

/* ftl_timing.c: resources and the write buffer */
int ftl_timing_init(struct ftl *ftl);
u64 ftl_jitter(struct ftl *ftl);
void ftl_timing_free(struct ftl *ftl);
void ftl_timing_rescale(struct ftl *ftl);
u64 ftl_bw_reserve(const struct ftl *ftl, struct ftl_bw *bw, u64 t, u64 bytes);
u64 ftl_wbuf_acquire(struct ftl *ftl, u64 t);
void ftl_program(struct ftl *ftl, u32 die, u64 ready, u32 host_units);
u64 ftl_nand_read(struct ftl *ftl, u32 die, u32 pu, u64 t, u32 units);

/* ftl_map.c: blocks, slots, GC */
void ftl_map_init(struct ftl *ftl);
int ftl_alloc_slot(struct ftl *ftl, u32 die, u32 w, bool gc, u64 t,
		   u32 *ppa);
/* Program write point @w's partly filled program unit, padded, at @t. */
void ftl_wpt_pad(struct ftl *ftl, u32 die, u32 w, u64 t);
/*
 * Foreground GC found no victim: program units that write points hold in
 * blocks already handed out whole keep those blocks from being victims.
 * Program them, padded, at @t.
 */
void ftl_wpt_release_blocks(struct ftl *ftl, u32 die, u64 t);
/* The write point of @die assembling the program unit of slot @ppa. */
const struct ftl_wpt *ftl_wpt_of_slot(const struct ftl *ftl, u32 die,
				      u32 ppa);
void ftl_invalidate(struct ftl *ftl, u32 lpn);
void ftl_free_push(struct ftl *ftl, u32 die, u32 blk);
u32 ftl_free_pop(struct ftl *ftl, u32 die);
void ftl_gc_foreground(struct ftl *ftl, u32 die, u64 t);
/* The same until @die has @free_blocks free blocks, or no victim is left. */
void ftl_gc_until(struct ftl *ftl, u32 die, u64 t, u32 free_blocks);
/* The unit in slot @ppa is still in the write buffer, not yet programmed. */
bool ftl_unit_buffered(const struct ftl *ftl, u32 ppa);

/* ftl_stats.c: print @fmt into @err, return @ret */
ftl_printf(4, 5) int ftl_err(int ret, char *err, size_t errlen,
			     const char *fmt, ...);

/* ftl_zone.c: zoned regions */
struct ftl_zoned *ftl_zoned_find(const struct ftl *ftl, u64 lpn);
/* Units @first..@first+@n-1 touch a zoned region. */
bool ftl_zoned_overlap(const struct ftl *ftl, u64 first, u64 n);
/* A write of units @first..@first+@n-1, all in one zone of @zr. */
int ftl_zone_write(struct ftl *ftl, struct ftl_zoned *zr,
		   const struct ftl_cmd *cmd, u64 first, u64 n, u64 t,
		   u64 *done);
void ftl_zoned_free(struct ftl *ftl);
int ftl_zoned_check_all(const struct ftl *ftl, char *err, size_t errlen);
/*
 * Units of conventional data @die may still take, so that with every
 * zone full it keeps the GC headroom (0 once it holds its part).
 */
u64 ftl_conv_room(const struct ftl *ftl, u32 die);

/* ftl_placement.c: the policy seam */
enum ftl_place_mode {
	FTL_PLACE_ROUND_ROBIN,	/* the drive's cursor */
	FTL_PLACE_STREAM,	/* append: own cursor from the hinted die */
	FTL_PLACE_OLD_DIE,	/* overwrite: where the old copy is */
};

/* Placement state of one write command. */
struct ftl_place_cmd {
	u8 mode;
	u32 die;		/* STREAM: die of the next unit */
	u32 w;			/* STREAM: its write point there */
	u32 gen;		/* STREAM: that point's gran_gen when we came */
	u64 wear_limit;		/* OLD_DIE: erases above which a die is avoided */
};

void ftl_place_init(struct ftl *ftl);
/*
 * Decide how @cmd, logical units @first..@first+@n-1, is placed (and
 * account its hint).
 */
void ftl_place_begin(struct ftl *ftl, const struct ftl_cmd *cmd, u64 first,
		     u64 n, u64 t, struct ftl_place_cmd *pc);
/*
 * Die and write point (*@w) for the next unit, logical unit @lpn, of a
 * command whose data is ready at @t.
 */
u32 ftl_place_die(struct ftl *ftl, struct ftl_place_cmd *pc, u32 lpn, u64 t,
		  u32 *w);
/*
 * A host unit went to slot @ppa of @die's write point @w (which may not be
 * the ones asked) at @t.
 */
void ftl_place_note(struct ftl *ftl, const struct ftl_place_cmd *pc, u32 die,
		    u32 w, u32 ppa, u64 t);
/* Stream write points idle since before @now: program them, padded. */
void ftl_place_idle(struct ftl *ftl, u64 now);

#endif /* FTL_INTERNAL_H */
