/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timing layer (ftl_timing.c): dies, channels and host link as
 * reservations in time, and the write buffer. Above the state, below the
 * mapping: it knows when, never which data.
 */
#ifndef FTL_TIMING_H
#define FTL_TIMING_H

#include "ftl_state.h"

int ftl_timing_init(struct ftl *ftl);
void ftl_timing_free(struct ftl *ftl);
/* New bucket widths after a time_scale change; reservations are dropped. */
void ftl_timing_rescale(struct ftl *ftl);
/* Completion jitter, uniform in [0, geo.t_jitter]. */
u64 ftl_jitter(struct ftl *ftl);
u64 ftl_bw_reserve(const struct ftl *ftl, struct ftl_bw *bw, u64 t, u64 bytes);
u64 ftl_wbuf_acquire(struct ftl *ftl, u64 t);
void ftl_program(struct ftl *ftl, u32 die, u64 ready, u32 host_units);
u64 ftl_nand_read(struct ftl *ftl, u32 die, u32 pu, u64 t, u32 units);

#endif /* FTL_TIMING_H */
