/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zone layer (ftl_zone.c): zoned regions whose zones own the erase
 * blocks they fill. Above the mapping, timing and placement it uses;
 * ftl_core.c makes its commands the model's (ftl_zoned_add() and the
 * others in ftl.h).
 */
#ifndef FTL_ZONE_H
#define FTL_ZONE_H

#include "ftl_state.h"

struct ftl_zoned;

struct ftl_zoned *ftl_zoned_find(const struct ftl *ftl, u64 lpn);
/* Units @first..@first+@n-1 touch a zoned region. */
bool ftl_zoned_overlap(const struct ftl *ftl, u64 first, u64 n);
/*
 * ftl_invalidate() of @lpn, and the count of zone units of its die when
 * @lpn is in a zoned region.
 */
void ftl_zoned_invalidate(struct ftl *ftl, u32 lpn);
/* A write of units @first..@first+@n-1, all in one zone of @zr. */
int ftl_zone_write(struct ftl *ftl, struct ftl_zoned *zr,
		   const struct ftl_cmd *cmd, u64 first, u64 n, u64 t,
		   u64 *done);
void ftl_zoned_free(struct ftl *ftl);
int ftl_zoned_check_all(const struct ftl *ftl, char *err, size_t errlen);
/*
 * Units of conventional data @die may still take, so that with every
 * zone full it keeps the GC headroom (0 once it holds its part).
 */
u64 ftl_conv_room(const struct ftl *ftl, u32 die);

/* What ftl_zoned_add(), ftl_zone_reset(), ... in ftl.h do. */
int ftl_zoned_region_add(struct ftl *ftl, u64 off, u64 zone_bytes,
			 u64 cap_bytes, u32 nr_zones, u32 width, char *err,
			 size_t errlen);
int ftl_zone_reset_at(struct ftl *ftl, u64 off, u64 now, u64 *done);
int ftl_zone_finish_at(struct ftl *ftl, u64 off, u64 now, u64 *done);
int ftl_zone_stats_at(const struct ftl *ftl, u64 off,
		      struct ftl_zone_stats *st);

#endif /* FTL_ZONE_H */
