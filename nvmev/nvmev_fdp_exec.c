// SPDX-License-Identifier: GPL-2.0
/*
 * Flexible Data Placement's handlers: what moves data between the host
 * and the flash model's reclaim units. Fields were checked by
 * nvmev_fdp.c; the model is read and changed under its lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/slab.h>

#include "nvmev.h"
#include "nvmev_fdp.h"

/*
 * A namespace's placement handles as configured (configfs
 * placement_handles), checked against the drive it is on.
 */
static int nvmev_fdp_ns_handles(struct nvmev_dev *dev, u32 nsid,
				const struct nvmev_ns_conf *c)
{
	struct nvmev_ns *n = &dev->ns.ns[nsid - 1];
	u32 k;

	if (!dev->ns.fdp.ruhs) {
		pr_err("%snamespace %u: placement_handles needs a drive with FDP (fdp_ruhs > 0)\n",
		       dev->tag, nsid);
		return -EINVAL;
	}
	if (n->csi == NVME_CSI_ZNS) {
		pr_err("%snamespace %u: a zoned namespace's zones place its data: leave placement_handles empty\n",
		       dev->tag, nsid);
		return -EINVAL;
	}
	for (k = 0; k < c->nphndls; k++) {
		if (c->phndl[k] >= dev->ns.fdp.ruhs) {
			pr_err("%snamespace %u: placement_handles names handle %u, the drive has %u (fdp_ruhs)\n",
			       dev->tag, nsid, c->phndl[k], dev->ns.fdp.ruhs);
			return -EINVAL;
		}
		n->phndl[k] = c->phndl[k];
	}
	n->nphndls = c->nphndls;
	return 0;
}

/*
 * Every namespace of an FDP drive but a zoned one uses every handle
 * unless its configuration lists some: placement handle i is handle i,
 * up to what Linux reads.
 */
int nvmev_fdp_setup(struct nvmev_dev *dev, const struct nvmev_drive_conf *conf)
{
	struct nvmev_ns_view *v = &dev->ns;
	u32 i, k;
	int ret;

	nvmev_fdp_conf_init(&v->fdp, dev->ftl);
	for (i = 0; i < v->nn; i++) {
		struct nvmev_ns *n = &v->ns[i];

		n->nphndls = 0;
		if (conf && conf->ns[i].nphndls) {
			ret = nvmev_fdp_ns_handles(dev, i + 1, &conf->ns[i]);
			if (ret)
				return ret;
			continue;
		}
		if (!v->fdp.ruhs || !n->nsze || n->csi == NVME_CSI_ZNS)
			continue;
		n->nphndls = min_t(u32, v->fdp.ruhs, NVMEV_FDP_MAX_PHNDLS);
		for (k = 0; k < n->nphndls; k++)
			n->phndl[k] = k;
	}
	/* the host turns the events it wants on (Set Features 1Eh) */
	for (k = 0; k < v->fdp.ruhs; k++)
		for (i = 0; i < nvmev_fdp_nr_event_types; i++)
			ftl_fdp_event_enable(dev->ftl, k,
					     nvmev_fdp_event_types[i], false);
	return 0;
}

/* the host's buffer may end inside a descriptor: it gets what fits */
u16 nvmev_fdp_mgmt_recv(struct nvmev_dev *dev, u16 sqid,
			struct nvmev_io_req *req, u64 *due)
{
	u32 size = nvmev_fdp_ruh_status_size(&dev->ns, req->ns);
	u8 *buf;
	u16 status;

	if (req->mo == NVMEV_IO_MGMT_NONE)
		return NVME_SC_SUCCESS;
	buf = kvzalloc(max(size, req->xfer), GFP_KERNEL);
	if (!buf)
		return NVME_SC_INTERNAL;
	mutex_lock(&dev->model_lock);
	nvmev_fdp_ruh_status(dev->ftl, &dev->ns, req->ns, buf);
	mutex_unlock(&dev->model_lock);
	status = nvmev_prp_copy(dev, req->prp1, req->prp2, buf, req->xfer, true);
	kvfree(buf);
	return status;
}

/*
 * RUH Update: each PID's handle moves to a fresh reclaim unit. Every PID
 * is checked first: a bad one fails the command with no handle moved.
 */
u16 nvmev_fdp_mgmt_send(struct nvmev_dev *dev, u16 sqid,
			struct nvmev_io_req *req, u64 *due)
{
	u32 n = req->npids, i;
	u16 *ruh, *rg, status;
	u8 *pids;

	if (req->mo == NVMEV_IO_MGMT_NONE)
		return NVME_SC_SUCCESS;
	pids = kzalloc(2 * n, GFP_KERNEL);
	/* each PID's handle, then its reclaim group */
	ruh = kmalloc_array(2 * n, sizeof(*ruh), GFP_KERNEL);
	status = NVME_SC_INTERNAL;
	if (!pids || !ruh)
		goto out;
	rg = ruh + n;
	status = nvmev_prp_copy(dev, req->prp1, req->prp2, pids, 2 * n, false);
	if (!status)
		status = nvmev_fdp_update_check(&dev->ns, req->ns, pids, n, ruh, rg);
	if (status)
		goto out;
	mutex_lock(&dev->model_lock);
	for (i = 0; i < n; i++)
		ftl_fdp_update(dev->ftl, rg[i], ruh[i], ktime_get_ns());
	mutex_unlock(&dev->model_lock);
out:
	kfree(ruh);
	kfree(pids);
	return status;
}

void nvmev_fdp_write_done(struct nvmev_dev *dev,
			  const struct nvmev_io_req *req)
{
	if (!req->pid_invalid)
		return;
	mutex_lock(&dev->model_lock);
	ftl_fdp_event_invalid_pid(dev->ftl, req->model.fdp_ruh, req->pid,
				  req->nsid, ktime_get_ns());
	mutex_unlock(&dev->model_lock);
}

/*
 * FDP Events of a placement handle. Get: a descriptor (type, enabled)
 * per event type the drive records, at most NOET, their number in DW0.
 * Set: the NOET types in the data, each one the drive records.
 */
u16 nvmev_feat_fdp_events(struct nvmev_dev *dev,
			  const struct nvmev_admin_req *req, u32 *result)
{
	const struct nvmev_ns *n = nvmev_ns_get(&dev->ns, req->nsid);
	u32 ruh = n->phndl[req->phndl], i;
	u8 buf[2 * 255] = { 0 };
	bool on = req->cdw12 & 1;
	u16 status;

	if (req->opcode == nvme_admin_get_features) {
		u32 nr = min_t(u32, req->noet, nvmev_fdp_nr_event_types);

		mutex_lock(&dev->model_lock);
		for (i = 0; i < nr; i++) {
			buf[2 * i] = nvmev_fdp_event_types[i];
			buf[2 * i + 1] = ftl_fdp_event_enabled(dev->ftl, ruh,
							       buf[2 * i]);
		}
		mutex_unlock(&dev->model_lock);
		*result = nr;
		return nvmev_prp_copy(dev, req->prp1, req->prp2, buf,
				      2 * req->noet, true);
	}
	status = nvmev_prp_copy(dev, req->prp1, req->prp2, buf, req->noet, false);
	if (status)
		return status;
	for (i = 0; i < req->noet; i++)
		if (!ftl_fdp_event_supported(buf[i]))
			return NVME_SC_INVALID_FIELD | NVME_STATUS_DNR;
	mutex_lock(&dev->model_lock);
	for (i = 0; i < req->noet; i++)
		ftl_fdp_event_enable(dev->ftl, ruh, buf[i], on);
	mutex_unlock(&dev->model_lock);
	return NVME_SC_SUCCESS;
}

u16 nvmev_fdp_log_page(struct nvmev_dev *dev,
		       const struct nvmev_admin_req *req, u8 *page)
{
	struct ftl_fdp_event *ev;

	ev = kmalloc_array(FTL_FDP_EVENTS, sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return NVME_SC_INTERNAL;
	mutex_lock(&dev->model_lock);
	nvmev_fdp_log(dev->ftl, &dev->ns, req, dev->power_on_ns, ev, page);
	mutex_unlock(&dev->model_lock);
	kfree(ev);
	return NVME_SC_SUCCESS;
}
