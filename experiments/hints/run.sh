#!/bin/bash
# The placement-hint experiments of the fragmentation research (`make
# hints`), 8 MiB target file in 32 KiB chunks on the 8-die x 32 KiB drive,
# hints off and on, read throughput as a fraction of the contiguous file:
#   sim    in nvmev-sim (random gaps of 32 KiB .. 32 MiB, as in the paper)
#   guest  in a QEMU guest on the raw device with nvmev-hint (random gaps
#          of 32 KiB .. 2 MiB to fit the guest's 511 MiB drive; reads at
#          time_scale 1000; guest.sh)
# Writes OUTDIR/sim.csv and OUTDIR/guest.csv, prints them and writes each
# part's table in this folder's README.md.
# Usage: run.sh NVMEV_SIM [OUTDIR [sim|guest|all]]   (default: all)
#        PARSE_ONLY=1 run.sh NVMEV_SIM OUTDIR guest  (again from the console)
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init hints
sim=$1
out=${2:-results/hints}
part=${3:-all}
mkdir -p "$out"

if [ "$part" != guest ]; then
	echo "pattern,gap,hints,relative,fragmented_mb_s,contiguous_mb_s,dies_used,collisions,collision_wait_us,paper" >"$out/sim.csv"
	for pattern in append overwrite; do
		for gap in worst random; do
			for h in off on; do
				flag=()
				[ "$h" = on ] && flag=(--send-hints)
				"$sim" --format csv fragment --kind "$pattern" --gap "$gap" "${flag[@]}" |
					awk -v p="$pattern" -v g="$gap" -v h="$h" -v paper="$RUNNER_DIR/paper.csv" \
						-f "$RUNNER_DIR/sim-row.awk" >>"$out/sim.csv"
			done
		done
	done
	echo "nvmev-sim: read throughput of the 8 MiB file relative to a contiguous copy"
	column -t -s, "$out/sim.csv"
	RUNNER_BLOCK=sim runner_page \
		"nvmev-sim, 1 MiB reads (the paper's emulator in the last column, [paper.csv](paper.csv))" \
		"$out/sim.csv"
fi

if [ "$part" != sim ]; then
	# the test tiers' guest (3 vCPUs, unpinned)
	GUEST_SMP=${GUEST_SMP:-3} GUEST_PIN_VCPUS=${GUEST_PIN_VCPUS:-0} \
		runner_guest "$out" hints_experiment || runner_fail "guest run failed"
	echo "pattern,gap,hints,relative,fragmented_mb_s,dies_used,collisions,collision_wait_us" >"$out/guest.csv"
	# layout,mb_per_s,relative,die0..dieN_reads,collisions,collision_wait_us,dies_used
	runner_console "$out" |
		sed -n 's/^hints_experiment: pattern=\([a-z]*\) gap=\([a-z]*\) hints=\([a-z]*\) relative=\([0-9.e-]*\) \(.*\)$/\1,\2,\3,\4,\5/p' |
		awk -F, '{ printf "%s,%s,%s,%.4f,%.2f,%d,%d,%d\n", $1, $2, $3, $4, $6, $NF, $(NF - 2), $(NF - 1) }' \
			>>"$out/guest.csv"
	echo "guest: read throughput of the 8 MiB file relative to a contiguous copy"
	column -t -s, "$out/guest.csv"
	RUNNER_BLOCK=guest runner_page "guest, 256 KiB \`O_DIRECT\` reads" "$out/guest.csv"
fi
