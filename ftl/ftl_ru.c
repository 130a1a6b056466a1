// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim units of flexible data placement, as records over erase blocks.
 *
 * A unit is not a fixed set of blocks: it takes free blocks of its dies
 * as its write points need them (fdp_ru_blocks in all, the same number on
 * each die) and is free again once every block it took was erased. GC
 * reclaims block by block on each die, as it does for all data, so a
 * unit's blocks are erased one at a time; what FDP asks of the drive,
 * which data may share a unit, is kept by where GC copies each block's
 * data (ftl_ru_gc_wpt()).
 *
 * GC copies inside a die, so its destination units lie on one die each:
 * per die one for every handle (persistently isolated: a handle's data
 * stays in units of that handle for good) or one for the reclaim group
 * (initially isolated: the handles' data is apart only until GC first
 * moves it). Each takes as many blocks as a host unit has on one die.
 *
 * Counters are kept per unit, per handle (of the data, whichever unit it
 * is in), per reclaim group and for the drive; the event ring keeps the
 * last FTL_FDP_EVENTS events.
 */
#include "ftl_ru.h"

static u32 ftl_ru_fdp_wpts(const struct ftl_geometry *g)
{
	return g->wpts - g->fdp_wpt;
}

/*
 * Every unit that can exist at once: each holds a block that is not
 * erased, but for the open ones (a unit per handle and group, and GC's
 * per die) that took none yet.
 */
static u32 ftl_ru_count(const struct ftl_geometry *g)
{
	return g->dies * g->blocks_per_die + g->fdp_rgs * g->fdp_ruhs +
	       g->dies * g->fdp_gc_wpts;
}

u64 ftl_ru_tables_bytes(const struct ftl_geometry *g)
{
	u64 handles = (u64)g->fdp_rgs * g->fdp_ruhs;

	if (!g->fdp_ruhs)
		return 0;
	return sizeof(struct ftl_fdp) +
	       (u64)ftl_ru_count(g) * sizeof(struct ftl_ru) +
	       (u64)g->dies * g->blocks_per_die * sizeof(u32) +
	       (u64)g->dies * ftl_ru_fdp_wpts(g) * sizeof(u32) +
	       g->logical_units +
	       handles * (sizeof(struct ftl_fdp_ruh) +
			  g->fdp_ru_dies * sizeof(u32)) +
	       g->fdp_rgs * (sizeof(u32) + sizeof(struct ftl_fdp_stats)) +
	       g->fdp_ruhs * (sizeof(struct ftl_fdp_stats) + sizeof(u16));
}

void ftl_ru_destroy(struct ftl *ftl)
{
	struct ftl_fdp *f = ftl->fdp;

	if (!f)
		return;
	ftl_free(f->ev_off);
	ftl_free(f->ruh_st);
	ftl_free(f->rg_st);
	ftl_free(f->rg_next);
	ftl_free(f->die_fill);
	ftl_free(f->ruh);
	ftl_free(f->lpn_ruh);
	ftl_free(f->wpt_ru);
	ftl_free(f->blk_ru);
	ftl_free(f->ru);
	ftl_free(f);
	ftl->fdp = NULL;
}

int ftl_ru_create(struct ftl *ftl)
{
	const struct ftl_geometry *g = &ftl->geo;
	u32 handles = g->fdp_rgs * g->fdp_ruhs, i;
	size_t blocks = (size_t)g->dies * g->blocks_per_die;
	size_t points = (size_t)g->dies * ftl_ru_fdp_wpts(g);
	struct ftl_fdp *f;

	if (!g->fdp_ruhs)
		return 0;
	f = ftl_zalloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	ftl->fdp = f;
	f->nr_ru = ftl_ru_count(g);
	f->ru = ftl_zalloc(f->nr_ru, sizeof(*f->ru));
	f->blk_ru = ftl_zalloc(blocks, sizeof(*f->blk_ru));
	f->wpt_ru = ftl_zalloc(points, sizeof(*f->wpt_ru));
	f->lpn_ruh = ftl_zalloc(g->logical_units, sizeof(*f->lpn_ruh));
	f->ruh = ftl_zalloc(handles, sizeof(*f->ruh));
	f->die_fill = ftl_zalloc((size_t)handles * g->fdp_ru_dies,
				 sizeof(*f->die_fill));
	f->rg_next = ftl_zalloc(g->fdp_rgs, sizeof(*f->rg_next));
	f->rg_st = ftl_zalloc(g->fdp_rgs, sizeof(*f->rg_st));
	f->ruh_st = ftl_zalloc(g->fdp_ruhs, sizeof(*f->ruh_st));
	f->ev_off = ftl_zalloc(g->fdp_ruhs, sizeof(*f->ev_off));
	if (!f->ru || !f->blk_ru || !f->wpt_ru || !f->lpn_ruh || !f->ruh ||
	    !f->die_fill || !f->rg_next || !f->rg_st || !f->ruh_st ||
	    !f->ev_off) {
		ftl_ru_destroy(ftl);
		return -ENOMEM;
	}
	for (i = 0; i < f->nr_ru; i++)
		f->ru[i].next = i + 1 < f->nr_ru ? i + 1 : FTL_NONE;
	f->free_head = 0;
	for (i = 0; i < blocks; i++)
		f->blk_ru[i] = FTL_NONE;
	for (i = 0; i < points; i++)
		f->wpt_ru[i] = FTL_NONE;
	for (i = 0; i < handles; i++) {
		f->ruh[i].ru = FTL_NONE;
		f->ruh[i].die_fill = &f->die_fill[(size_t)i * g->fdp_ru_dies];
	}
	return 0;
}

u32 ftl_ru_open(struct ftl *ftl, u32 rg, u32 ruh, u32 first_die, u32 dies,
		bool gc)
{
	struct ftl_fdp *f = ftl->fdp;
	u32 ru = f->free_head;
	struct ftl_fdp_ru_info *r;

	if (ftl_warn_once(ru == FTL_NONE))
		return FTL_NONE;
	f->free_head = f->ru[ru].next;
	r = &f->ru[ru].info;
	ftl_memset(r, 0, sizeof(*r));
	r->state = FTL_FDP_RU_OPEN;
	r->gc = gc;
	r->ruh = (u16)ruh;
	r->rg = rg;
	r->first_die = first_die;
	r->dies = dies;
	return ru;
}

static void ftl_ru_free(struct ftl_fdp *f, u32 ru)
{
	f->ru[ru].info.state = FTL_FDP_RU_FREE;
	f->ru[ru].next = f->free_head;
	f->free_head = ru;
}

void ftl_ru_close(struct ftl *ftl, u32 ru)
{
	struct ftl_fdp *f = ftl->fdp;

	f->ru[ru].info.state = FTL_FDP_RU_CLOSED;
	if (!f->ru[ru].info.live_blocks)
		ftl_ru_free(f, ru);
}

void ftl_ru_add(struct ftl_fdp *f, u32 rg, u32 ruh, size_t field, u64 n)
{
	*(u64 *)((char *)&f->total + field) += n;
	*(u64 *)((char *)&f->rg_st[rg] + field) += n;
	if (ruh != FTL_FDP_RUH_MIXED)
		*(u64 *)((char *)&f->ruh_st[ruh] + field) += n;
}

/* @n units written to flash in unit @ru, of data of handle @ruh. */
static void ftl_ru_media(struct ftl_fdp *f, u32 ru, u32 ruh, size_t field,
			 u32 n)
{
	struct ftl_fdp_ru_info *r = &f->ru[ru].info;

	r->media_units += n;
	ftl_ru_add(f, r->rg, ruh, FTL_RU_FIELD(media_units), n);
	ftl_ru_add(f, r->rg, ruh, field, n);
}

void ftl_ru_host_placed(struct ftl *ftl, u32 ru, u32 ruh, u32 n)
{
	ftl->fdp->ru[ru].info.host_units += n;
	ftl_ru_media(ftl->fdp, ru, ruh, FTL_RU_FIELD(host_units), n);
}

void ftl_ru_block_taken(struct ftl *ftl, u32 die, u32 w, u32 bi)
{
	const struct ftl_geometry *g = &ftl->geo;
	struct ftl_fdp *f = ftl->fdp;
	u32 *slot = ftl_ru_of_wpt(ftl, die, w), ru = *slot;
	u32 gc = w - g->fdp_wpt - g->fdp_ruhs;

	if (w >= g->fdp_wpt + g->fdp_ruhs) {
		/* GC's unit on this die took its share: a fresh one */
		if (ru != FTL_NONE &&
		    f->ru[ru].info.blocks == g->fdp_ru_die_blocks) {
			ftl_ru_close(ftl, ru);
			ru = FTL_NONE;
		}
		if (ru == FTL_NONE)
			ru = ftl_ru_open(ftl, die / g->fdp_rg_dies,
					 g->fdp_gc_wpts > 1 ? gc : FTL_FDP_RUH_MIXED,
					 die, 1, true);
		*slot = ru;
	}
	/* a handle's point fills the unit ftl_fdp.c opened for it */
	if (ftl_warn_once(ru == FTL_NONE))
		return;
	f->blk_ru[bi] = ru;
	f->ru[ru].info.blocks++;
	f->ru[ru].info.live_blocks++;
}

u32 ftl_ru_gc_wpt(const struct ftl *ftl, u32 bi)
{
	const struct ftl_geometry *g = &ftl->geo;
	u32 ru;

	if (!ftl->fdp)
		return ftl_gc_wpt(ftl);
	ru = ftl->fdp->blk_ru[bi];
	if (ru == FTL_NONE)
		return ftl_gc_wpt(ftl);
	if (g->fdp_gc_wpts == 1)
		return g->fdp_wpt + g->fdp_ruhs;
	return g->fdp_wpt + g->fdp_ruhs + ftl->fdp->ru[ru].info.ruh;
}

void ftl_ru_gc_copied(struct ftl *ftl, u32 dst, u32 lpn)
{
	struct ftl_fdp *f = ftl->fdp;
	u32 ru;

	if (!f)
		return;
	ru = f->blk_ru[dst / ftl->geo.units_per_block];
	if (ru != FTL_NONE)
		ftl_ru_media(f, ru, f->lpn_ruh[lpn], FTL_RU_FIELD(gc_units), 1);
}

void ftl_ru_padded(struct ftl *ftl, u32 bi, u32 units)
{
	struct ftl_fdp *f = ftl->fdp;
	u32 ru;

	if (!f || !units)
		return;
	ru = f->blk_ru[bi];
	if (ru != FTL_NONE)
		ftl_ru_media(f, ru, f->ru[ru].info.ruh, FTL_RU_FIELD(pad_units),
			     units);
}

void ftl_ru_block_erased(struct ftl *ftl, u32 bi)
{
	struct ftl_fdp *f = ftl->fdp;
	struct ftl_fdp_ru_info *r;
	u32 ru;

	if (!f)
		return;
	ru = f->blk_ru[bi];
	if (ru == FTL_NONE)
		return;
	f->blk_ru[bi] = FTL_NONE;
	r = &f->ru[ru].info;
	r->live_blocks--;
	ftl_ru_add(f, r->rg, r->ruh, FTL_RU_FIELD(erased_units),
		   ftl->geo.units_per_block);
	if (r->state == FTL_FDP_RU_CLOSED && !r->live_blocks)
		ftl_ru_free(f, ru);
}

struct ftl_fdp_event *ftl_ru_event(struct ftl *ftl, u8 type, u32 rg, u32 ruh,
				   u32 ru, u64 t)
{
	struct ftl_fdp *f = ftl->fdp;
	struct ftl_fdp_event *ev = &f->ev[ftl_mod64(f->ev_total, FTL_FDP_EVENTS)];

	if (ruh < ftl->geo.fdp_ruhs && (f->ev_off[ruh] & ftl_ru_ev_bit(type)))
		return NULL;
	ftl_memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->rg = (u16)rg;
	ev->ruh = (u16)ruh;
	ev->ru = ru;
	ev->time_ns = t;
	ev->units = ru == FTL_NONE ? 0 : f->ru[ru].info.host_units;
	f->ev_total++;
	return ev;
}
