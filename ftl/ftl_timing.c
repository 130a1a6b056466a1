// SPDX-License-Identifier: GPL-2.0
/*
 * Timing resources: the dies, the bandwidth of the channels and of the
 * host link, and the write buffer.
 *
 * A die is a "busy until" timestamp: an operation on it starts when its
 * input is ready and the die is free, and pushes the timestamp forward.
 * A channel or the link is bucketed bandwidth (ftl_bw): time is cut into
 * 2 us buckets (times time_scale), each with a byte budget, and a
 * transfer takes the budget of the first buckets with room from the
 * moment its data is ready, so a transfer ready early is not queued
 * behind a later reservation. Both are reservations: the caller learns
 * the completion time at submission and never has to call back.
 */
#include "ftl_timing.h"

/* 2 us buckets (scaled): fine enough for a 4 KiB transfer at 800 MB/s */
#define FTL_BW_BUCKET_NS	2000
#define FTL_BW_BUCKETS		16384	/* 32 ms horizon at time_scale 1 */

/* New bucket width after a time_scale change; reservations are dropped. */
static void ftl_bw_rescale(struct ftl_bw *bw, const struct ftl_geometry *g)
{
	bw->width = FTL_BW_BUCKET_NS * g->time_scale;
	bw->cap = ftl_div64(bw->mbps * bw->width, 1000);
	ftl_memset(bw->id, 0, bw->nr * sizeof(*bw->id));
	ftl_memset(bw->used, 0, bw->nr * sizeof(*bw->used));
}

static int ftl_bw_init(struct ftl_bw *bw, const struct ftl_geometry *g,
		       u64 mbps)
{
	bw->mbps = mbps;
	bw->nr = FTL_BW_BUCKETS;
	bw->id = ftl_zalloc(bw->nr, sizeof(*bw->id));
	bw->used = ftl_zalloc(bw->nr, sizeof(*bw->used));
	if (!bw->id || !bw->used)
		return -ENOMEM;
	ftl_bw_rescale(bw, g);
	return 0;
}

static void ftl_bw_free(struct ftl_bw *bw)
{
	ftl_free(bw->id);
	ftl_free(bw->used);
	bw->id = NULL;
	bw->used = NULL;
}

/*
 * Move @bytes through @bw starting no earlier than @t; returns the time
 * the last byte is through. Never earlier than the uncontended transfer.
 */
u64 ftl_bw_reserve(const struct ftl *ftl, struct ftl_bw *bw, u64 t, u64 bytes)
{
	u64 alone = t + ftl_xfer_ns(&ftl->geo, bytes, bw->mbps);
	u64 b = ftl_div64(t, bw->width), first = b, left = bytes;

	/*
	 * A link so slow that a bucket holds no byte, or a transfer longer
	 * than half the horizon: no contention accounting.
	 */
	if (!bw->cap || ftl_div64(bytes, bw->cap) >= bw->nr / 2)
		return alone;
	for (;;) {
		u32 slot = (u32)ftl_mod64(b, bw->nr);
		u64 avail, take;

		if (bw->id[slot] != b) {
			if (bw->id[slot] > b)	/* reserved beyond the horizon */
				return alone;
			bw->id[slot] = b;
			bw->used[slot] = 0;
		}
		avail = bw->cap - bw->used[slot];
		if (b == first)		/* only the part of the bucket after t */
			avail = ftl_min64(avail,
					  ftl_div64(bw->cap * ((b + 1) * bw->width - t),
						    bw->width));
		take = ftl_min64(avail, left);
		bw->used[slot] += take;
		left -= take;
		if (!left)
			return ftl_max64(alone, b * bw->width +
					 ftl_div64(bw->used[slot] * bw->width, bw->cap));
		b++;
	}
}

void ftl_timing_rescale(struct ftl *ftl)
{
	u32 ch;

	for (ch = 0; ch < ftl->geo.channels; ch++)
		ftl_bw_rescale(&ftl->chan[ch], &ftl->geo);
	ftl_bw_rescale(&ftl->link_rx, &ftl->geo);
	ftl_bw_rescale(&ftl->link_tx, &ftl->geo);
}

/*
 * Completion jitter: uniform in [0, t_jitter], from splitmix64 (any seed,
 * 0 included, gives a full-period sequence). A real drive's latency
 * varies; a deterministic model makes the standard deviation that
 * latency-driven hosts (NIO's sleep = mean - stdev) rely on zero.
 */
u64 ftl_jitter(struct ftl *ftl)
{
	u64 z = (ftl->jitter_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ftl_mod64(z, ftl->geo.t_jitter + 1);
}

int ftl_timing_init(struct ftl *ftl)
{
	const struct ftl_geometry *g = &ftl->geo;
	struct ftl_wbuf *wb = &ftl->wb;
	u32 ch;

	ftl->jitter_state = ftl->cfg.jitter_seed;
	ftl->chan = ftl_zalloc(g->channels, sizeof(*ftl->chan));
	if (!ftl->chan)
		return -ENOMEM;
	for (ch = 0; ch < g->channels; ch++)
		if (ftl_bw_init(&ftl->chan[ch], g, g->channel_mbps))
			goto err;
	if (ftl_bw_init(&ftl->link_rx, g, g->link_mbps) ||
	    ftl_bw_init(&ftl->link_tx, g, g->link_mbps))
		goto err;

	/* every queued release holds at least one unit */
	wb->cap = g->wb_units;
	wb->when = ftl_zalloc(wb->cap, sizeof(*wb->when));
	wb->units = ftl_zalloc(wb->cap, sizeof(*wb->units));
	if (!wb->when || !wb->units)
		goto err;
	return 0;
err:
	ftl_timing_free(ftl);
	return -ENOMEM;
}

void ftl_timing_free(struct ftl *ftl)
{
	u32 ch;

	if (ftl->chan) {
		for (ch = 0; ch < ftl->geo.channels; ch++)
			ftl_bw_free(&ftl->chan[ch]);
		ftl_free(ftl->chan);
		ftl->chan = NULL;
	}
	ftl_bw_free(&ftl->link_rx);
	ftl_bw_free(&ftl->link_tx);
	ftl_free(ftl->wb.when);
	ftl_free(ftl->wb.units);
	ftl->wb.when = NULL;
	ftl->wb.units = NULL;
}

static void ftl_wbuf_swap(struct ftl_wbuf *wb, u32 a, u32 b)
{
	u64 t = wb->when[a];
	u32 u = wb->units[a];

	wb->when[a] = wb->when[b];
	wb->units[a] = wb->units[b];
	wb->when[b] = t;
	wb->units[b] = u;
}

static void ftl_wbuf_push(struct ftl_wbuf *wb, u64 when, u32 units)
{
	u32 i = wb->len;

	if (ftl_warn_once(wb->len == wb->cap))	/* used <= cap */
		return;
	wb->when[i] = when;
	wb->units[i] = units;
	wb->len++;
	while (i && wb->when[(i - 1) / 2] > wb->when[i]) {
		ftl_wbuf_swap(wb, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	if (when > wb->last_release)
		wb->last_release = when;
}

static void ftl_wbuf_pop(struct ftl_wbuf *wb)
{
	u32 i = 0;

	wb->used -= wb->units[0];
	wb->len--;
	wb->when[0] = wb->when[wb->len];
	wb->units[0] = wb->units[wb->len];
	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, m = i;

		if (l < wb->len && wb->when[l] < wb->when[m])
			m = l;
		if (r < wb->len && wb->when[r] < wb->when[m])
			m = r;
		if (m == i)
			break;
		ftl_wbuf_swap(wb, i, m);
		i = m;
	}
}

/*
 * Take one unit of buffer space for data arriving at @t. Returns the time
 * the space is available (later than @t when the buffer is full and the
 * write must wait for a program to finish).
 */
u64 ftl_wbuf_acquire(struct ftl *ftl, u64 t)
{
	struct ftl_wbuf *wb = &ftl->wb;
	u64 start = t;

	while (wb->len && wb->when[0] <= t)
		ftl_wbuf_pop(wb);
	/*
	 * Validation keeps the buffer larger than all open program units
	 * together, so a full buffer always has a queued release; the
	 * wb->len test only guards against looping on a broken invariant.
	 */
	while (wb->used >= wb->cap && wb->len) {
		t = ftl_max64(t, wb->when[0]);
		ftl_wbuf_pop(wb);
	}
	if (t > start) {
		ftl->st.wb_stalls++;
		ftl->st.wb_stall_ns += t - start;
	}
	wb->used++;
	return t;
}

/*
 * Program the open program unit of @die once its data is in the buffer at
 * @ready. Host data crosses the channel first; GC data is copied inside
 * the die (copy-back) and needs no transfer.
 */
void ftl_program(struct ftl *ftl, u32 die, u64 ready, u32 host_units)
{
	struct ftl_die *d = &ftl->dies[die];
	u64 start = ftl_max64(ready, d->busy_until);
	u64 end = start;

	if (host_units)
		end = ftl_bw_reserve(ftl, &ftl->chan[ftl_channel_of(ftl, die)],
				     start, (u64)host_units * FTL_MAP_UNIT);
	end += ftl->geo.t_prog;
	d->st.busy_ns += end - start;
	d->st.programs++;
	d->busy_until = end;
	ftl->st.nand_write_units += ftl->geo.pu_units;
	if (host_units)
		ftl_wbuf_push(&ftl->wb, end, host_units);
}

/*
 * Whether a read of program unit @pu of @die at @t can take its data from
 * the page register an earlier host read of that unit is still using: the
 * earlier read has not ended, and nothing was booked on the die after it
 * (any other operation moves busy_until on). Firmware that knows a read
 * of the unit is in flight merges the two; a read that comes later senses
 * again, so a lone read always costs tR.
 */
static bool ftl_read_merges(const struct ftl_die *d, u32 pu, u64 t)
{
	return d->reg_pu == pu && d->busy_until == d->reg_end && t < d->reg_end;
}

/*
 * Read @units units of program unit @pu of @die for the host, the request
 * being ready at @t. Returns when the data has crossed the channel.
 */
u64 ftl_nand_read(struct ftl *ftl, u32 die, u32 pu, u64 t, u32 units)
{
	struct ftl_die *d = &ftl->dies[die];
	struct ftl_bw *chan = &ftl->chan[ftl_channel_of(ftl, die)];
	u64 start = t, end;

	if (ftl_read_merges(d, pu, t)) {
		end = ftl_bw_reserve(ftl, chan, ftl_max64(t, d->reg_ready),
				     (u64)units * FTL_MAP_UNIT);
		if (end > d->busy_until) {
			d->st.busy_ns += end - d->busy_until;
			d->busy_until = end;
			d->reg_end = end;
		}
		d->st.read_merges++;
		d->st.host_read_units += units;
		return end;
	}
	if (d->busy_until > t) {
		d->st.read_collisions++;
		d->st.read_wait_ns += d->busy_until - t;
		start = d->busy_until;
	}
	/* the die holds the data in its page register until it is out */
	d->reg_pu = pu;
	d->reg_ready = start + ftl->geo.t_read;
	end = ftl_bw_reserve(ftl, chan, d->reg_ready, (u64)units * FTL_MAP_UNIT);
	d->busy_until = end;
	d->reg_end = end;
	d->st.busy_ns += end - start;
	d->st.host_reads++;
	d->st.host_read_units += units;
	return end;
}
