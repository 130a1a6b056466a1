#!/bin/sh
# Helpers for the guest tests (busybox sh).
PASSED=0
FAILED=0
# The drive's RAM: the memmap=SIZEM$START reservation on this kernel's
# command line (scripts/guest-test.sh, GUEST_DRIVE_MIB), read from there so
# that only the host script says where it is and how big.
reservation=$(tr ' ' '\n' </proc/cmdline |
	sed -n 's/^memmap=\([0-9][0-9]*\)M\$\([0-9][0-9]*[KMG]\)$/\1 \2/p' | head -1)
[ -n "$reservation" ] || echo "lib.sh: no memmap=SIZEM\$START on the kernel command line: every load will fail"
NVMEV_DRIVE_MIB=${reservation% *}
NVMEV_MEM="memmap_start=${reservation#* } memmap_size=${NVMEV_DRIVE_MIB}M"
# shellcheck disable=SC2034 # used by tests.sh
DBG=/sys/kernel/debug/nvmev

# the seconds since boot, whole (busybox sh has no $SECONDS)
uptime_s() { cut -d. -f1 /proc/uptime; }
# the test lines carry their duration: what a tier's time limit is spent on
ok() { PASSED=$((PASSED + 1)); echo "ok - $CURRENT ($(($(uptime_s) - STARTED)) s)"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $CURRENT: $* ($(($(uptime_s) - STARTED)) s)"; }

# check DESCRIPTION COMMAND...: run, remember the first failure of a test
check() {
	desc=$1
	shift
	if ! "$@" >/tmp/check.out 2>&1; then
		[ -z "$FIRST_FAIL" ] && FIRST_FAIL="$desc ($(tail -3 /tmp/check.out | tr '\n' ' '))"
		return 1
	fi
	return 0
}

# wait_nvme0n1: until the nvme driver has the namespace (at most 20 s)
wait_nvme0n1() {
	i=0
	while [ ! -b /dev/nvme0n1 ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -b /dev/nvme0n1 ]
}

# load_nvmev [params...]: insmod and wait for the namespace block device
load_nvmev() {
	# shellcheck disable=SC2086
	insmod /modules/nvmev.ko $NVMEV_MEM "$@" || return 1
	wait_nvme0n1
}

unload_nvmev() {
	rmmod nvmev || return 1
	! [ -e /dev/nvme0n1 ]
}

# value KEY FILE: the number after "KEY=" in a debugfs file
value() { sed -n "s/^$1=//p" "$2"; }

# What the kernel prints when something is wrong: a WARN_ON, BUG, oops,
# sanitizer, lockdep, hung task, RCU stall or kmemleak report.
KERNEL_REPORT='WARNING: CPU|BUG:|Oops|general protection fault|KASAN|UBSAN|'
KERNEL_REPORT=$KERNEL_REPORT'possible (circular|recursive) locking|INFO: task .* blocked|'
KERNEL_REPORT=$KERNEL_REPORT'self-detected stall|kmemleak: [0-9]+ new suspected|Call Trace'

# kernel_reports FROM-LINE: the reports in /tmp/kernel.log after that line
kernel_reports() {
	tail -n +"$(($1 + 1))" /tmp/kernel.log 2>/dev/null | grep -E "$KERNEL_REPORT"
}

# run_tests all|a,b,c: call test_<name> for each, in order; a test that
# leaves a kernel report behind fails whatever it checked itself
run_tests() {
	list=$1
	[ "$list" = all ] && list=$ALL_TESTS
	[ "$list" = patched ] && list=$PATCHED_TESTS
	[ "$list" = debug ] && list=$DEBUG_TESTS
	[ "$list" = debug_long ] && list=$DEBUG_LONG_TESTS
	for t in $(echo "$list" | tr ',' ' '); do
		CURRENT=$t
		FIRST_FAIL=
		STARTED=$(uptime_s)
		echo "--- $t"
		klines=$(wc -l </tmp/kernel.log 2>/dev/null || echo 0)
		"test_$t" || [ -n "$FIRST_FAIL" ] || FIRST_FAIL="test returned failure"
		sleep 0.2	# let /tmp/kernel.log catch up
		if kernel_reports "$klines" >/tmp/reports; then
			echo "kernel reports during $t:"
			tail -n +"$((klines + 1))" /tmp/kernel.log | head -60
			[ -n "$FIRST_FAIL" ] || FIRST_FAIL="kernel report: $(head -1 /tmp/reports)"
		fi
		if [ -z "$FIRST_FAIL" ]; then
			ok
		else
			not_ok "$FIRST_FAIL"
		fi
		# leave no device behind for the next test
		grep -q '^nvmev ' /proc/modules && { umount /mnt 2>/dev/null; rmmod nvmev; }
	done
}
