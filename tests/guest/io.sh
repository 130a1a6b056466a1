#!/bin/sh
# Guest tests of I/O through the stock nvme driver (busybox sh, sourced by
# tests.sh): data integrity through ext4 and on the raw device, polled
# queues, discard, interrupt coalescing, a controller reset under I/O, and
# garbage collection keeping every block's data.

# EXT4_VERIFY_MIB (default 48) sizes the sequential pass, a third of it
# the random one
# desc: crc-verified fio on ext4 on the namespace; mkfs discards reach the model
# tiers: stock debug_long
test_ext4_verify() {
	mib=${EXT4_VERIFY_MIB:-48}
	check "insmod" load_nvmev || return 1
	check "mkfs.ext4" mkfs.ext4 -q -F /dev/nvme0n1
	check "mkfs discards reach the model" [ "$(value model_trims "$DBG/stats")" -gt 0 ]
	check "mount" mount -t ext4 /dev/nvme0n1 /mnt
	check "fio write+verify" fio --name=ext4 --directory=/mnt --size="${mib}M" --bs=64k \
		--rw=write --ioengine=psync --direct=1 --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --output=/tmp/fio.out
	check "fio randrw+verify" fio --name=mix --directory=/mnt --size="$((mib / 3))M" --bs=4k \
		--rw=randwrite --ioengine=libaio --iodepth=16 --direct=1 --verify=crc32c \
		--verify_fatal=1 --output=/tmp/fio2.out
	check "umount" umount /mnt
	check "fsck" e2fsck -fn /dev/nvme0n1
	echo "nvmev stats after the ext4 run:"
	cat "$DBG/stats"
	check "rmmod" unload_nvmev
}

# desc: crc-verified fio on the raw namespace
# tiers: stock debug_long iommu
test_raw_verify() {
	check "insmod" load_nvmev || return 1
	check "fio raw verify" fio --name=raw --filename=/dev/nvme0n1 --size=64M --bs=128k \
		--rw=randwrite --ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
		--verify_fatal=1 --output=/tmp/fio.out
	check "no device errors" [ "$(value nvme_io_errors "$DBG/stats")" = 0 ]
	check "rmmod" unload_nvmev
}

# desc: polled reads complete without interrupts
# tiers: stock debug_long iommu
test_polled() {
	check "insmod" load_nvmev || return 1
	check "poll queue exists" [ "$(cat /sys/block/nvme0n1/queue/io_poll)" = 1 ]
	irqs=$(value irqs "$DBG/stats")
	reads=$(value nvme_read "$DBG/stats")
	check "fio hipri" fio --name=poll --filename=/dev/nvme0n1 --size=16M --bs=4k \
		--rw=randread --ioengine=io_uring --hipri=1 --iodepth=4 --direct=1 \
		--number_ios=2000 --output=/tmp/fio.out
	irqs2=$(value irqs "$DBG/stats")
	reads2=$(value nvme_read "$DBG/stats")
	echo "polled: $((reads2 - reads)) reads, $((irqs2 - irqs)) interrupts"
	check "reads were done" [ $((reads2 - reads)) -ge 2000 ]
	check "no interrupts for polled I/O" [ $((irqs2 - irqs)) -eq 0 ]
	check "rmmod" unload_nvmev
}

# desc: a discard frees the model's units and reads back zeroes
# tiers: stock debug_long
test_discard() {
	check "insmod" load_nvmev || return 1
	dd if=/dev/urandom of=/tmp/discard.pat bs=1M count=8 2>/dev/null
	check "write 8 MiB" dd if=/tmp/discard.pat of=/dev/nvme0n1 bs=1M count=8 oflag=direct
	valid=$(awk '/^[0-9]/ { s += $14 } END { print s }' "$DBG/stats")
	check "discard 4 MiB" blkdiscard -o 0 -l 4194304 /dev/nvme0n1
	valid2=$(awk '/^[0-9]/ { s += $14 } END { print s }' "$DBG/stats")
	echo "valid 4 KiB units: $valid -> $valid2"
	check "valid units drop by 1024" [ $((valid - valid2)) -eq 1024 ]
	check "trimmed reads as zeroes" cmp -n 4194304 /dev/nvme0n1 /dev/zero
	# busybox cmp has no -i: compare the second half as extracted by dd
	dd if=/dev/nvme0n1 of=/tmp/discard.rest bs=1M skip=4 count=4 2>/dev/null
	dd if=/tmp/discard.pat of=/tmp/discard.want bs=1M skip=4 count=4 2>/dev/null
	check "rest kept" cmp /tmp/discard.rest /tmp/discard.want
	rm -f /tmp/discard.pat /tmp/discard.rest /tmp/discard.want
	check "rmmod" unload_nvmev
}

# Interrupt coalescing (Set Features 08h: 8 completions or 1 ms). What a
# slow host cannot fake: the device's count of posts whose interrupt
# aggregation held back (none without coalescing, some with), and at QD1,
# where the threshold is never reached, no read completing before the
# aggregation time (without coalescing, well before it). Interrupts per
# read are printed: at QD32 a slow host already gets many completions per
# interrupt without coalescing, so they prove nothing.
# desc: interrupt coalescing holds back interrupts, and QD1 reads wait for it
# tiers: stock debug_long
test_coalescing() {
	check "insmod" load_nvmev || return 1
	# run QD: held posts, interrupts per 100 reads, min latency (us) from
	# submission (terse field 38, lat min: under TCG the doorbell rings
	# well before io_submit returns, where completion latency starts)
	run() {
		h=$(value irqs_held "$DBG/stats")
		i=$(value irqs "$DBG/stats")
		r=$(value nvme_read "$DBG/stats")
		fio --name=c --filename=/dev/nvme0n1 --size=16M --bs=4k --rw=randread \
			--ioengine=libaio --iodepth="$1" --direct=1 --number_ios=2000 \
			--output-format=terse --terse-version=3 --output=/tmp/fio.out || return 1
		echo $(($(value irqs_held "$DBG/stats") - h)) \
			$(((($(value irqs "$DBG/stats") - i) * 100) / ($(value nvme_read "$DBG/stats") - r))) \
			"$(awk -F';' '/^3;/ { print int($38) }' /tmp/fio.out)"
	}
	run 32 >/tmp/co.plain32 && run 1 >/tmp/co.plain1
	read -r held32 irqs32 _ </tmp/co.plain32
	read -r held1 irqs1 min1 </tmp/co.plain1
	check "set coalescing" nvme set-feature /dev/nvme0 -f 8 -v 0x0a07
	run 32 >/tmp/co.on32 && run 1 >/tmp/co.on1
	read -r cheld32 cirqs32 _ </tmp/co.on32
	read -r cheld1 cirqs1 cmin1 </tmp/co.on1
	echo "coalescing: without: QD32 $irqs32 interrupts per 100 reads, $held32 held;" \
		"QD1 $irqs1 per 100, $held1 held, min latency $min1 us"
	echo "coalescing: with (8 / 1 ms): QD32 $cirqs32 per 100, $cheld32 held;" \
		"QD1 $cirqs1 per 100, $cheld1 held, min latency $cmin1 us"
	check "nothing held without coalescing" [ "$((held32 + held1))" -eq 0 ]
	check "QD32: posts held with coalescing" [ "${cheld32:-0}" -gt 0 ]
	check "QD1: every post held with coalescing" [ "${cheld1:-0}" -ge 2000 ]
	check "QD1 without: a read under 1 ms" [ "${min1:-1000}" -lt 1000 ]
	check "QD1 with: no read before the 1 ms aggregation time" [ "${cmin1:-0}" -ge 1000 ]
	check "get-feature reads back" sh -c 'nvme get-feature /dev/nvme0 -f 8 | grep -q 0x00000a07'
	check "rmmod" unload_nvmev
}

# Controller resets and namespace rescans while fio writes and verifies
# RESET_IO_MIB (default 64; the debug tier: less) in 16 KiB blocks:
# the nvme driver requeues what was in flight, nothing is lost or fails.
# desc: controller resets and rescans under verified writes lose nothing
# tiers: stock debug debug_long
test_reset_under_io() {
	check "insmod" load_nvmev capacity_mib=128 || return 1
	fio --name=resets --filename=/dev/nvme0n1 --direct=1 --ioengine=libaio \
		--verify=crc32c --verify_fatal=1 --size="${RESET_IO_MIB:-64}M" --bs=16k --rw=randwrite \
		--iodepth=16 --output=/tmp/resets.out &
	fio_pid=$!
	for k in 1 2 3; do
		sleep 1
		check "nvme reset $k" nvme reset /dev/nvme0
		check "ns-rescan $k" nvme ns-rescan /dev/nvme0
	done
	check "fio verified through resets" wait $fio_pid
	grep -E "err=|WRITE:|READ:" /tmp/resets.out | sed 's/^ */reset_under_io: /'
	check "rmmod" unload_nvmev
}

# Data integrity under garbage collection: a 64 MiB drive with 7 %
# over-provisioning written GC_PASSES x its capacity (default 4: a
# sequential fill, random 4-64 KiB writes with a verify backlog, random
# trims, random 4 KiB writes), fio checking every block; then the
# device's write amplification and GC counters.
# desc: data survives garbage collection over several drive writes
# tiers: stock debug_long
test_gc_integrity() {
	check "insmod" load_nvmev capacity_mib=64 op_percent=7 || return 1
	cap=$(value capacity_bytes "$DBG/geometry")
	common="--filename=/dev/nvme0n1 --direct=1 --ioengine=libaio --verify=crc32c --verify_fatal=1"
	passes=${GC_PASSES:-4}
	p=0
	while [ $p -lt "$passes" ]; do
		# shellcheck disable=SC2086
		case $((p % 4)) in
		0) check "pass $p: sequential" fio --name=seq $common --rw=write --bs=128k \
			--iodepth=8 --size="$cap" --output=/tmp/gc.out ;;
		1) check "pass $p: random 4-64K" fio --name=rnd $common --rw=randwrite \
			--bsrange=4k-64k --iodepth=16 --size="$cap" --verify_backlog=512 \
			--output=/tmp/gc.out ;;
		2) check "pass $p: trims" fio --name=trim --filename=/dev/nvme0n1 --direct=1 \
			--ioengine=libaio --rw=randtrim --bs=256k --size="$cap" --number_ios=64 \
			--output=/tmp/gc.out
		   check "pass $p: random after trims" fio --name=rnd4 $common --rw=randwrite \
			--bs=4k --iodepth=32 --size="$cap" --output=/tmp/gc.out ;;
		3) check "pass $p: random 4K" fio --name=rnd4b $common --rw=randwrite \
			--bs=4k --iodepth=32 --size="$cap" --output=/tmp/gc.out ;;
		esac || { cat /tmp/gc.out; return 1; }
		p=$((p + 1))
	done
	gc_run_checks gc_integrity
	# idle time must not turn into copies (it once gave 31 here)
	check "write amplification < 8" [ "$(value waf_milli "$DBG/stats")" -lt 8000 ]
	check "no device errors" [ "$(value nvme_io_errors "$DBG/stats")" = 0 ]
	check "rmmod" unload_nvmev
}
