#!/bin/bash
# The default store (no memmap_*: registers in a memory block taken from
# the kernel, data in kernel pages) against the memmap= store, in one
# stock-kernel guest run (`make store`; guest.sh, test store_experiment):
# 4 KiB random reads and writes at QD1 and QD32 (fio libaio, 5 s each,
# vCPU 0) with the modelled time near zero, the two stores in rounds
# A B, B A, ... Prints IOPS and mean latency per point and, per workload,
# the median over the rounds of the page-backed store's IOPS over the
# linear store's. Writes OUTDIR/raw.csv, ratios.csv, the guest's console
# and this folder's README.md table.
# Usage: run.sh [OUTDIR]        (default results/store)
#        PARSE_ONLY=1 run.sh OUTDIR   (again from the console)
# Scale: GUEST_APPEND="STORE_S=5 STORE_ROUNDS=3".
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init store
out=${1:-results/store}
status=0
GUEST_MEMMAP=1 runner_guest "$out" store_experiment || status=$?
runner_csv "$out" store_csv "round,store,rw,qd,iops,mean_us" raw.csv
{
	echo "rw,qd,linear_iops,pages_iops,pages_over_linear_median,min,max,rounds"
	runner_awk -f "$RUNNER_DIR/ratios.awk" "$out/raw.csv" | sort -t, -k1,1 -k2,2n
} >"$out/ratios.csv"
runner_show "$out/raw.csv" "$out/ratios.csv"
if [ "$(wc -l <"$out/ratios.csv")" -eq 5 ]; then
	runner_page "4 KiB random I/O, modelled time near zero; pages / linear: the median over the rounds and its spread" \
		"$out/ratios.csv"
else
	echo "store: points missing" >&2
	status=1
fi
exit "$status"
