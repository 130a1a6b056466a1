/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the portable controller files (nvmev_ctrl.c, nvmev_cmd.c,
 * nvmev_prp.c) need beyond ftl/ftl_compat.h: access to the register BAR,
 * and the ordering barriers of a device writing host memory (a state that
 * cannot happen is ftl_warn_once()). In nvmev.ko these are the kernel's own;
 * the userspace build (the fuzzers) gets plain equivalents.
 *
 * It is also the one place for what differs between the kernels nvmev.ko
 * builds against (Debian 12's 6.1 and 6.12, Debian 13's 7.2): the .c
 * files use what is defined here and test no LINUX_VERSION_CODE
 * themselves.
 */
#ifndef NVMEV_COMPAT_H
#define NVMEV_COMPAT_H

#include "ftl_compat.h"

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/irqdomain.h>
#include <linux/msi.h>
#include <linux/version.h>

/*
 * get_unaligned_le32() and friends. Linux 6.12 moved the header from
 * <asm/unaligned.h> to <linux/unaligned.h> (commit 5f60d5f6bbc1, in
 * 6.12-rc2) and removed the old one; 6.1 has only the old one. The
 * functions and their semantics are the same: only the path differs.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * Whether [@start, @end) is RAM to the firmware's E820 table: some RAM and
 * nothing the firmware marked otherwise (nvmev_bar_mem.c: a memmap= range
 * must be RAM memmap= reserved, a block given back boot RAM). memmap= and
 * the firmware both make Reserved in the kernel's own table: only the
 * firmware's tells them apart.
 *
 * Up to 6.x the module reads it with e820__mapped_raw_any(). There "marked
 * otherwise" includes E820_TYPE_RESERVED_KERN up to 6.14, RAM the kernel
 * set aside for its boot data (setup_data), in its own table, never in the
 * firmware's; 6.15 removed the type (commit efe659ac0146: that data is
 * reserved in memblock, its range stays RAM).
 *
 * Later kernels export e820__mapped_raw_any() to KVM's modules alone
 * (EXPORT_SYMBOL_FOR_KVM, defined from then on): there the module reads
 * the same table from /sys/firmware/memmap (nvmev_fwmap.c), which needs
 * CONFIG_FIRMWARE_MEMMAP (Debian's 7.2 has it; the guest kernel this tree
 * builds from 6.1 does not, hence not on every kernel).
 */
#include <linux/kvm_types.h>
#include <asm/e820/api.h>

#ifdef EXPORT_SYMBOL_FOR_KVM
#define nvmev_e820_firmware_ram	nvmev_fwmap_ram
#else
static inline bool nvmev_e820_firmware_ram(u64 start, u64 end)
{
	static const enum e820_type not_ram[] = {
		E820_TYPE_ACPI, E820_TYPE_NVS, E820_TYPE_UNUSABLE,
		E820_TYPE_PMEM, E820_TYPE_PRAM, E820_TYPE_SOFT_RESERVED,
		E820_TYPE_RESERVED,
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0)
		E820_TYPE_RESERVED_KERN,
#endif
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(not_ram); i++)
		if (e820__mapped_raw_any(start, end, not_ram[i]))
			return false;
	return e820__mapped_raw_any(start, end, E820_TYPE_RAM);
}
#endif

/*
 * The module's own MSI domain for its PCI function (nvmev_msi.c), from
 * @info: the chip that composes the message and keeps the affinity, the
 * flow handler, and ops->msi_free, called for each interrupt freed.
 *
 * Up to 6.16 it is a PCI/MSI domain of its own (pci_msi_create_irq_domain()),
 * the Linux interrupt's only level. 6.17 converted the PCI host drivers
 * (VMD's among them) to MSI parent domains and later kernels removed
 * pci_msi_create_irq_domain(): the driver creates a parent domain
 * (msi_create_parent_irq_domain()) and the PCI core puts a per-device
 * PCI/MSI-X domain on top of it when the host's driver allocates vectors.
 * The parent here does what the old domain did: @info's chip and handler
 * on each interrupt, hwirq the MSI-X index, @info->ops->msi_free on free.
 * Affinity goes through the device domain to the parent's chip
 * (msi_domain_set_affinity(), which msi_lib_init_dev_msi_info() installs).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#include <linux/irqchip/irq-msi-lib.h>

static inline int nvmev_msi_parent_alloc(struct irq_domain *domain,
					 unsigned int virq,
					 unsigned int nr_irqs, void *arg)
{
	struct msi_domain_info *info = domain->host_data;
	struct msi_desc *desc = ((msi_alloc_info_t *)arg)->desc;
	unsigned int i;

	for (i = 0; i < nr_irqs; i++)
		irq_domain_set_info(domain, virq + i, desc->msi_index + i,
				    info->chip, NULL, info->handler, NULL,
				    info->handler_name);
	return 0;
}

static inline void nvmev_msi_parent_free(struct irq_domain *domain,
					 unsigned int virq,
					 unsigned int nr_irqs)
{
	struct msi_domain_info *info = domain->host_data;
	unsigned int i;

	for (i = 0; i < nr_irqs; i++)
		info->ops->msi_free(domain, info, virq + i);
}

static inline struct irq_domain *
nvmev_msi_create_domain(struct fwnode_handle *fn, struct msi_domain_info *info,
			unsigned int nr_vectors)
{
	static const struct irq_domain_ops ops = {
		.alloc = nvmev_msi_parent_alloc,
		.free = nvmev_msi_parent_free,
	};
	static const struct msi_parent_ops parent_ops = {
		.supported_flags = MSI_GENERIC_FLAGS_MASK | MSI_FLAG_PCI_MSIX,
		.required_flags = MSI_FLAG_USE_DEF_DOM_OPS,
		.bus_select_token = DOMAIN_BUS_NEXUS,
		.bus_select_mask = MATCH_PCI_MSI,
		.prefix = "nvmev-",
		.init_dev_msi_info = msi_lib_init_dev_msi_info,
	};
	struct irq_domain_info di = {
		.fwnode = fn,
		.ops = &ops,
		.host_data = info,
		.size = nr_vectors,
	};

	return msi_create_parent_irq_domain(&di, &parent_ops);
}

/* @d's level in the module's domain: the device domain's parent */
static inline struct irq_data *nvmev_msi_own_level(struct irq_data *d)
{
	return d->parent_data;
}
#else
static inline struct irq_domain *
nvmev_msi_create_domain(struct fwnode_handle *fn, struct msi_domain_info *info,
			unsigned int nr_vectors)
{
	return pci_msi_create_irq_domain(fn, info, NULL);
}

/* @d's level in the module's domain: the only one */
static inline struct irq_data *nvmev_msi_own_level(struct irq_data *d)
{
	return d;
}
#endif

static inline u32 nvmev_rd32(const void __iomem *bar, u32 off)
{
	return readl(bar + off);
}

static inline u64 nvmev_rd64(const void __iomem *bar, u32 off)
{
	return lo_hi_readq(bar + off);
}

static inline void nvmev_wr32(void __iomem *bar, u32 off, u32 v)
{
	writel(v, bar + off);
}

static inline void nvmev_wr64(void __iomem *bar, u32 off, u64 v)
{
	lo_hi_writeq(v, bar + off);
}

/*
 * A doorbell the host may write at the same moment: set it to @v only if
 * it still holds @old (returned when so). BAR0 is RAM the module mapped;
 * the locked access is what makes it atomic against the host's store.
 */
static inline u32 nvmev_cmpxchg32(void __iomem *bar, u32 off, u32 old, u32 v)
{
	return cmpxchg((u32 __force *)(bar + off), old, v);
}

/* host memory: read what the host wrote before its doorbell, publish ours */
#define nvmev_rmb()	rmb()
#define nvmev_wmb()	dma_wmb()
#define nvmev_write_once(x, v)	WRITE_ONCE(x, v)
#define nvmev_read_once(x)	READ_ONCE(x)

#else /* userspace */

/* the kernel's marker of device memory, nothing to a userspace compiler */
#define __iomem

#ifdef NVMEV_TEST_HOOKS
/*
 * The unit tests' host (tests/unit/test_ctrl.cc), called after every
 * register read: it writes between what the controller read and what it
 * does with it.
 */
void nvmev_test_after_read(const void *bar, u32 off);
#else
#define nvmev_test_after_read(bar, off) do { } while (0)
#endif

/* relaxed atomics: each access happens, whole, as the host wrote it */
static inline u32 nvmev_rd32(const void *bar, u32 off)
{
	u32 v = __atomic_load_n((const u32 *)((const u8 *)bar + off),
				__ATOMIC_RELAXED);

	nvmev_test_after_read(bar, off);
	return v;
}

static inline u64 nvmev_rd64(const void *bar, u32 off)
{
	return nvmev_rd32(bar, off) | ((u64)nvmev_rd32(bar, off + 4) << 32);
}

static inline void nvmev_wr32(void *bar, u32 off, u32 v)
{
	__atomic_store_n((u32 *)((u8 *)bar + off), v, __ATOMIC_RELAXED);
}

static inline void nvmev_wr64(void *bar, u32 off, u64 v)
{
	nvmev_wr32(bar, off, (u32)v);
	nvmev_wr32(bar, off + 4, (u32)(v >> 32));
}

static inline u32 nvmev_cmpxchg32(void *bar, u32 off, u32 old, u32 v)
{
	__atomic_compare_exchange_n((u32 *)((u8 *)bar + off), &old, v, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}

#define nvmev_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define nvmev_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define nvmev_write_once(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define nvmev_read_once(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

#endif /* __KERNEL__ */

/* CPU to little-endian: the same byte swap as the other way round */
static inline u32 nvmev_cpu_to_le32(u32 v)
{
	return ftl_le32_to_cpu(v);
}

#endif /* NVMEV_COMPAT_H */
