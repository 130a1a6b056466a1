/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmev: shared definitions of the virtual NVMe controller.
 *
 * Layers, each in its own file, as in drivers/nvme/target:
 *   nvmev_pci.c     virtual PCI bus, config space, MSI-X delivery
 *   nvmev_ctrl.c    BAR registers, queues, doorbells, the worker thread
 *   nvmev_cmd.c     parsing of commands (portable, fuzzed in userspace)
 *   nvmev_prp.c     PRP walking (portable, fuzzed in userspace)
 *   nvmev_admin.c   admin command set
 *   nvmev_io.c      NVM command set and data movement
 *   nvmev_debugfs.c geometry and statistics
 * The flash model (ftl/) only decides *when* an I/O completes.
 */
#ifndef NVMEV_H
#define NVMEV_H

#include <linux/mutex.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "ftl.h"
#include "nvmev_cmd.h"
#include "nvmev_hint.h"

#define NVMEV_BAR_SIZE		SZ_16K	/* registers, doorbells, MSI-X */
#define NVMEV_MSIX_OFFSET	0x2000	/* table in BAR0 */
#define NVMEV_PBA_OFFSET	0x3000
#define NVMEV_STORAGE_OFFSET	SZ_1M	/* data starts 1 MiB into memmap */
/* one slot per entry of every possible queue: the heap cannot overflow */
#define NVMEV_DONE_SLOTS	(NVMEV_MAX_QUEUES * (NVMEV_MQES + 1))

struct nvmev_sq {
	bool live;
	u16 qid;
	u16 cqid;
	u32 size;
	u32 head;
	struct nvme_command *ring;	/* host memory, direct map */
};

struct nvmev_cq {
	bool live;
	bool irq_enabled;
	u16 qid;
	u16 vector;
	u32 size;
	u32 tail;
	u32 head;			/* last head the host rang */
	u8 phase;
	u16 nr_sqs;			/* SQs bound to this CQ */
	u32 irq_pending;		/* posted, interrupt not yet raised */
	u64 irq_first_ns;		/* when the oldest of those was posted */
	struct nvme_completion *ring;
};

/* A completion waiting for its modelled time (or for CQ space). */
struct nvmev_done {
	u64 due_ns;
	u64 seq;			/* FIFO among equal due times */
	u16 cqid;
	struct nvme_completion cqe;
};

struct nvmev_stats {
	u64 admin_cmds;
	u64 io_cmds[256];		/* by opcode */
	u64 io_errors;
	u64 admin_errors;
	u64 irqs;
	u64 bad_doorbells;
	u64 cq_full_waits;
	u64 hint_bits_disabled;		/* hint bits on writes, feature off */
	/* how late completions were posted against the model's due time */
	u64 posted;
	u64 post_late_ns;		/* sum */
	u64 post_late_max_ns;
};

struct nvmev_dev {
	/* configuration */
	struct ftl_config cfg;
	u64 memmap_start;
	u64 memmap_size;
	u32 max_io_queues;
	int cpu;			/* worker CPU, -1 = any */
	u32 spin_us;			/* busy-poll this long after activity */
	u32 sleep_max_us;		/* longest idle sleep */

	/* PCI side */
	struct pci_bus *bus;
	struct pci_dev *pdev;
	struct pci_ops pci_ops;
	struct pci_sysdata sysdata;
	u8 cfg_space[PCI_CFG_SPACE_EXP_SIZE];
	void __iomem *bar;		/* BAR0 = first pages of memmap */
	u32 __iomem *dbs;
	void *storage;
	u64 storage_bytes;
	/* namespace size and format, hint feature: what the parser sees */
	struct nvmev_ns_view ns;

	/* controller state, owned by the worker thread */
	u32 cc;
	u32 nr_io_queues;		/* granted by Set Features 0x07 */
	struct nvmev_sq sqs[NVMEV_MAX_QUEUES];
	struct nvmev_cq cqs[NVMEV_MAX_QUEUES];
	u16 aer_cids[NVMEV_AERL + 1];
	u32 nr_aers;
	u32 coalesce_thr;		/* feature 0x08, 0's based */
	u32 coalesce_time_us;
	DECLARE_BITMAP(vector_no_coalesce, NVMEV_MAX_QUEUES);
	bool vwc;			/* volatile write cache enabled */
	u64 seq;

	/* completions in flight: min-heap on (due_ns, seq) */
	struct nvmev_done *done;
	u32 nr_done;

	struct ftl *ftl;
	struct mutex model_lock;	/* the model: worker vs debugfs readers */
	struct nvmev_stats stats;
	u64 smart_units_read;		/* 1000 x 512 B units, for SMART */
	u64 smart_units_written;
	u64 smart_host_reads;
	u64 smart_host_writes;
	u64 power_on_ns;

	struct task_struct *worker;
	struct dentry *debugfs;
	u64 locate_lba;			/* debugfs "locate" query */
};

/* nvmev_pci.c */
int nvmev_pci_create(struct nvmev_dev *dev);
void nvmev_pci_remove(struct nvmev_dev *dev);
void nvmev_pci_signal(struct nvmev_dev *dev, u16 vector);

/* nvmev_ctrl.c */
int nvmev_ctrl_start(struct nvmev_dev *dev);
void nvmev_ctrl_stop(struct nvmev_dev *dev);
void nvmev_complete(struct nvmev_dev *dev, u16 sqid, u16 cid, u16 status,
		    u32 result, u64 due_ns);
bool nvmev_cq_create(struct nvmev_dev *dev, u16 qid, u64 addr, u32 size,
		     bool ien, u16 vector);
bool nvmev_sq_create(struct nvmev_dev *dev, u16 qid, u64 addr, u32 size,
		     u16 cqid);
void nvmev_sq_delete(struct nvmev_dev *dev, u16 qid);
void nvmev_cq_delete(struct nvmev_dev *dev, u16 qid);

/* nvmev_admin.c: completes the command, except a held AER */
void nvmev_admin_execute(struct nvmev_dev *dev, struct nvme_command *cmd);

/* nvmev_io.c */
void nvmev_io_execute(struct nvmev_dev *dev, u16 sqid,
		      struct nvme_command *cmd);
u16 nvmev_prp_copy(struct nvmev_dev *dev, u64 prp1, u64 prp2, void *buf,
		   u64 len, bool to_host);

/* nvmev_debugfs.c */
void nvmev_debugfs_init(struct nvmev_dev *dev);
void nvmev_debugfs_exit(struct nvmev_dev *dev);

#endif /* NVMEV_H */
