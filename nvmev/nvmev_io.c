// SPDX-License-Identifier: GPL-2.0
/*
 * NVM command set and data movement.
 *
 * Data is copied between the host's PRP pages and the namespace storage
 * (linear: LBA << lba_shift into the memmap region) when the command is
 * fetched; the flash model then says when its completion is due.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>

#include "nvmev.h"

/* the parser reads the host's entry as 16 dwords */
static_assert(sizeof(struct nvmev_sqe) == sizeof(struct nvme_command));

static u16 ftl_status(int ret)
{
	switch (ret) {
	case FTL_OK:
		return NVME_SC_SUCCESS;
	case FTL_ERR_RANGE:
		return NVME_SC_LBA_RANGE | NVME_STATUS_DNR;
	case FTL_ERR_NO_SPACE:
		return NVME_SC_CAP_EXCEEDED | NVME_STATUS_DNR;
	default:
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	}
}

/* Run @c through the model at now; returns the completion time. */
static u16 model_cmd(struct nvmev_dev *dev, const struct ftl_cmd *c, u64 *due)
{
	int ret;

	mutex_lock(&dev->model_lock);
	ret = ftl_submit(dev->ftl, c, ktime_get_ns(), due);
	mutex_unlock(&dev->model_lock);
	return ftl_status(ret);
}

static u16 rw(struct nvmev_dev *dev, const struct nvmev_io_req *req, u64 *due)
{
	bool write = req->opcode == nvme_cmd_write;
	u64 units = req->model.len >> 9;	/* SMART counts 512-byte units */
	u16 status;

	status = nvmev_prp_copy(dev, req->prp1, req->prp2,
				dev->storage + req->model.off, req->model.len,
				!write);
	if (status)
		return status;
	if (write) {
		dev->smart_host_writes++;
		dev->smart_units_written += units;
	} else {
		dev->smart_host_reads++;
		dev->smart_units_read += units;
	}
	if (req->hint_bits_ignored)
		dev->stats.hint_bits_disabled++;
	return model_cmd(dev, &req->model, due);
}

static u16 write_zeroes(struct nvmev_dev *dev, const struct nvmev_io_req *req,
			u64 *due)
{
	memset(dev->storage + req->model.off, 0, req->model.len);
	return model_cmd(dev, &req->model, due);
}

static u16 dsm(struct nvmev_dev *dev, const struct nvmev_io_req *req,
	       u64 *due)
{
	const struct nvmev_ns_view *ns = &dev->ns;
	u32 nr = req->nr_ranges, i;
	void *ranges;
	u16 status;

	*due = ktime_get_ns();
	if (!nr)
		return NVME_SC_SUCCESS;		/* access hints only */
	ranges = kmalloc_array(nr, NVMEV_DSM_RANGE_BYTES, GFP_KERNEL);
	if (!ranges)
		return NVME_SC_INTERNAL;
	status = nvmev_prp_copy(dev, req->prp1, req->prp2, ranges,
				nr * NVMEV_DSM_RANGE_BYTES, false);
	/* every range is checked before any is deallocated */
	if (!status)
		status = nvmev_dsm_check(ns, ranges, nr);
	for (i = 0; !status && i < nr; i++) {
		struct ftl_cmd c = { .op = FTL_OP_TRIM };
		u64 t;

		nvmev_dsm_range(ns, ranges, i, &c.off, &c.len);
		if (!c.len)
			continue;
		memset(dev->storage + c.off, 0, c.len);
		status = model_cmd(dev, &c, &t);
		*due = max(*due, t);
	}
	kfree(ranges);
	return status;
}

void nvmev_io_execute(struct nvmev_dev *dev, u16 sqid,
		      const struct nvmev_sqe *sqe)
{
	struct nvmev_io_req req;
	u64 due = 0;
	u16 status;

	status = nvmev_io_parse(&dev->ns, sqe, &req);
	dev->stats.io_cmds[req.opcode]++;
	if (!status) {
		switch (req.opcode) {
		case nvme_cmd_read:
		case nvme_cmd_write:
			status = rw(dev, &req, &due);
			break;
		case nvme_cmd_write_zeroes:
			status = write_zeroes(dev, &req, &due);
			break;
		case nvme_cmd_dsm:
			status = dsm(dev, &req, &due);
			break;
		default:		/* flush */
			status = model_cmd(dev, &req.model, &due);
			break;
		}
	}
	if (status) {
		dev->stats.io_errors++;
		nvmev_errlog_io(dev, sqid, sqe, status);
	}
	nvmev_ctrl_complete(&dev->ctrl, sqid, req.cid, status, 0,
			    due ? due : ktime_get_ns());
}
