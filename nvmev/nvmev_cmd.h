/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's parser of submission queue entries: everything a host
 * controls in an admin or NVM command is checked and decoded here, before
 * the controller (nvmev_admin.c, nvmev_io.c) touches any state or memory.
 * Like nvmev_prp.c it uses only ftl/ftl_compat.h, so the same file builds
 * into nvmev.ko and into the userspace fuzz target (tests/fuzz/).
 *
 * What the parser cannot know -- which queues exist, how many the host was
 * granted, whether an asynchronous event slot is free -- the controller
 * checks when it executes the command.
 */
#ifndef NVMEV_CMD_H
#define NVMEV_CMD_H

#include "ftl_compat.h"
#include "ftl.h"
#include "nvmev_identity.h"
#include "nvmev_params.h"
#include "nvmev_spec.h"

#define NVMEV_MAX_QUEUES	(NVMEV_MAX_IO_QUEUES + 1)
#define NVMEV_MQES		1023	/* CAP.MQES: 1024 entries, 0's based */
#define NVMEV_MDTS		8	/* 2^8 x 4 KiB = 1 MiB per command */
#define NVMEV_MAX_XFER		(4096ull << NVMEV_MDTS)
#define NVMEV_AERL		3	/* 4 outstanding AERs */
#define NVMEV_MAX_NS		16	/* NSIDs 1..16 */
#define NVMEV_DSM_RANGE_BYTES	16
#define NVMEV_ERRLOG_ENTRIES	(NVMEV_ELPE + 1)
#define NVMEV_ERRLOG_ENTRY_BYTES	64
/*
 * The placement handles a namespace may have: Linux 6.16-7.2 reads RUH
 * Status into a buffer of 126 descriptors and trusts the count in it, so
 * no namespace lists more (the FDP configuration's MAXPIDS says so).
 */
#define NVMEV_FDP_MAX_PHNDLS	126

/* A submission queue entry as the host wrote it: 16 little-endian dwords. */
struct nvmev_sqe {
	u32 dw[16];
};

static inline u32 nvmev_dw(const struct nvmev_sqe *sqe, int i)
{
	return ftl_le32_to_cpu(sqe->dw[i]);
}

static inline u64 nvmev_qw(const struct nvmev_sqe *sqe, int i)
{
	return nvmev_dw(sqe, i) | ((u64)nvmev_dw(sqe, i + 1) << 32);
}

/*
 * The Error Information log's Parameter Error Location: which field of
 * the command was bad, as the byte of the submission queue entry that
 * holds it (bits 7:0) and the bit of that byte it starts at (bits 10:8).
 * Given here as the field's dword and its lowest bit in that dword:
 * CDW12 NLB is nvmev_err_loc(12, 0), CDW10 QSIZE nvmev_err_loc(10, 16).
 * NVMEV_ERR_LOC_NONE: no one field of the command is at fault.
 */
static inline u16 nvmev_err_loc(u32 dw, u32 bit)
{
	return (u16)(dw * 4 + bit / 8 + ((bit % 8) << 8));
}

#define NVMEV_ERR_LOC_NONE	0xffff
/* fields every command has */
#define NVMEV_ERR_LOC_OPCODE	nvmev_err_loc(0, 0)
#define NVMEV_ERR_LOC_PSDT	nvmev_err_loc(0, 14)
#define NVMEV_ERR_LOC_NSID	nvmev_err_loc(1, 0)
#define NVMEV_ERR_LOC_DPTR	nvmev_err_loc(6, 0)
/* Identify's CSI; Get/Set Features' FID; queue creation and deletion */
#define NVMEV_ERR_LOC_CSI	nvmev_err_loc(11, 24)
#define NVMEV_ERR_LOC_FID	nvmev_err_loc(10, 0)
#define NVMEV_ERR_LOC_QID	nvmev_err_loc(10, 0)
#define NVMEV_ERR_LOC_QSIZE	nvmev_err_loc(10, 16)
#define NVMEV_ERR_LOC_CQID	nvmev_err_loc(11, 16)

/*
 * A namespace. Namespaces share the drive's flash: LBA 0 of one is byte
 * @base of the flash model's address space (and of the store), so the
 * model's offsets are drive-wide and each namespace a slice of them.
 */
struct nvmev_ns {
	u64 nsze;			/* size in LBAs; 0: the NSID is inactive */
	u64 base;			/* bytes, a multiple of 1 MiB */
	u32 lba_shift;			/* 9 or 12 */
	u8 csi;				/* NVME_CSI_NVM, or NVME_CSI_ZNS: zoned */
	u32 zone_shift;			/* zoned: log2 of LBAs per zone */
	/*
	 * FDP: the reclaim unit handles its placement handles 0.. name (a
	 * zoned namespace has none: its zones place its data)
	 */
	u16 nphndls;
	u16 phndl[NVMEV_FDP_MAX_PHNDLS];
	/*
	 * allocated (nsze) but attached to no controller: inactive, as a
	 * Namespace Management create leaves it (nvmev_nsmgmt.h)
	 */
	bool detached;
};

/* The drive's FDP configuration (nvmev_fdp.h), as its logs give it. */
struct nvmev_fdp_conf {
	u16 ruhs;			/* reclaim unit handles; 0: no FDP */
	u16 rgs;			/* reclaim groups */
	u8 rgif;			/* PID bits naming the reclaim group */
	u8 ruht;			/* handle type: 1 or 2 */
	u64 runs;			/* reclaim unit bytes */
};

/* What the parser needs to know about the namespaces and the features. */
struct nvmev_ns_view {
	u32 nn;				/* Identify NN: the highest NSID there is */
	struct nvmev_ns ns[NVMEV_MAX_NS];	/* by NSID - 1 */
	/* the flash the namespaces share, and a created one's LBA size */
	u64 flash_bytes;
	u32 lba_shift;
	bool hints_supported;		/* module parameter hints=1 */
	bool hints_enabled;		/* feature NVMEV_HINT_FID set by the host */
	/*
	 * CC.CSS 000b: the host enabled the NVM Command Set alone, so every
	 * namespace, a zoned one too, takes the NVM commands only
	 */
	bool nvm_only;
	struct nvmev_fdp_conf fdp;	/* fdp.ruhs 0: no FDP */
};

/* Namespace @nsid if it is active, else NULL. */
static inline const struct nvmev_ns *nvmev_ns_get(const struct nvmev_ns_view *v,
						  u32 nsid)
{
	if (!nsid || nsid > v->nn || !v->ns[nsid - 1].nsze ||
	    v->ns[nsid - 1].detached)
		return NULL;
	return &v->ns[nsid - 1];
}

/* The active namespace of the lowest NSID (none: the last NSID's slot). */
static inline const struct nvmev_ns *nvmev_ns_first(const struct nvmev_ns_view *v)
{
	u32 i = 0;

	while (i + 1 < v->nn && (!v->ns[i].nsze || v->ns[i].detached))
		i++;
	return &v->ns[i];
}

struct nvmev_io_req;
struct nvmev_admin_req;
struct nvmev_dev;

/*
 * What a command's handler returns when it completes the command itself,
 * now or later (a held deallocation, an Asynchronous Event Request), in
 * place of the status to complete it with. Not a status a host can see.
 */
#define NVMEV_SC_HELD	0xffff

/* The I/O command sets a command belongs to: bits of 1 << CSI. */
#define NVMEV_SET_NVM		BIT(NVME_CSI_NVM)
#define NVMEV_SET_ZNS		BIT(NVME_CSI_ZNS)

/*
 * An I/O command the controller has: a row of io_cmds[] (nvmev_cmd.c),
 * the one list that gives its opcode's command sets, field checks,
 * execution and Command Effects log entry. @exec lives in nvmev_io.c
 * (zoned: nvmev_zoned.c) and is NULL in userspace builds, which only
 * parse -- except fuzz_model's (NVMEV_IO_EXEC), which runs them.
 */
struct nvmev_io_cmd {
	u8 opcode;
	u8 sets;			/* NVMEV_SET_*: whose namespaces take it */
	u32 effects;
	u16 (*parse)(const struct nvmev_ns_view *ns,
		     const struct nvmev_sqe *sqe, struct nvmev_io_req *req);
	/* status, or NVMEV_SC_HELD; *@due: when the model says it is done */
	u16 (*exec)(struct nvmev_dev *dev, u16 sqid, struct nvmev_io_req *req,
		    u64 *due);
	/* its work may outlast a pass: held in one of NVMEV_HELD_TRIMS slots */
	bool held;
	bool fdp;			/* a drive with FDP has it, no other */
};

/* An admin command the controller has: a row of admin_cmds[], likewise. */
struct nvmev_admin_cmd {
	u8 opcode;
	/* its Command Effects log entry besides CSUPP */
	u32 effects;
	/* the fields' checks; NULL: it has none */
	u16 (*parse)(const struct nvmev_ns_view *ns,
		     const struct nvmev_sqe *sqe, struct nvmev_admin_req *req);
	/* status, or NVMEV_SC_HELD; *@result: the completion's dword 0 */
	u16 (*exec)(struct nvmev_dev *dev, struct nvmev_admin_req *req,
		    u32 *result);
};

/* An NVM command, checked. */
struct nvmev_io_req {
	const struct nvmev_io_cmd *cmd;	/* its row; set when it is known */
	u8 opcode;
	u16 cid;
	u32 nsid;
	const struct nvmev_ns *ns;	/* NULL: a Flush of every namespace */
	u64 prp1, prp2;
	struct ftl_cmd model;		/* op, byte range and placement hint */
	u32 nr_ranges;			/* Dataset Management: ranges to fetch */
	bool hint_bits_ignored;		/* hint bits set, feature not enabled */
	/* FDP: a placement identifier the namespace may not use (DSPEC) */
	bool pid_invalid;
	u16 pid;
	u8 mo;				/* I/O Management: the operation */
	u32 npids;			/* Send: PIDs to fetch */
	/* the failed command's bad field: nvmev_err_loc(), or _NONE */
	u16 error_loc;
	/* Zone Management Send and Receive */
	u64 slba;
	u8 zsa;				/* Send: the action */
	bool zone_all;			/* Send: Select All */
	u8 zrasf;			/* Receive: the states reported */
	bool partial;			/* Receive: Partial Report */
	u32 xfer;			/* Receive: bytes to the host */
};

/* Get Features SEL=3, the capabilities of a feature */
#define NVMEV_FEAT_SAVEABLE	0x1	/* none is */
#define NVMEV_FEAT_NS		0x2	/* namespace specific */
#define NVMEV_FEAT_CHANGEABLE	0x4	/* Set Features changes it */

/*
 * A feature the controller has: a row of nvmev_features[] (nvmev_cmd.c),
 * the one list both the parser and the controller go by. A feature whose
 * value is nothing but what Set Features stored needs no handler: the
 * controller keeps CDW11 & @mask and answers it, or @def until set.
 */
struct nvmev_feature {
	u8 fid;
	u8 caps;			/* NVMEV_FEAT_* */
	/* without @exec: the default value (SEL 1; SEL 2: none is saved) */
	u32 def;
	u32 mask;			/* and the CDW11 bits Set Features keeps */
	/* the fields of a Set Features or a Get's CDW11; NULL: none */
	u16 (*check)(const struct nvmev_ns_view *ns,
		     struct nvmev_admin_req *req);
	/*
	 * The controller's Get (SEL 0-2) and Set of a feature whose value
	 * lives elsewhere (nvmev_admin.c); NULL: the stored value. In
	 * userspace builds, which only parse, always NULL.
	 */
	u16 (*exec)(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		    u32 *result);
};

extern const struct nvmev_feature nvmev_features[];
extern const u32 nvmev_nr_features;

/* An admin command, checked as far as fields alone allow. */
struct nvmev_admin_req {
	const struct nvmev_admin_cmd *cmd;	/* its row; set when it is known */
	u8 opcode;
	u16 cid;
	u64 prp1, prp2;
	u32 nsid;
	u32 cdw10, cdw11, cdw12;
	u8 cns;				/* Identify */
	u8 csi;				/* Identify CNS 05h/06h, effects log */
	u8 fid, sel;			/* Set/Get Features */
	const struct nvmev_feature *feat;
	u8 lid;				/* Get Log Page: log, bytes, offset */
	u8 lsp;				/* and its specific field, its LSI */
	u16 lsi;
	u32 log_size;
	u64 log_len, log_off;
	u16 qid, cqid, vector;		/* queue creation and deletion */
	u32 qsize;
	bool ien;
	/* FDP Events: the namespace's placement handle, event types */
	u16 phndl;
	u8 noet;
	/* the failed command's bad field: nvmev_err_loc(), or _NONE */
	u16 error_loc;
};

/*
 * A command with a bad field at @loc (nvmev_err_loc()): the status @sc to
 * fail it with, Do Not Retry (sent again, it fails again), the field kept
 * for the Error Information log.
 */
static inline u16 nvmev_io_bad_field(struct nvmev_io_req *req, u16 sc, u16 loc)
{
	req->error_loc = loc;
	return sc | NVME_STATUS_DNR;
}

static inline u16 nvmev_admin_bad_field(struct nvmev_admin_req *req, u16 sc,
					u16 loc)
{
	req->error_loc = loc;
	return sc | NVME_STATUS_DNR;
}

u16 nvmev_sqe_cid(const struct nvmev_sqe *sqe);
/* is @sqe a command whose work may be held (the table's .held) */
bool nvmev_io_may_hold(const struct nvmev_sqe *sqe);

/*
 * Check and decode an NVM command for the namespaces of @ns. Returns an
 * NVMe status; on success @req says what to transfer and what the model
 * does, at the drive-wide offsets of the namespace's slice.
 */
u16 nvmev_io_parse(const struct nvmev_ns_view *ns, const struct nvmev_sqe *sqe,
		   struct nvmev_io_req *req);

/*
 * Check every range of a Dataset Management command of namespace @ns (@nr
 * ranges of NVMEV_DSM_RANGE_BYTES as fetched from the host), before any is
 * acted on.
 */
u16 nvmev_dsm_check(const struct nvmev_ns *ns, const void *ranges, u32 nr);

/* Range @i of @ranges as bytes of the model; *len 0 for an empty one. */
void nvmev_dsm_range(const struct nvmev_ns *ns, const void *ranges, u32 i,
		     u64 *off, u64 *len);

/* Check and decode an admin command. Returns an NVMe status. */
u16 nvmev_admin_parse(const struct nvmev_ns_view *ns,
		      const struct nvmev_sqe *sqe, struct nvmev_admin_req *req);

/* Bytes of log page @lid, 0 for a log the controller does not have. */
u32 nvmev_log_page_size(const struct nvmev_ns_view *ns, u8 lid);

/* The Command Effects log entry of admin opcode @opcode, 0: no such command. */
u32 nvmev_admin_effects(u8 opcode);

/*
 * The Command Effects log entry of I/O opcode @opcode in command set @csi
 * on a drive with FDP (@fdp) or without, 0: no such command.
 */
u32 nvmev_io_effects(u8 opcode, u8 csi, bool fdp);

#endif /* NVMEV_CMD_H */
