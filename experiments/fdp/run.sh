#!/bin/bash
# FDP's write side in the simulator (`make fdp`): write amplification of
# a flash cache's two lifetimes -- small hot objects rewritten at random
# in a small region, large objects written as a log over the rest -- with
# no placement and with a reclaim unit handle per lifetime (initially and
# persistently isolated), at 50 % and 100 % of the drive used, each with
# two seeds; and how it moves with the hot share of the bytes written.
# The drive: the default 8 dies, 256 erase blocks a plane (4 GiB of
# flash, 7 % over-provisioning) whatever the FDP setting, so that each
# run has the same flash. Writes OUTDIR/*.csv and the tables of this
# folder's README.md.
# Usage: run.sh NVMEV_SIM OUTDIR [extra nvmev-sim options...]
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

echo
runner_show "$out/waf-table.csv" "$out/sweep-table.csv" "$out/handles-table.csv"
held=$(awk -F, -v t="$target" 'NR > 1 && $2 != "none" { n += 2; ok += ($3 <= t) + ($4 <= t) }
	END { printf "%d of %d", ok, n }' "$out/waf-table.csv")
echo "target: write amplification with FDP at most $target: $held runs"
runner_page \
	"Write amplification after the fill, $passes x the used space written, ${hot_writes} % of the bytes to a hot region of ${hot_percent} % (random 4 KiB), the rest as a log of 1 MiB segments; two seeds; CacheLib's figures on a 1.88 TB FDP drive ([cachelib.csv](cachelib.csv)). Target with FDP: at most $target ($held runs)" \
	"$out/waf-table.csv" \
	"Write amplification at 100 % used against the hot share of the bytes written (seed 1)" \
	"$out/sweep-table.csv" \
	"Per handle at 100 % used, initially isolated, seed 1: host writes, GC copies and write amplification (4 KiB units as MiB)" \
	"$out/handles-table.csv"
# "N of N": the target held in every run
[ "${held%% *}" = "${held##* }" ]
