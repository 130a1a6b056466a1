/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The handlers the command tables of nvmev_cmd.c point at: the module's
 * own code (nvmev_admin.c, nvmev_io.c, nvmev_zoned.c), declared apart
 * from the portable nvmev_cmd.h, which userspace builds that only parse
 * include too. nvmev_cmd.c takes this header only where the handlers
 * exist: in nvmev.ko, and for the NVM and zoned ones in fuzz_model's
 * build (NVMEV_IO_EXEC), which runs them against tests/fuzz/kshim/.
 */
#ifndef NVMEV_HANDLERS_H
#define NVMEV_HANDLERS_H

#include "nvmev_cmd.h"

/* nvmev_admin.c: the features with an exec handler */
u16 nvmev_feat_temp(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		    u32 *result);
u16 nvmev_feat_queues(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		      u32 *result);
u16 nvmev_feat_coalesce(struct nvmev_dev *dev,
			const struct nvmev_admin_req *req, u32 *result);
u16 nvmev_feat_irq_config(struct nvmev_dev *dev,
			  const struct nvmev_admin_req *req, u32 *result);
u16 nvmev_feat_hints(struct nvmev_dev *dev, const struct nvmev_admin_req *req,
		     u32 *result);
/* nvmev_admin.c: the admin commands' handlers */
u16 nvmev_admin_identify(struct nvmev_dev *dev,
			 struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_get_log_page(struct nvmev_dev *dev,
			     struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_features(struct nvmev_dev *dev,
			 struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_create_cq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_create_sq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_delete_cq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_delete_sq(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_abort(struct nvmev_dev *dev,
		      struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_async_event(struct nvmev_dev *dev,
			    struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_keep_alive(struct nvmev_dev *dev,
			   struct nvmev_admin_req *req, u32 *result);
/* nvmev_nsmgmt_exec.c */
u16 nvmev_admin_ns_mgmt(struct nvmev_dev *dev,
			struct nvmev_admin_req *req, u32 *result);
u16 nvmev_admin_ns_attach(struct nvmev_dev *dev,
			  struct nvmev_admin_req *req, u32 *result);

/* nvmev_io.c: the NVM commands' handlers */
u16 nvmev_io_flush(struct nvmev_dev *dev, u16 sqid,
		   struct nvmev_io_req *req, u64 *due);
u16 nvmev_io_rw(struct nvmev_dev *dev, u16 sqid,
		struct nvmev_io_req *req, u64 *due);
u16 nvmev_io_write_zeroes(struct nvmev_dev *dev, u16 sqid,
			  struct nvmev_io_req *req, u64 *due);
u16 nvmev_io_dsm(struct nvmev_dev *dev, u16 sqid,
		 struct nvmev_io_req *req, u64 *due);
/* nvmev_zoned.c: the Zoned Namespace command set's handlers */
u16 nvmev_zoned_rw(struct nvmev_dev *dev, u16 sqid,
		   struct nvmev_io_req *req, u64 *due);
u16 nvmev_zoned_write_zeroes(struct nvmev_dev *dev, u16 sqid,
			     struct nvmev_io_req *req, u64 *due);
u16 nvmev_zone_append(struct nvmev_dev *dev, u16 sqid,
		      struct nvmev_io_req *req, u64 *due);
u16 nvmev_zone_mgmt_send(struct nvmev_dev *dev, u16 sqid,
			 struct nvmev_io_req *req, u64 *due);
u16 nvmev_zone_mgmt_recv(struct nvmev_dev *dev, u16 sqid,
			 struct nvmev_io_req *req, u64 *due);

#endif /* NVMEV_HANDLERS_H */
