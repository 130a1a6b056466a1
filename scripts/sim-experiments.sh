#!/bin/bash
# The simulator experiments of the fragmentation research, on the default
# 8-die drive (4 channels x 2 dies, 32 KiB granularity, 256 KiB stripe):
#   alignment   4 KiB random reads at multiples of a stride, 4..1024 KiB
#   fragment    worst/random append/overwrite 8 MiB file vs contiguous
#   randwrite   3 x capacity of 4 KiB random overwrites (GC, WAF)
# Usage: sim-experiments.sh NVMEV_SIM OUTDIR [extra nvmev-sim options...]
set -euo pipefail
sim=$1
out=$2
shift 2
mkdir -p "$out"

run() { # name args...
	local name=$1
	shift
	"$sim" --format csv "$@" >"$out/$name.csv"
}

echo "nvmev-sim experiments -> $out"
run alignment "$@" alignment --region-mib 1024 --stride-min-kib 4 --stride-max-kib 1024 \
	--stride-step-kib 4 --reads 10000 --qd 64
for kind in append overwrite; do
	for gap in worst random; do
		run "fragment-$kind-$gap" "$@" fragment --kind "$kind" --gap "$gap"
	done
done
run randwrite "$@" randwrite --passes 3

echo
echo "Alignment: 4 KiB random reads at QD 64, throughput relative to stride 4 KiB"
printf '%-12s %10s %10s %10s\n' stride_kib MB/s relative dies_used
awk -F, '/^[0-9]/ && ($1 ~ /^(4|32|64|128|256|288|320|384|512|1024)$/) {
	printf "%-12s %10.1f %10.3f %10s\n", $1, $3, $4, $7 }' "$out/alignment.csv"

echo
echo "Fragmented 8 MiB file, 1 MiB sequential reads, relative to a contiguous file"
printf '%-10s %-7s %10s %12s %12s\n' kind gap relative frag_MB/s contig_MB/s
for kind in append overwrite; do
	for gap in worst random; do
		awk -F, -v k="$kind" -v g="$gap" '
			/^fragmented,/ { f = $2; r = $3 }
			/^contiguous,/ { c = $2 }
			END { printf "%-10s %-7s %10.3f %12.1f %12.1f\n", k, g, r, f, c }' \
			"$out/fragment-$kind-$gap.csv"
	done
done

echo
sed -n 's/^# \(write_amplification\|random_iops\|gc_cycles\|errors\)=/randwrite \1 = /p' "$out/randwrite.csv"

if command -v gnuplot >/dev/null; then
	gnuplot <<-GP
		set terminal pngcairo size 900,450 noenhanced
		set output "$out/alignment.png"
		set datafile separator ","
		set title "nvmev-sim: 4 KiB random reads at multiples of a stride (8 dies x 32 KiB)"
		set xlabel "stride (KiB)"
		set ylabel "throughput relative to 4 KiB stride"
		set yrange [0:1.1]
		set grid
		plot "$out/alignment.csv" using 1:4 every ::1 with linespoints pt 7 ps 0.4 notitle
	GP
	echo "plot: $out/alignment.png"
fi
