// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware's memory map, as the kernel shows it in /sys/firmware/memmap
 * (CONFIG_FIRMWARE_MEMMAP, on in Debian's kernels): the E820 table the
 * firmware passed, before memmap= changed the kernel's own copy, with the
 * ranges memory hot-add added since. A memmap=SIZE$START reservation is
 * RAM there and Reserved in the kernel's table; memory the firmware itself
 * reserved is Reserved in both.
 *
 * Kernels that export e820__mapped_raw_any() to KVM alone (7.x) leave a
 * module no other view of the firmware's table: no walker of the firmware
 * map is exported. So the module reads the files there, as a user would,
 * each time it asks (hot-add changes the map); nvmev_compat.h says where.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvmev.h"

#define NVMEV_FWMAP_DIR		"/sys/firmware/memmap"
/* QEMU's and real firmware's tables have tens of entries */
#define NVMEV_FWMAP_MAX		256

struct nvmev_fwmap_entry {
	u64 start, end;			/* inclusive, as the files give it */
	bool ram;			/* type "System RAM" */
};

/* one file of entry @i into @buf, NUL-terminated, without its newline */
static int nvmev_fwmap_read(int i, const char *name, char *buf, size_t len)
{
	char path[64];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path), NVMEV_FWMAP_DIR "/%d/%s", i, name);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	strim(buf);
	return 0;
}

static int nvmev_fwmap_entry(int i, struct nvmev_fwmap_entry *e)
{
	char buf[64];
	int ret;

	ret = nvmev_fwmap_read(i, "start", buf, sizeof(buf));
	if (ret)
		return ret;
	ret = kstrtou64(buf, 0, &e->start);
	if (ret)
		return ret;
	ret = nvmev_fwmap_read(i, "end", buf, sizeof(buf));
	if (ret)
		return ret;
	ret = kstrtou64(buf, 0, &e->end);
	if (ret)
		return ret;
	ret = nvmev_fwmap_read(i, "type", buf, sizeof(buf));
	if (ret)
		return ret;
	e->ram = !strcmp(buf, "System RAM");
	return 0;
}

/*
 * Whether [@start, @end) is RAM to the firmware: covered by "System RAM"
 * entries, and no entry of another type reaches into it. False, with one
 * line, when the map cannot be read.
 */
bool nvmev_fwmap_ram(u64 start, u64 end)
{
	struct nvmev_fwmap_entry *map;
	bool ram = false, moved = true;
	u64 at = start;
	int i, n, ret = 0;

	map = kcalloc(NVMEV_FWMAP_MAX, sizeof(*map), GFP_KERNEL);
	if (!map)
		return false;
	for (n = 0; n < NVMEV_FWMAP_MAX; n++) {
		ret = nvmev_fwmap_entry(n, &map[n]);
		if (ret)
			break;
	}
	/* the entries are numbered from 0 on: the first missing one ends them */
	if (ret != -ENOENT || !n) {
		pr_err("cannot read the firmware's memory map (%s: %d): the kernel needs CONFIG_FIRMWARE_MEMMAP, and sysfs mounted\n",
		       NVMEV_FWMAP_DIR, ret);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (!map[i].ram && map[i].start < end && map[i].end >= start)
			goto out;
	/* entries may overlap (hot-add) and come in any order */
	while (at < end && moved) {
		moved = false;
		for (i = 0; i < n; i++) {
			if (map[i].ram && map[i].start <= at && map[i].end >= at) {
				at = map[i].end + 1;
				moved = true;
			}
		}
	}
	ram = at >= end;
out:
	kfree(map);
	return ram;
}
