#!/bin/sh
# The guest half of `make experiments` (busybox sh, sourced by tests.sh).

# The README's main job: an ext4 file system on the device, a fio run,
# then the drive's geometry and per-die statistics.
# tiers: none (run by name only)
test_demo() {
	check "insmod" load_nvmev || return 1
	check "mkfs.ext4" mkfs.ext4 -q -F /dev/nvme0n1
	check "mount" mount -t ext4 /dev/nvme0n1 /mnt
	check "fio" fio --name=demo --directory=/mnt --size=64M --bs=128k --rw=write \
		--ioengine=libaio --iodepth=16 --direct=1 --output=/tmp/fio.out
	check "fio read" fio --name=demo --directory=/mnt --size=64M --bs=4k --rw=randread \
		--ioengine=libaio --iodepth=32 --direct=1 --number_ios=20000 --output=/tmp/fio2.out
	df -h /mnt | tail -1
	grep -E "WRITE:|READ:" /tmp/fio.out /tmp/fio2.out | sed 's/^.*out: *//'
	echo "== /sys/kernel/debug/nvmev/geometry"
	cat "$DBG/geometry"
	echo "== /sys/kernel/debug/nvmev/stats"
	cat "$DBG/stats"
	check "umount" umount /mnt
	check "rmmod" unload_nvmev
}
