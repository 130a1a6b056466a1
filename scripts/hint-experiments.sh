#!/bin/bash
# The placement-hint experiments of the fragmentation research, 8 MiB
# target file in 32 KiB chunks on the 8-die x 32 KiB drive, hints off and
# on, read throughput as a fraction of the contiguous file:
#   - in nvmev-sim (random gaps of 32 KiB .. 32 MiB, as in the paper)
#   - in a QEMU guest on the raw device with nvmev-hint (random gaps of
#     32 KiB .. 2 MiB to fit the guest's 511 MiB drive; reads at
#     time_scale 1000)
# Writes OUTDIR/sim.csv and OUTDIR/guest.csv and prints a table.
# Usage: hint-experiments.sh NVMEV_SIM [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
sim=$1
out=${2:-results/hints}
mkdir -p "$out"

echo "pattern,gap,hints,relative,fragmented_mb_s,contiguous_mb_s,dies_used,collisions,collision_wait_us" >"$out/sim.csv"
for pattern in append overwrite; do
	for gap in worst random; do
		for h in off on; do
			flag=()
			[ "$h" = on ] && flag=(--send-hints)
			"$sim" --format csv fragment --kind "$pattern" --gap "$gap" "${flag[@]}" |
				awk -F, -v p="$pattern" -v g="$gap" -v h="$h" '
					/^layout,/ { for (i = 1; i <= NF; i++) col[$i] = i }
					/^fragmented,/ { split($0, f, ",") }
					/^contiguous,/ { c = $col["mb_per_s"] }
					END { printf "%s,%s,%s,%.4f,%.1f,%.1f,%d,%d,%d\n", p, g, h,
						f[col["relative"]], f[col["mb_per_s"]], c, f[col["dies_used"]],
						f[col["collisions"]], f[col["collision_wait_us"]] }' >>"$out/sim.csv"
		done
	done
done

scripts/guest-test.sh hints_experiment >"$out/guest-console.txt" 2>&1 || {
	grep -E '^(ok|not ok|guest:)' "$out/guest-console.txt"
	echo "hint-experiments: guest run failed" >&2
	exit 1
}
echo "pattern,gap,hints,relative,fragmented_mb_s,dies_used,collisions,collision_wait_us" >"$out/guest.csv"
# layout,mb_per_s,relative,die0..dieN_reads,collisions,collision_wait_us,dies_used
sed -n 's/^hints_experiment: pattern=\([a-z]*\) gap=\([a-z]*\) hints=\([a-z]*\) relative=\([0-9.e-]*\) \(.*\)$/\1 \2 \3 \4 \5/p' \
	"$out/guest-console.txt" | while read -r p g h rel row; do
	awk -F, -v p="$p" -v g="$g" -v h="$h" -v r="$rel" '{
		printf "%s,%s,%s,%.4f,%.2f,%d,%d,%d\n", p, g, h, r, $2, $NF, $(NF - 2), $(NF - 1) }' <<<"$row"
done >>"$out/guest.csv"

echo
echo "Read throughput of the 8 MiB file relative to a contiguous copy"
printf '%-10s %-7s %-5s %10s %10s\n' pattern gap hints nvmev-sim guest
join -t, -j1 <(awk -F, 'NR > 1 { print $1 "/" $2 "/" $3 "," $4 }' "$out/sim.csv" | sort) \
	<(awk -F, 'NR > 1 { print $1 "/" $2 "/" $3 "," $4 }' "$out/guest.csv" | sort) |
	awk -F, '{ split($1, k, "/"); printf "%-10s %-7s %-5s %10.3f %10.3f\n", k[1], k[2], k[3], $2, $3 }'
