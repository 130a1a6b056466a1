#!/bin/sh
# The host-paths experiment (run.sh beside it, `make paths`;
# busybox sh, sourced by tests.sh): software latency of QD1 4 KiB random
# reads and writes on every way this guest can reach the device --
# interrupts, classic and hybrid polling (RWF_HIPRI, patch 4), NIO (patch
# 5), io_uring polled, io_uring passthrough on the char device, and the
# user-level driver (nvmev-uhost) -- with nvmev's modelled time near zero,
# so that what remains of the latency is the host's software and the
# emulator's own lateness; null_blk, the block stack's floor, through the
# same fio jobs; nvmev's idle CPU; and the same with spin_max_us=0 (the
# worker without its adaptive spin) as a control.
# One CSV line per point in /tmp/paths.csv (printed at the end as
# "paths_csv,..."), idle CPU as "paths_idle,...".

# QD1 I/Os per point, seconds per QD32 point
PATHS_IOS=${PATHS_IOS:-4000}
PATHS_QD32_S=${PATHS_QD32_S:-5}
# the device's modelled time near zero: no flash, firmware or transfer
# time worth counting, every other parameter at its default
PATHS_FAST="read_ns=1 prog_ns=1 fw_read_4k_ns=0 fw_read_ns=0 fw_write_ns=0 fw_write_4k_ns=0"
PATHS_FAST="$PATHS_FAST channel_mbps=1000000 link_mbps=1000000"
PATHS_CSV=/tmp/paths.csv
# null_blk's timer completions for the floor of a sleeping reader: about
# nvmev's own share of a QD1 I/O by interrupt (debugfs busy_ns per I/O)
PATHS_WAKE_NS=${PATHS_WAKE_NS:-5000}

# the controller thread's ns on a CPU (/proc/PID/schedstat field 1) or its
# run count (field 3); empty without the module
paths_worker() {
	pid=$(pidof nvmev) || return 0
	cut -d' ' -f"$1" "/proc/$pid/schedstat"
}

# the device's modelled QD1 4 KiB time (ns) from its geometry, as
# test_latency computes it: reads firmware + tR + channel + link; writes
# (to the write buffer) firmware + link
paths_model_ns() {
	g=$DBG/geometry
	link=$(((4096000 + $(value link_mbps "$g") - 1) / $(value link_mbps "$g")))
	if [ "$1" = randread ]; then
		echo $(($(value fw_read_4k_ns "$g") + $(value read_ns "$g") + link +
			(4096000 + $(value channel_mbps "$g") - 1) / $(value channel_mbps "$g")))
	else
		echo $(($(value fw_write_4k_ns "$g") + link))
	fi
}

# paths_begin: zero the device's counters, note interrupts and the
# worker's CPU (nvmev loaded), the time
paths_begin() {
	p_irq0=0 p_wk0=0 p_busy0=0
	if [ -e "$DBG/stats" ]; then
		echo 1 >"$DBG/stats_reset"
		p_irq0=$(value irqs "$DBG/stats")
		p_busy0=$(value busy_ns "$DBG/stats")
		p_wk0=$(paths_worker 1)
	fi
}

# paths_row CONFIG DEVICE PATH RW QD QUEUES IOS IOPS MEAN_US P99_US CPU_US_PER_IO:
# one line of /tmp/paths.csv, with the device's modelled time, lateness,
# the software latency (mean - model - lateness), interrupts, the
# worker's CPU per I/O and the device's busy time per I/O (its share of
# a QD1 latency: fetch to post; nvmev only)
paths_row() {
	model=0 late=0 irqs='' wk='' busy=''
	if [ "$2" = nvmev ]; then
		model=$(paths_model_ns "$4")
		late=$(value post_late_mean_ns "$DBG/stats")
		irqs=$(($(value irqs "$DBG/stats") - p_irq0))
		wk=$(($(paths_worker 1) - p_wk0))
		busy=$(($(value busy_ns "$DBG/stats") - p_busy0))
	fi
	echo "$1 $2 $3 $4 $5 $6 $7 $8 $9 ${10} ${11} $model $late ${irqs:--} ${wk:--} ${busy:--}" | awk '{
		sw = $9 - $12 / 1000 - $13 / 1000
		n = $7 > 0 ? $7 : 1
		wk = $15 == "-" ? "-" : sprintf("%.2f", $15 / 1000 / n)
		busy = $16 == "-" ? "-" : sprintf("%.2f", $16 / 1000 / n)
		printf "%s,%s,%s,%s,%s,%s,%d,%.0f,%.2f,%.2f,%.2f,%.3f,%.2f,%.2f,%s,%s,%s\n",
			$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 / 1000, $13 / 1000, sw, $14, wk, busy
	}' >>"$PATHS_CSV"
}

# paths_fio CONFIG DEVICE PATH RW FILE FIO-ARGS...: one fio job (4 KiB,
# direct, the workload's CPU), its row; fio's latency is the total
# (submission + completion), p99 of the total (lat_percentiles), CPU per
# I/O = (usr + sys) x runtime / I/Os of the issuing thread
paths_fio() {
	cfg=$1 devn=$2 path=$3 rw=$4 file=$5
	shift 5
	direct=1
	# passthrough moves data without the page cache anyway; fio refuses
	# direct=1 on the char device
	[ -c "$file" ] && direct=0
	paths_begin
	# shellcheck disable=SC2086 # PATHS_PIN is a command prefix or empty
	timeout 300 $PATHS_PIN fio --output-format=terse --terse-version=3 --lat_percentiles=1 \
		--name=paths --filename="$file" --size=64M --bs=4k --rw="$rw" --direct=$direct \
		--randrepeat=0 "$@" >/tmp/paths.fio 2>/tmp/paths.err || { cat /tmp/paths.err; return 1; }
	# terse v3: reads from field 6, writes from 47; +0 KiB, +2 IOPS,
	# +3 runtime ms, +24 p99, +34 mean (us); 88, 89 usr, sys (%)
	# shellcheck disable=SC2046 # five numbers
	set -- $(awk -F';' -v b="$([ "$rw" = randread ] && echo 6 || echo 47)" '{
		p99 = $(b + 24); sub(/.*=/, "", p99); ios = $b / 4
		cpu = ($88 + $89) / 100 * $(b + 3) * 1000
		printf "%d %.0f %.3f %.3f %.3f\n", ios, $(b + 2), $(b + 34), p99, ios ? cpu / ios : 0 }' \
		/tmp/paths.fio)
	if [ "$#" != 5 ] || [ "$1" -le 0 ]; then
		cat /tmp/paths.fio
		return 1
	fi
	paths_row "$cfg" "$devn" "$path" "$rw" "$PATHS_QD" 1 "$1" "$2" "$3" "$4" "$5"
}

# paths_qd1 CONFIG DEVICE FILE PATH RW: one QD1 point by PATH (NIO's
# sleeps and oversleeps in /tmp/paths_nio)
paths_qd1() {
	q=/sys/block/$(basename "$3")/queue
	PATHS_QD=1
	case $4 in
	interrupt) paths_fio "$1" "$2" "$4" "$5" "$3" --ioengine=pvsync2 --hipri=0 \
		--number_ios="$PATHS_IOS" ;;
	classic) paths_fio "$1" "$2" "$4" "$5" "$3" --ioengine=pvsync2 --hipri=1 \
		--number_ios="$PATHS_IOS" ;;
	hybrid)
		echo 0 >"$q/io_poll_delay"
		paths_fio "$1" "$2" "$4" "$5" "$3" --ioengine=pvsync2 --hipri=1 \
			--number_ios="$PATHS_IOS"
		r=$?
		echo -1 >"$q/io_poll_delay"
		return $r
		;;
	nio)
		echo 1 >"$q/nio_enable"
		s0=$(sed -n 's/^sleeps //p' "$q/nio_state") o0=$(sed -n 's/^oversleeps //p' "$q/nio_state")
		paths_fio "$1" "$2" "$4" "$5" "$3" --ioengine=pvsync2 --hipri=1 \
			--number_ios="$PATHS_IOS"
		r=$?
		echo 0 >"$q/nio_enable"
		echo "$5 $(($(sed -n 's/^sleeps //p' "$q/nio_state") - s0)) $(($(sed -n \
			's/^oversleeps //p' "$q/nio_state") - o0))" >>/tmp/paths_nio
		return $r
		;;
	io_uring) paths_fio "$1" "$2" "$4" "$5" "$3" --ioengine=io_uring --hipri=1 --iodepth=1 \
		--number_ios="$PATHS_IOS" ;;
	io_uring_cmd)
		# the namespace's generic char device: NVMe commands, no block layer
		# above the request; polled (IOPOLL on the poll queue)
		paths_fio "$1" "$2" "$4" "$5" /dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme \
			--hipri=1 --iodepth=1 --number_ios="$PATHS_IOS" && return 0
		echo "paths: io_uring_cmd --hipri=1 failed: $(head -3 /tmp/paths.err | tr '\n' ' ')" \
			>>/tmp/paths_info
		paths_fio "$1" "$2" io_uring_cmd_irq "$5" /dev/ng0n1 --ioengine=io_uring_cmd \
			--cmd_type=nvme --hipri=0 --iodepth=1 --number_ios="$PATHS_IOS" ;;
	esac
}

# paths_qd32 CONFIG DEVICE FILE RW: QD32 by interrupt (libaio), PATHS_QD32_S s
paths_qd32() {
	PATHS_QD=32
	paths_fio "$1" "$2" qd32_libaio "$4" "$3" --ioengine=libaio --iodepth=32 \
		--time_based --runtime="$PATHS_QD32_S"
}

# paths_idle CONFIG: the worker's CPU over 5 s of idle, 2 s after I/O (as
# test_idle_cpu), as a line of /tmp/paths_idle.csv
paths_idle() {
	dd if=/dev/zero of=/dev/nvme0n1 bs=1M count=4 oflag=direct 2>/dev/null || return 1
	sleep 2
	c0=$(tr -d . </proc/uptime | cut -d' ' -f1) t0=$(paths_worker 1) r0=$(paths_worker 3)
	sleep 5
	c1=$(tr -d . </proc/uptime | cut -d' ' -f1) t1=$(paths_worker 1) r1=$(paths_worker 3)
	echo "$1 $(((c1 - c0) * 10)) $(((t1 - t0) / 1000)) $((r1 - r0))" |
		awk '{ printf "%s,%d,%d,%d,%.3f\n", $1, $2, $3, $4, $3 / ($2 * 10) }' >>/tmp/paths_idle.csv
}

# paths_uhost CONFIG RW QD QUEUES NAME [PIN]: nvmev-uhost bench, its row
# (its own latency, IOPS and CPU per I/O: getrusage of all its threads)
paths_uhost() {
	how="--ios $PATHS_IOS"
	[ "$3" -gt 1 ] && how="--duration $PATHS_QD32_S"
	pin=$PATHS_PIN
	[ "${6:-}" = unpinned ] && pin=
	paths_begin
	# shellcheck disable=SC2086 # a command prefix and two options
	timeout 300 $pin nvmev-uhost bench --rw "$2" --bs 4k --qd "$3" --queues "$4" $how \
		--size 64m --format csv >/tmp/paths.uhost 2>&1 || { cat /tmp/paths.uhost; return 1; }
	f() { sed -n "s/^# $1=//p" /tmp/paths.uhost; }
	[ "$(f errors)" = 0 ] || { cat /tmp/paths.uhost; return 1; }
	paths_row "$1" nvmev "$5" "$2" "$3" "$4" "$(f ios)" "$(f iops)" "$(f lat_mean_us)" \
		"$(f lat_p99_us)" "$(f cpu_us_per_io)"
}

# paths_check DESCRIPTION COMMAND...: check, and a failed point's reason
# in the summary (a test fails on its first failure only)
paths_check() {
	check "$@" && return 0
	echo "paths: FAILED $1: $(tail -4 /tmp/check.out | tr '\n' ' ')" >>/tmp/paths_info
	return 1
}

# paths_kernel CONFIG PATHS...: the QD1 points of PATHS and QD32 on nvmev,
# each that has a null_blk counterpart (interrupt, classic, io_uring, QD32)
# right after the same job on null_blk: this host's speed drifts over
# minutes (TCG, a shared machine), so a ratio pairs points seconds apart
paths_kernel() {
	cfg=$1
	shift
	for rw in randread randwrite; do
		for p in "$@"; do
			case $p in
			interrupt | classic | io_uring) [ -n "$PATHS_NULLB" ] &&
				paths_check "$cfg: null_blk $p $rw" \
					paths_qd1 "$cfg" null_blk "$PATHS_NULLB" "$p" $rw ;;
			esac
			[ "$p" = interrupt ] && [ -n "$PATHS_WAKE" ] &&
				paths_check "$cfg: null_blk wake $rw" \
					paths_qd1 "$cfg" null_blk_wake "$PATHS_WAKE" "$p" $rw
			paths_check "$cfg: $p $rw" paths_qd1 "$cfg" nvmev /dev/nvme0n1 "$p" $rw
		done
	done
	for rw in randread randwrite; do
		[ -n "$PATHS_NULLB" ] &&
			paths_check "$cfg: null_blk QD32 $rw" paths_qd32 "$cfg" null_blk "$PATHS_NULLB" $rw
		paths_check "$cfg: QD32 $rw" paths_qd32 "$cfg" nvmev /dev/nvme0n1 $rw
	done
	check "$cfg: idle CPU" paths_idle "$cfg"
}

# paths_nullb_up ITEM KEY=VALUE...: a memory-backed null_blk through
# configfs, the same scheduler as nvmev's namespace, filled; its device
# in PATHS_DEV
paths_nullb_up() {
	mount_configfs || return 1
	d=/sys/kernel/config/nullb/$1
	mkdir "$d" || return 1
	shift
	for kv in size=64 memory_backed=1 blocksize=512 queue_mode=2 "$@"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" || { echo "null_blk: ${kv%%=*} refused"; return 1; }
	done
	echo 1 >"$d/power" || { echo "null_blk: power on refused"; return 1; }
	# named after the configfs item on this kernel (nullbN on older ones)
	PATHS_DEV=/dev/nullb$(cat "$d/index")
	[ -d "/sys/block/${d##*/}" ] && PATHS_DEV=/dev/${d##*/}
	i=0
	while [ ! -b "$PATHS_DEV" ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -b "$PATHS_DEV" ]; then
		echo "null_blk: no $PATHS_DEV (power $(cat "$d/power"), index $(cat "$d/index");" \
			"$(echo /dev/nullb*); $(echo /sys/block/*))"
		dmesg | grep -i null | tail -3
		return 1
	fi
	q=/sys/block/$(basename "$PATHS_DEV")/queue
	echo "$PATHS_SCHED" >"$q/scheduler"
	echo "null_blk: $PATHS_DEV ($*), scheduler $(cat "$q/scheduler"), io_poll $(cat "$q/io_poll")" \
		>>/tmp/paths_info
	dd if=/dev/urandom of="$PATHS_DEV" bs=1M count=64 oflag=direct 2>/dev/null
}

# paths_nullb_down ITEM
paths_nullb_down() {
	echo 0 >"/sys/kernel/config/nullb/$1/power" && rmdir "/sys/kernel/config/nullb/$1"
}

# tiers: none (run by name only)
test_paths_experiment() {
	rm -f "$PATHS_CSV" /tmp/paths_idle.csv /tmp/paths_nio /tmp/paths_info
	last=$(($(grep -c ^processor /proc/cpuinfo) - 1))
	# the workload on vCPU 0; the device's thread unbound (its default),
	# so the scheduler gives it the other vCPU
	PATHS_PIN=
	[ "$last" -gt 0 ] && PATHS_PIN="taskset -c 0"
	echo "paths: $((last + 1)) vCPUs, workload pinned: ${PATHS_PIN:-no}, $PATHS_IOS QD1 I/Os a point, QD32 ${PATHS_QD32_S} s" |
		tee -a /tmp/paths_info
	# nvmev's namespace's scheduler, for null_blk to use the same
	check "insmod (scheduler)" load_nvmev || return 1
	PATHS_SCHED=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/nvme0n1/queue/scheduler)
	check "rmmod" unload_nvmev

	# 1. null_blk, the block stack's floor, up for the whole run: paired
	# with nvmev's points in paths_kernel. Softirq completions on the
	# submitting CPU, one poll queue: a QD1 reader never sleeps.
	PATHS_NULLB=
	paths_check "null_blk up" paths_nullb_up paths irqmode=1 poll_queues=1 &&
		PATHS_NULLB=$PATHS_DEV
	[ -z "$PATHS_NULLB" ] ||
		check "null_blk poll queue" [ "$(cat "/sys/block/${PATHS_NULLB#/dev/}/queue/io_poll")" = 1 ] ||
		PATHS_NULLB=
	# the same woken by an interrupt: a timer PATHS_WAKE_NS after
	# submission, as long as nvmev's own share of a QD1 I/O, so the
	# reader sleeps and its CPU halts as it does waiting for nvmev's
	# interrupt; the floor of a path that sleeps on this host
	PATHS_WAKE=
	paths_check "null_blk wake up" paths_nullb_up paths_wake irqmode=2 \
		completion_nsec="$PATHS_WAKE_NS" && PATHS_WAKE=$PATHS_DEV

	# 2. nvmev, default parameters but the modelled time: every kernel path
	# shellcheck disable=SC2086 # parameters
	check "insmod" load_nvmev $PATHS_FAST || return 1
	echo "nvmev: spin_us $(cat /sys/module/nvmev/parameters/spin_us)," \
		"spin_max_us $(cat /sys/module/nvmev/parameters/spin_max_us 2>/dev/null)," \
		"cpu $(cat /sys/module/nvmev/parameters/cpu), scheduler $PATHS_SCHED," \
		"model read $(paths_model_ns randread) ns, write $(paths_model_ns randwrite) ns" |
		tee -a /tmp/paths_info
	check "fill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	# NIO's static sleeps and T_expect from classic polling (as nio.sh)
	check "NIO calibration" sh -c "$PATHS_PIN nio-calibrate.sh /dev/nvme0n1 300 >/tmp/paths_cal.csv"
	sed 's/^/paths_cal,/' /tmp/paths_cal.csv
	paths_kernel default interrupt classic hybrid nio io_uring io_uring_cmd

	# 3. the user-level driver on the same device (unbinds the nvme driver)
	check "hugepages" sh -c "echo 64 >/proc/sys/vm/nr_hugepages; [ \$(cat /proc/sys/vm/nr_hugepages) -ge 64 ]"
	for rw in randread randwrite; do
		paths_check "uhost $rw QD1" paths_uhost default $rw 1 1 uhost
	done
	for n in 1 2; do
		paths_check "uhost QD32 x$n" paths_uhost default randread 32 "$n" "uhost_q$n"
	done
	paths_check "uhost QD32 x2, unpinned" paths_uhost default randread 32 2 uhost_q2_unpinned unpinned
	check "uhost release" nvmev-uhost release
	check "rmmod" unload_nvmev

	# 4. control: the worker without its adaptive spin (the old behaviour)
	# shellcheck disable=SC2086 # parameters
	check "insmod spin_max_us=0" load_nvmev $PATHS_FAST spin_max_us=0 || return 1
	check "fill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	paths_kernel spin_max_us=0 interrupt classic io_uring
	check "rmmod" unload_nvmev
	[ -n "$PATHS_NULLB" ] && check "null_blk down" paths_nullb_down paths
	[ -n "$PATHS_WAKE" ] && check "null_blk wake down" paths_nullb_down paths_wake

	cat /tmp/paths_info
	echo "paths_csv,config,device,path,rw,qd,queues,ios,iops,mean_us,p99_us,cpu_us_per_io,model_us,late_us,sw_us,irqs,worker_cpu_us_per_io,device_us"
	sed 's/^/paths_csv,/' "$PATHS_CSV"
	echo "paths_idle,config,ms,cpu_us,runs,cpu_pct"
	sed 's/^/paths_idle,/' /tmp/paths_idle.csv
	[ -f /tmp/paths_nio ] && sed 's/^/paths_nio,/' /tmp/paths_nio
	return 0
}
