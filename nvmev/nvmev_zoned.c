// SPDX-License-Identifier: GPL-2.0
/*
 * The Zoned Namespace command set (NVMe ZNS 1.1), the kernel side: the
 * handlers of the I/O command table's zoned rows (nvmev_cmd.c), Read,
 * Write and Write Zeroes of a zoned namespace with its zones' rules, Zone
 * Append, Zone Management Send and Receive, and the zones made with the
 * drive. The zones' states and limits are the portable state machine's
 * (nvmev_zone_state.c, which calls nothing here); this file moves the
 * data through nvmev_io.c's helpers, asks the flash model for the time,
 * and lets the store's pages of a reset zone go. The namespace's slice of
 * the drive's flash is a zoned region of the model (ftl/ftl_zone.c): each
 * zone writes over zone_width dies, onto erase blocks of its own as far
 * as its share of a die fills them whole and the rest into the die's
 * shared blocks; a reset erases and frees them, a finish programs what
 * the zone still buffers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "nvmev.h"

/* units of a reset zone whose pages are let go between reschedules */
#define NVMEV_ZONE_DROP_SLICE	4096

static u64 nvmev_slba(const struct nvmev_io_req *req)
{
	return (req->model.off - req->ns->base) >> req->ns->lba_shift;
}

static u64 nvmev_nlb(const struct nvmev_io_req *req)
{
	return req->model.len >> req->ns->lba_shift;
}

/*
 * The field a zone's refusal names: SLBA for a write not at the write
 * pointer (an append: not at its zone's start), NLB for one past what the
 * zone has left. The zone's state (full, read-only, offline) or the
 * open and active limits are no field's fault.
 */
static u16 nvmev_zoned_error_loc(u16 status)
{
	switch (status & 0x7ff) {
	case NVME_SC_INVALID_FIELD:
	case NVME_SC_ZONE_INVALID_WRITE:
		return nvmev_err_loc(10, 0);
	case NVME_SC_ZONE_BOUNDARY_ERROR:
		return nvmev_err_loc(12, 0);
	default:
		return NVMEV_ERR_LOC_NONE;
	}
}

/* may a Read, Write or append go ahead (*@lba: where it writes) */
static u16 nvmev_zoned_check(struct nvmev_dev *dev, struct nvmev_io_req *req,
			     u64 *lba)
{
	struct nvmev_zns *z = dev->zns[req->nsid - 1];
	u16 status;

	if (req->opcode == nvme_cmd_read)
		status = nvmev_zns_read_check(z, nvmev_slba(req), nvmev_nlb(req));
	else
		status = nvmev_zns_write_check(z, nvmev_slba(req), nvmev_nlb(req),
					       req->opcode == nvme_cmd_zone_append,
					       lba);
	if (status)
		req->error_loc = nvmev_zoned_error_loc(status);
	return status;
}

/* ... and, written, its zone's write pointer moves */
static void nvmev_zoned_commit(struct nvmev_dev *dev,
			       const struct nvmev_io_req *req, u64 lba)
{
	if (req->opcode != nvme_cmd_read)
		nvmev_zns_write_commit(dev->zns[req->nsid - 1], lba,
				       nvmev_nlb(req));
}

/* a Read or Write of a zoned namespace keeps its zones' rules */
u16 nvmev_zoned_rw(struct nvmev_dev *dev, u16 sqid,
		   struct nvmev_io_req *req, u64 *due)
{
	u64 lba = 0;
	u16 status;

	status = nvmev_zoned_check(dev, req, &lba);
	if (status)
		return status;
	status = nvmev_io_data(dev, req, req->opcode == nvme_cmd_write, due);
	if (!status)
		nvmev_zoned_commit(dev, req, lba);
	return status;
}

/* a Write Zeroes of a zoned namespace: a write of zeroes at the pointer */
u16 nvmev_zoned_write_zeroes(struct nvmev_dev *dev, u16 sqid,
			     struct nvmev_io_req *req, u64 *due)
{
	struct nvmev_trim t;
	u64 lba = 0;
	u16 status;

	status = nvmev_zoned_check(dev, req, &lba);
	if (status)
		return status;
	nvmev_io_zeroes_begin(dev, sqid, req, &t);
	if (!t.status)
		nvmev_zoned_commit(dev, req, lba);
	return nvmev_io_zeroes_run(dev, &t);
}

/*
 * Zone Append: a Write at the zone's write pointer, whose LBA the
 * completion's dwords 0-1 carry. Completed here, for that result.
 */
u16 nvmev_zone_append(struct nvmev_dev *dev, u16 sqid,
		      struct nvmev_io_req *req, u64 *due)
{
	struct nvmev_io_req w = *req;
	u64 lba;
	u16 status;

	status = nvmev_zoned_check(dev, req, &lba);
	if (status)
		return status;
	w.model.off = req->ns->base + (lba << req->ns->lba_shift);
	status = nvmev_io_data(dev, &w, true, due);
	if (status)
		return status;
	nvmev_zoned_commit(dev, req, lba);
	nvmev_ctrl_complete(&dev->ctrl, sqid, req->cid, NVME_SC_SUCCESS, lba,
			    *due);
	return NVMEV_SC_HELD;
}

struct nvmev_flash_ctx {
	struct nvmev_dev *dev;
	const struct nvmev_ns *ns;
	u64 due;
};

/*
 * A zone's flash: a reset erases its blocks (the model deallocates its
 * units, the store lets their pages go), a finish programs its buffered
 * data. The action completes when the flash is done.
 */
static void nvmev_zone_flash(void *arg, u8 zsa, u64 zslba)
{
	struct nvmev_flash_ctx *ctx = arg;
	struct nvmev_dev *dev = ctx->dev;
	u64 off = ctx->ns->base + (zslba << ctx->ns->lba_shift);
	u64 units = 1ull << (ctx->ns->zone_shift + ctx->ns->lba_shift - FTL_MAP_SHIFT);
	u64 due, n;

	mutex_lock(&dev->model_lock);
	if (zsa == NVME_ZONE_RESET)
		ftl_zone_reset(dev->ftl, off, ktime_get_ns(), &due);
	else
		ftl_zone_finish(dev->ftl, off, ktime_get_ns(), &due);
	mutex_unlock(&dev->model_lock);
	ctx->due = max(ctx->due, due);
	if (zsa != NVME_ZONE_RESET)
		return;
	for (off >>= FTL_MAP_SHIFT; units; off += n, units -= n) {
		n = min_t(u64, units, NVMEV_ZONE_DROP_SLICE);
		nvmev_store_drop(dev, off, n);
		cond_resched();
	}
}

u16 nvmev_zone_mgmt_send(struct nvmev_dev *dev, u16 sqid,
			 struct nvmev_io_req *req, u64 *due)
{
	struct nvmev_flash_ctx ctx = { dev, req->ns, ktime_get_ns() };
	u16 status;

	status = nvmev_zns_manage(dev->zns[req->nsid - 1], req->zsa, req->slba,
				  req->zone_all, nvmev_zone_flash, &ctx);
	*due = ctx.due;
	/* an action the zones do not have: ZSA; a transition: the zone's state */
	if ((status & 0x7ff) == NVME_SC_INVALID_FIELD)
		req->error_loc = nvmev_err_loc(13, 0);
	return status;
}

u16 nvmev_zone_mgmt_recv(struct nvmev_dev *dev, u16 sqid,
			 struct nvmev_io_req *req, u64 *due)
{
	u8 *buf = kvzalloc(req->xfer, GFP_KERNEL);
	u16 status;

	if (!buf)
		return NVME_SC_INTERNAL;
	nvmev_zns_report(dev->zns[req->nsid - 1], req->slba, req->zrasf,
			 req->partial, buf, req->xfer);
	status = nvmev_prp_copy(dev, req->prp1, req->prp2, buf, req->xfer, true);
	kvfree(buf);
	return status;
}

/*
 * The zones of namespace @nsid (laid out: nvmev_drive.c), as @conf sets
 * them: its size is whole zones of zone_mib, each writable for
 * zone_cap_mib (0: all of it) over zone_width dies (0: all), with the
 * open and active limits.
 */
int nvmev_zoned_create(struct nvmev_dev *dev, u32 nsid,
		       const struct nvmev_ns_conf *conf)
{
	struct nvmev_ns *ns = &dev->ns.ns[nsid - 1];
	u64 zone_mib = conf->zone_mib ?: NVMEV_ZONE_MIB;
	u64 cap_mib = conf->zone_cap_mib ?: zone_mib;
	u64 ns_mib = (ns->nsze << ns->lba_shift) >> 20;
	u32 dies = ftl_get_geometry(dev->ftl)->dies;
	char err[FTL_ERRMSG_LEN];
	struct nvmev_zns *z;
	int ret;

	if (!is_power_of_2(zone_mib) || zone_mib > ns_mib) {
		pr_err("%snamespace %u: zone_mib=%llu must be a power of two, at most the namespace's %llu MiB\n",
		       dev->tag, nsid, zone_mib, ns_mib);
		return -EINVAL;
	}
	if (cap_mib > zone_mib) {
		pr_err("%snamespace %u: zone_cap_mib=%llu is more than zone_mib=%llu\n",
		       dev->tag, nsid, cap_mib, zone_mib);
		return -EINVAL;
	}
	if (conf->zone_width < 0 || conf->zone_width > dies) {
		pr_err("%snamespace %u: zone_width=%d must be 1 to the drive's %u dies (0: all of them)\n",
		       dev->tag, nsid, conf->zone_width, dies);
		return -EINVAL;
	}
	if (conf->max_open < 0 || conf->max_active < 0 ||
	    (conf->max_active && conf->max_open > conf->max_active)) {
		pr_err("%snamespace %u: max_open=%d and max_active=%d: neither negative, open at most active (0: no limit)\n",
		       dev->tag, nsid, conf->max_open, conf->max_active);
		return -EINVAL;
	}
	z = kzalloc(sizeof(*z), GFP_KERNEL);
	if (!z)
		return -ENOMEM;
	z->zone_shift = ilog2(zone_mib << 20 >> ns->lba_shift);
	z->nr_zones = ns_mib / zone_mib;
	z->zcap = cap_mib << 20 >> ns->lba_shift;
	z->max_open = conf->max_open;
	z->max_active = conf->max_active;
	z->zones = kvcalloc(z->nr_zones, sizeof(*z->zones), GFP_KERNEL);
	if (!z->zones) {
		kfree(z);
		return -ENOMEM;
	}
	nvmev_zns_init(z);
	ret = ftl_zoned_add(dev->ftl, ns->base, zone_mib << 20, cap_mib << 20,
			    z->nr_zones, conf->zone_width ?: dies, err, sizeof(err));
	if (ret) {
		pr_err("%snamespace %u: %s\n", dev->tag, nsid, err);
		kvfree(z->zones);
		kfree(z);
		return ret;
	}
	/* whole zones: a tail smaller than a zone is not the namespace's */
	ns->nsze = (u64)z->nr_zones << z->zone_shift;
	ns->zone_shift = z->zone_shift;
	ns->csi = NVME_CSI_ZNS;
	dev->zns[nsid - 1] = z;
	return 0;
}

void nvmev_zoned_destroy(struct nvmev_dev *dev)
{
	u32 i;

	for (i = 0; i < NVMEV_MAX_NS; i++) {
		if (!dev->zns[i])
			continue;
		kvfree(dev->zns[i]->zones);
		kfree(dev->zns[i]);
		dev->zns[i] = NULL;
	}
}
