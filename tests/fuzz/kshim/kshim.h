/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's API for nvmev_io.c, nvmev_zoned.c and
 * nvmev_store.c -- the module's data path, unchanged -- to build in
 * userspace for fuzz_model (tests/fuzz/fuzz_model.cc). Every <linux/...>
 * header those files and nvmev.h include is a file next to this one that
 * includes it, so the real nvmev.h is used: the fields the data path
 * touches are the module's own. What the fuzzer must see or steer is
 * exported: the clock (kshim_now_ns), the page allocator's failures and
 * count (kshim_pages), the xarray (kshim.cc). The rest of nvmev_dev (PCI,
 * MSI, locks) is placeholders the data path never uses.
 */
#ifndef NVMEV_KSHIM_H
#define NVMEV_KSHIM_H

#include <assert.h>
#include <stdint.h>

#include "ftl_compat.h"
#include "nvmev_compat.h"
#include "nvmev_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* __le16 and friends: the uapi <linux/types.h>, which ours includes */

#define U16_MAX		((u16)~0U)
#define SZ_1M		0x100000
#define SZ_16K		0x4000
#define PAGE_SHIFT	12
#define PAGE_SIZE	4096ul
#define PCI_CFG_SPACE_EXP_SIZE	4096
#define BITS_PER_LONG	64
#define DECLARE_BITMAP(name, bits) unsigned long name[((bits) + 63) / 64]

/* C only: C++'s std::min and std::max are functions of these names */
#ifndef __cplusplus
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#endif

/* placeholders of nvmev_dev's PCI, MSI and thread fields */
typedef struct { int v; } atomic_t;
typedef struct { int v; } raw_spinlock_t;
typedef struct { int v; } spinlock_t;
typedef struct { int v; } call_single_data_t;
struct irq_work { int v; };
struct completion { int v; };
struct notifier_block { int v; };
struct msi_domain_info { int v; };
struct pci_ops { int v; };
struct pci_sysdata { int domain; };
struct resource { u64 start, end; };
struct irq_domain;
struct pci_bus;
struct pci_dev;
struct task_struct;
struct dentry;

/* what <linux/nvme.h> gives nvmev.h and nvmev_io.c beyond nvmev_spec.h */
struct nvme_command { u32 dw[16]; };
struct nvme_error_slot { u8 bytes[64]; };

/* the model lock: the fuzzer is one thread, but a lock taken twice is a bug */
struct mutex { int held; };
#define mutex_lock(m)	do { if ((m)->held++) abort(); } while (0)
#define mutex_unlock(m)	do { if (--(m)->held) abort(); } while (0)

/* the fuzzer's clock */
extern u64 kshim_now_ns;
static inline u64 ktime_get_ns(void) { return kshim_now_ns; }
static inline void cond_resched(void) { }

/* a kernel WARN is a bug the fuzzer stops on */
#define WARN_ON_ONCE(c)	({ if (c) abort(); 0; })

/* quiet, but the arguments used (formats: the kernel build checks them) */
#define pr_err(...)	do { if (0) printf(__VA_ARGS__); } while (0)
#define pr_warn(...)	do { if (0) printf(__VA_ARGS__); } while (0)

typedef unsigned int gfp_t;
#define GFP_KERNEL	0x1u
#define GFP_NOIO	0x2u
#define __GFP_NOWARN	0x4u
#define __GFP_NORETRY	0x8u
#define __GFP_ZERO	0x10u

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return n && size > SIZE_MAX / n ? NULL : malloc(n * size ? n * size : 1);
}
static inline void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size ? size : 1);
}
static inline void *kvzalloc(size_t size, gfp_t gfp) { return kzalloc(size, gfp); }
static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n ? n : 1, size ? size : 1);
}
static inline void kfree(const void *p) { free((void *)p); }
static inline void kvfree(const void *p) { free((void *)p); }

static inline bool is_power_of_2(u64 n) { return n && !(n & (n - 1)); }
#define ilog2(n)	(63 - __builtin_clzll((u64)(n)))

/*
 * Pages of the page-backed store. A page the store did not ask zeroed
 * holds garbage, as the kernel's may: a unit whose bytes the data path
 * forgets to set reads as that, not as zeroes by luck.
 */
struct page { u8 data[4096]; };
extern u64 kshim_pages;		/* allocated now */
struct page *alloc_page(gfp_t gfp);
void __free_page(struct page *page);
static inline void *page_address(struct page *page) { return page->data; }

/* vmap of ZERO_PAGE: nvmev_io_init(); the fuzzer gives dev->zeroes itself */
#define ZERO_PAGE(x)	((struct page *)NULL)
#define VM_MAP		0
#define PAGE_KERNEL_RO	0
void *vmap(struct page **pages, unsigned int n, unsigned long flags, int prot);
void vunmap(const void *addr);

/* the store's index, unit -> page (kshim.cc: a std::map) */
struct xarray { void *map; };
void xa_init(struct xarray *xa);
void xa_destroy(struct xarray *xa);
void *xa_load(struct xarray *xa, unsigned long index);
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *xa_erase(struct xarray *xa, unsigned long index);
/* the first entry at or after *@index, at most @last; *@index set to it */
void *xa_find(struct xarray *xa, unsigned long *index, unsigned long last);
static inline bool xa_is_err(const void *entry) { (void)entry; return false; }
#define xa_for_each_range(xa, index, entry, start, last)		\
	for ((index) = (start), (entry) = xa_find((xa), &(index), (last)); \
	     (entry); (entry) = (index) < (last) ?			\
		((index)++, xa_find((xa), &(index), (last))) : NULL)
#define xa_for_each(xa, index, entry)	xa_for_each_range(xa, index, entry, 0, ~0ul)

/*
 * Host memory (nvmev_host_mem.c): the fuzzer's buffer is the one System RAM
 * range, its userspace addresses the host's physical ones, every page
 * present and writable.
 */
extern u64 kshim_ram_start, kshim_ram_end;
#define IORES_DESC_NONE		0
#define IORESOURCE_SYSTEM_RAM	0
static inline int walk_iomem_res_desc(unsigned long desc, unsigned long flags,
				      u64 start, u64 end, void *arg,
				      int (*fn)(struct resource *, void *))
{
	struct resource r = { kshim_ram_start, kshim_ram_end - 1 };

	(void)desc; (void)flags; (void)start; (void)end;
	return fn(&r, arg);
}
static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kvcalloc(n, size, gfp);
}
typedef struct { int present; } pte_t;
#define PHYS_PFN(addr)		((addr) >> PAGE_SHIFT)
#define pfn_valid(pfn)		((void)(pfn), 1)
#define phys_to_virt(addr)	((void *)(uintptr_t)(addr))
#define pfn_to_page(pfn)	((struct page *)(uintptr_t)((u64)(pfn) << PAGE_SHIFT))
#define kmap_local_page(p)	((void *)(p))
#define kunmap_local(p)		((void)(p))
static inline pte_t *lookup_address(unsigned long addr, unsigned int *level)
{
	static pte_t pte = { 1 };

	(void)addr;
	*level = 0;
	return &pte;
}
#define pte_present(pte)	((pte).present)
#define pte_write(pte)		((pte).present)

#ifdef __cplusplus
}
#endif

#endif /* NVMEV_KSHIM_H */
