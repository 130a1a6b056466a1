#!/bin/sh
# Guest tests of the patched kernel's placement hints through ext4
# (host patches 1-3; busybox sh, sourced by tests.sh), and the paper's
# file-system workloads of experiments/ext4/run.sh.

# chunk_lba FILE CHUNK_BYTES K [START_SECTOR]: device LBA (512 B) of the
# first block of chunk K of FILE, from filefrag -e (4 KiB blocks)
chunk_lba() {
	awk -v blk=$(( $2 * $3 / 4096 )) -v start="${4:-0}" -F'[:. ]+' '
		/^ *[0-9]+:/ { lo = $3; hi = $4; p = $5
			if (blk >= lo && blk <= hi) { printf "%d\n", (p + blk - lo) * 8 + start; exit } }' \
		/tmp/frag.out
}

# loc_of LBA: sets $d, $b, $o to the die, erase block and unit offset
# holding the LBA
loc_of() {
	echo "$1" >"$DBG/locate"
	# shellcheck disable=SC2046 # three numbers, split on purpose
	set -- $(sed -n 's/.* die=\([0-9]*\) block=\([0-9]*\) offset=\([0-9]*\).*/\1 \2 \3/p' "$DBG/locate")
	# shellcheck disable=SC2034 # b and o are read by the ext4 tests
	d=$1 b=$2 o=$3
}

# chunks_continue FILE CHUNK_BYTES N [START_SECTOR [FIRST]]: chunks FIRST
# (default 1) to N-1 each start on the die after the one holding the
# previous chunk's last block (or the die after that, when the chunk fits
# whole only there), or continue, in the very next slot, the granule that
# block left open
chunks_continue() {
	filefrag -e "$1" >/tmp/frag.out || return 1
	k=${5:-1}
	while [ "$k" -lt "$3" ]; do
		# the previous chunk's last 4 KiB block, looked up on its own: ext4
		# now and then splits an append over two extents, and that block is
		# then not where the previous chunk starts plus its length
		prev_last=$(chunk_lba "$1" 4096 $((k * $2 / 4096 - 1)) "${4:-0}")
		loc_of "$prev_last"
		# shellcheck disable=SC2154 # set by loc_of
		d0=$d b0=$b o0=$o
		loc_of "$(chunk_lba "$1" "$2" "$k" "${4:-0}")"
		# the next die (or the one after), or the very next slot of the
		# previous block's die (it continued a granule left open)
		if [ "$d" != $(( (d0 + 1) % 8 )) ] && [ "$d" != $(( (d0 + 2) % 8 )) ] &&
			! { [ "$d" = "$d0" ] && [ "$b" = "$b0" ] && [ "$o" = $((o0 + 1)) ]; }; then
			echo "chunk $k: die $d block $b unit $o after die $d0 block $b0 unit $o0"
			cat /tmp/frag.out
			return 1
		fi
		k=$((k + 1))
	done
}

# worst_append FILE N [DIRECT]: N x { append 32 KiB to FILE; 224 KiB to a
# new dummy file }, each synced: without hints every chunk lands on one die
worst_append() {
	i=0
	while [ $i -lt "$2" ]; do
		if [ "${3:-}" = direct ]; then
			dd if=/dev/urandom of="$1" bs=32k count=1 seek=$i conv=notrunc oflag=direct 2>/dev/null
		else
			dd if=/dev/urandom of="$1" bs=32k count=1 seek=$i conv=notrunc,fsync 2>/dev/null
		fi || return 1
		dd if=/dev/urandom of="$(dirname "$1")/dummy$i" bs=32k count=7 conv=fsync 2>/dev/null || return 1
		i=$((i + 1))
	done
}

# mkfs_mount [mount options]: the paper's ext4 set-up on the namespace
mkfs_mount() {
	mkfs.ext4 -q -F -m 0 -b 4096 /dev/nvme0n1 && mount -t ext4 ${1:+-o "$1"} /dev/nvme0n1 /mnt
}

# desc: the patched nvme driver enables the device's hint feature
# tiers: patched debug_long
test_ext4_hints_kernel() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	nvmev-hint info /dev/nvme0n1 >/tmp/info.out
	check "the kernel enabled hints" json_true enabled
	check "kernel says so" sh -c 'dmesg | grep -q "placement hints enabled"'
	check "mkfs+mount" mkfs_mount
	check "ext4 switch on" [ "$(cat /sys/fs/ext4/nvme0n1/placement_hints)" = 1 ]
	# both switches take a boolean and refuse anything else, unchanged
	for v in 2 4294967297 -1 on ""; do
		check "ext4 switch refuses '$v'" bad_write /sys/fs/ext4/nvme0n1/placement_hints "$v"
	done
	for v in 2 maybe ""; do
		check "nvme switch refuses '$v'" bad_write \
			/sys/module/nvme_core/parameters/placement_hints "$v"
	done
	check "nvme switch still on" [ "$(cat /sys/module/nvme_core/parameters/placement_hints)" = Y ]
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# desc: ext4 appends carry hints and continue die by die (nodelalloc)
# tiers: patched debug_long
test_ext4_append() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	check "mkfs+mount nodelalloc" mkfs_mount nodelalloc
	echo 1 >"$DBG/stats_reset"
	check "worst-case appends" worst_append /mnt/f 16
	grep -E '^hint_(append|honoured|ignored_unmapped)=' "$DBG/stats"
	check "appends hinted" [ "$(value hint_append "$DBG/stats")" -ge 15 ]
	check "chunks continue die by die" chunks_continue /mnt/f 32768 16
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# desc: ext4 appends with delalloc continue die by die
# tiers: patched
test_ext4_append_delalloc() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	check "mkfs+mount delalloc" mkfs_mount
	check "worst-case appends" worst_append /mnt/f 16
	check "chunks continue die by die" chunks_continue /mnt/f 32768 16
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# desc: direct-I/O appends through ext4 continue die by die
# tiers: patched debug_long
test_ext4_dio() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	check "mkfs+mount" mkfs_mount nodelalloc
	check "direct appends" worst_append /mnt/f 16 direct
	check "chunks continue die by die" chunks_continue /mnt/f 32768 16
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# desc: ext4 overwrites carry hints and stay on their dies
# tiers: patched debug_long
test_ext4_overwrite() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	check "mkfs+mount" mkfs_mount nodelalloc
	check "file" dd if=/dev/urandom of=/mnt/f bs=32k count=8 conv=fsync
	filefrag -e /mnt/f >/tmp/frag.out
	before=""
	for k in 0 1 2 3 4 5 6 7; do before="$before$(die_of "$(chunk_lba /mnt/f 32768 $k)")"; done
	echo 1 >"$DBG/stats_reset"
	for k in 3 5 3 1; do
		check "overwrite $k" dd if=/dev/urandom of=/mnt/f bs=32k count=1 seek=$k conv=notrunc,fsync
		check "other data" dd if=/dev/urandom of=/mnt/d$k bs=32k count=7 conv=fsync
	done
	filefrag -e /mnt/f >/tmp/frag.out
	after=""
	for k in 0 1 2 3 4 5 6 7; do after="$after$(die_of "$(chunk_lba /mnt/f 32768 $k)")"; done
	echo "chunk dies before $before, after overwrites $after"
	check "overwrites hinted" [ "$(value hint_overwrite "$DBG/stats")" -ge 4 ]
	check "dies unchanged" [ "$before" = "$after" ]
	check "reads carry no hints" sh -c "cat /mnt/f >/dev/null; echo 3 >/proc/sys/vm/drop_caches; cat /mnt/f >/dev/null; [ \$(sed -n 's/^hint_ignored_opcode=//p' $DBG/stats) = 0 ]"
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# Data integrity under GC with hints off and on: on a 64 MiB drive (7 %
# over-provisioning) ext4 files are rewritten 3 x the capacity -- appends
# and overwrites, so both hint kinds steer placement -- with fio verifying
# every block, then e2fsck.
# desc: ext4 data survives GC with hints off and on (fio verify, e2fsck)
# tiers: patched debug_long
test_ext4_gc_integrity() {
	requires_patched || return
	for h in 0 1; do
		check "insmod" load_nvmev capacity_mib=64 op_percent=7 || return 1
		check "mkfs+mount" mkfs_mount nodelalloc || return 1
		echo "$h" >/sys/fs/ext4/nvme0n1/placement_hints
		# 4 files of 10 MiB written out by fio (appends), then 4 more
		# passes of random overwrites, each block once per pass
		for pass in 1 2 3 4 5; do
			check "hints=$h pass $pass: fio verify" fio --name=gc --directory=/mnt \
				--nrfiles=4 --filesize=10M --size=40M --fallocate=none \
				--rw=randwrite --bsrange=4k-64k --ioengine=psync --fsync=16 \
				--verify=crc32c --verify_backlog=256 --verify_fatal=1 \
				--output=/tmp/fio.out || { tail -20 /tmp/fio.out; return 1; }
		done
		gc_run_checks "ext4_gc_integrity hints=$h"
		if [ "$h" = 1 ]; then
			check "hints sent" [ "$(value hint_overwrite "$DBG/stats")" -gt 0 ]
		else
			check "no hints sent" [ "$(value hint_overwrite "$DBG/stats")" = 0 ]
		fi
		check "umount" umount /mnt
		check "hints=$h: fsck" e2fsck -fn /dev/nvme0n1
		check "rmmod" unload_nvmev
	done
}

# Writes split by the block layer (max_sectors_kb lowered to 128 KiB): a
# 1 MiB direct append becomes 8 requests, and each piece must continue
# where the previous one ended.
# desc: a 1 MiB append split into 128 KiB requests continues piece by piece
# tiers: patched debug_long
test_ext4_split() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	check "mkfs+mount" mkfs_mount nodelalloc
	check "128 KiB requests" sh -c 'echo 128 >/sys/block/nvme0n1/queue/max_sectors_kb'
	check "first MiB" dd if=/dev/urandom of=/mnt/f bs=1M count=1 oflag=direct
	check "other data" dd if=/dev/urandom of=/mnt/d bs=32k count=3 conv=fsync
	echo 1 >"$DBG/stats_reset"
	check "1 MiB append" dd if=/dev/urandom of=/mnt/f bs=1M count=1 seek=1 oflag=direct conv=notrunc
	grep -E '^(hint_append|hint_honoured|nvme_write)=' "$DBG/stats" | tr '\n' ' '
	echo
	check "split into 8" [ "$(value nvme_write "$DBG/stats")" = 8 ]
	check "8 hinted pieces" [ "$(value hint_honoured "$DBG/stats")" = 8 ]
	check "granules continue" chunks_continue /mnt/f 32768 64 0 32
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# A partition 1 MiB into the device: hint LBAs are shifted like data LBAs.
# desc: hint LBAs on a partition are shifted like data LBAs
# tiers: patched debug_long
test_ext4_partition() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	check "partition" sh -c 'echo "2048,,L" | sfdisk -q /dev/nvme0n1'
	i=0
	while [ ! -b /dev/nvme0n1p1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	check "mkfs" mkfs.ext4 -q -F -m 0 -b 4096 /dev/nvme0n1p1
	check "mount" mount -t ext4 -o nodelalloc /dev/nvme0n1p1 /mnt
	echo 1 >"$DBG/stats_reset"
	check "worst-case appends" worst_append /mnt/f 12
	check "no hint points outside" [ "$(value hint_ignored_unmapped "$DBG/stats")" = 0 ]
	check "chunks continue (offset 2048)" chunks_continue /mnt/f 32768 12 2048
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# desc: ext4's and the nvme driver's switches each turn the hints off
# tiers: patched
test_ext4_hints_off() {
	requires_patched || return
	check "insmod" load_nvmev || return 1
	check "mkfs+mount" mkfs_mount nodelalloc
	echo 0 >/sys/fs/ext4/nvme0n1/placement_hints
	echo 1 >"$DBG/stats_reset"
	check "appends" worst_append /mnt/f 8
	check "ext4 switch: no hints" [ "$(value hint_append "$DBG/stats")" = 0 ]
	echo 1 >/sys/fs/ext4/nvme0n1/placement_hints
	echo N >/sys/module/nvme_core/parameters/placement_hints
	check "more appends" worst_append /mnt/g 8
	check "nvme switch: no hints" [ "$(value hint_append "$DBG/stats")" = 0 ]
	echo Y >/sys/module/nvme_core/parameters/placement_hints
	check "and back on" worst_append /mnt/h 8
	check "hints again" [ "$(value hint_append "$DBG/stats")" -ge 7 ]
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}

# The paper's ext4 set-up: 4 KiB blocks, no reserved blocks, the journal
# on a separate device (a RAM disk) so that only data reaches the drive,
# nodelalloc, and mb_stream_req so high that every file uses the shared
# preallocation (interleaved files end up physically interleaved).
# (mkfs.ext4, not mke2fs: busybox sh runs its own applet for that name.)
ext4_paper_fs() {
	mkfs.ext4 -q -F -O journal_dev -b 4096 /dev/ram0 >/tmp/mkfs.out 2>&1 &&
		mkfs.ext4 -q -F -m 0 -b 4096 -E lazy_itable_init=0 -J device=/dev/ram0 \
			/dev/nvme0n1 >>/tmp/mkfs.out 2>&1 &&
		mount -t ext4 -o nodelalloc /dev/nvme0n1 /mnt &&
		echo 1000000 >/sys/fs/ext4/nvme0n1/mb_stream_req &&
		echo 128 >/sys/block/nvme0n1/queue/max_sectors_kb &&
		echo 0 >/proc/sys/vm/dirty_writeback_centisecs &&
		echo 360000 >/proc/sys/vm/dirty_expire_centisecs
}
