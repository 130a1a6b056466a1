#!/bin/bash
# Timing fidelity of nvmev.ko in a QEMU guest, next to nvmev-sim (`make
# timing`; the guest half is the guest tests latency and alignment):
#   - QD1 4 KiB random-read latency (time_scale 1000) vs the model's value
#   - the stride (alignment) sweep with fio (time_scale 100) vs nvmev-sim
# Writes OUTDIR/latency.csv, OUTDIR/alignment.csv and this folder's
# README.md tables.
# Usage: run.sh NVMEV_SIM [OUTDIR]
#        PARSE_ONLY=1 run.sh NVMEV_SIM OUTDIR   (again from the console)
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init timing
sim=$1
out=${2:-results/timing}

# the test tiers' guest (3 vCPUs, unpinned)
GUEST_SMP=${GUEST_SMP:-3} GUEST_PIN_VCPUS=${GUEST_PIN_VCPUS:-0} \
	runner_guest "$out" latency,alignment || true
log=$out/guest-console.txt
grep -q '^guest: 2 passed, 0 failed' "$log" || runner_fail "guest checks failed"

# same drive and strides in the simulator (64 MiB region, QD 64)
"$sim" --format csv --capacity-mib 128 --time-scale 100 alignment --region-mib 64 \
	--stride-min-kib 4 --stride-max-kib 512 --stride-step-kib 4 --reads 4000 --qd 64 \
	>"$out/sim-alignment.csv"

# the time_scale 1000 read: the model's value and the guest's 20th percentile
{
	echo "model_ms,guest_ms,guest_over_model"
	paste -d' ' <(sed -n 's/^latency: predicted_ns big=\([0-9]*\) .*/\1/p' "$log") \
		<(sed -n 's/^latency: 20th percentile ns big=\([0-9]*\) .*/\1/p' "$log") |
		awk '{ printf "%.2f,%.2f,%.3f\n", $1 / 1e6, $2 / 1e6, $2 / $1 }'
} >"$out/latency.csv"
{
	echo "stride_kib,guest_iops,guest_relative,sim_relative"
	sed -n 's/^alignment: stride_kib=\([0-9]*\) iops=\([0-9]*\) relative=\([0-9.]*\).*/\1,\2,\3/p' "$log" |
		awk -F, -v sim="$out/sim-alignment.csv" '
			BEGIN { while ((getline line < sim) > 0) { split(line, f, ","); rel[f[1]] = f[4] } }
			{ printf "%s,%s,%.3f,%.3f\n", $1, $2, $3, rel[$1] }'
} >"$out/alignment.csv"

column -t -s, "$out/latency.csv"
echo
column -t -s, "$out/alignment.csv"
runner_page \
	"QD1 4 KiB random-read latency at \`time_scale=1000\` (guest: 20th percentile of 30 reads)" \
	"$out/latency.csv" \
	"4 KiB random reads at multiples of a stride, \`time_scale=100\`: fio's relative IOPS in the guest (2 s per stride) and nvmev-sim's over the same region" \
	"$out/alignment.csv"
