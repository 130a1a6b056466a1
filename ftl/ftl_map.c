// SPDX-License-Identifier: GPL-2.0
/*
 * Block management and garbage collection, per die.
 *
 * Each die has its own free list and an open block per write point. GC is
 * greedy (the full block with the fewest valid units) and relocates valid
 * units into an open block of the *same* die (its own write point's, or
 * the shared one's with one write point per die), so the die a placement
 * policy chose survives garbage collection.
 */
#include "ftl_map.h"
#include "ftl_ru.h"
#include "ftl_timing.h"

void ftl_free_push(struct ftl *ftl, u32 die, u32 blk)
{
	struct ftl_die *d = &ftl->dies[die];
	struct ftl_block *b = &ftl->blocks[ftl_blk_index(ftl, die, blk)];
	bool was_below = d->free_count < ftl->geo.gc_bg;

	b->state = FTL_BLK_FREE;
	b->next = FTL_NONE;
	if (d->free_tail == FTL_NONE)
		d->free_head = blk;
	else
		ftl->blocks[ftl_blk_index(ftl, die, d->free_tail)].next = blk;
	d->free_tail = blk;
	d->free_count++;
	if (was_below && d->free_count >= ftl->geo.gc_bg)
		ftl->dies_below_bg--;
}

u32 ftl_free_pop(struct ftl *ftl, u32 die)
{
	struct ftl_die *d = &ftl->dies[die];
	u32 blk = d->free_head;
	struct ftl_block *b = &ftl->blocks[ftl_blk_index(ftl, die, blk)];
	bool was_below = d->free_count < ftl->geo.gc_bg;

	d->free_head = b->next;
	if (d->free_head == FTL_NONE)
		d->free_tail = FTL_NONE;
	d->free_count--;
	if (!was_below && d->free_count < ftl->geo.gc_bg)
		ftl->dies_below_bg++;
	b->state = FTL_BLK_OPEN;
	b->next = FTL_NONE;
	return blk;
}

void ftl_map_init(struct ftl *ftl)
{
	const struct ftl_geometry *g = &ftl->geo;
	u32 die, blk;
	u64 i;

	for (i = 0; i < g->logical_units; i++)
		ftl->l2p[i] = FTL_NONE;
	for (i = 0; i < g->phys_units; i++)
		ftl->p2l[i] = FTL_NONE;
	ftl->dies_below_bg = 0;
	for (die = 0; die < g->dies; die++) {
		struct ftl_die *d = &ftl->dies[die];
		u32 w;

		d->wpt = &ftl->wpts[(size_t)die * g->wpts];
		for (w = 0; w < g->wpts; w++) {
			d->wpt[w].pu = FTL_NONE;
			d->wpt[w].own_blk = FTL_NONE;
		}
		d->open_blk = FTL_NONE;
		d->reg_pu = FTL_NONE;
		d->free_head = FTL_NONE;
		d->free_tail = FTL_NONE;
		/* counted below bg until the pushes below lift it */
		ftl->dies_below_bg++;
		for (blk = 0; blk < g->blocks_per_die; blk++)
			ftl_free_push(ftl, die, blk);
	}
}

u32 ftl_invalidate(struct ftl *ftl, u32 lpn)
{
	u32 ppa = ftl->l2p[lpn];
	u32 die, bi;

	if (ppa == FTL_NONE)
		return FTL_NONE;
	die = ftl_die_of(ftl, ppa);
	bi = ppa / ftl->geo.units_per_block;
	ftl->p2l[ppa] = FTL_NONE;
	ftl->blocks[bi].valid--;
	ftl->dies[die].valid_units--;
	ftl->l2p[lpn] = FTL_NONE;
	return die;
}

/*
 * Greedy victim: the full block with the fewest valid units, if it has
 * fewer than @limit.
 */
static u32 ftl_gc_victim(struct ftl *ftl, u32 die, u32 limit)
{
	struct ftl_block *b = &ftl->blocks[ftl_blk_index(ftl, die, 0)];
	u32 best = FTL_NONE, best_valid = limit;
	u32 blk;

	for (blk = 0; blk < ftl->geo.blocks_per_die; blk++) {
		if (b[blk].state == FTL_BLK_FULL && b[blk].valid < best_valid) {
			best = blk;
			best_valid = b[blk].valid;
			if (!best_valid)
				break;
		}
	}
	return best;
}

/*
 * Relocate the valid units of one victim block of @die, one with fewer
 * than @limit valid units, and erase it, starting when the die is free
 * after @t. Returns false when no block qualifies.
 */
static bool ftl_gc_one(struct ftl *ftl, u32 die, u64 t, u32 limit)
{
	const struct ftl_geometry *g = &ftl->geo;
	struct ftl_die *d = &ftl->dies[die];
	u32 victim = ftl_gc_victim(ftl, die, limit);
	u32 base, off, last_pu = FTL_NONE, w;
	struct ftl_block *vb;

	if (victim == FTL_NONE)
		return false;
	vb = &ftl->blocks[ftl_blk_index(ftl, die, victim)];
	base = ftl_ppa(ftl, die, victim, 0);
	w = ftl_ru_gc_wpt(ftl, ftl_blk_index(ftl, die, victim));
	d->busy_until = ftl_max64(d->busy_until, t);

	for (off = 0; off < g->units_per_block && vb->valid; off++) {
		u32 lpn = ftl->p2l[base + off];
		u32 dst;

		if (lpn == FTL_NONE)
			continue;
		if (off / g->pu_units != last_pu) {
			/* one multi-plane read per program unit holding data */
			last_pu = off / g->pu_units;
			d->busy_until += g->t_read;
			d->st.busy_ns += g->t_read;
			d->st.gc_reads++;
		}
		/* cannot fail: the reserve block is ours (see FTL_GC_RESERVE) */
		if (ftl_warn_once(ftl_alloc_slot(ftl, die, w, true,
						 d->busy_until, &dst)))
			return false;
		ftl->p2l[base + off] = FTL_NONE;
		vb->valid--;
		d->valid_units--;	/* the copy counted itself valid */
		ftl->p2l[dst] = lpn;
		ftl->l2p[lpn] = dst;
		d->st.gc_copies++;
		ftl_ru_gc_copied(ftl, dst, lpn);
	}

	d->busy_until += g->t_erase;
	d->st.busy_ns += g->t_erase;
	d->st.erases++;
	d->erases_total++;
	vb->erases++;
	ftl_ru_block_erased(ftl, ftl_blk_index(ftl, die, victim));
	ftl_free_push(ftl, die, victim);
	ftl->st.gc_cycles++;
	return true;
}

/*
 * Foreground GC: make room on @die before a host write opens a block.
 * Each cycle gains (units_per_block - valid) free units, so the loop ends.
 */
void ftl_gc_foreground(struct ftl *ftl, u32 die, u64 t)
{
	ftl_gc_until(ftl, die, t, ftl->geo.gc_fg + 1);
}

void ftl_gc_until(struct ftl *ftl, u32 die, u64 t, u32 free_blocks)
{
	struct ftl_die *d = &ftl->dies[die];
	bool released = false;

	while (d->free_count < free_blocks) {
		if (!ftl_gc_one(ftl, die, t, ftl->geo.units_per_block)) {
			if (released)
				break;
			/* blocks that write points still hold may be victims */
			ftl_wpt_release_blocks(ftl, die, t);
			released = true;
			continue;
		}
		ftl->st.gc_fg_cycles++;
	}
}

/*
 * Background GC: every die that is short of free blocks and went idle
 * before @now runs GC cycles back to back from the moment it went idle,
 * as long as each cycle starts before @now. It only takes blocks that are
 * at least half invalid: a nearly valid block costs a block of copies to
 * gain a few units, and on a drive whose data leaves it few spare blocks
 * an idle die would otherwise shuffle the same data round and round
 * (write amplification of 30 under a light random load, where writes
 * back to back see 2). Fuller blocks are left to foreground GC, which
 * runs only when a write needs the room.
 */
void ftl_gc_background(struct ftl *ftl, u64 now)
{
	u32 die, limit = ftl->geo.units_per_block / 2 + 1;

	if (!ftl->dies_below_bg)
		return;
	for (die = 0; die < ftl->geo.dies; die++) {
		struct ftl_die *d = &ftl->dies[die];

		while (d->free_count < ftl->geo.gc_bg && d->busy_until <= now)
			if (!ftl_gc_one(ftl, die, d->busy_until, limit))
				break;
	}
}

/*
 * FDP point @w of @die takes the next program unit of its own block,
 * first taking a free block (ftl_ru_block_taken() gives it to the point's
 * reclaim unit) when it has none; as ftl_wpt_start() otherwise.
 */
static int ftl_wpt_start_own(struct ftl *ftl, u32 die, u32 w, bool gc, u64 t)
{
	const struct ftl_geometry *g = &ftl->geo;
	struct ftl_die *d = &ftl->dies[die];
	struct ftl_wpt *p = &d->wpt[w];
	u32 bi;

	if (p->own_blk == FTL_NONE) {
		if (!gc && d->free_count <= g->gc_fg)
			ftl_gc_foreground(ftl, die, t);
		if (d->free_count <= (gc ? 0 : FTL_GC_RESERVE))
			return -ENOSPC;
		p->own_blk = ftl_free_pop(ftl, die);
		p->own_next_pu = 0;
		bi = ftl_blk_index(ftl, die, p->own_blk);
		ftl->blocks[bi].own_open = 1;
		ftl_ru_block_taken(ftl, die, w, bi);
	}
	bi = ftl_blk_index(ftl, die, p->own_blk);
	p->pu = ftl_ppa(ftl, die, p->own_blk, p->own_next_pu * g->pu_units);
	p->fill = 0;
	p->pu_host_units = 0;
	ftl->blocks[bi].pending++;
	if (++p->own_next_pu == g->units_per_block / g->pu_units) {
		ftl->blocks[bi].own_open = 0;	/* full once its units program */
		p->own_blk = FTL_NONE;
	}
	return 0;
}

/*
 * Write point @p of @die takes the next program unit of the die's open
 * block, opening one if needed. Host writes (gc == false) may trigger
 * foreground GC and never take the GC reserve.
 */
static int ftl_wpt_start(struct ftl *ftl, u32 die, u32 w, bool gc, u64 t)
{
	const struct ftl_geometry *g = &ftl->geo;
	struct ftl_die *d = &ftl->dies[die];
	struct ftl_wpt *p = &d->wpt[w];

	if (ftl_wpt_owns_blocks(ftl, w))
		return ftl_wpt_start_own(ftl, die, w, gc, t);
	if (d->open_blk == FTL_NONE) {
		if (!gc && d->free_count <= g->gc_fg) {
			ftl_gc_foreground(ftl, die, t);
			/* with one point per die GC shares it: continue its unit */
			if (p->pu != FTL_NONE)
				return 0;
		}
		/* GC may have opened a block for its copies: use it */
		if (d->open_blk == FTL_NONE) {
			if (d->free_count <= (gc ? 0 : FTL_GC_RESERVE))
				return -ENOSPC;
			d->open_blk = ftl_free_pop(ftl, die);
			d->next_pu = 0;
		}
	}
	p->pu = ftl_ppa(ftl, die, d->open_blk, d->next_pu * g->pu_units);
	p->fill = 0;
	p->pu_host_units = 0;
	ftl->blocks[ftl_blk_index(ftl, die, d->open_blk)].pending++;
	if (++d->next_pu == g->units_per_block / g->pu_units)
		d->open_blk = FTL_NONE;	/* full once its last units program */
	return 0;
}

/* Write point @p's program unit is complete at @t (full or padded). */
static void ftl_wpt_program(struct ftl *ftl, u32 die, struct ftl_wpt *p,
			    u64 t)
{
	u32 bi = p->pu / ftl->geo.units_per_block;
	struct ftl_block *b = &ftl->blocks[bi];

	ftl_program(ftl, die, t, p->pu_host_units);
	p->pu = FTL_NONE;
	b->pending--;
	if (!b->pending && !b->own_open && !ftl_is_open_blk(ftl, die, bi))
		b->state = FTL_BLK_FULL;
}

/*
 * Take the next 4 KiB slot of @die's write point @w for data ready at @t
 * and count it valid (the caller records the owner in P2L). Programs the
 * program unit when this slot completes it. Returns 0, or -ENOSPC when
 * the die has no room even after GC.
 */
int ftl_alloc_slot(struct ftl *ftl, u32 die, u32 w, bool gc, u64 t,
		   u32 *ppa)
{
	struct ftl_die *d = &ftl->dies[die];
	struct ftl_wpt *p = &d->wpt[w];

	if (p->pu == FTL_NONE && ftl_wpt_start(ftl, die, w, gc, t))
		return -ENOSPC;
	*ppa = p->pu + p->fill++;
	d->valid_units++;
	ftl->blocks[*ppa / ftl->geo.units_per_block].valid++;
	if (!gc)
		p->pu_host_units++;
	if (p->fill == ftl->geo.pu_units)
		ftl_wpt_program(ftl, die, p, gc ? d->busy_until : t);
	return 0;
}

void ftl_wpt_pad(struct ftl *ftl, u32 die, u32 w, u64 t)
{
	struct ftl_wpt *p = &ftl->dies[die].wpt[w];

	if (p->pu == FTL_NONE)
		return;
	ftl->st.pad_units += ftl->geo.pu_units - p->fill;
	ftl_ru_padded(ftl, p->pu / ftl->geo.units_per_block,
		      ftl->geo.pu_units - p->fill);
	ftl_wpt_program(ftl, die, p, t);
}

void ftl_wpt_drop_block(struct ftl *ftl, u32 die, u32 w)
{
	struct ftl_wpt *p = &ftl->dies[die].wpt[w];
	struct ftl_block *b;

	if (p->own_blk == FTL_NONE)
		return;
	b = &ftl->blocks[ftl_blk_index(ftl, die, p->own_blk)];
	b->own_open = 0;
	if (!b->pending)
		b->state = FTL_BLK_FULL;
	p->own_blk = FTL_NONE;
}

void ftl_wpt_release_blocks(struct ftl *ftl, u32 die, u64 t)
{
	struct ftl_die *d = &ftl->dies[die];
	u32 w;

	for (w = 0; w < ftl->geo.wpts; w++) {
		u32 pu = d->wpt[w].pu;
		u32 bi = pu / ftl->geo.units_per_block;

		if (pu != FTL_NONE && !ftl_is_open_blk(ftl, die, bi) &&
		    !ftl->blocks[bi].own_open)
			ftl_wpt_pad(ftl, die, w, t);
	}
}

const struct ftl_wpt *ftl_wpt_of_slot(const struct ftl *ftl, u32 die,
				      u32 ppa)
{
	const struct ftl_wpt *p = ftl->dies[die].wpt;
	u32 pu = ppa - ppa % ftl->geo.pu_units, w;

	for (w = 0; w < ftl->geo.wpts; w++)
		if (p[w].pu == pu)
			return &p[w];
	return NULL;
}

bool ftl_unit_buffered(const struct ftl *ftl, u32 ppa)
{
	const struct ftl_geometry *g = &ftl->geo;
	const struct ftl_block *b = &ftl->blocks[ppa / g->units_per_block];

	/* a die holds whole blocks, so the unit's offset in its block is this */
	if (b->state == FTL_BLK_ZONE)
		return ppa % g->units_per_block >= b->prog;
	return b->state == FTL_BLK_OPEN &&
	       ftl_wpt_of_slot(ftl, ftl_die_of(ftl, ppa), ppa);
}
