#!/bin/bash
# The default store (no memmap_*: registers in a memory block taken from
# the kernel, data in kernel pages) against the memmap= store, in one
# stock-kernel guest run
# (experiments/guest/store.sh, test store_experiment; docs/module.md):
# 4 KiB random reads and writes at QD1 and QD32 (fio libaio, 5 s each,
# vCPU 0) with the modelled time near zero, the two stores in rounds
# A B, B A, ... Prints IOPS and mean latency per point and, per workload,
# the median over the rounds of the page-backed store's IOPS over the
# linear store's. Writes OUTDIR/raw.csv, ratios.csv and the guest's
# console.
# Usage: store-experiment.sh [OUTDIR]        (default results/store)
#        PARSE_ONLY=1 store-experiment.sh OUTDIR   (again from the console)
# Scale: GUEST_APPEND="STORE_S=5 STORE_ROUNDS=3".
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/store}
mkdir -p "$out"
# shellcheck source=scripts/vm/experiment.sh
. scripts/vm/experiment.sh
status=0
GUEST_MEMMAP=1 experiment_guest "$out" store_experiment || status=$?
experiment_csv "$out" store_csv "round,store,rw,qd,iops,mean_us"
# per workload: the IOPS of each store (mean over the rounds) and the
# median over the rounds of pages / linear, each round's pair measured
# back to back
{
	echo "rw,qd,linear_iops,pages_iops,pages_over_linear_median,rounds"
	awk -F, 'NR > 1 { k = $3 "," $4; v[$1, $2, k] = $5; keys[k] = 1; rounds[$1] = 1 }
		END {
			for (k in keys) {
				n = 0; sl = 0; sp = 0
				for (r in rounds) {
					l = v[r, "linear", k]; p = v[r, "pages", k]
					if (l == "" || p == "") continue
					x[++n] = p / l; sl += l; sp += p
				}
				if (!n) continue
				for (i = 2; i <= n; i++)
					for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
				med = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
				printf "%s,%.0f,%.0f,%.3f,%d\n", k, sl / n, sp / n, med, n
			}
		}' "$out/raw.csv" | sort -t, -k1,1 -k2,2n
} >"$out/ratios.csv"
column -s, -t <"$out/raw.csv"
echo
column -s, -t <"$out/ratios.csv"
[ "$(wc -l <"$out/ratios.csv")" -eq 5 ] || { echo "store-experiment: points missing" >&2; status=1; }
exit "$status"
