// SPDX-License-Identifier: GPL-2.0
/*
 * Flexible data placement: host writes through reclaim unit handles.
 *
 * The dies are split evenly into reclaim groups; a group's dies into die
 * groups of fdp_ru_dies, consecutive in the channel-first numbering (so
 * on different channels where the drive has enough). Each handle writes
 * one reclaim unit per reclaim group at a time, laid over one die group:
 * the handle's data goes round-robin over those dies, a granule
 * (granularity_bytes) on each before the next, through a write point of the handle's own on
 * each die, which takes blocks of its own (ftl_map.c), so two handles
 * never share a program unit or a block. A unit holds fdp_ru_blocks
 * blocks, the same share on each die; once every die's share is written
 * the handle moves to a fresh unit, opened on the die group of its
 * reclaim group whose dies hold the least valid data (the next in turn
 * on a tie), so handles spread over the dies and data evens out. The
 * layout knob is then what a read sees: a handle's data on one die, on a
 * die group, or striped over the group.
 *
 * The host moves a handle on early with ftl_fdp_update(): the unit is
 * closed, its partial program units padded, and an event says how much
 * it held. The drive does the same when a die of the unit has no room
 * left even after GC (an implicitly modified handle), and when no die of
 * the reclaim group has, the unit goes to the handle's unit in the next
 * group (ftl_fdp_place()).
 *
 * A write into a zoned region follows its zone whatever handle it
 * carries (ftl_zone.c); every other write on a drive with FDP goes
 * through a handle: the one it names, else handle 0 of group 0, and the
 * placement hints of such writes are counted and ignored
 * (hint_ignored_fdp). GC keeps handles apart as ftl_ru.c describes.
 */
#include "ftl_fdp.h"
#include "ftl_map.h"
#include "ftl_ru.h"
#include "ftl_zone.h"

static struct ftl_fdp_ruh *ftl_fdp_handle(const struct ftl *ftl, u32 rg,
					  u32 ruh)
{
	return &ftl->fdp->ruh[(size_t)rg * ftl->geo.fdp_ruhs + ruh];
}

static bool ftl_fdp_valid(const struct ftl *ftl, u32 rg, u32 ruh)
{
	return ftl->fdp && rg < ftl->geo.fdp_rgs && ruh < ftl->geo.fdp_ruhs;
}

/* Units of a reclaim unit on each of its dies. */
static u64 ftl_fdp_die_share(const struct ftl_geometry *g)
{
	return (u64)g->fdp_ru_die_blocks * g->units_per_block;
}

/*
 * First die of the die group of reclaim group @rg whose dies hold the
 * least valid data, from the group after the last one chosen on.
 */
static u32 ftl_fdp_pick_dies(struct ftl *ftl, u32 rg)
{
	const struct ftl_geometry *g = &ftl->geo;
	u32 groups = g->fdp_rg_dies / g->fdp_ru_dies, i, k, best = 0;
	u32 *next = &ftl->fdp->rg_next[rg];
	u64 least = U64_MAX;

	for (i = 0; i < groups; i++) {
		u32 grp = (*next + i) % groups;
		u32 first = rg * g->fdp_rg_dies + grp * g->fdp_ru_dies;
		u64 valid = 0;

		for (k = 0; k < g->fdp_ru_dies; k++)
			valid += ftl->dies[first + k].valid_units;
		if (valid < least) {
			least = valid;
			best = grp;
		}
	}
	*next = (best + 1) % groups;
	return rg * g->fdp_rg_dies + best * g->fdp_ru_dies;
}

static int ftl_fdp_open(struct ftl *ftl, u32 rg, u32 ruh,
			struct ftl_fdp_ruh *h)
{
	const struct ftl_geometry *g = &ftl->geo;
	u32 first = ftl_fdp_pick_dies(ftl, rg), k;

	h->ru = ftl_ru_open(ftl, rg, ruh, first, g->fdp_ru_dies, false);
	if (h->ru == FTL_NONE)
		return -ENOSPC;
	for (k = 0; k < g->fdp_ru_dies; k++) {
		*ftl_ru_of_wpt(ftl, first + k, g->fdp_wpt + ruh) = h->ru;
		h->die_fill[k] = 0;
	}
	h->k = 0;
	h->gran_fill = 0;
	h->placed = 0;
	return 0;
}

/*
 * Handle @ruh stops writing its unit at @t: partial program units are
 * programmed, padded, and the blocks it had begun are full from then on.
 */
static void ftl_fdp_close(struct ftl *ftl, u32 ruh, struct ftl_fdp_ruh *h,
			  u64 t)
{
	const struct ftl_fdp_ru_info *r = &ftl->fdp->ru[h->ru].info;
	u32 w = ftl->geo.fdp_wpt + ruh, k;

	for (k = 0; k < r->dies; k++) {
		ftl_wpt_pad(ftl, r->first_die + k, w, t);
		ftl_wpt_drop_block(ftl, r->first_die + k, w);
		*ftl_ru_of_wpt(ftl, r->first_die + k, w) = FTL_NONE;
	}
	ftl_ru_close(ftl, h->ru);
	h->ru = FTL_NONE;
}

/*
 * The unit's die (index in it) for the handle's next unit: the one it is
 * on until its granule is complete, then the next with room; FTL_NONE
 * once the unit is full.
 */
static u32 ftl_fdp_next_die(const struct ftl_geometry *g,
			    struct ftl_fdp_ruh *h)
{
	u64 share = ftl_fdp_die_share(g);
	u32 i;

	for (i = 0; i <= g->fdp_ru_dies; i++) {
		if (h->gran_fill < g->gran_units && h->die_fill[h->k] < share)
			return h->k;
		h->k = (h->k + 1) % g->fdp_ru_dies;
		h->gran_fill = 0;
	}
	return FTL_NONE;
}

/* The handle moves on before its unit is full: @type says why. */
static void ftl_fdp_move_on(struct ftl *ftl, u32 rg, u32 ruh,
			    struct ftl_fdp_ruh *h, u8 type, size_t field,
			    u64 t)
{
	ftl_ru_event(ftl, type, rg, ruh, h->ru, t);
	ftl_ru_add(ftl->fdp, rg, ruh, field, 1);
	ftl_fdp_close(ftl, ruh, h, t);
}

/* ftl_fdp_place() in reclaim group @rg only. */
static int ftl_fdp_place_in(struct ftl *ftl, u32 rg, u32 ruh, u32 lpn, u64 t,
			    u32 *ppa, u32 *die)
{
	const struct ftl_geometry *g = &ftl->geo;
	struct ftl_fdp_ruh *h = ftl_fdp_handle(ftl, rg, ruh);
	u32 tries = 0, k;

	for (;;) {
		if (h->ru == FTL_NONE && ftl_fdp_open(ftl, rg, ruh, h))
			return -ENOSPC;
		k = ftl_fdp_next_die(g, h);
		if (k == FTL_NONE) {
			ftl_ru_add(ftl->fdp, rg, ruh, FTL_RU_FIELD(ru_fills), 1);
			ftl_fdp_close(ftl, ruh, h, t);
			continue;
		}
		*die = ftl->fdp->ru[h->ru].info.first_die + k;
		if ((!ftl->nr_zoned || ftl_conv_room(ftl, *die)) &&
		    !ftl_alloc_slot(ftl, *die, g->fdp_wpt + ruh, false, t, ppa))
			break;
		/* a die without room: every die group of the group is tried */
		if (++tries > g->fdp_rg_dies / g->fdp_ru_dies)
			return -ENOSPC;
		if (h->placed)
			ftl_fdp_move_on(ftl, rg, ruh, h, FTL_FDP_EV_RUH_IMPLICIT,
					FTL_RU_FIELD(ru_implicit), t);
		else
			ftl_fdp_close(ftl, ruh, h, t);
	}
	h->gran_fill++;
	h->die_fill[k]++;
	h->placed++;
	h->used = 1;
	ftl->fdp->lpn_ruh[lpn] = (u8)ruh;
	ftl_ru_host_placed(ftl, h->ru, ruh, 1);
	return 0;
}

/*
 * A reclaim group holds what its dies hold: once the one a write names
 * has no room, the unit goes to the same handle in the next group that
 * has (a placement fallback), as a full die's unit goes to the next die
 * without FDP, so the drive takes what its capacity promises.
 */
int ftl_fdp_place(struct ftl *ftl, u32 rg, u32 ruh, u32 lpn, u64 t, u32 *ppa,
		  u32 *die)
{
	u32 i;

	for (i = 0; i < ftl->geo.fdp_rgs; i++) {
		if (ftl_fdp_place_in(ftl, (rg + i) % ftl->geo.fdp_rgs, ruh, lpn,
				     t, ppa, die))
			continue;
		ftl->st.placement_fallbacks += i > 0;
		return 0;
	}
	return -ENOSPC;
}

int ftl_fdp_update(struct ftl *ftl, u32 rg, u32 ruh, u64 now)
{
	struct ftl_fdp_ruh *h;

	if (!ftl_fdp_valid(ftl, rg, ruh))
		return -EINVAL;
	h = ftl_fdp_handle(ftl, rg, ruh);
	if (h->ru != FTL_NONE && h->placed)
		ftl_fdp_move_on(ftl, rg, ruh, h, FTL_FDP_EV_RU_NOT_FULL,
				FTL_RU_FIELD(ru_updates), now);
	return 0;
}

int ftl_fdp_ruh_get(const struct ftl *ftl, u32 rg, u32 ruh,
		    struct ftl_fdp_ruh_status *st)
{
	const struct ftl_fdp_ruh *h;

	if (!ftl_fdp_valid(ftl, rg, ruh))
		return -EINVAL;
	h = ftl_fdp_handle(ftl, rg, ruh);
	st->ru = h->ru;
	st->used = h->used;
	st->ru_units = ftl_fdp_die_share(&ftl->geo) * ftl->geo.fdp_ru_dies;
	st->avail_units = st->ru_units - (h->ru == FTL_NONE ? 0 : h->placed);
	return 0;
}

int ftl_fdp_stats_get(const struct ftl *ftl, u32 which, bool per_ruh,
		      struct ftl_fdp_stats *st)
{
	const struct ftl_fdp *f = ftl->fdp;

	if (!f)
		return -EINVAL;
	if (which == FTL_FDP_NONE)
		*st = f->total;
	else if (per_ruh && which < ftl->geo.fdp_ruhs)
		*st = f->ruh_st[which];
	else if (!per_ruh && which < ftl->geo.fdp_rgs)
		*st = f->rg_st[which];
	else
		return -EINVAL;
	return 0;
}

void ftl_fdp_stats_reset(struct ftl *ftl)
{
	struct ftl_fdp *f = ftl->fdp;

	if (!f)
		return;
	ftl_memset(&f->total, 0, sizeof(f->total));
	ftl_memset(f->rg_st, 0, ftl->geo.fdp_rgs * sizeof(*f->rg_st));
	ftl_memset(f->ruh_st, 0, ftl->geo.fdp_ruhs * sizeof(*f->ruh_st));
}

u32 ftl_fdp_nr_ru(const struct ftl *ftl)
{
	return ftl->fdp ? ftl->fdp->nr_ru : 0;
}

int ftl_fdp_ru_get(const struct ftl *ftl, u32 ru, struct ftl_fdp_ru_info *info)
{
	if (ru >= ftl_fdp_nr_ru(ftl))
		return -EINVAL;
	*info = ftl->fdp->ru[ru].info;
	return 0;
}

int ftl_fdp_locate(const struct ftl *ftl, u64 off, u32 *ru, u32 *ruh)
{
	u64 lpn = off >> FTL_MAP_SHIFT;
	u32 ppa;

	if (!ftl->fdp || lpn >= ftl->geo.logical_units)
		return -ENOENT;
	ppa = ftl->l2p[lpn];
	if (ppa == FTL_NONE)
		return -ENOENT;
	*ru = ftl->fdp->blk_ru[ppa / ftl->geo.units_per_block];
	*ruh = ftl->fdp->lpn_ruh[lpn];
	return *ru == FTL_NONE ? -ENOENT : 0;
}

u32 ftl_fdp_events(const struct ftl *ftl, struct ftl_fdp_event *out, u32 max,
		   u64 *lost)
{
	const struct ftl_fdp *f = ftl->fdp;
	u64 kept, first, i;

	*lost = 0;
	if (!f)
		return 0;
	kept = ftl_min64(f->ev_total, FTL_FDP_EVENTS);
	*lost = f->ev_total - kept;
	kept = ftl_min64(kept, max);
	first = f->ev_total - kept;
	for (i = 0; i < kept; i++)
		out[i] = f->ev[ftl_mod64(first + i, FTL_FDP_EVENTS)];
	return (u32)kept;
}

bool ftl_fdp_event_supported(u8 type)
{
	return type == FTL_FDP_EV_RU_NOT_FULL ||
	       type == FTL_FDP_EV_INVALID_PID ||
	       type == FTL_FDP_EV_RUH_IMPLICIT;
}

int ftl_fdp_event_enable(struct ftl *ftl, u32 ruh, u8 type, bool on)
{
	struct ftl_fdp *f = ftl->fdp;

	if (!f || ruh >= ftl->geo.fdp_ruhs || !ftl_fdp_event_supported(type))
		return -EINVAL;
	if (on)
		f->ev_off[ruh] &= ~ftl_ru_ev_bit(type);
	else
		f->ev_off[ruh] |= ftl_ru_ev_bit(type);
	return 0;
}

bool ftl_fdp_event_enabled(const struct ftl *ftl, u32 ruh, u8 type)
{
	const struct ftl_fdp *f = ftl->fdp;

	return f && ruh < ftl->geo.fdp_ruhs && ftl_fdp_event_supported(type) &&
	       !(f->ev_off[ruh] & ftl_ru_ev_bit(type));
}

void ftl_fdp_event_invalid_pid(struct ftl *ftl, u32 ruh, u16 pid, u32 nsid,
			       u64 now)
{
	struct ftl_fdp_event *ev;

	if (!ftl->fdp || ruh >= ftl->geo.fdp_ruhs)
		return;
	ev = ftl_ru_event(ftl, FTL_FDP_EV_INVALID_PID, 0, ruh,
			  ftl_fdp_handle(ftl, 0, ruh)->ru, now);
	if (ev) {
		ev->pid = pid;
		ev->nsid = nsid;
	}
}

int ftl_fdp_check(const struct ftl *ftl, char *err, size_t errlen)
{
	const struct ftl_geometry *g = &ftl->geo;
	const struct ftl_fdp *f = ftl->fdp;
	u64 lpn, taken = 0, live = 0, i;

	if (!f)
		return 0;
	for (lpn = 0; lpn < g->logical_units; lpn++) {
		u32 ppa = ftl->l2p[lpn], ru;
		const struct ftl_fdp_ru_info *r;

		if (ppa == FTL_NONE)
			continue;
		ru = f->blk_ru[ppa / g->units_per_block];
		if (ru == FTL_NONE)
			continue;
		r = &f->ru[ru].info;
		if (r->state == FTL_FDP_RU_FREE ||
		    (r->ruh != FTL_FDP_RUH_MIXED && r->ruh != f->lpn_ruh[lpn]))
			return ftl_err(-EIO, err, errlen,
				       "lpn %llu of handle %u is in reclaim unit %u of handle %u (state %u)",
				       (unsigned long long)lpn, f->lpn_ruh[lpn],
				       ru, r->ruh, r->state);
	}
	for (i = 0; i < (u64)g->dies * g->blocks_per_die; i++)
		taken += f->blk_ru[i] != FTL_NONE;
	for (i = 0; i < f->nr_ru; i++)
		if (f->ru[i].info.state != FTL_FDP_RU_FREE)
			live += f->ru[i].info.live_blocks;
	if (taken != live)
		return ftl_err(-EIO, err, errlen,
			       "%llu blocks are in reclaim units, which count %llu",
			       (unsigned long long)taken,
			       (unsigned long long)live);
	return 0;
}
