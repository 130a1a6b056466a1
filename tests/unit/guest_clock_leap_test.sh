#!/bin/bash
# The guest runner tells a leap of the host's clock from a stall: a guest
# uptime that outran the host's monotonic clock (its RTC) is a leap, and
# then only the stall reports are the leap's; equal advances (a real
# stall) and other reports (a WARN, a KASAN report) still fail. The
# report lines are the ones a CI run's guests printed after a leap.
set -euo pipefail
cd "$(dirname "$0")/../.."
status=0
# expect NAME WANT COMMAND...: COMMAND (runner.sh's functions, in sh)
# prints WANT
expect() {
	local name=$1 want=$2 got
	shift 2
	got=$(sh -c '. tests/guest/runner.sh; "$@"' runner "$@")
	if [ "$got" != "$want" ]; then
		echo "FAIL $name: got '$got', want '$want'"
		status=1
	else
		echo "ok $name"
	fi
}
expect "uptime leapt 11.9 h in 55 s of host time" 42926 clock_leap 100 5000 43081 5055
expect "a 100 s stall moves both clocks" "" clock_leap 100 5000 200 5100
expect "a second's rounding is no leap" "" clock_leap 100 5000 131 5001
expect "no RTC, no judgement" "" clock_leap 100 "" 43081 ""

leap_reports=$(printf '%s\n' \
	'0,1058,43301932838,-;watchdog: BUG: soft lockup - CPU#1 stuck for 40026s! [swapper/1:0]' \
	'4,1065,43301933150,-;Call Trace:' \
	'3,1253,43375827566,-;rcu: INFO: rcu_preempt self-detected stall on CPU' \
	'3,1270,43375827700,-;INFO: task kworker/0:1:41 blocked for more than 120 seconds.')
expect "a leap's stall reports" "" sh -c '. tests/guest/runner.sh; not_clock_reports || true' <<<"$leap_reports"
warn='4,1300,43376000000,-;WARNING: CPU: 1 PID: 77 at nvmev/nvmev_io.c:120 nvmev_io_done+0x4c/0x90'
expect "a WARN stays a failure" "$warn" sh -c '. tests/guest/runner.sh; not_clock_reports' <<<"$leap_reports
$warn"
# and the runner's report pattern still catches what the leap filter drops
# shellcheck disable=SC2016 # expanded by the inner sh
expect "the report pattern sees the stalls" 4 sh -c '. tests/guest/runner.sh; grep -cE "$KERNEL_REPORT"' <<<"$leap_reports"
exit "$status"
