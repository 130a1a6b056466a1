#!/bin/bash
# The zoned-namespace experiments in the simulator, on the default 8-die
# drive (4 channels x 2 dies, 2 MiB blocks: 16 MiB zones, one block on
# every die at full width), 1 GiB:
#   zone-sweep  write, then read, whole zones against zone width (1-8
#               dies) and zones written at once (1-8)
#   zone-log    zones filled 4 at a time, a random full zone reset per
#               zone filled, 3 x capacity: the zoned drive against the
#               conventional one (the same LBAs, a TRIM for each reset)
# Usage: zns-experiments.sh NVMEV_SIM OUTDIR [extra nvmev-sim options...]
set -euo pipefail
sim=$1
out=$2
shift 2
mkdir -p "$out"

echo "nvmev-sim zoned experiments -> $out"
"$sim" --format csv --capacity-mib 1024 "$@" zone-sweep >"$out/zone-sweep.csv"
"$sim" --format csv --capacity-mib 1024 "$@" zone-log >"$out/zone-log.csv"

echo
echo "256 MiB of zones written, then read, by 1-8 streams at QD 32 in 64 KiB commands (MB/s)"
printf '%-6s %-11s %10s %10s\n' width open_zones write read
awk -F, '/^[0-9]/ { printf "%-6s %-11s %10.1f %10.1f\n", $1, $2, $3, $4 }' \
	"$out/zone-sweep.csv"

echo
echo "Log-structured zones, 90 % full, 4 open, 3 x capacity"
printf '%-13s %6s %10s %10s %12s %12s\n' drive WAF gc_copies MB/s p99_us max_us
awk -F, '/^(zoned|conventional),/ {
	printf "%-13s %6.3f %10s %10.1f %12.1f %12.1f\n", $1, $2, $3, $5, $7, $8 }' \
	"$out/zone-log.csv"

if command -v gnuplot >/dev/null; then
	gnuplot <<-GP
		set terminal pngcairo size 900,450 noenhanced
		set datafile separator ","
		set key top left
		set xlabel "zones written at once"
		set logscale x 2
		set output "$out/zone-sweep-write.png"
		set title "nvmev-sim: zone write throughput (8 dies, 16 MiB zones)"
		set ylabel "MB/s"
		plot for [w in "1 2 4 8"] "$out/zone-sweep.csv" \
			using (\$1 == w ? \$2 : NaN):3 with linespoints title "width ".w." dies"
		set output "$out/zone-sweep-read.png"
		set title "nvmev-sim: zone read throughput (8 dies, 16 MiB zones)"
		plot for [w in "1 2 4 8"] "$out/zone-sweep.csv" \
			using (\$1 == w ? \$2 : NaN):4 with linespoints title "width ".w." dies"
	GP
	echo
	echo "plots: $out/zone-sweep-write.png $out/zone-sweep-read.png"
fi
