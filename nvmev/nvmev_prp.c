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

/* @n bytes (within one page) between @buf and host address @addr. */
static enum nvmev_prp_result nvmev_prp_chunk(const struct nvmev_host_mem *mem,
					     u64 addr, void *buf, u32 n,
					     bool to_host)
{
	u8 *page = mem->map(mem->ctx, nvmev_prp_page(addr), to_host);

	if (!page)
		return NVMEV_PRP_NOT_RAM;
	if (to_host)
		ftl_memcpy(page + nvmev_prp_offset(addr), buf, n);
	else
		ftl_memcpy(buf, page + nvmev_prp_offset(addr), n);
	mem->unmap(mem->ctx, page);
	return NVMEV_PRP_OK;
}

enum nvmev_prp_result nvmev_prp_copy_mem(const struct nvmev_host_mem *mem,
					 u64 prp1, u64 prp2, void *buf,
					 u64 len, bool to_host)
{
	const u32 per_list = NVMEV_PRP_PAGE / sizeof(u64);
	enum nvmev_prp_result ret;
	u64 *list = NULL, list_addr = prp2;
	u8 *p = buf;
	u32 n, idx;

	/* PRP1 may start anywhere dword-aligned in its page */
	if (prp1 & 3)
		return NVMEV_PRP_BAD_OFFSET;
	n = (u32)ftl_min64(len, NVMEV_PRP_PAGE - nvmev_prp_offset(prp1));
	ret = nvmev_prp_chunk(mem, prp1, p, n, to_host);
	if (ret)
		return ret;
	p += n;
	len -= n;
	if (!len)
		return NVMEV_PRP_OK;
	/* one more page: PRP2 is that page; more: PRP2 points to a list */
	if (len <= NVMEV_PRP_PAGE) {
		if (nvmev_prp_offset(prp2))
			return NVMEV_PRP_BAD_OFFSET;
		return nvmev_prp_chunk(mem, prp2, p, (u32)len, to_host);
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
		ret = nvmev_prp_chunk(mem, entry, p, n, to_host);
		if (ret)
			break;
		p += n;
		len -= n;
		idx++;
	}
	if (list)
		mem->unmap(mem->ctx, list);
	return ret;
}
