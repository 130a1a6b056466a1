/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run-time configuration of the flash model: one table, many users.
 *
 * FTL_CONFIG_PARAMS() is the single description of every geometry and
 * timing knob. The kernel module turns it into module parameters, the
 * simulator into command-line options, the validator into range checks
 * and the README lists it; nothing else spells out the list again.
 *
 * X(name, default, min, max, description)
 * All values are unsigned 64-bit integers; units are part of the name.
 * A default of 0 for blocks_per_plane, granularity_bytes means "derive".
 */
#ifndef FTL_CONFIG_H
#define FTL_CONFIG_H

#include "ftl_compat.h"

#define FTL_MAP_UNIT		4096u	/* mapping unit, bytes */
#define FTL_MAP_SHIFT		12
#define FTL_ERRMSG_LEN		256

#define FTL_CONFIG_PARAMS(X)						\
	X(channels, 4, 1, 256,						\
	  "flash channels; dies are numbered channel-first")		\
	X(dies_per_channel, 2, 1, 64,					\
	  "dies (ways) sharing one channel")				\
	X(planes_per_die, 2, 1, 16,					\
	  "planes per die; one program unit spans all planes")		\
	X(page_bytes, 16384, 4096, 1048576,				\
	  "flash page size of one plane in bytes (multiple of 4096)")	\
	X(pages_per_block, 64, 2, 65536,				\
	  "flash pages per erase block")				\
	X(blocks_per_plane, 0, 0, 16777216,				\
	  "erase blocks per plane; 0 = derive from capacity_mib")	\
	X(capacity_mib, 0, 0, 16777216,					\
	  "user-visible capacity in MiB; 0 = from blocks_per_plane, or if "	\
	  "that is 0 too the program's default (nvmev-sim: 4096, "	\
	  "nvmev.ko: 4096 with the data in pages, else all of "	\
	  "memmap_size)")						\
	X(op_percent, 7, 1, 90,						\
	  "over-provisioning: percent of flash hidden from the host")	\
	X(granularity_bytes, 0, 0, 1073741824,				\
	  "die-allocation granularity in bytes (multiple of 4096); "	\
	  "0 = page_bytes x planes_per_die")				\
	X(read_ns, 36000, 1, 100000000,					\
	  "NAND page read (tR) in ns")					\
	X(prog_ns, 185000, 1, 100000000,				\
	  "NAND program of one program unit (tPROG) in ns")		\
	X(erase_ns, 1500000, 1, 1000000000,				\
	  "NAND block erase (tBERS) in ns")				\
	X(channel_mbps, 800, 1, 1000000,				\
	  "flash channel bandwidth in MB/s (10^6 bytes/s)")		\
	X(link_mbps, 3360, 1, 1000000,					\
	  "host link bandwidth per direction in MB/s (10^6 bytes/s)")	\
	X(fw_read_4k_ns, 21500, 0, 100000000,				\
	  "firmware overhead of a read of at most 4 KiB, ns")		\
	X(fw_read_ns, 30500, 0, 100000000,				\
	  "firmware overhead of a read larger than 4 KiB, ns")		\
	X(fw_write_ns, 4000, 0, 100000000,				\
	  "firmware overhead per write/trim/flush command, ns")	\
	X(fw_write_4k_ns, 460, 0, 100000000,				\
	  "extra firmware overhead per 4 KiB written, ns")		\
	X(write_buffer_kib, 16384, 4, 4194304,				\
	  "write buffer (early completion) size in KiB")		\
	X(gc_bg_free_blocks, 4, 1, 1048576,				\
	  "background GC runs on an idle die with fewer free blocks")	\
	X(gc_fg_free_blocks, 2, 1, 1048576,				\
	  "foreground GC runs before a write when a die has this few free blocks") \
	X(time_scale, 1, 1, 10000,					\
	  "multiplies every modelled delay (slow emulated guests)")	\
	X(hints, 1, 0, 1,						\
	  "1 = honour append/overwrite placement hints, 0 = ignore them") \
	X(hint_wear_gap, 0, 0, 1000000,					\
	  "place a hinted write round-robin when its die has this many "	\
	  "more erases than the least-worn die; 0 = never")		\
	X(write_points_per_die, 0, 0, 256,				\
	  "program units each die assembles at once for host writes: 1 = " \
	  "one shared by every writer; more = one shared plus one per "	\
	  "hinted stream, and GC gets its own; 0 = as many as 3/4 of the " \
	  "write buffer holds, at most 48")				\
	X(write_point_idle_ns, 1000000000, 1, 60000000000,		\
	  "a die's stream write points program their partly filled units, " \
	  "padded, once the die took no data and did no work for this "	\
	  "long (scaled by time_scale)")				\
	X(jitter_ns, 0, 0, 100000000,					\
	  "added to every completion: uniform in [0, jitter_ns] ns (scaled " \
	  "by time_scale); 0 = deterministic latency")			\
	X(jitter_seed, 1, 0, 4294967295,				\
	  "seed of the jitter: the same seed gives the same delays")	\
	X(fdp_ruhs, 0, 0, 128,						\
	  "flexible data placement: reclaim unit handles, each writing " \
	  "reclaim units of its own; 0 = FDP off")			\
	X(fdp_reclaim_groups, 1, 1, 16384,				\
	  "FDP reclaim groups; the dies are split evenly between them")	\
	X(fdp_ru_dies, 0, 0, 16384,					\
	  "dies one reclaim unit spans, consecutive in its reclaim "	\
	  "group: 1 = one die, N = a die group of N, 0 = all dies of "	\
	  "the group")							\
	X(fdp_ru_blocks, 0, 0, 16777216,				\
	  "erase blocks of one reclaim unit, an equal share on each of "	\
	  "its dies; 0 = one on each")					\
	X(fdp_ruh_type, 1, 1, 2,					\
	  "reclaim unit handle type: 1 = initially isolated (GC may "	\
	  "mix the handles' data of a reclaim group), 2 = persistently " \
	  "isolated (GC keeps each handle's data in its own units)")

struct ftl_config {
#define FTL_CONFIG_FIELD(name, def, min, max, desc) u64 name;
	FTL_CONFIG_PARAMS(FTL_CONFIG_FIELD)
#undef FTL_CONFIG_FIELD
};

/* Geometry and scaled timing derived from a validated ftl_config. */
struct ftl_geometry {
	u32 channels;
	u32 dies;
	u32 page_units;		/* 4 KiB units in one plane page */
	u32 pu_units;		/* units in one program unit (all planes) */
	u32 units_per_block;	/* units in one multi-plane erase block */
	u32 blocks_per_die;
	u32 gran_units;		/* die-allocation granularity in units */
	u32 wb_units;		/* write buffer size in units */
	u32 gc_bg;		/* free-block thresholds, per die */
	u32 gc_fg;
	u32 gc_headroom;	/* blocks per die that data may not fill */
	u32 host_wpts;		/* write points per die for host data */
	u32 wpts;		/* all of them, GC's included */
	/* flexible data placement (ftl_fdp.c); fdp_ruhs == 0: off */
	u32 fdp_ruhs;
	u32 fdp_rgs;		/* reclaim groups */
	u32 fdp_rg_dies;	/* dies of a reclaim group */
	u32 fdp_ru_dies;	/* dies of a reclaim unit */
	u32 fdp_ru_die_blocks;	/* blocks of a reclaim unit on each of its dies */
	u32 fdp_gc_wpts;	/* write points per die GC fills reclaim units through */
	u32 fdp_wpt;		/* first FDP write point of a die; wpts if none */
	u32 gc_wpt;		/* write point GC copies data outside units into */
	u64 units_per_die;
	u64 phys_units;
	u64 logical_units;	/* exported capacity in units */
	u64 stripe_bytes;	/* dies x granularity */

	/* modelled delays, already multiplied by time_scale */
	u64 t_read;
	u64 t_prog;
	u64 t_erase;
	u64 t_fw_read_4k;
	u64 t_fw_read;
	u64 t_fw_write;
	u64 t_fw_write_4k;
	u64 t_jitter;		/* most completion jitter */
	u64 t_wpt_idle;		/* stream write point idle flush */
	u64 time_scale;
	u64 channel_mbps;
	u64 link_mbps;
};

/* The table as data, for option parsers and documentation. */
struct ftl_param {
	const char *name;
	const char *desc;
	u64 def;
	u64 min;
	u64 max;
	size_t offset;		/* of the field in struct ftl_config */
};

extern const struct ftl_param ftl_params[];
extern const size_t ftl_nr_params;
u64 *ftl_param_ptr(struct ftl_config *cfg, const struct ftl_param *p);
u64 ftl_param_get(const struct ftl_config *cfg, const struct ftl_param *p);

/* Fill @cfg with the defaults of the table. */
void ftl_config_defaults(struct ftl_config *cfg);

/*
 * Every value of @cfg within the range of its row. Returns 0, or -EINVAL
 * with a message naming the first one that is not in @err. The only range
 * check of the table: ftl_config_derive() and ftl_set_time_scale() ask it.
 */
int ftl_config_check_ranges(const struct ftl_config *cfg, char *err,
			    size_t errlen);

/*
 * Check @cfg and derive @geo from it. Returns 0, or -EINVAL with a
 * message naming the offending parameter(s) in @err.
 */
int ftl_config_derive(const struct ftl_config *cfg, struct ftl_geometry *geo,
		      char *err, size_t errlen);

/*
 * Nanoseconds to move @bytes at @mbps, scaled; never overflows for
 * bytes < 2^40, mbps >= 1 and time_scale <= 10000.
 */
u64 ftl_xfer_ns(const struct ftl_geometry *geo, u64 bytes, u64 mbps);

/* Recompute the scaled delays of @geo from @cfg (after a time_scale change). */
void ftl_config_scale(const struct ftl_config *cfg, struct ftl_geometry *geo);

/* Exported capacity in bytes of a drive of geometry @geo. */
static inline u64 ftl_geometry_capacity_bytes(const struct ftl_geometry *geo)
{
	return geo->logical_units << FTL_MAP_SHIFT;
}

/*
 * Print @fmt into @err (if there is one) and return @ret: how every file
 * of the model reports what is wrong.
 */
ftl_printf(4, 5) int ftl_err(int ret, char *err, size_t errlen,
			     const char *fmt, ...);

#endif /* FTL_CONFIG_H */
