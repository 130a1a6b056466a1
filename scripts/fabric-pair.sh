#!/bin/bash
# Two machines over NVMe/TCP: boots two guests of the same kernel on one
# QEMU socket network (scripts/guest-test.sh's GUEST_NET). The target
# loads nvmev and exports its controller whole with nvmet's passthru
# backend; the host, which has no nvmev of its own, connects and runs
# crc-verified I/O; the target then verifies the host's data on the drive
# (tests/guest/fabrics.sh: fabric_target, fabric_host). One guest cannot
# do this: its own nvme driver already holds the namespace, and refuses
# the fabric's copy of the same identifiers.
# Usage: fabric-pair.sh   (GUEST_KERNEL, GUEST_MODULE: as guest-test.sh;
# passthru needs CONFIG_NVME_TARGET_PASSTHRU, which Debian's 6.12 has)
set -euo pipefail
cd "$(dirname "$0")/.."
# a port of this run's own: two runs on one machine must not meet
port=$((20000 + $$ % 20000))
export GUEST_DRIVE_MIB=${GUEST_DRIVE_MIB:-128} GUEST_SMP=${GUEST_SMP:-2}
export GUEST_TIMEOUT=${GUEST_TIMEOUT:-900}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
GUEST_NET=listen:$port scripts/guest-test.sh fabric_target >"$scratch/target" 2>&1 &
target=$!
# the listening side must be up before the other connects to it
for _ in $(seq 600); do
	grep -q ":$(printf %04X "$port") 00000000:0000 0A" /proc/net/tcp && break
	kill -0 "$target" 2>/dev/null || break
	sleep 0.2
done
status=0
GUEST_NET=connect:$port scripts/guest-test.sh fabric_host >"$scratch/host" 2>&1 || status=1
wait "$target" || status=1
for side in target host; do
	echo "--- fabric-pair: $side"
	cat "$scratch/$side"
done
[ "$status" -eq 0 ] && echo "fabric-pair: both passed" || echo "fabric-pair: FAILED"
exit "$status"
