#!/bin/bash
# The file-system experiments of the fragmentation research, through ext4
# in the patched guest kernel (host-patches/linux-6.1), hints off and on
# (`make ext4`; guest.sh),
# every read timed against the same data stored contiguously:
#   ext4_experiment  worst / random-interference append and overwrite, 8 MiB
#   ext4_dof         8 MiB file at DoF 1..256 (random other data between)
#   ext4_sqlite      ~16 KiB rows + 100 KiB appends elsewhere, SELECT * (against
#                    the same inserts with nothing in between, and a copy)
#   ext4_fileserver  threads appending 32 KiB to random files (_small: 16 KiB)
# Builds the kernel if needed, boots it once, and writes OUTDIR/<test>.csv
# (one row per file set read), OUTDIR/summary.csv, plots, prints the
# fraction of contiguous throughput and the per-die read collisions, and
# writes the fractions, next to the paper's (paper.csv), in this folder's
# README.md.
# Usage: run.sh [OUTDIR [TESTS]]
#        PARSE_ONLY=1 run.sh OUTDIR  (tables and plots again from
#        OUTDIR/guest-console.txt, no guest run)
# Scale: GUEST_APPEND="SQLITE_ROWS=.. FILESERVER_FILES=.. FILESERVER_APPENDS=..
#        DOF_LIST=1,4,16 READ_SCALE=1000" (the defaults fit the guest's
#        511 MiB drive; GUEST_DRIVE_MIB=2048 for the paper's
#        SQLITE_ROWS=10000); SQLite's settings: SQLITE_JOURNAL=..
#        SQLITE_SYNC=.. SQLITE_SPREAD=.. (nvmev-sqlite --help).
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init ext4
out=${1:-results/ext4}
tests=${2:-ext4_experiment,ext4_dof,ext4_sqlite,ext4_fileserver,ext4_fileserver_small}
mkdir -p "$out"

status=0
tree=
[ -n "${PARSE_ONLY:-}" ] || tree=$(runner_kernel_tree)
# every workload hints off and on (the test tiers run only the passes
# their checks read); the test tiers' guest (3 vCPUs, unpinned)
KERNEL_TREE=$tree GUEST_SMP=${GUEST_SMP:-3} GUEST_PIN_VCPUS=${GUEST_PIN_VCPUS:-0} \
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600} GUEST_APPEND="EXT4_ALL_PASSES=1 ${GUEST_APPEND:-}" \
	runner_guest "$out" "$tests" || status=$?
rm -f "$out"/ext4_*.csv
runner_console "$out" | awk -v out="$out" -f "$RUNNER_DIR/split.awk"

{
	echo "test,case,hints,relative,dof,collisions,collision_wait_us,contiguous_collisions,contiguous_wait_us"
	for f in "$out"/ext4_*.csv; do
		[ -e "$f" ] || continue
		awk -v t="$(basename "$f" .csv)" -f "$RUNNER_DIR/summary.awk" "$f"
	done
} >"$out/summary.csv"
awk -v paper="$RUNNER_DIR/paper.csv" -f "$RUNNER_DIR/workloads.awk" "$out/summary.csv" >"$out/workloads.csv"
awk -v sep=, -f "$RUNNER_DIR/dof.awk" "$out/summary.csv" >"$out/dof.csv"

echo
echo "Read throughput as a fraction of the same data stored contiguously (patched guest, ext4)"
echo "(extents: of the file, or per file; collisions: NAND reads that waited for a busy die,"
echo " and their summed wait in model milliseconds, for the fragmented / contiguous data)"
printf '%-16s %-17s %-5s %8s %7s %11s %9s %11s %9s\n' test case hints fraction extents \
	collisions wait_ms contig_coll contig_ms
awk -F, 'NR > 1 { printf "%-16s %-17s %-5s %8.3f %7.1f %11d %9d %11d %9d\n",
	$1, $2, $3, $4, $5, $6, $7 / 1000, $8, $9 / 1000 }' \
	"$out/summary.csv"
if [ "$(wc -l <"$out/workloads.csv")" -gt 1 ]; then
	set -- "Fraction of contiguous throughput, hints off and on, next to the paper's emulator and its artifact run ([paper.csv](paper.csv))" \
		"$out/workloads.csv"
	[ "$(wc -l <"$out/dof.csv")" -gt 1 ] &&
		set -- "$@" "DoF sweep: 8 MiB file in 8 MiB / DoF chunks, random other data between them, fraction of contiguous" \
			"$out/dof.csv"
	runner_page "$@"
fi

if command -v gnuplot >/dev/null; then
	awk -f "$RUNNER_DIR/plot-data.awk" "$out/summary.csv" >"$out/summary.dat"
	awk -v sep=" " -f "$RUNNER_DIR/dof.awk" "$out/summary.csv" >"$out/dof.dat"
	# a plot only for data the tests produced (gnuplot fails on an empty file)
	plots='' sum=0 dof=0
	[ -s "$out/summary.dat" ] && plots="$out/summary.png" sum=1
	[ -s "$out/dof.dat" ] && plots="$plots $out/dof.png" dof=1
	runner_plot 1000,500 "${plots# }" <<-GP
		set grid ytics
		set yrange [0:1.15]
		set ylabel "fraction of contiguous"
		if ($sum) {
			set output "$out/summary.png"
			set title "ext4 on nvmev: read throughput relative to contiguous"
			set style data histograms
			set style histogram clustered gap 1
			set style fill solid 0.8 border -1
			set xtics rotate by -30
			plot "$out/summary.dat" using 2:xtic(1) title "hints off", "" using 3 title "hints on"
		}
		if ($dof) {
			set output "$out/dof.png"
			set title "ext4 on nvmev: 8 MiB file, read throughput vs degree of fragmentation"
			set style data linespoints
			set logscale x 2
			set xlabel "DoF (extents)"
			set xtics norotate
			plot "$out/dof.dat" using 1:2 title "hints off" pt 7, "" using 1:3 title "hints on" pt 7
		}
	GP
fi
exit "$status"
