/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmev: shared definitions of the virtual NVMe controller.
 *
 * Layers, each in its own file, as in drivers/nvme/target:
 *   nvmev_drive.c   one drive's creation and removal, in order
 *   nvmev_configfs.c drives made at run time (/sys/kernel/config/nvmev)
 *   nvmev_bar_mem.c the registers' memory: memmap= or a memory block
 *   nvmev_fwmap.c   the firmware's memory map, as /sys/firmware/memmap has it
 *   nvmev_pci.c     virtual PCI bus, config space, MSI-X delivery
 *   nvmev_msi.c     an MSI domain of our own when the kernel has none
 *   nvmev_ctrl.c    registers, queues, doorbells, completions (portable,
 *                   fuzzed in userspace as a state machine)
 *   nvmev_worker.c  the controller thread that drives it
 *   nvmev_host_mem.c host memory the device reaches: which addresses are
 *                   RAM it may use, PRP transfers to and from them
 *   nvmev_cmd.c     parsing of commands (portable, fuzzed in userspace)
 *   nvmev_prp.c     PRP walking (portable, fuzzed in userspace)
 *   nvmev_admin.c   admin command set
 *   nvmev_io.c      NVM command set and data movement
 *   nvmev_zone_state.c  zone states and limits (portable, fuzzed in userspace)
 *   nvmev_zoned.c   Zoned Namespace command set: its rows' handlers, in the
 *                   kernel (data, the flash model, zones' rules)
 *   nvmev_store.c   the namespace's bytes: memmap= range or kernel pages
 *   nvmev_debugfs.c geometry and statistics
 * The flash model (ftl/) only decides *when* an I/O completes.
 */
#ifndef NVMEV_H
#define NVMEV_H

#include <linux/completion.h>
#include <linux/irq_work.h>
#include <linux/msi.h>
#include <linux/mutex.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "ftl.h"
#include "nvmev_cmd.h"
#include "nvmev_ctrl.h"
#include "nvmev_handlers.h"
#include "nvmev_hint.h"
#include "nvmev_zone_state.h"

#define NVMEV_BAR_SIZE		SZ_16K	/* registers, doorbells, MSI-X */
#define NVMEV_MSIX_OFFSET	0x2000	/* table in BAR0 */
#define NVMEV_PBA_OFFSET	0x3000
#define NVMEV_STORAGE_OFFSET	SZ_1M	/* data starts 1 MiB into memmap */
/* page-backed data: capacity when neither it nor the geometry is given */
#define NVMEV_PAGED_CAPACITY_MIB 4096

/* what nvmev_admin.c and nvmev_io.c count; the queue engine counts its own */
struct nvmev_stats {
	u64 admin_cmds;
	u64 io_cmds[256];		/* by opcode */
	u64 io_errors;
	u64 admin_errors;
	u64 hint_bits_disabled;		/* hint bits on writes, feature off */
	u64 aen_ns_changed;		/* Namespace Attribute Changed events sent */
};

/*
 * One namespace's I/O (nvmev_io.c): debugfs's "namespaces" and the
 * SMART/Health log, for the namespace or summed for the controller. Like
 * SMART's, they count from power-on; stats_reset leaves them.
 */
struct nvmev_ns_stats {
	u64 reads, writes;		/* commands that succeeded */
	u64 read_sectors;		/* 512-byte units */
	u64 write_sectors;
	u64 errors;			/* commands that failed */
};

/* the Error Information log's ring (nvmev_errlog.c) */
struct nvmev_errlog {
	struct nvme_error_slot slots[NVMEV_ERRLOG_ENTRIES];
	u64 count;			/* errors so far: the newest's Error Count */
};

/*
 * A Dataset Management or Write Zeroes command that deallocates more than
 * one pass should (nvmev_io.c): what is left of it.
 */
struct nvmev_trim {
	u16 sqid;
	u16 cid;
	u16 status;
	u32 nsid;
	const struct nvmev_ns *ns;	/* its namespace, DSM ranges' LBAs */
	u64 due_ns;			/* the model's completion time */
	void *ranges;			/* DSM ranges as fetched, or NULL */
	u32 nr;				/* ranges */
	u32 next;			/* the next range to start */
	u64 off, end;			/* bytes of the current range left */
};

#define NVMEV_HELD_TRIMS	16

/* System RAM, as the resource tree had it at load (nvmev_host_mem.c) */
struct nvmev_host_range {
	u64 start, end;			/* [start, end) */
};

struct nvmev_host_ram {
	struct nvmev_host_range *ranges;
	u32 nr;
};

/* a vector raised in the module's own MSI domain (nvmev_msi.c) */
struct nvmev_msi_vec {
	call_single_data_t csd;		/* raised on another CPU */
	struct irq_work work;		/* raised on this one */
	unsigned int virq;		/* its Linux interrupt when raised */
	unsigned long pending;		/* bit 0: raised, handler not begun */
	atomic_t inflight;		/* raises not yet delivered */
};

/* the namespace's bytes (nvmev_store.c): linear, or a page per unit */
struct nvmev_store {
	u8 *linear;			/* the memmap= data area, or NULL */
	struct xarray pages;		/* 4 KiB unit -> struct page */
	u64 nr_pages;			/* allocated now */
	u64 peak_pages;
	u64 max_pages;			/* the cap (data_max_mib) */
	u64 full_writes;		/* writes failed for want of a page */
};

#define NVMEV_NAME_LEN		40	/* "nvmev-" and a configfs name */

struct nvmev_dev {
	/* configuration */
	char name[NVMEV_NAME_LEN];	/* debugfs directory, thread */
	char tag[NVMEV_NAME_LEN + 8];	/* log lines: "" or "drive NAME: " */
	struct ftl_config cfg;
	u64 memmap_start;		/* the registers' memory (nvmev_bar_mem.c) */
	u64 memmap_size;
	const char *memmap_start_arg;	/* as given, for messages */
	const char *memmap_size_arg;
	bool block;			/* a memory block taken from the kernel */
	int block_nid;			/* its node, to give it back */
	bool block_back;		/* one an unload gave back offline */
	struct resource block_res;	/* the hole it left, as a resource */
	bool paged;			/* data in kernel pages */
	struct nvmev_params params;	/* nvmev_params.h, checked at load */

	/* PCI side */
	struct pci_bus *bus;
	struct pci_dev *pdev;
	struct pci_ops pci_ops;
	struct pci_sysdata sysdata;
	u8 cfg_space[PCI_CFG_SPACE_EXP_SIZE];
	/* cfg_space: the host's config cycles against the worker's FLR */
	raw_spinlock_t cfg_lock;
	bool flr_pending;		/* host set Initiate FLR; worker acts */
	/* vectors raised while masked (worker only), mirrored in the PBA */
	DECLARE_BITMAP(msix_pending, NVMEV_NR_VECTORS);
	u32 nr_msix_pending;
	/* MSI-X in a domain of ours when the kernel has none (nvmev_msi.c) */
	struct irq_domain *msi_domain;
	struct msi_domain_info msi_info;
	struct nvmev_msi_vec msi_vec[NVMEV_NR_VECTORS];
	struct resource *reservation;	/* memmap='s "Reserved", or block_res */
	struct resource *claim;		/* all of it but BAR0, claimed busy */
	void __iomem *bar;		/* BAR0 = first pages of memmap */
	void *storage;			/* memmap= data area, or NULL */
	u64 storage_bytes;
	struct nvmev_store store;
	/* namespaces' sizes, formats and slices, hint feature: the parser's */
	struct nvmev_ns_view ns;
	struct nvmev_zns *zns[NVMEV_MAX_NS];	/* zoned namespaces' zones */

	/* controller state, owned by the worker thread */
	struct nvmev_ctrl ctrl;		/* registers, queues, completions */
	struct nvmev_host_ram host_ram;
	/* memory going offline against the live rings (nvmev_offline.c) */
	struct notifier_block mem_nb;
	spinlock_t offline_lock;	/* offline_start, offline_end */
	unsigned long offline_start;	/* pfns going offline: [start, end) */
	unsigned long offline_end;
	bool offline_check;		/* the worker is to look at its rings */
	bool offline_veto;		/* ... and found one there */
	struct completion offline_done;
	u16 aer_cids[NVMEV_AERL + 1];
	u32 nr_aers;
	/*
	 * Namespace Attribute Changed (nvmev_nsmgmt_exec.c): the NSIDs
	 * changed since log 04h was last read (bit NSID - 1), an event to
	 * report, and one reported that the host has not read yet
	 */
	u32 ns_changed;
	bool ns_event_pending;
	bool ns_event_masked;
	u32 features[256];		/* by FID: what Set Features stored */
	u16 temp_thresh[2];		/* feature 04h: over, under (Kelvin) */
	struct nvmev_errlog errlog;

	/* nvmev_io.c: deallocations under way, a read's source of zeroes */
	struct nvmev_trim trims[NVMEV_HELD_TRIMS];
	u32 nr_trims;
	void *zeroes;			/* NVMEV_MAX_XFER bytes, read-only */

	struct ftl *ftl;
	u64 metadata_bytes;		/* the model's tables */
	struct mutex model_lock;	/* the model: worker vs debugfs readers */
	struct nvmev_stats stats;
	struct nvmev_ns_stats ns_stats[NVMEV_MAX_NS];	/* by NSID - 1 */
	u64 power_on_ns;

	struct task_struct *worker;
	struct dentry *debugfs;
	u64 locate_lba;			/* debugfs "locate" query */
	u32 locate_nsid;		/* its namespace; 0: the first */
};

/* a namespace a drive is made with (configfs: namespaces/NSID) */
struct nvmev_ns_conf {
	bool present;
	u64 size_mib;			/* 0: what the others leave */
	int lba_bytes;			/* 0: the drive's lba_bytes */
	int zoned;			/* 1: Zoned Namespace command set */
	u64 zone_mib;			/* zoned: zone size, a power of two */
	u64 zone_cap_mib;		/* zoned: writable per zone; 0: all */
	int max_open;			/* zoned: open zones at most; 0: any */
	int max_active;			/* zoned: active zones at most; 0: any */
	int zone_width;			/* zoned: dies of a zone; 0: all */
	/* FDP: the handles its placement handles 0.. name; none listed: all */
	u16 nphndls;
	u16 phndl[NVMEV_FDP_MAX_PHNDLS];
};

#define NVMEV_ZONE_MIB		16	/* a zoned namespace's zone_mib */

/* nvmev_drive.c: what a drive is made from, checked by the creation */
struct nvmev_drive_conf {
	const char *name;		/* nvmev_dev.name */
	const char *tag;		/* nvmev_dev.tag */
	struct ftl_config cfg;
	struct nvmev_params params;
	const char *memmap_start;	/* both NULL: a memory block */
	const char *memmap_size;
	/* by NSID - 1; none present: one namespace of the whole drive */
	struct nvmev_ns_conf ns[NVMEV_MAX_NS];
};

int nvmev_drive_create(const struct nvmev_drive_conf *conf,
		       struct nvmev_dev **out);
void nvmev_drive_destroy(struct nvmev_dev *dev);

/* nvmev_configfs.c: new drives start from the module's parameters */
int nvmev_configfs_init(const struct ftl_config *cfg,
			const struct nvmev_params *params);
void nvmev_configfs_exit(void);

/* nvmev_pci.c */
/* nvmev_msi.c: MSI-X without the kernel's MSI domain */
int nvmev_msi_init(struct nvmev_dev *dev);
void nvmev_msi_exit(struct nvmev_dev *dev);
void nvmev_msi_raise(struct nvmev_dev *dev, u16 vector, unsigned int virq);

int nvmev_pci_create(struct nvmev_dev *dev);
void nvmev_pci_remove(struct nvmev_dev *dev);
void nvmev_pci_release(struct nvmev_dev *dev);
/* raise MSI-X @vector; a masked vector stays pending until unmasked */
void nvmev_pci_signal(struct nvmev_dev *dev, u16 vector);
/* PCI_COMMAND's Bus Master Enable: the device's DMA is allowed */
bool nvmev_pci_bus_master(struct nvmev_dev *dev);
/*
 * Each worker pass: deliver pending vectors the host has unmasked, carry
 * out a Function Level Reset the host asked for. True if it did anything.
 */
bool nvmev_pci_poll(struct nvmev_dev *dev);

/* nvmev_worker.c */
int nvmev_worker_start(struct nvmev_dev *dev);
void nvmev_worker_stop(struct nvmev_dev *dev);

/* nvmev_fwmap.c: the firmware's memory map */
bool nvmev_fwmap_ram(u64 start, u64 end);

/* nvmev_bar_mem.c: the memory under BAR0 (and a memmap= data area) */
int nvmev_bar_mem_claim(struct nvmev_dev *dev);
void nvmev_bar_mem_release(struct nvmev_dev *dev);

/* nvmev_host_mem.c: host memory the device reaches */
int nvmev_host_init(struct nvmev_dev *dev);
void nvmev_host_exit(struct nvmev_dev *dev);
void *nvmev_host_ptr(struct nvmev_dev *dev, u64 addr, u64 len, bool write);
/* memory going offline under a live ring (nvmev_offline.c) */
void nvmev_offline_init(struct nvmev_dev *dev);
bool nvmev_offline_holds(struct nvmev_dev *dev, u64 addr, u64 len);
int nvmev_offline_watch(struct nvmev_dev *dev);
void nvmev_offline_unwatch(struct nvmev_dev *dev);
bool nvmev_offline_poll(struct nvmev_dev *dev);
u16 nvmev_prp_copy(struct nvmev_dev *dev, u64 prp1, u64 prp2, void *buf,
		   u64 len, bool to_host);
/* nvmev_prp_copy()'s status for those PRPs, moving nothing */
u16 nvmev_prp_check_host(struct nvmev_dev *dev, u64 prp1, u64 prp2, u64 len,
			 bool to_host);
/* the same between the host and bytes [@off, @off + @len) of the store */
u16 nvmev_prp_copy_store(struct nvmev_dev *dev, u64 prp1, u64 prp2, u64 off,
			 u64 len, bool to_host);

/* nvmev_store.c: worker only */
void nvmev_store_init_linear(struct nvmev_dev *dev, void *data);
void nvmev_store_init_pages(struct nvmev_dev *dev, u64 max_pages);
void nvmev_store_exit(struct nvmev_dev *dev);
/*
 * The bytes at @off, contiguous for *@n (lowered to the end of a unit);
 * @write allocates a missing page, NULL if there is none to be had; a
 * read of a unit without one gives zeroes.
 */
u8 *nvmev_store_at(struct nvmev_dev *dev, u64 off, u32 *n, bool write);
/* zero @len bytes at @off, within one unit */
void nvmev_store_zero(struct nvmev_dev *dev, u64 off, u64 len);
/* units @unit.. read as zeroes from now on */
void nvmev_store_zero_units(struct nvmev_dev *dev, u64 unit, u64 n);
/* units the model has unmapped: free what holds them, if anything */
void nvmev_store_drop(struct nvmev_dev *dev, u64 unit, u64 n);

/* nvmev_io.c: a deleted namespace's slice of the flash, deallocated */
void nvmev_io_ns_release(struct nvmev_dev *dev, u32 nsid, u64 off, u64 end);

/*
 * nvmev_nsmgmt_exec.c: Identify's allocated namespaces and controller
 * lists (nothing for another CNS); a held AER takes a pending event
 * (true, its dword 0 in @result); log 04h into @page; after a reset
 */
void nvmev_nsmgmt_identify(struct nvmev_dev *dev,
			   const struct nvmev_admin_req *req, u8 *buf);
bool nvmev_ns_event_take(struct nvmev_dev *dev, u32 *result);
void nvmev_changed_ns_log(struct nvmev_dev *dev,
			  const struct nvmev_admin_req *req, u8 *page);
void nvmev_nsmgmt_reset(struct nvmev_dev *dev);

/* nvmev_admin.c: Identify Namespace of @ns (NULL: inactive, zeroes) */
struct nvme_id_ns;
void nvmev_identify_ns(struct nvmev_dev *dev, u32 nsid,
		       const struct nvmev_ns *ns, struct nvme_id_ns *id);
/* nvmev_admin.c: completes the command, except a held AER */
void nvmev_admin_execute(struct nvmev_dev *dev, const struct nvmev_sqe *sqe);
/* a controller reset: features back to their defaults, held AERs dropped */
void nvmev_admin_reset(struct nvmev_dev *dev);

/*
 * nvmev_errlog.c: record a command that completed with error @status, the
 * field at fault at @error_loc (nvmev_err_loc(), or NVMEV_ERR_LOC_NONE)
 */
void nvmev_errlog_add(struct nvmev_dev *dev, u16 sqid, u16 cid, u32 nsid,
		      u16 status, u64 lba, u16 error_loc);
void nvmev_errlog_io(struct nvmev_dev *dev, u16 sqid,
		     const struct nvmev_sqe *sqe, u16 status, u16 error_loc);
/* the log page, newest first, into zeroed @page of the log's size */
void nvmev_errlog_read(const struct nvmev_dev *dev, void *page);

/* nvmev_zoned.c: zoned namespaces' zones, made with the drive */
int nvmev_zoned_create(struct nvmev_dev *dev, u32 nsid,
		       const struct nvmev_ns_conf *conf);
void nvmev_zoned_destroy(struct nvmev_dev *dev);

/* nvmev_io.c */
/* a Read's or Write's data moved and timed (*@due), counted */
u16 nvmev_io_data(struct nvmev_dev *dev, const struct nvmev_io_req *req,
		  bool write, u64 *due);
/* a Write Zeroes timed in the model, then carried out (NVMEV_SC_HELD) */
void nvmev_io_zeroes_begin(struct nvmev_dev *dev, u16 sqid,
			   const struct nvmev_io_req *req, struct nvmev_trim *t);
u16 nvmev_io_zeroes_run(struct nvmev_dev *dev, struct nvmev_trim *t);
int nvmev_io_init(struct nvmev_dev *dev);
void nvmev_io_exit(struct nvmev_dev *dev);
/* may @sqe be fetched now (no held slot for a long deallocation: not yet) */
bool nvmev_io_ready(struct nvmev_dev *dev, const struct nvmev_sqe *sqe);
/* completes the command, at once or, a long deallocation, later */
void nvmev_io_execute(struct nvmev_dev *dev, u16 sqid,
		      const struct nvmev_sqe *sqe);
/* Each worker pass: a slice of the held deallocations; nonzero if any. */
int nvmev_io_background(struct nvmev_dev *dev);
/* SQ @sqid is being deleted: its held commands complete as aborted */
void nvmev_io_sq_deleted(struct nvmev_dev *dev, u16 sqid);
/* a controller reset: held commands dropped */
void nvmev_io_reset(struct nvmev_dev *dev);

/* nvmev_debugfs.c */
void nvmev_debugfs_init(struct nvmev_dev *dev);
void nvmev_debugfs_exit(struct nvmev_dev *dev);

#endif /* NVMEV_H */
