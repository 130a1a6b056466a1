// SPDX-License-Identifier: GPL-2.0
/*
 * The model's entry point: creation, and read, write, trim, flush and the
 * zone commands against the layers below (timing, mapping, placement,
 * zones), which only this file puts together. ftl_stats.c, above it,
 * reads what they keep.
 */
#include "ftl.h"
#include "ftl_map.h"
#include "ftl_placement.h"
#include "ftl_ru.h"
#include "ftl_timing.h"
#include "ftl_zone.h"

/*
 * Longest read or write the model accepts in one command (keeps the
 * transfer-time arithmetic far from overflow): 4 GiB.
 */
#define FTL_MAX_XFER_BYTES	((u64)U32_MAX + 1)

static u64 ftl_tables_bytes(const struct ftl_geometry *g)
{
	return g->logical_units * sizeof(((struct ftl *)0)->l2p[0]) +
	       g->phys_units * sizeof(((struct ftl *)0)->p2l[0]) +
	       (u64)g->dies * g->blocks_per_die *
	       sizeof(((struct ftl *)0)->blocks[0]) +
	       (u64)g->dies * sizeof(((struct ftl *)0)->dies[0]) +
	       (u64)g->dies * g->wpts * sizeof(((struct ftl *)0)->wpts[0]) +
	       ftl_ru_tables_bytes(g);
}

int ftl_metadata_bytes(const struct ftl_config *cfg, u64 *bytes, char *err,
		       size_t errlen)
{
	struct ftl_geometry g;
	int ret;

	ret = ftl_config_derive(cfg, &g, err, errlen);
	if (ret)
		return ret;
	*bytes = ftl_tables_bytes(&g);
	return 0;
}

int ftl_create(const struct ftl_config *cfg, struct ftl **out, char *err,
	       size_t errlen)
{
	struct ftl *ftl;
	int ret;

	*out = NULL;
	ftl = ftl_zalloc(1, sizeof(*ftl));
	if (!ftl) {
		ftl_snprintf(err, errlen, "out of memory for the model");
		return -ENOMEM;
	}
	ftl->cfg = *cfg;
	ret = ftl_config_derive(cfg, &ftl->geo, err, errlen);
	if (ret)
		goto err_free;

	ftl->l2p = ftl_zalloc(ftl->geo.logical_units, sizeof(*ftl->l2p));
	if (!ftl->l2p)
		goto err_nomem;
	ftl->p2l = ftl_zalloc(ftl->geo.phys_units, sizeof(*ftl->p2l));
	if (!ftl->p2l)
		goto err_l2p;
	ftl->blocks = ftl_zalloc((size_t)ftl->geo.dies * ftl->geo.blocks_per_die,
				 sizeof(*ftl->blocks));
	if (!ftl->blocks)
		goto err_p2l;
	ftl->dies = ftl_zalloc(ftl->geo.dies, sizeof(*ftl->dies));
	if (!ftl->dies)
		goto err_blocks;
	ftl->wpts = ftl_zalloc((size_t)ftl->geo.dies * ftl->geo.wpts,
			       sizeof(*ftl->wpts));
	if (!ftl->wpts)
		goto err_dies;
	if (ftl_timing_init(ftl))
		goto err_wpts;
	if (ftl_ru_create(ftl))
		goto err_timing;

	ftl_map_init(ftl);
	ftl_place_init(ftl);
	*out = ftl;
	return 0;

err_timing:
	ftl_timing_free(ftl);
err_wpts:
	ftl_free(ftl->wpts);
err_dies:
	ftl_free(ftl->dies);
err_blocks:
	ftl_free(ftl->blocks);
err_p2l:
	ftl_free(ftl->p2l);
err_l2p:
	ftl_free(ftl->l2p);
err_nomem:
	ret = -ENOMEM;
	ftl_snprintf(err, errlen,
		     "out of memory for the mapping tables (%llu MiB: %llu logical + %llu physical 4 KiB pages)",
		     (unsigned long long)(ftl_tables_bytes(&ftl->geo) >> 20),
		     (unsigned long long)ftl->geo.logical_units,
		     (unsigned long long)ftl->geo.phys_units);
err_free:
	ftl_free(ftl);
	return ret;
}

void ftl_destroy(struct ftl *ftl)
{
	if (!ftl)
		return;
	ftl_zoned_free(ftl);
	ftl_ru_destroy(ftl);
	ftl_timing_free(ftl);
	ftl_free(ftl->wpts);
	ftl_free(ftl->dies);
	ftl_free(ftl->blocks);
	ftl_free(ftl->p2l);
	ftl_free(ftl->l2p);
	ftl_free(ftl);
}

const struct ftl_geometry *ftl_get_geometry(const struct ftl *ftl)
{
	return &ftl->geo;
}

const struct ftl_config *ftl_get_config(const struct ftl *ftl)
{
	return &ftl->cfg;
}

int ftl_locate(const struct ftl *ftl, u64 off, struct ftl_location *loc)
{
	const struct ftl_geometry *g = &ftl->geo;
	u64 lpn = off >> FTL_MAP_SHIFT;
	u32 ppa, in_die;

	if (lpn >= g->logical_units)
		return -ERANGE;
	ppa = ftl->l2p[lpn];
	if (ppa == FTL_NONE)
		return -ENOENT;
	loc->die = ftl_die_of(ftl, ppa);
	in_die = ppa - loc->die * (u32)g->units_per_die;
	loc->block = in_die / g->units_per_block;
	loc->offset = in_die % g->units_per_block;
	loc->buffered = ftl_unit_buffered(ftl, ppa);
	return 0;
}

u64 ftl_mapped_run(const struct ftl *ftl, u64 first, u64 n, bool *mapped)
{
	u64 units = ftl->geo.logical_units, i;

	*mapped = false;
	if (first >= units || !n)
		return 0;
	n = ftl_min64(n, units - first);
	*mapped = ftl->l2p[first] != FTL_NONE;
	for (i = 1; i < n; i++) {
		bool m = ftl->l2p[first + i] != FTL_NONE;

		if (m != *mapped)
			break;
	}
	return i;
}

/*
 * Idle time: stream write points due their idle flush are programmed,
 * then background GC runs on the dies that need it (ftl_gc_background()).
 */
void ftl_idle(struct ftl *ftl, u64 now)
{
	ftl_place_idle(ftl, now);
	ftl_gc_background(ftl, now);
}

/*
 * Reads: units of one program unit that are adjacent in the command share
 * one multi-plane NAND read; each group crosses the host link as soon as
 * it is off its channel. Unmapped and still-buffered units come from
 * controller memory at once.
 */
static int ftl_read(struct ftl *ftl, u64 first, u64 n, u64 now, u64 *done)
{
	const struct ftl_geometry *g = &ftl->geo;
	u64 t0 = now + (n == 1 ? g->t_fw_read_4k : g->t_fw_read);
	u64 end = t0, i, dram_units = 0;
	u32 grp_pu = FTL_NONE, grp_die = 0, grp_units = 0;

	for (i = 0; i <= n; i++) {
		u32 ppa = FTL_NONE, pu = FTL_NONE;

		if (i < n) {
			ppa = ftl->l2p[first + i];
			if (ppa == FTL_NONE) {
				ftl->st.unmapped_read_units++;
				dram_units++;
			} else if (ftl_unit_buffered(ftl, ppa)) {
				ftl->dies[ftl_die_of(ftl, ppa)].st.buffer_hits++;
				dram_units++;
				ppa = FTL_NONE;
			} else {
				pu = ppa / g->pu_units;
			}
		}
		if (grp_units && (pu != grp_pu || i == n)) {
			u64 ready = ftl_nand_read(ftl, grp_die, grp_pu, t0,
						 grp_units);

			end = ftl_max64(end, ftl_bw_reserve(ftl, &ftl->link_tx, ready,
							    (u64)grp_units * FTL_MAP_UNIT));
			grp_units = 0;
		}
		if (pu == FTL_NONE)
			continue;
		if (!grp_units) {
			grp_pu = pu;
			grp_die = ftl_die_of(ftl, ppa);
		}
		grp_units++;
	}
	if (dram_units)
		end = ftl_max64(end, ftl_bw_reserve(ftl, &ftl->link_tx, t0,
						    dram_units * FTL_MAP_UNIT));
	*done = end;
	ftl->st.host_read_units += n;
	return FTL_OK;
}

/*
 * Preferred die and write point first, then the shared points of its
 * neighbours, so a full die never fails a write that another die can
 * take. With zones, a die whose conventional part is full is passed
 * over: what is left of it is the zones'.
 */
static int ftl_alloc_host_slot(struct ftl *ftl, u32 die, u32 *w, bool hinted,
			       u64 t, u32 *ppa, u32 *got_die)
{
	u32 k;

	for (k = 0; k < ftl->geo.dies; k++) {
		u32 d = (die + k) % ftl->geo.dies;

		if (k)
			*w = 0;
		if (ftl->nr_zoned && !ftl_conv_room(ftl, d))
			continue;
		if (!ftl_alloc_slot(ftl, d, *w, false, t, ppa)) {
			if (k)
				ftl->st.placement_fallbacks++;
			if (k && hinted)
				ftl->st.hint_fallback_units++;
			*got_die = d;
			return 0;
		}
	}
	return -ENOSPC;
}

/*
 * Whether the conventional part of the dies takes units @first..@first+@n-1:
 * each new unit takes a unit of room, an overwrite gives back the one it
 * replaces once it is placed. Only a drive with zones limits that part.
 */
static bool ftl_conv_fits(const struct ftl *ftl, u64 first, u64 n)
{
	u64 room = 0, need = 0, i;
	u32 die;

	if (!ftl->nr_zoned)
		return true;
	for (i = first; i < first + n; i++)
		need += ftl->l2p[i] == FTL_NONE;
	if (need < n)
		need++;
	for (die = 0; die < ftl->geo.dies && room < need; die++)
		room += ftl_conv_room(ftl, die);
	return room >= need;
}

/*
 * Placement of one write, the first rule that applies deciding:
 *  1. a write into a zoned region follows its zone (ftl_zone.c), whatever
 *     handle or hint it carries;
 *  2. with FDP on, the reclaim unit handle it names, else handle 0 of
 *     reclaim group 0 (ftl_fdp.c); its hint is ignored;
 *  3. its placement hint (ftl_placement.c);
 *  4. the drive's round-robin cursor.
 * A handle on a drive without FDP is ignored.
 */
static int ftl_place_unit(struct ftl *ftl, const struct ftl_cmd *cmd,
			  struct ftl_place_cmd *pc, u32 lpn, u64 t, u32 *ppa,
			  u32 *die, u32 *w)
{
	if (ftl->fdp)
		return ftl_fdp_place(ftl, cmd->fdp ? cmd->fdp_rg : 0,
				     cmd->fdp ? cmd->fdp_ruh : 0, lpn, t, ppa,
				     die);
	*die = ftl_place_die(ftl, pc, lpn, t, w);
	return ftl_alloc_host_slot(ftl, *die, w,
				   pc->mode != FTL_PLACE_ROUND_ROBIN, t, ppa,
				   die);
}

/*
 * Writes complete early, once their data is in the write buffer; they
 * wait only when the buffer is full. NAND programs happen as program
 * units fill up and free their buffer space when they finish. A write
 * the conventional space has no room for, or naming a handle the drive
 * has not, fails before a unit is placed.
 */
static int ftl_write(struct ftl *ftl, const struct ftl_cmd *cmd, u64 first,
		     u64 n, u64 now, u64 *done)
{
	const struct ftl_geometry *g = &ftl->geo;
	u64 t = now + g->t_fw_write + g->t_fw_write_4k * n;
	struct ftl_zoned *zr = ftl_zoned_find(ftl, first);
	struct ftl_place_cmd pc;
	int status = FTL_OK;
	u64 i;

	if (zr) {
		ftl->st.fdp_ignored_zone += ftl->fdp && cmd->fdp;
		return ftl_zone_write(ftl, zr, cmd, first, n, t, done);
	}
	/* from conventional space into a zoned region: no zone's write */
	if (ftl_zoned_overlap(ftl, first, n))
		return FTL_ERR_INVALID;
	*done = t;
	if (ftl->fdp && cmd->fdp &&
	    (cmd->fdp_rg >= g->fdp_rgs || cmd->fdp_ruh >= g->fdp_ruhs))
		return FTL_ERR_INVALID;
	if (!ftl_conv_fits(ftl, first, n))
		return FTL_ERR_NO_SPACE;
	if (!ftl->fdp)
		ftl_place_begin(ftl, cmd, first, n, t, &pc);
	else if (cmd->hint != FTL_HINT_NONE)
		ftl->st.hint_ignored_fdp++;
	for (i = 0; i < n; i++) {
		u32 lpn = (u32)(first + i), ppa, die, w = 0;

		/* buffer space first, then the DMA of this unit */
		t = ftl_bw_reserve(ftl, &ftl->link_rx, ftl_wbuf_acquire(ftl, t),
				   FTL_MAP_UNIT);
		if (ftl_place_unit(ftl, cmd, &pc, lpn, t, &ppa, &die, &w)) {
			ftl->wb.used--;		/* the unit never entered */
			status = FTL_ERR_NO_SPACE;
			break;
		}
		ftl_invalidate(ftl, lpn);
		ftl->p2l[ppa] = lpn;
		ftl->l2p[lpn] = ppa;
		if (!ftl->fdp)
			ftl_place_note(ftl, &pc, die, w, ppa, t);
		ftl->dies[die].st.host_write_units++;
		ftl->st.host_write_units++;
	}
	*done = t;
	return status;
}

void ftl_unmap(struct ftl *ftl, u64 first, u64 n)
{
	u64 i;

	if (first >= ftl->geo.logical_units)
		return;
	n = ftl_min64(n, ftl->geo.logical_units - first);
	for (i = first; i < first + n; i++) {
		if (ftl->l2p[i] != FTL_NONE) {
			ftl_zoned_invalidate(ftl, (u32)i);
			ftl->st.trimmed_units++;
		}
	}
}

/*
 * Only whole 4 KiB units can be unmapped; partial ones keep their data.
 * With @unmap false the caller unmaps them (ftl_trim_begin()).
 */
static int ftl_trim(struct ftl *ftl, u64 off, u64 len, bool unmap, u64 now,
		    u64 *done)
{
	u64 first = (off + FTL_MAP_UNIT - 1) >> FTL_MAP_SHIFT;
	u64 end = (off + len) >> FTL_MAP_SHIFT;

	if (unmap && end > first)
		ftl_unmap(ftl, first, end - first);
	*done = now + ftl->geo.t_fw_write;
	return FTL_OK;
}

/*
 * Flush waits for every program already queued. Partly filled program
 * units stay in the buffer: the modelled drive has power-loss protection,
 * like the datacenter drives the research measured, so padding them out
 * would only distort placement.
 */
static int ftl_flush(struct ftl *ftl, u64 now, u64 *done)
{
	*done = ftl_max64(now + ftl->geo.t_fw_write, ftl->wb.last_release);
	return FTL_OK;
}

int ftl_set_time_scale(struct ftl *ftl, u64 scale)
{
	struct ftl_config cfg = ftl->cfg;

	cfg.time_scale = scale;
	if (ftl_config_check_ranges(&cfg, NULL, 0))
		return -EINVAL;
	ftl->cfg = cfg;
	ftl_config_scale(&ftl->cfg, &ftl->geo);
	ftl_timing_rescale(ftl);
	return 0;
}

static int ftl_submit_cmd(struct ftl *ftl, const struct ftl_cmd *cmd,
			  bool unmap, u64 now, u64 *done)
{
	u64 cap = ftl_geometry_capacity_bytes(&ftl->geo);
	u64 first, n;
	int ret;

	*done = now + ftl->geo.t_fw_write;
	if (cmd->op >= FTL_OP_NR) {
		ftl->st.errors++;
		return FTL_ERR_INVALID;
	}
	ftl->st.cmds[cmd->op]++;
	if (cmd->op != FTL_OP_FLUSH) {
		if (!cmd->len ||
		    (cmd->op != FTL_OP_TRIM && cmd->len > FTL_MAX_XFER_BYTES)) {
			ftl->st.errors++;
			return FTL_ERR_INVALID;
		}
		if (cmd->off >= cap || cmd->len > cap - cmd->off) {
			ftl->st.errors++;
			return FTL_ERR_RANGE;
		}
	}

	ftl_idle(ftl, now);
	if (cmd->op != FTL_OP_WRITE && cmd->hint != FTL_HINT_NONE)
		ftl->st.hint_ignored_opcode++;

	first = cmd->off >> FTL_MAP_SHIFT;
	n = ((cmd->off + cmd->len + FTL_MAP_UNIT - 1) >> FTL_MAP_SHIFT) - first;
	switch (cmd->op) {
	case FTL_OP_READ:
		ret = ftl_read(ftl, first, n, now, done);
		break;
	case FTL_OP_WRITE:
		ret = ftl_write(ftl, cmd, first, n, now, done);
		break;
	case FTL_OP_TRIM:
		ret = ftl_trim(ftl, cmd->off, cmd->len, unmap, now, done);
		break;
	default:
		ret = ftl_flush(ftl, now, done);
		break;
	}
	if (ret)
		ftl->st.errors++;
	else if (ftl->geo.t_jitter)
		*done += ftl_jitter(ftl);
	return ret;
}

int ftl_submit(struct ftl *ftl, const struct ftl_cmd *cmd, u64 now,
	       u64 *done)
{
	return ftl_submit_cmd(ftl, cmd, true, now, done);
}

int ftl_trim_begin(struct ftl *ftl, const struct ftl_cmd *cmd, u64 now,
		   u64 *done)
{
	if (cmd->op != FTL_OP_TRIM) {
		*done = now + ftl->geo.t_fw_write;
		ftl->st.errors++;
		return FTL_ERR_INVALID;
	}
	return ftl_submit_cmd(ftl, cmd, false, now, done);
}

int ftl_zoned_add(struct ftl *ftl, u64 off, u64 zone_bytes, u64 cap_bytes,
		  u32 nr_zones, u32 width, char *err, size_t errlen)
{
	return ftl_zoned_region_add(ftl, off, zone_bytes, cap_bytes, nr_zones,
				    width, err, errlen);
}

int ftl_zone_reset(struct ftl *ftl, u64 off, u64 now, u64 *done)
{
	return ftl_zone_reset_at(ftl, off, now, done);
}

int ftl_zone_finish(struct ftl *ftl, u64 off, u64 now, u64 *done)
{
	return ftl_zone_finish_at(ftl, off, now, done);
}
