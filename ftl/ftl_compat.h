/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only door between the flash model and its host environment.
 *
 * Everything in ftl/ is built twice from the same files: into nvmev.ko
 * (Kbuild) and into a userspace static library (CMake). Code in ftl/ must
 * not include any other system header nor call any function that is not
 * defined here, so the two builds cannot drift apart.
 */
#ifndef FTL_COMPAT_H
#define FTL_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/bug.h>
#include <asm/byteorder.h>

static inline void *ftl_zalloc(size_t n, size_t size)
{
	return kvcalloc(n, size, GFP_KERNEL);
}

static inline void ftl_free(void *p)
{
	kvfree(p);
}

static inline u64 ftl_div64(u64 a, u64 b)
{
	return div64_u64(a, b);
}

static inline u64 ftl_mod64(u64 a, u64 b)
{
	u64 rem;

	div64_u64_rem(a, b, &rem);
	return rem;
}

#define ftl_snprintf snprintf
#define ftl_vsnprintf vsnprintf
#define ftl_memset memset
#define ftl_memcpy memcpy
/* 4 KiB between page-aligned buffers: the architecture's page copier */
#define ftl_copy_page(dst, src) copy_page((dst), (void *)(src))
#define ftl_printf(a, b) __printf(a, b)
/* a state that cannot happen: the kernel's warning, once per site */
#define ftl_warn_once(cond)	WARN_ON_ONCE(cond)

/* little-endian words read from host memory (commands, PRP lists) */
static inline u64 ftl_le64_to_cpu(u64 v)
{
	return le64_to_cpu((__force __le64)v);
}

static inline u32 ftl_le32_to_cpu(u32 v)
{
	return le32_to_cpu((__force __le32)v);
}

#else /* userspace */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the compiler's own names, so u64 is the same type as C++'s uint64_t */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;

#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1UL << (n))

static inline void *ftl_zalloc(size_t n, size_t size)
{
	return calloc(n, size);
}

static inline void ftl_free(void *p)
{
	free(p);
}

static inline u64 ftl_div64(u64 a, u64 b)
{
	return a / b;
}

static inline u64 ftl_mod64(u64 a, u64 b)
{
	return a % b;
}

#define ftl_snprintf snprintf
#define ftl_vsnprintf vsnprintf
#define ftl_memset memset
#define ftl_memcpy memcpy
#define ftl_copy_page(dst, src) memcpy((dst), (src), 4096)
/* format checking of ftl_printf() functions is done by the kernel build */
#define ftl_printf(a, b)
/*
 * a state that cannot happen: the simulator, the tests and the fuzzers stop
 * on it (abort() is what libFuzzer and CTest report)
 */
#define ftl_warn_once(cond)	((cond) ? (abort(), 1) : 0)
/* the kernel's name for the statement attribute; C only: CLI11 has a method of that name */
#ifndef __cplusplus
#define fallthrough __attribute__((__fallthrough__))
#endif

static inline u64 ftl_le64_to_cpu(u64 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return v;
#else
	return __builtin_bswap64(v);
#endif
}

static inline u32 ftl_le32_to_cpu(u32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return v;
#else
	return __builtin_bswap32(v);
#endif
}

#endif /* __KERNEL__ */

static inline u64 ftl_max64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static inline u64 ftl_min64(u64 a, u64 b)
{
	return a < b ? a : b;
}

#endif /* FTL_COMPAT_H */
