// SPDX-License-Identifier: GPL-2.0
/*
 * Placement policy: which die receives the next 4 KiB unit of a write.
 *
 * Without hints a drive does what commodity drives do: a cursor walks the
 * dies round-robin in channel-first order, moving on after granularity
 * bytes, regardless of which logical block is written. That is exactly
 * what scatters fragmented and overwritten files over the dies.
 *
 * With hints (hint-proto/SPEC.md):
 *  - append: the write starts on the die after the one holding the file's
 *    previous block and continues round-robin from there, at granularity,
 *    with a cursor of its own;
 *  - overwrite: each unit goes back to the die of its old copy (units
 *    without one are placed round-robin).
 * Hinted writes do not move the drive's cursor, so unhinted streams keep
 * their striping whatever hinted traffic is interleaved with them.
 */
#include "ftl_internal.h"

void ftl_place_init(struct ftl *ftl)
{
	ftl->place.die = 0;
	ftl->place.filled = 0;
}

static u32 ftl_round_robin(struct ftl *ftl)
{
	struct ftl_place *p = &ftl->place;
	u32 die = p->die;

	if (++p->filled == ftl->geo.gran_units) {
		p->filled = 0;
		p->die = (p->die + 1) % ftl->geo.dies;
	}
	return die;
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

static void ftl_place_append(struct ftl *ftl, const struct ftl_cmd *cmd,
			     struct ftl_place_cmd *pc)
{
	u64 prev = cmd->hint_prev_off >> FTL_MAP_SHIFT;
	u32 ppa, die;

	if (cmd->hint_prev_off >= ftl_capacity_bytes(ftl)) {
		ftl->st.hint_ignored_range++;
		return;
	}
	ppa = ftl->l2p[prev];
	if (ppa == FTL_NONE) {
		ftl->st.hint_ignored_unmapped++;
		return;
	}
	die = (ftl_die_of(ftl, ppa) + 1) % ftl->geo.dies;
	if (ftl->dies[die].erases_total > ftl_wear_limit(ftl)) {
		ftl->st.hint_ignored_wear++;
		return;
	}
	pc->mode = FTL_PLACE_STREAM;
	pc->die = die;
	pc->filled = 0;
	ftl->st.hint_honoured++;
}

/* Called for writes only; ftl_submit() counts hints on other commands. */
void ftl_place_begin(struct ftl *ftl, const struct ftl_cmd *cmd,
		     struct ftl_place_cmd *pc)
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
		ftl_place_append(ftl, cmd, pc);
		return;
	}
	pc->mode = FTL_PLACE_OLD_DIE;
	pc->wear_limit = ftl_wear_limit(ftl);
	ftl->st.hint_honoured++;
}

u32 ftl_place_die(struct ftl *ftl, struct ftl_place_cmd *pc, u32 lpn)
{
	u32 die, ppa;

	switch (pc->mode) {
	case FTL_PLACE_STREAM:
		die = pc->die;
		if (++pc->filled == ftl->geo.gran_units) {
			pc->filled = 0;
			pc->die = (pc->die + 1) % ftl->geo.dies;
		}
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
