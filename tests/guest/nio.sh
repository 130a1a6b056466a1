#!/bin/sh
# Guest tests of the patched kernel's synchronous polled path and NIO
# lazy polling (host patches 4-5; busybox sh, sourced by tests.sh), and
# the experiment of experiments/nio/run.sh.

# the device's time scale in test_nio and the experiment: slowed so that
# device time dominates the guest's submission and timer costs
NIO_SCALE=${NIO_TIME_SCALE:-20}

# sync_fio NAME FIO-ARGS...: $sync_ios 4 KiB QD1 I/Os with pvsync2 on the
# namespace (at most 120 s); sets sync_irqs to the interrupts they took and
# notes them with fio's CPU line in /tmp/sync_poll.out
sync_fio() {
	tag=$1
	shift
	sync_irqs=-1
	before=$(value irqs "$DBG/stats")
	timeout 120 fio --name=sp --filename=/dev/nvme0n1 --size=16M --bs=4k --ioengine=pvsync2 \
		--direct=1 --number_ios="$sync_ios" --output=/tmp/fio.out "$@" || return 1
	sync_irqs=$(($(value irqs "$DBG/stats") - before))
	echo "sync_poll: $tag: $sync_irqs interrupts for $sync_ios I/Os," \
		"$(grep -o 'usr=[^,]*, sys=[^,]*, ctx=[0-9]*' /tmp/fio.out)" >>/tmp/sync_poll.out
}

# Synchronous polled direct I/O (patch 4): preadv2/pwritev2 with RWF_HIPRI
# complete on the poll queue without an interrupt, with classic and with
# hybrid polling (io_poll_delay); without RWF_HIPRI they take interrupts;
# a bio that must be split loses REQ_POLLED, takes interrupts and still
# completes (no hang), data intact; so does a queue without poll queues.
# SYNC_POLL_IOS (default 2000) I/Os per mode.
# desc: synchronous polled direct I/O (RWF_HIPRI) completes without interrupts
# tiers: patched debug_long
test_sync_poll() {
	requires_patched || return
	sync_ios=${SYNC_POLL_IOS:-2000}
	rm -f /tmp/sync_poll.out
	check "insmod" load_nvmev || return 1
	q=/sys/block/nvme0n1/queue
	check "poll queue exists" [ "$(cat $q/io_poll)" = 1 ]
	for rw in randread randwrite; do
		check "fio $rw classic poll" sync_fio "$rw classic poll" --rw=$rw --hipri=1
		check "$rw classic poll: no interrupts" [ "$sync_irqs" -eq 0 ]
	done
	echo 0 >$q/io_poll_delay
	check "fio hybrid poll" sync_fio "randread hybrid poll" --rw=randread --hipri=1
	check "hybrid poll: no interrupts" [ "$sync_irqs" -eq 0 ]
	echo -1 >$q/io_poll_delay
	check "fio interrupts" sync_fio "randread interrupts" --rw=randread --hipri=0
	check "without RWF_HIPRI: an interrupt per I/O" [ "$sync_irqs" -ge "$sync_ios" ]
	# 128 KiB writes on a queue that takes 32 KiB: split, interrupts
	max=$(cat $q/max_sectors_kb)
	echo 32 >$q/max_sectors_kb
	before=$(value irqs "$DBG/stats")
	check "split polled writes complete, verified" timeout 120 fio --name=split \
		--filename=/dev/nvme0n1 --size=8M --bs=128k --rw=write --ioengine=pvsync2 \
		--hipri=1 --direct=1 --verify=crc32c --do_verify=1 --output=/tmp/fio.out
	split_irqs=$(($(value irqs "$DBG/stats") - before))
	echo "sync_poll: split 128 KiB hipri writes + verify: $split_irqs interrupts" >>/tmp/sync_poll.out
	check "split I/O fell back to interrupts" [ "$split_irqs" -gt 0 ]
	echo "$max" >$q/max_sectors_kb
	check "rmmod" unload_nvmev
	# no poll queues at all (the driver reads poll_queues when it probes):
	# RWF_HIPRI falls back to interrupts
	pq=/sys/module/nvme/parameters/poll_queues
	echo 0 >$pq
	check "insmod, no poll queues" load_nvmev
	check "no poll queue" [ "$(cat $q/io_poll)" = 0 ]
	check "fio hipri, no poll queues" sync_fio "randread hipri, no poll queues" \
		--rw=randread --hipri=1
	check "without poll queues: interrupts" [ "$sync_irqs" -ge "$sync_ios" ]
	check "rmmod" unload_nvmev
	echo 1 >$pq
	cat /tmp/sync_poll.out
}

# nio_txn NVMEV-TXN-ARGS...: transactions on the namespace (at most 120 s),
# results in /tmp/txn.out; sets txn_irqs to the interrupts they took
nio_txn() {
	txn_irqs=-1
	before=$(value irqs "$DBG/stats")
	# shellcheck disable=SC2086 # NIO_PIN is a command prefix or empty
	timeout 120 $NIO_PIN nvmev-txn /dev/nvme0n1 --format text "$@" >/tmp/txn.out || return 1
	txn_irqs=$(($(value irqs "$DBG/stats") - before))
}

# nio_count NAME: a counter of /sys/block/nvme0n1/queue/nio_state
nio_count() { sed -n "s/^$1 //p" /sys/block/nvme0n1/queue/nio_state; }

# nio_dyn4: T_dynamic of 4 KiB reads in nio_state, summed over poll queues
nio_dyn4() {
	awk '$2 == "read" { s += $3 } END { print s + 0 }' /sys/block/nvme0n1/queue/nio_state
}

# txn_field NAME: a value nvmev-txn printed (key=value)
txn_field() { sed -n "s/^$1=//p" /tmp/txn.out; }

# txn_summary TAG: one line with what nvmev-txn measured
txn_summary() {
	echo "nio: $1: mean $(txn_field mean_us) us, stdev $(txn_field stdev_us) us," \
		"cpu usr $(txn_field usr_cpu_pct) % sys $(txn_field sys_cpu_pct) %," \
		"$txn_irqs interrupts" >>/tmp/nio.out
}

# NIO lazy polling (patch 5): its sysfs attributes refuse bad values; off
# by default; small RWF_HIPRI transactions sleep then poll (no interrupt),
# large ones and transactions with a large member take interrupts.
# desc: NIO lazy polling: small transactions sleep, then poll; large ones interrupt
# tiers: patched debug_long
test_nio() {
	requires_patched || return
	rm -f /tmp/nio.out
	# at NIO_SCALE, as the experiment. Unscaled, the sleep target (half a
	# ~50 us read) was often already past when the submitter reached it on
	# a slow TCG host: NIO rightly skipped the sleep, and "small: slept"
	# failed (~800 of 1000)
	check "insmod" load_nvmev time_scale="$NIO_SCALE" || return 1
	q=/sys/block/nvme0n1/queue
	check "off by default" [ "$(cat $q/nio_enable)" = 0 ]
	for v in 2 -1 on ""; do
		check "nio_enable '$v'" bad_write $q/nio_enable "$v"
	done
	for v in 0 6 65540 abc; do
		check "nio_threshold_kb '$v'" bad_write $q/nio_threshold_kb "$v"
	done
	for v in "1 2 3 4" "1 2 3 4 5 6" "1 2 3 4 10000001" "a b c d e" ""; do
		check "nio_read_sleep_ns '$v'" bad_write $q/nio_read_sleep_ns "$v"
		check "nio_write_expect_ns '$v'" bad_write $q/nio_write_expect_ns "$v"
	done
	for v in 0 1025 x; do
		check "nio_window '$v'" bad_write $q/nio_window "$v"
	done
	check "paper's estimator by default" [ "$(cat $q/nio_dynamic)" = late ]
	for v in "" paper 1 "late signed"; do
		check "nio_dynamic '$v'" bad_write $q/nio_dynamic "$v"
	done
	check "nio_sleep_cost_ns" bad_write $q/nio_sleep_cost_ns 10000001
	check "nio_state is read-only" sh -c "! echo 1 >$q/nio_state"

	# classic polling first: its mean sets the static sleep (mean / 2)
	check "classic poll" nio_txn --hipri --count 1000
	txn_summary "4 KiB reads, classic poll"
	mean_ns=$(sed -n 's/^mean_us=//p' /tmp/txn.out | awk '{ printf "%d", $1 * 1000 }')
	s=$((mean_ns / 2))
	echo "$s $s $s $s $s" >$q/nio_read_sleep_ns
	echo "$mean_ns $mean_ns $mean_ns $mean_ns $mean_ns" >$q/nio_read_expect_ns
	check "static sleep set" [ "$(cat $q/nio_read_sleep_ns)" = "$s $s $s $s $s" ]
	echo 1 >$q/nio_enable

	check "nio small reads" nio_txn --hipri --count 1000
	txn_summary "4 KiB reads, NIO"
	check "small: no interrupts" [ "$txn_irqs" -eq 0 ]
	check "small: lazily polled" [ "$(nio_count lazy_polled)" -eq 1000 ]
	check "small: slept" [ "$(nio_count sleeps)" -ge 900 ]
	check "small transaction (4 x 4 KiB)" nio_txn --hipri --count 200 --members 4
	check "small transaction: no interrupts" [ "$txn_irqs" -eq 0 ]
	check "large reads (64 KiB)" nio_txn --hipri --count 200 --member-kib 64
	txn_summary "64 KiB reads, NIO"
	check "large: interrupts" [ "$txn_irqs" -ge 200 ]
	check "mixed transaction (4+4+4+64 KiB)" nio_txn --hipri --count 100 --members 4 \
		--member-kib 4,4,4,64 --in-order
	check "mixed: interrupts" [ "$txn_irqs" -ge 100 ]
	check "large and mixed counted" [ "$(nio_count interrupts)" -eq 300 ]
	check "queueing estimate shown" grep -q "^hctx[0-9]* read" $q/nio_state
	check "writes (4 KiB)" nio_txn --hipri --count 200 --rw write
	check "writes: no interrupts" [ "$txn_irqs" -eq 0 ]
	# without RWF_HIPRI, NIO stays out of the way
	polled=$(nio_count lazy_polled)
	check "not hipri" nio_txn --count 200
	check "not hipri: interrupts" [ "$txn_irqs" -ge 200 ]
	check "not hipri: not counted" [ "$(nio_count lazy_polled)" -eq "$polled" ]
	echo 0 >$q/nio_enable
	sleeps=$(nio_count sleeps)
	check "off again" nio_txn --hipri --count 200
	check "off: classic poll, no sleep" [ "$(nio_count sleeps)" -eq "$sleeps" ]
	check "off: no interrupts" [ "$txn_irqs" -eq 0 ]
	cat $q/nio_state

	# The two T_dynamic estimators, window 16, on one poll queue, each from
	# a reset: 4 completions against T_expect 0 (all late, by L), then 12
	# against 10 ms (all early, by 10 ms - t), so that the window holds
	# exactly these 16. The paper's (late) keeps the 4 delays and counts
	# the early ones as 0: 4 L / 16 > 0. The signed one takes the mean of
	# all 16, 4 L + 12 (t - 10 ms) over 16, at most 0 once clamped when
	# reads are fast, and never above that figure computed from
	# nvmev-txn's own latencies (which include the system call, so are no
	# shorter than the kernel's). That bound, not 0, is what is checked: a
	# debug guest sharing the host with another guest took 9 ms a read,
	# and the signed mean was rightly above 0 there; counting early
	# completions as 0 (the late rule) exceeds it whenever t < 10 ms
	# (the latencies are printed: hundreds of us on an idle host).
	# (A sleep cost of 10 ms keeps NIO from sleeping: no oversleeps.)
	check "unscaled" set_time_scale 1
	echo 1 >$q/nio_enable
	echo "0 0 0 0 0" >$q/nio_read_sleep_ns
	echo 10000000 >$q/nio_sleep_cost_ns
	NIO_PIN="taskset -c 0"
	for est in late signed; do
		echo $est >$q/nio_dynamic
		echo 16 >$q/nio_window
		check "$est: estimates reset" [ "$(nio_dyn4)" = 0 ]
		echo "0 0 0 0 0" >$q/nio_read_expect_ns
		check "$est: 4 late" nio_txn --hipri --count 4
		late_us=$(txn_field mean_us)
		check "$est: a delay estimated" [ "$(nio_dyn4)" -gt 0 ]
		echo "10000000 10000000 10000000 10000000 10000000" >$q/nio_read_expect_ns
		check "$est: 12 early" nio_txn --hipri --count 12
		early_us=$(txn_field mean_us)
		echo "nio: $est: 4 late reads $late_us us, 12 early $early_us us (T_expect 10 ms)"
		if [ $est = late ]; then
			dyn_late=$(nio_dyn4)
		else
			dyn_signed=$(nio_dyn4)
			# ns, 1 us for rounding
			bound=$(awk -v l="$late_us" -v t="$early_us" \
				'BEGIN { b = (4 * l + 12 * (t - 10000)) * 1000 / 16; printf "%d", (b < 0 ? 0 : b) + 1000 }')
		fi
	done
	NIO_PIN=
	echo "nio: T_dynamic after 4 late and 12 early: late $dyn_late ns, signed $dyn_signed ns" \
		"(at most $bound ns from the reads' latencies)"
	check "late: keeps the delays" [ "$dyn_late" -gt 0 ]
	check "signed: early completions cancel them" [ "$dyn_signed" -le "$bound" ]
	echo 0 >$q/nio_enable
	cat /tmp/nio.out
	check "rmmod" unload_nvmev
}
