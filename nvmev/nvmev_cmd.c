// SPDX-License-Identifier: GPL-2.0
/*
 * Submission queue entry parsing (NVMe base specification 1.4, "Admin
 * Command Set" and NVM Command Set 1.0), portable: see nvmev_cmd.h.
 */
#include "nvmev_cmd.h"
#include "nvmev_fdp.h"
#include "nvmev_hint.h"
#include "nvmev_nsmgmt.h"

u16 nvmev_sqe_cid(const struct nvmev_sqe *sqe)
{
	return nvmev_dw(sqe, 0) >> 16;
}

/* CDW0 PSDT: only PRPs are offered (Identify Controller SGLS = 0) */
static bool nvmev_uses_sgl(const struct nvmev_sqe *sqe)
{
	return (nvmev_dw(sqe, 0) >> 8) & NVME_CMD_SGL_ALL;
}

static bool nvmev_lba_range_ok(const struct nvmev_ns *ns, u64 slba, u64 nlb)
{
	return slba < ns->nsze && nlb <= ns->nsze - slba;
}

/*
 * The placement hint of a command (hint-proto/SPEC.md), in model terms.
 * Only when the host enabled the feature: otherwise the bits keep their
 * standard meaning and are merely reported.
 */
static void nvmev_parse_hint(const struct nvmev_ns_view *ns,
			     const struct nvmev_sqe *sqe, struct nvmev_io_req *req)
{
	u32 cdw12 = nvmev_dw(sqe, 12);
	__u64 prev_lba;

	if (!(cdw12 & NVMEV_HINT_MASK))
		return;
	if (!ns->hints_enabled) {
		req->hint_bits_ignored = true;
		return;
	}
	switch (nvmev_hint_decode(nvmev_dw(sqe, 2), nvmev_dw(sqe, 3), cdw12, &prev_lba)) {
	case NVMEV_HINT_KIND_APPEND:
		req->model.hint = FTL_HINT_APPEND;
		/* beyond the namespace: the model counts it as out of range */
		req->model.hint_prev_off = prev_lba < req->ns->nsze ?
			req->ns->base + (prev_lba << req->ns->lba_shift) : U64_MAX;
		break;
	case NVMEV_HINT_KIND_OVERWRITE:
		req->model.hint = FTL_HINT_OVERWRITE;
		break;
	default:
		req->model.hint = FTL_HINT_INVALID;
		break;
	}
}

/* Read, Write, Write Zeroes: SLBA in CDW10-11, 0's based NLB in CDW12. */
static u16 nvmev_parse_lbas(const struct nvmev_ns_view *ns,
			    const struct nvmev_sqe *sqe, struct nvmev_io_req *req)
{
	u64 slba = nvmev_qw(sqe, 10);
	u64 nlb = (u64)(nvmev_dw(sqe, 12) & 0xffff) + 1;

	if (!nvmev_lba_range_ok(req->ns, slba, nlb))
		return nvmev_io_bad_field(req, NVME_SC_LBA_RANGE, nvmev_err_loc(10, 0));
	req->model.off = req->ns->base + (slba << req->ns->lba_shift);
	req->model.len = nlb << req->ns->lba_shift;
	return NVME_SC_SUCCESS;
}

static u16 nvmev_parse_rw(const struct nvmev_ns_view *ns, const struct nvmev_sqe *sqe,
			  struct nvmev_io_req *req)
{
	u16 status = nvmev_parse_lbas(ns, sqe, req);

	if (status)
		return status;
	if (req->model.len > NVMEV_MAX_XFER)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(12, 0));
	req->model.op = req->opcode == nvme_cmd_write ? FTL_OP_WRITE :
							FTL_OP_READ;
	/* on a Read too: the model counts and ignores it */
	nvmev_parse_hint(ns, sqe, req);
	if (req->opcode == nvme_cmd_write)
		return nvmev_fdp_parse_placement(ns, sqe, req);
	return NVME_SC_SUCCESS;
}

/* its DTYPE is checked; what it deallocates is placed nowhere */
static u16 nvmev_parse_write_zeroes(const struct nvmev_ns_view *ns,
				    const struct nvmev_sqe *sqe,
				    struct nvmev_io_req *req)
{
	u16 status = nvmev_parse_lbas(ns, sqe, req);

	if (!status)
		status = nvmev_fdp_parse_placement(ns, sqe, req);
	req->model.op = FTL_OP_TRIM;
	return status;
}

static u16 nvmev_parse_flush(const struct nvmev_ns_view *ns,
			     const struct nvmev_sqe *sqe, struct nvmev_io_req *req)
{
	req->model.op = FTL_OP_FLUSH;
	return NVME_SC_SUCCESS;
}

/* the ranges themselves are checked once read, by nvmev_dsm_check() */
static u16 nvmev_parse_dsm(const struct nvmev_ns_view *ns,
			   const struct nvmev_sqe *sqe, struct nvmev_io_req *req)
{
	/* attributes other than deallocate are access hints only */
	if (nvmev_dw(sqe, 11) & NVME_DSMGMT_AD)
		req->nr_ranges = (nvmev_dw(sqe, 10) & 0xff) + 1;
	req->model.op = FTL_OP_TRIM;
	return NVME_SC_SUCCESS;
}

/* ---- zoned namespaces: what fields alone say (states: nvmev_zone_state.c) */

static bool nvmev_zone_start_ok(const struct nvmev_ns *ns, u64 slba)
{
	return !(slba & ((1ull << ns->zone_shift) - 1));
}

/* Zone Append: ZSLBA names the zone; ZASL is MDTS (Identify ZASL 0) */
static u16 nvmev_parse_zone_append(const struct nvmev_ns_view *ns,
				   const struct nvmev_sqe *sqe,
				   struct nvmev_io_req *req)
{
	u16 status = nvmev_parse_lbas(ns, sqe, req);

	if (status)
		return status;
	if (!nvmev_zone_start_ok(req->ns, nvmev_qw(sqe, 10)))
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 0));
	if (req->model.len > NVMEV_MAX_XFER)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(12, 0));
	req->model.op = FTL_OP_WRITE;
	return NVME_SC_SUCCESS;
}

/* CDW10-11 SLBA of a zone (unless Select All); CDW13 ZSA, Select All */
static u16 nvmev_parse_zone_send(const struct nvmev_ns_view *ns,
				 const struct nvmev_sqe *sqe,
				 struct nvmev_io_req *req)
{
	u32 cdw13 = nvmev_dw(sqe, 13);

	req->slba = nvmev_qw(sqe, 10);
	req->zsa = cdw13 & 0xff;
	req->zone_all = cdw13 & (1u << 8);
	/* no zone descriptor extensions (ZDES 0): 10h is not an action */
	if (req->zsa < NVME_ZONE_CLOSE || req->zsa > NVME_ZONE_OFFLINE)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(13, 0));
	if (req->zone_all)
		return NVME_SC_SUCCESS;
	if (req->slba >= req->ns->nsze)
		return nvmev_io_bad_field(req, NVME_SC_LBA_RANGE, nvmev_err_loc(10, 0));
	if (!nvmev_zone_start_ok(req->ns, req->slba))
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 0));
	return NVME_SC_SUCCESS;
}

/* CDW12 NUMD (0's based dwords); CDW13 ZRA, ZRASF, Partial Report */
static u16 nvmev_parse_zone_recv(const struct nvmev_ns_view *ns,
				 const struct nvmev_sqe *sqe,
				 struct nvmev_io_req *req)
{
	u64 bytes = ((u64)nvmev_dw(sqe, 12) + 1) * 4;
	u32 cdw13 = nvmev_dw(sqe, 13);

	req->slba = nvmev_qw(sqe, 10);
	req->zrasf = (cdw13 >> 8) & 0xff;
	req->partial = cdw13 & (1u << 16);
	/* Report Zones only: Extended Report Zones needs ZDES */
	if ((cdw13 & 0xff) != NVME_ZRA_ZONE_REPORT)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(13, 0));
	if (req->zrasf > 7)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(13, 8));
	if (bytes > NVMEV_MAX_XFER)
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(12, 0));
	if (req->slba >= req->ns->nsze)
		return nvmev_io_bad_field(req, NVME_SC_LBA_RANGE, nvmev_err_loc(10, 0));
	req->xfer = bytes;
	return NVME_SC_SUCCESS;
}

#define NVMEV_EFFECTS_LBA_WRITE	(NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC)
/* namespace capability and inventory change */
#define NVMEV_EFFECTS_NS	(NVME_CMD_EFFECTS_NCC | NVME_CMD_EFFECTS_NIC)
#define NVM_ZNS			(NVMEV_SET_NVM | NVMEV_SET_ZNS)

/*
 * The handlers (nvmev_handlers.h) exist in the module only: userspace
 * builds parse. The NVM and zoned ones (nvmev_io.c, nvmev_zoned.c) also
 * build in userspace for tests/fuzz/fuzz_model.cc, which defines
 * NVMEV_IO_EXEC to run commands through them; the admin handlers stay
 * the module's.
 */
#if defined(__KERNEL__) || defined(NVMEV_IO_EXEC)
#include "nvmev_handlers.h"
#define IO_EXEC(fn)	.exec = (fn)
#else
#define IO_EXEC(fn)	.exec = NULL
#endif
#ifdef __KERNEL__
#define EXEC(fn)	.exec = (fn)
#else
#define EXEC(fn)	.exec = NULL
#endif

/*
 * The I/O commands the controller has, a row per command and the command
 * sets whose namespaces take it that way: the checks of its fields, its
 * execution and its Command Effects log entry. A zoned namespace takes the
 * NVM commands too, Read, Write and Write Zeroes with its zones' rules
 * (nvmev_zoned.c): rows of their own, so that nvmev_io.c knows nothing of
 * zones. nvmev_io_parse(), nvmev_io_execute() and the log take them from
 * here only.
 */
static const struct nvmev_io_cmd io_cmds[] = {
	{ nvme_cmd_flush, NVM_ZNS, NVME_CMD_EFFECTS_CSUPP, nvmev_parse_flush,
	  IO_EXEC(nvmev_io_flush) },
	{ nvme_cmd_write, NVMEV_SET_NVM, NVMEV_EFFECTS_LBA_WRITE, nvmev_parse_rw,
	  IO_EXEC(nvmev_io_rw) },
	{ nvme_cmd_read, NVMEV_SET_NVM, NVME_CMD_EFFECTS_CSUPP, nvmev_parse_rw,
	  IO_EXEC(nvmev_io_rw) },
	{ nvme_cmd_write_zeroes, NVMEV_SET_NVM, NVMEV_EFFECTS_LBA_WRITE,
	  nvmev_parse_write_zeroes, IO_EXEC(nvmev_io_write_zeroes), .held = true },
	{ nvme_cmd_dsm, NVM_ZNS, NVMEV_EFFECTS_LBA_WRITE, nvmev_parse_dsm,
	  IO_EXEC(nvmev_io_dsm), .held = true },
	/* the Zoned Namespace Command Set */
	{ nvme_cmd_write, NVMEV_SET_ZNS, NVMEV_EFFECTS_LBA_WRITE, nvmev_parse_rw,
	  IO_EXEC(nvmev_zoned_rw) },
	{ nvme_cmd_read, NVMEV_SET_ZNS, NVME_CMD_EFFECTS_CSUPP, nvmev_parse_rw,
	  IO_EXEC(nvmev_zoned_rw) },
	{ nvme_cmd_write_zeroes, NVMEV_SET_ZNS, NVMEV_EFFECTS_LBA_WRITE,
	  nvmev_parse_write_zeroes, IO_EXEC(nvmev_zoned_write_zeroes),
	  .held = true },
	{ nvme_cmd_zone_mgmt_send, NVMEV_SET_ZNS, NVMEV_EFFECTS_LBA_WRITE,
	  nvmev_parse_zone_send, IO_EXEC(nvmev_zone_mgmt_send) },
	{ nvme_cmd_zone_mgmt_recv, NVMEV_SET_ZNS, NVME_CMD_EFFECTS_CSUPP,
	  nvmev_parse_zone_recv, IO_EXEC(nvmev_zone_mgmt_recv) },
	{ nvme_cmd_zone_append, NVMEV_SET_ZNS, NVMEV_EFFECTS_LBA_WRITE,
	  nvmev_parse_zone_append, IO_EXEC(nvmev_zone_append) },
	/* Flexible Data Placement (nvmev_fdp.c): a zoned namespace has no handles */
	{ NVMEV_CMD_IO_MGMT_RECV, NVM_ZNS, NVME_CMD_EFFECTS_CSUPP,
	  nvmev_fdp_parse_mgmt_recv, IO_EXEC(nvmev_fdp_mgmt_recv), .fdp = true },
	{ NVMEV_CMD_IO_MGMT_SEND, NVM_ZNS, NVME_CMD_EFFECTS_CSUPP,
	  nvmev_fdp_parse_mgmt_send, IO_EXEC(nvmev_fdp_mgmt_send), .fdp = true },
};

/* @opcode as a namespace of command set @csi takes it (FDP's: @fdp), or NULL */
static const struct nvmev_io_cmd *nvmev_find_io_cmd(u8 opcode, u8 csi, bool fdp)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(io_cmds); i++)
		if (io_cmds[i].opcode == opcode && csi < 8 &&
		    (io_cmds[i].sets & (1u << csi)) && (fdp || !io_cmds[i].fdp))
			return &io_cmds[i];
	return NULL;
}

bool nvmev_io_may_hold(const struct nvmev_sqe *sqe)
{
	/* held in every command set that has it, or in none */
	const struct nvmev_io_cmd *cmd =
		nvmev_find_io_cmd(nvmev_dw(sqe, 0) & 0xff, NVME_CSI_NVM, true);

	return cmd && cmd->held;
}

u32 nvmev_io_effects(u8 opcode, u8 csi, bool fdp)
{
	const struct nvmev_io_cmd *cmd = nvmev_find_io_cmd(opcode, csi, fdp);

	return cmd ? cmd->effects : 0;
}

u16 nvmev_io_parse(const struct nvmev_ns_view *ns, const struct nvmev_sqe *sqe,
		   struct nvmev_io_req *req)
{
	ftl_memset(req, 0, sizeof(*req));
	req->error_loc = NVMEV_ERR_LOC_NONE;
	req->opcode = nvmev_dw(sqe, 0) & 0xff;
	req->cid = nvmev_sqe_cid(sqe);
	req->nsid = nvmev_dw(sqe, 1);
	req->prp1 = nvmev_qw(sqe, 6);
	req->prp2 = nvmev_qw(sqe, 8);
	if (nvmev_uses_sgl(sqe))
		return nvmev_io_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_PSDT);
	/* an inactive NSID, as one beyond NN: Invalid Namespace or Format */
	req->ns = nvmev_ns_get(ns, req->nsid);
	if (!req->ns &&
	    !(req->opcode == nvme_cmd_flush && req->nsid == NVME_NSID_ALL))
		return nvmev_io_bad_field(req, NVME_SC_INVALID_NS, NVMEV_ERR_LOC_NSID);
	/* Flush of every namespace: the NVM command set's */
	req->cmd = nvmev_find_io_cmd(req->opcode,
				     req->ns ? req->ns->csi : NVME_CSI_NVM,
				     ns->fdp.ruhs);
	/* a command of another command set than the namespace's, or CC's */
	if (!req->cmd ||
	    (ns->nvm_only &&
	     !nvmev_find_io_cmd(req->opcode, NVME_CSI_NVM, ns->fdp.ruhs)))
		return nvmev_io_bad_field(req, NVME_SC_INVALID_OPCODE, NVMEV_ERR_LOC_OPCODE);
	return req->cmd->parse(ns, sqe, req);
}

/* A range: context attributes, 32-bit length in LBAs, starting LBA. */
static void nvmev_dsm_fields(const void *ranges, u32 i, u64 *slba, u64 *nlb)
{
	const u8 *r = (const u8 *)ranges + (size_t)i * NVMEV_DSM_RANGE_BYTES;
	u32 len;
	u64 start;

	ftl_memcpy(&len, r + 4, sizeof(len));
	ftl_memcpy(&start, r + 8, sizeof(start));
	*nlb = ftl_le32_to_cpu(len);
	*slba = ftl_le64_to_cpu(start);
}

u16 nvmev_dsm_check(const struct nvmev_ns *ns, const void *ranges, u32 nr)
{
	u64 slba, nlb;
	u32 i;

	for (i = 0; i < nr; i++) {
		nvmev_dsm_fields(ranges, i, &slba, &nlb);
		if (!nvmev_lba_range_ok(ns, slba, nlb))
			return NVME_SC_LBA_RANGE | NVME_STATUS_DNR;
	}
	return NVME_SC_SUCCESS;
}

void nvmev_dsm_range(const struct nvmev_ns *ns, const void *ranges, u32 i,
		     u64 *off, u64 *len)
{
	u64 slba, nlb;

	nvmev_dsm_fields(ranges, i, &slba, &nlb);
	*off = ns->base + (slba << ns->lba_shift);
	*len = nlb << ns->lba_shift;
}

u32 nvmev_log_page_size(const struct nvmev_ns_view *ns, u8 lid)
{
	switch (lid) {
	case NVME_LOG_ERROR:
		return NVMEV_ERRLOG_ENTRIES * NVMEV_ERRLOG_ENTRY_BYTES;
	case NVME_LOG_SMART:
	case NVME_LOG_FW_SLOT:
		return 512;
	case NVME_LOG_CMD_EFFECTS:
		return 4096;
	case NVMEV_LOG_CHANGED_NS:
		return NVMEV_CHANGED_NS_BYTES;
	default:
		return nvmev_fdp_log_size(ns, lid);
	}
}

/*
 * An NSID from 1 to NN; an inactive one's Identify Namespace data reads as
 * zeroes. FFFFFFFFh names no namespace without namespace management.
 */
static u16 nvmev_valid_ns(const struct nvmev_ns_view *ns,
			  struct nvmev_admin_req *req)
{
	if (!req->nsid || req->nsid > ns->nn)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_NS, NVMEV_ERR_LOC_NSID);
	return NVME_SC_SUCCESS;
}

/* the I/O command sets the controller has: NVM and Zoned Namespace */
static bool nvmev_csi_ok(u8 csi)
{
	return csi == NVME_CSI_NVM || csi == NVME_CSI_ZNS;
}

/*
 * CNS 05h: an NSID up to NN; the NVM structure of any namespace (a zoned
 * one takes NVM commands too), the zoned one of a zoned namespace only
 */
static u16 nvmev_parse_cs_ns(const struct nvmev_ns_view *ns,
			     struct nvmev_admin_req *req)
{
	const struct nvmev_ns *n = nvmev_ns_get(ns, req->nsid);
	u16 status = nvmev_valid_ns(ns, req);

	if (status)
		return status;
	if (!nvmev_csi_ok(req->csi) ||
	    (n && req->csi == NVME_CSI_ZNS && n->csi != NVME_CSI_ZNS))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_CSI);
	return NVME_SC_SUCCESS;
}

/* CDW11 CSI: the I/O command set of CNS 05h and 06h */
static u16 nvmev_parse_identify(const struct nvmev_ns_view *ns,
				const struct nvmev_sqe *sqe,
				struct nvmev_admin_req *req)
{
	u16 status;

	req->cns = req->cdw10 & 0xff;
	req->csi = req->cdw11 >> 24;
	switch (req->cns) {
	case NVME_ID_CNS_CTRL:
		return NVME_SC_SUCCESS;
	case NVME_ID_CNS_CS_CTRL:
		if (!nvmev_csi_ok(req->csi))
			return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_CSI);
		return NVME_SC_SUCCESS;
	case NVME_ID_CNS_CS_NS:
		return nvmev_parse_cs_ns(ns, req);
	case NVME_ID_CNS_NS:
		return nvmev_valid_ns(ns, req);
	case NVME_ID_CNS_NS_DESC_LIST:
		/* an inactive namespace has no identifiers to list */
		status = nvmev_valid_ns(ns, req);
		if (!status && !nvmev_ns_get(ns, req->nsid))
			status = nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD,
						       NVMEV_ERR_LOC_NSID);
		return status;
	case NVME_ID_CNS_NS_ACTIVE_LIST:
	case NVMEV_ID_CNS_NS_ALLOC_LIST:
		/* the list starts after NSID; FFFFFFFEh and up are not valid */
		if (req->nsid >= 0xfffffffe)
			return nvmev_admin_bad_field(req, NVME_SC_INVALID_NS, NVMEV_ERR_LOC_NSID);
		return NVME_SC_SUCCESS;
	case NVMEV_ID_CNS_NS_ALLOC:
	case NVMEV_ID_CNS_NS_CTRL_LIST:
		/* an unallocated NSID: zeroes, an empty list */
		return nvmev_valid_ns(ns, req);
	case NVMEV_ID_CNS_CTRL_LIST:
		return NVME_SC_SUCCESS;
	default:
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 0));
	}
}

static u16 nvmev_parse_log_page(const struct nvmev_ns_view *ns,
				const struct nvmev_sqe *sqe,
				struct nvmev_admin_req *req)
{
	u32 numd = (req->cdw10 >> 16) | ((req->cdw11 & 0xffff) << 16);

	req->lid = req->cdw10 & 0xff;
	req->csi = nvmev_dw(sqe, 14) >> 24;
	req->log_len = ((u64)numd + 1) * 4;
	req->log_off = nvmev_qw(sqe, 12);
	/* MDTS bounds admin transfers too; NUMD allows up to 16 GiB */
	if (req->log_len > NVMEV_MAX_XFER)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(10, 16));
	req->lsp = (req->cdw10 >> 8) & 0x7f;
	req->lsi = req->cdw11 >> 16;
	req->log_size = nvmev_log_page_size(ns, req->lid);
	if (!req->log_size)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_LOG_PAGE, nvmev_err_loc(10, 0));
	if (req->log_off >= req->log_size || (req->log_off & 3))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(12, 0));
	/* the commands of one I/O command set (CDW14 CSI) */
	if (req->lid == NVME_LOG_CMD_EFFECTS && !nvmev_csi_ok(req->csi))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(14, 24));
	/*
	 * SMART/Health per namespace (Identify Controller LPA bit 0): one
	 * that is active, or 0 and FFFFFFFFh for the whole controller
	 */
	if (req->lid == NVME_LOG_SMART && req->nsid &&
	    req->nsid != NVME_NSID_ALL && !nvmev_ns_get(ns, req->nsid))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_NS, NVMEV_ERR_LOC_NSID);
	return nvmev_fdp_parse_log(ns, req);
}

/* ---- features ---- */

static bool nvmev_is_set(const struct nvmev_admin_req *req)
{
	return req->opcode == nvme_admin_set_features;
}

static u16 nvmev_check_power(const struct nvmev_ns_view *ns,
			     struct nvmev_admin_req *req)
{
	/* one power state */
	if (nvmev_is_set(req) && (req->cdw11 & 0x1f))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	return NVME_SC_SUCCESS;
}

/* TMPSEL: the composite temperature (0h) or all sensors (Fh); THSEL */
static u16 nvmev_check_temp(const struct nvmev_ns_view *ns,
			    struct nvmev_admin_req *req)
{
	u32 tmpsel = (req->cdw11 >> 16) & 0xf, thsel = (req->cdw11 >> 20) & 3;

	if (req->sel == 3)
		return NVME_SC_SUCCESS;
	if (tmpsel && tmpsel != 0xf)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 16));
	if (thsel > 1)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 20));
	return NVME_SC_SUCCESS;
}

/* DULBE needs Identify Namespace NSFEAT bit 2, which is 0 */
static u16 nvmev_check_err_recovery(const struct nvmev_ns_view *ns,
				    struct nvmev_admin_req *req)
{
	if (nvmev_is_set(req) && (req->cdw11 & (1u << 16)))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 16));
	return NVME_SC_SUCCESS;
}

static u16 nvmev_check_queues(const struct nvmev_ns_view *ns,
			      struct nvmev_admin_req *req)
{
	u32 v = req->cdw11;

	/* 0's based counts: 65535 queues is not a valid request */
	if (!nvmev_is_set(req))
		return NVME_SC_SUCCESS;
	if ((v & 0xffff) == 0xffff)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	if ((v >> 16) == 0xffff)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 16));
	return NVME_SC_SUCCESS;
}

/* CDW11 IV names the vector, in a Get as in a Set */
static u16 nvmev_check_irq_config(const struct nvmev_ns_view *ns,
				  struct nvmev_admin_req *req)
{
	if (req->sel != 3 && (req->cdw11 & 0xffff) >= NVMEV_MAX_QUEUES)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	return NVME_SC_SUCCESS;
}

/* only with the module parameter hints=1 */
static u16 nvmev_check_hints(const struct nvmev_ns_view *ns,
			     struct nvmev_admin_req *req)
{
	/* without it the FID is one the controller does not have */
	if (!ns->hints_supported)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_FID);
	if (nvmev_is_set(req) && (req->cdw11 & ~NVMEV_HINT_FEAT_ENABLE))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	return NVME_SC_SUCCESS;
}

#define CHANGE	NVMEV_FEAT_CHANGEABLE

/* Get Features SEL=3 and Set Features accept these FIDs, and no other */
const struct nvmev_feature nvmev_features[] = {
	/* arbitration burst and priority weights (no WRR: only stored) */
	{ .fid = NVME_FEAT_ARBITRATION, .caps = CHANGE, .mask = 0xffffff07 },
	/* power state (one) and workload hint */
	{ .fid = NVME_FEAT_POWER_MGMT, .caps = CHANGE, .mask = 0xff,
	  .check = nvmev_check_power },
	/* thresholds of the composite temperature */
	{ .fid = NVME_FEAT_TEMP_THRESH, .caps = CHANGE, .check = nvmev_check_temp,
	  EXEC(nvmev_feat_temp) },
	/* TLER, in 100 ms units; no DULBE */
	{ .fid = NVME_FEAT_ERR_RECOVERY, .caps = CHANGE | NVMEV_FEAT_NS,
	  .mask = 0xffff, .check = nvmev_check_err_recovery },
	/* volatile write cache, enabled */
	{ .fid = NVME_FEAT_VOLATILE_WC, .caps = CHANGE, .def = 1, .mask = 1 },
	{ .fid = NVME_FEAT_NUM_QUEUES, .caps = CHANGE, .check = nvmev_check_queues,
	  EXEC(nvmev_feat_queues) },
	{ .fid = NVME_FEAT_IRQ_COALESCE, .caps = CHANGE,
	  EXEC(nvmev_feat_coalesce) },
	{ .fid = NVME_FEAT_IRQ_CONFIG, .caps = CHANGE, .check = nvmev_check_irq_config,
	  EXEC(nvmev_feat_irq_config) },
	/* DN: AWUN and NAWUN do not apply (both are 0) */
	{ .fid = NVME_FEAT_WRITE_ATOMIC, .caps = CHANGE, .mask = 1 },
	/*
	 * the SMART/Health critical warnings (no event is generated yet) and
	 * Namespace Attribute Notices (nvmev_nsmgmt_exec.c)
	 */
	{ .fid = NVME_FEAT_ASYNC_EVENT, .caps = CHANGE, .mask = 0x1ff },
	/*
	 * FDP, enabled in configuration 0 from the start: every namespace
	 * is in its endurance group, so no Set can change it
	 */
	{ .fid = NVMEV_FEAT_FDP, .caps = CHANGE, .def = 1,
	  .check = nvmev_fdp_check_feat },
	/* the FDP events a placement handle records (nvmev_fdp_exec.c) */
	{ .fid = NVMEV_FEAT_FDP_EVENTS, .caps = CHANGE | NVMEV_FEAT_NS,
	  .check = nvmev_fdp_check_events, EXEC(nvmev_feat_fdp_events) },
	{ .fid = NVMEV_HINT_FID, .caps = CHANGE, .check = nvmev_check_hints,
	  EXEC(nvmev_feat_hints) },
};

const u32 nvmev_nr_features = ARRAY_SIZE(nvmev_features);

static const struct nvmev_feature *nvmev_find_feature(u8 fid)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(nvmev_features); i++)
		if (nvmev_features[i].fid == fid)
			return &nvmev_features[i];
	return NULL;
}

/*
 * Get and Set Features. A namespace specific feature has one value for
 * all namespaces: NSID is an active namespace, all of them (FFFFFFFFh),
 * or 0 as tools send for the controller.
 */
static u16 nvmev_parse_features(const struct nvmev_ns_view *ns,
				const struct nvmev_sqe *sqe,
				struct nvmev_admin_req *req)
{
	const struct nvmev_feature *f;

	req->fid = req->cdw10 & 0xff;
	if (nvmev_is_set(req)) {
		if (req->cdw10 & (1u << 31))
			return nvmev_admin_bad_field(req, NVME_SC_FEATURE_NOT_SAVEABLE,
						     nvmev_err_loc(10, 31));
	} else {
		req->sel = (req->cdw10 >> 8) & 7;
		if (req->sel > 3)
			return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD,
						     nvmev_err_loc(10, 8));
	}
	f = nvmev_find_feature(req->fid);
	if (!f)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_FID);
	if ((f->caps & NVMEV_FEAT_NS) && req->nsid && req->nsid != NVME_NSID_ALL &&
	    !nvmev_ns_get(ns, req->nsid))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_NS, NVMEV_ERR_LOC_NSID);
	if (nvmev_is_set(req) && !(f->caps & NVMEV_FEAT_CHANGEABLE))
		return nvmev_admin_bad_field(req, NVME_SC_FEATURE_NOT_CHANGEABLE,
					     NVMEV_ERR_LOC_FID);
	req->feat = f;
	return f->check ? f->check(ns, req) : NVME_SC_SUCCESS;
}

static bool nvmev_io_qid_ok(u16 qid)
{
	return qid && qid < NVMEV_MAX_QUEUES;
}

/* Create I/O Completion/Submission Queue: CDW10 QID and QSIZE, CDW11. */
static u16 nvmev_parse_create_queue(const struct nvmev_ns_view *ns,
				    const struct nvmev_sqe *sqe,
				    struct nvmev_admin_req *req)
{
	u16 flags = req->cdw11 & 0xffff;

	req->qid = req->cdw10 & 0xffff;
	req->qsize = (req->cdw10 >> 16) + 1;
	if (req->qsize < 2 || req->qsize > NVMEV_MQES + 1)
		return nvmev_admin_bad_field(req, NVME_SC_QUEUE_SIZE, NVMEV_ERR_LOC_QSIZE);
	if (req->opcode == nvme_admin_create_sq) {
		req->cqid = req->cdw11 >> 16;
		if (!nvmev_io_qid_ok(req->cqid))
			return nvmev_admin_bad_field(req, NVME_SC_CQ_INVALID, NVMEV_ERR_LOC_CQID);
	}
	if (!nvmev_io_qid_ok(req->qid))
		return nvmev_admin_bad_field(req, NVME_SC_QID_INVALID, NVMEV_ERR_LOC_QID);
	/* CAP.CQR: queues must be physically contiguous */
	if (!(flags & NVME_QUEUE_PHYS_CONTIG))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, nvmev_err_loc(11, 0));
	if (req->opcode == nvme_admin_create_cq) {
		req->ien = flags & NVME_CQ_IRQ_ENABLED;
		req->vector = req->cdw11 >> 16;
		/*
		 * IV "shall not be set to a value greater than the number of
		 * messages the function supports", interrupts enabled or not
		 */
		if (req->vector >= NVMEV_MAX_QUEUES)
			return nvmev_admin_bad_field(req, NVME_SC_INVALID_VECTOR,
						     nvmev_err_loc(11, 16));
	}
	return NVME_SC_SUCCESS;
}

static u16 nvmev_parse_delete_queue(const struct nvmev_ns_view *ns,
				    const struct nvmev_sqe *sqe,
				    struct nvmev_admin_req *req)
{
	req->qid = req->cdw10 & 0xffff;
	if (!nvmev_io_qid_ok(req->qid))
		return nvmev_admin_bad_field(req, NVME_SC_QID_INVALID, NVMEV_ERR_LOC_QID);
	return NVME_SC_SUCCESS;
}

/*
 * The admin commands the controller has, with the checks of their fields
 * (NULL: none) and their execution; the Command Effects log lists
 * exactly these.
 */
static const struct nvmev_admin_cmd admin_cmds[] = {
	{ nvme_admin_delete_sq, 0, nvmev_parse_delete_queue,
	  EXEC(nvmev_admin_delete_sq) },
	{ nvme_admin_create_sq, 0, nvmev_parse_create_queue,
	  EXEC(nvmev_admin_create_sq) },
	{ nvme_admin_get_log_page, 0, nvmev_parse_log_page,
	  EXEC(nvmev_admin_get_log_page) },
	{ nvme_admin_delete_cq, 0, nvmev_parse_delete_queue,
	  EXEC(nvmev_admin_delete_cq) },
	{ nvme_admin_create_cq, 0, nvmev_parse_create_queue,
	  EXEC(nvmev_admin_create_cq) },
	{ nvme_admin_identify, 0, nvmev_parse_identify, EXEC(nvmev_admin_identify) },
	{ nvme_admin_abort_cmd, 0, NULL, EXEC(nvmev_admin_abort) },
	{ nvme_admin_set_features, 0, nvmev_parse_features,
	  EXEC(nvmev_admin_features) },
	{ nvme_admin_get_features, 0, nvmev_parse_features,
	  EXEC(nvmev_admin_features) },
	{ nvme_admin_async_event, 0, NULL, EXEC(nvmev_admin_async_event) },
	/* a host rescans its namespaces after these (and on their event) */
	{ NVMEV_ADMIN_NS_MGMT, NVMEV_EFFECTS_NS, nvmev_parse_ns_mgmt,
	  EXEC(nvmev_admin_ns_mgmt) },
	{ NVMEV_ADMIN_NS_ATTACH, NVMEV_EFFECTS_NS, nvmev_parse_ns_attach,
	  EXEC(nvmev_admin_ns_attach) },
	{ nvme_admin_keep_alive, 0, NULL, EXEC(nvmev_admin_keep_alive) },
};

static const struct nvmev_admin_cmd *nvmev_find_admin_cmd(u8 opcode)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(admin_cmds); i++)
		if (admin_cmds[i].opcode == opcode)
			return &admin_cmds[i];
	return NULL;
}

u32 nvmev_admin_effects(u8 opcode)
{
	const struct nvmev_admin_cmd *cmd = nvmev_find_admin_cmd(opcode);

	return cmd ? NVME_CMD_EFFECTS_CSUPP | cmd->effects : 0;
}

u16 nvmev_admin_parse(const struct nvmev_ns_view *ns,
		      const struct nvmev_sqe *sqe, struct nvmev_admin_req *req)
{
	ftl_memset(req, 0, sizeof(*req));
	req->error_loc = NVMEV_ERR_LOC_NONE;
	req->opcode = nvmev_dw(sqe, 0) & 0xff;
	req->cid = nvmev_sqe_cid(sqe);
	req->nsid = nvmev_dw(sqe, 1);
	req->prp1 = nvmev_qw(sqe, 6);
	req->prp2 = nvmev_qw(sqe, 8);
	req->cdw10 = nvmev_dw(sqe, 10);
	req->cdw11 = nvmev_dw(sqe, 11);
	req->cdw12 = nvmev_dw(sqe, 12);
	if (nvmev_uses_sgl(sqe))
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_FIELD, NVMEV_ERR_LOC_PSDT);
	req->cmd = nvmev_find_admin_cmd(req->opcode);
	if (!req->cmd)
		return nvmev_admin_bad_field(req, NVME_SC_INVALID_OPCODE, NVMEV_ERR_LOC_OPCODE);
	return req->cmd->parse ? req->cmd->parse(ns, sqe, req) : NVME_SC_SUCCESS;
}
