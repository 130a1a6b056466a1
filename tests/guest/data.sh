#!/bin/sh
# Guest tests of what the namespace's data reads back as (busybox sh,
# sourced by tests.sh): blocks never written or deallocated read as zeroes
# (Identify Namespace DLFEAT=1), whatever a memmap= reservation kept
# from an earlier load; and deallocation of the whole drive, many times
# over in one command, finishes without stalling the controller.

# read_at OFFSET LENGTH FILE: LENGTH bytes of the namespace at byte
# OFFSET (both multiples of 512) into FILE, bypassing the page cache
read_at() {
	dd if=/dev/nvme0n1 of="$3" bs=64k skip="$1" count="$2" \
		iflag=direct,skip_bytes,count_bytes 2>/dev/null
}

# write_at OFFSET FILE: FILE (a multiple of 512 bytes) to the namespace at
# byte OFFSET
write_at() {
	dd if="$2" of=/dev/nvme0n1 bs=64k seek="$1" oflag=direct,seek_bytes conv=notrunc \
		2>/dev/null
}

# zeroes_at OFFSET LENGTH: the namespace holds zeroes there
zeroes_at() {
	read_at "$1" "$2" /tmp/data.r && cmp -n "$2" /tmp/data.r /dev/zero
}

# holds_at OFFSET FILE: the namespace holds FILE at byte OFFSET
holds_at() {
	read_at "$1" "$(wc -c <"$2")" /tmp/data.r && cmp /tmp/data.r "$2"
}

# random FILE BYTES
random() { head -c "$2" /dev/urandom >"$1"; }

# zeroout blkdiscard-ARGS...: Write Zeroes (BLKZEROOUT) with util-linux's
# blkdiscard -z; by its path, or the shell runs busybox's, which has no -z
zeroout() { /bin/blkdiscard -z "$@"; }

# 512-byte LBAs (the default), so that writes and deallocations can cover
# part of a 4 KiB mapping unit. Data written before a reload must read as
# zeroes after it; a sector written into a unit nobody wrote leaves the
# other seven zero; one written into a written unit keeps them.
# tiers: stock memmap
test_zero_reads() {
	m=1048576
	random /tmp/data.a $((64 * 1024))
	random /tmp/data.s 512
	random /tmp/data.p 16384
	check "insmod" load_nvmev lba_bytes=512 || return 1
	check "write 64 KiB at 1 MiB" write_at $m /tmp/data.a
	check "write 16 KiB at 3 MiB" write_at $((3 * m)) /tmp/data.p
	check "read back" holds_at $m /tmp/data.a
	check "rmmod" unload_nvmev
	check "insmod again" load_nvmev lba_bytes=512 || return 1
	check "written before the reload: zeroes" zeroes_at $m $((64 * 1024))
	check "never written: zeroes" zeroes_at $((100 * m)) $m
	check "last MiB never written: zeroes" \
		zeroes_at $(($(cat /sys/block/nvme0n1/size) * 512 - m)) $m
	# one sector into a unit that held data before the reload
	check "write sector 1 of a unit" write_at $((m + 512)) /tmp/data.s
	head -c 512 /dev/zero >/tmp/data.e
	cat /tmp/data.s >>/tmp/data.e
	head -c 3072 /dev/zero >>/tmp/data.e
	check "the unit's other sectors read as zeroes" holds_at $m /tmp/data.e
	# one sector into a written unit: the rest of it stays
	check "write a unit" write_at $((2 * m)) /tmp/data.p
	check "write sector 2 of it" write_at $((2 * m + 1024)) /tmp/data.s
	{ head -c 1024 /tmp/data.p; cat /tmp/data.s; tail -c +1537 /tmp/data.p; } >/tmp/data.e
	check "written unit keeps its other sectors" holds_at $((2 * m)) /tmp/data.e
	# deallocate and write zeroes over part of a unit, a unit, part of one
	for how in discard zeroes; do
		o=$((4 * m))
		[ $how = zeroes ] && o=$((5 * m))
		check "$how: write 16 KiB" write_at $o /tmp/data.p
		if [ $how = discard ]; then
			check "$how: 8 KiB from sector 2" blkdiscard -o $((o + 1024)) -l 8192 /dev/nvme0n1
		else
			check "$how: 8 KiB from sector 2" zeroout -o $((o + 1024)) -l 8192 /dev/nvme0n1
		fi
		{ head -c 1024 /tmp/data.p; head -c 8192 /dev/zero; tail -c +9217 /tmp/data.p; } \
			>/tmp/data.e
		check "$how: zeroes there, data around" holds_at $o /tmp/data.e
	done
	check "discard 1 MiB" blkdiscard -o $m -l $m /dev/nvme0n1
	check "discarded: zeroes" zeroes_at $m $m
	check "rmmod" unload_nvmev
	# 4 KiB LBAs over the storage the 512-byte load wrote
	check "insmod, 4 KiB LBAs" load_nvmev lba_bytes=4096 || return 1
	check "4 KiB LBAs: zeroes" zeroes_at 0 $((8 * m))
	check "4 KiB LBAs: write and read" write_at $((3 * m)) /tmp/data.p
	check "4 KiB LBAs: read back" holds_at $((3 * m)) /tmp/data.p
	check "rmmod" unload_nvmev
}

# bg_fio_start: QD1 4 KiB random reads over the whole namespace until
# bg_fio_stop, results (terse v3) in /tmp/data.fio
bg_fio_start() {
	fio --name=bg --filename=/dev/nvme0n1 --rw=randread --bs=4k --ioengine=psync \
		--direct=1 --time_based --runtime=600 --eta=never --output-format=terse --terse-version=3 \
		--output=/tmp/data.fio &
	bg_fio=$!
	sleep 2
}

# bg_fio_stop: end the reads; prints their count and largest completion
# latency in microseconds (terse fields 6 and 15: read KiB, clat max)
bg_fio_stop() {
	kill -INT "$bg_fio"
	wait "$bg_fio"
	awk -F';' '/^3;/ { print int($6 / 4), int($15) }' /tmp/data.fio
}

# dsm_whole N: one Dataset Management command, N ranges each the whole
# namespace (512-byte LBAs)
dsm_whole() {
	nlb=$(cat /sys/block/nvme0n1/size)
	s=0
	b=$nlb
	i=1
	while [ "$i" -lt "$1" ]; do
		s=$s,0
		b=$b,$nlb
		i=$((i + 1))
	done
	nvme dsm /dev/nvme0n1 --namespace-id=1 --ad --slbs=$s --blocks="$b"
}

# dsm_many N: N dsm_whole 64 at once; all succeed
dsm_many() {
	pids=
	i=0
	while [ "$i" -lt "$1" ]; do
		dsm_whole 64 >/tmp/data.dsm.$i 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	ret=0
	for p in $pids; do
		wait "$p" || ret=1
	done
	return $ret
}

# The whole drive deallocated (blkdiscard), zeroed (blkdiscard -z: Write
# Zeroes) and deallocated 256 times in one command, while QD1 reads run:
# every command completes, no read waits for a second, no nvme timeout
# (run_tests adds soft lockups, RCU stalls and hung tasks). Then 20 such
# commands at once, more than the controller holds.
# tiers: stock
test_discard_bounded() {
	check "insmod" load_nvmev lba_bytes=512 || return 1
	from=$(wc -l </tmp/kernel.log)
	check "write 64 MiB" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	bg_fio_start
	t0=$(uptime_s)
	check "blkdiscard" blkdiscard /dev/nvme0n1
	t1=$(uptime_s)
	check "blkdiscard -z" zeroout /dev/nvme0n1
	t2=$(uptime_s)
	check "dsm: 256 ranges of the whole namespace" dsm_whole 256
	t3=$(uptime_s)
	bg_fio_stop >/tmp/data.lat
	read -r reads clat_max_us </tmp/data.lat
	echo "discard_bounded: blkdiscard $((t1 - t0)) s, blkdiscard -z $((t2 - t1)) s," \
		"dsm 256 x namespace $((t3 - t2)) s; meanwhile $reads reads, max clat ${clat_max_us} us"
	check "reads went on" [ "${reads:-0}" -gt 0 ]
	check "max read clat < 1 s" [ "${clat_max_us:-1000000}" -lt 1000000 ]
	# more long ones at once than the controller holds (NVMEV_HELD_TRIMS);
	# DSM_MANY: fewer in the debug tier, where each unit unmapped costs
	# ~20 x more (KASAN)
	check "${DSM_MANY:-20} dsm commands at once" dsm_many "${DSM_MANY:-20}"
	check "zeroes" zeroes_at 0 $((64 * 1048576))
	check "nothing left mapped" [ "$(awk '/^[0-9]/ { s += $14 } END { print s }' "$DBG/stats")" = 0 ]
	check "no nvme timeout" sh -c "! tail -n +$((from + 1)) /tmp/kernel.log | grep -i 'timeout'"
	check "rmmod" unload_nvmev
}
