/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * nvmev placement hints: the wire format, in one header shared by the
 * device (nvmev.ko), host kernel patches and userspace tools.
 * Specification: hint-proto/SPEC.md.
 *
 * A hint rides on an NVMe Write command:
 *   CDW12 bit 24  append: the written data continues a file whose
 *                 preceding block is at the LBA in CDW2 (low 32 bits) and
 *                 CDW3 (high 32 bits), in namespace LBA units
 *   CDW12 bit 25  overwrite: the written LBAs replace data of the same file
 * Both bits set is invalid (ignored by the device). A host may only set
 * them after finding the capability in Identify Controller and enabling
 * feature NVMEV_HINT_FID; otherwise the bits and dwords keep their
 * standard meaning.
 */
#ifndef NVMEV_HINT_H
#define NVMEV_HINT_H

#include <linux/types.h>

#define NVMEV_HINT_APPEND	0x01000000U	/* CDW12 bit 24 */
#define NVMEV_HINT_OVERWRITE	0x02000000U	/* CDW12 bit 25 */
#define NVMEV_HINT_MASK		(NVMEV_HINT_APPEND | NVMEV_HINT_OVERWRITE)

/* Set/Get Features, vendor-specific: CDW11 bit 0 enables hint handling. */
#define NVMEV_HINT_FID		0xc0
#define NVMEV_HINT_FEAT_ENABLE	0x1U

/* Capability record in the vendor-specific area of Identify Controller. */
#define NVMEV_HINT_ID_OFFSET	3072		/* nvme_id_ctrl.vs[0] */
#define NVMEV_HINT_SIGNATURE	"NVMEVHNT"
#define NVMEV_HINT_VERSION	1
#define NVMEV_HINT_CAP_APPEND	0x1U
#define NVMEV_HINT_CAP_OVERWRITE 0x2U

struct nvmev_hint_id {
	char signature[8];		/* NVMEV_HINT_SIGNATURE, no NUL */
	__le16 version;			/* NVMEV_HINT_VERSION */
	__le16 caps;			/* NVMEV_HINT_CAP_* */
	__le32 dies;			/* parallel units data is spread over */
	__le32 granularity;		/* bytes placed on a die before the next */
	__le32 reserved[3];
};

enum nvmev_hint_kind {
	NVMEV_HINT_NONE,
	NVMEV_HINT_KIND_APPEND,
	NVMEV_HINT_KIND_OVERWRITE,
	NVMEV_HINT_KIND_INVALID,	/* both bits set */
};

/* Decode the hint of a command from its CDW2, CDW3 and CDW12. */
static inline enum nvmev_hint_kind nvmev_hint_decode(__u32 cdw2, __u32 cdw3,
						     __u32 cdw12,
						     __u64 *prev_lba)
{
	*prev_lba = ((__u64)cdw3 << 32) | cdw2;
	switch (cdw12 & NVMEV_HINT_MASK) {
	case NVMEV_HINT_APPEND:
		return NVMEV_HINT_KIND_APPEND;
	case NVMEV_HINT_OVERWRITE:
		return NVMEV_HINT_KIND_OVERWRITE;
	case 0:
		return NVMEV_HINT_NONE;
	default:
		return NVMEV_HINT_KIND_INVALID;
	}
}

/* Encode @kind (and @prev_lba for appends) into a Write's dwords. */
static inline void nvmev_hint_encode(enum nvmev_hint_kind kind,
				     __u64 prev_lba, __u32 *cdw2, __u32 *cdw3,
				     __u32 *cdw12)
{
	*cdw12 &= ~NVMEV_HINT_MASK;
	*cdw2 = 0;
	*cdw3 = 0;
	if (kind == NVMEV_HINT_KIND_APPEND) {
		*cdw12 |= NVMEV_HINT_APPEND;
		*cdw2 = (__u32)prev_lba;
		*cdw3 = (__u32)(prev_lba >> 32);
	} else if (kind == NVMEV_HINT_KIND_OVERWRITE) {
		*cdw12 |= NVMEV_HINT_OVERWRITE;
	}
}

#endif /* NVMEV_HINT_H */
