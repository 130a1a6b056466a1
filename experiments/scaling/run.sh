#!/bin/bash
# Do drives serialise each other? Two drives of one geometry (the module's
# and a configfs one) in one stock guest of 2 vCPUs, time_scale 100, 4 KiB
# random reads at QD32: one drive alone, then both at once, in alternating
# rounds (`make scaling`; guest.sh). Prints, per round and as the median
# over the rounds: the IOPS of both drives over the IOPS of one and each
# drive's mean latency next to the lone drive's, against targets.csv.
# Writes OUTDIR/raw.csv, rounds.csv, summary.csv, the guest's console and
# this folder's README.md table.
# Usage: run.sh [OUTDIR]          (default results/scaling)
#        PARSE_ONLY=1 run.sh OUTDIR  (again from the console)
# Scale: GUEST_APPEND="SCALING_S=10 SCALING_ROUNDS=3 SCALING_SCALE=100".
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init scaling
out=${1:-results/scaling}
status=0
runner_guest "$out" scaling_experiment || status=$?
runner_csv "$out" scaling_csv "round,case,drive,iops,mean_us" raw.csv
{
	echo "round,iops_ratio,first_latency_ratio,second_latency_ratio"
	awk -f "$RUNNER_DIR/rounds.awk" "$out/raw.csv" | sort -n
} >"$out/rounds.csv"
runner_awk -v targets="$RUNNER_DIR/targets.csv" -f "$RUNNER_DIR/summary.awk" \
	"$out/rounds.csv" >"$out/summary.csv"
runner_show "$out/raw.csv" "$out/rounds.csv" "$out/summary.csv"
if [ "$(wc -l <"$out/rounds.csv")" -gt 1 ]; then
	runner_page "Both drives' IOPS over the lone drive's (iops_ratio), and each drive's mean latency over the lone drive's (first: the module's drive, second: the configfs one); the median over the rounds, its spread and the target ([targets.csv](targets.csv))" \
		"$out/summary.csv"
else
	echo "scaling: no complete round" >&2
	status=1
fi
exit "$status"
