// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics, inspection and the consistency checker. Read-only views of
 * the model for the transport, the simulator and the tests, so none of
 * them needs to know the layout of struct ftl. The top layer of ftl/: the
 * checker reads what every layer below keeps.
 */
#include "ftl.h"
#include "ftl_map.h"
#include "ftl_placement.h"
#include "ftl_zone.h"

void ftl_stats_get(const struct ftl *ftl, struct ftl_stats *st)
{
	*st = ftl->st;
}

void ftl_die_stats_get(const struct ftl *ftl, u32 die,
		       struct ftl_die_stats *st)
{
	const struct ftl_die *d;

	ftl_memset(st, 0, sizeof(*st));
	if (die >= ftl->geo.dies)
		return;
	d = &ftl->dies[die];
	*st = d->st;
	st->free_blocks = d->free_count;
	st->valid_units = d->valid_units;
	st->erases_total = d->erases_total;
}

void ftl_stats_reset(struct ftl *ftl)
{
	u32 die;

	ftl_memset(&ftl->st, 0, sizeof(ftl->st));
	for (die = 0; die < ftl->geo.dies; die++)
		ftl_memset(&ftl->dies[die].st, 0, sizeof(ftl->dies[die].st));
	ftl_fdp_stats_reset(ftl);
}

u64 ftl_waf_milli(const struct ftl *ftl)
{
	if (!ftl->st.host_write_units)
		return 0;
	return ftl_div64(ftl->st.nand_write_units * 1000,
			 ftl->st.host_write_units);
}

void ftl_cursor(const struct ftl *ftl, u32 *die, u32 *granule_units)
{
	ftl_place_cursor(ftl, die, granule_units);
}

int ftl_zone_stats_get(const struct ftl *ftl, u64 off,
		       struct ftl_zone_stats *st)
{
	return ftl_zone_stats_at(ftl, off, st);
}

u32 ftl_block_erases(const struct ftl *ftl, u32 die, u32 block)
{
	if (die >= ftl->geo.dies || block >= ftl->geo.blocks_per_die)
		return 0;
	return ftl->blocks[ftl_blk_index(ftl, die, block)].erases;
}

/* Describe an inconsistency in @err and return -EIO. */
#define ftl_bad(err, errlen, ...)	ftl_err(-EIO, err, errlen, __VA_ARGS__)

static int ftl_check_block(const struct ftl *ftl, u32 die, u32 blk,
			   u32 *valid_out, char *err, size_t errlen)
{
	const struct ftl_geometry *g = &ftl->geo;
	const struct ftl_die *d = &ftl->dies[die];
	const struct ftl_block *b = &ftl->blocks[ftl_blk_index(ftl, die, blk)];
	u32 base = ftl_ppa(ftl, die, blk, 0), valid = 0, held = 0, off, w;
	bool marked_open, handed = blk == d->open_blk;
	u32 limit = handed ? d->next_pu * g->pu_units : g->units_per_block;

	for (w = 0; w < g->wpts; w++) {
		if (d->wpt[w].pu != FTL_NONE &&
		    d->wpt[w].pu / g->units_per_block == base / g->units_per_block)
			held++;
		/* an FDP point's own block: handed out up to its next unit */
		if (ftl_wpt_owns_blocks(ftl, w) && d->wpt[w].own_blk == blk) {
			handed = true;
			limit = d->wpt[w].own_next_pu * g->pu_units;
		}
	}
	if (handed != (blk == d->open_blk || b->own_open))
		return ftl_bad(err, errlen,
			       "die %u block %u: handed out %u, marked %u",
			       die, blk, handed, b->own_open);
	if (held != b->pending)
		return ftl_bad(err, errlen,
			       "die %u block %u: write points hold %u program units, %u recorded",
			       die, blk, held, b->pending);
	marked_open = b->state == FTL_BLK_OPEN;
	if ((handed || held) != marked_open)
		return ftl_bad(err, errlen,
			       "die %u block %u: state %u, open block %u, %u program units held",
			       die, blk, b->state, d->open_blk, held);
	for (off = 0; off < g->units_per_block; off++) {
		u32 lpn = ftl->p2l[base + off];
		const struct ftl_wpt *p;

		if (lpn == FTL_NONE)
			continue;
		p = b->state == FTL_BLK_OPEN ?
		    ftl_wpt_of_slot(ftl, die, base + off) : NULL;
		if (b->state == FTL_BLK_FREE || off >= limit ||
		    (p && off % g->pu_units >= p->fill))
			return ftl_bad(err, errlen,
				       "die %u block %u offset %u: free or unwritten slot maps lpn %u",
				       die, blk, off, lpn);
		if (lpn >= g->logical_units || ftl->l2p[lpn] != base + off)
			return ftl_bad(err, errlen,
				       "P2L[%u] = %u but L2P of it is %u",
				       base + off, lpn,
				       lpn < g->logical_units ? ftl->l2p[lpn] : FTL_NONE);
		valid++;
	}
	if (valid != b->valid)
		return ftl_bad(err, errlen,
			       "die %u block %u: %u valid units counted, %u recorded",
			       die, blk, valid, b->valid);
	*valid_out = valid;
	return 0;
}

static int ftl_check_die(const struct ftl *ftl, u32 die, char *err,
			 size_t errlen)
{
	const struct ftl_geometry *g = &ftl->geo;
	const struct ftl_die *d = &ftl->dies[die];
	u32 blk, free_seen = 0, cur, valid = 0;
	u64 die_valid = 0;
	int ret;

	for (blk = 0; blk < g->blocks_per_die; blk++) {
		ret = ftl_check_block(ftl, die, blk, &valid, err, errlen);
		if (ret)
			return ret;
		die_valid += valid;
	}
	if (die_valid != d->valid_units)
		return ftl_bad(err, errlen,
			       "die %u: %llu valid units counted, %llu recorded",
			       die, (unsigned long long)die_valid,
			       (unsigned long long)d->valid_units);

	for (cur = d->free_head; cur != FTL_NONE;
	     cur = ftl->blocks[ftl_blk_index(ftl, die, cur)].next) {
		if (cur >= g->blocks_per_die || free_seen >= g->blocks_per_die)
			return ftl_bad(err, errlen, "die %u: free list is corrupt",
				       die);
		if (ftl->blocks[ftl_blk_index(ftl, die, cur)].state != FTL_BLK_FREE)
			return ftl_bad(err, errlen,
				       "die %u block %u on the free list is not free",
				       die, cur);
		free_seen++;
	}
	if (free_seen != d->free_count)
		return ftl_bad(err, errlen,
			       "die %u: free list holds %u blocks, count says %u",
			       die, free_seen, d->free_count);
	return 0;
}

int ftl_check(const struct ftl *ftl, char *err, size_t errlen)
{
	const struct ftl_geometry *g = &ftl->geo;
	u32 die, below = 0;
	u64 lpn;
	int ret;

	for (lpn = 0; lpn < g->logical_units; lpn++) {
		u32 ppa = ftl->l2p[lpn];

		if (ppa == FTL_NONE)
			continue;
		if (ppa >= g->phys_units || ftl->p2l[ppa] != lpn)
			return ftl_bad(err, errlen,
				       "L2P[%llu] = %u but P2L of it is %u",
				       (unsigned long long)lpn, ppa,
				       ppa < g->phys_units ? ftl->p2l[ppa] : FTL_NONE);
	}
	for (die = 0; die < g->dies; die++) {
		ret = ftl_check_die(ftl, die, err, errlen);
		if (ret)
			return ret;
		if (ftl->dies[die].free_count < g->gc_bg)
			below++;
	}
	if (below != ftl->dies_below_bg)
		return ftl_bad(err, errlen,
			       "%u dies below the GC threshold, %u recorded",
			       below, ftl->dies_below_bg);
	if (ftl->wb.used > g->wb_units)
		return ftl_bad(err, errlen,
			       "write buffer holds %u units, capacity %u",
			       ftl->wb.used, g->wb_units);
	if (ftl_zoned_check_all(ftl, err, errlen))
		return -EIO;
	return ftl_fdp_check(ftl, err, errlen);
}
