/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the portable controller files (nvmev_ctrl.c, nvmev_cmd.c,
 * nvmev_prp.c) need beyond ftl/ftl_compat.h: access to the register BAR,
 * and the ordering barriers of a device writing host memory (a state that
 * cannot happen is ftl_warn_once()). In nvmev.ko these are the kernel's own;
 * the userspace build (the fuzzers) gets plain equivalents.
 *
 * It is also the one place for what differs between the kernels nvmev.ko
 * builds against (Debian 12's 6.1 and 6.12): the .c files use what is
 * defined here and test no LINUX_VERSION_CODE themselves.
 */
#ifndef NVMEV_COMPAT_H
#define NVMEV_COMPAT_H

#include "ftl_compat.h"

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
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
