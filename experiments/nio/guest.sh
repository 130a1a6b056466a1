#!/bin/sh
# The NIO experiment (busybox sh, sourced by tests.sh), run by
# run.sh beside it (`make nio`): latency and CPU of every reap
# mode at each size, on the patched kernel.

# nio_point MODE RW KIB-LIST LABEL MEMBERS: one point of the NIO
# experiment (NIO_COUNT calls, default 300), appended to /tmp/nio.csv
# reap_mode interrupt|classic|hybrid|nio: how the namespace's queue reaps
# RWF_HIPRI I/O (classic = no hybrid sleep, NIO off); sets hipri to 0 for
# interrupt (the I/O is not marked RWF_HIPRI), else 1
reap_mode() {
	q=/sys/block/nvme0n1/queue
	hipri=1
	echo -1 >$q/io_poll_delay
	echo 0 >$q/nio_enable
	case $1 in
	interrupt) hipri=0 ;;
	hybrid) echo 0 >$q/io_poll_delay ;;
	nio)
		echo late >$q/nio_dynamic
		echo 1 >$q/nio_enable
		;;
	nio_signed)
		echo signed >$q/nio_dynamic
		echo 1 >$q/nio_enable
		;;
	esac
}

nio_point() {
	reap_mode "$1"
	flag=
	[ "$hipri" = 1 ] && flag=--hipri
	sleeps=$(nio_count sleeps)
	oversleeps=$(nio_count oversleeps)
	echo 1 >"$DBG/stats_reset"
	nio_txn --rw "$2" --member-kib "$3" --members "$5" --count "${NIO_COUNT:-300}" $flag || return 1
	line="nio_csv,$1,$2,$4,$5"
	for k in mean_us stdev_us p99_us usr_cpu_pct sys_cpu_pct; do
		line="$line,$(txn_field $k)"
	done
	# the device's lateness in posting completions, in us
	late=$(($(value post_late_mean_ns "$DBG/stats") / 1000))
	# shellcheck disable=SC2154 # txn_irqs: set by txn_summary (tests/guest/nio.sh)
	echo "$line,$txn_irqs,$(($(nio_count sleeps) - sleeps)),$(($(nio_count oversleeps) - oversleeps)),$late" \
		>>/tmp/nio.csv
	reap_mode classic
}

# nio_phases MODE: the three-phase dynamic workload of the NIO paper (2 jobs
# of 4-8 KiB writes, then 4 of 128 KiB-1 MiB reads, then 13 of 4-8 KiB
# reads), with the job counts scaled to the guest's two CPUs by
# NIO_PHASE_JOBS (default 1,2,3) and NIO_PHASE_MIB per small job (8; the
# large jobs move 8 times that); one CSV row per phase in /tmp/nio_phases.csv
nio_phases() {
	mode=$1
	reap_mode "$mode"
	jobs=$(echo "${NIO_PHASE_JOBS:-1,2,3}" | tr , ' ')
	# shellcheck disable=SC2086 # three numbers
	set -- $jobs
	mib=${NIO_PHASE_MIB:-8}
	# shellcheck disable=SC2086 # NIO_PIN is a command prefix or empty
	timeout 900 $NIO_PIN fio --output-format=terse --terse-version=3 --group_reporting \
		--filename=/dev/nvme0n1 --size=64M --direct=1 --ioengine=pvsync2 --hipri=$hipri \
		--name=small_writes --rw=randwrite --bsrange=4k-8k --numjobs="$1" --io_size="${mib}M" \
		--name=large_reads --stonewall --rw=randread --bsrange=128k-1m --numjobs="$2" \
		--io_size="$((8 * mib))M" \
		--name=small_reads --stonewall --rw=randread --bsrange=4k-8k --numjobs="$3" \
		--io_size="${mib}M" >/tmp/phases.out || return 1
	# terse v3: 3 name, 9 read runtime ms, 50 write runtime ms, 88-90 usr, sys, ctx
	awk -F';' -v mode="$mode" -v jobs="$jobs" 'BEGIN { split(jobs, j, " ") }
		{ rt = $9 > $50 ? $9 : $50; sub(/%/, "", $88); sub(/%/, "", $89)
		  print "nio_phase," mode "," $3 "," j[NR] "," rt "," $88 "," $89 "," $90 }' \
		/tmp/phases.out >>/tmp/nio_phases.csv
	reap_mode classic
}

# The NIO experiment (run.sh): calibration, then QD1
# reads and writes of 4 KiB..1 MiB and vectored transactions of 4 and 64
# members, by interrupt, classic polling, hybrid polling and NIO, and the
# three-phase workload by interrupt, classic polling and NIO, on a
# device slowed by NIO_TIME_SCALE (default 20) so that its time dominates
# the guest's timer and scheduling costs; NIO_JITTER_NS adds device jitter.
# tiers: none (run by name only)
test_nio_experiment() {
	rm -f /tmp/nio.csv
	# The emulator stands for the drive's own hardware: it gets the last
	# CPU to itself and the workload the others (NIO_PIN_CPUS=0: no pinning),
	# so that the host's reaping and the device's timing do not share a
	# CPU, as they never do with a real drive. On its own CPU it spins
	# (spin_us 100 ms, NIO_SPIN_US to change): sleeping, it would see
	# doorbells and due completions only when a guest timer fires, which
	# under TCG is QEMU's main loop's job and ~80-100 us late.
	last=$(($(grep -c ^processor /proc/cpuinfo) - 1))
	cpu_arg=
	spin=${NIO_SPIN_US:-}
	NIO_PIN=
	if [ "${NIO_PIN_CPUS:-1}" = 1 ] && [ "$last" -gt 0 ]; then
		cpu_arg=cpu=$last
		spin=${NIO_SPIN_US:-100000}
		NIO_PIN="taskset -c 0-$((last - 1))"
	fi
	# shellcheck disable=SC2086 # optional parameters
	check "insmod" load_nvmev time_scale="$NIO_SCALE" $cpu_arg \
		${NIO_JITTER_NS:+jitter_ns=$NIO_JITTER_NS} ${spin:+spin_us=$spin} || return 1
	check "fill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	modes="interrupt classic hybrid nio nio_signed"
	check "calibrate" sh -c "$NIO_PIN nio-calibrate.sh /dev/nvme0n1 ${NIO_COUNT:-300} >/tmp/cal.csv"
	sed 's/^/nio_cal,/' /tmp/cal.csv
	for rw in read write; do
		for kib in $(echo "${NIO_SIZES:-4,8,16,32,64,128,256,1024}" | tr , ' '); do
			for mode in $modes; do
				check "$mode $rw $kib KiB" nio_point "$mode" $rw "$kib" "$kib" 1
			done
		done
	done
	for members in 4 64; do
		# 64 members of 4..16 KiB stay within one bio (1 MiB)
		sizes=4,8,16,32,64
		[ "$members" = 64 ] && sizes=4,8,16
		for mode in $modes; do
			check "$mode transaction x$members" nio_point "$mode" read "$sizes" \
				"$(echo "$sizes" | tr , -)" "$members"
		done
	done
	rm -f /tmp/nio_phases.csv
	for mode in interrupt classic nio nio_signed; do
		check "three phases, $mode" nio_phases $mode
	done
	echo "nio_csv,mode,rw,kib,members,mean_us,stdev_us,p99_us,usr_cpu_pct,sys_cpu_pct,interrupts,sleeps,oversleeps,device_late_us"
	cat /tmp/nio.csv
	echo "nio_phase,mode,phase,jobs,runtime_ms,usr_cpu_pct,sys_cpu_pct,ctx"
	cat /tmp/nio_phases.csv
	NIO_PIN=
	check "rmmod" unload_nvmev
}
