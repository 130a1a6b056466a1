#!/bin/bash
# The NIO experiments of issue #6 in the patched guest (host patches 4-5):
# nio-calibrate.sh sets NIO's static values from classic polling, then QD1
# reads and writes of 4 KiB..1 MiB and vectored transactions of 4 and 64
# members (nvmev-txn) by interrupt, classic polling, hybrid polling and
# NIO, and the paper's three-phase workload (fio, jobs scaled to the
# guest's CPUs) by interrupt, classic polling and NIO. CPU is the issuing
# threads' (getrusage, fio's usr/sys), so the emulator's is not counted.
# Writes OUTDIR/nio.csv, calibration.csv, phases.csv, plots, and prints
# NIO against classic polling (4-32 KiB reads: CPU ratio, mean latency
# ratio) and against interrupts (64 KiB and more).
# Usage: nio-experiments.sh [OUTDIR]
#        PARSE_ONLY=1 nio-experiments.sh OUTDIR  (again from the console)
# Scale: GUEST_APPEND="NIO_TIME_SCALE=20 NIO_COUNT=300 NIO_JITTER_NS=0
#        NIO_SIZES=4,8,16" (defaults in tests/guest/tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/nio}
mkdir -p "$out"

status=0
if [ -z "${PARSE_ONLY:-}" ]; then
	tree=$(scripts/kernel/build-kernel.sh | tail -1)
	KERNEL_TREE=$tree GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600} scripts/guest-test.sh nio_experiment \
		>"$out/guest-console.txt" 2>&1 || status=$?
fi
grep -E '^(ok|not ok|guest:)' "$out/guest-console.txt" || true
tr -d '\r' <"$out/guest-console.txt" | sed -n 's/^nio_csv,//p' | awk '!seen[$0]++' >"$out/nio.csv"
tr -d '\r' <"$out/guest-console.txt" | sed -n 's/^nio_cal,//p' >"$out/calibration.csv"
tr -d '\r' <"$out/guest-console.txt" | sed -n 's/^nio_phase,//p' | awk '!seen[$0]++' >"$out/phases.csv"
[ "$(wc -l <"$out/nio.csv")" -gt 1 ] || { echo "nio-experiments: no results in $out/guest-console.txt" >&2; exit 1; }

echo "== calibration (classic polling, ns)"
column -t -s, "$out/calibration.csv"
echo "== QD1 and transactions ($out/nio.csv)"
column -t -s, "$out/nio.csv"

# NIO relative to classic polling and to interrupts, per rw/size/members
awk -F, 'NR > 1 {
		k = $2 "," $3 "," $4
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		mean[k, $1] = $5; cpu[k, $1] = $8 + $9
	}
	END {
		print "rw,kib,members,nio_cpu_over_classic,nio_mean_over_classic,nio_mean_over_interrupt"
		for (i = 1; i <= n; i++) {
			k = order[i]
			printf "%s,%.3f,%.3f,%.3f\n", k, cpu[k, "nio"] / cpu[k, "classic"],
				mean[k, "nio"] / mean[k, "classic"], mean[k, "nio"] / mean[k, "interrupt"]
		}
	}' "$out/nio.csv" >"$out/ratios.csv"
echo "== NIO relative to classic polling and interrupts ($out/ratios.csv)"
column -t -s, "$out/ratios.csv"
echo "== three-phase workload, jobs scaled to the guest's CPUs ($out/phases.csv)"
column -t -s, "$out/phases.csv"

if command -v gnuplot >/dev/null; then
	for rw in read write; do
		awk -F, -v rw="$rw" 'NR > 1 && $2 == rw && $4 == 1 {
				if (!($3 in s)) { s[$3] = 1; o[++n] = $3 }
				m[$3, $1] = $5; c[$3, $1] = $8 + $9 }
			END { for (i = 1; i <= n; i++) { k = o[i]
				print k, m[k, "interrupt"], m[k, "classic"], m[k, "hybrid"], m[k, "nio"],
					c[k, "interrupt"], c[k, "classic"], c[k, "hybrid"], c[k, "nio"] } }' \
			"$out/nio.csv" >"$out/$rw.dat"
		gnuplot <<-GP
			set terminal pngcairo size 1100,450 noenhanced
			set output "$out/$rw.png"
			set multiplot layout 1,2 title "QD1 $rw on nvmev (patched guest): interrupts, polling, NIO"
			set style data histograms
			set style histogram clustered gap 1
			set style fill solid 0.8 border -1
			set grid ytics
			set xlabel "KiB"
			set ylabel "mean latency (us)"
			plot "$out/$rw.dat" using 2:xtic(1) title "interrupt", "" using 3 title "classic poll", \
				"" using 4 title "hybrid poll", "" using 5 title "NIO"
			set ylabel "CPU of the issuing thread (%)"
			set yrange [0:110]
			plot "$out/$rw.dat" using 6:xtic(1) title "interrupt", "" using 7 title "classic poll", \
				"" using 8 title "hybrid poll", "" using 9 title "NIO"
			unset multiplot
		GP
	done
	echo "plots: $out/read.png $out/write.png"
fi
exit "$status"
