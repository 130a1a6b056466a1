/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVMe names the portable command parser (nvmev_cmd.c) uses. In
 * nvmev.ko they come from the kernel's <linux/nvme.h>; a userspace build
 * (the fuzz target) has no such header, so it gets the same names with
 * the values of the NVMe base specification 1.4 and the Zoned Namespace
 * Command Set 1.1, checked against include/linux/nvme.h of Linux 6.1.
 */
#ifndef NVMEV_SPEC_H
#define NVMEV_SPEC_H

#ifdef __KERNEL__
#include <linux/nvme.h>
#else

#define NVME_NSID_ALL		0xffffffff

enum {	/* controller registers (BAR0) */
	NVME_REG_CAP		= 0x0000,
	NVME_REG_VS		= 0x0008,
	NVME_REG_CC		= 0x0014,
	NVME_REG_CSTS		= 0x001c,
	NVME_REG_AQA		= 0x0024,
	NVME_REG_ASQ		= 0x0028,
	NVME_REG_ACQ		= 0x0030,
	NVME_REG_DBS		= 0x1000,
};

enum {
	NVME_CC_ENABLE		= 1 << 0,
	NVME_CSTS_RDY		= 1 << 0,
	NVME_CSTS_CFS		= 1 << 1,
	NVME_CSTS_SHST_CMPLT	= 2 << 2,
	NVME_CSTS_SHST_MASK	= 3 << 2,
};

#define NVME_IDENTIFY_DATA_SIZE	4096

enum {	/* NVM command set opcodes */
	nvme_cmd_flush		= 0x00,
	nvme_cmd_write		= 0x01,
	nvme_cmd_read		= 0x02,
	nvme_cmd_write_zeroes	= 0x08,
	nvme_cmd_dsm		= 0x09,
	nvme_cmd_zone_mgmt_send	= 0x79,
	nvme_cmd_zone_mgmt_recv	= 0x7a,
	nvme_cmd_zone_append	= 0x7d,
};

enum {	/* Zone Management Send actions, zone type */
	NVME_ZONE_CLOSE		= 0x1,
	NVME_ZONE_FINISH	= 0x2,
	NVME_ZONE_OPEN		= 0x3,
	NVME_ZONE_RESET		= 0x4,
	NVME_ZONE_OFFLINE	= 0x5,
	NVME_ZONE_SET_DESC_EXT	= 0x10,
	NVME_ZONE_TYPE_SEQWRITE_REQ = 0x2,
	NVME_ZRA_ZONE_REPORT	= 0,
};

enum {	/* admin command set opcodes */
	nvme_admin_delete_sq	= 0x00,
	nvme_admin_create_sq	= 0x01,
	nvme_admin_get_log_page	= 0x02,
	nvme_admin_delete_cq	= 0x04,
	nvme_admin_create_cq	= 0x05,
	nvme_admin_identify	= 0x06,
	nvme_admin_abort_cmd	= 0x08,
	nvme_admin_set_features	= 0x09,
	nvme_admin_get_features	= 0x0a,
	nvme_admin_async_event	= 0x0c,
	nvme_admin_keep_alive	= 0x18,
};

enum {
	NVME_CMD_SGL_ALL	= 0xc0,		/* CDW0 PSDT */
	NVME_DSMGMT_AD		= 1 << 2,
	NVME_QUEUE_PHYS_CONTIG	= 1 << 0,
	NVME_CQ_IRQ_ENABLED	= 1 << 1,
};

enum {
	NVME_ID_CNS_NS			= 0x00,
	NVME_ID_CNS_CTRL		= 0x01,
	NVME_ID_CNS_NS_ACTIVE_LIST	= 0x02,
	NVME_ID_CNS_NS_DESC_LIST	= 0x03,
	NVME_ID_CNS_CS_NS		= 0x05,
	NVME_ID_CNS_CS_CTRL		= 0x06,
	NVME_CSI_NVM			= 0,
	NVME_CSI_ZNS			= 2,
};

enum {
	NVME_CMD_EFFECTS_CSUPP	= 1 << 0,
	NVME_CMD_EFFECTS_LBCC	= 1 << 1,
	NVME_CMD_EFFECTS_NCC	= 1 << 2,
	NVME_CMD_EFFECTS_NIC	= 1 << 3,
};

enum {
	NVME_FEAT_ARBITRATION	= 0x01,
	NVME_FEAT_POWER_MGMT	= 0x02,
	NVME_FEAT_TEMP_THRESH	= 0x04,
	NVME_FEAT_ERR_RECOVERY	= 0x05,
	NVME_FEAT_VOLATILE_WC	= 0x06,
	NVME_FEAT_NUM_QUEUES	= 0x07,
	NVME_FEAT_IRQ_COALESCE	= 0x08,
	NVME_FEAT_IRQ_CONFIG	= 0x09,
	NVME_FEAT_WRITE_ATOMIC	= 0x0a,
	NVME_FEAT_ASYNC_EVENT	= 0x0b,
	NVME_LOG_ERROR		= 0x01,
	NVME_LOG_SMART		= 0x02,
	NVME_LOG_FW_SLOT	= 0x03,
	NVME_LOG_CMD_EFFECTS	= 0x05,
};

enum {	/* status field: generic, command specific, media */
	NVME_SC_SUCCESS			= 0x0,
	NVME_SC_INVALID_OPCODE		= 0x1,
	NVME_SC_INVALID_FIELD		= 0x2,
	NVME_SC_DATA_XFER_ERROR		= 0x4,
	NVME_SC_INTERNAL		= 0x6,
	NVME_SC_ABORT_QUEUE		= 0x8,
	NVME_SC_CMD_SEQ_ERROR		= 0xc,
	NVME_SC_INVALID_NS		= 0xb,
	NVME_SC_PRP_INVALID_OFFSET	= 0x13,
	NVME_SC_LBA_RANGE		= 0x80,
	NVME_SC_CAP_EXCEEDED		= 0x81,
	NVME_SC_CQ_INVALID		= 0x100,
	NVME_SC_QID_INVALID		= 0x101,
	NVME_SC_QUEUE_SIZE		= 0x102,
	NVME_SC_ASYNC_LIMIT		= 0x105,
	NVME_SC_INVALID_VECTOR		= 0x108,
	NVME_SC_INVALID_LOG_PAGE	= 0x109,
	NVME_SC_INVALID_QUEUE		= 0x10c,
	NVME_SC_FEATURE_NOT_SAVEABLE	= 0x10d,
	NVME_SC_FEATURE_NOT_CHANGEABLE	= 0x10e,
	NVME_SC_ZONE_BOUNDARY_ERROR	= 0x1b8,
	NVME_SC_ZONE_FULL		= 0x1b9,
	NVME_SC_ZONE_READ_ONLY		= 0x1ba,
	NVME_SC_ZONE_OFFLINE		= 0x1bb,
	NVME_SC_ZONE_INVALID_WRITE	= 0x1bc,
	NVME_SC_ZONE_TOO_MANY_ACTIVE	= 0x1bd,
	NVME_SC_ZONE_TOO_MANY_OPEN	= 0x1be,
	NVME_SC_ZONE_INVALID_TRANSITION	= 0x1bf,
	NVME_STATUS_DNR			= 0x4000,
};

#endif /* __KERNEL__ */
#endif /* NVMEV_SPEC_H */
