// SPDX-License-Identifier: GPL-2.0
/*
 * NVM command set and data movement.
 *
 * Data is copied between the host's PRP pages and the namespace storage
 * (linear: LBA << lba_shift into the memmap region) when the command is
 * fetched; the flash model then says when its completion is due.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/ktime.h>

#include "nvmev.h"
#include "nvmev_prp.h"

/* Host RAM for the PRP walker: guest physical pages, mapped one by one. */
static void *host_page_map(void *ctx, u64 addr)
{
	unsigned long pfn = PHYS_PFN(addr);

	if (!pfn_valid(pfn))
		return NULL;
	return kmap_local_page(pfn_to_page(pfn));
}

static void host_page_unmap(void *ctx, void *page)
{
	kunmap_local(page);
}

static const struct nvmev_host_mem host_ram = {
	.map = host_page_map,
	.unmap = host_page_unmap,
};

/*
 * Copy @len bytes between @buf and the host buffer described by the PRP
 * entries of @cmd. Returns an NVMe status: offsets that break the PRP
 * rules and addresses that are not host RAM fail the command.
 */
u16 nvmev_prp_copy(struct nvmev_dev *dev, struct nvme_command *cmd,
		   void *buf, u64 len, bool to_host)
{
	switch (nvmev_prp_copy_mem(&host_ram,
				   le64_to_cpu(cmd->common.dptr.prp1),
				   le64_to_cpu(cmd->common.dptr.prp2),
				   buf, len, to_host)) {
	case NVMEV_PRP_OK:
		return NVME_SC_SUCCESS;
	case NVMEV_PRP_BAD_OFFSET:
		return NVME_SC_PRP_INVALID_OFFSET | NVME_STATUS_DNR;
	default:
		return NVME_SC_DATA_XFER_ERROR | NVME_STATUS_DNR;
	}
}

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
static u16 model_cmd(struct nvmev_dev *dev, struct ftl_cmd *c, u64 *due)
{
	int ret;

	mutex_lock(&dev->model_lock);
	ret = ftl_submit(dev->ftl, c, ktime_get_ns(), due);
	mutex_unlock(&dev->model_lock);
	return ftl_status(ret);
}

static u16 model(struct nvmev_dev *dev, u8 op, u64 off, u64 len, u64 *due)
{
	struct ftl_cmd c = { .op = op, .off = off, .len = len };

	return model_cmd(dev, &c, due);
}

/*
 * The placement hint of @cmd (hint-proto/SPEC.md), in model terms. Only
 * when the host enabled the feature: otherwise the bits keep their
 * standard meaning and are merely counted.
 */
static void decode_hint(struct nvmev_dev *dev, struct nvme_command *cmd,
			struct ftl_cmd *c)
{
	u32 cdw12 = le32_to_cpu(cmd->common.cdw12);
	u64 prev_lba;

	if (!(cdw12 & NVMEV_HINT_MASK))
		return;
	if (!dev->hints_enabled) {
		dev->stats.hint_bits_disabled++;
		return;
	}
	switch (nvmev_hint_decode(le32_to_cpu(cmd->common.cdw2[0]),
				  le32_to_cpu(cmd->common.cdw2[1]), cdw12,
				  &prev_lba)) {
	case NVMEV_HINT_KIND_APPEND:
		c->hint = FTL_HINT_APPEND;
		/* beyond the namespace: the model counts it as out of range */
		c->hint_prev_off = prev_lba < dev->nsze ?
				   prev_lba << dev->lba_shift : U64_MAX;
		break;
	case NVMEV_HINT_KIND_OVERWRITE:
		c->hint = FTL_HINT_OVERWRITE;
		break;
	default:
		c->hint = FTL_HINT_INVALID;
		break;
	}
}

static bool lba_range_ok(struct nvmev_dev *dev, u64 slba, u64 nlb)
{
	return slba < dev->nsze && nlb <= dev->nsze - slba;
}

static u16 rw(struct nvmev_dev *dev, struct nvme_command *cmd, u64 *due)
{
	bool write = cmd->rw.opcode == nvme_cmd_write;
	u64 slba = le64_to_cpu(cmd->rw.slba);
	u64 nlb = (u64)le16_to_cpu(cmd->rw.length) + 1;
	u64 off = slba << dev->lba_shift, len = nlb << dev->lba_shift;
	struct ftl_cmd c = { .off = off, .len = len };
	u16 status;

	if (!lba_range_ok(dev, slba, nlb))
		return NVME_SC_LBA_RANGE | NVME_STATUS_DNR;
	if (len > (SZ_4K << NVMEV_MDTS))
		return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	status = nvmev_prp_copy(dev, cmd, dev->storage + off, len, !write);
	if (status)
		return status;
	if (write) {
		dev->smart_host_writes++;
		dev->smart_units_written += nlb << (dev->lba_shift - 9);
	} else {
		dev->smart_host_reads++;
		dev->smart_units_read += nlb << (dev->lba_shift - 9);
	}
	c.op = write ? FTL_OP_WRITE : FTL_OP_READ;
	decode_hint(dev, cmd, &c);
	return model_cmd(dev, &c, due);
}

static u16 write_zeroes(struct nvmev_dev *dev, struct nvme_command *cmd,
			u64 *due)
{
	u64 slba = le64_to_cpu(cmd->write_zeroes.slba);
	u64 nlb = (u64)le16_to_cpu(cmd->write_zeroes.length) + 1;

	if (!lba_range_ok(dev, slba, nlb))
		return NVME_SC_LBA_RANGE | NVME_STATUS_DNR;
	memset(dev->storage + (slba << dev->lba_shift), 0, nlb << dev->lba_shift);
	return model(dev, FTL_OP_TRIM, slba << dev->lba_shift,
		     nlb << dev->lba_shift, due);
}

static u16 dsm(struct nvmev_dev *dev, struct nvme_command *cmd, u64 *due)
{
	u32 nr = (le32_to_cpu(cmd->dsm.nr) & 0xff) + 1, i;
	struct nvme_dsm_range *ranges;
	u16 status;

	*due = ktime_get_ns();
	if (!(le32_to_cpu(cmd->dsm.attributes) & NVME_DSMGMT_AD))
		return NVME_SC_SUCCESS;		/* access hints only */
	ranges = kmalloc_array(nr, sizeof(*ranges), GFP_KERNEL);
	if (!ranges)
		return NVME_SC_INTERNAL;
	status = nvmev_prp_copy(dev, cmd, ranges, nr * sizeof(*ranges), false);
	for (i = 0; !status && i < nr; i++) {
		if (!lba_range_ok(dev, le64_to_cpu(ranges[i].slba),
				  le32_to_cpu(ranges[i].nlb)))
			status = NVME_SC_LBA_RANGE | NVME_STATUS_DNR;
	}
	/* validate every range before deallocating any */
	for (i = 0; !status && i < nr; i++) {
		u64 off = le64_to_cpu(ranges[i].slba) << dev->lba_shift;
		u64 len = (u64)le32_to_cpu(ranges[i].nlb) << dev->lba_shift;
		u64 t;

		if (!len)
			continue;
		memset(dev->storage + off, 0, len);
		status = model(dev, FTL_OP_TRIM, off, len, &t);
		*due = max(*due, t);
	}
	kfree(ranges);
	return status;
}

void nvmev_io_execute(struct nvmev_dev *dev, u16 sqid, struct nvme_command *cmd)
{
	u32 nsid = le32_to_cpu(cmd->common.nsid);
	u8 opcode = cmd->common.opcode;
	u64 due = 0;
	u16 status;

	dev->stats.io_cmds[opcode]++;
	if (cmd->common.flags & NVME_CMD_SGL_ALL) {
		status = NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	} else if (nsid != NVMEV_NSID &&
		   !(opcode == nvme_cmd_flush && nsid == NVME_NSID_ALL)) {
		status = NVME_SC_INVALID_NS | NVME_STATUS_DNR;
	} else {
		switch (opcode) {
		case nvme_cmd_read:
		case nvme_cmd_write:
			status = rw(dev, cmd, &due);
			break;
		case nvme_cmd_flush:
			status = model(dev, FTL_OP_FLUSH, 0, 0, &due);
			break;
		case nvme_cmd_write_zeroes:
			status = write_zeroes(dev, cmd, &due);
			break;
		case nvme_cmd_dsm:
			status = dsm(dev, cmd, &due);
			break;
		default:
			status = NVME_SC_INVALID_OPCODE | NVME_STATUS_DNR;
			break;
		}
	}
	if (status)
		dev->stats.io_errors++;
	nvmev_complete(dev, sqid, cmd->common.command_id, status, 0,
		       due ? due : ktime_get_ns());
}
