// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace Management and Namespace Attachment: fields, the host's
 * create data, and where a new namespace goes (nvmev_nsmgmt.h).
 */
#include "nvmev_nsmgmt.h"
#include "nvmev_fdp.h"

#define MIB_SHIFT	20

static u16 le16_at(const u8 *p, u32 off)
{
	return (u16)(p[off] | p[off + 1] << 8);
}

static u32 le32_at(const u8 *p, u32 off)
{
	return le16_at(p, off) | (u32)le16_at(p, off + 2) << 16;
}

static u64 le64_at(const u8 *p, u32 off)
{
	return le32_at(p, off) | (u64)le32_at(p, off + 4) << 32;
}

/* allocated: it has a size, attached or not */
static const struct nvmev_ns *nvmev_ns_allocated(const struct nvmev_ns_view *v,
						 u32 nsid)
{
	if (!nsid || nsid > NVMEV_MAX_NS || !v->ns[nsid - 1].nsze)
		return NULL;
	return &v->ns[nsid - 1];
}

/* whole MiB of flash a namespace holds, from @base */
static u64 nvmev_ns_mib(const struct nvmev_ns *n)
{
	u64 bytes = n->nsze << n->lba_shift;

	return (bytes + (1ull << MIB_SHIFT) - 1) >> MIB_SHIFT;
}

/*
 * CDW10 SEL: create (CDW11 CSI: the NVM command set only; NSID is not
 * used) or delete (NSID an allocated namespace, or FFFFFFFFh: every
 * one). A zoned namespace's zones are the flash model's from its load
 * (ftl_zoned_add()): it cannot be deleted, nor one created.
 */
u16 nvmev_parse_ns_mgmt(const struct nvmev_ns_view *ns,
			const struct nvmev_sqe *sqe,
			struct nvmev_admin_req *req)
{
	const struct nvmev_ns *n;
	u32 i;

	req->sel = req->cdw10 & 0xf;
	switch (req->sel) {
	case NVMEV_NS_MGMT_CREATE:
		req->csi = req->cdw11 >> 24;
		if (req->csi != NVME_CSI_NVM)
			return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD,
						     NVMEV_ERR_LOC_CSI);
		return NVME_SC_SUCCESS;
	case NVMEV_NS_MGMT_DELETE:
		if (req->nsid == NVME_NSID_ALL) {
			for (i = 1; i <= NVMEV_MAX_NS; i++) {
				n = nvmev_ns_allocated(ns, i);
				if (n && n->csi == NVME_CSI_ZNS)
					return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD,
								     NVMEV_ERR_LOC_NSID);
			}
			return NVME_SC_SUCCESS;
		}
		n = nvmev_ns_allocated(ns, req->nsid);
		if (!n)
			return nvmev_admin_bad_field(req, NVME_SC_INVALID_NS,
						     NVMEV_ERR_LOC_NSID);
		if (n->csi == NVME_CSI_ZNS)
			return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD,
						     NVMEV_ERR_LOC_NSID);
		return NVME_SC_SUCCESS;
	}
	return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 0));
}

/* CDW10 SEL: attach or detach; NSID an allocated namespace */
u16 nvmev_parse_ns_attach(const struct nvmev_ns_view *ns,
			  const struct nvmev_sqe *sqe,
			  struct nvmev_admin_req *req)
{
	req->sel = req->cdw10 & 0xf;
	if (req->sel != NVMEV_NS_ATTACH && req->sel != NVMEV_NS_DETACH)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 0));
	if (!nvmev_ns_allocated(ns, req->nsid))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_NS, NVMEV_ERR_LOC_NSID);
	return NVME_SC_SUCCESS;
}

/*
 * The lowest whole-MiB gap of @mib in the flash that no allocated
 * namespace holds: its first MiB, or U64_MAX if none is that large.
 */
static u64 nvmev_ns_gap(const struct nvmev_ns_view *v, u64 mib)
{
	u64 at = 0, end = v->flash_bytes >> MIB_SHIFT;

	for (;;) {
		u64 next = end, stop = at + mib;
		bool moved = false;
		u32 i;

		if (stop > end || stop < at)
			return U64_MAX;
		/* a namespace overlapping [at, stop): try after it */
		for (i = 1; i <= NVMEV_MAX_NS; i++) {
			const struct nvmev_ns *n = nvmev_ns_allocated(v, i);
			u64 b, e;

			if (!n)
				continue;
			b = n->base >> MIB_SHIFT;
			e = b + nvmev_ns_mib(n);
			if (b < stop && e > at && e <= next) {
				next = e;
				moved = true;
			}
		}
		if (!moved)
			return at;
		at = next;
	}
}

u64 nvmev_ns_unallocated(const struct nvmev_ns_view *v)
{
	u64 used = 0;
	u32 i;

	for (i = 1; i <= NVMEV_MAX_NS; i++) {
		const struct nvmev_ns *n = nvmev_ns_allocated(v, i);

		if (n)
			used += nvmev_ns_mib(n) << MIB_SHIFT;
	}
	return used < v->flash_bytes ? v->flash_bytes - used : 0;
}

/*
 * NPHNDLS and PHNDL: on an FDP drive, the reclaim unit handles the
 * namespace may write through, each once and each one the drive has; 0
 * handles: every handle, as a namespace configured without a list has
 * them (nvmev_fdp_setup()). A drive without FDP takes no list.
 */
static u16 nvmev_ns_handles(const struct nvmev_ns_view *v, const u8 *data,
			    struct nvmev_ns *out)
{
	u16 nr = le16_at(data, NVMEV_NSM_NPHNDLS);
	u32 i, k;

	if (!v->fdp.ruhs)
		return nr ? NVME_SC_INVALID_FIELD | NVME_STATUS_DNR : NVME_SC_SUCCESS;
	if (!nr) {
		out->nphndls = v->fdp.ruhs < NVMEV_FDP_MAX_PHNDLS ?
			       v->fdp.ruhs : NVMEV_FDP_MAX_PHNDLS;
		for (i = 0; i < out->nphndls; i++)
			out->phndl[i] = (u16)i;
		return NVME_SC_SUCCESS;
	}
	if (nr > NVMEV_FDP_MAX_PHNDLS || nr > v->fdp.ruhs)
		return NVMEV_SC_INVALID_PHNDL_LIST | NVME_STATUS_DNR;
	for (i = 0; i < nr; i++) {
		u16 ruh = le16_at(data, NVMEV_NSM_PHNDL + 2 * i);

		if (ruh >= v->fdp.ruhs)
			return NVMEV_SC_INVALID_PHNDL_LIST | NVME_STATUS_DNR;
		for (k = 0; k < i; k++)
			if (out->phndl[k] == ruh)
				return NVMEV_SC_INVALID_PHNDL_LIST | NVME_STATUS_DNR;
		out->phndl[i] = ruh;
	}
	out->nphndls = nr;
	return NVME_SC_SUCCESS;
}

/*
 * What the drive offers, nothing else: NCAP equal to NSZE (no thin
 * provisioning to ask for), LBA format 0 without metadata, no protection,
 * no sharing, no ANA group or NVM set, the FDP endurance group or none.
 * Then an NSID, then the capacity: Namespace Identifier Unavailable
 * before Namespace Insufficient Capacity, as a drive with every NSID
 * taken has no use for the space.
 */
u16 nvmev_ns_create_check(const struct nvmev_ns_view *v, const u8 *data,
			  struct nvmev_ns *out, u32 *nsid)
{
	const u16 bad = NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	u64 nsze = le64_at(data, NVMEV_NSM_NSZE);
	u16 endgid = le16_at(data, NVMEV_NSM_ENDGID);
	u64 base, mib;
	u16 status;
	u32 i;

	ftl_memset(out, 0, sizeof(*out));
	*nsid = 0;
	if (!nsze || le64_at(data, NVMEV_NSM_NCAP) != nsze)
		return bad;
	if (data[NVMEV_NSM_FLBAS] & 0x7f)	/* format 0, no extended LBAs */
		return NVMEV_SC_INVALID_FORMAT | NVME_STATUS_DNR;
	if (data[NVMEV_NSM_DPS] || data[NVMEV_NSM_NMIC] ||
	    le32_at(data, NVMEV_NSM_ANAGRPID) || le16_at(data, NVMEV_NSM_NVMSETID) ||
	    le64_at(data, NVMEV_NSM_LBSTM))
		return bad;
	if (endgid && (!v->fdp.ruhs || endgid != NVMEV_ENDGID))
		return bad;
	status = nvmev_ns_handles(v, data, out);
	if (status)
		return status;
	for (i = 1; i <= NVMEV_MAX_NS && nvmev_ns_allocated(v, i); i++)
		;
	if (i > NVMEV_MAX_NS)
		return NVMEV_SC_NS_ID_UNAVAILABLE | NVME_STATUS_DNR;
	if (nsze > v->flash_bytes >> v->lba_shift)
		return NVMEV_SC_NS_INSUFFICIENT_CAP | NVME_STATUS_DNR;
	out->nsze = nsze;
	out->lba_shift = v->lba_shift;
	out->csi = NVME_CSI_NVM;
	out->detached = true;
	mib = nvmev_ns_mib(out);
	base = nvmev_ns_gap(v, mib);
	if (base == U64_MAX) {
		ftl_memset(out, 0, sizeof(*out));
		return NVMEV_SC_NS_INSUFFICIENT_CAP | NVME_STATUS_DNR;
	}
	out->base = base << MIB_SHIFT;
	*nsid = i;
	return NVME_SC_SUCCESS;
}

u16 nvmev_ctrl_list_check(const u8 *list)
{
	if (le16_at(list, 0) != 1 || le16_at(list, 2) != NVMEV_CNTLID)
		return NVMEV_SC_CTRL_LIST_INVALID | NVME_STATUS_DNR;
	return NVME_SC_SUCCESS;
}
