#!/bin/bash
# Do drives serialise each other? Two drives of one geometry (the module's
# and a configfs one) in one stock guest of 2 vCPUs, time_scale 100, 4 KiB
# random reads at QD32: one drive alone, then both at once, in alternating
# rounds (experiments/guest/scaling.sh; docs/drives.md). Prints, per
# round and as the median over the rounds: the IOPS of both drives over
# the IOPS of one (target: at least 1.8) and each drive's mean latency
# next to the lone drive's (target: within 5 %). Writes OUTDIR/raw.csv,
# summary.csv and the guest's console.
# Usage: scaling-experiment.sh [OUTDIR]          (default results/scaling)
#        PARSE_ONLY=1 scaling-experiment.sh OUTDIR  (again from the console)
# Scale: GUEST_APPEND="SCALING_S=10 SCALING_ROUNDS=3 SCALING_SCALE=100".
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/scaling}
mkdir -p "$out"
# shellcheck source=scripts/vm/experiment.sh
. scripts/vm/experiment.sh
status=0
experiment_guest "$out" scaling_experiment || status=$?
experiment_csv "$out" scaling_csv "round,case,drive,iops,mean_us"
# per round: both drives' IOPS over the lone drive's, each drive's mean
# latency over the lone drive's; then the median of each over the rounds
{
	echo "round,iops_ratio,first_latency_ratio,second_latency_ratio"
	awk -F, 'NR > 1 { v[$1, $2, $3, "iops"] = $4; v[$1, $2, $3, "lat"] = $5; r[$1] = 1 }
		END {
			for (n in r) {
				a = v[n, "alone", "first", "iops"]; al = v[n, "alone", "first", "lat"]
				b1 = v[n, "both", "first", "iops"]; b2 = v[n, "both", "second", "iops"]
				if (a == "" || b1 == "" || b2 == "" || !a || !al) continue
				printf "%s,%.3f,%.3f,%.3f\n", n, (b1 + b2) / a,
					v[n, "both", "first", "lat"] / al, v[n, "both", "second", "lat"] / al
			}
		}' "$out/raw.csv" | sort -n
} >"$out/rounds.csv"
median() { cut -d, -f"$1" | sort -n | awk '{ x[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
rounds=$(($(wc -l <"$out/rounds.csv") - 1))
{
	echo "iops_ratio_median,first_latency_ratio_median,second_latency_ratio_median,rounds"
	echo "$(tail -n +2 "$out/rounds.csv" | median 2),$(tail -n +2 "$out/rounds.csv" | median 3),$(tail -n +2 "$out/rounds.csv" | median 4),$rounds"
} >"$out/summary.csv"
column -s, -t <"$out/raw.csv"
echo
column -s, -t <"$out/rounds.csv"
echo
column -s, -t <"$out/summary.csv"
[ "$rounds" -ge 1 ] || { echo "scaling-experiment: no complete round" >&2; status=1; }
IFS=, read -r ratio l1 l2 _ < <(tail -1 "$out/summary.csv")
echo "scaling: two drives give ${ratio}x one drive's IOPS (target >= 1.8); latency ${l1} and ${l2} of the lone drive's (target 0.95-1.05)"
exit "$status"
