#!/bin/sh
# The store experiment (run.sh beside it; busybox sh, sourced by
# tests.sh): 4 KiB random reads and writes at QD1 and QD32 with the
# modelled time near zero, the data in the memmap= reservation (linear)
# and in kernel pages (no memmap_* parameter: the default, the registers
# in a memory block taken from the kernel), in rounds A B, B A, A B, ...
# in one guest so that drift in the host's load and the order fall on
# both. One line per point:
#   store_csv,ROUND,STORE,RW,QD,IOPS,MEAN_US

# the modelled time near zero, as the paths experiment has it
STORE_FAST="read_ns=1 prog_ns=1 fw_read_4k_ns=0 fw_read_ns=0 fw_write_ns=0 fw_write_4k_ns=0"
STORE_FAST="$STORE_FAST channel_mbps=1000000 link_mbps=1000000"
STORE_S=${STORE_S:-5}
STORE_ROUNDS=${STORE_ROUNDS:-3}

# store_point ROUND STORE RW QD: one fio job on vCPU 0, its line
store_point() {
	taskset -c 0 fio --output-format=terse --terse-version=3 --name=store \
		--filename=/dev/nvme0n1 --size=64M --bs=4k --rw="$3" --direct=1 \
		--ioengine=libaio --iodepth="$4" --time_based --runtime="$STORE_S" \
		--randrepeat=0 >/tmp/store.fio 2>/tmp/store.err || { cat /tmp/store.err; return 1; }
	# terse v3: reads from field 6, writes from 47; +2 IOPS, +34 mean (us)
	awk -F';' -v b="$([ "$3" = randread ] && echo 6 || echo 47)" \
		-v pre="store_csv,$1,$2,$3,$4" '{ printf "%s,%.0f,%.2f\n", pre, $(b + 2), $(b + 34) }' \
		/tmp/store.fio
}

# store_round ROUND STORE MEMORY-PARAMS [PARAMS...]: load, fill 64 MiB,
# measure
store_round() {
	sr_round=$1 st=$2 mem=$3
	shift 3
	# shellcheck disable=SC2086 # the parameters, split on purpose
	check "$st: insmod" load_nvmev_mem "$mem" "$@" $STORE_FAST || return 1
	check "$st: fill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	for rw in randread randwrite; do
		for qd in 1 32; do
			check "$st: $rw QD$qd" store_point "$sr_round" "$st" $rw $qd &&
				cat /tmp/check.out
		done
	done
	check "$st: rmmod" unload_nvmev
}

# tiers: none
test_store_experiment() {
	check "a memmap= boot" [ "$NVMEV_MEMMAP" = 1 ] || return 1
	# not i: the helpers (wait_nvme0n1) use it; odd rounds linear first,
	# even rounds pages first, so that what comes first gains nothing
	store_n=1
	while [ "$store_n" -le "$STORE_ROUNDS" ]; do
		if [ $((store_n % 2)) = 1 ]; then
			store_round "$store_n" linear "$NVMEV_MEM" capacity_mib=256 || return 1
			store_round "$store_n" pages "" capacity_mib=256 || return 1
		else
			store_round "$store_n" pages "" capacity_mib=256 || return 1
			store_round "$store_n" linear "$NVMEV_MEM" capacity_mib=256 || return 1
		fi
		store_n=$((store_n + 1))
	done
}
