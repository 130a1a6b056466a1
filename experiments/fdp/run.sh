#!/bin/bash
# FDP in the simulator (`make fdp`), on the default 8 dies with 256 erase
# blocks a plane (4 GiB of flash, 7 % over-provisioning) whatever the FDP
# setting, so that every run has the same flash:
#   waf         write amplification of a flash cache's two lifetimes --
#               small hot objects rewritten at random in a small region,
#               large objects written as a log over the rest -- with no
#               placement and with a handle per lifetime (initially and
#               persistently isolated), at 50 % and 100 % used, two seeds
#               each; and against the hot share of the bytes written
#   collisions  the worst-case fragmented file (append, overwrite) read
#               back, placed with nothing, the placement hints, a write
#               stream for the file and one for the rest, or both; on the
#               drive without FDP and with reclaim units on one die, on a
#               die group of two and on all dies
#   speed       the simulator's speed with FDP against without (make
#               bench's benchmarks, paired in one run; SIM_BENCH names
#               sim_bench, as make fdp does)
# Writes OUTDIR/*.csv and the tables of this folder's README.md.
# Usage: [SIM_BENCH=sim_bench] run.sh NVMEV_SIM OUTDIR [extra nvmev-sim options...]
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init fdp
sim=$1
out=$2
shift 2
extra=("$@")
mkdir -p "$out"
hot_percent=4	# the hot region: a flash cache's small-object region
hot_writes=30	# its share of the bytes written (the sweep varies it)
passes=4	# used-space multiples written after the fill
target=1.05

# run NAME UTILIZATION PLACEMENT SEED HOT_WRITES: one nvmev-sim hotcold
# run to OUTDIR/NAME.csv; PLACEMENT none, initially or persistently
run() {
	local name=$1 util=$2 placement=$3 seed=$4 hot=$5 fdp=()
	case $placement in
	none) fdp=(--fdp-ruhs 0) ;;
	initially) fdp=(--fdp-ruhs 2 --fdp-ruh-type 1) ;;
	persistently) fdp=(--fdp-ruhs 2 --fdp-ruh-type 2) ;;
	esac
	"$sim" --format csv --blocks-per-plane 256 "${fdp[@]}" "${extra[@]}" hotcold \
		--utilization "$util" --hot-percent "$hot_percent" --hot-writes "$hot" \
		--cold-writes log --cold-kib 1024 --passes "$passes" --seed "$seed" \
		--handle-by lifetime >"$out/$name.csv"
}
# figure NAME KEY: a summary figure of OUTDIR/NAME.csv
figure() { sed -n "s/^# $2=//p" "$out/$1.csv"; }

echo "nvmev-sim hotcold runs -> $out"
placements="none initially persistently"
for util in 50 100; do
	for p in $placements; do
		for seed in 1 2; do
			run "waf-$util-$p-$seed" "$util" "$p" "$seed" "$hot_writes"
		done
	done
done
for hot in 10 50; do
	for p in $placements; do
		run "sweep-$hot-$p" 100 "$p" 1 "$hot"
	done
done

{
	echo "used_%,placement,WAF_seed_1,WAF_seed_2,CacheLib"
	for util in 50 100; do
		for p in $placements; do
			awk -F, -v u="$util" -v p="$p" -v a="$(figure "waf-$util-$p-1" write_amplification)" \
				-v b="$(figure "waf-$util-$p-2" write_amplification)" '
				NR > 1 && $1 == u && $2 == (p == "none" ? "none" : "fdp") { ref = $3 }
				END { printf "%s,%s,%.3f,%.3f,%s\n", u, p, a, b, ref == "" ? "-" : ref }' \
				"$RUNNER_DIR/cachelib.csv"
		done
	done
} >"$out/waf-table.csv"
{
	echo "hot_bytes_%,none,initially,persistently"
	for hot in 10 "$hot_writes" 50; do
		row=$hot
		for p in $placements; do
			f=sweep-$hot-$p
			[ "$hot" = "$hot_writes" ] && f=waf-100-$p-1
			row=$row,$(printf '%.3f' "$(figure "$f" write_amplification)")
		done
		echo "$row"
	done
} >"$out/sweep-table.csv"
{
	echo "handle,lifetime,host_MiB,GC_copies_MiB,WAF"
	awk -F, '/^[0-9]/ { printf "%s,%s,%.0f,%.0f,%.3f\n", $1, $1 == 1 ? "hot" : "cold",
		$2 * 4 / 1024, $4 * 4 / 1024, $8 }' "$out/waf-100-initially-1.csv"
} >"$out/handles-table.csv"

# collide NAME RU_DIES PLACEMENT KIND: one fragmented-file run to
# OUTDIR/NAME.csv; RU_DIES "none": the drive without FDP
collide() {
	local name=$1 ru_dies=$2 placement=$3 kind=$4 drive=() how=()
	[ "$ru_dies" = none ] || drive=(--fdp-ruhs 2 --fdp-ru-dies "$ru_dies")
	case $placement in
	hints) how=(--send-hints) ;;
	streams) how=(--file-ruh 1 --other-ruh 0) ;;
	both) how=(--send-hints --file-ruh 1 --other-ruh 0) ;;
	esac
	"$sim" --format csv --blocks-per-plane 256 "${drive[@]}" "${extra[@]}" fragment \
		--kind "$kind" --gap worst "${how[@]}" >"$out/$name.csv"
}
# read_row NAME: "MB/s,relative,dies,collisions" of NAME's fragmented read
read_row() {
	awk -F, '/^layout,/ { for (i = 1; i <= NF; i++) col[$i] = i }
		/^# relative_throughput=/ { split($0, x, "="); rel = x[2] }
		/^fragmented,/ { printf "%.0f,%.3f,%s,%s", $col["mb_per_s"], rel,
			$col["dies_used"], $col["collisions"] }' "$out/$1.csv"
}
{
	echo "reclaim_unit,placement,append_MB/s,append_relative,append_dies,append_collisions,overwrite_MB/s,overwrite_relative,overwrite_dies,overwrite_collisions"
	for ru in none 1 2 0; do
		for p in nothing hints streams both; do
			# without FDP there are no streams
			[ "$ru" = none ] && [[ $p == streams || $p == both ]] && continue
			row=
			for kind in append overwrite; do
				collide "collide-$ru-$p-$kind" "$ru" "$p" "$kind"
				row=$row,$(read_row "collide-$ru-$p-$kind")
			done
			case $ru in
			none) label="no FDP" ;; 0) label="all 8 dies" ;; 1) label="1 die" ;; *) label="$ru dies" ;;
			esac
			echo "$label,$p$row"
		done
	done
} >"$out/collisions-table.csv"

# speed: each benchmark without FDP (/0) and with 4 handles (/4), in
# one process, 5 repetitions, the medians' CPU time per simulated I/O
tables=("$out/waf-table.csv" "$out/sweep-table.csv" "$out/handles-table.csv" "$out/collisions-table.csv")
speed_caption=()
if [ -n "${SIM_BENCH:-}" ]; then
	[ -x "$SIM_BENCH" ] || runner_fail "SIM_BENCH=$SIM_BENCH is not an executable"
	# a family at a time: the CSV reporter wants one set of counters
	for b in BM_RandomRead4k BM_RandomWrite4kWithGc BM_SequentialWrite128k; do
		"$SIM_BENCH" --benchmark_filter="^$b/" --benchmark_repetitions=5 \
			--benchmark_report_aggregates_only=true --benchmark_format=csv
	done >"$out/speed.csv"
	awk -F, '$1 ~ /_median"$/ { name = $1; gsub(/"|_median/, "", name); split(name, n, "/")
			cpu[n[1], n[2]] = $4; names[n[1]] = 1 }
		END { for (b in names) printf "%s,%.0f,%.0f,%.3f\n", b, cpu[b, 0], cpu[b, 4], cpu[b, 4] / cpu[b, 0] }' \
		"$out/speed.csv" | sort | sed '1i benchmark,ns_per_IO_without_FDP,ns_per_IO_with_FDP,with/without' \
		>"$out/speed-table.csv"
	tables+=("$out/speed-table.csv")
	speed_caption=("Simulator speed: CPU time per simulated I/O of make bench's benchmarks without FDP and with 4 handles (writes naming them in turn by 1 MiB region), medians of 5 repetitions in one run on $(nproc) CPUs" "$out/speed-table.csv")
fi

echo
runner_show "${tables[@]}"
held=$(awk -F, -v t="$target" 'NR > 1 && $2 != "none" { n += 2; ok += ($3 <= t) + ($4 <= t) }
	END { printf "%d of %d", ok, n }' "$out/waf-table.csv")
echo "target: write amplification with FDP at most $target: $held runs"
runner_page \
	"Write amplification after the fill, $passes x the used space written, ${hot_writes} % of the bytes to a hot region of ${hot_percent} % (random 4 KiB), the rest as a log of 1 MiB segments; two seeds; CacheLib's figures on a 1.88 TB FDP drive ([cachelib.csv](cachelib.csv)). Target with FDP: at most $target ($held runs)" \
	"$out/waf-table.csv" \
	"Write amplification at 100 % used against the hot share of the bytes written (seed 1)" \
	"$out/sweep-table.csv" \
	"Per handle at 100 % used, initially isolated, seed 1: host writes, GC copies and write amplification (4 KiB units as MiB)" \
	"$out/handles-table.csv" \
	"An 8 MiB file written in 32 KiB chunks, each followed by fdatasync and by 224 KiB of other data (the worst case: stripe - chunk), read in 1 MiB commands at QD 1: throughput, relative to the same file written contiguously on the same drive, the dies its read used, and reads that waited for a busy die; placed with nothing, the placement hints, a write stream (FDP handle) for the file and one for the rest, or both" \
	"$out/collisions-table.csv" "${speed_caption[@]}"
# "N of N": the target held in every run
[ "${held%% *}" = "${held##* }" ]
