// SPDX-License-Identifier: GPL-2.0
/*
 * Placement policy: which die receives the next 4 KiB unit of a write.
 *
 * A die takes granularity bytes of host data (one granule, normally one
 * program unit) before the drive moves on. The granule a die is filling
 * is shared by every writer: whoever places a unit there adds to it.
 *
 * Without hints a drive does what commodity drives do: a cursor walks the
 * dies round-robin in channel-first order, moving on once the granule it
 * is filling is complete, regardless of which logical block is written.
 * That is exactly what scatters fragmented and overwritten files over the
 * dies.
 *
 * With hints (hint-proto/SPEC.md):
 *  - append: a write that extends the extent of the file's previous block
 *    (it starts at the next logical block) continues the granule that
 *    block is in, if its die is still filling it: the two are read back by
 *    one command, and units of one program unit in one command cost one
 *    NAND read. So does a write that comes straight after its previous
 *    block (an append a file system split over two extents), or two
 *    granules would be left part-filled, unless an overwrite placed that
 *    block (a database's rewritten last page). Any other append starts on the
 *    die after the previous block's: it will be read by a command of its
 *    own, which on that die would wait for the previous one's read
 *    (a database's ~16 KiB rows between another file's appends). If the
 *    write is smaller than a granule and does not fit in what is left of
 *    that die's, but fits in the next die's, it goes there instead: split,
 *    it would cost two reads. The write then continues round-robin with a
 *    cursor of its own;
 *  - overwrite: each unit goes back to the die of its old copy (units
 *    without one are placed round-robin).
 * Hinted writes do not move the drive's cursor, so unhinted streams keep
 * their striping whatever hinted traffic is interleaved with them. Both
 * kinds of cursor move on when their die's granule completes, whoever
 * completed it, so no writer leaves another a granule split over two
 * program units of one die.
 *
 * All of that is one write point per die: every writer shares the granule
 * a die is filling, and a file whose appends are smaller than a program
 * unit shares each unit with other data (page-level fragmentation). With
 * write_points_per_die > 1, point 0 of each die stays the shared one
 * (cursor, unhinted writes, overwrites) and the others take hinted
 * streams: an append that does not continue a granule starts on a stream
 * point of its die, a free one or else the one whose last unit is oldest
 * (its partial program unit is programmed, padded: an eviction), and the
 * file's next appends continue that point's granule, contiguous in logical
 * blocks or not. The stream points of
 * a die left idle for write_point_idle_ns are programmed, padded, too, so
 * no file's tail waits in the write buffer for ever.
 */
#include "ftl_map.h"
#include "ftl_placement.h"

static struct ftl_wpt *ftl_pt(const struct ftl *ftl, u32 die, u32 w)
{
	return &ftl->dies[die].wpt[w];
}

void ftl_place_init(struct ftl *ftl)
{
	u32 die, w;

	for (die = 0; die < ftl->geo.dies; die++) {
		for (w = 0; w < ftl->geo.wpts; w++) {
			struct ftl_wpt *p = ftl_pt(ftl, die, w);

			p->gran_fill = 0;
			p->gran_gen = 0;
			p->gran_start = FTL_NONE;
			p->seq = 0;
		}
	}
	ftl->place.last_ppa = FTL_NONE;
	ftl->place.die = 0;
	ftl->place.gen = 0;
	ftl->place_seq = 0;
	ftl->wpt_flush_at = U64_MAX;
}

/* A stream point's granule ends early: its program unit was programmed. */
static void ftl_granule_close(struct ftl_wpt *p)
{
	if (p->gran_fill) {
		p->gran_fill = 0;
		p->gran_gen++;
	}
}

void ftl_place_note(struct ftl *ftl, const struct ftl_place_cmd *pc, u32 die,
		    u32 w, u32 ppa, u64 t)
{
	struct ftl_wpt *p = ftl_pt(ftl, die, w);

	/*
	 * An append straight after an overwrite is not the back of a split
	 * append: it is another extent, read by a command of its own.
	 */
	ftl->place.last_ppa = pc->mode == FTL_PLACE_OLD_DIE ? FTL_NONE : ppa;
	if (!p->gran_fill)
		p->gran_start = ppa;
	ftl->dies[die].last_write = t;
	p->seq = ++ftl->place_seq;
	if (++p->gran_fill == ftl->geo.gran_units) {
		p->gran_fill = 0;
		p->gran_gen++;
	}
	if (w && t + ftl->geo.t_wpt_idle < ftl->wpt_flush_at)
		ftl->wpt_flush_at = t + ftl->geo.t_wpt_idle;
}

/*
 * A die that neither took host data nor worked for write_point_idle_ns
 * programs what its stream points hold, padded: a stream still writing
 * elsewhere keeps its unit while the die is busy with others.
 */
void ftl_place_idle(struct ftl *ftl, u64 now)
{
	const struct ftl_geometry *g = &ftl->geo;
	u64 next = U64_MAX;
	u32 die, w;

	if (now < ftl->wpt_flush_at)
		return;
	for (die = 0; die < g->dies; die++) {
		const struct ftl_die *d = &ftl->dies[die];
		u64 due = ftl_max64(d->last_write, d->busy_until) + g->t_wpt_idle;

		for (w = 1; w < g->host_wpts; w++) {
			struct ftl_wpt *p = ftl_pt(ftl, die, w);

			if (p->pu == FTL_NONE)
				continue;
			if (due > now) {
				next = ftl_min64(next, due);
				break;
			}
			ftl_wpt_pad(ftl, die, w, due);
			ftl_granule_close(p);
			ftl->st.wpt_idle_flushes++;
		}
	}
	ftl->wpt_flush_at = next;
}

/*
 * A stream point of @die for a stream that starts there at @t: a free one
 * (nothing in its granule), else the least recently used, evicted. With
 * one write point per die, the shared one.
 */
static u32 ftl_stream_take(struct ftl *ftl, u32 die, u64 t)
{
	u32 w, lru = 1;

	if (ftl->geo.host_wpts == 1)
		return 0;
	for (w = 1; w < ftl->geo.host_wpts; w++) {
		struct ftl_wpt *p = ftl_pt(ftl, die, w);

		if (!p->gran_fill)
			return w;
		if (p->seq < ftl_pt(ftl, die, lru)->seq)
			lru = w;
	}
	ftl_wpt_pad(ftl, die, lru, t);
	ftl_granule_close(ftl_pt(ftl, die, lru));
	ftl->st.wpt_evictions++;
	return lru;
}

/*
 * Die for the next unit of the round-robin cursor sitting on *@die since
 * that die's shared granule generation *@gen: the next die once that
 * granule is complete.
 */
static u32 ftl_cursor_die(struct ftl *ftl, u32 *die, u32 *gen)
{
	if (ftl_pt(ftl, *die, 0)->gran_gen != *gen) {
		*die = (*die + 1) % ftl->geo.dies;
		*gen = ftl_pt(ftl, *die, 0)->gran_gen;
	}
	return *die;
}

/*
 * Die a stream moves on to from @die: the next one, unless that die holds
 * three granules more valid data than the one after it, which then takes
 * the unit. Streams go die by die so that a file's consecutive units are
 * read in parallel, but each file's last, partial round lands on the dies
 * where its rounds begin: files of one size made alike (a file server's
 * initial files, each a few granules placed by the cursor) begin their
 * rounds on the same few dies, and those dies end up with most of the
 * data to read. Skipping one die keeps consecutive units on different
 * dies; only a read of more units than there are dies meets a die twice.
 * The margin was chosen by measurement (experiments/subpage/README.md); one granule is
 * within the cursor's own unevenness.
 */
#define FTL_STREAM_SKIP_GRANULES 3

static u32 ftl_stream_next(const struct ftl *ftl, u32 die)
{
	u32 dies = ftl->geo.dies;
	u32 next = (die + 1) % dies, after = (die + 2) % dies;

	if (after != die && ftl->dies[next].valid_units >=
	    ftl->dies[after].valid_units + FTL_STREAM_SKIP_GRANULES * ftl->geo.gran_units)
		return after;
	return next;
}

/* The same for a hinted stream, which takes a write point on each die. */
static u32 ftl_stream_die(struct ftl *ftl, struct ftl_place_cmd *pc, u64 t)
{
	if (ftl_pt(ftl, pc->die, pc->w)->gran_gen != pc->gen) {
		pc->die = ftl_stream_next(ftl, pc->die);
		pc->w = ftl_stream_take(ftl, pc->die, t);
		pc->gen = ftl_pt(ftl, pc->die, pc->w)->gran_gen;
	}
	return pc->die;
}

void ftl_place_cursor(const struct ftl *ftl, u32 *die, u32 *granule_units)
{
	u32 d = ftl->place.die, gen = ftl->place.gen;

	/* where ftl_cursor_die() would put the next unit, without moving */
	if (ftl_pt(ftl, d, 0)->gran_gen != gen)
		d = (d + 1) % ftl->geo.dies;
	*die = d;
	*granule_units = ftl_pt(ftl, d, 0)->gran_fill;
}

static u32 ftl_round_robin(struct ftl *ftl)
{
	return ftl_cursor_die(ftl, &ftl->place.die, &ftl->place.gen);
}

/* Erase count a die may reach before hints stop sending data to it. */
static u64 ftl_wear_limit(const struct ftl *ftl)
{
	u64 least = U64_MAX;
	u32 die;

	if (!ftl->cfg.hint_wear_gap)
		return U64_MAX;
	for (die = 0; die < ftl->geo.dies; die++)
		least = ftl_min64(least, ftl->dies[die].erases_total);
	return least + ftl->cfg.hint_wear_gap;
}

/* Units of the shared granule @die is filling that are still free. */
static u32 ftl_granule_room(const struct ftl *ftl, u32 die)
{
	return ftl->geo.gran_units - ftl_pt(ftl, die, 0)->gran_fill;
}

/*
 * Die for @n units that do not continue @prev_die's granule: the die after
 * it, or with one write point per die the one after that (never
 * @prev_die) when @n is smaller than a granule and fits in what is left of
 * that die's but not of the first's. A stream point always starts a
 * granule of its own, so with several it is the stream's next die.
 */
static u32 ftl_fitting_die(const struct ftl *ftl, u32 prev_die, u64 n)
{
	u32 die = (prev_die + 1) % ftl->geo.dies;
	u32 next = (die + 1) % ftl->geo.dies;

	if (ftl->geo.host_wpts > 1)
		return ftl_stream_next(ftl, prev_die);
	if (n < ftl->geo.gran_units &&
	    n > ftl_granule_room(ftl, die) && next != prev_die &&
	    n <= ftl_granule_room(ftl, next))
		return next;
	return die;
}

/*
 * Whether @ppa is in the granule write point @p is filling. With one point
 * per die its units follow each other in the open block from the first;
 * with several, the points of a die interleave program units in one
 * block, and a point's granule is the program unit it is assembling.
 */
static bool ftl_in_granule(const struct ftl *ftl, const struct ftl_wpt *p,
			   u32 ppa)
{
	u32 upb = ftl->geo.units_per_block;

	if (!p->gran_fill)
		return false;
	if (ftl->geo.host_wpts == 1)
		return ppa >= p->gran_start && ppa / upb == p->gran_start / upb;
	return p->pu != FTL_NONE && ppa - ppa % ftl->geo.pu_units == p->pu;
}

/*
 * The write point whose granule a write starting at logical unit @first
 * continues, @ppa being the copy of its previous block @prev; FTL_NONE if
 * none. That granule is still being filled. A stream point's belongs to
 * the file that started it, and the file's next append continues it
 * wherever the file system put the append: a file system that gives each
 * small append an extent of its own (ext4 with several writers) would
 * otherwise leave a half-filled unit behind per append, and the file's two
 * extents in one unit are read together (ftl_nand_read() merges the
 * reads). The shared point's granule is everybody's, so a write continues
 * it only if it starts at the logical block after @prev or comes straight
 * after it, no other unit placed in between and @prev not placed by an
 * overwrite (a file system that split one append over two extents: moving
 * on would leave two granules part-filled).
 */
static u32 ftl_extends_granule(const struct ftl *ftl, u64 first, u64 prev,
			       u32 ppa)
{
	u32 die = ftl_die_of(ftl, ppa), w;
	bool adjacent = first == prev + 1 || ppa == ftl->place.last_ppa;

	for (w = 0; w < ftl->geo.host_wpts; w++)
		if ((w || adjacent) &&
		    ftl_in_granule(ftl, ftl_pt(ftl, die, w), ppa))
			return w;
	return FTL_NONE;
}

static void ftl_place_append(struct ftl *ftl, const struct ftl_cmd *cmd,
			     u64 first, u64 n, u64 t, struct ftl_place_cmd *pc)
{
	u64 prev = cmd->hint_prev_off >> FTL_MAP_SHIFT;
	u32 ppa, die, w;

	if (cmd->hint_prev_off >= ftl_geometry_capacity_bytes(&ftl->geo)) {
		ftl->st.hint_ignored_range++;
		return;
	}
	ppa = ftl->l2p[prev];
	if (ppa == FTL_NONE) {
		ftl->st.hint_ignored_unmapped++;
		return;
	}
	die = ftl_die_of(ftl, ppa);
	w = ftl_extends_granule(ftl, first, prev, ppa);
	if (w == FTL_NONE)
		die = ftl_fitting_die(ftl, die, n);
	if (ftl->dies[die].erases_total > ftl_wear_limit(ftl)) {
		ftl->st.hint_ignored_wear++;
		return;
	}
	if (w == FTL_NONE)
		w = ftl_stream_take(ftl, die, t);
	pc->mode = FTL_PLACE_STREAM;
	pc->die = die;
	pc->w = w;
	pc->gen = ftl_pt(ftl, die, w)->gran_gen;
	ftl->st.hint_honoured++;
}

/* Called for writes only; ftl_submit() counts hints on other commands. */
void ftl_place_begin(struct ftl *ftl, const struct ftl_cmd *cmd, u64 first,
		     u64 n, u64 t, struct ftl_place_cmd *pc)
{
	pc->mode = FTL_PLACE_ROUND_ROBIN;
	if (cmd->hint == FTL_HINT_NONE)
		return;
	switch (cmd->hint) {
	case FTL_HINT_APPEND:
		ftl->st.hint_append++;
		break;
	case FTL_HINT_OVERWRITE:
		ftl->st.hint_overwrite++;
		break;
	default:
		ftl->st.hint_ignored_invalid++;
		return;
	}
	if (!ftl->cfg.hints) {
		ftl->st.hint_ignored_off++;
		return;
	}
	if (cmd->hint == FTL_HINT_APPEND) {
		ftl_place_append(ftl, cmd, first, n, t, pc);
		return;
	}
	pc->mode = FTL_PLACE_OLD_DIE;
	pc->wear_limit = ftl_wear_limit(ftl);
	ftl->st.hint_honoured++;
}

u32 ftl_place_die(struct ftl *ftl, struct ftl_place_cmd *pc, u32 lpn, u64 t,
		  u32 *w)
{
	u32 die, ppa;

	*w = 0;
	switch (pc->mode) {
	case FTL_PLACE_STREAM:
		die = ftl_stream_die(ftl, pc, t);
		*w = pc->w;
		return die;
	case FTL_PLACE_OLD_DIE:
		ppa = ftl->l2p[lpn];
		if (ppa == FTL_NONE) {
			ftl->st.hint_new_units++;
			break;
		}
		die = ftl_die_of(ftl, ppa);
		if (ftl->dies[die].erases_total <= pc->wear_limit)
			return die;
		ftl->st.hint_ignored_wear++;
		break;
	default:
		break;
	}
	return ftl_round_robin(ftl);
}
