/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SSD model: page-mapped FTL, garbage collection and a timing model of
 * dies, channels, host link and write buffer. This is its whole interface;
 * ftl_core.c (commands, lifecycle) and ftl_stats.c (statistics, checker)
 * define it, over the layers of ftl/ that docs/model.md lists.
 *
 * The model keeps no clock. Every call takes the caller's notion of "now"
 * in nanoseconds (ktime in the kernel, virtual time in the simulator) and
 * returns the time at which the command completes. Data never passes
 * through here: the model decides *when*, and keeps placement metadata.
 */
#ifndef FTL_H
#define FTL_H

#include "ftl_config.h"
#include "ftl_fdp.h"
#include "ftl_types.h"

struct ftl;

/*
 * Create a model in *@out. Returns 0, -EINVAL for a bad configuration or
 * -ENOMEM; on error @err says what is wrong and nothing is left allocated.
 */
int ftl_create(const struct ftl_config *cfg, struct ftl **out, char *err,
	       size_t errlen);
void ftl_destroy(struct ftl *ftl);

/*
 * The bytes ftl_create() would allocate for @cfg's tables (mapping both
 * ways, blocks, dies): 8 per 4 KiB page and a little more. Returns 0 or,
 * with @err set, -EINVAL for a bad configuration.
 */
int ftl_metadata_bytes(const struct ftl_config *cfg, u64 *bytes, char *err,
		       size_t errlen);

const struct ftl_geometry *ftl_get_geometry(const struct ftl *ftl);

/*
 * The configuration the model runs with: the one given to ftl_create(),
 * time_scale as ftl_set_time_scale() last set it.
 */
const struct ftl_config *ftl_get_config(const struct ftl *ftl);

/* Exported capacity in bytes. */
static inline u64 ftl_capacity_bytes(const struct ftl *ftl)
{
	return ftl_geometry_capacity_bytes(ftl_get_geometry(ftl));
}

/*
 * Apply @cmd at @now_ns: update the mapping, reserve dies, channels, host
 * link and buffer, and store the completion time in *@done_ns. Returns an
 * enum ftl_status; on error *@done_ns is still a valid completion time
 * (firmware overhead) so the transport can post the failure in order.
 */
int ftl_submit(struct ftl *ftl, const struct ftl_cmd *cmd, u64 now_ns,
	       u64 *done_ns);

/*
 * A trim in slices, for a transport that must bound the work of each call
 * (one trim may cover the drive, and a command hundreds of them):
 * ftl_trim_begin() checks, counts and times the FTL_OP_TRIM @cmd exactly
 * as ftl_submit() does but deallocates nothing; the caller then
 * deallocates the 4 KiB units that lie wholly inside it with ftl_unmap(),
 * as many per call as it likes. ftl_submit() of a trim is both at once.
 */
int ftl_trim_begin(struct ftl *ftl, const struct ftl_cmd *cmd, u64 now_ns,
		   u64 *done_ns);
/* Deallocate 4 KiB units @first .. @first + @n - 1 (those that exist). */
void ftl_unmap(struct ftl *ftl, u64 first, u64 n);

/*
 * Let the drive use idle time up to @now_ns: background GC runs on every
 * die that is idle and short of free blocks. ftl_submit() does this too;
 * call it when no command arrives for a while.
 */
void ftl_idle(struct ftl *ftl, u64 now_ns);

/*
 * Change time_scale of a running model. Meant for an idle drive:
 * bandwidth reservations in flight are forgotten. Returns 0, or -EINVAL
 * outside the range of its row in FTL_CONFIG_PARAMS().
 */
int ftl_set_time_scale(struct ftl *ftl, u64 scale);

/* Statistics: snapshot copies; reset zeroes counters, keeps gauges. */
void ftl_stats_get(const struct ftl *ftl, struct ftl_stats *st);
void ftl_die_stats_get(const struct ftl *ftl, u32 die,
		       struct ftl_die_stats *st);
void ftl_stats_reset(struct ftl *ftl);

/* Write amplification x 1000 (NAND units / host units); 0 before writes. */
u64 ftl_waf_milli(const struct ftl *ftl);
/*
 * The drive's round-robin cursor: the die unhinted writes go to next and
 * how many units its current granule already holds (0: a new granule).
 */
void ftl_cursor(const struct ftl *ftl, u32 *die, u32 *granule_units);

/* Location of the 4 KiB unit holding byte @off; -ENOENT if unmapped. */
int ftl_locate(const struct ftl *ftl, u64 off, struct ftl_location *loc);

/*
 * How many of the 4 KiB units from @first on, at most @n, are in a row
 * mapped (*@mapped true) or unmapped (false) like @first; 0 if @first is
 * beyond the capacity. Unmapped: never written, or trimmed since; what a
 * transport reads as zeroes. O(the run).
 */
u64 ftl_mapped_run(const struct ftl *ftl, u64 first, u64 n, bool *mapped);

/* Erase count of one block (wear). */
u32 ftl_block_erases(const struct ftl *ftl, u32 die, u32 block);

/*
 * Zones on flash (ftl_zone.c): @nr_zones zones of @zone_bytes from byte
 * @off, each writable for its first @cap_bytes, each over @width dies.
 * Writes into the region follow each zone's write pointer onto blocks
 * the zone owns; GC never moves them. The transport keeps the zone rules
 * (writes only at the pointer): the model places what it is given, and
 * refuses (FTL_ERR_INVALID) a write below what a zone already placed,
 * since flash is written once between erases. Only on a region that
 * holds no data yet. Returns 0, or -EINVAL/-ENOMEM with @err set.
 */
int ftl_zoned_add(struct ftl *ftl, u64 off, u64 zone_bytes, u64 cap_bytes,
		  u32 nr_zones, u32 width, char *err, size_t errlen);
/*
 * Reset the zone starting at byte @off: its units deallocated, its blocks
 * erased (complete in *@done once the erases are) and freed.
 */
int ftl_zone_reset(struct ftl *ftl, u64 off, u64 now, u64 *done);
/* Finish it: incomplete program units are programmed, padded. */
int ftl_zone_finish(struct ftl *ftl, u64 off, u64 now, u64 *done);

/* Statistics of the zone starting at byte @off; FTL_ERR_* if none. */
int ftl_zone_stats_get(const struct ftl *ftl, u64 off,
		       struct ftl_zone_stats *st);

/*
 * Full consistency check: L2P and P2L agree, valid counts match, free
 * blocks are empty, counters add up. O(capacity). Returns 0 or -EIO with
 * a description of the first inconsistency in @err.
 */
int ftl_check(const struct ftl *ftl, char *err, size_t errlen);

#endif /* FTL_H */
