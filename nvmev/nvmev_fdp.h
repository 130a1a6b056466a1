/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flexible Data Placement's interface (NVMe base specification 2.1,
 * "Flexible Data Placement"; TP4146): the fields of its commands and the
 * data structures it returns, over the flash model's reclaim units
 * (ftl/ftl_fdp.h). nvmev_fdp.c is portable, like nvmev_cmd.c: the same
 * file parses in nvmev.ko and in the userspace tests; the handlers that
 * move data are nvmev_fdp_exec.c's.
 *
 * A drive loaded with fdp_ruhs > 0 has one endurance group (ID 1), one
 * FDP configuration, FDP enabled from the start, every namespace in that
 * group. The names the kernel's <linux/nvme.h> has only since 6.16 are
 * NVMEV_ ones here, so that no kernel's header clashes with them.
 */
#ifndef NVMEV_FDP_H
#define NVMEV_FDP_H

#include "nvmev_cmd.h"

#define NVMEV_ENDGID			1	/* the endurance group */
#define NVMEV_CTRATT_EG			BIT(4)	/* Endurance Groups */
#define NVMEV_CTRATT_FDPS		BIT(19)	/* FDP supported */
#define NVMEV_ID_CTRL_ENDGIDMAX		340	/* bytes 341:340 */
#define NVMEV_ID_NS_ENDGID		102	/* bytes 103:102 */

#define NVMEV_CMD_IO_MGMT_RECV		0x12
#define NVMEV_CMD_IO_MGMT_SEND		0x1d
#define NVMEV_IO_MGMT_NONE		0x0	/* MO 0h: no action */
#define NVMEV_IO_MGMT_RUHS		0x1	/* Receive: RUH Status */
#define NVMEV_IO_MGMT_RUHU		0x1	/* Send: RUH Update */
#define NVMEV_DTYPE_PLACEMENT		0x2	/* CDW12 DTYPE: Data Placement */

#define NVMEV_FEAT_FDP			0x1d
#define NVMEV_FEAT_FDP_EVENTS		0x1e
#define NVMEV_LOG_FDP_CONFIGS		0x20
#define NVMEV_LOG_FDP_RUH_USAGE		0x21
#define NVMEV_LOG_FDP_STATS		0x22
#define NVMEV_LOG_FDP_EVENTS		0x23

#define NVMEV_SC_FDP_DISABLED		0x29	/* generic status */

#define NVMEV_FDP_EVENTS_MAX		63	/* records of log page 23h */
#define NVMEV_FDP_CONFIG_HDR		16
#define NVMEV_FDP_CONFIG_DESC		64	/* before its RUH descriptors */
#define NVMEV_FDP_RUHS_HDR		16	/* RUH Status */
#define NVMEV_FDP_RUHS_DESC		32

/* The FDP configuration @ftl was built with (zeroes: no FDP). */
void nvmev_fdp_conf_init(struct nvmev_fdp_conf *c, const struct ftl *ftl);

/*
 * A Write's or Write Zeroes' DTYPE and DSPEC: a placement identifier on
 * an FDP drive's namespace that has handles; what it writes through in
 * @req->model. Invalid Field for a directive type that is not enabled.
 */
u16 nvmev_fdp_parse_placement(const struct nvmev_ns_view *ns,
			      const struct nvmev_sqe *sqe,
			      struct nvmev_io_req *req);

/* I/O Management Receive and Send: their fields */
u16 nvmev_fdp_parse_mgmt_recv(const struct nvmev_ns_view *ns,
			      const struct nvmev_sqe *sqe,
			      struct nvmev_io_req *req);
u16 nvmev_fdp_parse_mgmt_send(const struct nvmev_ns_view *ns,
			      const struct nvmev_sqe *sqe,
			      struct nvmev_io_req *req);

/*
 * The PIDs of an RUH Update (@nr of them, as fetched from the host), each
 * checked before any handle moves: the handles in @ruh[], the groups in
 * @rg[].
 */
u16 nvmev_fdp_update_check(const struct nvmev_ns_view *ns,
			   const struct nvmev_ns *n, const u8 *pids, u32 nr,
			   u16 *ruh, u16 *rg);

/* Get/Set Features 1Dh and 1Eh, Get Log Page 20h-23h: their fields */
u16 nvmev_fdp_check_feat(const struct nvmev_ns_view *ns,
			 struct nvmev_admin_req *req);
u16 nvmev_fdp_check_events(const struct nvmev_ns_view *ns,
			   struct nvmev_admin_req *req);
u16 nvmev_fdp_parse_log(const struct nvmev_ns_view *ns,
			struct nvmev_admin_req *req);
/* Bytes of FDP log page @lid, 0 if the drive has no such log. */
u32 nvmev_fdp_log_size(const struct nvmev_ns_view *ns, u8 lid);

/*
 * Fill @page (zeroed, nvmev_fdp_log_size() bytes) with log page @lid of
 * @req; event timestamps count from @epoch_ns; @scratch holds
 * FTL_FDP_EVENTS events. The model under its lock.
 */
void nvmev_fdp_log(const struct ftl *ftl, const struct nvmev_ns_view *ns,
		   const struct nvmev_admin_req *req, u64 epoch_ns,
		   struct ftl_fdp_event *scratch, u8 *page);

/*
 * RUH Status of namespace @n into @buf (zeroed,
 * nvmev_fdp_ruh_status_size() bytes). The model under its lock.
 */
void nvmev_fdp_ruh_status(const struct ftl *ftl, const struct nvmev_ns_view *ns,
			  const struct nvmev_ns *n, u8 *buf);

/* Bytes of namespace @n's RUH Status. */
u32 nvmev_fdp_ruh_status_size(const struct nvmev_ns_view *ns,
			      const struct nvmev_ns *n);

/* nvmev_fdp_exec.c: the handlers */
struct nvmev_dev;
u16 nvmev_fdp_mgmt_recv(struct nvmev_dev *dev, u16 sqid,
			struct nvmev_io_req *req, u64 *due);
u16 nvmev_fdp_mgmt_send(struct nvmev_dev *dev, u16 sqid,
			struct nvmev_io_req *req, u64 *due);
u16 nvmev_feat_fdp_events(struct nvmev_dev *dev,
			  const struct nvmev_admin_req *req, u32 *result);
/* log page 20h-23h of @req into @page (4 KiB, zeroed): the status */
u16 nvmev_fdp_log_page(struct nvmev_dev *dev,
		       const struct nvmev_admin_req *req, u8 *page);
/* a write's Invalid Placement Identifier event, if it named one */
void nvmev_fdp_write_done(struct nvmev_dev *dev,
			  const struct nvmev_io_req *req);
/*
 * The namespaces' placement handles once the model exists: each lists
 * the handles its configuration names (@conf NULL or none listed: every
 * handle, up to NVMEV_FDP_MAX_PHNDLS). -EINVAL, and one line, for a list
 * the drive cannot give.
 */
struct nvmev_drive_conf;
int nvmev_fdp_setup(struct nvmev_dev *dev, const struct nvmev_drive_conf *conf);

/* The event types FDP Events (1Eh) lists: host's, then controller's. */
extern const u8 nvmev_fdp_event_types[];
extern const u32 nvmev_fdp_nr_event_types;

#endif /* NVMEV_FDP_H */
