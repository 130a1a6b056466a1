/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reclaim unit layer (ftl_ru.c): flexible data placement's reclaim
 * units as records over the erase blocks they take, their counters and
 * the event ring. Below the mapping, which tells it when a block is
 * taken, copied into, padded or erased, and asks it which write point GC
 * copies a block's data into; ftl_fdp.c, above, places host writes.
 */
#ifndef FTL_RU_H
#define FTL_RU_H

#include "ftl_state.h"

/* A reclaim unit: its public record and the free-list link. */
struct ftl_ru {
	struct ftl_fdp_ru_info info;
	u32 next;
};

/* What one handle is writing in one reclaim group (ftl_fdp.c). */
struct ftl_fdp_ruh {
	u32 ru;			/* its unit, FTL_NONE: the next write opens one */
	u32 k;			/* the unit's die being filled: first_die + k */
	u32 gran_fill;		/* units in that die's current granule */
	u64 placed;		/* units in the unit */
	u32 *die_fill;		/* [fdp_ru_dies]: units on each of its dies */
	u8 used;		/* the host wrote through it */
};

struct ftl_fdp {
	struct ftl_ru *ru;	/* every unit, free or not */
	u32 nr_ru;
	u32 free_head;
	u32 *blk_ru;		/* [block index]: its unit, FTL_NONE */
	u32 *wpt_ru;		/* [die][FDP point]: the unit it fills there */
	u8 *lpn_ruh;		/* [logical unit]: the handle that wrote it */
	struct ftl_fdp_ruh *ruh;	/* [rg][ruh] */
	u32 *die_fill;		/* storage of the handles' die_fill */
	u32 *rg_next;		/* [rg]: die group the next unit is sought from */
	struct ftl_fdp_stats total;
	struct ftl_fdp_stats *rg_st;	/* [rg] */
	struct ftl_fdp_stats *ruh_st;	/* [ruh] */
	u16 *ev_off;		/* [ruh]: event types not recorded, ftl_ru_ev_bit() */
	struct ftl_fdp_event ev[FTL_FDP_EVENTS];	/* ring */
	u64 ev_total;		/* events ever recorded */
};

/* Bytes ftl_ru_create() allocates for @g (0 with FDP off). */
u64 ftl_ru_tables_bytes(const struct ftl_geometry *g);
/* Allocate ftl->fdp when FDP is on. Returns 0 or -ENOMEM. */
int ftl_ru_create(struct ftl *ftl);
void ftl_ru_destroy(struct ftl *ftl);

/* The unit FDP point @w of @die fills (geo.fdp_wpt <= @w < geo.wpts). */
static inline u32 *ftl_ru_of_wpt(const struct ftl *ftl, u32 die, u32 w)
{
	const struct ftl_geometry *g = &ftl->geo;

	return &ftl->fdp->wpt_ru[(size_t)die * (g->wpts - g->fdp_wpt) +
				 w - g->fdp_wpt];
}

/*
 * A free unit of reclaim group @rg for handle @ruh (FTL_FDP_RUH_MIXED)
 * over dies @first_die.. @first_die + @dies - 1; FTL_NONE if none is free.
 */
u32 ftl_ru_open(struct ftl *ftl, u32 rg, u32 ruh, u32 first_die, u32 dies,
		bool gc);
/* Nothing more goes into unit @ru; free once its blocks are erased. */
void ftl_ru_close(struct ftl *ftl, u32 ru);
/*
 * Add @n to the counter at @field (FTL_RU_FIELD(name)) of struct
 * ftl_fdp_stats for the drive, reclaim group @rg and handle @ruh (none
 * if FTL_FDP_RUH_MIXED).
 */
void ftl_ru_add(struct ftl_fdp *f, u32 rg, u32 ruh, size_t field, u64 n);
#define FTL_RU_FIELD(name)	offsetof(struct ftl_fdp_stats, name)

/* @n host units of handle @ruh went into unit @ru. */
void ftl_ru_host_placed(struct ftl *ftl, u32 ru, u32 ruh, u32 n);

/* Hooks of the mapping layer; nothing happens with FDP off. */
/* FDP point @w of @die took block @bi (an index into ftl->blocks). */
void ftl_ru_block_taken(struct ftl *ftl, u32 die, u32 w, u32 bi);
/* The write point GC copies the data of block @bi into. */
u32 ftl_ru_gc_wpt(const struct ftl *ftl, u32 bi);
/* GC copied logical unit @lpn into slot @dst. */
void ftl_ru_gc_copied(struct ftl *ftl, u32 dst, u32 lpn);
/* @units of padding were programmed in block @bi. */
void ftl_ru_padded(struct ftl *ftl, u32 bi, u32 units);
/* Block @bi was erased. */
void ftl_ru_block_erased(struct ftl *ftl, u32 bi);

/*
 * An event type's bit in ev_off: host events 00h-07h are bits 0-7,
 * controller events 80h-87h bits 8-15; 0 for a type the model cannot
 * record.
 */
static inline u16 ftl_ru_ev_bit(u8 type)
{
	if ((type & 0x7f) > 7)
		return 0;
	return (u16)(1u << ((type & 7) + (type & 0x80 ? 8 : 0)));
}

/*
 * Record an event (enum ftl_fdp_event_type) in the ring, unless handle
 * @ruh has its type turned off (ftl_fdp_event_enable()); returns it, or
 * NULL if not recorded.
 */
struct ftl_fdp_event *ftl_ru_event(struct ftl *ftl, u8 type, u32 rg, u32 ruh,
				   u32 ru, u64 t);

#endif /* FTL_RU_H */
