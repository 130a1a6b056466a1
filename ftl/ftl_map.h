/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mapping layer (ftl_map.c): blocks, write points, slots and GC of
 * each die. Above timing (a program or an erase takes time), below
 * placement (which die) and zones.
 */
#ifndef FTL_MAP_H
#define FTL_MAP_H

#include "ftl_state.h"

void ftl_map_init(struct ftl *ftl);
int ftl_alloc_slot(struct ftl *ftl, u32 die, u32 w, bool gc, u64 t,
		   u32 *ppa);
/* Program write point @w's partly filled program unit, padded, at @t. */
void ftl_wpt_pad(struct ftl *ftl, u32 die, u32 w, u64 t);
/*
 * FDP point @w of @die stops filling its block (its reclaim unit is
 * closed): the block is full once its units in the buffer are programmed.
 */
void ftl_wpt_drop_block(struct ftl *ftl, u32 die, u32 w);
/*
 * Foreground GC found no victim: program units that write points hold in
 * blocks already handed out whole keep those blocks from being victims.
 * Program them, padded, at @t.
 */
void ftl_wpt_release_blocks(struct ftl *ftl, u32 die, u64 t);
/* The write point of @die assembling the program unit of slot @ppa. */
const struct ftl_wpt *ftl_wpt_of_slot(const struct ftl *ftl, u32 die,
				      u32 ppa);
/*
 * Remove the mapping of logical unit @lpn, if any. Returns the die that
 * held it, FTL_NONE if it was unmapped; zones keep their own count of it
 * (ftl_zoned_invalidate()).
 */
u32 ftl_invalidate(struct ftl *ftl, u32 lpn);
void ftl_free_push(struct ftl *ftl, u32 die, u32 blk);
u32 ftl_free_pop(struct ftl *ftl, u32 die);
void ftl_gc_foreground(struct ftl *ftl, u32 die, u64 t);
/* The same until @die has @free_blocks free blocks, or no victim is left. */
void ftl_gc_until(struct ftl *ftl, u32 die, u64 t, u32 free_blocks);
/* Background GC of every die idle before @now (ftl_idle()). */
void ftl_gc_background(struct ftl *ftl, u64 now);
/* The unit in slot @ppa is still in the write buffer, not yet programmed. */
bool ftl_unit_buffered(const struct ftl *ftl, u32 ppa);

#endif /* FTL_MAP_H */
