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
# OUTDIR/subpage.png and prints the tables.
# Usage: subpage-experiments.sh NVMEV_SIM [OUTDIR]
set -euo pipefail
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
		awk -F, -v w="$1" -v h="$2" -v a="$3" -v n="$4" '
			/^layout,/ { for (i = 1; i <= NF; i++) col[$i] = i }
			/^fragmented,/ { split($0, f, ",") }
			/^contiguous,/ { c = $col["nand_reads_per_file"] }
			END { printf "%s,%s,%s,%s,%.4f,%.2f,%.2f,%.2f,%.4f,%d,%d\n", a, n, w, h,
				f[col["relative"]], f[col["nand_reads_per_file"]], c,
				f[col["program_units_per_file"]], f[col["waf"]],
				f[col["pad_units"]], f[col["wpt_evictions"]] }'
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

# append_table CSV POINTS...: relative throughput (NAND reads per file)
# by append size, in the order append_sweep wrote them
append_table() {
	local csv=$1 w
	shift
	printf '%-10s %14s' append_kib "hints off"
	for w in "$@"; do printf ' %14s' "on, ${w} wp"; done
	echo
	awk -F, 'NR > 1 { v[$1] = v[$1] sprintf(" %7.3f (%4.1f)", $5, $6); if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END { for (i = 1; i <= n; i++) printf "%-10s%s\n", order[i], v[order[i]] }' "$csv"
}

append_sweep "$out/sim.csv" "" 1 2 4 8 16
echo "$header" >"$out/files.csv"
for n in 4 8 16 32 64 128 256; do
	for w in 1 4 16 48; do
		run "$w" on 16 "$n"
	done
done >>"$out/files.csv"
append_sweep "$out/extents.csv" extents 1 4 16

echo "Read throughput of 16 files grown by sub-page appends, relative to contiguous"
echo "(NAND reads per 1 MiB file of 32 program units in brackets)"
append_table "$out/sim.csv" 1 2 4 8 16
echo
echo "16 KiB appends, hints on: relative throughput (evictions) against files written at once"
printf '%-8s' files
for w in 1 4 16 48; do printf ' %16s' "${w} wp"; done
echo
awk -F, 'NR > 1 { v[$2] = v[$2] sprintf(" %7.3f (%6d)", $5, $11); if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
	END { for (i = 1; i <= n; i++) printf "%-8s%s\n", order[i], v[order[i]] }' "$out/files.csv"
echo
echo "An extent per append, read as extents at once: relative throughput (NAND reads per file)"
append_table "$out/extents.csv" 1 4 16

if command -v gnuplot >/dev/null; then
	gnuplot <<-GP
		set terminal pngcairo size 900,450 noenhanced
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
	echo "plot: $out/subpage.png"
fi
