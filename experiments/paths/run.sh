#!/bin/bash
# shellcheck disable=SC2317 # run and what it calls: called by runner_repeat
# Software latency on every host path, in patched-kernel guest runs
# (`make paths`; guest.sh, test paths_experiment):
# QD1 4 KiB random reads and writes through interrupts (fio pvsync2),
# classic polling (pvsync2 --hipri=1, RWF_HIPRI, patch 4), hybrid polling
# (io_poll_delay=0), NIO (patch 5, calibrated by experiments/nio/calibrate.sh),
# io_uring polled on the poll queue, io_uring passthrough on /dev/ng0n1
# and the user-level driver (nvmev-uhost, last: it unbinds the nvme
# driver), on nvmev with its modelled time near zero (read_ns=1 prog_ns=1
# fw_*=0, 10^6 MB/s channel and link) and every other parameter at its
# default. Software latency = mean - modelled time - the device's own
# posting lateness (debugfs post_late_mean_ns, reset before each point).
# The same fio jobs on null_blk (memory-backed, softirq completions, one
# poll queue; configfs), each run just before its nvmev point, give the
# block stack's floor; the device's busy time per I/O; nvmev's idle CPU;
# and the kernel paths again with spin_max_us=0 (no adaptive spin) as a
# control. The guest has two vCPUs, QEMU's threads pinned on the host
# (GUEST_PIN_VCPUS=1): the workload runs on vCPU 0 (taskset), the device's
# thread is left unbound (its default) and gets vCPU 1.
# PATHS_RUNS runs (default 3), each a fresh boot in OUTDIR/run-K, which
# gets raw.csv (every point), paths.csv, nullblk.csv (against the targets
# of targets.csv), queues.csv, idle.csv, host.txt (what else ran on this
# machine). The ratios against null_blk spread widely run to run (a QD1
# interrupt I/O waits for a halted vCPU's wake-up on the host), so
# OUTDIR/median.csv has each ratio's median over the runs and its spread
# (min, max), with the target checked on the median; it and the last
# run's tables are written in this folder's README.md.
# Usage: run.sh [OUTDIR]        (default results/paths)
#        PARSE_ONLY=1 run.sh OUTDIR   (again from the consoles)
# Scale: PATHS_RUNS=N; GUEST_APPEND="PATHS_IOS=4000 PATHS_QD32_S=5";
# KERNEL_TREE=DIR skips scripts/kernel/build-kernel.sh.
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init paths
out=${1:-results/paths}
runs=$(runner_count "${PATHS_RUNS:-3}")
mkdir -p "$out"

# what else runs on this machine: the load and the busiest processes
host_snapshot() {
	echo "== $1: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	ps -eo pcpu,etime,comm --sort=-pcpu | head -8
	echo "other QEMU guests: $(pgrep -c qemu-system || true)"
}

# boot DIR: one guest run, the host's load sampled beside it
boot() {
	local out=$1 sampler start status=0
	host_snapshot before >"$out/host.txt"
	# the load every 30 s while the guest runs
	(while sleep 30; do
		echo "load $(cut -d' ' -f1-3 /proc/loadavg), QEMU processes (this run's included) $(pgrep -c qemu-system || true)"
	done) >>"$out/host.txt" &
	sampler=$!
	start=$(date +%s)
	GUEST_NAME=paths GUEST_TIMEOUT=${GUEST_TIMEOUT:-1500} \
		GUEST_APPEND="null_blk.nr_devices=0 ${GUEST_APPEND:-}" \
		runner_guest "$out" paths_experiment >/dev/null || status=$?
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	echo "guest run: $(($(date +%s) - start)) s" >>"$out/host.txt"
	host_snapshot after >>"$out/host.txt"
	return "$status"
}

# run DIR: one run (a boot unless PARSE_ONLY) and its tables
run() {
	local out=$1 status=0
	[ -n "${PARSE_ONLY:-}" ] || boot "$out" || status=$?
	runner_console "$out" | grep -E '^(ok|not ok|guest:|guest-test:|paths:|nvmev:|null_blk:)' || true
	runner_lines "$out" paths_csv >"$out/raw.csv"
	runner_lines "$out" paths_idle >"$out/idle.csv"
	runner_console "$out" | sed -n 's/^paths_nio,//p' >"$out/nio-sleeps.txt"
	[ "$(wc -l <"$out/raw.csv")" -gt 1 ] || { echo "paths: no results in $out/guest-console.txt" >&2; return 1; }

	awk -v thesis="$RUNNER_DIR/thesis.csv" -f "$RUNNER_DIR/paths.awk" "$out/raw.csv" >"$out/paths.csv"
	echo "== software latency per host path, QD1 4 KiB, nvmev with ~0 modelled time ($out/paths.csv)"
	column -t -s, "$out/paths.csv"
	awk -f "$RUNNER_DIR/queues.awk" "$out/raw.csv" >"$out/queues.csv"
	echo "== user-level driver, QD32 4 KiB random reads, 1 and 2 queue pairs ($out/queues.csv)"
	column -t -s, "$out/queues.csv"
	awk -v idle="$out/idle.csv" -v targets="$RUNNER_DIR/targets.csv" -f "$RUNNER_DIR/nullblk.awk" \
		"$out/raw.csv" >"$out/nullblk.csv"
	echo "== nvmev / null_blk, 4 KiB, same fio jobs ($out/nullblk.csv)"
	column -t -s, "$out/nullblk.csv"
	echo "== idle CPU of nvmev's worker, 5 s, 2 s after I/O ($out/idle.csv)"
	column -t -s, "$out/idle.csv"
	if [ -s "$out/nio-sleeps.txt" ]; then
		echo "== NIO's sleeps and oversleeps (rw, sleeps, oversleeps)"
		cat "$out/nio-sleeps.txt"
	fi
	echo "== calibration for NIO (classic polling, ns)"
	runner_console "$out" | sed -n 's/^paths_cal,//p' | column -t -s,
	if [ -f "$out/host.txt" ]; then
		echo "== the machine ($out/host.txt)"
		cat "$out/host.txt"
	fi
	return "$status"
}

status=0
runner_repeat "$out" "$runs" run || status=1
runner_awk -f "$RUNNER_DIR/median.awk" "$out"/run-*/nullblk.csv >"$out/median.csv" || status=1
echo "== nvmev / null_blk, median of the runs ($out/median.csv)"
column -t -s, "$out/median.csv"
last=$(compgen -G "$out/run-*/paths.csv" | sort -V | tail -1)
runner_page \
	"nvmev / null_blk (IOPS, paired points) and nvmev's idle CPU: the median over the runs, its spread (min, max) and the target ([targets.csv](targets.csv)), checked on the median" \
	"$out/median.csv" \
	"Software latency per path in the last run (QD1 4 KiB; \`sw_over_interrupt\`: that path's software latency over the interrupt path's, same config and direction; the thesis's figure from [thesis.csv](thesis.csv))" \
	"$last" \
	"The user-level driver's queue scaling in the last run (QD32 4 KiB random reads)" \
	"$(dirname "$last")/queues.csv"
exit "$status"
