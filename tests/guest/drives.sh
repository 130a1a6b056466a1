#!/bin/sh
# Guest tests of drives made at run time (busybox sh, sourced by tests.sh):
# /sys/kernel/config/nvmev/NAME is a drive whose attributes are the
# parameter tables' rows; writing 1 to its power creates it next to the
# drive the module parameters made, on a PCI domain of its own.

# smart_writes CTRL NSID: Host Write Commands (bytes 80-87) of the
# SMART/Health log of that NSID
smart_writes() {
	nvme smart-log "$1" --namespace-id="$2" -b >/tmp/smart.ns &&
		od -An -tu8 -j 80 -N 8 /tmp/smart.ns | tr -d ' '
}

# ns_value NAME NSID COLUMN: a namespace's figure in debugfs "namespaces"
ns_value() {
	awk -v nsid="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 1 && $1 == nsid { print $c[col] }' "/sys/kernel/debug/nvmev-$1/namespaces"
}

# Two drives of different geometry made through configfs next to the
# module's: each on its own PCI domain with its own debugfs directory and
# thread, its namespace of the size and LBA format it was given;
# crc-verified I/O on both at once, each counting only its own; powered
# off they leave the bus and give their memory blocks back.
# desc: two configfs drives beside the module's: own domain, I/O, teardown
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
# desc: default_drive=0: no drive at load, configfs drives from parameters
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
# desc: bad configfs input refused with its errno, nothing made by halves
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

# A drive of two namespaces (NSIDs 1 and 3) sharing its flash, each of its
# own size and LBA format: NN 3, NSID 2 inactive (zeroed Identify
# Namespace, no identifiers); crc-verified I/O on both at once, neither
# seeing the other's data; each counting its own writes, in debugfs and
# in the SMART log per NSID, whose sum is the controller's. Then the bad
# input: NSIDs out of range, changes of a powered drive's namespaces, an
# LBA format that does not exist, namespaces larger than the drive.
# desc: a drive of two namespaces sharing flash, each its own size and data
# tiers: stock
test_drives_namespaces() {
	mount_configfs
	check "insmod" load_nvmev || return 1
	blocks=$(memory_blocks)
	check "mkdir" drive_mk two capacity_mib=256 channels=2 dies_per_channel=2 || return 1
	nd=$CFS/two/namespaces
	check "namespace 1" sh -c "mkdir $nd/1 && echo 64 >$nd/1/size_mib" || return 1
	check "namespace 3: the rest, 4 KiB LBAs" sh -c "mkdir $nd/3 && echo 4096 >$nd/3/lba_bytes" ||
		return 1
	check "power" sh -c "echo 1 >$CFS/two/power" || return 1
	d1=$(drive_disk two 1)
	d3=$(drive_disk two 3)
	c=$(drive_ctrl two)
	echo "drives_namespaces: $c has $d1 and $d3"
	check "namespace 1's disk" [ -n "$d1" ] || return 1
	check "namespace 3's disk" [ -n "$d3" ] || return 1
	check "1: 64 MiB of 512 B" [ "$(blockdev --getsize64 "$d1"):$(blockdev --getss "$d1")" = $((64 << 20)):512 ]
	check "3: the other 192 MiB, of 4 KiB" \
		[ "$(blockdev --getsize64 "$d3"):$(blockdev --getss "$d3")" = $((192 << 20)):4096 ]
	check "NN 16: every NSID a create may take" sh -c "nvme id-ctrl $c | grep -q '^nn *: 16\$'"
	check "active list 1, 3" [ "$(nvme list-ns "$c" | sed 's/.*:0x//' | tr '\n' ' ')" = "1 3 " ]
	check "NSID 2: zeroed" sh -c "nvme id-ns $c --namespace-id=2 | grep -q '^nsze *: 0\$'"
	check "NSID 2: no identifiers" passthru 0x4002 admin-passthru "$c" --opcode=0x06 \
		--cdw10=3 --namespace-id=2 --data-len=4096 --read
	check "NSID 17: beyond NN" passthru 0x400b admin-passthru "$c" --opcode=0x06 \
		--namespace-id=17 --data-len=4096 --read
	check "SMART of NSID 2" passthru 0x400b admin-passthru "$c" --opcode=0x02 \
		--cdw10=0x007f0002 --namespace-id=2 --data-len=512 --read
	fio_verify "$d1" 32M >/tmp/fio.1 2>&1 &
	f1=$!
	check "fio verify on 3" fio_verify "$d3" 64M --offset=64M
	check "fio verify on 1, at the same time" wait $f1 || tail -5 /tmp/fio.1
	# the first MiB of each: a slice of its own, not the other's
	dd if=/dev/urandom of=/tmp/ns1 bs=1M count=1 2>/dev/null
	dd if=/dev/urandom of=/tmp/ns3 bs=1M count=1 2>/dev/null
	dd if=/tmp/ns1 of="$d1" bs=1M oflag=direct 2>/dev/null
	dd if=/tmp/ns3 of="$d3" bs=1M oflag=direct 2>/dev/null
	check "1 reads its own" sh -c "dd if=$d1 bs=1M count=1 iflag=direct 2>/dev/null | cmp - /tmp/ns1"
	check "3 reads its own" sh -c "dd if=$d3 bs=1M count=1 iflag=direct 2>/dev/null | cmp - /tmp/ns3"
	w1=$(ns_value two 1 writes)
	w3=$(ns_value two 3 writes)
	echo "drives_namespaces: writes: namespace 1 $w1, namespace 3 $w3"
	check "1 counted its writes" [ "$w1" -gt 0 ]
	check "3 counted its writes" [ "$w3" -gt 0 ]
	check "SMART of 1" [ "$(smart_writes "$c" 1)" = "$w1" ]
	check "SMART of 3" [ "$(smart_writes "$c" 3)" = "$w3" ]
	check "SMART of the controller: the sum" [ "$(smart_writes "$c" 4294967295)" = $((w1 + w3)) ]
	check "on the one drive's dies" [ "$(value nvme_write /sys/kernel/debug/nvmev-two/stats)" = \
		$((w1 + w3)) ]
	check "locate in 3" sh -c "echo '3 0' >/sys/kernel/debug/nvmev-two/locate &&
		grep -q '^lba=0 die=' /sys/kernel/debug/nvmev-two/locate"
	dmesg -c >/dev/null
	check "NSID 17" fails_with "Invalid argument" mkdir "$nd/17"
	check "logged" sh -c "dmesg | grep -q 'drive two: namespace \"17\": name it by its NSID, 1 to 16'"
	check "NSID 01" fails_with "Invalid argument" mkdir "$nd/01"
	check "a namespace added to a powered drive" fails_with "Device or resource busy" mkdir "$nd/2"
	check "logged" sh -c "dmesg | grep -q 'drive two: namespace 2 cannot be added while'"
	check "a namespace removed from it" fails_with "Device or resource busy" rmdir "$nd/1"
	check "a namespace's size changed on it" fails_with "Device or resource busy" \
		sh -c "echo 32 >$nd/1/size_mib"
	check "1 still works" fio_verify "$d1" 8M
	check "power off" sh -c "echo 0 >$CFS/two/power"
	dmesg -c >/dev/null
	check "an LBA format it has not" fails_with "Invalid argument" sh -c "echo 1000 >$nd/1/lba_bytes"
	check "logged" sh -c "dmesg | grep -q 'drive two: namespace 1 lba_bytes: 1000 is not 512 or 4096'"
	echo 300 >"$nd/1/size_mib"
	check "a namespace larger than the drive" fails_with "No space left on device" \
		sh -c "echo 1 >$CFS/two/power"
	check "logged" sh -c "dmesg | grep -q 'drive two: namespace 1: size_mib=300 is more than the drive.s 256 MiB'"
	echo 200 >"$nd/1/size_mib"
	echo 100 >"$nd/3/size_mib"
	check "namespaces larger than the drive" fails_with "No space left on device" \
		sh -c "echo 1 >$CFS/two/power"
	check "logged" sh -c "dmesg | grep -q 'drive two: the namespaces need 300 MiB, more than the drive.s 256 MiB'"
	check "still off" [ "$(cat "$CFS/two/power")" = 0 ]
	check "nothing left of it" sh -c "! [ -d /sys/kernel/debug/nvmev-two ]"
	echo 0 >"$nd/1/size_mib"
	echo 0 >"$nd/3/size_mib"
	check "two namespaces of the rest" fails_with "Invalid argument" sh -c "echo 1 >$CFS/two/power"
	check "logged" sh -c "dmesg | grep -q 'drive two: namespaces 1 and 3 both have size_mib=0'"
	check "no memory block kept" [ "$(memory_blocks)" = "$blocks" ]
	echo 64 >"$nd/1/size_mib"
	check "power on after the fix" sh -c "echo 1 >$CFS/two/power" &&
		check "1 works again" fio_verify "$(drive_disk two 1)" 8M
	drives_clean
	check "memory blocks back" [ "$(memory_blocks)" = "$blocks" ]
	check "the module's drive still works" fio_verify /dev/nvme0n1 8M
}

# Drives powered on at once each take a memory block of their own: two
# that picked the same block would remove it twice (a kernel WARN, which
# run_tests reports) and the second would fail with a false line about
# memory lost until reboot. DRIVES_AT_ONCE (default 4) drives, every
# power write started before any returns; all come up, one block each,
# and powered off at once they give every block back.
# desc: drives powered on at once each take a memory block of their own
# tiers: stock
test_drives_power_at_once() {
	mount_configfs
	n=${DRIVES_AT_ONCE:-4}
	check "insmod default_drive=0" insmod /modules/nvmev.ko default_drive=0 || return 1
	blocks=$(memory_blocks)
	k=0
	while [ $k -lt "$n" ]; do
		check "mkdir p$k" drive_mk "p$k" capacity_mib=64 || return 1
		k=$((k + 1))
	done
	dmesg -c >/dev/null
	pids=
	k=0
	while [ $k -lt "$n" ]; do
		sh -c "echo 1 >$CFS/p$k/power" 2>"/tmp/power.p$k" &
		pids="$pids $!"
		k=$((k + 1))
	done
	k=0
	for p in $pids; do
		check "power p$k" wait "$p" || cat "/tmp/power.p$k"
		k=$((k + 1))
	done
	k=0
	while [ $k -lt "$n" ]; do
		check "p$k powered" [ "$(cat "$CFS/p$k/power")" = 1 ] &&
			check "p$k's namespace" [ -n "$(drive_disk "p$k")" ]
		k=$((k + 1))
	done
	dmesg | grep -E 'nvmev: .*(memory block|registers in)' | sed 's/^/drives_power_at_once: /'
	check "no memory lost" sh -c "! dmesg | grep -q 'until reboot'"
	check "a block each" [ "$(memory_blocks)" = $((blocks - n)) ]
	pids=
	k=0
	while [ $k -lt "$n" ]; do
		sh -c "echo 0 >$CFS/p$k/power" &
		pids="$pids $!"
		k=$((k + 1))
	done
	for p in $pids; do
		check "power off" wait "$p"
	done
	drives_clean
	check "memory blocks back" [ "$(memory_blocks)" = "$blocks" ]
}
