#!/bin/sh
# The guest tests' runner (busybox sh): which tests a tier holds, what
# each test declares, how it is run and reported. init.sh sources it
# after lib.sh.
#
# A test is a function test_NAME in a file of /tests (tests/guest/, by
# subject) or /experiments; the comment lines right above it declare it:
#   # desc: a write of one block reads back, and the stats count it
#   # tiers: stock debug
#   test_one_block() {
# "desc" is one line, printed as the test starts ("--- NAME: desc");
# "tiers" (the line right above the function) names the tiers that run
# it (GUEST_TIERS), or "none": run only by name. A test that can run only
# on some boots says so first, with a requires_* guard (below):
#   requires_kernel 6.12 || return
# Each test ends as "ok - NAME (S s)", "not ok - NAME: why (S s)" or
# "skip - NAME: why (S s)", and init.sh closes with
# "guest: N passed, N failed, N skipped".
PASSED=0
FAILED=0
SKIPPED=0

# the test lines carry their duration: what a tier's time limit is spent on
took() { echo "($(($(uptime_s) - STARTED)) s)"; }
ok() { PASSED=$((PASSED + 1)); echo "ok - $CURRENT $(took)"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $CURRENT: $* $(took)"; }
skipped() { SKIPPED=$((SKIPPED + 1)); echo "skip - $CURRENT: $* $(took)"; }

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

# the tiers a test can name on its "# tiers:" line ("none": run by name only)
GUEST_TIERS="stock patched patched_long debug debug_long iommu memmap dkms movable"

# tier_gives TIER: what the boot of that tier is there to give (the
# requires_* names below): scripts/run-checks.sh boots it so. stock:
# Debian's kernel, which can hot-remove memory (no memmap=), has /dev/mem,
# zoned block devices and an nvme driver that leaves the hint feature
# off; iommu and memmap: the guest tier's q35 boot with an Intel IOMMU,
# interrupt remapping on and a memmap= reservation; patched,
# patched_long, debug, debug_long: the kernel with host-patches/ (no
# memory hot-remove: a memmap= boot), the debug ones with kmemleak; dkms:
# the nvmev.ko DKMS built; movable: movablecore= and no reservation.
tier_gives() {
	case $1 in
	stock) echo no_memmap devmem hints_off zoned ;;
	iommu) echo memmap intremap ;;
	memmap) echo memmap ;;
	patched | patched_long) echo patched ;;
	debug | debug_long) echo patched memmap kmemleak ;;
	dkms) echo dkms ;;
	movable) echo movable no_memmap ;;
	esac
}

# require WHAT REASON COMMAND...: the guard under every requires_*:
# COMMAND succeeds, or the test is skipped for REASON (the caller then
# returns). Where a tier the test runs for is there to give WHAT, its
# lack fails the test instead: a boot that lost what its tier is for
# must not pass as a row of skips.
require() {
	rq_what=$1
	rq_reason=$2
	shift 2
	"$@" >/dev/null 2>&1 && return 0
	for rq_tier in $RUN_TIERS; do
		case " $(tier_gives "$rq_tier") " in
		*" $rq_what "*)
			[ -n "$FIRST_FAIL" ] ||
				FIRST_FAIL="$rq_reason, which tier $rq_tier's boot is there to give"
			return 1
			;;
		esac
	done
	SKIP_REASON=$rq_reason
	return 1
}

# kernel_at_least MAJOR MINOR: the guest runs that kernel or a later one
kernel_at_least() {
	kv=$(uname -r)
	kmaj=${kv%%.*}
	kmin=${kv#*.}
	kmin=${kmin%%[!0-9]*}
	[ "$kmaj" -gt "$1" ] || { [ "$kmaj" -eq "$1" ] && [ "$kmin" -ge "$2" ]; }
}
# requires_kernel MAJOR.MINOR: that Linux or a later one
requires_kernel() {
	require "kernel_$1" "needs Linux $1 or later, not $(uname -r)" \
		kernel_at_least "${1%.*}" "${1#*.}"
}
# a memmap= reservation (GUEST_MEMMAP=1)
requires_memmap() {
	require memmap "needs a memmap= reservation (GUEST_MEMMAP=1)" [ "$NVMEV_MEMMAP" = 1 ]
}
# no memmap= reservation (GUEST_MEMMAP=0): the module takes a memory block
requires_no_memmap() {
	require no_memmap "needs a boot without memmap= (GUEST_MEMMAP=0)" [ "$NVMEV_MEMMAP" = 0 ]
}
# BAR0 through /dev/mem with the nvme driver bound: the patched kernel
# has no /dev/mem (no CONFIG_DEVMEM), scripts/guest-test.sh passes
# iomem=relaxed
devmem_usable() { [ -c /dev/mem ] && grep -q 'iomem=relaxed' /proc/cmdline; }
requires_devmem() {
	require devmem "needs /dev/mem and iomem=relaxed (not the patched kernel)" devmem_usable
}
# the kernel built with host-patches/: its nvme driver has the hint
# parameter, and sends hints
HOST_HINTS=/sys/module/nvme_core/parameters/placement_hints
requires_patched() {
	require patched "needs the kernel with host-patches/ (KERNEL_TREE)" [ -e "$HOST_HINTS" ]
}
# a host nvme driver that leaves the device's hint feature off (the
# patched kernel's turns it on)
hints_left_off() { [ "$(cat "$HOST_HINTS" 2>/dev/null)" != Y ]; }
requires_hints_off() {
	require hints_off "needs an nvme driver that leaves the hint feature off (not the patched kernel's)" \
		hints_left_off
}
# x86 interrupt remapping on (GUEST_MACHINE=q35 GUEST_IOMMU=1)
requires_intremap() {
	require intremap "needs interrupt remapping (GUEST_MACHINE=q35 GUEST_IOMMU=1)" \
		grep -q "Enabled IRQ remapping" /tmp/kernel.log
}
# a kernel with kmemleak (the debug kernel)
requires_kmemleak() {
	require kmemleak "needs kmemleak (the debug kernel)" [ -e /sys/kernel/debug/kmemleak ]
}
# zoned block devices (CONFIG_BLK_DEV_ZONED, which the patched kernels
# have not)
requires_zoned() {
	require zoned "needs zoned block devices (CONFIG_BLK_DEV_ZONED: not the patched kernels)" \
		grep -q ' blkdev_report_zones$' /proc/kallsyms
}
# the nvmev.ko DKMS built for this kernel, where DKMS puts it
# (GUEST_MODULE=dkms)
dkms_installed() {
	[ -f "/lib/modules/$(uname -r)/updates/dkms/nvmev.ko" ] && [ -n "${NVMEV_DKMS_VERSION:-}" ]
}
requires_dkms() {
	require dkms "needs DKMS's nvmev.ko for $(uname -r) (GUEST_MODULE=dkms)" dkms_installed
}
# memory in ZONE_MOVABLE (GUEST_APPEND=movablecore=...)
requires_movable() {
	require movable "needs movablecore= (the movable tier's boot)" grep -q 'movablecore=' /proc/cmdline
}

# declared_tests: every test as "NAME|TIERS|DESCRIPTION", in file order,
# from the comment lines above its function
declared_tests() {
	awk '
		/^# tiers:/ { tiers = substr($0, 10); next }
		/^# desc:/ { desc = substr($0, 9); next }
		/^#/ { next }
		/^test_[a-z0-9_]*\(\) \{/ {
			name = $0; sub(/^test_/, "", name); sub(/\(.*/, "", name)
			print name "|" tiers "|" desc
		}
		{ tiers = ""; desc = "" }
	' /tests/*.sh /experiments/*.sh
}

# tier_tests TIER: the tests whose "# tiers:" line names TIER, in file
# order; smoke first (the quickest sign that the module works at all),
# the leak scan (kmemleak) last, as it reports what every test before it
# left behind
tier_tests() {
	declared_tests | awk -F'|' -v tier="$1" '
		{ n = split($2, w, " "); for (i = 1; i <= n; i++) if (w[i] == tier) { print $1; next } }
	' | awk '
		$0 == "smoke" { print; next } $0 == "kmemleak" { last = 1; next } { rest[n++] = $0 }
		END { for (i = 0; i < n; i++) print rest[i]; if (last) print "kmemleak" }'
}

# What the kernel prints when something is wrong: a WARN_ON, BUG, oops,
# sanitizer, lockdep, hung task, RCU stall or kmemleak report.
KERNEL_REPORT='WARNING: CPU|BUG:|Oops|general protection fault|KASAN|UBSAN|'
KERNEL_REPORT=$KERNEL_REPORT'possible (circular|recursive) locking|INFO: task .* blocked|'
KERNEL_REPORT=$KERNEL_REPORT'self-detected stall|kmemleak: [0-9]+ new suspected|Call Trace'

# kernel_reports FROM-LINE: the reports in /tmp/kernel.log after that line
kernel_reports() {
	tail -n +"$(($1 + 1))" /tmp/kernel.log 2>/dev/null | grep -E "$KERNEL_REPORT"
}

# The guest's clock is the host's TSC (TCG reads it for the guest's), and
# where the host is itself a virtual machine that is paused or moved, its
# TSC can leap while its monotonic clock does not: a CI run saw a guest's
# uptime leap 11.9 hours within a 29-minute run, and the guest kernel's
# watchdogs then reported a 40026 s soft lockup and an RCU stall in tests
# that had passed. QEMU's RTC follows the host's monotonic clock
# (scripts/guest-test.sh: -rtc clock=rt), so a leap shows as the uptime
# outrunning the RTC; what a leap makes the kernel say is a stall, not a
# fault: those reports are the leap's for CLOCK_LEAP_GRACE s after it. A
# real stall advances both clocks alike and still fails.
CLOCK_LEAP_MIN=30
CLOCK_LEAP_GRACE=120
CLOCK_REPORT='soft lockup|self-detected stall|detected stalls on CPU|'
CLOCK_REPORT=$CLOCK_REPORT'INFO: task .* blocked|workqueue lockup|Call Trace'

# host_s: the host's monotonic clock in seconds, through the guest's RTC
# (nothing where the guest has none)
host_s() { cat /sys/class/rtc/rtc0/since_epoch 2>/dev/null; }

# clock_leap UPTIME0 HOST0 UPTIME1 HOST1: by how many seconds the guest's
# clock outran the host's between the two readings, when by more than
# CLOCK_LEAP_MIN (a reading's second resolution and a slow read are far
# below it); nothing otherwise or without host readings
clock_leap() {
	[ -n "$2" ] && [ -n "$4" ] || return 0
	leap=$((($3 - $1) - ($4 - $2)))
	[ "$leap" -gt "$CLOCK_LEAP_MIN" ] && echo "$leap"
	return 0
}

# not_clock_reports: the report lines of stdin that a clock leap does not
# explain
not_clock_reports() { grep -vE "$CLOCK_REPORT"; }

# run_tests TIER|a,b,c: call test_<name> for each test of that tier (all =
# stock) or each named one, in order; a list can name tiers too
# (iommu,memmap), and a test named twice runs once; "-NAME" leaves that
# test out (stock,-alignment: make check runs a test whose result depends
# on ftl/ alone on one kernel, not on every one). A test that leaves a
# kernel report behind fails whatever it checked itself. A test run for
# a tier knows it ($RUN_TIERS: the named tiers that hold it), so that its
# requires_* guards fail where that tier's boot should have given it.
run_tests() {
	list=$1
	[ "$list" = all ] && list=stock
	declared_tests >/tmp/tests.tab
	left_out=$(echo "$list" | tr ',' '\n' | sed -n 's/^-//p' | tr '\n' ' ')
	# "NAME TIER..." a line, "-" for a test named by itself
	for t in $(echo "$list" | tr ',' ' '); do
		case $t in
		-*) continue ;;
		esac
		case " $GUEST_TIERS " in
		*" $t "*) tier_tests "$t" | sed "s/\$/ $t/" ;;
		*) echo "$t -" ;;
		esac
	done | awk '{ if (!($1 in tiers)) order[n++] = $1; tiers[$1] = tiers[$1] " " $2 }
		END { for (i = 0; i < n; i++) print order[i] tiers[order[i]] }' |
		awk -v out=" $left_out" 'index(out, " " $1 " ") == 0' >/tmp/list
	[ -z "$left_out" ] || echo "left out of this run: ${left_out% }"
	[ -s /tmp/list ] || { CURRENT=$1 STARTED=$(uptime_s); not_ok "no such tier, or no tests in it"; }
	# (a for loop, not "while read": a test reading stdin would eat the list)
	names=$(cut -d' ' -f1 /tmp/list)
	for t in $names; do
		CURRENT=$t
		FIRST_FAIL=
		SKIP_REASON=
		RUN_TIERS=$(awk -v n="$t" '$1 == n { for (i = 2; i <= NF; i++) if ($i != "-") print $i }' /tmp/list)
		STARTED=$(uptime_s)
		started_host=$(host_s)
		desc=$(awk -F'|' -v n="$t" '$1 == n { print $3 }' /tmp/tests.tab)
		echo "--- $t${desc:+: $desc}"
		klines=$(wc -l </tmp/kernel.log 2>/dev/null || echo 0)
		"test_$t" || [ -n "$FIRST_FAIL" ] || [ -n "$SKIP_REASON" ] ||
			FIRST_FAIL="test returned failure"
		sleep 0.2	# let /tmp/kernel.log catch up
		leap=$(clock_leap "$STARTED" "$started_host" "$(uptime_s)" "$(host_s)")
		if [ -n "$leap" ]; then
			LEAP_UNTIL=$(($(uptime_s) + CLOCK_LEAP_GRACE))
			echo "guest clock leapt $leap s ahead of the host's during $t:" \
				"stall reports until uptime $LEAP_UNTIL s are the leap's"
		fi
		kernel_reports "$klines" >/tmp/reports
		if [ "$STARTED" -le "${LEAP_UNTIL:--1}" ] && [ -s /tmp/reports ]; then
			echo "stall reports during $t after the clock leap:"
			grep -E "$CLOCK_REPORT" /tmp/reports | head -5
			not_clock_reports </tmp/reports >/tmp/reports.rest || true
			mv /tmp/reports.rest /tmp/reports
		fi
		if [ -s /tmp/reports ]; then
			echo "kernel reports during $t:"
			tail -n +"$((klines + 1))" /tmp/kernel.log | head -60
			[ -n "$FIRST_FAIL" ] || FIRST_FAIL="kernel report: $(head -1 /tmp/reports)"
		fi
		if [ -n "$FIRST_FAIL" ]; then
			not_ok "$FIRST_FAIL"
		elif [ -n "$SKIP_REASON" ]; then
			skipped "$SKIP_REASON"
		else
			ok
		fi
		# leave no device behind for the next test
		grep -q '^nvmev ' /proc/modules && { umount /mnt 2>/dev/null; rmmod_nvmev; }
	done
}
