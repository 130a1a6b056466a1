// SPDX-License-Identifier: GPL-2.0
/*
 * Flexible Data Placement: the fields of its commands and the data
 * structures it returns, portable (see nvmev_fdp.h). Byte layouts are
 * the base specification's (2.1, figures "FDP Configurations", "Reclaim
 * Unit Handle Status" and their neighbours).
 */
#include "nvmev_fdp.h"

/* the event types the model records: host events, then controller ones */
const u8 nvmev_fdp_event_types[] = {
	FTL_FDP_EV_RU_NOT_FULL,
	FTL_FDP_EV_INVALID_PID,
	FTL_FDP_EV_RUH_IMPLICIT,
};

const u32 nvmev_fdp_nr_event_types = ARRAY_SIZE(nvmev_fdp_event_types);

static void nvmev_put16(u8 *p, u16 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
}

static void nvmev_put32(u8 *p, u32 v)
{
	nvmev_put16(p, (u16)v);
	nvmev_put16(p + 2, (u16)(v >> 16));
}

static void nvmev_put64(u8 *p, u64 v)
{
	nvmev_put32(p, (u32)v);
	nvmev_put32(p + 4, (u32)(v >> 32));
}

void nvmev_fdp_conf_init(struct nvmev_fdp_conf *c, const struct ftl *ftl)
{
	const struct ftl_geometry *g = ftl_get_geometry(ftl);

	ftl_memset(c, 0, sizeof(*c));
	if (!g->fdp_ruhs)
		return;
	c->ruhs = (u16)g->fdp_ruhs;
	c->rgs = (u16)g->fdp_rgs;
	/* as many PID bits as the highest group's number needs */
	while ((1u << c->rgif) < g->fdp_rgs)
		c->rgif++;
	c->ruht = (u8)ftl_get_config(ftl)->fdp_ruh_type;
	c->runs = (u64)g->fdp_ru_die_blocks * g->fdp_ru_dies *
		  g->units_per_block * FTL_MAP_UNIT;
}

/* PID: the reclaim group in its top RGIF bits, the placement handle below */
static void nvmev_pid_split(const struct nvmev_fdp_conf *c, u16 pid, u32 *rg,
			    u32 *ph)
{
	u32 ph_bits = 16 - c->rgif;

	*rg = c->rgif ? pid >> ph_bits : 0;
	*ph = pid & ((1u << ph_bits) - 1);
}

static u16 nvmev_pid_make(const struct nvmev_fdp_conf *c, u32 rg, u32 ph)
{
	return (u16)((c->rgif ? rg << (16 - c->rgif) : 0) | ph);
}

static bool nvmev_pid_valid(const struct nvmev_fdp_conf *c,
			    const struct nvmev_ns *n, u16 pid, u32 *rg, u32 *ph)
{
	nvmev_pid_split(c, pid, rg, ph);
	return *rg < c->rgs && *ph < n->nphndls;
}

/*
 * Directive Type 2h with FDP: the handle the PID names. One the namespace
 * may not use is not an error: the write goes through its placement
 * handle 0 in reclaim group 0, and an Invalid Placement Identifier event
 * says so (nvmev_io.c records it). No directive: handle 0 too. Another
 * directive type, or 2h on a drive without FDP, is not enabled.
 */
u16 nvmev_fdp_parse_placement(const struct nvmev_ns_view *ns,
			      const struct nvmev_sqe *sqe,
			      struct nvmev_io_req *req)
{
	u32 dtype = (nvmev_dw(sqe, 12) >> 20) & 0xf, rg = 0, ph = 0;
	const struct nvmev_ns *n = req->ns;

	if (dtype && (dtype != NVMEV_DTYPE_PLACEMENT || !ns->fdp.ruhs))
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD,
					  nvmev_err_loc(12, 20));
	if (!ns->fdp.ruhs || !n->nphndls)
		return NVME_SC_SUCCESS;
	if (dtype) {
		req->pid = nvmev_dw(sqe, 13) >> 16;
		if (!nvmev_pid_valid(&ns->fdp, n, req->pid, &rg, &ph)) {
			req->pid_invalid = true;
			rg = 0;
			ph = 0;
		}
	}
	req->model.fdp = 1;
	req->model.fdp_rg = (u16)rg;
	req->model.fdp_ruh = n->phndl[ph];
	return NVME_SC_SUCCESS;
}

/* CDW10 MO; Receive: CDW11 NUMD, 0's based dwords */
u16 nvmev_fdp_parse_mgmt_recv(const struct nvmev_ns_view *ns,
			      const struct nvmev_sqe *sqe,
			      struct nvmev_io_req *req)
{
	u64 bytes = ((u64)nvmev_dw(sqe, 11) + 1) * 4;

	req->mo = nvmev_dw(sqe, 10) & 0xff;
	if (req->mo != NVMEV_IO_MGMT_NONE && req->mo != NVMEV_IO_MGMT_RUHS)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 0));
	if (bytes > NVMEV_MAX_XFER)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	req->xfer = (u32)bytes;
	return NVME_SC_SUCCESS;
}

/* CDW10 MO, and MOS: the PIDs of an update, 0's based */
u16 nvmev_fdp_parse_mgmt_send(const struct nvmev_ns_view *ns,
			      const struct nvmev_sqe *sqe,
			      struct nvmev_io_req *req)
{
	u32 cdw10 = nvmev_dw(sqe, 10);

	req->mo = cdw10 & 0xff;
	if (req->mo != NVMEV_IO_MGMT_NONE && req->mo != NVMEV_IO_MGMT_RUHU)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 0));
	if (req->mo == NVMEV_IO_MGMT_NONE)
		return NVME_SC_SUCCESS;
	req->npids = (cdw10 >> 16) + 1;
	/* each of its handles in each group at most once */
	if (req->npids > (u32)req->ns->nphndls * ns->fdp.rgs)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 16));
	return NVME_SC_SUCCESS;
}

u16 nvmev_fdp_update_check(const struct nvmev_ns_view *ns,
			   const struct nvmev_ns *n, const u8 *pids, u32 nr,
			   u16 *ruh, u16 *rg)
{
	u32 i, g, ph;

	for (i = 0; i < nr; i++) {
		u16 pid = (u16)(pids[2 * i] | pids[2 * i + 1] << 8);

		if (!nvmev_pid_valid(&ns->fdp, n, pid, &g, &ph))
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		ruh[i] = n->phndl[ph];
		rg[i] = (u16)g;
	}
	return NVME_SC_SUCCESS;
}

/* ---- Get/Set Features 1Dh and 1Eh ---- */

static bool nvmev_is_set_cmd(const struct nvmev_admin_req *req)
{
	return req->opcode == nvme_admin_set_features;
}

/*
 * CDW11 ENDGID names the endurance group, in a Get as in a Set. A Set
 * would change the configuration of a group that has namespaces, which
 * the specification refuses with Command Sequence Error (every namespace
 * of the drive is in the group, and a drive has at least one).
 */
u16 nvmev_fdp_check_feat(const struct nvmev_ns_view *ns,
			 struct nvmev_admin_req *req)
{
	if (!ns->fdp.ruhs)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_FID);
	if (req->sel == 3)
		return NVME_SC_SUCCESS;
	if ((req->cdw11 & 0xffff) != NVMEV_ENDGID)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	if (nvmev_is_set_cmd(req))
		return nvmev_admin_bad_field(req, NVME_SC_CMD_SEQ_ERROR,
					     NVMEV_ERR_LOC_NONE);
	return NVME_SC_SUCCESS;
}

/*
 * FDP Events: of placement handle CDW11 PHNDL of an active namespace,
 * CDW11 NOET event types (the Set's list in its data, the Get's answer
 * at most as long); CDW12 bit 0 (Set) enables or disables them.
 */
u16 nvmev_fdp_check_events(const struct nvmev_ns_view *ns,
			   struct nvmev_admin_req *req)
{
	const struct nvmev_ns *n;

	if (!ns->fdp.ruhs)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_FID);
	if (req->sel == 3)
		return NVME_SC_SUCCESS;
	n = nvmev_ns_get(ns, req->nsid);
	if (!n)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_NS, NVMEV_ERR_LOC_NSID);
	req->phndl = req->cdw11 & 0xffff;
	req->noet = (req->cdw11 >> 16) & 0xff;
	if (req->phndl >= n->nphndls)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	if (!req->noet)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 16));
	return NVME_SC_SUCCESS;
}

/* ---- Get Log Page 20h-23h ---- */

static u32 nvmev_fdp_config_desc_size(const struct nvmev_fdp_conf *c)
{
	/* the RUH descriptors, the whole a multiple of 8 bytes */
	return (NVMEV_FDP_CONFIG_DESC + 4u * c->ruhs + 7) & ~7u;
}

u32 nvmev_fdp_log_size(const struct nvmev_ns_view *ns, u8 lid)
{
	const struct nvmev_fdp_conf *c = &ns->fdp;

	if (!c->ruhs)
		return 0;
	switch (lid) {
	case NVMEV_LOG_FDP_CONFIGS:
		return NVMEV_FDP_CONFIG_HDR + nvmev_fdp_config_desc_size(c);
	case NVMEV_LOG_FDP_RUH_USAGE:
		return 8 + 8u * c->ruhs;
	case NVMEV_LOG_FDP_STATS:
		return 64;
	case NVMEV_LOG_FDP_EVENTS:
		return 64 + 64u * NVMEV_FDP_EVENTS_MAX;
	default:
		return 0;
	}
}

/* CDW11 LSI: the endurance group; CDW10 LSP of 23h: host (1) or controller events */
u16 nvmev_fdp_parse_log(const struct nvmev_ns_view *ns,
			struct nvmev_admin_req *req)
{
	if (req->lid < NVMEV_LOG_FDP_CONFIGS || req->lid > NVMEV_LOG_FDP_EVENTS)
		return NVME_SC_SUCCESS;
	if (req->lsi != NVMEV_ENDGID)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 16));
	if (req->lsp > (req->lid == NVMEV_LOG_FDP_EVENTS ? 1 : 0))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 8));
	return NVME_SC_SUCCESS;
}

static void nvmev_fdp_configs(const struct nvmev_fdp_conf *c, u8 *p)
{
	u32 dsze = nvmev_fdp_config_desc_size(c), i;
	u8 *d = p + NVMEV_FDP_CONFIG_HDR;

	/* NUMFDPC 0's based: one configuration; SZE: the whole log */
	nvmev_put32(p + 4, NVMEV_FDP_CONFIG_HDR + dsze);
	nvmev_put16(d, (u16)dsze);
	/* FDPA: valid, a volatile write cache (the write buffer), RGIF */
	d[2] = 0x80 | 0x10 | c->rgif;
	nvmev_put32(d + 4, c->rgs);
	nvmev_put16(d + 8, c->ruhs);
	nvmev_put16(d + 10, NVMEV_FDP_MAX_PHNDLS - 1);	/* MAXPIDS, 0's based */
	nvmev_put32(d + 12, NVMEV_MAX_NS);		/* NNSS */
	nvmev_put64(d + 16, c->runs);
	/* ERUTL 0: reclaim units have no time limit */
	for (i = 0; i < c->ruhs; i++)
		d[NVMEV_FDP_CONFIG_DESC + 4 * i] = c->ruht;
}

/* a handle is Host Specified once a namespace lists it, else Unused */
static void nvmev_fdp_usage(const struct nvmev_ns_view *ns, u8 *p)
{
	u32 i, k;

	nvmev_put16(p, ns->fdp.ruhs);
	for (i = 0; i < ns->nn; i++)
		for (k = 0; k < ns->ns[i].nphndls; k++)
			p[8 + 8 * ns->ns[i].phndl[k]] = 1;
}

static void nvmev_put128(u8 *p, u64 units)
{
	/* bytes: 4 KiB units as a 128-bit count, never above 2^76 */
	nvmev_put64(p, units << FTL_MAP_SHIFT);
	nvmev_put64(p + 8, units >> (64 - FTL_MAP_SHIFT));
}

static void nvmev_fdp_stats(const struct ftl *ftl, u8 *p)
{
	struct ftl_fdp_stats st;

	if (ftl_fdp_stats_get(ftl, FTL_FDP_NONE, false, &st))
		return;
	nvmev_put128(p, st.host_units);		/* HBMW */
	nvmev_put128(p + 16, st.media_units);	/* MBMW */
	nvmev_put128(p + 32, st.erased_units);	/* MBE */
}

/*
 * Host events (LSP 1) or controller events (LSP 0), the newest that fit,
 * oldest first; timestamps in milliseconds since @epoch_ns, the origin a
 * controller reset's (attributes 0).
 */
static void nvmev_fdp_events(const struct ftl *ftl, bool host, u64 epoch_ns,
			     struct ftl_fdp_event *ev, u8 *p)
{
	u32 n, i, first, kept = 0;
	u64 lost;

	n = ftl_fdp_events(ftl, ev, FTL_FDP_EVENTS, &lost);
	for (i = 0; i < n; i++)
		if (!(ev[i].type & 0x80) == host)
			ev[kept++] = ev[i];
	first = kept > NVMEV_FDP_EVENTS_MAX ? kept - NVMEV_FDP_EVENTS_MAX : 0;
	nvmev_put32(p, kept - first);
	for (i = first; i < kept; i++) {
		u8 *r = p + 64 + 64 * (i - first);
		u64 ms = ev[i].time_ns > epoch_ns ?
			 (ev[i].time_ns - epoch_ns) / 1000000 : 0;

		r[0] = ev[i].type;
		/* FDPEF: LV, and PIV, NSIDV when a command named them */
		r[1] = 0x4;
		if (ev[i].type == FTL_FDP_EV_INVALID_PID) {
			r[1] |= 0x3;
			nvmev_put16(r + 2, ev[i].pid);
			nvmev_put32(r + 12, ev[i].nsid);
		}
		nvmev_put64(r + 4, ms & ((1ull << 48) - 1));
		nvmev_put16(r + 32, ev[i].rg);
		r[34] = (u8)ev[i].ruh;
	}
}

void nvmev_fdp_log(const struct ftl *ftl, const struct nvmev_ns_view *ns,
		   const struct nvmev_admin_req *req, u64 epoch_ns,
		   struct ftl_fdp_event *scratch, u8 *page)
{
	switch (req->lid) {
	case NVMEV_LOG_FDP_CONFIGS:
		nvmev_fdp_configs(&ns->fdp, page);
		break;
	case NVMEV_LOG_FDP_RUH_USAGE:
		nvmev_fdp_usage(ns, page);
		break;
	case NVMEV_LOG_FDP_STATS:
		nvmev_fdp_stats(ftl, page);
		break;
	case NVMEV_LOG_FDP_EVENTS:
		nvmev_fdp_events(ftl, req->lsp & 1, epoch_ns, scratch, page);
		break;
	}
}

/* ---- I/O Management Receive: Reclaim Unit Handle Status ---- */

static u32 nvmev_fdp_nruhsd(const struct nvmev_ns_view *ns,
			    const struct nvmev_ns *n)
{
	/* a descriptor per placement handle and reclaim group */
	return ftl_min64((u64)n->nphndls * ns->fdp.rgs, 0xffff);
}

u32 nvmev_fdp_ruh_status_size(const struct nvmev_ns_view *ns,
			      const struct nvmev_ns *n)
{
	return NVMEV_FDP_RUHS_HDR + NVMEV_FDP_RUHS_DESC * nvmev_fdp_nruhsd(ns, n);
}

void nvmev_fdp_ruh_status(const struct ftl *ftl, const struct nvmev_ns_view *ns,
			  const struct nvmev_ns *n, u8 *buf)
{
	u32 nr = nvmev_fdp_nruhsd(ns, n), i;
	struct ftl_fdp_ruh_status st;

	nvmev_put16(buf + 14, (u16)nr);
	for (i = 0; i < nr; i++) {
		u32 ph = i / ns->fdp.rgs, rg = i % ns->fdp.rgs;
		u8 *d = buf + NVMEV_FDP_RUHS_HDR + NVMEV_FDP_RUHS_DESC * i;

		nvmev_put16(d, nvmev_pid_make(&ns->fdp, rg, ph));
		nvmev_put16(d + 2, n->phndl[ph]);
		/* EARUTR 0: no time limit; RUAMW in the namespace's LBAs */
		if (!ftl_fdp_ruh_get(ftl, rg, n->phndl[ph], &st))
			nvmev_put64(d + 8, st.avail_units <<
				    (FTL_MAP_SHIFT - n->lba_shift));
	}
}
