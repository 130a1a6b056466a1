/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flexible data placement (ftl_fdp.c): host writes through reclaim unit
 * handles, the handle update, and what a device turns into FDP's log
 * pages. Above the mapping, the reclaim units and the zones it uses;
 * ftl_core.c sends it the writes that carry a handle, and ftl.h
 * includes this header, so the accessors are part of the interface.
 */
#ifndef FTL_FDP_H
#define FTL_FDP_H

#include "ftl_types.h"

struct ftl;

/*
 * Move handle @ruh of reclaim group @rg to a fresh reclaim unit at @now
 * (I/O Management Send's update): a unit it wrote in is closed, its
 * partly filled program units programmed, padded, and an
 * FTL_FDP_EV_RU_NOT_FULL event recorded; one it has not written in yet
 * is kept. Returns 0, or -EINVAL with FDP off or a handle out of range.
 */
int ftl_fdp_update(struct ftl *ftl, u32 rg, u32 ruh, u64 now);

/* What handle @ruh writes in group @rg; -EINVAL if there is no such. */
int ftl_fdp_ruh_get(const struct ftl *ftl, u32 rg, u32 ruh,
		    struct ftl_fdp_ruh_status *st);

/*
 * Counters of the drive (@which FTL_FDP_NONE), of reclaim group @which
 * (@per_ruh false) or of the data of handle @which (@per_ruh true);
 * -EINVAL with FDP off or out of range. ftl_stats_reset() zeroes them.
 */
int ftl_fdp_stats_get(const struct ftl *ftl, u32 which, bool per_ruh,
		      struct ftl_fdp_stats *st);

/* Reclaim unit records: how many, and one (-EINVAL beyond them). */
u32 ftl_fdp_nr_ru(const struct ftl *ftl);
int ftl_fdp_ru_get(const struct ftl *ftl, u32 ru, struct ftl_fdp_ru_info *info);

/*
 * The reclaim unit holding the 4 KiB unit at byte @off and the handle
 * whose write placed its data; -ENOENT if unmapped or outside any unit.
 */
int ftl_fdp_locate(const struct ftl *ftl, u64 off, u32 *ru, u32 *ruh);

/*
 * Copy the newest events, at most @max, oldest first, into @out; returns
 * how many. *@lost: events dropped from the ring since creation.
 */
u32 ftl_fdp_events(const struct ftl *ftl, struct ftl_fdp_event *out, u32 max,
		   u64 *lost);

/* Event types the model records: FTL_FDP_EV_*. */
bool ftl_fdp_event_supported(u8 type);

/*
 * Record events of @type for handle @ruh (@on) or not; all are on when
 * the model is created. -EINVAL with FDP off, @ruh out of range or a
 * type it does not record.
 */
int ftl_fdp_event_enable(struct ftl *ftl, u32 ruh, u8 type, bool on);
bool ftl_fdp_event_enabled(const struct ftl *ftl, u32 ruh, u8 type);

/*
 * A write of namespace @nsid named placement identifier @pid, which it
 * may not use, and was placed through handle @ruh of reclaim group 0
 * instead: an FTL_FDP_EV_INVALID_PID event if @ruh records it.
 */
void ftl_fdp_event_invalid_pid(struct ftl *ftl, u32 ruh, u16 pid, u32 nsid,
			       u64 now);

/* For ftl_core.c and ftl_stats.c. */
/*
 * Place host unit @lpn of handle @ruh of group @rg, data ready at @t:
 * its slot in *@ppa, counted valid, the die in *@die. -ENOSPC if no die
 * of the group takes it.
 */
int ftl_fdp_place(struct ftl *ftl, u32 rg, u32 ruh, u32 lpn, u64 t, u32 *ppa,
		  u32 *die);
void ftl_fdp_stats_reset(struct ftl *ftl);
/* Every unit's data is of the handles its unit may hold. */
int ftl_fdp_check(const struct ftl *ftl, char *err, size_t errlen);

#endif /* FTL_FDP_H */
