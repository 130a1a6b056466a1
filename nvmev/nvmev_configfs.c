// SPDX-License-Identifier: GPL-2.0
/*
 * Drives made at run time, in the manner of null_blk's configfs:
 *
 *   mkdir /sys/kernel/config/nvmev/NAME      a drive, powered off, whose
 *                                            attributes start as the
 *                                            module's parameters
 *   echo 8 > .../NAME/channels               any row of ftl_config.h's
 *                                            or nvmev_params.h's table
 *   echo 1 > .../NAME/power                  create it (nvmev_drive.c)
 *   echo 0 > .../NAME/power                  remove it from the PCI bus
 *   rmdir /sys/kernel/config/nvmev/NAME
 *
 * The values are checked when the drive is powered on, by the same code
 * that checks the module's parameters at load: a bad one fails the write
 * to power with that check's errno and log line, and nothing is left
 * half-made. Writing a value of a powered drive is refused (EBUSY), and
 * so is rmdir (the powered drive depends on its item). The drive's data
 * lives in kernel pages, its registers in a memory block of their own;
 * its debugfs directory and controller thread are named nvmev-NAME.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include "nvmev.h"

/* drives made here at once; each takes a memory block and a PCI domain */
#define NVMEV_MAX_DRIVES	16
#define NVMEV_ITEM_NAME_LEN	(NVMEV_NAME_LEN - sizeof("nvmev-"))

struct nvmev_drive_item {
	struct config_item item;
	struct mutex lock;		/* the values against power */
	int index;			/* of nvmev_drive_ida */
	char name[NVMEV_NAME_LEN];	/* "nvmev-" and the directory's */
	char tag[NVMEV_NAME_LEN + 8];
	struct nvmev_drive_conf conf;	/* the attributes; names the two above */
	struct nvmev_dev *dev;		/* powered on: the drive */
};

static DEFINE_IDA(nvmev_drive_ida);
static const struct ftl_config *nvmev_default_cfg;
static const struct nvmev_params *nvmev_default_params;
static struct configfs_subsystem nvmev_subsys;

static struct nvmev_drive_item *to_drive(struct config_item *item)
{
	return container_of(item, struct nvmev_drive_item, item);
}

/* A value's write: parse, refuse on a powered drive, store. */
static ssize_t nvmev_store_value(struct config_item *item, const char *page,
				 size_t count, const char *attr, void *field,
				 bool is_u64)
{
	struct nvmev_drive_item *d = to_drive(item);
	long long sv = 0;
	u64 uv = 0;
	int ret;

	ret = is_u64 ? kstrtou64(page, 0, &uv) : kstrtoll(page, 0, &sv);
	if (!ret && !is_u64 && (sv < INT_MIN || sv > INT_MAX))
		ret = -ERANGE;
	if (ret) {
		pr_err("%s%s: \"%.*s\" is not %s\n", d->tag, attr,
		       (int)strcspn(page, "\n"), page,
		       is_u64 ? "an unsigned number" : "an int");
		return -EINVAL;
	}
	mutex_lock(&d->lock);
	if (d->dev) {
		mutex_unlock(&d->lock);
		pr_err("%s%s cannot change while the drive is powered on: echo 0 > power first\n",
		       d->tag, attr);
		return -EBUSY;
	}
	if (is_u64)
		*(u64 *)field = uv;
	else
		*(int *)field = sv;
	mutex_unlock(&d->lock);
	return count;
}

/*
 * One attribute per row of the model's table (u64 fields of cfg) and of
 * the module's (int fields of params).
 */
#define NVMEV_CFS_VALUE(name, table, fmt, is_u64)			\
static ssize_t nvmev_drive_##name##_show(struct config_item *item,	\
					 char *page)			\
{									\
	return sysfs_emit(page, fmt "\n", to_drive(item)->table.name);	\
}									\
static ssize_t nvmev_drive_##name##_store(struct config_item *item,	\
					  const char *page,		\
					  size_t count)			\
{									\
	return nvmev_store_value(item, page, count, #name,		\
				 &to_drive(item)->table.name, is_u64);	\
}									\
CONFIGFS_ATTR(nvmev_drive_, name);

#define NVMEV_CFS_FTL(name, def, min, max, desc)			\
	NVMEV_CFS_VALUE(name, conf.cfg, "%llu", true)
#define NVMEV_CFS_PARAM(name, def, min, max, desc)			\
	NVMEV_CFS_VALUE(name, conf.params, "%d", false)
FTL_CONFIG_PARAMS(NVMEV_CFS_FTL)
NVMEV_PARAMS(NVMEV_CFS_PARAM)
#undef NVMEV_CFS_FTL
#undef NVMEV_CFS_PARAM

static ssize_t nvmev_drive_power_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", !!to_drive(item)->dev);
}

/*
 * Power on: the drive depends on its item first (rmdir is then refused
 * with EBUSY, and a directory on its way out refuses the dependency),
 * then it is made. Power off: removed, then the dependency dropped.
 */
static ssize_t nvmev_drive_power_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct nvmev_drive_item *d = to_drive(item);
	bool on;
	int ret;

	if (kstrtobool(page, &on)) {
		pr_err("%spower: \"%.*s\" is not 0 or 1\n", d->tag,
		       (int)strcspn(page, "\n"), page);
		return -EINVAL;
	}
	mutex_lock(&d->lock);
	if (on == !!d->dev) {
		ret = 0;
	} else if (on) {
		ret = configfs_depend_item_unlocked(&nvmev_subsys, item);
		if (!ret) {
			ret = nvmev_drive_create(&d->conf, &d->dev);
			if (ret)
				configfs_undepend_item_unlocked(item);
		}
	} else {
		nvmev_drive_destroy(d->dev);
		d->dev = NULL;
		configfs_undepend_item_unlocked(item);
		ret = 0;
	}
	mutex_unlock(&d->lock);
	return ret ?: count;
}
CONFIGFS_ATTR(nvmev_drive_, power);

#define NVMEV_CFS_ATTR(name, def, min, max, desc) &nvmev_drive_attr_##name,
static struct configfs_attribute *nvmev_drive_attrs[] = {
	&nvmev_drive_attr_power,
	FTL_CONFIG_PARAMS(NVMEV_CFS_ATTR)
	NVMEV_PARAMS(NVMEV_CFS_ATTR)
	NULL,
};

#undef NVMEV_CFS_ATTR

static void nvmev_drive_release(struct config_item *item)
{
	struct nvmev_drive_item *d = to_drive(item);

	ida_free(&nvmev_drive_ida, d->index);
	mutex_destroy(&d->lock);
	kfree(d);
}

static struct configfs_item_operations nvmev_drive_ops = {
	.release = nvmev_drive_release,
};

static const struct config_item_type nvmev_drive_type = {
	.ct_item_ops = &nvmev_drive_ops,
	.ct_attrs = nvmev_drive_attrs,
	.ct_owner = THIS_MODULE,
};

static bool nvmev_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n > NVMEV_ITEM_NAME_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

static struct config_item *nvmev_drive_make(struct config_group *group,
					    const char *name)
{
	struct nvmev_drive_item *d;
	int index;

	if (!nvmev_name_ok(name)) {
		pr_err("drive name \"%s\": use 1 to %zu letters, digits, '_', '.' or '-'\n",
		       name, NVMEV_ITEM_NAME_LEN);
		return ERR_PTR(-EINVAL);
	}
	index = ida_alloc_max(&nvmev_drive_ida, NVMEV_MAX_DRIVES - 1,
			      GFP_KERNEL);
	if (index < 0) {
		pr_err("drive %s: at most %d drives can be made in configfs\n",
		       name, NVMEV_MAX_DRIVES);
		return ERR_PTR(index);
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d) {
		ida_free(&nvmev_drive_ida, index);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&d->lock);
	d->index = index;
	snprintf(d->name, sizeof(d->name), "nvmev-%s", name);
	snprintf(d->tag, sizeof(d->tag), "drive %s: ", name);
	d->conf.name = d->name;
	d->conf.tag = d->tag;
	d->conf.cfg = *nvmev_default_cfg;
	d->conf.params = *nvmev_default_params;
	/* a domain of its own next to the module's drive's */
	d->conf.params.pci_domain = nvmev_default_params->pci_domain + 1 + index;
	config_item_init_type_name(&d->item, name, &nvmev_drive_type);
	return &d->item;
}

static struct configfs_group_operations nvmev_subsys_ops = {
	.make_item = nvmev_drive_make,
};

static const struct config_item_type nvmev_subsys_type = {
	.ct_group_ops = &nvmev_subsys_ops,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem nvmev_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = KBUILD_MODNAME,
			.ci_type = &nvmev_subsys_type,
		},
	},
};

int nvmev_configfs_init(const struct ftl_config *cfg,
			const struct nvmev_params *params)
{
	int ret;

	nvmev_default_cfg = cfg;
	nvmev_default_params = params;
	config_group_init(&nvmev_subsys.su_group);
	mutex_init(&nvmev_subsys.su_mutex);
	ret = configfs_register_subsystem(&nvmev_subsys);
	if (ret)
		pr_err("cannot register /sys/kernel/config/%s (%d)\n",
		       KBUILD_MODNAME, ret);
	return ret;
}

void nvmev_configfs_exit(void)
{
	configfs_unregister_subsystem(&nvmev_subsys);
	ida_destroy(&nvmev_drive_ida);
}
