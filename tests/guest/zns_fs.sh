#!/bin/sh
# Guest tests of file systems on a zoned namespace (busybox sh, sourced
# by tests.sh): f2fs and btrfs, which write zones sequentially
# themselves, on the drive zns_drive makes.

# zns_fs_verify FS DEV: the file system FS, mounted from DEV at /mnt/FS:
# crc-verified fio files, an 8 MiB file read back identical after a
# remount; left unmounted, with the zones of $Z2 it holds in $fs_zones
zns_fs_verify() {
	mkdir -p "/mnt/$1"
	check "mount" mount -t "$1" "$2" "/mnt/$1" || return 1
	check "fio verify on $1" fio --name="$1" --directory="/mnt/$1" --size=24M --nrfiles=4 \
		--rw=randwrite --bsrange=4k-64k --ioengine=psync --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --eta=never
	dd if=/dev/urandom of=/tmp/fsfile bs=1M count=8 2>/dev/null
	check "a file written" sh -c "cp /tmp/fsfile /mnt/$1/file && sync" || df "/mnt/$1"
	check "umount" umount "/mnt/$1"
	check "mount again" mount -t "$1" "$2" "/mnt/$1"
	check "the file read back" cmp /tmp/fsfile "/mnt/$1/file"
	check "umount again" umount "/mnt/$1"
	fs_zones=$(blkzone report "$Z2" | grep -vc '1(em)')
	echo "zns_$1: $fs_zones of 24 zones hold $1's data"
}

# f2fs on the zoned namespace, its metadata on the same drive's
# conventional one (mkfs.f2fs -m -c ZONED CONVENTIONAL; no open limit:
# f2fs keeps six logs open): crc-verified files, a file read back
# identical after a remount, the zones holding f2fs's data, fsck clean.
# Zone capacity is the zone size here: with less, the same files verify,
# but Debian 12's fsck.f2fs (1.15) then finds a free segment count other
# than the kernel's checkpoint says (an fsck/kernel disagreement over the
# unusable segments past each zone's capacity).
# desc: f2fs on the zoned namespace: verified files, remount, fsck clean
# tiers: stock
test_zns_f2fs() {
	requires_zoned || return
	check "insmod" load_nvmev || return 1
	check "a drive with a zoned namespace" zns_drive 0 0 8 || { drives_clean; return 1; }
	check "mkfs.f2fs" mkfs.f2fs -f -m -c "$Z2" "$Z1" || { drives_clean; return 1; }
	zns_fs_verify f2fs "$Z1" || { drives_clean; return 1; }
	check "the zones hold f2fs's data" [ "$fs_zones" -ge 2 ]
	check "fsck.f2fs" fsck.f2fs -f --dry-run "$Z1" || grep FSCK /tmp/check.out
	drives_clean
	check "rmmod" unload_nvmev
}

# load_btrfs: btrfs and what it needs, which init.sh leaves out
load_btrfs() {
	while read -r lb_m; do
		grep -q "^$lb_m " /proc/modules || insmod "/modules/$lb_m.ko" || return 1
	done </modules/order-btrfs
	grep -q '^btrfs ' /proc/modules
}

# btrfs on the zoned namespace alone: mkfs.btrfs takes the host-managed
# disk as zoned (its superblock log in the first two zones, each block
# group one zone, data written by Zone Append): crc-verified files, a file
# read back identical after a remount, the zones holding btrfs's data,
# btrfs check clean.
# desc: btrfs on the zoned namespace: verified files, remount, check clean
# tiers: stock
test_zns_btrfs() {
	requires_zoned || return
	check "btrfs modules" load_btrfs || return 1
	check "insmod" load_nvmev || return 1
	check "a drive with a zoned namespace" zns_drive 0 0 8 || { drives_clean; return 1; }
	check "mkfs.btrfs" mkfs.btrfs -f -d single -m single "$Z2" || { drives_clean; return 1; }
	grep -i zoned /tmp/check.out | sed 's/^/zns_btrfs: mkfs: /'
	zns_fs_verify btrfs "$Z2" || { drives_clean; return 1; }
	check "the zones hold btrfs's data" [ "$fs_zones" -ge 3 ]
	check "btrfs check" btrfs check "$Z2" || tail -5 /tmp/check.out
	drives_clean
	check "rmmod" unload_nvmev
}
