#!/bin/sh
# The guest tests of nvmev.ko (busybox sh), and the guest halves of the
# experiments: every file of /tests (tests/guest/, by subject) and
# /experiments (experiments/NAME/guest.sh as NAME.sh) defines test_<name> functions. Each
# test loads and unloads the module itself; run_tests (lib.sh) reports and
# cleans up. The line above a test's function names its tiers, e.g.
#   # tiers: stock debug
# (stock: Debian's kernel, `make check`'s guest tier; patched: the kernel
# with host-patches/; debug: that kernel with KASAN, kmemleak, lockdep;
# debug_long: the debug kernel's long mode, NVMEV_LONG=1; iommu and
# memmap: the guest tier's second boot, q35 with interrupt remapping on and
# a memmap= reservation, which the stock boot has not; movable: a boot of
# the 6.12 tier with movablecore= and no reservation, for memory that can
# go offline; dkms: the 6.12 boot with the module DKMS built). A test whose
# line says "none" runs only by name: scripts/guest-test.sh NAME[,NAME].
# Neither debug tier has hints_capability or hints_disabled: they need a
# host that leaves the hint feature off, and the patched kernel's nvme
# driver turns it on. pci_flr and pci_msix_pending read BAR0 through
# /dev/mem, which the patched kernel has not (no CONFIG_DEVMEM).
for f in /tests/*.sh /experiments/*.sh; do
	case "$f" in */init.sh | */lib.sh | */tests.sh) continue ;; esac
	# shellcheck source=/dev/null
	. "$f"
done
