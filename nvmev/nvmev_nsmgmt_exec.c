// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace Management and Namespace Attachment carried out (fields
 * checked by nvmev_nsmgmt.c), and what a host learns of them: Identify's
 * allocated namespaces and controller lists, the Changed Namespace List
 * log (04h) and the Namespace Attribute Changed event, so that a host
 * sees an attached namespace appear, and a detached one go, without a
 * reset. All of it runs on the controller thread, as the parser does: no
 * command is ever parsed against a namespace half made or half gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/slab.h>

#include "nvmev.h"
#include "nvmev_nsmgmt.h"

/* a pending event to a held AER, if there is one of each */
static void nvmev_ns_event_post(struct nvmev_dev *dev)
{
	u32 result;

	if (!dev->nr_aers || !nvmev_ns_event_take(dev, &result))
		return;
	nvmev_ctrl_complete(&dev->ctrl, 0, dev->aer_cids[--dev->nr_aers], 0,
			    result, ktime_get_ns());
}

/*
 * A change of namespace @nsid's attachment: listed in log 04h, and told
 * to a host that asked for the notices (feature 0Bh) through a held AER,
 * now or when it sends one. One event until the host reads the log; a
 * change meanwhile is told once it has.
 */
static void nvmev_ns_changed(struct nvmev_dev *dev, u32 nsid)
{
	dev->ns_changed |= BIT(nsid - 1);
	if (!(dev->features[NVME_FEAT_ASYNC_EVENT] & NVMEV_AEC_NS_ATTR))
		return;
	dev->ns_event_pending = true;
	nvmev_ns_event_post(dev);
}

bool nvmev_ns_event_take(struct nvmev_dev *dev, u32 *result)
{
	if (!dev->ns_event_pending || dev->ns_event_masked)
		return false;
	dev->ns_event_pending = false;
	dev->ns_event_masked = true;
	dev->stats.aen_ns_changed++;
	*result = NVMEV_AEN_NS_CHANGED;
	return true;
}

/* the changed NSIDs in increasing order; read without RAE, they are cleared */
void nvmev_changed_ns_log(struct nvmev_dev *dev,
			  const struct nvmev_admin_req *req, u8 *page)
{
	u32 i, n = 0;

	for (i = 0; i < NVMEV_MAX_NS; i++)
		if (dev->ns_changed & BIT(i))
			put_unaligned_le32(i + 1, page + 4 * n++);
	if (req->cdw10 & BIT(15))	/* Retain Asynchronous Event */
		return;
	dev->ns_changed = 0;
	dev->ns_event_masked = false;
	nvmev_ns_event_post(dev);
}

void nvmev_nsmgmt_reset(struct nvmev_dev *dev)
{
	/* the host enables the notices again; what changed stays listed */
	dev->ns_event_pending = false;
	dev->ns_event_masked = false;
}

static void nvmev_ns_attach_set(struct nvmev_dev *dev, u32 nsid, bool attached)
{
	dev->ns.ns[nsid - 1].detached = !attached;
	nvmev_ns_changed(dev, nsid);
}

/*
 * Delete @nsid: detached from the controller if it was attached, its
 * flash deallocated, its slot free for a create.
 */
static void nvmev_ns_delete(struct nvmev_dev *dev, u32 nsid)
{
	struct nvmev_ns *ns = &dev->ns.ns[nsid - 1];
	u64 end = ns->base + (ns->nsze << ns->lba_shift);

	if (!ns->detached)
		nvmev_ns_attach_set(dev, nsid, false);
	nvmev_io_ns_release(dev, nsid, ns->base, end);
	pr_info("%snamespace %u deleted: %llu MiB at %llu MiB of the flash free\n",
		dev->tag, nsid, (end - ns->base) >> 20, ns->base >> 20);
	memset(ns, 0, sizeof(*ns));
	memset(&dev->ns_stats[nsid - 1], 0, sizeof(dev->ns_stats[0]));
}

/* the command's @len bytes of data, from the host into *@buf (kfree it) */
static u16 nvmev_fetch(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		       u32 len, u8 **buf)
{
	*buf = kzalloc(len, GFP_KERNEL);
	if (!*buf)
		return NVME_SC_INTERNAL;
	return nvmev_prp_copy(dev, req->prp1, req->prp2, *buf, len, false);
}

static u16 nvmev_ns_create(struct nvmev_dev *dev, struct nvmev_admin_req *req,
			   u32 *result)
{
	struct nvmev_ns ns;
	u16 status;
	u32 nsid;
	u8 *data;

	status = nvmev_fetch(dev, req, NVMEV_NSM_BYTES, &data);
	if (!status)
		status = nvmev_ns_create_check(&dev->ns, data, &ns, &nsid);
	kfree(data);
	if (status)
		return status;
	dev->ns.ns[nsid - 1] = ns;
	memset(&dev->ns_stats[nsid - 1], 0, sizeof(dev->ns_stats[0]));
	pr_info("%snamespace %u created: %llu MiB at %llu MiB of the flash, %u-byte LBAs, %u placement handles\n",
		dev->tag, nsid, (ns.nsze << ns.lba_shift) >> 20, ns.base >> 20,
		1u << ns.lba_shift, ns.nphndls);
	*result = nsid;
	return NVME_SC_SUCCESS;
}

u16 nvmev_admin_ns_mgmt(struct nvmev_dev *dev, struct nvmev_admin_req *req,
			u32 *result)
{
	u32 nsid;

	if (req->sel == NVMEV_NS_MGMT_CREATE)
		return nvmev_ns_create(dev, req, result);
	if (req->nsid != NVME_NSID_ALL) {
		nvmev_ns_delete(dev, req->nsid);
		return NVME_SC_SUCCESS;
	}
	for (nsid = 1; nsid <= NVMEV_MAX_NS; nsid++)
		if (dev->ns.ns[nsid - 1].nsze)
			nvmev_ns_delete(dev, nsid);
	return NVME_SC_SUCCESS;
}

u16 nvmev_admin_ns_attach(struct nvmev_dev *dev, struct nvmev_admin_req *req,
			  u32 *result)
{
	bool attach = req->sel == NVMEV_NS_ATTACH;
	const struct nvmev_ns *ns = &dev->ns.ns[req->nsid - 1];
	u16 status;
	u8 *list;

	status = nvmev_fetch(dev, req, NVMEV_CTRL_LIST_BYTES, &list);
	if (!status)
		status = nvmev_ctrl_list_check(list);
	kfree(list);
	if (status)
		return status;
	if (attach && !ns->detached)
		return NVMEV_SC_NS_ALREADY_ATTACHED | NVME_STATUS_DNR;
	if (!attach && ns->detached)
		return NVMEV_SC_NS_NOT_ATTACHED | NVME_STATUS_DNR;
	nvmev_ns_attach_set(dev, req->nsid, attach);
	return NVME_SC_SUCCESS;
}

/*
 * CNS 10h: the allocated NSIDs above NSID; 11h: an allocated namespace's
 * Identify Namespace, attached or not; 12h: the controllers it is
 * attached to; 13h: the controllers of the subsystem. A list of
 * controllers is a count and their IDs, from CDW10 CNTID on.
 */
void nvmev_nsmgmt_identify(struct nvmev_dev *dev,
			   const struct nvmev_admin_req *req, u8 *buf)
{
	u16 cntid = req->cdw10 >> 16;
	u32 nsid, n = 0;

	switch (req->cns) {
	case NVMEV_ID_CNS_NS_ALLOC_LIST:
		for (nsid = req->nsid + 1; nsid <= NVMEV_MAX_NS; nsid++)
			if (dev->ns.ns[nsid - 1].nsze)
				put_unaligned_le32(nsid, buf + 4 * n++);
		break;
	case NVMEV_ID_CNS_NS_ALLOC:
		if (req->nsid <= NVMEV_MAX_NS && dev->ns.ns[req->nsid - 1].nsze)
			nvmev_identify_ns(dev, req->nsid, &dev->ns.ns[req->nsid - 1],
					  (struct nvme_id_ns *)buf);
		break;
	case NVMEV_ID_CNS_NS_CTRL_LIST:
		nsid = req->nsid;
		if (nsid <= NVMEV_MAX_NS && dev->ns.ns[nsid - 1].nsze &&
		    !dev->ns.ns[nsid - 1].detached && cntid <= NVMEV_CNTLID) {
			put_unaligned_le16(1, buf);
			put_unaligned_le16(NVMEV_CNTLID, buf + 2);
		}
		break;
	case NVMEV_ID_CNS_CTRL_LIST:
		if (cntid <= NVMEV_CNTLID) {
			put_unaligned_le16(1, buf);
			put_unaligned_le16(NVMEV_CNTLID, buf + 2);
		}
		break;
	}
}
