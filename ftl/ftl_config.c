// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of the run-time geometry and derivation of everything the
 * model computes from it. Every rejected combination gets its own message
 * naming the parameter, because a user who typed a bad insmod line or
 * simulator option deserves to know which value to change.
 */
#include "ftl_config.h"

#define FTL_MAX_PHYS_UNITS	((u64)U32_MAX - 1)	/* u32 physical addresses */

int ftl_err(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return ret;
	va_start(ap, fmt);
	ftl_vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/* a * b into *r unless it exceeds @limit */
static bool ftl_mul_within(u64 a, u64 b, u64 limit, u64 *r)
{
	if (a && b > ftl_div64(limit, a))
		return false;
	*r = a * b;
	return true;
}

const struct ftl_param ftl_params[] = {
#define FTL_CONFIG_DESC(name, def, min, max, desc)			\
	{ #name, desc, def, min, max, offsetof(struct ftl_config, name) },
	FTL_CONFIG_PARAMS(FTL_CONFIG_DESC)
#undef FTL_CONFIG_DESC
};

const size_t ftl_nr_params = ARRAY_SIZE(ftl_params);

u64 *ftl_param_ptr(struct ftl_config *cfg, const struct ftl_param *p)
{
	return (u64 *)((char *)cfg + p->offset);
}

u64 ftl_param_get(const struct ftl_config *cfg, const struct ftl_param *p)
{
	return *(const u64 *)((const char *)cfg + p->offset);
}

void ftl_config_defaults(struct ftl_config *cfg)
{
	size_t i;

	for (i = 0; i < ftl_nr_params; i++)
		*ftl_param_ptr(cfg, &ftl_params[i]) = ftl_params[i].def;
}

int ftl_config_check_ranges(const struct ftl_config *cfg, char *err,
			    size_t errlen)
{
	size_t i;

	for (i = 0; i < ftl_nr_params; i++) {
		const struct ftl_param *p = &ftl_params[i];
		u64 v = ftl_param_get(cfg, p);

		if (v >= p->min && v <= p->max)
			continue;
		return ftl_err(-EINVAL, err, errlen,
			       "%s=%llu is out of range [%llu, %llu]",
			       p->name, (unsigned long long)v,
			       (unsigned long long)p->min,
			       (unsigned long long)p->max);
	}
	return 0;
}

static int ftl_derive_blocks(const struct ftl_config *cfg,
			     struct ftl_geometry *g, char *err, size_t errlen)
{
	u64 die_block_units = g->units_per_block;
	u64 logical, phys, blocks;

	if (cfg->blocks_per_plane && cfg->capacity_mib)
		return ftl_err(-EINVAL, err, errlen,
			       "blocks_per_plane and capacity_mib are mutually exclusive: set one of them to 0");
	if (!cfg->blocks_per_plane && !cfg->capacity_mib)
		return ftl_err(-EINVAL, err, errlen,
			       "one of blocks_per_plane or capacity_mib must be non-zero");

	if (cfg->capacity_mib) {
		logical = cfg->capacity_mib << (20 - FTL_MAP_SHIFT);
		/* physical = logical / (1 - op), rounded up to whole blocks */
		phys = ftl_div64(logical * 100 + (100 - cfg->op_percent) - 1,
				 100 - cfg->op_percent);
		blocks = ftl_div64(phys + g->dies * die_block_units - 1,
				   g->dies * die_block_units);
		/*
		 * op_percent is a minimum: a small drive gets the spare
		 * blocks per die that its GC thresholds need.
		 */
		blocks = ftl_max64(blocks,
				   ftl_div64(logical + g->dies * die_block_units - 1,
					     g->dies * die_block_units) +
				   g->gc_headroom);
		if (blocks > U32_MAX)
			return ftl_err(-EINVAL, err, errlen,
				       "capacity_mib needs more than 2^32 blocks per die: raise pages_per_block");
		g->blocks_per_die = (u32)blocks;
	} else {
		g->blocks_per_die = (u32)cfg->blocks_per_plane;
	}

	if (!ftl_mul_within(die_block_units, g->blocks_per_die,
			    FTL_MAX_PHYS_UNITS, &g->units_per_die) ||
	    !ftl_mul_within(g->units_per_die, g->dies, FTL_MAX_PHYS_UNITS,
			    &g->phys_units))
		return ftl_err(-EINVAL, err, errlen,
			       "geometry holds more than %llu 4 KiB pages: reduce channels, dies_per_channel, blocks_per_plane or capacity_mib",
			       (unsigned long long)FTL_MAX_PHYS_UNITS);

	if (cfg->capacity_mib)
		g->logical_units = cfg->capacity_mib << (20 - FTL_MAP_SHIFT);
	else
		g->logical_units = ftl_div64(g->phys_units *
					     (100 - cfg->op_percent), 100);
	return 0;
}

/*
 * write_points_per_die=0: as many points as three quarters of the write
 * buffer holds as partial program units, a quarter staying free for
 * bursts, at most 48. 48 on the default drive (8 dies, 32 KiB units, 16
 * MiB): the fileserver-small experiment's 256 files growing at once keep
 * about 32 partial units per die, and fewer points evict (experiments/subpage/README.md).
 */
#define FTL_AUTO_WPTS_MAX 48

static u32 ftl_auto_wpts(const struct ftl_config *cfg, u32 dies, u64 pu_bytes)
{
	u64 n = ftl_div64(ftl_div64((cfg->write_buffer_kib << 10) * 3 / 4,
				    pu_bytes), dies);

	return (u32)ftl_max64(1, ftl_min64(n, FTL_AUTO_WPTS_MAX));
}

/*
 * Flexible data placement: reclaim groups of whole dies, each reclaim
 * unit over fdp_ru_dies consecutive dies of its group, an equal number
 * of blocks on each. Every handle has a write point on every die for its
 * unit there; GC one per handle (persistently isolated) or one for all
 * (initially isolated) on each die, as it relocates inside a die.
 */
static int ftl_derive_fdp(const struct ftl_config *cfg, struct ftl_geometry *g,
			  char *err, size_t errlen)
{
	u64 blocks;

	if (!cfg->fdp_ruhs)
		return 0;
	if (g->dies % cfg->fdp_reclaim_groups)
		return ftl_err(-EINVAL, err, errlen,
			       "fdp_reclaim_groups=%llu does not divide the %u dies (channels x dies_per_channel)",
			       (unsigned long long)cfg->fdp_reclaim_groups,
			       g->dies);
	g->fdp_rgs = (u32)cfg->fdp_reclaim_groups;
	g->fdp_rg_dies = g->dies / g->fdp_rgs;
	g->fdp_ru_dies = cfg->fdp_ru_dies ? (u32)cfg->fdp_ru_dies : g->fdp_rg_dies;
	if (g->fdp_ru_dies > g->fdp_rg_dies || g->fdp_rg_dies % g->fdp_ru_dies)
		return ftl_err(-EINVAL, err, errlen,
			       "fdp_ru_dies=%llu does not divide the %u dies of a reclaim group (dies / fdp_reclaim_groups)",
			       (unsigned long long)cfg->fdp_ru_dies,
			       g->fdp_rg_dies);
	blocks = cfg->fdp_ru_blocks ? cfg->fdp_ru_blocks : g->fdp_ru_dies;
	if (blocks % g->fdp_ru_dies)
		return ftl_err(-EINVAL, err, errlen,
			       "fdp_ru_blocks=%llu is not a multiple of the %u dies of a reclaim unit (fdp_ru_dies)",
			       (unsigned long long)blocks, g->fdp_ru_dies);
	g->fdp_ruhs = (u32)cfg->fdp_ruhs;
	g->fdp_ru_die_blocks = (u32)(blocks / g->fdp_ru_dies);
	g->fdp_gc_wpts = cfg->fdp_ruh_type == 2 ? g->fdp_ruhs : 1;
	return 0;
}

int ftl_config_derive(const struct ftl_config *cfg, struct ftl_geometry *g,
		      char *err, size_t errlen)
{
	u64 pu_bytes, block_bytes, spare_per_die, need_buf, gran;
	int ret;

	ftl_memset(g, 0, sizeof(*g));
	ret = ftl_config_check_ranges(cfg, err, errlen);
	if (ret)
		return ret;

	if (cfg->page_bytes % FTL_MAP_UNIT)
		return ftl_err(-EINVAL, err, errlen,
			       "page_bytes=%llu is not a multiple of 4096",
			       (unsigned long long)cfg->page_bytes);

	g->channels = (u32)cfg->channels;
	g->dies = (u32)(cfg->channels * cfg->dies_per_channel);
	g->page_units = (u32)(cfg->page_bytes / FTL_MAP_UNIT);
	g->pu_units = (u32)(g->page_units * cfg->planes_per_die);
	pu_bytes = (u64)g->pu_units * FTL_MAP_UNIT;
	if (!ftl_mul_within(g->pu_units, cfg->pages_per_block,
			    FTL_MAX_PHYS_UNITS, &block_bytes))
		return ftl_err(-EINVAL, err, errlen,
			       "page_bytes x planes_per_die x pages_per_block exceeds 2^32 pages: reduce pages_per_block");
	g->units_per_block = (u32)block_bytes;
	block_bytes *= FTL_MAP_UNIT;

	gran = cfg->granularity_bytes ? cfg->granularity_bytes : pu_bytes;
	if (gran % FTL_MAP_UNIT)
		return ftl_err(-EINVAL, err, errlen,
			       "granularity_bytes=%llu is not a multiple of 4096",
			       (unsigned long long)gran);
	if (gran > block_bytes)
		return ftl_err(-EINVAL, err, errlen,
			       "granularity_bytes=%llu is larger than an erase block (%llu bytes = page_bytes x planes_per_die x pages_per_block)",
			       (unsigned long long)gran,
			       (unsigned long long)block_bytes);
	g->gran_units = (u32)(gran / FTL_MAP_UNIT);
	g->stripe_bytes = gran * g->dies;

	ret = ftl_derive_fdp(cfg, g, err, errlen);
	if (ret)
		return ret;
	/*
	 * With FDP every conventional write goes to a handle's point, so
	 * the automatic choice leaves the die's shared point alone.
	 */
	g->host_wpts = (u32)cfg->write_points_per_die;
	if (!g->host_wpts)
		g->host_wpts = g->fdp_ruhs ? 1 :
			       ftl_auto_wpts(cfg, g->dies, pu_bytes);
	g->wpts = g->host_wpts > 1 ? g->host_wpts + 1 : 1;
	g->gc_wpt = g->wpts - 1;
	g->fdp_wpt = g->wpts;
	if (g->fdp_ruhs)
		g->wpts += g->fdp_ruhs + g->fdp_gc_wpts;
	/*
	 * GC relocates inside a die, so every die needs its own headroom:
	 * the foreground threshold, one open block (every write point takes
	 * its program units from it) and one block that only GC may take (so
	 * relocation always has a destination). An FDP point fills a block
	 * of its own reclaim unit: one more open block each.
	 */
	g->gc_fg = (u32)cfg->gc_fg_free_blocks;
	g->gc_bg = (u32)cfg->gc_bg_free_blocks;
	g->gc_headroom = g->gc_fg + 2 + g->wpts - g->fdp_wpt;
	ret = ftl_derive_blocks(cfg, g, err, errlen);
	if (ret)
		return ret;
	if (g->fdp_ru_die_blocks > g->blocks_per_die - g->gc_headroom)
		return ftl_err(-EINVAL, err, errlen,
			       "fdp_ru_blocks=%llu puts %u blocks on each of its dies, more than the %u a die holds beside GC's headroom",
			       (unsigned long long)cfg->fdp_ru_blocks,
			       g->fdp_ru_die_blocks,
			       g->blocks_per_die - g->gc_headroom);

	if (g->logical_units < g->dies)
		return ftl_err(-EINVAL, err, errlen,
			       "capacity is smaller than one 4 KiB page per die");

	if (cfg->gc_fg_free_blocks > cfg->gc_bg_free_blocks)
		return ftl_err(-EINVAL, err, errlen,
			       "gc_fg_free_blocks=%llu must not exceed gc_bg_free_blocks=%llu",
			       (unsigned long long)cfg->gc_fg_free_blocks,
			       (unsigned long long)cfg->gc_bg_free_blocks);

	spare_per_die = ftl_div64(g->phys_units - g->logical_units,
				  g->dies * (u64)g->units_per_block);
	if (spare_per_die < g->gc_headroom)
		return ftl_err(-EINVAL, err, errlen,
			       "capacity too small for GC headroom: op_percent=%llu leaves %llu spare blocks per die, GC needs %llu (gc_fg_free_blocks + 2%s); raise op_percent or capacity, or lower pages_per_block",
			       (unsigned long long)cfg->op_percent,
			       (unsigned long long)spare_per_die,
			       (unsigned long long)g->gc_headroom,
			       g->fdp_ruhs ? " + a block per FDP write point" : "");
	if (g->gc_bg >= g->blocks_per_die)
		return ftl_err(-EINVAL, err, errlen,
			       "gc_bg_free_blocks=%llu must be below the %u blocks of a die",
			       (unsigned long long)cfg->gc_bg_free_blocks,
			       g->blocks_per_die);

	/*
	 * Partly filled program units sit in the write buffer, up to one per
	 * host write point; the buffer must also hold one more full unit or
	 * a write could wait for space that is never released.
	 */
	need_buf = ((u64)g->dies * (g->host_wpts + g->fdp_ruhs) + 1) * pu_bytes;
	if ((cfg->write_buffer_kib << 10) < need_buf)
		return ftl_err(-EINVAL, err, errlen,
			       "write_buffer_kib=%llu is too small: it must hold (dies x %s + 1) program units = %llu KiB",
			       (unsigned long long)cfg->write_buffer_kib,
			       g->fdp_ruhs ? "(write_points_per_die + fdp_ruhs)" :
			       "write_points_per_die",
			       (unsigned long long)(need_buf >> 10));
	g->wb_units = (u32)((cfg->write_buffer_kib << 10) / FTL_MAP_UNIT);

	g->channel_mbps = cfg->channel_mbps;
	g->link_mbps = cfg->link_mbps;
	ftl_config_scale(cfg, g);
	return 0;
}

void ftl_config_scale(const struct ftl_config *cfg, struct ftl_geometry *g)
{
	g->time_scale = cfg->time_scale;
	g->t_read = cfg->read_ns * cfg->time_scale;
	g->t_prog = cfg->prog_ns * cfg->time_scale;
	g->t_erase = cfg->erase_ns * cfg->time_scale;
	g->t_fw_read_4k = cfg->fw_read_4k_ns * cfg->time_scale;
	g->t_fw_read = cfg->fw_read_ns * cfg->time_scale;
	g->t_fw_write = cfg->fw_write_ns * cfg->time_scale;
	g->t_fw_write_4k = cfg->fw_write_4k_ns * cfg->time_scale;
	g->t_jitter = cfg->jitter_ns * cfg->time_scale;
	g->t_wpt_idle = cfg->write_point_idle_ns * cfg->time_scale;
}

u64 ftl_xfer_ns(const struct ftl_geometry *g, u64 bytes, u64 mbps)
{
	/* bytes / (mbps * 10^6) s = bytes * 1000 / mbps ns, rounded up */
	return ftl_div64(bytes * 1000 * g->time_scale + mbps - 1, mbps);
}
