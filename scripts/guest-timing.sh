#!/bin/bash
# Timing fidelity of nvmev.ko in a QEMU guest, next to nvmev-sim:
#   - QD1 4 KiB random-read latency (time_scale 1000) vs the model's value
#   - the stride (alignment) sweep with fio (time_scale 100) vs nvmev-sim
# Prints a table and writes OUTDIR/latency.csv and OUTDIR/alignment.csv.
# Usage: guest-timing.sh NVMEV_SIM [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
sim=$1
out=${2:-results/guest}
mkdir -p "$out"

scripts/guest-test.sh latency,alignment | tee "$out/console.txt" |
	grep -E '^(ok|not ok|guest:)' || true
log=$out/console.txt
grep -q '^guest: 2 passed, 0 failed' "$log" || { echo "guest-timing: guest checks failed" >&2; exit 1; }

# same drive and strides in the simulator (64 MiB region, QD 64)
"$sim" --format csv --capacity-mib 128 --time-scale 100 alignment --region-mib 64 \
	--stride-min-kib 4 --stride-max-kib 512 --stride-step-kib 4 --reads 4000 --qd 64 \
	>"$out/sim-alignment.csv"

# the time_scale 1000 read: the model's value and the guest's 20th percentile
{
	echo "predicted_ns,measured_ns"
	paste -d, <(sed -n 's/^latency: predicted_ns big=\([0-9]*\) .*/\1/p' "$log") \
		<(sed -n 's/^latency: 20th percentile ns big=\([0-9]*\) .*/\1/p' "$log")
} >"$out/latency.csv"
{
	echo "stride_kib,guest_iops,guest_relative,sim_relative"
	sed -n 's/^alignment: stride_kib=\([0-9]*\) iops=\([0-9]*\) relative=\([0-9.]*\).*/\1 \2 \3/p' "$log" |
		while read -r s iops rel; do
			simrel=$(awk -F, -v s="$s" '$1 == s { print $4 }' "$out/sim-alignment.csv")
			echo "$s,$iops,$rel,$simrel"
		done
} >"$out/alignment.csv"

echo
awk -F, 'NR == 2 { printf "QD1 4 KiB read latency: model %.2f ms, guest %.2f ms (%+.1f %%)\n",
	$1 / 1e6, $2 / 1e6, ($2 - $1) * 100 / $1 }' "$out/latency.csv"
echo
printf '%-10s %12s %12s\n' stride_kib guest_rel sim_rel
awk -F, 'NR > 1 { printf "%-10s %12.3f %12.3f\n", $1, $3, $4 }' "$out/alignment.csv"
