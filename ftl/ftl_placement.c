// SPDX-License-Identifier: GPL-2.0
/*
 * Placement policy: which die receives the next 4 KiB unit of a write.
 *
 * This is the seam hint-driven placement plugs into. The default policy is
 * what commodity drives do: a cursor walks the dies round-robin in
 * channel-first order, moving on after granularity bytes, regardless of
 * which logical block is written. That is exactly what scatters fragmented
 * and overwritten files over the dies.
 */
#include "ftl_internal.h"

void ftl_place_init(struct ftl *ftl)
{
	ftl->place.die = 0;
	ftl->place.filled = 0;
}

u32 ftl_place_die(struct ftl *ftl, const struct ftl_place_req *req)
{
	struct ftl_place *p = &ftl->place;
	u32 die = p->die;

	(void)req;	/* hints are not honoured yet */
	if (++p->filled == ftl->geo.gran_units) {
		p->filled = 0;
		p->die = (p->die + 1) % ftl->geo.dies;
	}
	return die;
}
