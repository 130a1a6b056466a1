/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's own parameters (the flash model's are FTL_CONFIG_PARAMS in
 * ftl/ftl_config.h): one row each, X(name, default, min, max, description).
 * nvmev_main.c makes every row an int module parameter whose description
 * ends in "[default D, MIN..MAX]", a range check at load that refuses a
 * value outside it with one log line, and a field of struct nvmev_params.
 * docs/parameters.md lists the rows and a unit test compares the two;
 * the guest tier's bad_params loads each one above its maximum, below its
 * minimum and not a number. Checks a range cannot say (cpu must be
 * online) follow the row's in nvmev_drive.c; lba_bytes takes only the
 * two ends of its range (NVMEV_LBA_BYTES_OK()), so its row is still the
 * one place that names them.
 * Plain macros: the userspace tests include this file.
 */
#ifndef NVMEV_PARAMS_H
#define NVMEV_PARAMS_H

#define NVMEV_MAX_IO_QUEUES	64
/* x86's largest NR_CPUS; whether the CPU is online is checked apart */
#define NVMEV_MAX_CPU		8191
/* 1 TiB of written data, which no machine this runs on has in RAM */
#define NVMEV_MAX_DATA_MIB	1048576

#define NVMEV_PARAMS(X)							\
	X(lba_bytes, 512, 512, 4096,					\
	  "namespace LBA size in bytes: 512 or 4096")			\
	X(io_queues, 16, 1, NVMEV_MAX_IO_QUEUES,			\
	  "most I/O queue pairs granted to the host")			\
	X(cpu, -1, -1, NVMEV_MAX_CPU,					\
	  "CPU the controller thread is bound to; "			\
	  "-1 = let the scheduler choose")				\
	X(spin_us, 50, 0, 100000,					\
	  "busy-poll this long after the last activity before sleeping, us") \
	X(spin_max_us, 2000, 0, 100000,					\
	  "busy-poll up to this long after a completion when the host's " \
	  "measured pace says its next command comes sooner; "		\
	  "0 = spin_us only, us")					\
	X(sleep_max_us, 1000, 1, 1000000,				\
	  "longest sleep in the first second without commands: "	\
	  "bounds how long a new command waits to be seen, us")		\
	X(idle_sleep_us, 100000, 0, 1000000,				\
	  "longest sleep after that: sleeps grow to 5 % of the time "	\
	  "idle past the first second, up to this; "			\
	  "0 = sleep_max_us always, us")				\
	X(pci_domain, 32256, 1, 65535,					\
	  "PCI domain of the virtual bus (32256 = 0x7e00)")		\
	X(data_max_mib, 0, 0, NVMEV_MAX_DATA_MIB,			\
	  "page-backed data (the default; memmap_size=1M): most RAM "	\
	  "the written data may take, MiB; 0 = half the memory "	\
	  "available at load")

struct nvmev_params {
#define NVMEV_PARAM_FIELD(name, def, min, max, desc) int name;
	NVMEV_PARAMS(NVMEV_PARAM_FIELD)
#undef NVMEV_PARAM_FIELD
};

/* Each row's range as constants: NVMEV_MIN_name, NVMEV_MAX_name. */
enum {
#define NVMEV_PARAM_BOUNDS(name, def, min, max, desc)			\
	NVMEV_MIN_##name = (min), NVMEV_MAX_##name = (max),
	NVMEV_PARAMS(NVMEV_PARAM_BOUNDS)
#undef NVMEV_PARAM_BOUNDS
};

/* An LBA size the device formats: either end of lba_bytes' range. */
#define NVMEV_LBA_BYTES_OK(v)						\
	((v) == NVMEV_MIN_lba_bytes || (v) == NVMEV_MAX_lba_bytes)

#endif /* NVMEV_PARAMS_H */
