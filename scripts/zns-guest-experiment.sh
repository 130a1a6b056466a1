#!/bin/bash
# The zoned-against-conventional experiment through Linux's block layer:
# the simulator's zone-log workload in a stock guest (fio, blkzone,
# blkdiscard; experiments/guest/zns.sh), a zoned drive and a conventional
# one of the same geometry. Writes OUTDIR/raw.csv and the guest's console
# and prints the table; fails unless both drives were measured.
# Usage: zns-guest-experiment.sh [OUTDIR]          (default results/zns)
#        PARSE_ONLY=1 zns-guest-experiment.sh OUTDIR  (again from the console)
# Scale: GUEST_APPEND="ZNS_LOG_ROUNDS=16 ZNS_LOG_SCALE=20".
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/zns}
mkdir -p "$out"
# shellcheck source=scripts/vm/experiment.sh
. scripts/vm/experiment.sh
status=0
experiment_guest "$out" zns_log_experiment || status=$?
experiment_csv "$out" zns_log_csv "drive,waf,gc_copy_units,host_mib,mb_per_s,p99_us,max_us"
mv "$out/raw.csv" "$out/zone-log-guest.csv"
echo
echo "Zoned against conventional in a guest: 7/8 full, 4 zones written at once, 4 random zones emptied per round"
column -s, -t <"$out/zone-log-guest.csv"
rows=$(($(wc -l <"$out/zone-log-guest.csv") - 1))
[ "$rows" -eq 2 ] || { echo "zns-guest-experiment: $rows of 2 drives measured" >&2; status=1; }
exit "$status"
