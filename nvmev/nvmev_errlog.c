// SPDX-License-Identifier: GPL-2.0
/*
 * The Error Information log (NVMe base specification 1.4, 5.14.1.1): every
 * command that completes with an error status, admin or I/O, in a ring of
 * the NVMEV_ERRLOG_ENTRIES most recent, which Get Log Page returns newest
 * first. Only the controller thread records and reads it.
 */
#include "nvmev.h"
#include "nvmev_compat.h"

static_assert(sizeof(struct nvme_error_slot) == NVMEV_ERRLOG_ENTRY_BYTES);

/*
 * The phase tag the completion of a command of SQ @sqid will carry: its CQ
 * posts in order, so it lands behind what is already queued for it.
 */
static u16 nvmev_next_phase(const struct nvmev_ctrl *c, u16 sqid)
{
	const struct nvmev_cq *cq = &c->cqs[c->sqs[sqid].cqid];
	u64 slot = (u64)cq->tail + cq->queued;

	if (!cq->size)
		return 0;
	return cq->phase ^ ((slot / cq->size) & 1);
}

void nvmev_errlog_add(struct nvmev_dev *dev, u16 sqid, u16 cid, u32 nsid,
		      u16 status, u64 lba, u16 error_loc)
{
	struct nvmev_errlog *log = &dev->errlog;
	struct nvme_error_slot *e = &log->slots[log->count % NVMEV_ERRLOG_ENTRIES];

	memset(e, 0, sizeof(*e));
	e->error_count = cpu_to_le64(++log->count);
	e->sqid = cpu_to_le16(sqid);
	e->cmdid = cpu_to_le16(cid);
	e->status_field = cpu_to_le16(status << 1 | nvmev_next_phase(&dev->ctrl, sqid));
	/* only a command's PRP entries can have a bad offset */
	if ((status & 0x7ff) == NVME_SC_PRP_INVALID_OFFSET)
		error_loc = NVMEV_ERR_LOC_DPTR;
	e->param_error_location = cpu_to_le16(error_loc);
	e->lba = cpu_to_le64(lba);
	e->nsid = cpu_to_le32(nvmev_ns_get(&dev->ns, nsid) ? nsid : 0);
}

void nvmev_errlog_io(struct nvmev_dev *dev, u16 sqid,
		     const struct nvmev_sqe *sqe, u16 status, u16 error_loc)
{
	u32 opcode = le32_to_cpu(sqe->dw[0]) & 0xff;
	u32 nsid = le32_to_cpu(sqe->dw[1]);
	const struct nvmev_ns *ns = nvmev_ns_get(&dev->ns, nsid);
	u64 lba = 0;

	/* the first LBA out of range: SLBA or the end of the namespace */
	if ((status & 0x7ff) == NVME_SC_LBA_RANGE && ns &&
	    (opcode == nvme_cmd_read || opcode == nvme_cmd_write ||
	     opcode == nvme_cmd_write_zeroes))
		lba = max(get_unaligned_le64(&sqe->dw[10]), ns->nsze);
	nvmev_errlog_add(dev, sqid, nvmev_sqe_cid(sqe), nsid, status, lba,
			 error_loc);
}

void nvmev_errlog_read(const struct nvmev_dev *dev, void *page)
{
	const struct nvmev_errlog *log = &dev->errlog;
	u64 n = min_t(u64, log->count, NVMEV_ERRLOG_ENTRIES), i;

	for (i = 0; i < n; i++)
		memcpy(page + i * NVMEV_ERRLOG_ENTRY_BYTES,
		       &log->slots[(log->count - 1 - i) % NVMEV_ERRLOG_ENTRIES],
		       NVMEV_ERRLOG_ENTRY_BYTES);
}
