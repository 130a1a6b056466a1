#!/bin/sh
# The guest tests of nvmev.ko (busybox sh), and the guest halves of the
# experiments: every file of /tests (tests/guest/, by subject) and
# /experiments (experiments/NAME/guest.sh as NAME.sh) defines test_<name> functions, each
# with its "# desc:" and "# tiers:" lines above it (runner.sh). Each test
# loads and unloads the module itself; run_tests (runner.sh) reports and
# cleans up. The tiers: stock: Debian's kernel, `make check`'s guest
# tier; patched: the kernel with host-patches/; debug: that kernel with
# KASAN, kmemleak, lockdep; debug_long: the debug kernel's long mode,
# NVMEV_LONG=1; iommu and memmap: the guest tier's second boot, q35 with
# interrupt remapping on and a memmap= reservation, which the stock boot
# has not; movable: a boot of the 6.12 tier with movablecore= and no
# reservation, for memory that can go offline; dkms: the 6.12 boot with
# the module DKMS built. A test whose line says "none" runs only by name:
# scripts/guest-test.sh NAME[,NAME].
for f in /tests/*.sh /experiments/*.sh; do
	case "$f" in */init.sh | */lib.sh | */runner.sh | */tests.sh) continue ;; esac
	# shellcheck source=/dev/null
	. "$f"
done
