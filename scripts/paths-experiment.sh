#!/bin/bash
# Software latency on every host path, in one patched-kernel guest run
# (experiments/guest/paths.sh, test paths_experiment; docs/host-paths.md):
# QD1 4 KiB random reads and writes through interrupts (fio pvsync2),
# classic polling (pvsync2 --hipri=1, RWF_HIPRI, patch 4), hybrid polling
# (io_poll_delay=0), NIO (patch 5, calibrated by nio-calibrate.sh),
# io_uring polled on the poll queue, io_uring passthrough on /dev/ng0n1
# and the user-level driver (nvmev-uhost, last: it unbinds the nvme
# driver), on nvmev with its modelled time near zero (read_ns=1 prog_ns=1
# fw_*=0, 10^6 MB/s channel and link) and every other parameter at its
# default. Software latency = mean - modelled time - the device's own
# posting lateness (debugfs post_late_mean_ns, reset before each point).
# The same fio jobs on null_blk (memory-backed, softirq completions, one
# poll queue; configfs), each run just before its nvmev point, give the
# block stack's floor; the device's busy time per I/O; nvmev's idle CPU;
# and the kernel paths again with spin_max_us=0 (no adaptive spin) as a
# control. The guest has two vCPUs, QEMU's threads pinned on the host
# (GUEST_PIN_VCPUS=1): the workload runs on vCPU 0 (taskset), the device's
# thread is left unbound (its default) and gets vCPU 1.
# Writes OUTDIR/raw.csv (every point), paths.csv, nullblk.csv, queues.csv,
# idle.csv, host.txt (what else ran on this machine) and prints them.
# PATHS_RUNS runs (default 3), each a fresh boot in OUTDIR/run-K; their
# ratios against null_blk spread widely run to run (a QD1 interrupt I/O
# waits for a halted vCPU's wake-up on the host), so OUTDIR/median.csv
# has each ratio's median over the runs and its spread (min, max),
# with the target checked on the median.
# Usage: paths-experiment.sh [OUTDIR]        (default results/paths)
#        PARSE_ONLY=1 paths-experiment.sh OUTDIR   (again from the consoles)
# Scale: PATHS_RUNS=N; GUEST_APPEND="PATHS_IOS=4000 PATHS_QD32_S=5";
# KERNEL_TREE=DIR skips scripts/kernel/build-kernel.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/paths}
runs=${PATHS_RUNS:-3}
[[ $runs =~ ^[1-9][0-9]?$ ]] || { echo "paths-experiment: PATHS_RUNS=$runs is not a count (1..99)" >&2; exit 2; }
# re-reading: the runs the directory holds (a single run's directory: one)
if [ -n "${PARSE_ONLY:-}" ]; then
	if [ -f "$out/guest-console.txt" ]; then
		runs=1
	elif compgen -G "$out/run-*/guest-console.txt" >/dev/null; then
		runs=$(compgen -G "$out/run-*/guest-console.txt" | wc -l)
	fi
fi
mkdir -p "$out"

# paths_median NULLBLK.CSV...: per metric and configuration, the median
# of the runs' ratios (the idle row: its CPU %), min, max, the target and
# whether the median meets it; rows in the order of the runs' tables
paths_median() {
	echo "metric,nvmev_config,runs,median,min,max,target,met_on_median"
	awk -F, 'FNR > 1 { printf "%d\t%s,%s\t%s\t%s\n", FNR, $1, $2, $6, $5 != "" ? $5 : $3 }' "$@" |
		sort -t "$(printf '\t')" -k1,1n -k4,4g |
		awk -F'\t' '
		function flush(   m, b, met) {
			if (!n)
				return
			m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			b = substr(t, 4) + 0
			met = t == "-" ? "-" : ((t ~ /^>=/ ? m >= b : m <= b) ? "yes" : "NO")
			printf "%s,%d,%.3f,%.3f,%.3f,%s,%s\n", k, n, m, v[1], v[n], t, met
			n = 0
		}
		$1 != cur { flush(); cur = $1; k = $2; t = $3 }
		{ v[++n] = $4 }
		END { flush() }'
}

if [ "$runs" -gt 1 ]; then
	status=0
	# one kernel build (or cache check) for every run
	if [ -z "${PARSE_ONLY:-}" ] && [ -z "${KERNEL_TREE:-}" ]; then
		KERNEL_TREE=$(scripts/kernel/build-kernel.sh | tail -1)
		export KERNEL_TREE
	fi
	for k in $(seq 1 "$runs"); do
		echo "== run $k of $runs"
		PATHS_RUNS=1 scripts/paths-experiment.sh "$out/run-$k" || status=1
	done
	paths_median "$out"/run-*/nullblk.csv >"$out/median.csv" || status=1
	echo "== nvmev / null_blk, median of $runs runs ($out/median.csv)"
	column -t -s, "$out/median.csv"
	exit "$status"
fi

# what else runs on this machine: the load and the busiest processes
host_snapshot() {
	echo "== $1: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	ps -eo pcpu,etime,comm --sort=-pcpu | head -8
	echo "other QEMU guests: $(pgrep -c qemu-system || true)"
}

status=0
if [ -z "${PARSE_ONLY:-}" ]; then
	tree=${KERNEL_TREE:-$(scripts/kernel/build-kernel.sh | tail -1)}
	pin=0
	[ "$(nproc)" -ge 2 ] && pin=1
	host_snapshot before >"$out/host.txt"
	# the load every 30 s while the guest runs
	(while sleep 30; do
		echo "load $(cut -d' ' -f1-3 /proc/loadavg), QEMU processes (this run's included) $(pgrep -c qemu-system || true)"
	done) >>"$out/host.txt" &
	sampler=$!
	start=$(date +%s)
	KERNEL_TREE=$tree GUEST_NAME=paths GUEST_TIMEOUT=${GUEST_TIMEOUT:-1500} \
		GUEST_SMP=${GUEST_SMP:-2} GUEST_PIN_VCPUS=${GUEST_PIN_VCPUS:-$pin} \
		GUEST_APPEND="null_blk.nr_devices=0 ${GUEST_APPEND:-}" \
		scripts/guest-test.sh paths_experiment >"$out/guest-console.txt" 2>&1 || status=$?
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	echo "guest run: $(($(date +%s) - start)) s" >>"$out/host.txt"
	host_snapshot after >>"$out/host.txt"
fi
console() { tr -d '\r' <"$out/guest-console.txt"; }
console | grep -E '^(ok|not ok|guest:|guest-test:|paths:|nvmev:|null_blk:)' || true
console | sed -n 's/^paths_csv,//p' | awk '!seen[$0]++' >"$out/raw.csv"
console | sed -n 's/^paths_idle,//p' | awk '!seen[$0]++' >"$out/idle.csv"
console | sed -n 's/^paths_nio,//p' >"$out/nio-sleeps.txt"
[ "$(wc -l <"$out/raw.csv")" -gt 1 ] || { echo "paths-experiment: no results in $out/guest-console.txt" >&2; exit 1; }

# raw.csv: 1 config, 2 device, 3 path, 4 rw, 5 qd, 6 queues, 7 ios, 8 iops,
# 9 mean_us, 10 p99_us, 11 cpu_us_per_io, 12 model_us, 13 late_us, 14 sw_us,
# 15 irqs, 16 worker_cpu_us_per_io, 17 device_us

# paths.csv: nvmev's QD1 points, each path's software latency against the
# interrupt path's of the same configuration and direction; the thesis's
# synchronous polled path had 3.3x lower software latency (0.30)
awk -F, 'NR > 1 && $2 == "nvmev" && $5 == 1 {
		k = $1 SUBSEP $4
		if ($3 == "interrupt") { isw[k] = $14; imean[k] = $9 }
		row[++n] = $0
	}
	END {
		print "config,path,rw,mean_us,p99_us,cpu_us_per_io,model_us,late_us,sw_us,sw_over_interrupt,mean_over_interrupt,thesis_sw_over_interrupt,irqs,worker_cpu_us_per_io,device_us,outside_device_us"
		for (i = 1; i <= n; i++) {
			split(row[i], f, ",")
			k = f[1] SUBSEP f[4]
			th = f[3] == "interrupt" ? "1.00" : f[3] == "classic" ? "0.30 (3.3x lower)" : "-"
			rs = "-"; rm = "-"
			if ((k in isw) && isw[k] > 0) rs = sprintf("%.3f", f[14] / isw[k])
			if ((k in imean) && imean[k] > 0) rm = sprintf("%.3f", f[9] / imean[k])
			out = f[17] == "-" || f[17] == "" ? "-" : sprintf("%.2f", f[9] - f[17])
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", f[1], f[3], f[4], f[9], f[10],
				f[11], f[12], f[13], f[14], rs, rm, th, f[15], f[16], f[17], out
		}
	}' "$out/raw.csv" >"$out/paths.csv"
echo "== software latency per host path, QD1 4 KiB, nvmev with ~0 modelled time ($out/paths.csv)"
column -t -s, "$out/paths.csv"

# queues.csv: the user-level driver's queue scaling at QD32
awk -F, 'NR > 1 && $3 ~ /^uhost_q/ {
		if ($3 == "uhost_q1") base = $8
		row[++n] = $3 "," $6 "," $8 "," $9 "," $10 "," $11 "," $13
	}
	END {
		print "path,queues,iops,mean_us,p99_us,cpu_us_per_io,late_us,iops_over_1_queue"
		for (i = 1; i <= n; i++) {
			split(row[i], f, ",")
			r = "-"
			if (base > 0) r = sprintf("%.3f", f[3] / base)
			printf "%s,%s\n", row[i], r
		}
	}' "$out/raw.csv" >"$out/queues.csv"
echo "== user-level driver, QD32 4 KiB random reads, 1 and 2 queue pairs ($out/queues.csv)"
column -t -s, "$out/queues.csv"

# nullblk.csv: nvmev / null_blk (IOPS) per configuration of nvmev, and
# nvmev's idle CPU, against the targets
awk -F, -v idle="$out/idle.csv" '
	BEGIN {
		while ((getline line < idle) > 0) {
			split(line, f, ",")
			if (f[1] != "config") { cfg[f[1]] = 1; idlepct[f[1]] = f[5] }
		}
	}
	NR > 1 {
		k = $3 "," $4 "," $5
		# a null_blk row carries the config of the nvmev point it pairs with
		if ($2 == "null_blk") nb[$1, k] = $8
		else if ($2 == "null_blk_wake") nw[$1, k] = $8
		else if ($2 == "nvmev") { nv[$1, k] = $8; cfg[$1] = 1 }
	}
	# out NAME KEY TARGET CONFIG: nvmev against null_blk (nb) or the
	# null_blk whose reader sleeps until a timer wakes it (nw)
	function out(name, k, target, c, ref,   r) {
		# a console from before the pairing: one null_blk run for all
		if (!((c, k) in ref) && (("null_blk", k) in ref))
			ref[c, k] = ref["null_blk", k]
		if (!((c, k) in nv) || !((c, k) in ref))
			return
		r = ref[c, k] > 0 ? nv[c, k] / ref[c, k] : 0
		printf "%s,%s,%.0f,%.0f,%.3f,%s,%s\n", name, c, nv[c, k], ref[c, k], r,
			target ? ">= " target : "-", target ? (r >= target ? "yes" : "NO") : "-"
	}
	END {
		print "metric,nvmev_config,nvmev_iops,null_blk_iops,ratio,target,met"
		for (c in cfg) order[++n] = c
		# default first, then the controls
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (order[j] == "default" || (order[i] != "default" && order[j] < order[i])) {
					t = order[i]; order[i] = order[j]; order[j] = t
				}
		for (i = 1; i <= n; i++) {
			c = order[i]
			out("QD1 randread interrupt", "interrupt,randread,1", 0.5, c, nb)
			out("QD1 randread polled (pvsync2 hipri)", "classic,randread,1", 1.0, c, nb)
			out("QD1 randread polled (io_uring hipri)", "io_uring,randread,1", 1.0, c, nb)
			out("QD1 randwrite interrupt", "interrupt,randwrite,1", 0, c, nb)
			out("QD1 randwrite polled (pvsync2 hipri)", "classic,randwrite,1", 0, c, nb)
			out("QD32 randread (libaio)", "qd32_libaio,randread,32", 0.8, c, nb)
			out("QD32 randwrite (libaio)", "qd32_libaio,randwrite,32", 0.8, c, nb)
			out("QD1 randread interrupt / null_blk woken by a timer", "interrupt,randread,1", 0, c, nw)
			out("QD1 randwrite interrupt / null_blk woken by a timer", "interrupt,randwrite,1", 0, c, nw)
			if (c in idlepct)
				printf "idle CPU of the worker (%% of one CPU),%s,%.3f,,,<= 0.5,%s\n", c,
					idlepct[c], idlepct[c] <= 0.5 ? "yes" : "NO"
		}
	}' "$out/raw.csv" >"$out/nullblk.csv"
echo "== nvmev / null_blk, 4 KiB, same fio jobs ($out/nullblk.csv)"
column -t -s, "$out/nullblk.csv"
echo "== idle CPU of nvmev's worker, 5 s, 2 s after I/O ($out/idle.csv)"
column -t -s, "$out/idle.csv"
if [ -s "$out/nio-sleeps.txt" ]; then
	echo "== NIO's sleeps and oversleeps (rw, sleeps, oversleeps)"
	cat "$out/nio-sleeps.txt"
fi
echo "== calibration for NIO (classic polling, ns)"
console | sed -n 's/^paths_cal,//p' | column -t -s,
echo "== the machine ($out/host.txt)"
cat "$out/host.txt"
exit "$status"
