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
#define ftl_memset memset
#define ftl_memcpy memcpy

#else /* userspace */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#ifndef U32_MAX
#define U32_MAX UINT32_MAX
#endif
#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif

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
#define ftl_memset memset
#define ftl_memcpy memcpy

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
