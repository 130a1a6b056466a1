// SPDX-License-Identifier: GPL-2.0
/*
 * One drive's life: from a configuration (the module parameters for the
 * drive made at load, a configfs directory's attributes for the others,
 * nvmev_configfs.c) to a running controller on its own PCI domain, and
 * back. Creation checks every value, builds the flash model, claims the
 * registers' memory, starts the controller thread and plugs the PCIe
 * function in, where the stock nvme driver finds it; a failure undoes
 * whatever was done, in reverse order, and so does destruction.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include "nvmev.h"
#include "nvmev_fdp.h"

/* the range of each nvmev_params.h row, as the load checks it */
static const struct nvmev_param_range {
	const char *name;
	size_t offset;			/* of the int in struct nvmev_params */
	int min, max;
} nvmev_param_ranges[] = {
#define NVMEV_PARAM_RANGE(name, def, min, max, desc)			\
	{ #name, offsetof(struct nvmev_params, name), min, max },
	NVMEV_PARAMS(NVMEV_PARAM_RANGE)
#undef NVMEV_PARAM_RANGE
};

static int nvmev_parse_size(const char *name, const char *s, u64 *out)
{
	char *end;

	if (!s || !*s) {
		pr_err("%s is missing: memmap_start and memmap_size name a memmap=SIZE$START reservation together (neither: no reservation needed)\n",
		       name);
		return -EINVAL;
	}
	*out = memparse(s, &end);
	if (*end) {
		pr_err("%s=%s is not a size (use e.g. 1G or 512M)\n", name, s);
		return -EINVAL;
	}
	return 0;
}

/*
 * Where the registers (and maybe the data) live: a memmap= reservation
 * named by both memmap_* parameters, or with neither a memory block taken
 * at load (nvmev_bar_mem.c) and the data in kernel pages.
 */
static int nvmev_check_memmap(struct nvmev_dev *dev,
			      const struct nvmev_drive_conf *conf)
{
	const char *memmap_start = conf->memmap_start;
	const char *memmap_size = conf->memmap_size;
	int ret;

	dev->memmap_start_arg = memmap_start;
	dev->memmap_size_arg = memmap_size;
	if (!memmap_start && !memmap_size) {
		dev->block = true;
		dev->paged = true;
		return 0;
	}
	ret = nvmev_parse_size("memmap_start", memmap_start, &dev->memmap_start);
	if (ret)
		return ret;
	ret = nvmev_parse_size("memmap_size", memmap_size, &dev->memmap_size);
	if (ret)
		return ret;
	if (!IS_ALIGNED(dev->memmap_start, SZ_1M) || !dev->memmap_start) {
		pr_err("memmap_start=%s must be a non-zero multiple of 1 MiB\n",
		       memmap_start);
		return -EINVAL;
	}
	if (!IS_ALIGNED(dev->memmap_size, SZ_1M) || !dev->memmap_size ||
	    dev->memmap_start + dev->memmap_size < dev->memmap_start) {
		pr_err("memmap_size=%s must be a non-zero multiple of 1 MiB\n",
		       memmap_size);
		return -EINVAL;
	}
	/* the register area alone: the data goes to kernel pages */
	dev->paged = dev->memmap_size == NVMEV_STORAGE_OFFSET;
	return 0;
}

/* Check the module's own parameters (the model checks its table). */
static int nvmev_check_params(struct nvmev_dev *dev,
			      const struct nvmev_drive_conf *conf)
{
	const struct nvmev_params *p = &conf->params;
	unsigned int i;
	int ret;

	ret = nvmev_check_memmap(dev, conf);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(nvmev_param_ranges); i++) {
		const struct nvmev_param_range *r = &nvmev_param_ranges[i];
		int v = *(const int *)((const u8 *)p + r->offset);

		if (v < r->min || v > r->max) {
			pr_err("%s=%d is out of range [%d, %d]\n", r->name, v,
			       r->min, r->max);
			return -EINVAL;
		}
	}
	if (!NVMEV_LBA_BYTES_OK(p->lba_bytes)) {
		pr_err("lba_bytes=%d must be %d or %d\n", p->lba_bytes,
		       NVMEV_MIN_lba_bytes, NVMEV_MAX_lba_bytes);
		return -EINVAL;
	}
	if (p->cpu >= 0 && (p->cpu >= nr_cpu_ids || !cpu_online(p->cpu))) {
		pr_err("cpu=%d is not an online CPU (or -1)\n", p->cpu);
		return -EINVAL;
	}
	if (p->data_max_mib && !dev->paged) {
		pr_err("data_max_mib=%d caps page-backed data, but memmap_size=%s holds the data: use memmap_size=1M or neither memmap_* parameter, or drop data_max_mib\n",
		       p->data_max_mib, conf->memmap_size);
		return -EINVAL;
	}
	dev->params = *p;
	dev->sysdata.domain = p->pci_domain;
	return 0;
}

/*
 * The namespaces' slices of the drive's @cap bytes, in NSID order, each
 * starting on a MiB: the sized ones, and the one of size 0 (at most one)
 * what they leave. No namespace given: one of the whole drive.
 */
static int nvmev_layout_namespaces(struct nvmev_dev *dev,
				   const struct nvmev_drive_conf *conf, u64 cap)
{
	const struct nvmev_ns_conf *rest = NULL;
	u64 sized = 0, base = 0, bytes;
	int ret;
	u32 i;

	for (i = 0; i < NVMEV_MAX_NS; i++) {
		const struct nvmev_ns_conf *c = &conf->ns[i];

		if (!c->present)
			continue;
		dev->ns.nn = i + 1;
		if (c->zoned != 0 && c->zoned != 1) {
			pr_err("%snamespace %u: zoned=%d must be 0 or 1\n",
			       dev->tag, i + 1, c->zoned);
			return -EINVAL;
		}
		if (c->size_mib > cap >> 20) {
			pr_err("%snamespace %u: size_mib=%llu is more than the drive's %llu MiB\n",
			       dev->tag, i + 1, c->size_mib, cap >> 20);
			return -ENOSPC;
		}
		if (!c->size_mib && rest) {
			pr_err("%snamespaces %u and %u both have size_mib=0 (the rest of the drive): size one of them\n",
			       dev->tag, (u32)(rest - conf->ns) + 1, i + 1);
			return -EINVAL;
		}
		sized += c->size_mib;
		if (!c->size_mib)
			rest = c;
	}
	if (!dev->ns.nn) {
		dev->ns.nn = 1;
		dev->ns.ns[0].lba_shift = ilog2(dev->params.lba_bytes);
		dev->ns.ns[0].nsze = cap >> dev->ns.ns[0].lba_shift;
		return 0;
	}
	if (sized > cap >> 20 || (rest && sized == cap >> 20)) {
		pr_err("%sthe namespaces need %llu MiB%s, more than the drive's %llu MiB: make them smaller, or the drive larger\n",
		       dev->tag, sized + !!rest, rest ? " or more" : "",
		       cap >> 20);
		return -ENOSPC;
	}
	for (i = 0; i < dev->ns.nn; i++) {
		const struct nvmev_ns_conf *c = &conf->ns[i];
		struct nvmev_ns *ns = &dev->ns.ns[i];

		if (!c->present)
			continue;
		bytes = (c->size_mib ?: (cap >> 20) - sized) << 20;
		ns->lba_shift = ilog2(c->lba_bytes ?: dev->params.lba_bytes);
		ns->base = base;
		ns->nsze = bytes >> ns->lba_shift;
		base += bytes;
		ret = c->zoned ? nvmev_zoned_create(dev, i + 1, c) : 0;
		if (ret) {
			nvmev_zoned_destroy(dev);
			return ret;
		}
	}
	return 0;
}

static int nvmev_create_model(struct nvmev_dev *dev,
			      const struct nvmev_drive_conf *conf)
{
	char err[FTL_ERRMSG_LEN];
	u64 cap, avail;
	int ret;

	/* block mode knows its block only after nvmev_bar_mem_claim(): paged */
	if (!dev->paged)
		dev->storage_bytes = dev->memmap_size - NVMEV_STORAGE_OFFSET;
	if (!dev->cfg.capacity_mib && !dev->cfg.blocks_per_plane)
		dev->cfg.capacity_mib = dev->paged ? NVMEV_PAGED_CAPACITY_MIB :
				      dev->storage_bytes >> 20;
	/*
	 * The model's tables are the part of a sparse drive that is not
	 * sparse: refuse a drive whose tables would take more than half of
	 * the memory the kernel has, rather than run it out of memory.
	 */
	ret = ftl_metadata_bytes(&dev->cfg, &dev->metadata_bytes, err,
				 sizeof(err));
	if (ret) {
		pr_err("%s\n", err);
		return ret;
	}
	avail = si_mem_available() << PAGE_SHIFT;
	if (dev->metadata_bytes > avail / 2) {
		pr_err("the flash model's tables need %llu MiB, more than half of the %llu MiB the kernel has available: lower capacity_mib or blocks_per_plane\n",
		       dev->metadata_bytes >> 20, avail >> 20);
		return -ENOMEM;
	}
	ret = ftl_create(&dev->cfg, &dev->ftl, err, sizeof(err));
	if (ret) {
		pr_err("%s\n", err);
		return ret;
	}
	cap = ftl_capacity_bytes(dev->ftl);
	if (!dev->paged && cap > dev->storage_bytes) {
		pr_err("capacity of %llu MiB does not fit memmap_size=%s (%llu MiB after the 1 MiB register area)\n",
		       cap >> 20, dev->memmap_size_arg, dev->storage_bytes >> 20);
		ret = -EINVAL;
		goto err_model;
	}
	ret = nvmev_layout_namespaces(dev, conf, cap);
	if (ret)
		goto err_model;
	/*
	 * every NSID a Namespace Management create may take, the flash it
	 * shares out and the LBA format it gives (nvmev_nsmgmt.c)
	 */
	dev->ns.nn = NVMEV_MAX_NS;
	dev->ns.flash_bytes = cap;
	dev->ns.lba_shift = ilog2(dev->params.lba_bytes);
	ret = nvmev_fdp_setup(dev, conf);
	if (ret) {
		nvmev_zoned_destroy(dev);
		goto err_model;
	}
	dev->ns.hints_supported = dev->cfg.hints;
	return 0;

err_model:
	ftl_destroy(dev->ftl);
	dev->ftl = NULL;
	return ret;
}

/*
 * Where the data lives: the reservation after its register area, or
 * kernel pages up to data_max_mib (by default half of what the kernel
 * has available now: the host keeps the rest).
 */
static int nvmev_create_store(struct nvmev_dev *dev)
{
	u64 max_pages;

	if (!dev->paged) {
		dev->storage = memremap(dev->memmap_start + NVMEV_STORAGE_OFFSET,
					dev->storage_bytes, MEMREMAP_WB);
		if (!dev->storage) {
			pr_err("cannot map the data area of memmap_size=%s\n",
			       dev->memmap_size_arg);
			return -ENOMEM;
		}
		nvmev_store_init_linear(dev, dev->storage);
		return 0;
	}
	if (dev->params.data_max_mib)
		max_pages = (u64)dev->params.data_max_mib << (20 - FTL_MAP_SHIFT);
	else
		max_pages = (si_mem_available() << PAGE_SHIFT >> FTL_MAP_SHIFT) / 2;
	nvmev_store_init_pages(dev, max_pages);
	return 0;
}

static void nvmev_destroy_store(struct nvmev_dev *dev)
{
	nvmev_store_exit(dev);
	if (dev->storage)
		memunmap(dev->storage);
	dev->storage = NULL;
}

/* namespaces made in configfs: one line each, if there are several */
static void nvmev_log_namespaces(struct nvmev_dev *dev)
{
	u32 i, n = 0;

	for (i = 0; i < dev->ns.nn; i++)
		n += !!dev->ns.ns[i].nsze;
	for (i = 0; i < dev->ns.nn && n > 1; i++) {
		const struct nvmev_ns *ns = &dev->ns.ns[i];

		if (ns->nsze)
			pr_info("%snamespace %u: %llu MiB at %llu MiB of the flash, %u-byte LBAs\n",
				dev->tag, i + 1, (ns->nsze << ns->lba_shift) >> 20,
				ns->base >> 20, 1u << ns->lba_shift);
	}
}

int nvmev_drive_create(const struct nvmev_drive_conf *conf,
		       struct nvmev_dev **out)
{
	const struct ftl_geometry *g;
	struct nvmev_dev *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	strscpy(dev->name, conf->name, sizeof(dev->name));
	strscpy(dev->tag, conf->tag, sizeof(dev->tag));
	dev->cfg = conf->cfg;
	mutex_init(&dev->model_lock);
	dev->power_on_ns = ktime_get_ns();

	ret = nvmev_check_params(dev, conf);
	if (ret)
		goto err_free;
	/*
	 * The model first: a bad geometry is refused before a memory block
	 * is taken from the kernel (slow, and on 6.1 it comes back offline).
	 */
	ret = nvmev_create_model(dev, conf);
	if (ret)
		goto err_free;
	ret = nvmev_bar_mem_claim(dev);
	if (ret)
		goto err_model;

	/*
	 * The register page is mapped uncached like the host driver maps its
	 * BAR (one memory type per page); the data area is ordinary memory.
	 */
	dev->bar = ioremap(dev->memmap_start, NVMEV_BAR_SIZE);
	if (!dev->bar) {
		pr_err("cannot map the register area at %#llx\n",
		       dev->memmap_start);
		ret = -ENOMEM;
		goto err_claim;
	}
	ret = nvmev_create_store(dev);
	if (ret)
		goto err_bar;

	ret = nvmev_host_init(dev);
	if (ret)
		goto err_storage;
	nvmev_debugfs_init(dev);
	ret = nvmev_worker_start(dev);
	if (ret)
		goto err_debugfs;
	ret = nvmev_pci_create(dev);
	if (ret)
		goto err_worker;

	g = ftl_get_geometry(dev->ftl);
	pr_info("%s%llu MiB (%s), %u-byte LBAs, %u dies on %u channels, granularity %u KiB, stripe %llu KiB, time_scale %llu, PCI domain %04x\n",
		dev->tag, ftl_capacity_bytes(dev->ftl) >> 20,
		dev->paged ? "data in kernel pages" : "data in memmap",
		1u << nvmev_ns_first(&dev->ns)->lba_shift,
		g->dies, g->channels, g->gran_units * 4, g->stripe_bytes >> 10,
		g->time_scale, dev->sysdata.domain);
	nvmev_log_namespaces(dev);
	*out = dev;
	return 0;

err_worker:
	nvmev_worker_stop(dev);
err_debugfs:
	nvmev_debugfs_exit(dev);
	nvmev_host_exit(dev);
err_storage:
	nvmev_destroy_store(dev);
err_bar:
	iounmap(dev->bar);
err_claim:
	nvmev_bar_mem_release(dev);
err_model:
	nvmev_zoned_destroy(dev);
	ftl_destroy(dev->ftl);
err_free:
	kfree(dev);
	return ret;
}

void nvmev_drive_destroy(struct nvmev_dev *dev)
{
	/*
	 * The nvme driver shuts the controller down through the worker, so
	 * the bus goes first; the worker may still raise an interrupt for
	 * the device it had until it stops, so the device is let go after.
	 */
	nvmev_pci_remove(dev);
	nvmev_worker_stop(dev);
	nvmev_pci_release(dev);
	nvmev_debugfs_exit(dev);
	nvmev_host_exit(dev);
	nvmev_destroy_store(dev);
	iounmap(dev->bar);
	nvmev_zoned_destroy(dev);
	ftl_destroy(dev->ftl);
	nvmev_bar_mem_release(dev);
	if (*dev->tag)
		pr_info("%spowered off\n", dev->tag);
	kfree(dev);
}
