// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/nvmev/: the effective geometry, statistics and a
 * reset switch. Everything here reads a consistent snapshot of the model
 * under model_lock; nothing here can change the drive's behaviour except
 * zeroing counters.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "nvmev.h"

static int nvmev_geometry_show(struct seq_file *m, void *v)
{
	struct nvmev_dev *dev = m->private;
	const struct ftl_geometry *g = ftl_get_geometry(dev->ftl);
	const struct ftl_config *cfg = ftl_get_config(dev->ftl);
	size_t i;

	for (i = 0; i < ftl_nr_params; i++)
		seq_printf(m, "%s=%llu\n", ftl_params[i].name,
			   ftl_param_get(cfg, &ftl_params[i]));
	seq_printf(m, "dies=%u\n", g->dies);
	seq_printf(m, "program_unit_bytes=%llu\n", (u64)g->pu_units * FTL_MAP_UNIT);
	seq_printf(m, "block_bytes=%llu\n", (u64)g->units_per_block * FTL_MAP_UNIT);
	seq_printf(m, "blocks_per_die=%u\n", g->blocks_per_die);
	seq_printf(m, "effective_granularity_bytes=%llu\n",
		   (u64)g->gran_units * FTL_MAP_UNIT);
	seq_printf(m, "stripe_bytes=%llu\n", g->stripe_bytes);
	/* what write_points_per_die=0 chose, or the value given */
	seq_printf(m, "effective_write_points_per_die=%u\n", g->host_wpts);
	seq_printf(m, "capacity_bytes=%llu\n", ftl_capacity_bytes(dev->ftl));
	seq_printf(m, "metadata_bytes=%llu\n", dev->metadata_bytes);
	seq_printf(m, "physical_bytes=%llu\n", g->phys_units * FTL_MAP_UNIT);
	/* the first namespace's; "namespaces" has them all */
	seq_printf(m, "lba_bytes=%u\n", 1u << nvmev_ns_first(&dev->ns)->lba_shift);
	seq_printf(m, "namespace_lbas=%llu\n", nvmev_ns_first(&dev->ns)->nsze);
	/* the registers' memory: a memory block taken at load, or memmap= */
	seq_printf(m, "memmap_start=%#llx\nmemmap_size=%#llx\nmemory_block=%d\n",
		   dev->memmap_start, dev->memmap_size, dev->block);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvmev_geometry);

static int nvmev_stats_show(struct seq_file *m, void *v)
{
	struct nvmev_dev *dev = m->private;
	const struct nvmev_ctrl_stats *cs = &dev->ctrl.stats;
	struct ftl_die_stats ds;
	struct ftl_stats st;
	u32 die, dies, cursor_units;

	mutex_lock(&dev->model_lock);
	ftl_stats_get(dev->ftl, &st);
	dies = ftl_get_geometry(dev->ftl)->dies;
	seq_puts(m, "die host_reads read_units read_collisions read_wait_ns buffer_hits host_write_units programs gc_reads gc_copies erases busy_ns free_blocks valid_units erases_total read_merges\n");
	for (die = 0; die < dies; die++) {
		ftl_die_stats_get(dev->ftl, die, &ds);
		seq_printf(m, "%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
			   die, ds.host_reads, ds.host_read_units,
			   ds.read_collisions, ds.read_wait_ns, ds.buffer_hits,
			   ds.host_write_units, ds.programs, ds.gc_reads,
			   ds.gc_copies, ds.erases, ds.busy_ns, ds.free_blocks,
			   ds.valid_units, ds.erases_total, ds.read_merges);
	}
	seq_printf(m, "waf_milli=%llu\n", ftl_waf_milli(dev->ftl));
	ftl_cursor(dev->ftl, &die, &cursor_units);
	seq_printf(m, "cursor_die=%u\ncursor_granule_units=%u\n", die,
		   cursor_units);
	mutex_unlock(&dev->model_lock);

	seq_printf(m, "model_reads=%llu\nmodel_writes=%llu\nmodel_trims=%llu\nmodel_flushes=%llu\n",
		   st.cmds[FTL_OP_READ], st.cmds[FTL_OP_WRITE],
		   st.cmds[FTL_OP_TRIM], st.cmds[FTL_OP_FLUSH]);
	seq_printf(m, "model_errors=%llu\nhost_read_units=%llu\nhost_write_units=%llu\n",
		   st.errors, st.host_read_units, st.host_write_units);
	seq_printf(m, "nand_write_units=%llu\ntrimmed_units=%llu\nunmapped_read_units=%llu\n",
		   st.nand_write_units, st.trimmed_units, st.unmapped_read_units);
	seq_printf(m, "gc_cycles=%llu\ngc_fg_cycles=%llu\nplacement_fallbacks=%llu\n",
		   st.gc_cycles, st.gc_fg_cycles, st.placement_fallbacks);
	seq_printf(m, "wb_stalls=%llu\nwb_stall_ns=%llu\n", st.wb_stalls,
		   st.wb_stall_ns);
	seq_printf(m, "pad_units=%llu\nwpt_evictions=%llu\nwpt_idle_flushes=%llu\n",
		   st.pad_units, st.wpt_evictions, st.wpt_idle_flushes);
	seq_printf(m, "hints_enabled=%d\nhint_bits_disabled=%llu\n",
		   dev->ns.hints_enabled, dev->stats.hint_bits_disabled);
	seq_printf(m, "hint_append=%llu\nhint_overwrite=%llu\nhint_honoured=%llu\n",
		   st.hint_append, st.hint_overwrite, st.hint_honoured);
	seq_printf(m, "hint_ignored_off=%llu\nhint_ignored_invalid=%llu\nhint_ignored_opcode=%llu\n",
		   st.hint_ignored_off, st.hint_ignored_invalid,
		   st.hint_ignored_opcode);
	seq_printf(m, "hint_ignored_range=%llu\nhint_ignored_unmapped=%llu\nhint_ignored_wear=%llu\n",
		   st.hint_ignored_range, st.hint_ignored_unmapped,
		   st.hint_ignored_wear);
	seq_printf(m, "hint_new_units=%llu\nhint_fallback_units=%llu\n",
		   st.hint_new_units, st.hint_fallback_units);
	seq_printf(m, "nvme_read=%llu\nnvme_write=%llu\nnvme_flush=%llu\nnvme_dsm=%llu\nnvme_write_zeroes=%llu\n",
		   dev->stats.io_cmds[nvme_cmd_read],
		   dev->stats.io_cmds[nvme_cmd_write],
		   dev->stats.io_cmds[nvme_cmd_flush],
		   dev->stats.io_cmds[nvme_cmd_dsm],
		   dev->stats.io_cmds[nvme_cmd_write_zeroes]);
	seq_printf(m, "nvme_io_errors=%llu\nnvme_admin=%llu\nnvme_admin_errors=%llu\naen_ns_changed=%llu\n",
		   dev->stats.io_errors, dev->stats.admin_cmds,
		   dev->stats.admin_errors, dev->stats.aen_ns_changed);
	seq_printf(m, "irqs=%llu\nirqs_held=%llu\nbad_doorbells=%llu\ncq_full_waits=%llu\ndeferred=%llu\n",
		   cs->irqs, cs->irqs_held, cs->bad_doorbells, cs->cq_full_waits,
		   cs->deferred);
	seq_printf(m, "aborted=%llu\ndropped=%llu\nresets=%llu\n",
		   cs->aborted, cs->dropped, cs->resets);
	seq_printf(m, "posted=%llu\npost_late_mean_ns=%llu\npost_late_max_ns=%llu\n",
		   cs->posted,
		   cs->posted ? div64_u64(cs->post_late_ns, cs->posted) : 0,
		   cs->post_late_max_ns);
	/* SMART's busy time in ns: at QD1, each command's fetch to its post */
	seq_printf(m, "busy_ns=%llu\n",
		   nvmev_ctrl_busy_ns(&dev->ctrl, ktime_get_ns()));
	/* page-backed data: pages held now, at most, the cap, refusals */
	seq_printf(m, "data_paged=%d\ndata_pages=%llu\ndata_pages_peak=%llu\ndata_pages_max=%llu\ndata_full_writes=%llu\n",
		   dev->paged, READ_ONCE(dev->store.nr_pages),
		   READ_ONCE(dev->store.peak_pages), dev->store.max_pages,
		   READ_ONCE(dev->store.full_writes));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvmev_stats);

/* A row per active namespace: its slice of the flash and its I/O. */
static int nvmev_namespaces_show(struct seq_file *m, void *v)
{
	struct nvmev_dev *dev = m->private;
	u32 nsid;

	seq_puts(m, "nsid lbas lba_bytes base_bytes reads writes read_sectors write_sectors errors\n");
	for (nsid = 1; nsid <= dev->ns.nn; nsid++) {
		const struct nvmev_ns *ns = nvmev_ns_get(&dev->ns, nsid);
		const struct nvmev_ns_stats *st = &dev->ns_stats[nsid - 1];

		if (ns)
			seq_printf(m, "%u %llu %u %llu %llu %llu %llu %llu %llu\n",
				   nsid, ns->nsze, 1u << ns->lba_shift, ns->base,
				   READ_ONCE(st->reads), READ_ONCE(st->writes),
				   READ_ONCE(st->read_sectors),
				   READ_ONCE(st->write_sectors),
				   READ_ONCE(st->errors));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvmev_namespaces);

/*
 * A row per zone of the zoned namespaces: its state and write pointer
 * (the ZNS state of nvmev_zone_state.h), where it lies on the flash and
 * what the flash did for it (ftl_zone_stats).
 */
static int nvmev_zones_show(struct seq_file *m, void *v)
{
	struct nvmev_dev *dev = m->private;
	struct ftl_zone_stats zs;
	u32 nsid, zi;

	seq_puts(m, "nsid zone state wp first_die width blocks host_write_units nand_write_units pad_units resets finishes erases\n");
	for (nsid = 1; nsid <= dev->ns.nn; nsid++) {
		const struct nvmev_ns *ns = nvmev_ns_get(&dev->ns, nsid);
		const struct nvmev_zns *z = dev->zns[nsid - 1];

		if (!ns || !z)
			continue;
		for (zi = 0; zi < z->nr_zones; zi++) {
			mutex_lock(&dev->model_lock);
			ftl_zone_stats_get(dev->ftl, ns->base +
					   (nvmev_zone_start(z, zi) << ns->lba_shift),
					   &zs);
			mutex_unlock(&dev->model_lock);
			seq_printf(m, "%u %u %u %llu %u %u %llu %llu %llu %llu %llu %llu %llu\n",
				   nsid, zi, READ_ONCE(z->zones[zi].state),
				   READ_ONCE(z->zones[zi].wp), zs.first_die,
				   zs.width, zs.blocks, zs.host_write_units,
				   zs.nand_write_units, zs.pad_units, zs.resets,
				   zs.finishes, zs.erases);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvmev_zones);

/* Writing 1 zeroes every counter; gauges (free blocks, valid units) stay. */
static ssize_t nvmev_reset_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct nvmev_dev *dev = file->private_data;
	bool val;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &val);
	if (ret)
		return ret;
	if (!val)
		return -EINVAL;
	mutex_lock(&dev->model_lock);
	ftl_stats_reset(dev->ftl);
	memset(&dev->stats, 0, sizeof(dev->stats));
	memset(&dev->ctrl.stats, 0, sizeof(dev->ctrl.stats));
	mutex_unlock(&dev->model_lock);
	return count;
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = nvmev_reset_write,
	.llseek = noop_llseek,
};

/* The namespace "locate" asks of: the one written, or the first. */
static const struct nvmev_ns *nvmev_locate_ns(struct nvmev_dev *dev, u32 nsid)
{
	return nsid ? nvmev_ns_get(&dev->ns, nsid) : nvmev_ns_first(&dev->ns);
}

/*
 * "locate": write an LBA of the first namespace, or "NSID LBA"; read
 * where the model keeps it.
 */
static int nvmev_locate_show(struct seq_file *m, void *v)
{
	struct nvmev_dev *dev = m->private;
	const struct nvmev_ns *ns = nvmev_locate_ns(dev, dev->locate_nsid);
	struct ftl_location loc;
	u64 lba = dev->locate_lba;
	int ret;

	mutex_lock(&dev->model_lock);
	ret = ftl_locate(dev->ftl, ns->base + (lba << ns->lba_shift), &loc);
	mutex_unlock(&dev->model_lock);
	if (ret)
		seq_printf(m, "lba=%llu unmapped\n", lba);
	else
		seq_printf(m, "lba=%llu die=%u block=%u offset=%u buffered=%u\n",
			   lba, loc.die, loc.block, loc.offset, loc.buffered);
	return 0;
}

static int nvmev_locate_open(struct inode *inode, struct file *file)
{
	return single_open(file, nvmev_locate_show, inode->i_private);
}

static ssize_t nvmev_locate_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct nvmev_dev *dev = ((struct seq_file *)file->private_data)->private;
	const struct nvmev_ns *ns;
	char buf[48], *s, *lba_s;
	u32 nsid = 0;
	u64 lba;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	s = strim(buf);
	lba_s = strchr(s, ' ');
	if (lba_s) {
		*lba_s = '\0';
		ret = kstrtou32(s, 0, &nsid);
		if (ret)
			return ret;
		s = skip_spaces(lba_s + 1);
	}
	ret = kstrtou64(s, 0, &lba);
	if (ret)
		return ret;
	ns = nvmev_locate_ns(dev, nsid);
	if (!ns)
		return -ENOENT;
	if (lba >= ns->nsze)
		return -ERANGE;
	dev->locate_nsid = nsid;
	dev->locate_lba = lba;
	return count;
}

static const struct file_operations locate_fops = {
	.owner = THIS_MODULE,
	.open = nvmev_locate_open,
	.read = seq_read,
	.write = nvmev_locate_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* "time_scale": change the model's time scale while the device is idle. */
static int nvmev_time_scale_get(void *data, u64 *val)
{
	struct nvmev_dev *dev = data;

	*val = ftl_get_geometry(dev->ftl)->time_scale;
	return 0;
}

static int nvmev_time_scale_set(void *data, u64 val)
{
	struct nvmev_dev *dev = data;
	int ret;

	mutex_lock(&dev->model_lock);
	ret = ftl_set_time_scale(dev->ftl, val);
	mutex_unlock(&dev->model_lock);
	return ret;
}
DEFINE_DEBUGFS_ATTRIBUTE(time_scale_fops, nvmev_time_scale_get, nvmev_time_scale_set,
			 "%llu\n");

void nvmev_debugfs_init(struct nvmev_dev *dev)
{
	dev->debugfs = debugfs_create_dir(dev->name, NULL);
	debugfs_create_file("geometry", 0444, dev->debugfs, dev, &nvmev_geometry_fops);
	debugfs_create_file("stats", 0444, dev->debugfs, dev, &nvmev_stats_fops);
	debugfs_create_file("namespaces", 0444, dev->debugfs, dev,
			    &nvmev_namespaces_fops);
	debugfs_create_file("zones", 0444, dev->debugfs, dev, &nvmev_zones_fops);
	debugfs_create_file("stats_reset", 0200, dev->debugfs, dev, &reset_fops);
	debugfs_create_file("locate", 0644, dev->debugfs, dev, &locate_fops);
	debugfs_create_file_unsafe("time_scale", 0644, dev->debugfs, dev,
				   &time_scale_fops);
}

void nvmev_debugfs_exit(struct nvmev_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}
