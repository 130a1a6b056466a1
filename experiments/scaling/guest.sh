#!/bin/sh
# The scaling experiment (run.sh beside it; busybox sh,
# sourced by tests.sh): do two drives serialise each other? The module's
# drive and a configfs drive of the same geometry, each filled, then with
# time_scale 100 (the model, not the emulating CPU, limits them): 4 KiB
# random reads at QD32 on one drive alone, then on both at once, in rounds
# alone / both, both / alone, ... One line per measurement:
#   scaling_csv,ROUND,CASE,DRIVE,IOPS,MEAN_US
# CASE is "alone" (the module's drive, the other idle) or "both".

# Completions are milliseconds apart at time_scale 100: a controller
# thread spinning after each (spin_max_us) would only take the vCPU the
# other drive's thread and fio need, and measure the guest's CPUs.
SCALING_PARAMS="capacity_mib=256 spin_max_us=0"
SCALING_S=${SCALING_S:-10}
SCALING_ROUNDS=${SCALING_ROUNDS:-3}
SCALING_SCALE=${SCALING_SCALE:-100}

# scaling_fio DISK NAME: a 4 KiB random-read job at QD32 into /tmp/NAME.fio
scaling_fio() {
	fio --output-format=terse --terse-version=3 --name="$2" --filename="$1" \
		--size=64M --bs=4k --rw=randread --direct=1 --ioengine=libaio --iodepth=32 \
		--time_based --runtime="$SCALING_S" --randrepeat=0 >"/tmp/$2.fio" 2>"/tmp/$2.err"
}

# scaling_line ROUND CASE DRIVE: its line from /tmp/DRIVE.fio (terse v3:
# reads from field 6; +2 IOPS, +34 mean latency in us)
scaling_line() {
	awk -F';' -v pre="scaling_csv,$1,$2,$3" '{ printf "%s,%.0f,%.1f\n", pre, $8, $40 }' "/tmp/$3.fio"
}

# tiers: none
test_scaling_experiment() {
	mount_configfs
	# shellcheck disable=SC2086 # the parameters, split on purpose
	check "insmod" load_nvmev $SCALING_PARAMS || return 1
	# a configfs drive starts from the module's parameters: the same drive
	check "mkdir" mkdir "$CFS/second" || return 1
	check "power" sh -c "echo 1 >$CFS/second/power" || return 1
	second=$(drive_disk second)
	check "the second drive's namespace" [ -n "$second" ] || return 1
	check "fill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	check "fill the second" dd if=/dev/urandom of="$second" bs=1M count=64 oflag=direct
	for ts in "$DBG/time_scale" /sys/kernel/debug/nvmev-second/time_scale; do
		check "time_scale $SCALING_SCALE" sh -c "echo $SCALING_SCALE >$ts" || return 1
	done
	sc_n=1
	while [ "$sc_n" -le "$SCALING_ROUNDS" ]; do
		for sc_case in $([ $((sc_n % 2)) = 1 ] && echo "alone both" || echo "both alone"); do
			if [ "$sc_case" = alone ]; then
				check "round $sc_n alone" scaling_fio /dev/nvme0n1 first || return 1
				scaling_line "$sc_n" alone first
			else
				scaling_fio "$second" second &
				sc_pid=$!
				check "round $sc_n both" scaling_fio /dev/nvme0n1 first || return 1
				check "round $sc_n both, the second" wait $sc_pid || return 1
				scaling_line "$sc_n" both first
				scaling_line "$sc_n" both second
			fi
		done
		sc_n=$((sc_n + 1))
	done
}
