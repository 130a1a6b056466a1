#!/bin/bash
# A busy neighbour for the guest timing checks: a second QEMU guest, from
# its own build directory, running I/O-heavy guest tests over and over for
# SECONDS (default 900), the way another job's guest shares a CI machine.
#   scripts/busy-neighbour.sh 600 & scripts/guest-test.sh idle_cpu,latency
# The timing checks must pass all the same. NEIGHBOUR_TESTS (default
# lifecycle,gc_integrity,reset_under_io), NEIGHBOUR_APPEND (default
# "LIFECYCLE_CYCLES=200 GC_PASSES=12": longer runs, fewer boots) and
# NEIGHBOUR_BUILD (default build/neighbour) say what it runs where; each
# run's console is NEIGHBOUR_BUILD/neighbour.log, a failed run's also
# neighbour-failed-RUN.log. Stopping the script
# (SIGINT, SIGTERM) stops its guest.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-900}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "busy-neighbour: '$secs' is not a number of seconds" >&2; exit 2; }
tests=${NEIGHBOUR_TESTS:-lifecycle,gc_integrity,reset_under_io}
build=${NEIGHBOUR_BUILD:-build/neighbour}
mkdir -p "$build"
log=$build/neighbour.log
end=$((SECONDS + secs))
guest=
# the guest runs in a session of its own, so that its QEMU goes with it
# (timeout(1) puts QEMU in a process group of its own, not a session)
trap '[ -n "$guest" ] && pkill -TERM -s "$guest"; exit 130' INT TERM
runs=0
while [ "$SECONDS" -lt "$end" ]; do
	BUILD=$build GUEST_TIMEOUT=$((end - SECONDS + 30)) \
		GUEST_APPEND="${NEIGHBOUR_APPEND:-LIFECYCLE_CYCLES=200 GC_PASSES=12}" \
		setsid scripts/guest-test.sh "$tests" >"$log" 2>&1 &
	guest=$!
	status=0
	wait "$guest" || status=$?
	guest=
	runs=$((runs + 1))
	echo "busy-neighbour: run $runs ($tests), status $status: $(tail -1 "$log")"
	# the next run overwrites the console: a failed run's is kept
	[ "$status" -eq 0 ] || cp "$log" "$build/neighbour-failed-$runs.log"
done
