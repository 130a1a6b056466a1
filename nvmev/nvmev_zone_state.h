/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zones of a zoned namespace (NVMe Zoned Namespace Command Set 1.1):
 * each zone's state and write pointer, and the namespace's open and
 * active limits. Like nvmev_cmd.c it uses only ftl/ftl_compat.h, so the
 * same file builds into nvmev.ko and into the userspace fuzz target.
 *
 * Every function returns an NVMe status (with DNR where the spec's
 * command would fail the same way again) and changes nothing when it
 * refuses. The executor (nvmev_io.c) checks a write before it moves a
 * byte and commits it after: a write whose data could not be moved
 * leaves the zone as it was.
 */
#ifndef NVMEV_ZONE_STATE_H
#define NVMEV_ZONE_STATE_H

#include "ftl_compat.h"
#include "nvmev_spec.h"

/* Zone states (ZS), as the zone descriptor's bits 7:4 give them */
enum {
	NVMEV_ZS_EMPTY		= 0x1,
	NVMEV_ZS_IMP_OPEN	= 0x2,
	NVMEV_ZS_EXP_OPEN	= 0x3,
	NVMEV_ZS_CLOSED		= 0x4,
	NVMEV_ZS_READ_ONLY	= 0xd,
	NVMEV_ZS_FULL		= 0xe,
	NVMEV_ZS_OFFLINE	= 0xf,
};

#define NVMEV_ZONE_DESC_BYTES	64	/* and the report's header */

struct nvmev_zone {
	u64 wp;				/* write pointer, LBAs from the zone's start */
	u8 state;
};

struct nvmev_zns {
	struct nvmev_zone *zones;
	u32 nr_zones;
	u32 zone_shift;			/* log2 of the zone size in LBAs */
	u64 zcap;			/* LBAs a zone can be written with */
	u32 max_open;			/* MOR + 1; 0: no limit */
	u32 max_active;			/* MAR + 1; 0: no limit */
	u32 nr_open;			/* implicitly and explicitly opened */
	u32 nr_active;			/* opened and closed */
	u32 close_cursor;		/* where the next implicit close looks */
};

/* The zone holding @lba (< nr_zones << zone_shift). */
static inline u32 nvmev_zone_of(const struct nvmev_zns *z, u64 lba)
{
	return lba >> z->zone_shift;
}

static inline u64 nvmev_zone_start(const struct nvmev_zns *z, u32 zone)
{
	return (u64)zone << z->zone_shift;
}

/* Every zone empty, no resources in use: after creation and Format. */
void nvmev_zns_init(struct nvmev_zns *z);

/*
 * May a Write (@append false: at @slba) or a Zone Append (to the zone
 * starting at @slba) of @nlb LBAs go ahead? *@lba: where it writes.
 */
u16 nvmev_zns_write_check(const struct nvmev_zns *z, u64 slba, u64 nlb,
			  bool append, u64 *lba);
/* The write checked at @lba is done: the zone opens, its pointer moves. */
void nvmev_zns_write_commit(struct nvmev_zns *z, u64 lba, u64 nlb);

/* May a Read of [@slba, @slba + @nlb) go ahead (no zone offline)? */
u16 nvmev_zns_read_check(const struct nvmev_zns *z, u64 slba, u64 nlb);

/*
 * What a zone's flash must do for action @zsa (NVME_ZONE_RESET: erase;
 * NVME_ZONE_FINISH: program what is buffered) on the zone starting at
 * LBA @zslba; called before the zone's state changes.
 */
typedef void (*nvmev_zone_flash_fn)(void *ctx, u8 zsa, u64 zslba);

/*
 * Zone Management Send action @zsa on the zone starting at @slba, or on
 * every zone it applies to (@all). @flash is called for each zone a Reset
 * empties or a Finish fills.
 */
u16 nvmev_zns_manage(struct nvmev_zns *z, u8 zsa, u64 slba, bool all,
		     nvmev_zone_flash_fn flash, void *ctx);

/*
 * The Report Zones data of the zones from the one holding @slba on whose
 * state @filter selects (0: all), into zeroed @buf of @len bytes: as many
 * descriptors as fit; the header counts those (@partial) or every match.
 */
void nvmev_zns_report(const struct nvmev_zns *z, u64 slba, u8 filter,
		      bool partial, u8 *buf, u64 len);

#endif /* NVMEV_ZONE_STATE_H */
