/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Namespace Management (create, delete) and Namespace Attachment (attach,
 * detach), NVMe base specification 2.1 "Namespace Management": their
 * fields, the host's create data and where a new namespace goes in the
 * drive's flash. Portable like nvmev_cmd.c: the same file parses in
 * nvmev.ko and in the userspace tests; what changes the drive is
 * nvmev_nsmgmt_exec.c's.
 *
 * The drive has one controller (CNTLID 1) and NSIDs 1 to NVMEV_MAX_NS.
 * A namespace is allocated (nsze != 0) and then attached or not
 * (nvmev_ns.detached); only an attached one is active. Created ones are
 * of the NVM command set, in the drive's LBA format, each on whole MiB
 * of flash that no other namespace has.
 */
#ifndef NVMEV_NSMGMT_H
#define NVMEV_NSMGMT_H

#include "nvmev_cmd.h"

#define NVMEV_ADMIN_NS_MGMT		0x0d
#define NVMEV_ADMIN_NS_ATTACH		0x15
#define NVMEV_NS_MGMT_CREATE		0x0	/* CDW10 SEL */
#define NVMEV_NS_MGMT_DELETE		0x1
#define NVMEV_NS_ATTACH			0x0
#define NVMEV_NS_DETACH			0x1
#define NVMEV_CNTLID			1
#define NVMEV_LOG_CHANGED_NS		0x04
#define NVMEV_CHANGED_NS_BYTES		4096	/* 1024 NSIDs */

/* Identify: allocated namespaces (CNS 10h, 11h), controllers (12h, 13h) */
#define NVMEV_ID_CNS_NS_ALLOC_LIST	0x10
#define NVMEV_ID_CNS_NS_ALLOC		0x11
#define NVMEV_ID_CNS_NS_CTRL_LIST	0x12
#define NVMEV_ID_CNS_CTRL_LIST		0x13

/* Identify Controller: OACS Namespace Management, OAES notices */
#define NVMEV_OACS_NS_MGMT		BIT(3)
#define NVMEV_OAES_NS_ATTR		BIT(8)
#define NVMEV_ID_CTRL_TNVMCAP		280	/* bytes 295:280 */
#define NVMEV_ID_CTRL_UNVMCAP		296	/* bytes 311:296 */
#define NVMEV_ID_CTRL_MNAN		540	/* bytes 543:540 */
/* Asynchronous event: Notice, Namespace Attribute Changed, log 04h */
#define NVMEV_AEN_NS_CHANGED		(0x2 | (0x00 << 8) | (NVMEV_LOG_CHANGED_NS << 16))
/* Feature 0Bh: Namespace Attribute Notices */
#define NVMEV_AEC_NS_ATTR		BIT(8)

/* statuses: generic 2Ah; command specific (SCT 1) the rest */
#define NVMEV_SC_INVALID_PHNDL_LIST	0x2a
#define NVMEV_SC_INVALID_FORMAT		0x10a
#define NVMEV_SC_NS_INSUFFICIENT_CAP	0x115
#define NVMEV_SC_NS_ID_UNAVAILABLE	0x116
#define NVMEV_SC_NS_ALREADY_ATTACHED	0x118
#define NVMEV_SC_NS_NOT_ATTACHED	0x11a
#define NVMEV_SC_CTRL_LIST_INVALID	0x11c

/*
 * The host software specified fields of a create (a 4 KiB Identify
 * Namespace data structure): the byte offsets this drive reads.
 */
#define NVMEV_NSM_NSZE			0
#define NVMEV_NSM_NCAP			8
#define NVMEV_NSM_FLBAS			26
#define NVMEV_NSM_DPS			29
#define NVMEV_NSM_NMIC			30
#define NVMEV_NSM_ANAGRPID		92
#define NVMEV_NSM_NVMSETID		100
#define NVMEV_NSM_ENDGID		102
#define NVMEV_NSM_LBSTM			384
#define NVMEV_NSM_NPHNDLS		392
#define NVMEV_NSM_PHNDL			512
#define NVMEV_NSM_BYTES			4096
/* the list of controllers of an attach or detach: a count, then CNTLIDs */
#define NVMEV_CTRL_LIST_BYTES		4096

/* Namespace Management's and Attachment's CDW10 SEL, NSID, CDW11 CSI */
u16 nvmev_parse_ns_mgmt(const struct nvmev_ns_view *ns,
			const struct nvmev_sqe *sqe,
			struct nvmev_admin_req *req);
u16 nvmev_parse_ns_attach(const struct nvmev_ns_view *ns,
			  const struct nvmev_sqe *sqe,
			  struct nvmev_admin_req *req);

/*
 * A create's @data (NVMEV_NSM_BYTES, as fetched from the host) checked
 * against drive @v: the namespace it makes in @out (allocated, detached,
 * its placement handles; a whole-MiB slice of flash no allocated
 * namespace has, the lowest that fits) and the NSID it takes (the lowest
 * free one) in @nsid. Nothing changes in @v.
 */
u16 nvmev_ns_create_check(const struct nvmev_ns_view *v, const u8 *data,
			  struct nvmev_ns *out, u32 *nsid);

/* An attach's or detach's controller list: this controller's alone. */
u16 nvmev_ctrl_list_check(const u8 *list);

/* Bytes of flash no allocated namespace has (Identify UNVMCAP). */
u64 nvmev_ns_unallocated(const struct nvmev_ns_view *v);

#endif /* NVMEV_NSMGMT_H */
