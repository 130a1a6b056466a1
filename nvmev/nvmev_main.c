// SPDX-License-Identifier: GPL-2.0
/*
 * nvmev: a virtual NVMe SSD.
 *
 * This file is the module's entry point. Today it takes the geometry and
 * timing of the drive as module parameters (the table in ftl/ftl_config.h),
 * validates them and builds the flash model in kernel memory; the virtual
 * PCIe NVMe controller on top of it is the next step (issue #3).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ftl.h"

static struct ftl_config nvmev_cfg = {
#define NVMEV_PARAM_DEFAULT(name, def, min, max, desc) .name = (def),
	FTL_CONFIG_PARAMS(NVMEV_PARAM_DEFAULT)
#undef NVMEV_PARAM_DEFAULT
};

#define NVMEV_PARAM(name, def, min, max, desc)				\
	module_param_named(name, nvmev_cfg.name, ullong, 0444);		\
	MODULE_PARM_DESC(name, desc " [default " #def ", " #min ".." #max "]");
FTL_CONFIG_PARAMS(NVMEV_PARAM)
#undef NVMEV_PARAM

static struct ftl *nvmev_ftl;

static int __init nvmev_init(void)
{
	const struct ftl_geometry *g;
	char err[FTL_ERRMSG_LEN];
	int ret;

	ret = ftl_create(&nvmev_cfg, &nvmev_ftl, err, sizeof(err));
	if (ret) {
		pr_err("%s\n", err);
		return ret;
	}
	g = ftl_get_geometry(nvmev_ftl);
	pr_info("model ready: %u dies on %u channels, %llu MiB, granularity %u KiB, stripe %llu KiB, time_scale %llu\n",
		g->dies, g->channels,
		(unsigned long long)(ftl_capacity_bytes(nvmev_ftl) >> 20),
		g->gran_units * 4, (unsigned long long)(g->stripe_bytes >> 10),
		(unsigned long long)g->time_scale);
	return 0;
}

static void __exit nvmev_exit(void)
{
	ftl_destroy(nvmev_ftl);
}

module_init(nvmev_init);
module_exit(nvmev_exit);
MODULE_DESCRIPTION("Virtual NVMe SSD with a flash timing model");
MODULE_LICENSE("GPL");
