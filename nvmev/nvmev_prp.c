// SPDX-License-Identifier: GPL-2.0
/*
 * PRP walking (NVMe base specification, "Physical Region Page entry and
 * list"), portable: see nvmev_prp.h.
 */
#include "nvmev_prp.h"

static u32 nvmev_prp_offset(u64 addr)
{
	return (u32)(addr & (NVMEV_PRP_PAGE - 1));
}

static u64 nvmev_prp_page(u64 addr)
{
	return addr & ~(u64)(NVMEV_PRP_PAGE - 1);
}

/*
 * A whole page between page-aligned buffers is the common move (a 4 KiB
 * I/O, every middle page of a larger one): it goes by the architecture's
 * page copier. On x86 that is rep movsq where memcpy() is rep movsb (ERMS);
 * the same on hardware, but QEMU's TCG, which runs the guests this device
 * is tested in, emulates rep movsb byte by byte: 4 KiB then costs about
 * 7x the page copier's time on the device's thread.
 */
static void nvmev_prp_move(u8 *dst, const u8 *src, u32 n)
{
	if (n == NVMEV_PRP_PAGE &&
	    !(((unsigned long)dst | (unsigned long)src) & (NVMEV_PRP_PAGE - 1)))
		ftl_copy_page(dst, src);
	else
		ftl_memcpy(dst, src, n);
}

/*
 * @n bytes (within one host page) between host address @addr and the
 * device memory at transfer offset @pos, in the device's runs.
 */
static enum nvmev_prp_result nvmev_prp_chunk(const struct nvmev_host_mem *mem,
					     u64 addr,
					     const struct nvmev_dev_mem *dev,
					     u64 pos, u32 n, bool to_host)
{
	u8 *page = mem->map(mem->ctx, nvmev_prp_page(addr), to_host);
	u8 *host;

	if (!page)
		return NVMEV_PRP_NOT_RAM;
	if (!dev) {			/* nvmev_prp_check(): the page is there */
		mem->unmap(mem->ctx, page);
		return NVMEV_PRP_OK;
	}
	host = page + nvmev_prp_offset(addr);
	while (n) {
		u32 run = n;
		u8 *d = dev->at(dev->ctx, pos, &run, !to_host);

		if (!d || !run || run > n) {
			mem->unmap(mem->ctx, page);
			return NVMEV_PRP_NO_SPACE;
		}
		if (to_host)
			nvmev_prp_move(host, d, run);
		else
			nvmev_prp_move(d, host, run);
		host += run;
		pos += run;
		n -= run;
	}
	mem->unmap(mem->ctx, page);
	return NVMEV_PRP_OK;
}

static u8 *nvmev_prp_linear_at(void *ctx, u64 pos, u32 *n, bool write)
{
	return (u8 *)ctx + pos;
}

enum nvmev_prp_result nvmev_prp_copy_mem(const struct nvmev_host_mem *mem,
					 u64 prp1, u64 prp2, void *buf,
					 u64 len, bool to_host)
{
	const struct nvmev_dev_mem dev = { nvmev_prp_linear_at, buf };

	return nvmev_prp_xfer(mem, prp1, prp2, &dev, len, to_host);
}

enum nvmev_prp_result nvmev_prp_xfer(const struct nvmev_host_mem *mem,
				     u64 prp1, u64 prp2,
				     const struct nvmev_dev_mem *dev, u64 len,
				     bool to_host)
{
	const u32 per_list = NVMEV_PRP_PAGE / sizeof(u64);
	enum nvmev_prp_result ret;
	u64 *list = NULL, list_addr = prp2;
	u64 pos = 0;
	u32 n, idx;

	/* PRP1 may start anywhere dword-aligned in its page */
	if (prp1 & 3)
		return NVMEV_PRP_BAD_OFFSET;
	n = (u32)ftl_min64(len, NVMEV_PRP_PAGE - nvmev_prp_offset(prp1));
	ret = nvmev_prp_chunk(mem, prp1, dev, pos, n, to_host);
	if (ret)
		return ret;
	pos += n;
	len -= n;
	if (!len)
		return NVMEV_PRP_OK;
	/* one more page: PRP2 is that page; more: PRP2 points to a list */
	if (len <= NVMEV_PRP_PAGE) {
		if (nvmev_prp_offset(prp2))
			return NVMEV_PRP_BAD_OFFSET;
		return nvmev_prp_chunk(mem, prp2, dev, pos, (u32)len, to_host);
	}
	if (list_addr & 7)
		return NVMEV_PRP_BAD_OFFSET;
	idx = nvmev_prp_offset(list_addr) / sizeof(u64);
	while (len) {
		u64 entry;

		if (!list) {
			list = mem->map(mem->ctx, nvmev_prp_page(list_addr), false);
			if (!list)
				return NVMEV_PRP_NOT_RAM;
		}
		entry = ftl_le64_to_cpu(list[idx]);
		if (idx == per_list - 1 && len > NVMEV_PRP_PAGE) {
			/* the last entry of a full list chains to the next */
			mem->unmap(mem->ctx, list);
			list = NULL;
			if (nvmev_prp_offset(entry))
				return NVMEV_PRP_BAD_OFFSET;
			list_addr = entry;
			idx = 0;
			continue;
		}
		if (nvmev_prp_offset(entry)) {
			ret = NVMEV_PRP_BAD_OFFSET;
			break;
		}
		n = (u32)ftl_min64(len, NVMEV_PRP_PAGE);
		ret = nvmev_prp_chunk(mem, entry, dev, pos, n, to_host);
		if (ret)
			break;
		pos += n;
		len -= n;
		idx++;
	}
	if (list)
		mem->unmap(mem->ctx, list);
	return ret;
}

enum nvmev_prp_result nvmev_prp_check(const struct nvmev_host_mem *mem,
				      u64 prp1, u64 prp2, u64 len, bool to_host)
{
	/*
	 * Within PRP1's page the transfer is one chunk, which fails before
	 * it moves a byte: nothing to walk twice (the common 4 KiB I/O).
	 */
	if (!(prp1 & 3) && len <= NVMEV_PRP_PAGE - nvmev_prp_offset(prp1))
		return NVMEV_PRP_OK;
	return nvmev_prp_xfer(mem, prp1, prp2, NULL, len, to_host);
}
