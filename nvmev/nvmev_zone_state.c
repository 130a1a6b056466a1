// SPDX-License-Identifier: GPL-2.0
/*
 * Zone states and limits of a zoned namespace (NVMe Zoned Namespace
 * Command Set 1.1, "Zone State Machine"), portable: see nvmev_zone_state.h.
 *
 * Resources: a zone is active while implicitly or explicitly opened or
 * closed, open while opened; a write to an empty or closed zone opens it
 * implicitly, which at the open limit first closes an implicitly opened
 * zone (an explicitly opened one stays open until the host closes it).
 */
#include "nvmev_zone_state.h"

void nvmev_zns_init(struct nvmev_zns *z)
{
	u32 i;

	for (i = 0; i < z->nr_zones; i++) {
		z->zones[i].state = NVMEV_ZS_EMPTY;
		z->zones[i].wp = 0;
	}
	z->nr_open = 0;
	z->nr_active = 0;
	z->close_cursor = 0;
}

static bool nvmev_zone_is_open(u8 state)
{
	return state == NVMEV_ZS_IMP_OPEN || state == NVMEV_ZS_EXP_OPEN;
}

static bool nvmev_zone_is_active(u8 state)
{
	return nvmev_zone_is_open(state) || state == NVMEV_ZS_CLOSED;
}

/* An implicitly opened zone to close for an open, or nr_zones if none. */
static u32 nvmev_zns_victim(const struct nvmev_zns *z)
{
	u32 i, zi;

	for (i = 0; i < z->nr_zones; i++) {
		zi = (z->close_cursor + i) % z->nr_zones;
		if (z->zones[zi].state == NVMEV_ZS_IMP_OPEN)
			return zi;
	}
	return z->nr_zones;
}

/*
 * Resources for @zone to become open: an active one if it is not active
 * yet, an open one unless an implicitly opened zone can give its up.
 */
static u16 nvmev_zns_open_check(const struct nvmev_zns *z,
				const struct nvmev_zone *zone)
{
	if (nvmev_zone_is_open(zone->state))
		return NVME_SC_SUCCESS;
	if (!nvmev_zone_is_active(zone->state) && z->max_active &&
	    z->nr_active >= z->max_active)
		return NVME_SC_ZONE_TOO_MANY_ACTIVE | NVME_STATUS_DNR;
	if (z->max_open && z->nr_open >= z->max_open &&
	    nvmev_zns_victim(z) == z->nr_zones)
		return NVME_SC_ZONE_TOO_MANY_OPEN | NVME_STATUS_DNR;
	return NVME_SC_SUCCESS;
}

/* @zone (checked) opens, implicitly or explicitly as @state says. */
static void nvmev_zns_open(struct nvmev_zns *z, struct nvmev_zone *zone, u8 state)
{
	u32 victim;

	if (!nvmev_zone_is_open(zone->state)) {
		if (!nvmev_zone_is_active(zone->state))
			z->nr_active++;
		if (z->max_open && z->nr_open >= z->max_open) {
			victim = nvmev_zns_victim(z);
			z->zones[victim].state = NVMEV_ZS_CLOSED;
			z->close_cursor = (victim + 1) % z->nr_zones;
			z->nr_open--;
		}
		z->nr_open++;
	}
	if (zone->state != NVMEV_ZS_EXP_OPEN)
		zone->state = state;
}

/* @zone leaves the active states for @state (empty or full). */
static void nvmev_zns_release(struct nvmev_zns *z, struct nvmev_zone *zone, u8 state)
{
	if (nvmev_zone_is_open(zone->state))
		z->nr_open--;
	if (nvmev_zone_is_active(zone->state))
		z->nr_active--;
	zone->state = state;
	zone->wp = state == NVMEV_ZS_FULL ? z->zcap : 0;
}

u16 nvmev_zns_write_check(const struct nvmev_zns *z, u64 slba, u64 nlb,
			  bool append, u64 *lba)
{
	u32 zi = nvmev_zone_of(z, slba);
	const struct nvmev_zone *zone = &z->zones[zi];
	u64 zslba = nvmev_zone_start(z, zi);

	switch (zone->state) {
	case NVMEV_ZS_FULL:
		return NVME_SC_ZONE_FULL | NVME_STATUS_DNR;
	case NVMEV_ZS_READ_ONLY:
		return NVME_SC_ZONE_READ_ONLY | NVME_STATUS_DNR;
	case NVMEV_ZS_OFFLINE:
		return NVME_SC_ZONE_OFFLINE | NVME_STATUS_DNR;
	}
	/* a Zone Append names its zone by the first LBA, a Write its place */
	if (append ? slba != zslba : slba != zslba + zone->wp)
		return append ? NVME_SC_INVALID_FIELD | NVME_STATUS_DNR :
				NVME_SC_ZONE_INVALID_WRITE | NVME_STATUS_DNR;
	if (nlb > z->zcap - zone->wp)
		return NVME_SC_ZONE_BOUNDARY_ERROR | NVME_STATUS_DNR;
	*lba = zslba + zone->wp;
	return nvmev_zns_open_check(z, zone);
}

void nvmev_zns_write_commit(struct nvmev_zns *z, u64 lba, u64 nlb)
{
	struct nvmev_zone *zone = &z->zones[nvmev_zone_of(z, lba)];

	nvmev_zns_open(z, zone, NVMEV_ZS_IMP_OPEN);
	zone->wp += nlb;
	if (zone->wp == z->zcap)
		nvmev_zns_release(z, zone, NVMEV_ZS_FULL);
}

u16 nvmev_zns_read_check(const struct nvmev_zns *z, u64 slba, u64 nlb)
{
	u32 zi, last = nvmev_zone_of(z, slba + nlb - 1);

	for (zi = nvmev_zone_of(z, slba); zi <= last; zi++)
		if (z->zones[zi].state == NVMEV_ZS_OFFLINE)
			return NVME_SC_ZONE_OFFLINE | NVME_STATUS_DNR;
	return NVME_SC_SUCCESS;
}

/* Whether Select All applies @zsa to a zone in @state. */
static bool nvmev_zns_selected(u8 zsa, u8 state)
{
	switch (zsa) {
	case NVME_ZONE_CLOSE:
		return nvmev_zone_is_open(state);
	case NVME_ZONE_FINISH:
		return nvmev_zone_is_active(state);
	case NVME_ZONE_OPEN:
		return state == NVMEV_ZS_CLOSED;
	case NVME_ZONE_RESET:
		return nvmev_zone_is_active(state) || state == NVMEV_ZS_FULL;
	case NVME_ZONE_OFFLINE:
		return state == NVMEV_ZS_READ_ONLY;
	}
	return false;
}

/* @zsa on zone @zi: its transition, or Invalid Zone State Transition. */
static u16 nvmev_zns_act(struct nvmev_zns *z, u32 zi, u8 zsa,
			 nvmev_zone_flash_fn flash, void *ctx)
{
	struct nvmev_zone *zone = &z->zones[zi];
	u8 s = zone->state;
	u16 status;

	switch (zsa) {
	case NVME_ZONE_CLOSE:
		if (s == NVMEV_ZS_CLOSED)
			return NVME_SC_SUCCESS;
		if (!nvmev_zone_is_open(s))
			break;
		zone->state = NVMEV_ZS_CLOSED;
		z->nr_open--;
		return NVME_SC_SUCCESS;
	case NVME_ZONE_FINISH:
		if (s == NVMEV_ZS_FULL)
			return NVME_SC_SUCCESS;
		if (s == NVMEV_ZS_EMPTY && z->max_active &&
		    z->nr_active >= z->max_active)
			return NVME_SC_ZONE_TOO_MANY_ACTIVE | NVME_STATUS_DNR;
		if (s != NVMEV_ZS_EMPTY && !nvmev_zone_is_active(s))
			break;
		flash(ctx, zsa, nvmev_zone_start(z, zi));
		nvmev_zns_release(z, zone, NVMEV_ZS_FULL);
		return NVME_SC_SUCCESS;
	case NVME_ZONE_OPEN:
		if (s != NVMEV_ZS_EMPTY && !nvmev_zone_is_active(s))
			break;
		status = nvmev_zns_open_check(z, zone);
		if (!status)
			nvmev_zns_open(z, zone, NVMEV_ZS_EXP_OPEN);
		return status;
	case NVME_ZONE_RESET:
		/*
		 * An empty zone's flash is reset too: a reset must bring the
		 * zone back to a writable, zero-reading state whatever the
		 * flash model holds there.
		 */
		if (s == NVMEV_ZS_EMPTY) {
			flash(ctx, zsa, nvmev_zone_start(z, zi));
			return NVME_SC_SUCCESS;
		}
		if (s != NVMEV_ZS_FULL && !nvmev_zone_is_active(s))
			break;
		flash(ctx, zsa, nvmev_zone_start(z, zi));
		nvmev_zns_release(z, zone, NVMEV_ZS_EMPTY);
		return NVME_SC_SUCCESS;
	case NVME_ZONE_OFFLINE:
		if (s == NVMEV_ZS_OFFLINE)
			return NVME_SC_SUCCESS;
		if (s != NVMEV_ZS_READ_ONLY)
			break;
		zone->state = NVMEV_ZS_OFFLINE;
		return NVME_SC_SUCCESS;
	default:
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	}
	return NVME_SC_ZONE_INVALID_TRANSITION | NVME_STATUS_DNR;
}

u16 nvmev_zns_manage(struct nvmev_zns *z, u8 zsa, u64 slba, bool all,
		     nvmev_zone_flash_fn flash, void *ctx)
{
	u32 zi, closed = 0;

	if (!all)
		return nvmev_zns_act(z, nvmev_zone_of(z, slba), zsa, flash, ctx);
	/* opening every closed zone: all of them or none */
	if (zsa == NVME_ZONE_OPEN) {
		for (zi = 0; zi < z->nr_zones; zi++)
			closed += z->zones[zi].state == NVMEV_ZS_CLOSED;
		if (z->max_open && z->nr_open + closed > z->max_open)
			return NVME_SC_ZONE_TOO_MANY_OPEN | NVME_STATUS_DNR;
	}
	for (zi = 0; zi < z->nr_zones; zi++)
		if (nvmev_zns_selected(zsa, z->zones[zi].state))
			nvmev_zns_act(z, zi, zsa, flash, ctx);
	return NVME_SC_SUCCESS;
}

static void nvmev_put_le64(u8 *p, u64 v)
{
	v = ftl_le64_to_cpu(v);		/* the same swap either way */
	ftl_memcpy(p, &v, sizeof(v));
}

/* ZRASF: 0 every zone, 1-7 one state each */
static bool nvmev_zns_matches(u8 filter, u8 state)
{
	static const u8 states[] = { 0, NVMEV_ZS_EMPTY, NVMEV_ZS_IMP_OPEN,
				     NVMEV_ZS_EXP_OPEN, NVMEV_ZS_CLOSED,
				     NVMEV_ZS_FULL, NVMEV_ZS_READ_ONLY,
				     NVMEV_ZS_OFFLINE };

	return !filter || (filter < ARRAY_SIZE(states) && states[filter] == state);
}

void nvmev_zns_report(const struct nvmev_zns *z, u64 slba, u8 filter,
		      bool partial, u8 *buf, u64 len)
{
	u64 room = len / NVMEV_ZONE_DESC_BYTES, n = 0;
	u32 zi;

	room = room ? room - 1 : 0;	/* the header takes the first */
	for (zi = nvmev_zone_of(z, slba); zi < z->nr_zones; zi++) {
		const struct nvmev_zone *zone = &z->zones[zi];
		u8 *d = buf + (n + 1) * NVMEV_ZONE_DESC_BYTES;
		u64 zslba = nvmev_zone_start(z, zi);

		if (!nvmev_zns_matches(filter, zone->state))
			continue;
		if (n < room) {
			d[0] = NVME_ZONE_TYPE_SEQWRITE_REQ;
			d[1] = zone->state << 4;
			nvmev_put_le64(d + 8, z->zcap);
			nvmev_put_le64(d + 16, zslba);
			nvmev_put_le64(d + 24, zslba + zone->wp);
		} else if (partial) {
			break;
		}
		n++;
	}
	if (len >= sizeof(u64))
		nvmev_put_le64(buf, n);
}
