#!/bin/bash
# Page-level fragmentation in nvmev-sim: 16 files of 1 MiB grown together
# by appends smaller than a program unit (4..28 KiB), each followed by
# fdatasync and by as much other, unhinted data; then each file is read
# sequentially at QD1 and compared with the same files written
# contiguously. Hints off, then hints on with 1, 2, 4, 8 and 16 write
# points per die (write_points_per_die); a second sweep grows the number
# of files at 16 KiB past the stream points a die has (evictions); a
# third gives each append an extent of its own, the files' appends
# interleaved in logical blocks as ext4 places them, each file read as its
# extents at once.
# Writes OUTDIR/sim.csv, OUTDIR/files.csv, OUTDIR/extents.csv,
# OUTDIR/subpage.png, prints the tables and writes them in this folder's
# README.md (`make subpage`).
# Usage: run.sh NVMEV_SIM [OUTDIR]
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init subpage
sim=$1
out=${2:-results/subpage}
mkdir -p "$out"

# one run: points hints append_kib files [extents] -> a CSV row
run() {
	local flag=()
	[ "$2" = on ] && flag=(--send-hints)
	[ "${5:-}" = extents ] && flag+=(--extents)
	"$sim" --format csv --write_points_per_die "$1" subpage --append-kib "$3" \
		--other-kib "$3" --files "$4" "${flag[@]}" |
		awk -v w="$1" -v h="$2" -v a="$3" -v n="$4" -f "$RUNNER_DIR/row.awk"
}

header="append_kib,files,write_points,hints,relative,nand_reads_per_file,contiguous_reads_per_file,program_units_per_file,waf,pad_units,evictions"

# append_sweep CSV LAYOUT POINTS...: 16 files, appends of 4..28 KiB, hints
# off, then on with each number of points; LAYOUT "extents" or "" (packed)
append_sweep() {
	local csv=$1 layout=$2 a w
	shift 2
	echo "$header" >"$csv"
	for a in 4 8 12 16 20 24 28; do
		run 1 off "$a" 16 "$layout"
		for w in "$@"; do
			run "$w" on "$a" 16 "$layout"
		done
	done >>"$csv"
}

append_sweep "$out/sim.csv" "" 1 2 4 8 16
echo "$header" >"$out/files.csv"
for n in 4 8 16 32 64 128 256; do
	for w in 1 4 16 48; do
		run "$w" on 16 "$n"
	done
done >>"$out/files.csv"
append_sweep "$out/extents.csv" extents 1 4 16

awk -v by=1 -v extra=6 -f "$RUNNER_DIR/pivot.awk" "$out/sim.csv" >"$out/appends-table.csv"
awk -v by=2 -v extra=11 -f "$RUNNER_DIR/pivot.awk" "$out/files.csv" >"$out/files-table.csv"
awk -v by=1 -v extra=6 -f "$RUNNER_DIR/pivot.awk" "$out/extents.csv" >"$out/extents-table.csv"
echo "Read throughput of 16 files grown by sub-page appends, relative to contiguous"
echo "(NAND reads per 1 MiB file of 32 program units in brackets)"
column -t -s, "$out/appends-table.csv"
echo
echo "16 KiB appends, hints on: relative throughput (evictions) against files written at once"
column -t -s, "$out/files-table.csv"
echo
echo "An extent per append, read as extents at once: relative throughput (NAND reads per file)"
column -t -s, "$out/extents-table.csv"
runner_page \
	"Read throughput of 16 files grown by sub-page appends, relative to contiguous (NAND reads per 1 MiB file of 32 program units in brackets; the contiguous files take 32)" \
	"$out/appends-table.csv" \
	"16 KiB appends, hints on, against the files growing at once: relative throughput (evictions)" \
	"$out/files-table.csv" \
	"An extent per append, read as its extents at once: relative throughput (NAND reads per file)" \
	"$out/extents-table.csv"

runner_plot 900,450 "$out/subpage.png" <<-GP
	set output "$out/subpage.png"
	set datafile separator ","
	set title "nvmev-sim: 16 files grown by sub-page appends (8 dies x 32 KiB program units)"
	set xlabel "append size (KiB)"
	set ylabel "read throughput relative to contiguous"
	set yrange [0:1.1]
	set key outside right
	set grid
	plot for [w in "1 2 4 8 16"] "$out/sim.csv" using (\$3 == w + 0 && strcol(4) eq "on" ? \$1 : 1/0):5 \
		with points pt 7 ps 0.8 title "hints, ".w." wp", \
		"$out/sim.csv" using (strcol(4) eq "off" ? \$1 : 1/0):5 with points pt 4 title "no hints"
GP
