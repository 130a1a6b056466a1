// SPDX-License-Identifier: GPL-2.0
/*
 * Admin command set. Every command either completes with success or with
 * the NVMe status that names what is wrong with it; nothing a host sends
 * can crash the device or leave it half-configured.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvmev.h"
#include "nvmev_compat.h"
#include "nvmev_fdp.h"
#include "nvmev_nsmgmt.h"

/* serial and NQN: "NVMEV" or the NQN's prefix, and the PCI domain */
#define NVMEV_SN	"NVMEV%08X"
#define NVMEV_NQN	"nqn.2026-11.io.nvmev:domain-%04x"
#define NVMEV_MN	"nvmev virtual SSD"
#define NVMEV_FR	"0.1"

static void nvmev_admin_done(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
			     u16 status, u32 result)
{
	dev->stats.admin_cmds++;
	if (status) {
		dev->stats.admin_errors++;
		nvmev_errlog_add(dev, 0, req->cid, req->nsid, status, 0,
				 req->error_loc);
	}
	nvmev_ctrl_complete(&dev->ctrl, 0, req->cid, status, result,
			    ktime_get_ns());
}

/* Copy @len bytes of @buf to the host buffer of @req: the status. */
static u16 nvmev_reply(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		       void *buf, u32 len)
{
	return nvmev_prp_copy(dev, req->prp1, req->prp2, buf, len, true);
}

static void nvmev_pad_copy(char *dst, const char *src, size_t n)
{
	memset(dst, ' ', n);
	memcpy(dst, src, min(strlen(src), n));
}

static void nvmev_identify_ctrl(struct nvmev_dev *dev, struct nvme_id_ctrl *id)
{
	char sn[sizeof(id->sn) + 1];

	id->vid = cpu_to_le16(NVMEV_VENDOR_ID);
	id->ssvid = cpu_to_le16(NVMEV_VENDOR_ID);
	/* per drive, or the host's nvme driver takes two for one subsystem */
	snprintf(sn, sizeof(sn), NVMEV_SN, dev->sysdata.domain);
	nvmev_pad_copy(id->sn, sn, sizeof(id->sn));
	nvmev_pad_copy(id->mn, NVMEV_MN, sizeof(id->mn));
	nvmev_pad_copy(id->fr, NVMEV_FR, sizeof(id->fr));
	id->rab = 6;
	id->mdts = NVMEV_MDTS;
	id->cntlid = cpu_to_le16(1);
	id->ver = cpu_to_le32(NVMEV_VERSION);
	id->acl = 3;
	id->aerl = NVMEV_AERL;
	id->frmw = 0x3;			/* slot 1 read-only, 1 slot */
	id->lpa = 0x3;			/* SMART per namespace, effects log */
	id->elpe = NVMEV_ELPE;
	id->wctemp = cpu_to_le16(NVMEV_WCTEMP_K);
	id->cctemp = cpu_to_le16(NVMEV_CCTEMP_K);
	id->sqes = 0x66;
	id->cqes = 0x44;
	/* Namespace Management and Attachment, for NSIDs 1 to NN */
	id->nn = cpu_to_le32(dev->ns.nn);
	id->oacs = cpu_to_le16(NVMEV_OACS_NS_MGMT);
	id->oaes = cpu_to_le32(NVMEV_OAES_NS_ATTR);
	put_unaligned_le32(dev->ns.nn, (u8 *)id + NVMEV_ID_CTRL_MNAN);
	put_unaligned_le64(dev->ns.flash_bytes, (u8 *)id + NVMEV_ID_CTRL_TNVMCAP);
	put_unaligned_le64(nvmev_ns_unallocated(&dev->ns),
			   (u8 *)id + NVMEV_ID_CTRL_UNVMCAP);
	id->oncs = cpu_to_le16(NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES);
	id->vwc = NVME_CTRL_VWC_PRESENT;
	id->awun = 0;
	snprintf(id->subnqn, sizeof(id->subnqn), NVMEV_NQN, dev->sysdata.domain);
	id->psd[0].max_power = cpu_to_le16(2500);	/* 25 W */
	if (dev->ns.hints_supported) {
		const struct ftl_geometry *g = ftl_get_geometry(dev->ftl);
		struct nvmev_hint_id *h = (void *)id + NVMEV_HINT_ID_OFFSET;

		memcpy(h->signature, NVMEV_HINT_SIGNATURE, sizeof(h->signature));
		h->version = cpu_to_le16(NVMEV_HINT_VERSION);
		h->caps = cpu_to_le16(NVMEV_HINT_CAP_APPEND |
				      NVMEV_HINT_CAP_OVERWRITE);
		h->dies = cpu_to_le32(g->dies);
		h->granularity = cpu_to_le32(g->gran_units * FTL_MAP_UNIT);
	}
	id->psd[0].entry_lat = cpu_to_le32(10);
	id->psd[0].exit_lat = cpu_to_le32(10);
	if (dev->ns.fdp.ruhs) {
		/* one endurance group, the whole drive, with FDP */
		id->ctratt |= cpu_to_le32(NVMEV_CTRATT_EG | NVMEV_CTRATT_FDPS);
		put_unaligned_le16(NVMEV_ENDGID,
				   (u8 *)id + NVMEV_ID_CTRL_ENDGIDMAX);
	}
}

static void nvmev_ns_ids(struct nvmev_dev *dev, u32 nsid, u8 *eui64, u8 *nguid)
{
	static const u8 base[16] = { 0x4e, 0x56, 0x4d, 0x45, 0x56 };

	/*
	 * Stable across loads, whatever memory the registers take, and one
	 * namespace's apart from any other's (the NSID and the drive's PCI
	 * domain): the host's nvme driver clears IDs it sees twice.
	 */
	memcpy(nguid, base, 16);
	nguid[7] = nsid;
	put_unaligned_be64(dev->sysdata.domain, nguid + 8);
	memcpy(eui64, base, 8);
	eui64[5] = nsid - 1;
	put_unaligned_be16(dev->sysdata.domain, eui64 + 6);
}

void nvmev_identify_ns(struct nvmev_dev *dev, u32 nsid,
		       const struct nvmev_ns *ns, struct nvme_id_ns *id)
{
	const struct ftl_geometry *g = ftl_get_geometry(dev->ftl);
	u64 pu_bytes = (u64)g->pu_units * FTL_MAP_UNIT;
	u32 per_lba;

	if (!ns)			/* inactive: all zeroes */
		return;
	per_lba = ns->lba_shift;
	id->nsze = cpu_to_le64(ns->nsze);
	id->ncap = cpu_to_le64(ns->nsze);
	id->nuse = cpu_to_le64(ns->nsze);
	/* preferred write/deallocate granularities and the stripe */
	id->nsfeat = 1 << 4;
	if (dev->paged) {
		/*
		 * thin provisioned: at most the cap's worth, what the drive
		 * holds now (its namespaces share the pages)
		 */
		u32 shift = FTL_MAP_SHIFT - per_lba;

		id->nsfeat |= 1 << 0;
		id->ncap = cpu_to_le64(min(ns->nsze,
					   dev->store.max_pages << shift));
		id->nuse = cpu_to_le64(min(ns->nsze,
					   dev->store.nr_pages << shift));
	}
	id->npwg = cpu_to_le16((pu_bytes >> per_lba) - 1);
	id->npwa = id->npwg;
	id->npdg = cpu_to_le16((FTL_MAP_UNIT >> per_lba) - 1);
	id->npda = id->npdg;
	id->nows = cpu_to_le16(min_t(u64, (g->stripe_bytes >> per_lba) - 1,
				     U16_MAX));
	id->nlbaf = 0;
	id->flbas = 0;
	id->dlfeat = 1;			/* deallocated blocks read as zeroes */
	id->lbaf[0].ds = per_lba;
	nvmev_ns_ids(dev, nsid, id->eui64, id->nguid);
	if (dev->ns.fdp.ruhs)
		put_unaligned_le16(NVMEV_ENDGID, (u8 *)id + NVMEV_ID_NS_ENDGID);
}

/* no Write Zeroes within WZSL names more than NLB's 65,536 LBAs of 512 B */
static_assert((4096ull << NVMEV_WZSL) <= (512ull << 16));

/* CNS 06h, CSI 00h: the NVM Command Set Identify Controller data structure */
static void nvmev_identify_ctrl_nvm(struct nvmev_dev *dev, struct nvme_id_ctrl_nvm *id)
{
	u64 most = 0;
	u32 i;

	/* a range as large as the largest namespace: the range check bounds it */
	for (i = 0; i < dev->ns.nn; i++)
		most = max(most, dev->ns.ns[i].nsze);
	id->wzsl = NVMEV_WZSL;
	id->dmrl = NVMEV_DMRL;
	id->dmrsl = cpu_to_le32(min_t(u64, most, U32_MAX));
}

/*
 * CNS 05h, CSI 02h: a zoned namespace's zones. Zone operation
 * characteristics none (fixed capacity, no excursions); reads may cross
 * zone boundaries; no zone descriptor extensions.
 */
static void nvmev_identify_ns_zns(struct nvmev_dev *dev, u32 nsid,
				  struct nvme_id_ns_zns *id)
{
	const struct nvmev_ns *ns = nvmev_ns_get(&dev->ns, nsid);
	const struct nvmev_zns *z = dev->zns[nsid - 1];

	if (!ns || ns->csi != NVME_CSI_ZNS)
		return;
	id->ozcs = cpu_to_le16(1);	/* RAZB */
	id->mar = cpu_to_le32(z->max_active ? z->max_active - 1 : U32_MAX);
	id->mor = cpu_to_le32(z->max_open ? z->max_open - 1 : U32_MAX);
	id->lbafe[0].zsze = cpu_to_le64(1ull << ns->zone_shift);
}

/* CNS 02h: the active NSIDs above NSID, in increasing order */
static void nvmev_active_list(struct nvmev_dev *dev, u32 after, u8 *list)
{
	u32 nsid, n = 0;

	for (nsid = after + 1; nsid && nsid <= dev->ns.nn; nsid++)
		if (nvmev_ns_get(&dev->ns, nsid))
			put_unaligned_le32(nsid, list + 4 * n++);
}

u16 nvmev_admin_identify(struct nvmev_dev *dev,
			 struct nvmev_admin_req *req, u32 *result)
{
	void *buf = kzalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	u8 *p = buf;
	u16 status;

	if (!buf)
		return NVME_SC_INTERNAL;
	switch (req->cns) {
	case NVME_ID_CNS_CTRL:
		nvmev_identify_ctrl(dev, buf);
		break;
	case NVME_ID_CNS_NS:
		nvmev_identify_ns(dev, req->nsid,
				  nvmev_ns_get(&dev->ns, req->nsid), buf);
		break;
	case NVME_ID_CNS_CS_CTRL:
		/* zoned: ZASL 0, Zone Append as large as MDTS allows */
		if (req->csi == NVME_CSI_NVM)
			nvmev_identify_ctrl_nvm(dev, buf);
		break;
	case NVME_ID_CNS_CS_NS:		/* NVM: no fields beyond CNS 00h's yet */
		if (req->csi == NVME_CSI_ZNS)
			nvmev_identify_ns_zns(dev, req->nsid, buf);
		break;
	case NVME_ID_CNS_NS_ACTIVE_LIST:
		nvmev_active_list(dev, req->nsid, p);
		break;
	case NVME_ID_CNS_NS_DESC_LIST:
		p[0] = NVME_NIDT_EUI64;
		p[1] = NVME_NIDT_EUI64_LEN;
		p[4 + 8] = NVME_NIDT_NGUID;
		p[4 + 8 + 1] = NVME_NIDT_NGUID_LEN;
		nvmev_ns_ids(dev, req->nsid, p + 4, p + 4 + 8 + 4);
		/* CAP.CSS bit 6: the namespace's command set too */
		p += 4 + 8 + 4 + 16;
		p[0] = NVME_NIDT_CSI;
		p[1] = NVME_NIDT_CSI_LEN;
		p[4] = nvmev_ns_get(&dev->ns, req->nsid)->csi;
		break;
	default:
		nvmev_nsmgmt_identify(dev, req, p);
		break;
	}
	status = nvmev_reply(dev, req, buf, NVME_IDENTIFY_DATA_SIZE);
	kfree(buf);
	return status;
}

/* SMART/Health Critical Warning bit 1: a temperature threshold is crossed */
static bool nvmev_temp_warning(const struct nvmev_dev *dev)
{
	return dev->temp_thresh[0] <= NVMEV_TEMP_K ||
	       dev->temp_thresh[1] >= NVMEV_TEMP_K;
}

/* the I/O counts of namespace @nsid, or of them all (0 or FFFFFFFFh) */
static void nvmev_io_counts(const struct nvmev_dev *dev, u32 nsid,
			    struct nvmev_ns_stats *sum)
{
	u32 i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < NVMEV_MAX_NS; i++) {
		const struct nvmev_ns_stats *st = &dev->ns_stats[i];

		if (nsid && nsid != NVME_NSID_ALL && i != nsid - 1)
			continue;
		sum->reads += st->reads;
		sum->writes += st->writes;
		sum->read_sectors += st->read_sectors;
		sum->write_sectors += st->write_sectors;
	}
}

/* the namespace's counts for an active NSID, else the controller's */
static void nvmev_smart_log(struct nvmev_dev *dev, u32 nsid,
			    struct nvme_smart_log *s)
{
	const u64 min_ns = 60 * NSEC_PER_SEC;
	u64 now = ktime_get_ns();
	u32 max_erases = 0, die, blk;
	const struct ftl_geometry *g;
	struct nvmev_ns_stats io;

	mutex_lock(&dev->model_lock);
	g = ftl_get_geometry(dev->ftl);
	for (die = 0; die < g->dies; die++)
		for (blk = 0; blk < g->blocks_per_die; blk++)
			max_erases = max(max_erases,
					 ftl_block_erases(dev->ftl, die, blk));
	mutex_unlock(&dev->model_lock);

	s->critical_warning = nvmev_temp_warning(dev) ? NVME_SMART_CRIT_TEMPERATURE : 0;
	put_unaligned_le16(NVMEV_TEMP_K, s->temperature);
	s->avail_spare = 100;
	s->spare_thresh = 10;
	/* rated for 3000 program/erase cycles */
	s->percent_used = min_t(u32, max_erases * 100 / 3000, 255);
	/* thousands of 512-byte units, any part of one counting as one */
	nvmev_io_counts(dev, nsid, &io);
	put_unaligned_le64(DIV_ROUND_UP(io.read_sectors, 1000),
			   s->data_units_read);
	put_unaligned_le64(DIV_ROUND_UP(io.write_sectors, 1000),
			   s->data_units_written);
	put_unaligned_le64(io.reads, s->host_reads);
	put_unaligned_le64(io.writes, s->host_writes);
	/* minutes, any busy time at all counting as one */
	put_unaligned_le64(div64_u64(nvmev_ctrl_busy_ns(&dev->ctrl, now) +
				     min_ns - 1, min_ns), s->ctrl_busy_time);
	/* the module's load is the one power-on; it never loses power */
	put_unaligned_le64(1, s->power_cycles);
	put_unaligned_le64(div64_u64(now - dev->power_on_ns,
				     3600ull * NSEC_PER_SEC), s->power_on_hours);
	put_unaligned_le64(dev->errlog.count, s->num_err_log_entries);
}

/* the admin commands, and the I/O commands of command set @csi */
static void nvmev_effects_log(struct nvme_effects_log *e, u8 csi, bool fdp)
{
	int op;

	/* the commands nvmev_admin_parse() and nvmev_io_parse() accept */
	for (op = 0; op < ARRAY_SIZE(e->acs); op++) {
		e->acs[op] = cpu_to_le32(nvmev_admin_effects(op));
		e->iocs[op] = cpu_to_le32(nvmev_io_effects(op, csi, fdp));
	}
}

/* the sizes nvmev_log_page_size() gives the parser */
static_assert(sizeof(struct nvme_smart_log) == 512);
static_assert(sizeof(struct nvme_effects_log) == 4096);
static_assert(NVMEV_ERRLOG_ENTRIES * NVMEV_ERRLOG_ENTRY_BYTES <= SZ_4K);

/* fields checked by nvmev_admin_parse(): a known log, offset inside it */
u16 nvmev_admin_get_log_page(struct nvmev_dev *dev,
			     struct nvmev_admin_req *req, u32 *result)
{
	u16 status = NVME_SC_INTERNAL;
	u8 *page, *out;

	page = kzalloc(SZ_4K, GFP_KERNEL);
	if (!page)
		return status;
	switch (req->lid) {
	case NVME_LOG_ERROR:
		nvmev_errlog_read(dev, page);
		break;
	case NVME_LOG_SMART:
		nvmev_smart_log(dev, req->nsid, (struct nvme_smart_log *)page);
		break;
	case NVME_LOG_FW_SLOT:
		page[0] = 1;		/* slot 1 active */
		/* FRS1: as Identify Controller FR has it */
		nvmev_pad_copy(page + 8, NVMEV_FR, sizeof_field(struct nvme_id_ctrl, fr));
		break;
	case NVME_LOG_CMD_EFFECTS:
		nvmev_effects_log((struct nvme_effects_log *)page, req->csi,
				  dev->ns.fdp.ruhs);
		break;
	case NVMEV_LOG_CHANGED_NS:
		nvmev_changed_ns_log(dev, req, page);
		break;
	default:		/* FDP's: every log it has fits a page */
		status = nvmev_fdp_log_page(dev, req, page);
		if (status)
			goto out;
		status = NVME_SC_INTERNAL;
		break;
	}
	/* bytes past the end of the page read as zero */
	out = kvzalloc(req->log_len, GFP_KERNEL);
	if (!out)
		goto out;
	memcpy(out, page + req->log_off,
	       min_t(u64, req->log_len, req->log_size - req->log_off));
	status = nvmev_reply(dev, req, out, req->log_len);
	kvfree(out);
out:
	kfree(page);
	return status;
}

static bool nvmev_set(const struct nvmev_admin_req *req)
{
	return req->opcode == nvme_admin_set_features;
}

/* the current value (SEL 0), or the default (SEL 1, 2) */
static bool nvmev_cur(const struct nvmev_admin_req *req)
{
	return req->sel == 0;
}

/* the composite temperature's over and under thresholds, by default */
static const u16 temp_thresh_def[2] = { NVMEV_WCTEMP_K, 0 };

/* CDW11 THSEL: the over (0) or under (1) threshold */
u16 nvmev_feat_temp(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		    u32 *result)
{
	u32 thsel = (req->cdw11 >> 20) & 1;

	if (nvmev_set(req))
		dev->temp_thresh[thsel] = req->cdw11 & 0xffff;
	else
		*result = nvmev_cur(req) ? dev->temp_thresh[thsel] :
				     temp_thresh_def[thsel];
	return NVME_SC_SUCCESS;
}

/*
 * The engine grants queues; Command Sequence Error once any I/O queue
 * exists. The default, and the current value after a reset, is every
 * queue the drive has: a host that skips Set Features may create them.
 */
u16 nvmev_feat_queues(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		      u32 *result)
{
	u32 n = dev->params.io_queues;

	if (nvmev_set(req))
		return nvmev_ctrl_set_num_queues(&dev->ctrl, req->cdw11, result);
	if (nvmev_cur(req))
		n = dev->ctrl.nr_io_queues;
	*result = (n - 1) | ((n - 1) << 16);
	return NVME_SC_SUCCESS;
}

/* aggregation threshold and time (100 us units), the engine's */
u16 nvmev_feat_coalesce(struct nvmev_dev *dev,
			const struct nvmev_admin_req *req, u32 *result)
{
	struct nvmev_ctrl *c = &dev->ctrl;

	if (nvmev_set(req)) {
		c->coalesce_thr = req->cdw11 & 0xff;
		c->coalesce_time_us = ((req->cdw11 >> 8) & 0xff) * 100;
	} else if (nvmev_cur(req)) {
		*result = c->coalesce_thr | ((c->coalesce_time_us / 100) << 8);
	}
	return NVME_SC_SUCCESS;
}

/* CDW11 IV: the vector; CD: that it is left out of coalescing */
u16 nvmev_feat_irq_config(struct nvmev_dev *dev,
			  const struct nvmev_admin_req *req, u32 *result)
{
	u32 iv = req->cdw11 & 0xffff;

	if (nvmev_set(req))
		dev->ctrl.vector_no_coalesce[iv] = req->cdw11 & (1 << 16);
	else
		*result = iv | (nvmev_cur(req) && dev->ctrl.vector_no_coalesce[iv] ?
				1 << 16 : 0);
	return NVME_SC_SUCCESS;
}

/* the parser reads it: placement hints in the commands that follow */
u16 nvmev_feat_hints(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		     u32 *result)
{
	if (nvmev_set(req))
		dev->ns.hints_enabled = req->cdw11 & NVMEV_HINT_FEAT_ENABLE;
	else
		*result = nvmev_cur(req) && dev->ns.hints_enabled;
	return NVME_SC_SUCCESS;
}

/* Get and Set Features of a row of nvmev_features[], fields checked */
u16 nvmev_admin_features(struct nvmev_dev *dev,
			 struct nvmev_admin_req *req, u32 *result)
{
	const struct nvmev_feature *f = req->feat;

	if (!nvmev_set(req) && req->sel == 3) {	/* supported capabilities */
		*result = f->caps;
		return NVME_SC_SUCCESS;
	}
	if (f->exec)
		return f->exec(dev, req, result);
	if (nvmev_set(req))
		dev->features[f->fid] = req->cdw11 & f->mask;
	else
		*result = nvmev_cur(req) ? dev->features[f->fid] : f->def;
	return NVME_SC_SUCCESS;
}

void nvmev_admin_reset(struct nvmev_dev *dev)
{
	u32 i;

	dev->nr_aers = 0;
	nvmev_nsmgmt_reset(dev);
	for (i = 0; i < nvmev_nr_features; i++)
		dev->features[nvmev_features[i].fid] = nvmev_features[i].def;
	memcpy(dev->temp_thresh, temp_thresh_def, sizeof(dev->temp_thresh));
	dev->ns.hints_enabled = false;	/* a host enables hints after each reset */
}

u16 nvmev_admin_create_cq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result)
{
	return nvmev_ctrl_create_cq(&dev->ctrl, req);
}

u16 nvmev_admin_create_sq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result)
{
	return nvmev_ctrl_create_sq(&dev->ctrl, req);
}

/* a queue that does not exist, or a CQ with SQs still: QID names it */
u16 nvmev_admin_delete_cq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result)
{
	u16 status = nvmev_ctrl_delete_cq(&dev->ctrl, req->qid);

	if (status)
		req->error_loc = NVMEV_ERR_LOC_QID;
	return status;
}

u16 nvmev_admin_delete_sq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result)
{
	u16 status = nvmev_ctrl_delete_sq(&dev->ctrl, req->qid);

	if (status)
		req->error_loc = NVMEV_ERR_LOC_QID;
	return status;
}

/* commands run to completion at once: nothing is abortable */
u16 nvmev_admin_abort(struct nvmev_dev *dev, struct nvmev_admin_req *req,
		      u32 *result)
{
	*result = 1;
	return NVME_SC_SUCCESS;
}

/* held until an event occurs: a namespace attached or detached */
u16 nvmev_admin_async_event(struct nvmev_dev *dev,
			    struct nvmev_admin_req *req, u32 *result)
{
	if (nvmev_ns_event_take(dev, result))
		return NVME_SC_SUCCESS;
	if (dev->nr_aers > NVMEV_AERL)
		return NVME_SC_ASYNC_LIMIT | NVME_STATUS_DNR;
	dev->aer_cids[dev->nr_aers++] = req->cid;
	dev->stats.admin_cmds++;
	return NVMEV_SC_HELD;
}

u16 nvmev_admin_keep_alive(struct nvmev_dev *dev,
			   struct nvmev_admin_req *req, u32 *result)
{
	return NVME_SC_SUCCESS;
}

/* Parse, then the command's handler from its row of admin_cmds[]. */
void nvmev_admin_execute(struct nvmev_dev *dev, const struct nvmev_sqe *sqe)
{
	struct nvmev_admin_req req;
	u32 result = 0;
	u16 status;

	status = nvmev_admin_parse(&dev->ns, sqe, &req);
	if (!status)
		status = req.cmd->exec(dev, &req, &result);
	if (status != NVMEV_SC_HELD)
		nvmev_admin_done(dev, &req, status, result);
}
