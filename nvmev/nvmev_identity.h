/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who the controller says it is, each value named once: the PCI IDs
 * (nvmev_pci.c), the version in the VS register (nvmev_ctrl.c) and in
 * Identify Controller, the temperatures and the limits the Identify data
 * structures and logs report (nvmev_admin.c, nvmev_cmd.c). Plain
 * constants: the portable files include it in userspace builds too.
 */
#ifndef NVMEV_IDENTITY_H
#define NVMEV_IDENTITY_H

#define NVMEV_VENDOR_ID		0x1e5e	/* not a real vendor's: no quirks */
/* NVMe base specification 1.4.0, as the VS register encodes it */
#define NVMEV_VERSION		((1u << 16) | (4u << 8))

/* temperatures, Kelvin: the composite one, WCTEMP and CCTEMP */
#define NVMEV_TEMP_K		313	/* 40 C */
#define NVMEV_WCTEMP_K		343	/* 70 C */
#define NVMEV_CCTEMP_K		358	/* 85 C */

/* Error Information log entries, 0's based (Identify Controller ELPE) */
#define NVMEV_ELPE		63

/*
 * The NVM Command Set Identify Controller data structure (CNS 06h).
 * Write Zeroes of up to 2^WZSL x 4 KiB (CAP.MPSMIN) = 32 MiB: a command
 * names at most 65,536 LBAs (NLB is 16 bits), 32 MiB at the smallest LBA
 * size a namespace can have (512 B). A host sizes its Write Zeroes by
 * this limit alone (Linux's max_write_zeroes_sectors), so a larger one
 * would let it build an NLB that wraps: a zero-out that leaves old data.
 * Dataset Management ranges not limited beyond the command's own 256
 * (DMRL 0: a byte cannot say 256, and 0 is "no limit reported"), each
 * range up to the namespace (DMRSL; a range's NLB is 32 bits), and no
 * limit on their total (DMSL 0); no Verify (VSL 0) and no Write
 * Uncorrectable (WUSL 0). MDTS (1 MiB) is 2,048 LBAs at 512 B.
 */
#define NVMEV_WZSL		13
#define NVMEV_DMRL		0

#endif /* NVMEV_IDENTITY_H */
