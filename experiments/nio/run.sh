#!/bin/bash
# shellcheck disable=SC2317 # run and what it calls: called by runner_repeat
# The NIO experiments in the patched guest (host patches 4-5), run
# (`make nio`), NIO_RUNS times (default 3), each a fresh boot: the guest's
# nio-calibrate.sh (calibrate.sh here) sets
# NIO's static values from classic polling, then QD1 reads and writes of
# 4 KiB..1 MiB and vectored transactions of 4 and 64 members (nvmev-txn)
# by interrupt, classic polling, hybrid polling and NIO, and the paper's
# three-phase workload (fio, jobs scaled to the guest's CPUs) by
# interrupt, classic polling and NIO. CPU is the issuing threads'
# (getrusage, fio's usr/sys), so the emulator's is not counted.
# Each run writes OUTDIR/run-K/: nio.csv, calibration.csv, phases.csv,
# ratios.csv, paper.csv (next to the paper's figures of this folder's
# paper.csv, with the bounds) and plots. OUTDIR/median.csv has, per metric
# and read size, the median over the runs and their spread (min, max);
# the bounds are checked on the median, and the table is written in this
# folder's README.md.
# The guest has two vCPUs and QEMU's threads are pinned on the host
# (scripts/guest-test.sh GUEST_PIN_VCPUS): the emulator's vCPU alone on
# the last host CPU, where it spins, the workload's vCPU with QEMU's main
# loop (which fires the guest's timers under TCG) on host CPU 0.
# Without that, a vCPU going idle and waking up (interrupts, hybrid
# polling, NIO) disturbs the emulator's timing, which only classic
# polling, never idle, escapes.
# Usage: run.sh [OUTDIR]
#        PARSE_ONLY=1 run.sh OUTDIR  (again from the consoles)
# Scale: NIO_RUNS=N; GUEST_APPEND="NIO_TIME_SCALE=20 NIO_COUNT=1000
#        NIO_JITTER_NS=0 NIO_SIZES=4,8,16" (defaults in guest.sh,
#        but NIO_COUNT is 1000 here).
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init nio
out=${1:-results/nio}
runs=$(runner_count "${NIO_RUNS:-3}")
mkdir -p "$out"

# report DIR: one run's tables from DIR/guest-console.txt
report() {
	local out=$1 rw
	runner_lines "$out" nio_csv >"$out/nio.csv"
	runner_console "$out" | sed -n 's/^nio_cal,//p' >"$out/calibration.csv"
	runner_lines "$out" nio_phase >"$out/phases.csv"
	[ "$(wc -l <"$out/nio.csv")" -gt 1 ] || { echo "nio: no results in $out/guest-console.txt" >&2; return 1; }

	echo "== calibration (classic polling, ns)"
	column -t -s, "$out/calibration.csv"
	echo "== QD1 and transactions ($out/nio.csv)"
	column -t -s, "$out/nio.csv"
	awk -f "$RUNNER_DIR/ratios.awk" "$out/nio.csv" >"$out/ratios.csv"
	echo "== NIO relative to classic polling and interrupts ($out/ratios.csv)"
	column -t -s, "$out/ratios.csv"
	runner_awk -v phases="$out/phases.csv" -v paper="$RUNNER_DIR/paper.csv" \
		-f "$RUNNER_DIR/compare.awk" "$out/nio.csv" >"$out/paper.csv"
	echo "== next to the NIO paper ($out/paper.csv)"
	column -t -s, "$out/paper.csv"
	echo "== three-phase workload, jobs scaled to the guest's CPUs ($out/phases.csv)"
	column -t -s, "$out/phases.csv"

	for rw in read write; do
		awk -v rw="$rw" -f "$RUNNER_DIR/plot-data.awk" "$out/nio.csv" >"$out/$rw.dat"
		runner_plot 1100,450 "$out/$rw.png" <<-GP
			set output "$out/$rw.png"
			set multiplot layout 1,2 title "QD1 $rw on nvmev (patched guest): interrupts, polling, NIO"
			set style data histograms
			set style histogram clustered gap 1
			set style fill solid 0.8 border -1
			set grid ytics
			set xlabel "KiB"
			set ylabel "mean latency (us)"
			plot "$out/$rw.dat" using 2:xtic(1) title "interrupt", "" using 3 title "classic poll", \
				"" using 4 title "hybrid poll", "" using 5 title "NIO"
			set ylabel "CPU of the issuing thread (%)"
			set yrange [0:110]
			plot "$out/$rw.dat" using 6:xtic(1) title "interrupt", "" using 7 title "classic poll", \
				"" using 8 title "hybrid poll", "" using 9 title "NIO"
			unset multiplot
		GP
	done
}

# run DIR: one boot of the patched guest, then its tables
run() {
	local status=0
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600} \
		GUEST_APPEND="NIO_COUNT=1000 ${GUEST_APPEND:-}" runner_guest "$1" nio_experiment || status=1
	report "$1" || status=1
	return "$status"
}

status=0
runner_repeat "$out" "$runs" run || status=1

# The median over the runs, and the spread, of every per-size read ratio
# the bounds are about, with the bound checked on the median
runner_awk -f "$RUNNER_DIR/median.awk" "$out"/run-*/nio.csv >"$out/median.csv" || status=1
echo "== median of the runs ($out/median.csv)"
column -t -s, "$out/median.csv"
if grep -q ',NO$' "$out/median.csv"; then
	echo "nio: a bound does not hold on the median"
	status=1
fi
runner_page "QD1 reads, per metric, NIO variant and size: the median over the runs, its spread (min, max) and NIO's bound, checked on the median" \
	"$out/median.csv"
exit "$status"
