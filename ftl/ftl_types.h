/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The values the flash model and its transport exchange: commands,
 * statuses, hints and the statistics records. Data only: the state layer
 * of ftl/ (struct ftl embeds the records), below every file that acts.
 */
#ifndef FTL_TYPES_H
#define FTL_TYPES_H

#include "ftl_compat.h"

enum ftl_op {
	FTL_OP_READ,
	FTL_OP_WRITE,
	FTL_OP_TRIM,		/* deallocate; also used for write zeroes */
	FTL_OP_FLUSH,
	FTL_OP_NR,
};

/* Results of ftl_submit(); the transport maps them to its own statuses. */
enum ftl_status {
	FTL_OK = 0,
	FTL_ERR_RANGE,		/* offset/length beyond the exported capacity */
	FTL_ERR_NO_SPACE,	/* no die could take the data, even after GC */
	FTL_ERR_INVALID,	/* unknown op, zero length or unaligned */
};

/* Placement hints (hint-proto/SPEC.md); the transport decodes the wire. */
enum ftl_hint_kind {
	FTL_HINT_NONE,
	FTL_HINT_APPEND,	/* prev_off: byte offset of the preceding block */
	FTL_HINT_OVERWRITE,
	FTL_HINT_INVALID,	/* malformed on the wire (both kinds): ignored */
};

struct ftl_cmd {
	u8 op;			/* enum ftl_op */
	u8 hint;		/* enum ftl_hint_kind, writes only */
	u8 fdp;			/* writes: 1 = fdp_rg, fdp_ruh name its handle */
	u16 fdp_ruh;		/* reclaim unit handle */
	u16 fdp_rg;		/* reclaim group */
	u64 off;		/* byte offset; any alignment, mapped per 4 KiB */
	u64 len;		/* bytes; 0 only for FTL_OP_FLUSH */
	u64 hint_prev_off;	/* byte offset, FTL_HINT_APPEND only */
};

struct ftl_die_stats {
	u64 host_reads;		/* NAND read operations for host reads */
	u64 host_read_units;	/* 4 KiB units read from NAND for the host */
	u64 read_collisions;	/* host NAND reads that waited for a busy die */
	u64 read_wait_ns;	/* total time those reads waited */
	u64 read_merges;	/* host reads served by another's NAND read */
	u64 buffer_hits;	/* units served from the write buffer */
	u64 host_write_units;	/* 4 KiB units placed on this die by the host */
	u64 programs;		/* program-unit programs, host and GC */
	u64 gc_reads;		/* NAND reads done by GC */
	u64 gc_copies;		/* 4 KiB units relocated by GC */
	u64 erases;
	u64 busy_ns;		/* time the die was occupied */
	u64 free_blocks;	/* gauge, not reset */
	u64 valid_units;	/* gauge, not reset */
	u64 erases_total;	/* gauge: erases since creation (wear) */
};

struct ftl_stats {
	u64 cmds[FTL_OP_NR];
	u64 errors;		/* commands that returned a status other than OK */
	u64 host_read_units;
	u64 host_write_units;
	u64 nand_write_units;	/* host + GC + padding, in 4 KiB units */
	u64 trimmed_units;
	u64 unmapped_read_units; /* reads of never-written/trimmed units */
	u64 gc_cycles;
	u64 gc_fg_cycles;
	u64 placement_fallbacks; /* writes moved off a die that had no room */
	u64 wb_stalls;		/* writes that waited for buffer space */
	u64 wb_stall_ns;
	u64 pad_units;		/* padding programmed by write points */
	u64 wpt_evictions;	/* stream points taken from another stream */
	u64 wpt_idle_flushes;	/* stream points programmed when idle */

	/* placement hints: commands received, honoured, ignored (why) */
	u64 hint_append;
	u64 hint_overwrite;
	u64 hint_honoured;
	u64 hint_ignored_off;		/* hints=0 */
	u64 hint_ignored_invalid;	/* both kinds at once */
	u64 hint_ignored_opcode;	/* on a read, trim or flush */
	u64 hint_ignored_range;		/* previous block beyond capacity */
	u64 hint_ignored_unmapped;	/* previous block never written */
	u64 hint_ignored_wear;		/* target die too worn (hint_wear_gap) */
	u64 hint_new_units;		/* overwrite units with no old copy */
	u64 hint_fallback_units;	/* hinted units moved off a full die */
	u64 hint_ignored_fdp;		/* FDP placed the write */
	u64 fdp_ignored_zone;		/* a zone placed a write with a handle */
};

/* Where a 4 KiB unit is (ftl_locate()) */
struct ftl_location {
	u32 die;
	u32 block;		/* block index within the die */
	u32 offset;		/* 4 KiB unit within the block */
	u8 buffered;		/* still in an unprogrammed program unit */
};

/* One zone's statistics (ftl_zone_stats_get()) */
struct ftl_zone_stats {
	u64 host_write_units;
	u64 nand_write_units;	/* program units programmed x their units */
	u64 pad_units;		/* of those, padding (finish, holes) */
	u64 resets;
	u64 finishes;
	u64 erases;
	u64 blocks;		/* gauge: erase blocks the zone holds */
	u32 first_die;		/* the zone's dies: first_die.. (mod dies) */
	u32 width;
};

/*
 * Flexible data placement counters (ftl_fdp_stats(), per handle, per
 * reclaim group, per drive), in 4 KiB units; what log page 24h reports
 * in bytes (host, media written; media erased).
 */
struct ftl_fdp_stats {
	u64 host_units;		/* host data placed */
	u64 media_units;	/* written to flash: host, GC copies, padding */
	u64 gc_units;		/* of them, copied by GC */
	u64 pad_units;		/* of them, padding of units closed early */
	u64 erased_units;	/* erased: blocks x their units */
	u64 ru_fills;		/* units a handle wrote to capacity */
	u64 ru_updates;		/* moved on early by ftl_fdp_update() */
	u64 ru_implicit;	/* moved on early by the drive (no room) */
};

/* What a handle writes in one reclaim group (ftl_fdp_ruh_status()). */
struct ftl_fdp_ruh_status {
	u32 ru;			/* its unit, FTL_FDP_NONE before a write opens one */
	u8 used;		/* the host wrote through it */
	u64 ru_units;		/* capacity of a unit */
	u64 avail_units;	/* still writable in its unit (RUAMW) */
};

#define FTL_FDP_NONE		0xffffffffu
#define FTL_FDP_RUH_MIXED	0xffffu	/* a GC unit of several handles */

enum ftl_fdp_ru_state {
	FTL_FDP_RU_FREE,
	FTL_FDP_RU_OPEN,	/* a handle or GC writes it */
	FTL_FDP_RU_CLOSED,	/* full or moved on from; its blocks not all erased */
};

/* One reclaim unit (ftl_fdp_ru_info()). */
struct ftl_fdp_ru_info {
	u8 state;		/* enum ftl_fdp_ru_state */
	u8 gc;			/* GC's destination */
	u16 ruh;		/* owner, FTL_FDP_RUH_MIXED */
	u32 rg;
	u32 first_die;		/* its dies: first_die .. first_die + dies - 1 */
	u32 dies;
	u32 blocks;		/* blocks taken (less live_blocks: erased) */
	u32 live_blocks;	/* of them, not erased since */
	u64 host_units;
	u64 media_units;	/* host, GC copies and padding */
};

/* Event types, the values of log page 23h. */
enum ftl_fdp_event_type {
	FTL_FDP_EV_RU_NOT_FULL = 0x00,	/* RU not written to capacity */
	FTL_FDP_EV_INVALID_PID = 0x03,	/* a write named no handle it may use */
	FTL_FDP_EV_RUH_IMPLICIT = 0x81,	/* implicitly modified RUH */
};

/* Events the model keeps, newest last; older ones are dropped. */
#define FTL_FDP_EVENTS		64

struct ftl_fdp_event {
	u8 type;		/* enum ftl_fdp_event_type */
	u16 rg;
	u16 ruh;
	u32 ru;			/* the unit moved on from */
	u64 time_ns;
	u64 units;		/* written in it */
	/*
	 * FTL_FDP_EV_INVALID_PID: what the device's command named, which
	 * the model only passes on (it knows no namespaces)
	 */
	u32 nsid;
	u16 pid;
};

#endif /* FTL_TYPES_H */
