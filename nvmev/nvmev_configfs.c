// SPDX-License-Identifier: GPL-2.0
/*
 * Drives made at run time, in the manner of null_blk's configfs:
 *
 *   mkdir /sys/kernel/config/nvmev/NAME      a drive, powered off, whose
 *                                            attributes start as the
 *                                            module's parameters
 *   echo 8 > .../NAME/channels               any row of ftl_config.h's
 *                                            or nvmev_params.h's table
 *   mkdir .../NAME/namespaces/NSID           a namespace (NSID 1 to 16):
 *   echo 64 > .../namespaces/NSID/size_mib   its size (0: the rest of the
 *                                            drive), LBA format, and
 *                                            zones (zoned=1, zone_mib,
 *                                            zone_cap_mib, max_open,
 *                                            max_active); none: one
 *                                            namespace of the whole drive
 *   echo 1 > .../NAME/power                  create it (nvmev_drive.c)
 *   echo 0 > .../NAME/power                  remove it from the PCI bus
 *   rmdir .../NAME/namespaces/NSID /sys/kernel/config/nvmev/NAME
 *
 * The values are checked when the drive is powered on, by the same code
 * that checks the module's parameters at load: a bad one fails the write
 * to power with that check's errno and log line, and nothing is left
 * half-made. Writing a value of a powered drive or of its namespaces is
 * refused (EBUSY), and so are mkdir and rmdir of its namespaces and rmdir
 * of the drive (the powered drive depends on their items). The drive's data
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

struct nvmev_ns_item;

struct nvmev_drive_item {
	struct config_group group;
	struct config_group ns_group;	/* namespaces/ */
	struct mutex lock;		/* the values and namespaces against power */
	int index;			/* of nvmev_drive_ida */
	char name[NVMEV_NAME_LEN];	/* "nvmev-" and the directory's */
	char tag[NVMEV_NAME_LEN + 8];
	struct nvmev_drive_conf conf;	/* the attributes; names the two above */
	struct nvmev_ns_item *ns[NVMEV_MAX_NS];	/* by NSID - 1 */
	struct nvmev_dev *dev;		/* powered on: the drive */
};

/* namespaces/NSID: its values are the drive's conf.ns[NSID - 1] */
struct nvmev_ns_item {
	struct config_item item;
	struct nvmev_drive_item *drive;
	u32 nsid;
};

static DEFINE_IDA(nvmev_drive_ida);
static const struct ftl_config *nvmev_default_cfg;
static const struct nvmev_params *nvmev_default_params;
static struct configfs_subsystem nvmev_subsys;

static struct nvmev_drive_item *to_drive(struct config_item *item)
{
	return container_of(to_config_group(item), struct nvmev_drive_item,
			    group);
}

static struct nvmev_ns_item *to_ns(struct config_item *item)
{
	return container_of(item, struct nvmev_ns_item, item);
}

/* A value's write to drive @d: parse, refuse on a powered drive, store. */
static ssize_t nvmev_store_value(struct nvmev_drive_item *d, const char *page,
				 size_t count, const char *attr, void *field,
				 bool is_u64)
{
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
	return nvmev_store_value(to_drive(item), page, count, #name,	\
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

/* the dependencies of a powered drive on its item and its namespaces' */
static void nvmev_drive_undepend(struct nvmev_drive_item *d, u32 nr)
{
	while (nr--)
		if (d->ns[nr])
			configfs_undepend_item_unlocked(&d->ns[nr]->item);
	configfs_undepend_item_unlocked(&d->group.cg_item);
}

static int nvmev_drive_depend(struct nvmev_drive_item *d)
{
	u32 i;
	int ret;

	ret = configfs_depend_item_unlocked(&nvmev_subsys, &d->group.cg_item);
	if (ret)
		return ret;
	for (i = 0; i < NVMEV_MAX_NS; i++) {
		if (!d->ns[i])
			continue;
		ret = configfs_depend_item_unlocked(&nvmev_subsys,
						    &d->ns[i]->item);
		if (ret) {
			nvmev_drive_undepend(d, i);
			return ret;
		}
	}
	return 0;
}

/*
 * Power on: the drive depends on its item and its namespaces' first
 * (rmdir is then refused with EBUSY, and a directory on its way out
 * refuses the dependency), then it is made. Power off: removed, then the
 * dependencies dropped.
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
		ret = nvmev_drive_depend(d);
		if (!ret) {
			ret = nvmev_drive_create(&d->conf, &d->dev);
			if (ret)
				nvmev_drive_undepend(d, NVMEV_MAX_NS);
		}
	} else {
		nvmev_drive_destroy(d->dev);
		d->dev = NULL;
		nvmev_drive_undepend(d, NVMEV_MAX_NS);
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

/* ---- namespaces/NSID ---- */

static struct nvmev_ns_conf *to_ns_conf(struct config_item *item)
{
	struct nvmev_ns_item *ns = to_ns(item);

	return &ns->drive->conf.ns[ns->nsid - 1];
}

/* A namespace's value: stored as its drive's, "namespace NSID ATTR". */
static ssize_t nvmev_ns_store_value(struct config_item *item, const char *page,
				    size_t count, const char *name, void *field,
				    bool is_u64)
{
	struct nvmev_ns_item *ns = to_ns(item);
	char attr[32];

	snprintf(attr, sizeof(attr), "namespace %u %s", ns->nsid, name);
	return nvmev_store_value(ns->drive, page, count, attr, field, is_u64);
}

/*
 * A namespace's values, checked when the drive is powered on
 * (nvmev_drive.c, nvmev_zoned.c): u64 ones, and ints.
 */
#define NVMEV_NS_VALUE(name, fmt, is_u64)				\
static ssize_t nvmev_ns_##name##_show(struct config_item *item,	\
				      char *page)			\
{									\
	return sysfs_emit(page, fmt "\n", to_ns_conf(item)->name);	\
}									\
static ssize_t nvmev_ns_##name##_store(struct config_item *item,	\
				       const char *page, size_t count)	\
{									\
	return nvmev_ns_store_value(item, page, count, #name,		\
				    &to_ns_conf(item)->name, is_u64);	\
}									\
CONFIGFS_ATTR(nvmev_ns_, name)

NVMEV_NS_VALUE(size_mib, "%llu", true);
NVMEV_NS_VALUE(zoned, "%d", false);
NVMEV_NS_VALUE(zone_mib, "%llu", true);
NVMEV_NS_VALUE(zone_cap_mib, "%llu", true);
NVMEV_NS_VALUE(max_open, "%d", false);
NVMEV_NS_VALUE(max_active, "%d", false);
NVMEV_NS_VALUE(zone_width, "%d", false);

static ssize_t nvmev_ns_lba_bytes_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_ns_conf(item)->lba_bytes);
}

/*
 * Either end of lba_bytes' range (nvmev_params.h); 0: the drive's
 * lba_bytes when it is powered on. The one check of a namespace's.
 */
static ssize_t nvmev_ns_lba_bytes_store(struct config_item *item,
					const char *page, size_t count)
{
	struct nvmev_ns_item *ns = to_ns(item);
	int v;

	if (!kstrtoint(page, 0, &v) && v && !NVMEV_LBA_BYTES_OK(v)) {
		pr_err("%snamespace %u lba_bytes: %d is not %d or %d (or 0: the drive's)\n",
		       ns->drive->tag, ns->nsid, v, NVMEV_MIN_lba_bytes,
		       NVMEV_MAX_lba_bytes);
		return -EINVAL;
	}
	return nvmev_ns_store_value(item, page, count, "lba_bytes",
				    &to_ns_conf(item)->lba_bytes, false);
}
CONFIGFS_ATTR(nvmev_ns_, lba_bytes);

static ssize_t nvmev_ns_placement_handles_show(struct config_item *item,
					       char *page)
{
	const struct nvmev_ns_conf *c = to_ns_conf(item);
	int len = 0;
	u32 k;

	for (k = 0; k < c->nphndls; k++)
		len += sysfs_emit_at(page, len, "%s%u", k ? "," : "",
				     c->phndl[k]);
	return len + sysfs_emit_at(page, len, "\n");
}

/*
 * "H,H,...": the FDP handles the namespace's placement handles 0.. name,
 * each once; empty: every handle. Checked against the drive at power on
 * (nvmev_fdp_exec.c).
 */
static int nvmev_parse_handles(char *list, struct nvmev_ns_conf *c)
{
	u16 h, k, n = 0;
	char *tok;

	while ((tok = strsep(&list, ",")) != NULL) {
		if (!*tok && !list && !n)
			break;			/* the empty list */
		if (n == NVMEV_FDP_MAX_PHNDLS || kstrtou16(tok, 0, &h))
			return -EINVAL;
		for (k = 0; k < n; k++)
			if (c->phndl[k] == h)
				return -EINVAL;
		c->phndl[n++] = h;
	}
	c->nphndls = n;
	return 0;
}

static ssize_t nvmev_ns_placement_handles_store(struct config_item *item,
						const char *page, size_t count)
{
	struct nvmev_ns_item *ns = to_ns(item);
	struct nvmev_drive_item *d = ns->drive;
	struct nvmev_ns_conf c = { 0 };
	char *list;
	int ret;

	list = kstrndup(page, strcspn(page, "\n"), GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	ret = nvmev_parse_handles(list, &c);
	kfree(list);
	if (ret) {
		pr_err("%snamespace %u placement_handles: \"%.*s\" is not a list of at most %d distinct handle numbers, comma separated\n",
		       d->tag, ns->nsid, (int)strcspn(page, "\n"), page,
		       NVMEV_FDP_MAX_PHNDLS);
		return ret;
	}
	mutex_lock(&d->lock);
	if (d->dev) {
		mutex_unlock(&d->lock);
		pr_err("%snamespace %u placement_handles cannot change while the drive is powered on: echo 0 > power first\n",
		       d->tag, ns->nsid);
		return -EBUSY;
	}
	to_ns_conf(item)->nphndls = c.nphndls;
	memcpy(to_ns_conf(item)->phndl, c.phndl, sizeof(c.phndl));
	mutex_unlock(&d->lock);
	return count;
}
CONFIGFS_ATTR(nvmev_ns_, placement_handles);

static struct configfs_attribute *nvmev_ns_attrs[] = {
	&nvmev_ns_attr_size_mib,
	&nvmev_ns_attr_lba_bytes,
	&nvmev_ns_attr_zoned,
	&nvmev_ns_attr_zone_mib,
	&nvmev_ns_attr_zone_cap_mib,
	&nvmev_ns_attr_max_open,
	&nvmev_ns_attr_max_active,
	&nvmev_ns_attr_zone_width,
	&nvmev_ns_attr_placement_handles,
	NULL,
};

static void nvmev_ns_release(struct config_item *item)
{
	kfree(to_ns(item));
}

static struct configfs_item_operations nvmev_ns_ops = {
	.release = nvmev_ns_release,
};

static const struct config_item_type nvmev_ns_type = {
	.ct_item_ops = &nvmev_ns_ops,
	.ct_attrs = nvmev_ns_attrs,
	.ct_owner = THIS_MODULE,
};

static struct nvmev_drive_item *ns_group_to_drive(struct config_group *group)
{
	return container_of(group, struct nvmev_drive_item, ns_group);
}

/* mkdir namespaces/NSID: a namespace of the size of the rest, by default */
static struct config_item *nvmev_ns_make(struct config_group *group,
					 const char *name)
{
	struct nvmev_drive_item *d = ns_group_to_drive(group);
	struct nvmev_ns_item *ns;
	char canon[12];
	u32 nsid;

	/* one name per NSID: "01" would be a second directory of NSID 1 */
	if (kstrtou32(name, 10, &nsid) || nsid > NVMEV_MAX_NS)
		nsid = 0;
	snprintf(canon, sizeof(canon), "%u", nsid);
	if (!nsid || strcmp(name, canon)) {
		pr_err("%snamespace \"%s\": name it by its NSID, 1 to %d\n",
		       d->tag, name, NVMEV_MAX_NS);
		return ERR_PTR(-EINVAL);
	}
	ns = kzalloc(sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&d->lock);
	if (d->dev) {
		mutex_unlock(&d->lock);
		kfree(ns);
		pr_err("%snamespace %u cannot be added while the drive is powered on: echo 0 > power first\n",
		       d->tag, nsid);
		return ERR_PTR(-EBUSY);
	}
	ns->drive = d;
	ns->nsid = nsid;
	d->ns[nsid - 1] = ns;
	d->conf.ns[nsid - 1] = (struct nvmev_ns_conf){ .present = true };
	mutex_unlock(&d->lock);
	config_item_init_type_name(&ns->item, name, &nvmev_ns_type);
	return &ns->item;
}

/* rmdir: a powered drive depends on the item, so it is powered off */
static void nvmev_ns_drop(struct config_group *group, struct config_item *item)
{
	struct nvmev_drive_item *d = ns_group_to_drive(group);
	struct nvmev_ns_item *ns = to_ns(item);

	mutex_lock(&d->lock);
	d->ns[ns->nsid - 1] = NULL;
	d->conf.ns[ns->nsid - 1].present = false;
	mutex_unlock(&d->lock);
	config_item_put(item);
}

static struct configfs_group_operations nvmev_ns_group_ops = {
	.make_item = nvmev_ns_make,
	.drop_item = nvmev_ns_drop,
};

static const struct config_item_type nvmev_ns_group_type = {
	.ct_group_ops = &nvmev_ns_group_ops,
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

static struct config_group *nvmev_drive_make(struct config_group *group,
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
	config_group_init_type_name(&d->group, name, &nvmev_drive_type);
	config_group_init_type_name(&d->ns_group, "namespaces",
				    &nvmev_ns_group_type);
	configfs_add_default_group(&d->ns_group, &d->group);
	return &d->group;
}

static struct configfs_group_operations nvmev_subsys_ops = {
	.make_group = nvmev_drive_make,
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
