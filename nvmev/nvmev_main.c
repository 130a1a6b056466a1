// SPDX-License-Identifier: GPL-2.0
/*
 * nvmev: a virtual NVMe SSD.
 *
 * Module parameters give the drive's geometry and timing (the table in
 * ftl/ftl_config.h) and the RAM it lives in: by default a memory block
 * taken from the kernel at load for the registers and kernel pages for
 * the data; or a range hidden from the kernel with memmap=SIZE$START
 * (memmap_start, memmap_size), which holds the registers and, unless it
 * is only their 1 MiB, the data (nvmev_bar_mem.c). Loading creates that
 * drive (nvmev_drive.c) and opens /sys/kernel/config/nvmev, where more
 * drives are made at run time (nvmev_configfs.c), starting from the same
 * values. Unloading removes the drive.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/stringify.h>

#include "nvmev.h"

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

static char *memmap_start;
module_param(memmap_start, charp, 0444);
MODULE_PARM_DESC(memmap_start, "physical start of a memmap= reservation, e.g. 1G; unset (with memmap_size): the registers take a memory block from the kernel and the data lives in kernel pages");
static char *memmap_size;
module_param(memmap_size, charp, 0444);
MODULE_PARM_DESC(memmap_size, "size of the reservation, e.g. 512M; the first MiB holds the controller registers, the rest the data; 1M: the data lives in kernel pages");
static struct nvmev_params nvmev_params = {
#define NVMEV_PARAM_DEFAULT(name, def, min, max, desc) .name = (def),
	NVMEV_PARAMS(NVMEV_PARAM_DEFAULT)
#undef NVMEV_PARAM_DEFAULT
};

#define NVMEV_PARAM(name, def, min, max, desc)				\
	module_param_named(name, nvmev_params.name, int, 0444);		\
	MODULE_PARM_DESC(name, desc " [default " __stringify(def) ", "	\
			 __stringify(min) ".." __stringify(max) "]");
NVMEV_PARAMS(NVMEV_PARAM)
#undef NVMEV_PARAM

static bool default_drive = true;
module_param(default_drive, bool, 0444);
MODULE_PARM_DESC(default_drive, "create the drive the other parameters describe at load; 0: only the drives made in configfs (/sys/kernel/config/nvmev), which start from these parameters' values");

static struct nvmev_dev *nvmev;

/*
 * The load's drive: static because the namespace table makes it too big
 * for a stack frame (kernels built with FRAME_WARN=1024 refuse it).
 */
static struct nvmev_drive_conf nvmev_conf __initdata = {
	.name = KBUILD_MODNAME,
	.tag = "",
};

static int __init nvmev_init(void)
{
	struct nvmev_drive_conf *conf = &nvmev_conf;
	int ret;

	conf->cfg = nvmev_cfg;
	conf->params = nvmev_params;
	conf->memmap_start = memmap_start;
	conf->memmap_size = memmap_size;
	if (default_drive) {
		ret = nvmev_drive_create(conf, &nvmev);
		if (ret)
			return ret;
	}
	ret = nvmev_configfs_init(&nvmev_cfg, &nvmev_params);
	if (ret)
		goto err_drive;
	return 0;

err_drive:
	if (nvmev)
		nvmev_drive_destroy(nvmev);
	return ret;
}

static void __exit nvmev_exit(void)
{
	/* configfs drives pin the module: none is left by now */
	nvmev_configfs_exit();
	if (nvmev)
		nvmev_drive_destroy(nvmev);
}

module_init(nvmev_init);
module_exit(nvmev_exit);
MODULE_DESCRIPTION("Virtual NVMe SSD with a flash timing model");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVMEV_MODULE_VERSION);
