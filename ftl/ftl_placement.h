/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The placement layer (ftl_placement.c): which die and write point each
 * unit of a write goes to. Above the mapping (it pads write points), below
 * zones and the command path that asks it.
 */
#ifndef FTL_PLACEMENT_H
#define FTL_PLACEMENT_H

#include "ftl_state.h"

enum ftl_place_mode {
	FTL_PLACE_ROUND_ROBIN,	/* the drive's cursor */
	FTL_PLACE_STREAM,	/* append: own cursor from the hinted die */
	FTL_PLACE_OLD_DIE,	/* overwrite: where the old copy is */
};

/* Placement state of one write command. */
struct ftl_place_cmd {
	u8 mode;
	u32 die;		/* STREAM: die of the next unit */
	u32 w;			/* STREAM: its write point there */
	u32 gen;		/* STREAM: that point's gran_gen when we came */
	u64 wear_limit;		/* OLD_DIE: erases above which a die is avoided */
};

void ftl_place_init(struct ftl *ftl);
/*
 * Decide how @cmd, logical units @first..@first+@n-1, is placed (and
 * account its hint).
 */
void ftl_place_begin(struct ftl *ftl, const struct ftl_cmd *cmd, u64 first,
		     u64 n, u64 t, struct ftl_place_cmd *pc);
/*
 * Die and write point (*@w) for the next unit, logical unit @lpn, of a
 * command whose data is ready at @t.
 */
u32 ftl_place_die(struct ftl *ftl, struct ftl_place_cmd *pc, u32 lpn, u64 t,
		  u32 *w);
/*
 * A host unit went to slot @ppa of @die's write point @w (which may not be
 * the ones asked) at @t.
 */
void ftl_place_note(struct ftl *ftl, const struct ftl_place_cmd *pc, u32 die,
		    u32 w, u32 ppa, u64 t);
/* Stream write points idle since before @now: program them, padded. */
void ftl_place_idle(struct ftl *ftl, u64 now);
/* ftl_cursor(): the die the drive's cursor puts the next unit on. */
void ftl_place_cursor(const struct ftl *ftl, u32 *die, u32 *granule_units);

#endif /* FTL_PLACEMENT_H */
