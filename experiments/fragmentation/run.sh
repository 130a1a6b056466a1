#!/bin/bash
# The simulator experiments of the fragmentation research (`make
# fragmentation`, part of `make experiments`), on the default 8-die drive
# (4 channels x 2 dies, 32 KiB granularity, 256 KiB stripe):
#   alignment   4 KiB random reads at multiples of a stride, 4..1024 KiB
#   fragment    worst/random append/overwrite 8 MiB file vs contiguous
#   randwrite   3 x capacity of 4 KiB random overwrites (GC, WAF)
# Writes OUTDIR/*.csv, the tables of this folder's README.md and a plot.
# Usage: run.sh NVMEV_SIM OUTDIR [extra nvmev-sim options...]
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init fragmentation
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

{
	echo "stride_kib,MB/s,relative,dies_used"
	awk -F, '/^[0-9]/ && ($1 ~ /^(4|32|64|128|256|288|320|384|512|1024)$/) {
		printf "%s,%.1f,%.3f,%s\n", $1, $3, $4, $7 }' "$out/alignment.csv"
} >"$out/alignment-table.csv"
{
	echo "kind,gap,relative,fragmented_MB/s,contiguous_MB/s,paper_no_hints,paper_artifact_run"
	for kind in append overwrite; do
		for gap in worst random; do
			awk -v kind="$kind" -v gap="$gap" -v paper="$RUNNER_DIR/paper.csv" \
				-f "$RUNNER_DIR/fragment.awk" "$out/fragment-$kind-$gap.csv"
		done
	done
} >"$out/fragment-table.csv"
{
	echo "figure,value"
	sed -n 's/^# \(write_amplification\|random_iops\|gc_cycles\|errors\)=/\1,/p' "$out/randwrite.csv" |
		awk -F, '{ print $1 "," ($1 == "random_iops" ? sprintf("%.0f", $2) : $2) }'
} >"$out/randwrite-table.csv"

echo
echo "Alignment: 4 KiB random reads at QD 64, throughput relative to stride 4 KiB"
column -t -s, "$out/alignment-table.csv"
echo
echo "Fragmented 8 MiB file, 1 MiB sequential reads, relative to a contiguous file"
column -t -s, "$out/fragment-table.csv"
echo
column -t -s, "$out/randwrite-table.csv"
runner_page \
	"Alignment: 4 KiB random reads at QD 64 over 1 GiB, throughput relative to the 4 KiB stride" \
	"$out/alignment-table.csv" \
	"Fragmented 8 MiB file read in 1 MiB commands, relative to a contiguous file; the paper's emulator without hints, and its artifact-evaluation run ([paper.csv](paper.csv))" \
	"$out/fragment-table.csv" \
	"Random 4 KiB overwrites of 3 x the 4 GiB capacity, greedy GC at 7 % over-provisioning" \
	"$out/randwrite-table.csv"

runner_plot 900,450 "$out/alignment.png" <<-GP
	set output "$out/alignment.png"
	set datafile separator ","
	set title "nvmev-sim: 4 KiB random reads at multiples of a stride (8 dies x 32 KiB)"
	set xlabel "stride (KiB)"
	set ylabel "throughput relative to 4 KiB stride"
	set yrange [0:1.1]
	set grid
	plot "$out/alignment.csv" using 1:4 every ::1 with linespoints pt 7 ps 0.4 notitle
GP
