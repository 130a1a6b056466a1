#!/bin/sh
# The guest tests of nvmev.ko (busybox sh). Each test_<name> loads and
# unloads the module itself; run_tests (lib.sh) reports and cleans up.
# shellcheck disable=SC2034 # ALL_TESTS is read by run_tests
# the user-level driver's tests (uhost.sh), in every tier below
UHOST_TESTS="uhost_bringup uhost_verify uhost_vector uhost_bad_prp uhost_delete_sq_inflight uhost_cq_full uhost_cq_full_shared uhost_cc_toggle uhost_cc_bad uhost_numq_after_create uhost_bme uhost_flr uhost_shutdown uhost_zero_read uhost_dsm_big"
# the tier of the kernel built with host-patches/ (hints from ext4)
PATCHED_TESTS="smoke sync_poll nio ext4_hints_kernel ext4_append ext4_append_delalloc ext4_overwrite ext4_dio ext4_split ext4_partition ext4_hints_off ext4_gc_integrity ext4_experiment ext4_fileserver"
# Run by name or by scripts/ext4-experiments.sh: ext4_dof and
# ext4_fileserver_small (no bound), ext4_sqlite (below its bound).
# The debug kernel's tier (KASAN, kmemleak, lockdep; scripts/run-checks.sh
# "debug"): the tests that drive every path of the module -- loading,
# admin and I/O commands, PRPs, DSM, polling, resets, surprise removal, GC,
# hints, the ext4 hint plumbing -- with fewer cycles (run-checks passes
# LIFECYCLE_CYCLES=5 PASSTHRU_FUZZ=30 GC_PASSES=3 SYNC_POLL_IOS=300
# BAD_PARAMS_SWEEP=max), then a leak scan. debug_long
# (NVMEV_LONG=1) is every functional test with long counts. Neither has
# hints_capability or hints_disabled: they need a host that leaves the
# hint feature off, and this kernel's nvme driver turns it on.
# pci_flr and pci_msix_pending read BAR0 through /dev/mem, which the
# patched kernel has not (no CONFIG_DEVMEM): they run in the stock tier only
DEBUG_TESTS="smoke bad_params raw_verify polled sync_poll nio discard passthru passthru_fuzz error_log features smart_log identify_cs stats_reset bad_attrs lifecycle reset_under_io rmmod_mounted gc_integrity hints_placement ext4_append ext4_overwrite ext4_dio ext4_split zero_reads discard_bounded $UHOST_TESTS pci_bme pci_irq_moves pci_unload pci_reservation kmemleak"
DEBUG_LONG_TESTS="smoke geometry bad_params ext4_verify raw_verify polled sync_poll nio discard passthru passthru_fuzz coalescing stats_reset bad_attrs lifecycle reset_under_io rmmod_mounted gc_integrity hints_placement ext4_hints_kernel ext4_append ext4_overwrite ext4_dio ext4_split ext4_partition ext4_gc_integrity kmemleak"
ALL_TESTS="smoke geometry bad_params ext4_verify raw_verify polled discard passthru passthru_fuzz error_log features smart_log identify_cs coalescing stats_reset bad_attrs lifecycle reset_under_io rmmod_mounted gc_integrity idle_cpu latency alignment hints_capability hints_placement hints_disabled hints_experiment zero_reads discard_bounded $UHOST_TESTS pci_flr pci_bme pci_irq_moves pci_msix_pending pci_unload pci_reservation"

# The tests themselves, by subject; each test_<name> loads and unloads the
# module itself.
# shellcheck source=tests/guest/device.sh
. /tests/device.sh
# shellcheck source=tests/guest/admin.sh
. /tests/admin.sh
# shellcheck source=tests/guest/ext4.sh
. /tests/ext4.sh
# shellcheck source=tests/guest/nio.sh
. /tests/nio.sh
# shellcheck source=tests/guest/data.sh
. /tests/data.sh
# shellcheck source=tests/guest/uhost.sh
. /tests/uhost.sh
# shellcheck source=tests/guest/pci.sh
. /tests/pci.sh
# shellcheck source=tests/guest/paths.sh
. /tests/paths.sh
