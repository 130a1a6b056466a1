#!/bin/sh
# Guest tests of drives made at run time (busybox sh, sourced by tests.sh):
# /sys/kernel/config/nvmev/NAME is a drive whose attributes are the
# parameter tables' rows; writing 1 to its power creates it next to the
# drive the module parameters made, on a PCI domain of its own.

# drive_mk NAME ATTR=VALUE...: a drive directory with those values
drive_mk() {
	dm_dir=$CFS/$1
	shift
	mkdir "$dm_dir" || return 1
	for dm_kv in "$@"; do
		echo "${dm_kv#*=}" >"$dm_dir/${dm_kv%%=*}" || return 1
	done
}

# drive_disk NAME: the host's block device of the drive's namespace, found
# by the NGUID (the PCI domain is its last bytes; nvmev_admin.c), once the
# nvme driver has it (at most 20 s)
drive_disk() {
	dd_dom=$(printf '%016x' "$(cat "$CFS/$1/pci_domain")")
	dd_i=0
	while [ $dd_i -lt 200 ]; do
		for dd_w in /sys/block/nvme*n*/wwid; do
			[ -e "$dd_w" ] || continue
			dd_n=${dd_w#/sys/block/}
			dd_n=${dd_n%/wwid}
			case $dd_n in *c*) continue ;; esac # a multipath path, not the disk
			if grep -q "$dd_dom\$" "$dd_w" && true <"/dev/$dd_n" 2>/dev/null; then
				echo "/dev/$dd_n"
				return 0
			fi
		done
		sleep 0.1
		dd_i=$((dd_i + 1))
	done
	return 1
}

# Two drives of different geometry made through configfs next to the
# module's: each on its own PCI domain with its own debugfs directory and
# thread, its namespace of the size and LBA format it was given;
# crc-verified I/O on both at once, each counting only its own; powered
# off they leave the bus and give their memory blocks back.
# tiers: stock
test_drives_configfs() {
	mount_configfs
	check "insmod" load_nvmev || return 1
	check "configfs directory" [ -d "$CFS" ] || return 1
	blocks=$(memory_blocks)
	check "mkdir a" drive_mk a channels=2 dies_per_channel=1 capacity_mib=128 lba_bytes=512 ||
		return 1
	check "mkdir b" drive_mk b channels=8 dies_per_channel=2 capacity_mib=256 \
		lba_bytes=4096 || return 1
	check "a powered off at first" [ "$(cat "$CFS/a/power")" = 0 ]
	check "power a" sh -c "echo 1 >$CFS/a/power" || return 1
	check "power b" sh -c "echo 1 >$CFS/b/power" || return 1
	a=$(drive_disk a)
	b=$(drive_disk b)
	echo "drives_configfs: a is $a (domain $(cat "$CFS/a/pci_domain")), b is $b (domain $(cat "$CFS/b/pci_domain"))"
	check "a's namespace" [ -n "$a" ] || return 1
	check "b's namespace" [ -n "$b" ] || return 1
	check "a: 2 dies" [ "$(value dies /sys/kernel/debug/nvmev-a/geometry)" = 2 ]
	check "b: 16 dies" [ "$(value dies /sys/kernel/debug/nvmev-b/geometry)" = 16 ]
	check "the module's drive: 8 dies" [ "$(value dies "$DBG/geometry")" = 8 ]
	check "a: 512-byte LBAs" [ "$(blockdev --getss "$a")" = 512 ]
	check "b: 4 KiB LBAs" [ "$(blockdev --getss "$b")" = 4096 ]
	check "a: 128 MiB" [ "$(blockdev --getsize64 "$a")" = $((128 << 20)) ]
	check "b: 256 MiB" [ "$(blockdev --getsize64 "$b")" = $((256 << 20)) ]
	check "a thread each" sh -c "grep -qx nvmev-a /proc/*/comm && grep -qx nvmev-b /proc/*/comm"
	check "two more memory blocks" [ "$(memory_blocks)" = $((blocks - 2)) ]
	base=$(value nvme_write "$DBG/stats")
	fio_verify "$a" 32M >/tmp/fio.a 2>&1 &
	fa=$!
	check "fio verify on b" fio_verify "$b" 32M
	check "fio verify on a, at the same time" wait $fa || tail -5 /tmp/fio.a
	check "a counted its writes" [ "$(value nvme_write /sys/kernel/debug/nvmev-a/stats)" -gt 0 ]
	check "b counted its writes" [ "$(value nvme_write /sys/kernel/debug/nvmev-b/stats)" -gt 0 ]
	check "the module's drive none" [ "$(value nvme_write "$DBG/stats")" = "$base" ]
	check "power a off" sh -c "echo 0 >$CFS/a/power"
	check "a gone from the host" sh -c "! [ -e $a ] && ! [ -d /sys/kernel/debug/nvmev-a ]"
	check "b still works" fio_verify "$b" 8M
	drives_clean
	check "directories gone" sh -c "! [ -e $CFS/a ] && ! [ -e $CFS/b ]"
	check "memory blocks back" [ "$(memory_blocks)" = "$blocks" ]
	check "the module's drive still works" fio_verify /dev/nvme0n1 8M
}

# With default_drive=0 the module makes no drive at load, only configfs
# ones, which start from the module parameters' values.
# tiers: stock
test_drives_only_configfs() {
	mount_configfs
	# shellcheck disable=SC2086 # the parameters, split on purpose
	check "insmod default_drive=0" insmod /modules/nvmev.ko default_drive=0 channels=2 || return 1
	check "no drive at load" sh -c "! [ -e /dev/nvme0 ] && ! [ -d $DBG ]"
	check "mkdir" drive_mk only capacity_mib=64 || return 1
	check "a module parameter's value" [ "$(cat "$CFS/only/channels")" = 2 ]
	check "power" sh -c "echo 1 >$CFS/only/power" || return 1
	d=$(drive_disk only)
	check "its namespace" [ -n "$d" ] && check "fio verify" fio_verify "$d" 8M
	check "rmmod refused while it exists" sh -c "! rmmod nvmev"
	drives_clean
}

# Bad input: each refused with its errno and one log line, nothing made
# by halves, and the drives already there untouched.
# tiers: stock
test_drives_bad_input() {
	mount_configfs
	check "insmod" load_nvmev || return 1
	blocks=$(memory_blocks)
	dmesg -c >/dev/null
	check "a bad name" fails_with "Invalid argument" mkdir "$CFS/bad:name"
	check "logged" sh -c "dmesg | grep -q 'drive name \"bad:name\"'"
	check "mkdir x" drive_mk x capacity_mib=64 || return 1
	check "a duplicate name" fails_with "File exists" mkdir "$CFS/x"
	check "not a number" fails_with "Invalid argument" sh -c "echo 12x >$CFS/x/channels"
	check "logged" sh -c "dmesg | grep -q 'drive x: channels: \"12x\" is not an unsigned number'"
	check "the value kept" [ "$(cat "$CFS/x/channels")" = 4 ]
	# a geometry the model refuses: the same check and line as at insmod
	echo 0 >"$CFS/x/channels"
	dmesg -c >/dev/null
	check "a bad geometry refused at power on" fails_with "Invalid argument" sh -c "echo 1 >$CFS/x/power"
	check "logged" sh -c "dmesg | grep -q 'channels=0 is out of range'"
	check "still off" [ "$(cat "$CFS/x/power")" = 0 ]
	check "no memory block kept" [ "$(memory_blocks)" = "$blocks" ]
	check "no debugfs directory left" [ ! -e /sys/kernel/debug/nvmev-x ]
	echo 4 >"$CFS/x/channels"
	check "power on after the fix" sh -c "echo 1 >$CFS/x/power" || return 1
	x=$(drive_disk x)
	check "its namespace" [ -n "$x" ]
	dmesg -c >/dev/null
	check "a value of a powered drive" fails_with "Device or resource busy" sh -c "echo 8 >$CFS/x/channels"
	check "logged" sh -c "dmesg | grep -q 'drive x: channels cannot change while the drive is powered on'"
	check "rmdir of a powered drive" fails_with "Device or resource busy" rmdir "$CFS/x"
	# a PCI domain taken by another drive: refused, the other untouched
	check "mkdir y" drive_mk y capacity_mib=64 || return 1
	cat "$CFS/x/pci_domain" >"$CFS/y/pci_domain"
	dmesg -c >/dev/null
	check "a PCI domain in use" fails_with "File exists" sh -c "echo 1 >$CFS/y/power"
	check "logged" sh -c "dmesg | grep -q 'drive y: PCI domain .* is in use'"
	check "y still off" [ "$(cat "$CFS/y/power")" = 0 ]
	check "x still works" fio_verify "$x" 8M
	rmdir "$CFS/y"
	# as many drives as allowed, and one more
	n=0
	while mkdir "$CFS/n$n" 2>/tmp/mkdir.err; do n=$((n + 1)); done
	check "a limit on drives" grep -q "No space left on device" /tmp/mkdir.err
	echo "drives_bad_input: $n more directories made before the limit"
	check "16 drives in all" [ $((n + 1)) = 16 ]
	check "x survives it all" fio_verify "$x" 8M
	drives_clean
	check "memory blocks back" [ "$(memory_blocks)" = "$blocks" ]
}
