/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's parser of a command's data pointer (PRP1, PRP2 and PRP
 * lists). It reaches host memory only through struct nvmev_host_mem and
 * uses nothing but ftl/ftl_compat.h, so the same file builds into nvmev.ko
 * and into the userspace fuzz target (tests/fuzz/), which gives it a fake
 * host memory.
 */
#ifndef NVMEV_PRP_H
#define NVMEV_PRP_H

#include "ftl_compat.h"

/* Memory page size of the controller (CC.MPS = 0, the only one offered). */
#define NVMEV_PRP_PAGE		4096u

/* How the walker sees host memory: one page at a time. */
struct nvmev_host_mem {
	/*
	 * The page at page-aligned @addr, or NULL if it is not host RAM (or,
	 * for @write, not writable host RAM).
	 */
	void *(*map)(void *ctx, u64 addr, bool write);
	void (*unmap)(void *ctx, void *page);
	void *ctx;
};

/*
 * The device's side of a transfer, which need not be contiguous (a
 * page-backed store is one page per 4 KiB unit).
 */
struct nvmev_dev_mem {
	/*
	 * The device bytes at offset @pos of the transfer, contiguous for
	 * *@n bytes (lowered to where the run ends); @write: the transfer
	 * writes them (from the host). NULL: no room to hold them.
	 */
	u8 *(*at)(void *ctx, u64 pos, u32 *n, bool write);
	void *ctx;
};

enum nvmev_prp_result {
	NVMEV_PRP_OK,
	NVMEV_PRP_BAD_OFFSET,	/* an entry breaks the PRP alignment rules */
	NVMEV_PRP_NOT_RAM,	/* an entry or list points outside host RAM */
	NVMEV_PRP_NO_SPACE,	/* the device had no room for the data */
};

/*
 * Copy @len bytes between the device memory @dev and the host buffer
 * described by @prp1 and @prp2 (to the host if @to_host). Stops at the
 * first bad entry; pages copied before it stay copied, as with a real
 * device's DMA.
 */
enum nvmev_prp_result nvmev_prp_xfer(const struct nvmev_host_mem *mem,
				     u64 prp1, u64 prp2,
				     const struct nvmev_dev_mem *dev, u64 len,
				     bool to_host);

/* The same with a contiguous buffer @buf of @len bytes on the device. */
/*
 * Walk the PRPs of a @len-byte transfer as nvmev_prp_xfer() would, moving
 * nothing. After NVMEV_PRP_OK the transfer moves all of its bytes, or
 * fails before it moves one, unless the device has no room: a write
 * checked first changes nothing when its PRPs are bad.
 */
enum nvmev_prp_result nvmev_prp_check(const struct nvmev_host_mem *mem,
				      u64 prp1, u64 prp2, u64 len, bool to_host);

enum nvmev_prp_result nvmev_prp_copy_mem(const struct nvmev_host_mem *mem,
					 u64 prp1, u64 prp2, void *buf,
					 u64 len, bool to_host);

#endif /* NVMEV_PRP_H */
