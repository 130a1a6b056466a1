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
#include <asm/unaligned.h>

#include "nvmev.h"

#define NVMEV_SN	"NVMEV00000001"
#define NVMEV_MN	"nvmev virtual SSD"
#define NVMEV_FR	"0.1"

static void done(struct nvmev_dev *dev, struct nvme_command *cmd, u16 status,
		 u32 result)
{
	dev->stats.admin_cmds++;
	if (status)
		dev->stats.admin_errors++;
	nvmev_complete(dev, 0, cmd->common.command_id, status, result,
		       ktime_get_ns());
}

/* Copy @len bytes of @buf to the host buffer of @cmd, or fail it. */
static void reply(struct nvmev_dev *dev, struct nvme_command *cmd,
		  void *buf, u32 len)
{
	int ret = nvmev_prp_copy(dev, cmd, buf, len, true);

	done(dev, cmd, ret ? ret : NVME_SC_SUCCESS, 0);
}

static void pad_copy(char *dst, const char *src, size_t n)
{
	memset(dst, ' ', n);
	memcpy(dst, src, min(strlen(src), n));
}

static void identify_ctrl(struct nvmev_dev *dev, struct nvme_id_ctrl *id)
{
	id->vid = cpu_to_le16(0x1e5e);
	id->ssvid = cpu_to_le16(0x1e5e);
	pad_copy(id->sn, NVMEV_SN, sizeof(id->sn));
	pad_copy(id->mn, NVMEV_MN, sizeof(id->mn));
	pad_copy(id->fr, NVMEV_FR, sizeof(id->fr));
	id->rab = 6;
	id->mdts = NVMEV_MDTS;
	id->cntlid = cpu_to_le16(1);
	id->ver = cpu_to_le32(NVME_VS(1, 4, 0));
	id->acl = 3;
	id->aerl = NVMEV_AERL;
	id->frmw = 0x3;			/* slot 1 read-only, 1 slot */
	id->lpa = 0x2;			/* command effects log */
	id->elpe = 0;
	id->wctemp = cpu_to_le16(343);
	id->cctemp = cpu_to_le16(358);
	id->sqes = 0x66;
	id->cqes = 0x44;
	id->nn = cpu_to_le32(1);
	id->oncs = cpu_to_le16(NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES);
	id->vwc = NVME_CTRL_VWC_PRESENT;
	id->awun = 0;
	strscpy(id->subnqn, "nqn.2026-11.io.nvmev:ctrl1", sizeof(id->subnqn));
	id->psd[0].max_power = cpu_to_le16(2500);	/* 25 W */
	if (dev->cfg.hints) {
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
}

static void ns_ids(struct nvmev_dev *dev, u8 *eui64, u8 *nguid)
{
	static const u8 base[16] = { 0x4e, 0x56, 0x4d, 0x45, 0x56, 0x00, 0x00,
				     0x01 };

	memcpy(nguid, base, 16);
	put_unaligned_be64(dev->memmap_start, nguid + 8);
	memcpy(eui64, base, 8);
}

static void identify_ns(struct nvmev_dev *dev, struct nvme_id_ns *id)
{
	const struct ftl_geometry *g = ftl_get_geometry(dev->ftl);
	u32 per_lba = dev->lba_shift;
	u64 pu_bytes = (u64)g->pu_units * FTL_MAP_UNIT;

	id->nsze = cpu_to_le64(dev->nsze);
	id->ncap = cpu_to_le64(dev->nsze);
	id->nuse = cpu_to_le64(dev->nsze);
	/* preferred write/deallocate granularities and the stripe */
	id->nsfeat = 1 << 4;
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
	ns_ids(dev, id->eui64, id->nguid);
}

static void identify(struct nvmev_dev *dev, struct nvme_command *cmd)
{
	u32 nsid = le32_to_cpu(cmd->identify.nsid);
	u8 cns = cmd->identify.cns;
	void *buf = kzalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	u8 *p = buf;

	if (!buf) {
		done(dev, cmd, NVME_SC_INTERNAL, 0);
		return;
	}
	switch (cns) {
	case NVME_ID_CNS_CTRL:
		identify_ctrl(dev, buf);
		break;
	case NVME_ID_CNS_NS:
		if (nsid != NVMEV_NSID) {
			done(dev, cmd, NVME_SC_INVALID_NS | NVME_STATUS_DNR, 0);
			goto out;
		}
		identify_ns(dev, buf);
		break;
	case NVME_ID_CNS_NS_ACTIVE_LIST:
		if (nsid >= 0xfffffffe) {
			done(dev, cmd, NVME_SC_INVALID_NS | NVME_STATUS_DNR, 0);
			goto out;
		}
		if (nsid < NVMEV_NSID)
			put_unaligned_le32(NVMEV_NSID, p);
		break;
	case NVME_ID_CNS_NS_DESC_LIST:
		if (nsid != NVMEV_NSID) {
			done(dev, cmd, NVME_SC_INVALID_NS | NVME_STATUS_DNR, 0);
			goto out;
		}
		p[0] = NVME_NIDT_EUI64;
		p[1] = NVME_NIDT_EUI64_LEN;
		p[4 + 8] = NVME_NIDT_NGUID;
		p[4 + 8 + 1] = NVME_NIDT_NGUID_LEN;
		ns_ids(dev, p + 4, p + 4 + 8 + 4);
		break;
	default:
		done(dev, cmd, NVME_SC_INVALID_FIELD | NVME_STATUS_DNR, 0);
		goto out;
	}
	reply(dev, cmd, buf, NVME_IDENTIFY_DATA_SIZE);
out:
	kfree(buf);
}

static void smart_log(struct nvmev_dev *dev, struct nvme_smart_log *s)
{
	u64 ns = ktime_get_ns() - dev->power_on_ns;
	u32 max_erases = 0, die, blk;
	const struct ftl_geometry *g;

	mutex_lock(&dev->model_lock);
	g = ftl_get_geometry(dev->ftl);
	for (die = 0; die < g->dies; die++)
		for (blk = 0; blk < g->blocks_per_die; blk++)
			max_erases = max(max_erases,
					 ftl_block_erases(dev->ftl, die, blk));
	mutex_unlock(&dev->model_lock);

	put_unaligned_le16(313, s->temperature);	/* 40 C */
	s->avail_spare = 100;
	s->spare_thresh = 10;
	/* rated for 3000 program/erase cycles */
	s->percent_used = min_t(u32, max_erases * 100 / 3000, 255);
	put_unaligned_le64(DIV_ROUND_UP(dev->smart_units_read, 1000),
			   s->data_units_read);
	put_unaligned_le64(DIV_ROUND_UP(dev->smart_units_written, 1000),
			   s->data_units_written);
	put_unaligned_le64(dev->smart_host_reads, s->host_reads);
	put_unaligned_le64(dev->smart_host_writes, s->host_writes);
	put_unaligned_le64(div64_u64(ns, 3600ull * NSEC_PER_SEC), s->power_on_hours);
	put_unaligned_le64(1, s->power_cycles);
}

static void effects_log(struct nvme_effects_log *e)
{
	static const u8 admin[] = {
		nvme_admin_delete_sq, nvme_admin_create_sq, nvme_admin_get_log_page,
		nvme_admin_delete_cq, nvme_admin_create_cq, nvme_admin_identify,
		nvme_admin_abort_cmd, nvme_admin_set_features,
		nvme_admin_get_features, nvme_admin_async_event,
		nvme_admin_keep_alive,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(admin); i++)
		e->acs[admin[i]] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	e->iocs[nvme_cmd_flush] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	e->iocs[nvme_cmd_read] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	e->iocs[nvme_cmd_write] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP |
					      NVME_CMD_EFFECTS_LBCC);
	e->iocs[nvme_cmd_write_zeroes] = e->iocs[nvme_cmd_write];
	e->iocs[nvme_cmd_dsm] = e->iocs[nvme_cmd_write];
}

static void get_log_page(struct nvmev_dev *dev, struct nvme_command *cmd)
{
	u32 cdw10 = le32_to_cpu(cmd->common.cdw10);
	u32 cdw11 = le32_to_cpu(cmd->common.cdw11);
	u64 off = le32_to_cpu(cmd->common.cdw12) |
		  ((u64)le32_to_cpu(cmd->common.cdw13) << 32);
	u32 numd = (cdw10 >> 16) | ((cdw11 & 0xffff) << 16);
	u64 len = ((u64)numd + 1) * 4;
	u8 lid = cdw10 & 0xff;
	u32 size;
	u8 *page, *out;

	/* MDTS bounds admin transfers too; NUMD is host-chosen, up to 16 GiB */
	if (len > (SZ_4K << NVMEV_MDTS)) {
		done(dev, cmd, NVME_SC_INVALID_FIELD | NVME_STATUS_DNR, 0);
		return;
	}
	page = kzalloc(SZ_4K, GFP_KERNEL);
	if (!page) {
		done(dev, cmd, NVME_SC_INTERNAL, 0);
		return;
	}
	switch (lid) {
	case NVME_LOG_ERROR:
		size = 64;		/* one, empty, error information entry */
		break;
	case NVME_LOG_SMART:
		smart_log(dev, (struct nvme_smart_log *)page);
		size = sizeof(struct nvme_smart_log);
		break;
	case NVME_LOG_FW_SLOT:
		page[0] = 1;		/* slot 1 active */
		memcpy(page + 8, NVMEV_FR, strlen(NVMEV_FR));
		size = 512;
		break;
	case NVME_LOG_CMD_EFFECTS:
		effects_log((struct nvme_effects_log *)page);
		size = sizeof(struct nvme_effects_log);
		break;
	default:
		done(dev, cmd, NVME_SC_INVALID_LOG_PAGE | NVME_STATUS_DNR, 0);
		goto out;
	}
	if (off >= size || (off & 3)) {
		done(dev, cmd, NVME_SC_INVALID_FIELD | NVME_STATUS_DNR, 0);
		goto out;
	}
	/* bytes past the end of the page read as zero */
	out = kvzalloc(len, GFP_KERNEL);
	if (!out) {
		done(dev, cmd, NVME_SC_INTERNAL, 0);
		goto out;
	}
	memcpy(out, page + off, min_t(u64, len, size - off));
	reply(dev, cmd, out, len);
	kvfree(out);
out:
	kfree(page);
}

static u16 set_features(struct nvmev_dev *dev, struct nvme_command *cmd,
			u32 *result)
{
	u32 cdw10 = le32_to_cpu(cmd->common.cdw10);
	u32 cdw11 = le32_to_cpu(cmd->common.cdw11);
	u32 nsq, ncq, iv;

	if (cdw10 & (1u << 31))
		return NVME_SC_FEATURE_NOT_SAVEABLE | NVME_STATUS_DNR;
	switch (cdw10 & 0xff) {
	case NVME_FEAT_NUM_QUEUES:
		nsq = cdw11 & 0xffff;
		ncq = cdw11 >> 16;
		if (nsq == 0xffff || ncq == 0xffff)
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		dev->nr_io_queues = min3(nsq + 1, ncq + 1, dev->max_io_queues);
		*result = (dev->nr_io_queues - 1) | ((dev->nr_io_queues - 1) << 16);
		return NVME_SC_SUCCESS;
	case NVME_FEAT_IRQ_COALESCE:
		dev->coalesce_thr = cdw11 & 0xff;
		dev->coalesce_time_us = ((cdw11 >> 8) & 0xff) * 100;
		return NVME_SC_SUCCESS;
	case NVME_FEAT_IRQ_CONFIG:
		iv = cdw11 & 0xffff;
		if (iv >= NVMEV_MAX_QUEUES)
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		if (cdw11 & (1 << 16))
			set_bit(iv, dev->vector_no_coalesce);
		else
			clear_bit(iv, dev->vector_no_coalesce);
		return NVME_SC_SUCCESS;
	case NVME_FEAT_VOLATILE_WC:
		dev->vwc = cdw11 & 1;
		return NVME_SC_SUCCESS;
	case NVME_FEAT_POWER_MGMT:
		return (cdw11 & 0x1f) ? NVME_SC_INVALID_FIELD | NVME_STATUS_DNR :
					NVME_SC_SUCCESS;
	case NVME_FEAT_ARBITRATION:
	case NVME_FEAT_TEMP_THRESH:
	case NVME_FEAT_ASYNC_EVENT:
		return NVME_SC_SUCCESS;
	case NVMEV_HINT_FID:
		if (!dev->cfg.hints || (cdw11 & ~NVMEV_HINT_FEAT_ENABLE))
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		dev->hints_enabled = cdw11 & NVMEV_HINT_FEAT_ENABLE;
		return NVME_SC_SUCCESS;
	default:
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	}
}

static u16 get_features(struct nvmev_dev *dev, struct nvme_command *cmd,
			u32 *result)
{
	u32 cdw10 = le32_to_cpu(cmd->common.cdw10);
	u32 cdw11 = le32_to_cpu(cmd->common.cdw11);
	u32 n, sel = (cdw10 >> 8) & 7;

	if (sel > 3)
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	if (sel == 3) {			/* capabilities: changeable, not saveable */
		*result = 1 << 2;
		return NVME_SC_SUCCESS;
	}
	switch (cdw10 & 0xff) {
	case NVME_FEAT_NUM_QUEUES:
		n = (sel == 0 && dev->nr_io_queues) ? dev->nr_io_queues :
						       dev->max_io_queues;
		*result = (n - 1) | ((n - 1) << 16);
		return NVME_SC_SUCCESS;
	case NVME_FEAT_IRQ_COALESCE:
		*result = sel ? 0 : dev->coalesce_thr |
				    ((dev->coalesce_time_us / 100) << 8);
		return NVME_SC_SUCCESS;
	case NVME_FEAT_IRQ_CONFIG:
		if ((cdw11 & 0xffff) >= NVMEV_MAX_QUEUES)
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		*result = (cdw11 & 0xffff) |
			  (!sel && test_bit(cdw11 & 0xffff,
					    dev->vector_no_coalesce) ? 1 << 16 : 0);
		return NVME_SC_SUCCESS;
	case NVME_FEAT_VOLATILE_WC:
		*result = sel ? 1 : dev->vwc;
		return NVME_SC_SUCCESS;
	case NVME_FEAT_ARBITRATION:
	case NVME_FEAT_POWER_MGMT:
	case NVME_FEAT_ASYNC_EVENT:
		*result = 0;
		return NVME_SC_SUCCESS;
	case NVME_FEAT_TEMP_THRESH:
		*result = 343;
		return NVME_SC_SUCCESS;
	case NVMEV_HINT_FID:
		if (!dev->cfg.hints)
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
		*result = sel ? 0 : dev->hints_enabled;
		return NVME_SC_SUCCESS;
	default:
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	}
}

static u16 create_cq(struct nvmev_dev *dev, struct nvme_command *cmd)
{
	u16 qid = le16_to_cpu(cmd->create_cq.cqid);
	u32 size = le16_to_cpu(cmd->create_cq.qsize) + 1;
	u16 flags = le16_to_cpu(cmd->create_cq.cq_flags);
	u16 vector = le16_to_cpu(cmd->create_cq.irq_vector);
	bool ien = flags & NVME_CQ_IRQ_ENABLED;

	/* field checks first, then the queue identifier */
	if (size < 2 || size > NVMEV_MQES + 1)
		return NVME_SC_QUEUE_SIZE | NVME_STATUS_DNR;
	if (!qid || qid > dev->nr_io_queues || dev->cqs[qid].live)
		return NVME_SC_QID_INVALID | NVME_STATUS_DNR;
	if (!(flags & NVME_QUEUE_PHYS_CONTIG))
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;	/* CAP.CQR */
	if (ien && vector >= NVMEV_MAX_QUEUES)
		return NVME_SC_INVALID_VECTOR | NVME_STATUS_DNR;
	if (!nvmev_cq_create(dev, qid, le64_to_cpu(cmd->create_cq.prp1), size,
			     ien, vector))
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	return NVME_SC_SUCCESS;
}

static u16 create_sq(struct nvmev_dev *dev, struct nvme_command *cmd)
{
	u16 qid = le16_to_cpu(cmd->create_sq.sqid);
	u32 size = le16_to_cpu(cmd->create_sq.qsize) + 1;
	u16 flags = le16_to_cpu(cmd->create_sq.sq_flags);
	u16 cqid = le16_to_cpu(cmd->create_sq.cqid);

	if (size < 2 || size > NVMEV_MQES + 1)
		return NVME_SC_QUEUE_SIZE | NVME_STATUS_DNR;
	if (!cqid || cqid >= NVMEV_MAX_QUEUES || !dev->cqs[cqid].live)
		return NVME_SC_CQ_INVALID | NVME_STATUS_DNR;
	if (!qid || qid > dev->nr_io_queues || dev->sqs[qid].live)
		return NVME_SC_QID_INVALID | NVME_STATUS_DNR;
	if (!(flags & NVME_QUEUE_PHYS_CONTIG))
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	if (!nvmev_sq_create(dev, qid, le64_to_cpu(cmd->create_sq.prp1), size,
			     cqid))
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	return NVME_SC_SUCCESS;
}

static u16 delete_sq(struct nvmev_dev *dev, struct nvme_command *cmd)
{
	u16 qid = le16_to_cpu(cmd->delete_queue.qid);

	if (!qid || qid >= NVMEV_MAX_QUEUES || !dev->sqs[qid].live)
		return NVME_SC_QID_INVALID | NVME_STATUS_DNR;
	nvmev_sq_delete(dev, qid);
	return NVME_SC_SUCCESS;
}

static u16 delete_cq(struct nvmev_dev *dev, struct nvme_command *cmd)
{
	u16 qid = le16_to_cpu(cmd->delete_queue.qid);

	if (!qid || qid >= NVMEV_MAX_QUEUES || !dev->cqs[qid].live)
		return NVME_SC_QID_INVALID | NVME_STATUS_DNR;
	if (dev->cqs[qid].nr_sqs)
		return NVME_SC_INVALID_QUEUE | NVME_STATUS_DNR;
	nvmev_cq_delete(dev, qid);
	return NVME_SC_SUCCESS;
}

void nvmev_admin_execute(struct nvmev_dev *dev, struct nvme_command *cmd)
{
	u32 result = 0;
	u16 status;

	if (cmd->common.flags & NVME_CMD_SGL_ALL) {
		done(dev, cmd, NVME_SC_INVALID_FIELD | NVME_STATUS_DNR, 0);
		return;
	}
	switch (cmd->common.opcode) {
	case nvme_admin_identify:
		identify(dev, cmd);
		return;
	case nvme_admin_get_log_page:
		get_log_page(dev, cmd);
		return;
	case nvme_admin_set_features:
		status = set_features(dev, cmd, &result);
		break;
	case nvme_admin_get_features:
		status = get_features(dev, cmd, &result);
		break;
	case nvme_admin_create_cq:
		status = create_cq(dev, cmd);
		break;
	case nvme_admin_create_sq:
		status = create_sq(dev, cmd);
		break;
	case nvme_admin_delete_sq:
		status = delete_sq(dev, cmd);
		break;
	case nvme_admin_delete_cq:
		status = delete_cq(dev, cmd);
		break;
	case nvme_admin_abort_cmd:
		/* commands run to completion at once: nothing is abortable */
		status = NVME_SC_SUCCESS;
		result = 1;
		break;
	case nvme_admin_async_event:
		if (dev->nr_aers > NVMEV_AERL) {
			status = NVME_SC_ASYNC_LIMIT | NVME_STATUS_DNR;
			break;
		}
		/* held until an event occurs; none is generated yet */
		dev->aer_cids[dev->nr_aers++] = cmd->common.command_id;
		dev->stats.admin_cmds++;
		return;
	case nvme_admin_keep_alive:
		status = NVME_SC_SUCCESS;
		break;
	default:
		status = NVME_SC_INVALID_OPCODE | NVME_STATUS_DNR;
		break;
	}
	done(dev, cmd, status, result);
}
