#!/bin/bash
# The zoned-namespace experiments (`make zns`), on the default 8-die drive
# (4 channels x 2 dies, 2 MiB blocks: 16 MiB zones, one block on every die
# at full width):
#   sim    in nvmev-sim, 1 GiB:
#          zone-sweep  write, then read, whole zones against zone width
#                      (1-8 dies) and zones written at once (1-8)
#          zone-log    zones filled 4 at a time, a random full zone reset
#                      per zone filled, 3 x capacity: the zoned drive
#                      against the conventional one (a TRIM for each reset)
#   guest  the zone-log workload through Linux's block layer in a stock
#          guest (fio, blkzone, blkdiscard; guest.sh), a zoned drive and a
#          conventional one of the same geometry; fails unless both were
#          measured
# Writes OUTDIR/zone-sweep.csv, zone-log.csv, zone-log-guest.csv, plots,
# and each part's tables in this folder's README.md.
# Usage: run.sh NVMEV_SIM OUTDIR [sim|guest|all]    (default: all)
#        PARSE_ONLY=1 run.sh NVMEV_SIM OUTDIR guest (again from the console)
# Scale of the guest part: GUEST_APPEND="ZNS_LOG_ROUNDS=16 ZNS_LOG_SCALE=20".
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init zns
sim=$1
out=$2
part=${3:-all}
mkdir -p "$out"
status=0

if [ "$part" != guest ]; then
	echo "nvmev-sim zoned experiments -> $out"
	"$sim" --format csv --capacity-mib 1024 zone-sweep >"$out/zone-sweep.csv"
	"$sim" --format csv --capacity-mib 1024 zone-log >"$out/zone-log.csv"
	{
		echo "width_dies,open_zones,write_MB/s,read_MB/s"
		awk -F, '/^[0-9]/ { printf "%s,%s,%.1f,%.1f\n", $1, $2, $3, $4 }' "$out/zone-sweep.csv"
	} >"$out/zone-sweep-table.csv"
	{
		echo "drive,WAF,gc_copies,write_MB/s,write_p99_us,write_max_us"
		awk -F, '/^(zoned|conventional),/ {
			printf "%s,%.3f,%s,%.1f,%.1f,%.1f\n", $1, $2, $3, $5, $7, $8 }' "$out/zone-log.csv"
	} >"$out/zone-log-table.csv"
	echo
	echo "256 MiB of zones written, then read, by 1-8 streams at QD 32 in 64 KiB commands (MB/s)"
	column -t -s, "$out/zone-sweep-table.csv"
	echo
	echo "Log-structured zones, 90 % full, 4 open, 3 x capacity"
	column -t -s, "$out/zone-log-table.csv"
	RUNNER_BLOCK=sim runner_page \
		"Zone width and open zones: 256 MiB written, then read, by 1-8 streams at QD 32 in 64 KiB commands" \
		"$out/zone-sweep-table.csv" \
		"Zoned against conventional: log-structured zones, 90 % full, 4 open, 3 x capacity" \
		"$out/zone-log-table.csv"

	runner_plot 900,450 "$out/zone-sweep-write.png" "$out/zone-sweep-read.png" <<-GP
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
fi

if [ "$part" != sim ]; then
	runner_guest "$out" zns_log_experiment || status=$?
	runner_csv "$out" zns_log_csv "drive,waf,gc_copy_units,host_mib,mb_per_s,p99_us,max_us" \
		zone-log-guest.csv
	echo
	echo "Zoned against conventional in a guest: 7/8 full, 4 zones written at once, 4 random zones emptied per round"
	column -s, -t <"$out/zone-log-guest.csv"
	rows=$(($(wc -l <"$out/zone-log-guest.csv") - 1))
	if [ "$rows" -eq 2 ]; then
		RUNNER_BLOCK=guest runner_page \
			"Zoned against conventional in a guest: 7/8 full, 4 zones written at once, 4 random zones emptied per round" \
			"$out/zone-log-guest.csv"
	else
		echo "zns: $rows of 2 drives measured" >&2
		status=1
	fi
fi
exit "$status"
