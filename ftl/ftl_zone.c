// SPDX-License-Identifier: GPL-2.0
/*
 * Zones on flash: a zoned region of the logical space (a zoned namespace)
 * whose zones own the erase blocks they fill whole.
 *
 * A zone spans @width dies, consecutive in the channel-first numbering so
 * that they sit on different channels where the drive has enough, and
 * zone z starts on die (z * width) % dies, so neighbouring zones use
 * different dies. Writes follow the write pointer: granule s of a zone
 * (granularity_bytes, as in the conventional placement) goes to the
 * zone's die s % width. On each die the zone's share (its units there)
 * fills blocks of its own in order as far as it fills them whole: the
 * slot of such a unit is a function of its offset in the zone, nothing
 * in those blocks is ever remapped (they are not GC victims), and a reset
 * erases them and gives them back to their dies' free lists. Blocks are
 * taken as the write pointer reaches them, so an empty zone holds none.
 *
 * The rest of a share, less than a block (all of it when the share is
 * smaller than a block), is its tail: its units go to the die's shared
 * blocks through the die's shared write point, as conventional data
 * does, and GC moves them inside the die like conventional data. A reset
 * deallocates them. So a full zone takes on each die the flash its share
 * holds, no more, and the layout's check (ftl_zoned_fits()) only has to
 * see that each die holds its zones' shares beside GC's headroom; the
 * conventional space takes what its dies have left (ftl_conv_room()).
 *
 * A partly filled program unit of an open zone stays in the write buffer
 * until the zone's writes complete it, a finish programs it padded, or a
 * reset drops it: open zones cost buffer space, one reason real drives
 * limit them.
 */
#include "ftl_map.h"
#include "ftl_timing.h"
#include "ftl_zone.h"

#define FTL_ZONE_POS_NONE	FTL_NONE

/* One zone's share of one of its dies. */
struct ftl_zone_die {
	u32 last_pos;		/* the zone's last unit placed there, FTL_NONE */
	u32 pu_fill;		/* host units in its unprogrammed program unit */
};

/*
 * A zoned region of the logical space. A zone's share of one of its dies
 * fills blocks of the zone's own as far as it fills them whole; the rest
 * of it, the tail, goes to the die's shared blocks.
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

static struct ftl_zone_die *ftl_zd(const struct ftl_zoned *zr, u32 zone,
				   u32 w)
{
	return &zr->zd[(u64)zone * zr->width + w];
}

static u32 *ftl_zone_blk(const struct ftl_zoned *zr, u32 zone, u32 w, u32 k)
{
	return &zr->blk[((u64)zone * zr->width + w) * zr->blocks_per_zd + k];
}

static u32 ftl_zone_die(const struct ftl *ftl, const struct ftl_zoned *zr,
			u32 zone, u32 w)
{
	return (u32)ftl_mod64((u64)zone * zr->width + w, ftl->geo.dies);
}

/* Units of a die's data beside GC's headroom (geo.gc_headroom). */
static u64 ftl_die_data_units(const struct ftl *ftl)
{
	const struct ftl_geometry *g = &ftl->geo;

	return (u64)(g->blocks_per_die - g->gc_headroom) * g->units_per_block;
}

u64 ftl_conv_room(const struct ftl *ftl, u32 die)
{
	const struct ftl_die *d = &ftl->dies[die];
	u64 used = d->valid_units - d->zone_valid + d->zone_claim;
	u64 data = ftl_die_data_units(ftl);

	/* one more: an overwrite places its unit before the old one goes */
	return used > data ? 0 : data - used + 1;
}

/* The first zoned region that units @first..@first+@n-1 touch, if any. */
static struct ftl_zoned *ftl_zoned_touched(const struct ftl *ftl, u64 first,
					   u64 n)
{
	u32 i;

	for (i = 0; i < ftl->nr_zoned; i++) {
		struct ftl_zoned *zr = ftl->zoned[i];

		if (first < zr->first + (u64)zr->nr_zones * zr->zone_units &&
		    zr->first < first + n)
			return zr;
	}
	return NULL;
}

struct ftl_zoned *ftl_zoned_find(const struct ftl *ftl, u64 lpn)
{
	return ftl_zoned_touched(ftl, lpn, 1);
}

bool ftl_zoned_overlap(const struct ftl *ftl, u64 first, u64 n)
{
	return ftl_zoned_touched(ftl, first, n);
}

void ftl_zoned_invalidate(struct ftl *ftl, u32 lpn)
{
	u32 die = ftl_invalidate(ftl, lpn);

	if (die != FTL_NONE && ftl->nr_zoned && ftl_zoned_find(ftl, lpn))
		ftl->dies[die].zone_valid--;
}

/*
 * Where zone offset @o (units) lives: which of the zone's dies (@w) and
 * the position on it in the zone's own sequence of units there.
 */
static void ftl_zone_pos(const struct ftl *ftl, const struct ftl_zoned *zr,
			 u64 o, u32 *w, u32 *pos)
{
	u32 gran = ftl->geo.gran_units;
	u64 s = ftl_div64(o, gran);

	*w = (u32)ftl_mod64(s, zr->width);
	*pos = (u32)(ftl_div64(s, zr->width) * gran + ftl_mod64(o, gran));
}

/*
 * A block for the zone on @die: from the free list, after foreground GC
 * of the die's conventional data if it runs short. Never the GC reserve.
 */
static int ftl_zone_take_block(struct ftl *ftl, u32 die, u64 t, u32 *blk)
{
	struct ftl_die *d = &ftl->dies[die];
	struct ftl_block *b;

	if (d->free_count <= ftl->geo.gc_fg)
		ftl_gc_foreground(ftl, die, t);
	if (d->free_count <= FTL_GC_RESERVE)
		return -ENOSPC;
	*blk = ftl_free_pop(ftl, die);
	b = &ftl->blocks[ftl_blk_index(ftl, die, *blk)];
	b->state = FTL_BLK_ZONE;
	b->prog = 0;
	return 0;
}

/*
 * Program the open program unit of the zone's die @w, padded if it is
 * not complete, at @t; its host units leave the buffer when it is done.
 */
static u64 ftl_zone_program(struct ftl *ftl, struct ftl_zoned *zr, u32 zone,
			    u32 w, u64 t)
{
	struct ftl_zone_die *zd = ftl_zd(zr, zone, w);
	u32 die = ftl_zone_die(ftl, zr, zone, w);
	u32 upb = ftl->geo.units_per_block, pu = ftl->geo.pu_units;
	u32 k = zd->last_pos / upb;
	struct ftl_block *b;

	b = &ftl->blocks[ftl_blk_index(ftl, die, *ftl_zone_blk(zr, zone, w, k))];
	ftl_program(ftl, die, t, zd->pu_fill);
	b->prog = (zd->last_pos % upb) / pu * pu + pu;
	zr->st[zone].nand_write_units += pu;
	zr->st[zone].pad_units += pu - zd->pu_fill;
	zd->pu_fill = 0;
	return ftl->dies[die].busy_until;
}

/*
 * The slot of zone offset @o for a host unit arriving at @t: its block
 * taken if it is the first unit there, an earlier program unit left
 * incomplete (a hole in the zone, as Write Zeroes leaves) programmed.
 */
static int ftl_zone_slot(struct ftl *ftl, struct ftl_zoned *zr, u32 zone,
			 u64 o, u64 t, u32 *ppa, u32 *w_out, u32 *pos_out)
{
	u32 upb = ftl->geo.units_per_block, pu = ftl->geo.pu_units;
	u32 w, pos, die, *blk;
	struct ftl_zone_die *zd;

	ftl_zone_pos(ftl, zr, o, &w, &pos);
	zd = ftl_zd(zr, zone, w);
	die = ftl_zone_die(ftl, zr, zone, w);
	/* flash is written once between erases: only beyond what was placed */
	if (zd->last_pos != FTL_ZONE_POS_NONE && pos <= zd->last_pos)
		return -EINVAL;
	if (zd->pu_fill && pos / pu != zd->last_pos / pu)
		ftl_zone_program(ftl, zr, zone, w, t);
	blk = ftl_zone_blk(zr, zone, w, pos / upb);
	if (*blk == FTL_NONE) {
		if (ftl_zone_take_block(ftl, die, t, blk))
			return -ENOSPC;
		zr->st[zone].blocks++;
	}
	*ppa = ftl_ppa(ftl, die, *blk, pos % upb);
	*w_out = w;
	*pos_out = pos;
	return 0;
}

/*
 * The slot of the unit at zone position @pos of die @w that a write of
 * some of its sectors placed, was deallocated since (a Dataset Management
 * of a 512-byte namespace covering it whole) and is still in the buffer:
 * the rest of its sectors go there, so the write pointer can move on.
 * FTL_NONE if there is none.
 */
static u32 ftl_zone_refill_slot(const struct ftl *ftl,
				const struct ftl_zoned *zr, u32 zone, u32 w,
				u32 pos)
{
	const struct ftl_zone_die *zd = ftl_zd(zr, zone, w);
	u32 upb = ftl->geo.units_per_block, blk, ppa;

	if (pos != zd->last_pos || !zd->pu_fill || pos >= zr->own_units[w])
		return FTL_NONE;
	blk = *ftl_zone_blk(zr, zone, w, pos / upb);
	if (blk == FTL_NONE)
		return FTL_NONE;
	ppa = ftl_ppa(ftl, ftl_zone_die(ftl, zr, zone, w), blk, pos % upb);
	if (ftl->p2l[ppa] != FTL_NONE || !ftl_unit_buffered(ftl, ppa))
		return FTL_NONE;
	return ppa;
}

/*
 * Whether units @first..@first+@n-1 (zone offset @o on) may be written:
 * each beyond what its die holds, or the unit at the write pointer whose
 * other sectors are buffered. Changes nothing.
 */
static bool ftl_zone_write_ok(const struct ftl *ftl,
			      const struct ftl_zoned *zr, u32 zone, u64 first,
			      u64 o, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++) {
		u32 ppa = ftl->l2p[first + i], w, pos;
		const struct ftl_zone_die *zd;

		ftl_zone_pos(ftl, zr, o + i, &w, &pos);
		zd = ftl_zd(zr, zone, w);
		if (pos >= zr->own_units[w]) {
			/* a tail unit at the pointer is placed again */
			if (zd->last_pos != FTL_ZONE_POS_NONE && pos < zd->last_pos)
				return false;
		} else if (ppa != FTL_NONE) {
			if (pos != zd->last_pos || !ftl_unit_buffered(ftl, ppa))
				return false;
		} else if (zd->last_pos != FTL_ZONE_POS_NONE &&
			   pos <= zd->last_pos &&
			   ftl_zone_refill_slot(ftl, zr, zone, w, pos) == FTL_NONE) {
			return false;
		}
	}
	return true;
}

/*
 * Blocks @die's shared write point must open to take @n more units: what
 * its program unit and the die's open block have left comes first.
 */
static u32 ftl_tail_blocks(const struct ftl *ftl, u32 die, u64 n)
{
	const struct ftl_geometry *g = &ftl->geo;
	const struct ftl_die *d = &ftl->dies[die];
	const struct ftl_wpt *p = &d->wpt[0];
	u64 room = 0;

	if (p->pu != FTL_NONE)
		room += g->pu_units - p->fill;
	if (d->open_blk != FTL_NONE)
		room += (u64)(g->units_per_block / g->pu_units - d->next_pu) *
			g->pu_units;
	if (n <= room)
		return 0;
	return (u32)ftl_div64(n - room + g->units_per_block - 1,
			      g->units_per_block);
}

/*
 * Whether each die of the zone has the free blocks the write's units
 * need there, for blocks of the zone's and for its tail (after
 * foreground GC of the die's shared blocks, which moves nothing of the
 * zone's own), so that placing them cannot stop part-way.
 */
static bool ftl_zone_space_ok(struct ftl *ftl, struct ftl_zoned *zr,
			      u32 zone, u64 o, u64 n, u64 t)
{
	const struct ftl_geometry *g = &ftl->geo;
	u32 upb = g->units_per_block, w;
	u64 i;

	for (w = 0; w < zr->width; w++) {
		u32 lo = FTL_NONE, hi = 0, k, need = 0, die, pos, wi;
		u64 tail = 0;
		struct ftl_die *d;

		for (i = 0; i < n; i++) {
			ftl_zone_pos(ftl, zr, o + i, &wi, &pos);
			if (wi != w)
				continue;
			if (pos >= zr->own_units[w]) {
				tail++;
				continue;
			}
			lo = ftl_min64(lo, pos);
			hi = ftl_max64(hi, pos);
		}
		if (lo != FTL_NONE)
			for (k = lo / upb; k <= hi / upb; k++)
				need += *ftl_zone_blk(zr, zone, w, k) == FTL_NONE;
		die = ftl_zone_die(ftl, zr, zone, w);
		if (tail)
			need += ftl_tail_blocks(ftl, die, tail);
		if (!need)
			continue;
		d = &ftl->dies[die];
		if (d->free_count <= g->gc_fg + need)
			ftl_gc_until(ftl, die, t,
				     ftl_max64(g->gc_fg + 1,
					       FTL_GC_RESERVE + 1 + need));
		if (d->free_count < FTL_GC_RESERVE + 1 + need)
			return false;
	}
	return true;
}

/*
 * A tail unit at zone position @pos of die @w for data ready at @t: a
 * slot of the die's shared write point. A program unit of the zone's own
 * blocks left incomplete (a hole before the tail) is programmed first.
 */
static int ftl_zone_tail_write(struct ftl *ftl, struct ftl_zoned *zr,
			       u32 zone, u32 w, u32 pos, u32 lpn, u64 t)
{
	struct ftl_zone_die *zd = ftl_zd(zr, zone, w);
	u32 die = ftl_zone_die(ftl, zr, zone, w), ppa;
	bool again = zd->last_pos != FTL_ZONE_POS_NONE && pos <= zd->last_pos;

	if (zd->pu_fill)
		ftl_zone_program(ftl, zr, zone, w, t);
	if (ftl_alloc_slot(ftl, die, 0, false, t, &ppa))
		return -ENOSPC;
	/* placed again (the rest of its sectors): the old copy goes */
	ftl_zoned_invalidate(ftl, lpn);
	ftl->p2l[ppa] = lpn;
	ftl->l2p[lpn] = ppa;
	ftl->dies[die].zone_valid++;
	ftl->dies[die].st.host_write_units++;
	ftl->st.host_write_units++;
	zr->st[zone].nand_write_units++;
	if (!again)
		zr->st[zone].host_write_units++;
	zd->last_pos = pos;
	return 0;
}

/*
 * A zoned write is checked whole before a unit of it is placed: a write
 * that fails changes nothing, so the model never holds units the device's
 * write pointer has not passed (they would read as the failed write's
 * data and refuse every later write at the pointer).
 */
int ftl_zone_write(struct ftl *ftl, struct ftl_zoned *zr,
		   const struct ftl_cmd *cmd, u64 first, u64 n, u64 t,
		   u64 *done)
{
	u32 pu = ftl->geo.pu_units;
	u64 rel = first - zr->first;
	u32 zone = (u32)ftl_div64(rel, zr->zone_units);
	u64 o = rel - (u64)zone * zr->zone_units, i;
	u64 end = cmd->off + cmd->len;
	int status = FTL_OK, ret;

	*done = t;
	if (o + n > zr->cap_units)
		return FTL_ERR_INVALID;	/* across the zone's capacity */
	if (!ftl_zone_write_ok(ftl, zr, zone, first, o, n))
		return FTL_ERR_INVALID;
	if (!ftl_zone_space_ok(ftl, zr, zone, o, n, t))
		return FTL_ERR_NO_SPACE;
	for (i = 0; i < n; i++) {
		u32 lpn = (u32)(first + i), ppa, w, pos;
		struct ftl_zone_die *zd;

		ftl_zone_pos(ftl, zr, o + i, &w, &pos);
		zd = ftl_zd(zr, zone, w);
		if (pos >= zr->own_units[w]) {
			t = ftl_bw_reserve(ftl, &ftl->link_rx,
					   ftl_wbuf_acquire(ftl, t), FTL_MAP_UNIT);
			ret = ftl_zone_tail_write(ftl, zr, zone, w, pos, lpn, t);
			/* checked above: only a broken invariant fails here */
			if (ftl_warn_once(ret)) {
				ftl->wb.used--;		/* never entered */
				status = FTL_ERR_NO_SPACE;
				break;
			}
			continue;
		}
		ppa = ftl->l2p[lpn] == FTL_NONE ?
		      ftl_zone_refill_slot(ftl, zr, zone, w, pos) : FTL_NONE;
		if (ppa != FTL_NONE) {
			/* its buffer space was taken when it was first placed */
			t = ftl_bw_reserve(ftl, &ftl->link_rx, t, FTL_MAP_UNIT);
			ftl->p2l[ppa] = lpn;
			ftl->l2p[lpn] = ppa;
			ftl->blocks[ppa / ftl->geo.units_per_block].valid++;
			ftl->dies[ftl_die_of(ftl, ppa)].valid_units++;
			ftl->dies[ftl_die_of(ftl, ppa)].zone_valid++;
		} else if (ftl->l2p[lpn] == FTL_NONE) {
			t = ftl_bw_reserve(ftl, &ftl->link_rx,
					   ftl_wbuf_acquire(ftl, t), FTL_MAP_UNIT);
			ret = ftl_zone_slot(ftl, zr, zone, o + i, t, &ppa, &w,
					    &pos);
			/* checked above: only a broken invariant fails here */
			if (ftl_warn_once(ret)) {
				ftl->wb.used--;		/* never entered */
				status = ret == -EINVAL ? FTL_ERR_INVALID :
					 FTL_ERR_NO_SPACE;
				break;
			}
			ftl->p2l[ppa] = lpn;
			ftl->l2p[lpn] = ppa;
			ftl->blocks[ppa / ftl->geo.units_per_block].valid++;
			ftl->dies[ftl_die_of(ftl, ppa)].valid_units++;
			ftl->dies[ftl_die_of(ftl, ppa)].zone_valid++;
			ftl->dies[ftl_die_of(ftl, ppa)].st.host_write_units++;
			ftl->st.host_write_units++;
			zr->st[zone].host_write_units++;
			zd->last_pos = pos;
			zd->pu_fill++;
		}
		/*
		 * Otherwise the unit at the write pointer was placed by an
		 * earlier write of some of its sectors: the rest joins it in
		 * the buffer (checked above).
		 */
		/* a program unit is programmed once its last unit is whole */
		if (zd->pu_fill && pos == zd->last_pos && pos % pu == pu - 1 &&
		    end >= (first + i + 1) << FTL_MAP_SHIFT)
			ftl_zone_program(ftl, zr, zone, w, t);
	}
	*done = t;
	return status;
}

static int ftl_zone_of(const struct ftl *ftl, u64 off, struct ftl_zoned **zr,
		       u32 *zone)
{
	u64 lpn = off >> FTL_MAP_SHIFT, rel;

	if (off & (FTL_MAP_UNIT - 1))
		return FTL_ERR_INVALID;
	*zr = ftl_zoned_find(ftl, lpn);
	if (!*zr)
		return FTL_ERR_RANGE;
	rel = lpn - (*zr)->first;
	*zone = (u32)ftl_div64(rel, (*zr)->zone_units);
	if (rel != (u64)*zone * (*zr)->zone_units)
		return FTL_ERR_INVALID;
	return FTL_OK;
}

int ftl_zone_reset_at(struct ftl *ftl, u64 off, u64 now, u64 *done)
{
	const struct ftl_geometry *g = &ftl->geo;
	struct ftl_zoned *zr;
	u32 zone, w, k;
	u64 lpn, end;
	int ret;

	*done = now + g->t_fw_write;
	ret = ftl_zone_of(ftl, off, &zr, &zone);
	if (ret)
		return ret;
	end = *done;
	lpn = zr->first + (u64)zone * zr->zone_units;
	for (k = 0; k < zr->cap_units; k++)
		ftl_zoned_invalidate(ftl, (u32)(lpn + k));
	for (w = 0; w < zr->width; w++) {
		struct ftl_zone_die *zd = ftl_zd(zr, zone, w);
		u32 die = ftl_zone_die(ftl, zr, zone, w);
		struct ftl_die *d = &ftl->dies[die];

		/* data of an incomplete program unit is dropped unwritten */
		ftl->wb.used -= zd->pu_fill;
		zd->pu_fill = 0;
		zd->last_pos = FTL_ZONE_POS_NONE;
		for (k = 0; k < zr->blocks_per_zd; k++) {
			u32 *blk = ftl_zone_blk(zr, zone, w, k);
			struct ftl_block *b;
			u64 start;

			if (*blk == FTL_NONE)
				continue;
			b = &ftl->blocks[ftl_blk_index(ftl, die, *blk)];
			start = ftl_max64(*done, d->busy_until);
			d->busy_until = start + g->t_erase;
			d->st.busy_ns += g->t_erase;
			d->st.erases++;
			d->erases_total++;
			b->erases++;
			b->prog = 0;
			ftl_free_push(ftl, die, *blk);
			*blk = FTL_NONE;
			zr->st[zone].erases++;
			zr->st[zone].blocks--;
			end = ftl_max64(end, d->busy_until);
		}
	}
	zr->st[zone].resets++;
	*done = end;
	return FTL_OK;
}

int ftl_zone_finish_at(struct ftl *ftl, u64 off, u64 now, u64 *done)
{
	struct ftl_zoned *zr;
	u32 zone, w;
	u64 end;
	int ret;

	*done = now + ftl->geo.t_fw_write;
	ret = ftl_zone_of(ftl, off, &zr, &zone);
	if (ret)
		return ret;
	end = *done;
	for (w = 0; w < zr->width; w++)
		if (ftl_zd(zr, zone, w)->pu_fill)
			end = ftl_max64(end, ftl_zone_program(ftl, zr, zone, w,
							      *done));
	zr->st[zone].finishes++;
	*done = end;
	return FTL_OK;
}

int ftl_zone_stats_at(const struct ftl *ftl, u64 off,
		      struct ftl_zone_stats *st)
{
	struct ftl_zoned *zr;
	u32 zone;
	int ret;

	ftl_memset(st, 0, sizeof(*st));
	ret = ftl_zone_of(ftl, off, &zr, &zone);
	if (ret)
		return ret;
	*st = zr->st[zone];
	st->first_die = ftl_zone_die(ftl, zr, zone, 0);
	st->width = zr->width;
	return FTL_OK;
}

/*
 * Units a zone of @cap units over @width dies places on its die @w: the
 * granules s with s % width == w, the last one perhaps partial.
 */
static u64 ftl_zone_share(const struct ftl *ftl, u64 cap, u32 width, u32 w)
{
	u64 gran = ftl->geo.gran_units;
	u64 full = ftl_div64(cap, gran), rem = cap - full * gran;
	u64 n = ftl_div64(full, width);

	if (ftl_mod64(full, width) > w)
		n++;
	n *= gran;
	if (rem && ftl_mod64(full, width) == w)
		n += rem;
	return n;
}

/* Describe what is wrong with a zoned region in @err; -EINVAL. */
#define ftl_zoned_bad(err, errlen, ...)	ftl_err(-EINVAL, err, errlen, __VA_ARGS__)

/*
 * Whether every die holds the shares of its zones, those already added
 * and @nr_zones more of @cap units over @width dies (zone 0 on die 0),
 * beside GC's headroom; the dies' conventional space is what is left.
 * @claim[dies] gets each die's units with the new zones.
 */
static int ftl_zoned_fits(const struct ftl *ftl, u64 cap, u32 nr_zones,
			  u32 width, u64 *claim, char *err, size_t errlen)
{
	const struct ftl_geometry *g = &ftl->geo;
	u64 data = ftl_die_data_units(ftl), zone;
	u32 die, w;

	for (die = 0; die < g->dies; die++)
		claim[die] = ftl->dies[die].zone_claim;
	for (w = 0; w < width; w++) {
		u64 share = ftl_zone_share(ftl, cap, width, w);

		/* zone z's die w is (z * width + w) % dies */
		for (zone = 0; zone < nr_zones; zone++)
			claim[ftl_mod64(zone * width + w, g->dies)] += share;
	}
	/* in MiB: 256 units of 4 KiB */
	for (die = 0; die < g->dies; die++)
		if (claim[die] > data)
			return ftl_zoned_bad(err, errlen,
					     "zones of %llu bytes over %u dies need %llu MiB of die %u, which holds %llu MiB of data beside GC's headroom",
					     (unsigned long long)(cap << FTL_MAP_SHIFT),
					     width,
					     (unsigned long long)(claim[die] >> 8),
					     die,
					     (unsigned long long)(data >> 8));
	return 0;
}

static int ftl_zoned_check(const struct ftl *ftl, u64 off, u64 zone_bytes,
			   u64 cap_bytes, u32 nr_zones, u32 width, char *err,
			   size_t errlen)
{
	const struct ftl_geometry *g = &ftl->geo;
	u64 first = off >> FTL_MAP_SHIFT, cap = ftl_geometry_capacity_bytes(g);
	u64 units, i;

	if ((off | zone_bytes | cap_bytes) & (FTL_MAP_UNIT - 1) || !cap_bytes ||
	    cap_bytes > zone_bytes || !nr_zones)
		return ftl_zoned_bad(err, errlen,
				     "zones: start %llu, size %llu and capacity %llu bytes must be multiples of 4096, the capacity at most the size, at least one zone",
				     (unsigned long long)off,
				     (unsigned long long)zone_bytes,
				     (unsigned long long)cap_bytes);
	units = (u64)nr_zones * (zone_bytes >> FTL_MAP_SHIFT);
	if (first >= g->logical_units || units > g->logical_units - first)
		return ftl_zoned_bad(err, errlen,
				     "zones: %u zones of %llu bytes from %llu go beyond the drive's %llu bytes",
				     nr_zones, (unsigned long long)zone_bytes,
				     (unsigned long long)off,
				     (unsigned long long)cap);
	if (width < 1 || width > g->dies)
		return ftl_zoned_bad(err, errlen,
				     "zone width %u dies: must be 1 to the drive's %u",
				     width, g->dies);
	if (ftl->nr_zoned == FTL_MAX_ZONED)
		return ftl_zoned_bad(err, errlen, "at most %u zoned regions",
				     FTL_MAX_ZONED);
	if (ftl_zoned_overlap(ftl, first, units))
		return ftl_zoned_bad(err, errlen,
				     "zones from %llu overlap a zoned region",
				     (unsigned long long)off);
	for (i = first; i < first + units; i++)
		if (ftl->l2p[i] != FTL_NONE)
			return ftl_zoned_bad(err, errlen,
					     "zones from %llu: the range holds data",
					     (unsigned long long)off);
	return 0;
}

int ftl_zoned_region_add(struct ftl *ftl, u64 off, u64 zone_bytes,
			 u64 cap_bytes, u32 nr_zones, u32 width, char *err,
			 size_t errlen)
{
	u32 upb = ftl->geo.units_per_block, w, die;
	struct ftl_zoned *zr;
	u64 i, nzd, *claim;
	int ret;

	ret = ftl_zoned_check(ftl, off, zone_bytes, cap_bytes, nr_zones, width,
			      err, errlen);
	if (ret)
		return ret;
	claim = ftl_zalloc(ftl->geo.dies, sizeof(*claim));
	if (!claim)
		goto err_nomem;
	ret = ftl_zoned_fits(ftl, cap_bytes >> FTL_MAP_SHIFT, nr_zones, width,
			     claim, err, errlen);
	if (ret) {
		ftl_free(claim);
		return ret;
	}
	zr = ftl_zalloc(1, sizeof(*zr));
	if (!zr)
		goto err_claim;
	zr->first = off >> FTL_MAP_SHIFT;
	zr->zone_units = zone_bytes >> FTL_MAP_SHIFT;
	zr->cap_units = cap_bytes >> FTL_MAP_SHIFT;
	zr->nr_zones = nr_zones;
	zr->width = width;
	zr->own_units = ftl_zalloc(width, sizeof(*zr->own_units));
	if (!zr->own_units)
		goto err_zr;
	for (w = 0; w < width; w++) {
		u64 share = ftl_zone_share(ftl, zr->cap_units, width, w);

		/* the whole blocks of the share; the tail goes to shared ones */
		zr->own_units[w] = (u32)(ftl_div64(share, upb) * upb);
		zr->blocks_per_zd = ftl_max64(zr->blocks_per_zd,
					      zr->own_units[w] / upb);
	}
	nzd = (u64)nr_zones * width;
	zr->zd = ftl_zalloc(nzd, sizeof(*zr->zd));
	if (!zr->zd)
		goto err_own;
	/* at least one entry: a region of tails only owns no block */
	zr->blk = ftl_zalloc(ftl_max64(nzd * zr->blocks_per_zd, 1),
			     sizeof(*zr->blk));
	if (!zr->blk)
		goto err_zd;
	zr->st = ftl_zalloc(nr_zones, sizeof(*zr->st));
	if (!zr->st)
		goto err_blk;
	for (i = 0; i < nzd; i++)
		zr->zd[i].last_pos = FTL_ZONE_POS_NONE;
	for (i = 0; i < nzd * zr->blocks_per_zd; i++)
		zr->blk[i] = FTL_NONE;
	for (die = 0; die < ftl->geo.dies; die++)
		ftl->dies[die].zone_claim = claim[die];
	ftl_free(claim);
	ftl->zoned[ftl->nr_zoned++] = zr;
	return 0;

err_blk:
	ftl_free(zr->blk);
err_zd:
	ftl_free(zr->zd);
err_own:
	ftl_free(zr->own_units);
err_zr:
	ftl_free(zr);
err_claim:
	ftl_free(claim);
err_nomem:
	ftl_snprintf(err, errlen, "out of memory for %u zones", nr_zones);
	return -ENOMEM;
}

void ftl_zoned_free(struct ftl *ftl)
{
	u32 i;

	for (i = 0; i < ftl->nr_zoned; i++) {
		ftl_free(ftl->zoned[i]->st);
		ftl_free(ftl->zoned[i]->blk);
		ftl_free(ftl->zoned[i]->zd);
		ftl_free(ftl->zoned[i]->own_units);
		ftl_free(ftl->zoned[i]);
		ftl->zoned[i] = NULL;
	}
	for (i = 0; i < ftl->geo.dies; i++)
		ftl->dies[i].zone_claim = 0;
	ftl->nr_zoned = 0;
}

/*
 * Every mapped unit of a zoned region sits in the slot its zone offset
 * names, in a block of the zone's, or for a tail unit on the zone's die
 * in a block of no zone's; every zone block is listed by a zone; each
 * die's count of zone units is right.
 */
static int ftl_zoned_check_units(const struct ftl *ftl, u64 *valid,
				 char *err, size_t errlen)
{
	u32 r, zone, w, k, upb = ftl->geo.units_per_block;
	u64 listed = 0, marked = 0, i;

	for (r = 0; r < ftl->nr_zoned; r++) {
		const struct ftl_zoned *zr = ftl->zoned[r];

		for (zone = 0; zone < zr->nr_zones; zone++) {
			u64 lpn = zr->first + (u64)zone * zr->zone_units, o;

			for (o = 0; o < zr->zone_units; o++) {
				u32 ppa = ftl->l2p[lpn + o], pos, die, *blk;

				if (ppa == FTL_NONE)
					continue;
				if (o >= zr->cap_units)
					return ftl_zoned_bad(err, errlen,
							     "zone %u: unit %llu beyond its capacity is mapped",
							     zone, (unsigned long long)o);
				ftl_zone_pos(ftl, zr, o, &w, &pos);
				die = ftl_zone_die(ftl, zr, zone, w);
				valid[ftl_die_of(ftl, ppa)]++;
				if (pos >= zr->own_units[w] &&
				    (ftl_die_of(ftl, ppa) != die ||
				     ftl->blocks[ppa / upb].state == FTL_BLK_ZONE))
					return ftl_zoned_bad(err, errlen,
							     "zone %u tail unit %llu: slot %u is not a shared one of die %u",
							     zone, (unsigned long long)o, ppa, die);
				if (pos >= zr->own_units[w])
					continue;
				blk = ftl_zone_blk(zr, zone, w, pos / upb);
				if (*blk == FTL_NONE ||
				    ppa != ftl_ppa(ftl, die, *blk, pos % upb))
					return ftl_zoned_bad(err, errlen,
							     "zone %u unit %llu: slot %u is not its place",
							     zone, (unsigned long long)o, ppa);
			}
			for (w = 0; w < zr->width; w++)
				for (k = 0; k < zr->blocks_per_zd; k++) {
					u32 blk = *ftl_zone_blk(zr, zone, w, k);
					u32 die = ftl_zone_die(ftl, zr, zone, w);

					if (blk == FTL_NONE)
						continue;
					if (ftl->blocks[ftl_blk_index(ftl, die, blk)].state !=
					    FTL_BLK_ZONE)
						return ftl_zoned_bad(err, errlen,
								     "zone %u: die %u block %u is not a zone block",
								     zone, die, blk);
					listed++;
				}
		}
	}
	for (i = 0; i < (u64)ftl->geo.dies * ftl->geo.blocks_per_die; i++)
		marked += ftl->blocks[i].state == FTL_BLK_ZONE;
	if (listed != marked)
		return ftl_zoned_bad(err, errlen,
				     "%llu blocks marked as zones', %llu held by zones",
				     (unsigned long long)marked,
				     (unsigned long long)listed);
	for (i = 0; i < ftl->geo.dies; i++)
		if (valid[i] != ftl->dies[i].zone_valid)
			return ftl_zoned_bad(err, errlen,
					     "die %llu: %llu zone units counted, %llu recorded",
					     (unsigned long long)i,
					     (unsigned long long)valid[i],
					     (unsigned long long)ftl->dies[i].zone_valid);
	return 0;
}

int ftl_zoned_check_all(const struct ftl *ftl, char *err, size_t errlen)
{
	u64 *valid = ftl_zalloc(ftl->geo.dies, sizeof(*valid));
	int ret;

	if (!valid) {
		ftl_snprintf(err, errlen, "out of memory for the zone check");
		return -ENOMEM;
	}
	ret = ftl_zoned_check_units(ftl, valid, err, errlen);
	ftl_free(valid);
	return ret;
}
