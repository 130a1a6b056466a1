#!/bin/sh
# nio-calibrate.sh DEVICE [COUNT] (this file, installed in the guest under
# that name): NIO's static values for DEVICE (a block device on a kernel
# with the NIO patch and poll queues). Measures the
# QD1 polled latency (classic polling, RWF_HIPRI, COUNT calls, default
# 500) per direction and size class (4, 8, 16, 32, 64 KiB) with nvmev-txn
# and writes, per the NIO paper,
#   nio_{read,write}_expect_ns  the mean (T_expect)
#   nio_{read,write}_sleep_ns   the mean minus the standard deviation
# and nio_sleep_cost_ns (T_sleep, which the kernel subtracts from every
# sleep): how late a 200 us sleep wakes up on this machine. Prints CSV.
# The write measurements overwrite data on DEVICE. POSIX sh: runs in the
# test guest.
set -eu
dev=${1:?usage: nio-calibrate.sh DEVICE [COUNT]}
count=${2:-500}
q=/sys/block/$(basename "$dev")/queue
[ -e "$q/nio_enable" ] || {
	echo "nio-calibrate: no $q/nio_enable (kernel without the NIO patch, or no poll queues)" >&2
	exit 1
}
out=${TMPDIR:-/tmp}/nio-calibrate.$$
was=$(cat "$q/nio_enable")
trap 'echo "$was" >"$q/nio_enable"; rm -f "$out"' EXIT
echo 0 >"$q/nio_enable" # measure classic polling
nvmev-txn --sleep-probe-us 200 --count "$count" --format text >"$out"
cost=$(awk -F= '$1 == "late_mean_ns" { printf "%d", $2 }' "$out")
[ "$cost" -le 10000000 ] || cost=10000000
echo "$cost" >"$q/nio_sleep_cost_ns"
echo "rw,kib,mean_ns,stdev_ns,sleep_ns"
echo "sleep_cost,0,$cost,0,0"
for rw in read write; do
	sleeps=
	expects=
	for kib in 4 8 16 32 64; do
		nvmev-txn "$dev" --rw "$rw" --member-kib "$kib" --count "$count" --hipri \
			--format text >"$out"
		mean=$(awk -F= '$1 == "mean_us" { printf "%d", $2 * 1000 }' "$out")
		sd=$(awk -F= '$1 == "stdev_us" { printf "%d", $2 * 1000 }' "$out")
		sleep=$((mean > sd ? mean - sd : 0))
		# the kernel takes at most 10 ms per value
		[ "$mean" -le 10000000 ] || mean=10000000
		[ "$sleep" -le 10000000 ] || sleep=10000000
		echo "$rw,$kib,$mean,$sd,$sleep"
		sleeps="$sleeps $sleep"
		expects="$expects $mean"
	done
	echo "$sleeps" >"$q/nio_${rw}_sleep_ns"
	echo "$expects" >"$q/nio_${rw}_expect_ns"
done
