#!/bin/sh
# Helpers for the guest tests (busybox sh).
PASSED=0
FAILED=0
NVMEV_MEM="memmap_start=1G memmap_size=512M"
# shellcheck disable=SC2034 # used by tests.sh
DBG=/sys/kernel/debug/nvmev

ok() { PASSED=$((PASSED + 1)); echo "ok - $CURRENT"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $CURRENT: $*"; }

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

# load_nvmev [params...]: insmod and wait for the namespace block device
load_nvmev() {
	# shellcheck disable=SC2086
	insmod /modules/nvmev.ko $NVMEV_MEM "$@" || return 1
	i=0
	while [ ! -b /dev/nvme0n1 ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -b /dev/nvme0n1 ]
}

unload_nvmev() {
	rmmod nvmev || return 1
	! [ -e /dev/nvme0n1 ]
}

# value KEY FILE: the number after "KEY=" in a debugfs file
value() { sed -n "s/^$1=//p" "$2"; }

# run_tests all|a,b,c: call test_<name> for each, in order
run_tests() {
	list=$1
	[ "$list" = all ] && list=$ALL_TESTS
	[ "$list" = patched ] && list=$PATCHED_TESTS
	for t in $(echo "$list" | tr ',' ' '); do
		CURRENT=$t
		FIRST_FAIL=
		echo "--- $t"
		if "test_$t" && [ -z "$FIRST_FAIL" ]; then
			ok
		else
			not_ok "${FIRST_FAIL:-test returned failure}"
		fi
		# leave no device behind for the next test
		grep -q '^nvmev ' /proc/modules && { umount /mnt 2>/dev/null; rmmod nvmev; }
	done
}
