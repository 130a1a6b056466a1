#!/bin/bash
# Sourced by the experiment scripts that run one guest test and read its
# "PREFIX,..." lines back from the console (store, scaling).

# experiment_guest OUTDIR TEST: boot a stock guest of GUEST_SMP (default 2)
# vCPUs, pinned when the host has two CPUs, running TEST; the console to
# OUTDIR/guest-console.txt. With PARSE_ONLY set, only what follows: the
# guest's result lines. Returns the guest's status (0 with PARSE_ONLY).
experiment_guest() {
	local out=$1 test=$2 pin=0 status=0
	[ "$(nproc)" -ge 2 ] && pin=1
	if [ -z "${PARSE_ONLY:-}" ]; then
		GUEST_SMP=${GUEST_SMP:-2} GUEST_PIN_VCPUS=${GUEST_PIN_VCPUS:-$pin} \
			scripts/guest-test.sh "$test" >"$out/guest-console.txt" 2>&1 || status=$?
	fi
	tr -d '\r' <"$out/guest-console.txt" | grep -E '^(ok|not ok|guest:|guest-test:)' || true
	return "$status"
}

# experiment_csv OUTDIR PREFIX HEADER: the console's "PREFIX,..." lines
# under HEADER, as OUTDIR/raw.csv
experiment_csv() {
	{
		echo "$3"
		tr -d '\r' <"$1/guest-console.txt" | sed -n "s/^$2,//p"
	} >"$1/raw.csv"
}
