#!/bin/sh
# Helpers for the guest tests (busybox sh): loading the module, reading
# what it reports, and the checks that tests of several files make. How
# tests are declared, run and reported: runner.sh.

# Where the drive's memory comes from. With a memmap=SIZEM$START
# reservation on this kernel's command line (scripts/guest-test.sh on a
# kernel without memory hot-remove, or GUEST_MEMMAP=1) the loads name it,
# read from there so that only the host script says where it is and how
# big. Without one (Debian's kernel: the default) the module takes a
# memory block for its registers and keeps the data in pages; the loads
# then ask for the drive a NVMEV_DRIVE_MIB reservation would give (the
# host script passes its size), so that every test sees one geometry.
reservation=$(tr ' ' '\n' </proc/cmdline |
	sed -n 's/^memmap=\([0-9][0-9]*\)M\$\([0-9][0-9]*[KMG]\)$/\1 \2/p' | head -1)
if [ -n "$reservation" ]; then
	NVMEV_MEMMAP=1
	NVMEV_DRIVE_MIB=${reservation% *}
	# shellcheck disable=SC2034 # used by memory.sh
	NVMEV_RESERVATION_START=${reservation#* }
	NVMEV_MEM="memmap_start=${reservation#* } memmap_size=${NVMEV_DRIVE_MIB}M"
	# the registers only (the reservation's first MiB): data in kernel pages
	NVMEV_PAGED="memmap_start=${reservation#* } memmap_size=1M"
else
	# shellcheck disable=SC2034 # used by the tests
	NVMEV_MEMMAP=0
	NVMEV_DRIVE_MIB=${NVMEV_DRIVE_MIB:-512}
	NVMEV_MEM="capacity_mib=$((NVMEV_DRIVE_MIB - 1))"
	# shellcheck disable=SC2034 # used by store.sh
	NVMEV_PAGED=
fi
# shellcheck disable=SC2034 # used by tests.sh
DBG=/sys/kernel/debug/nvmev
# the PCI function of the module's drive (a PCI domain of its own)
NVMEV_BDF=7e00:00:00.0
# shellcheck disable=SC2034 # used by pci.sh and uhost.sh
NVMEV_PCI=/sys/bus/pci/devices/$NVMEV_BDF
# the stock nvme driver in sysfs, for unbind and bind
# shellcheck disable=SC2034 # used by pci.sh and pci_unload.sh
NVME_DRV=/sys/bus/pci/drivers/nvme

# the seconds since boot, whole (busybox sh has no $SECONDS)
uptime_s() { cut -d. -f1 /proc/uptime; }
# ... in hundredths of a second
uptime_cs() { tr -d . </proc/uptime | cut -d' ' -f1; }

# wait_nvme0n1: until the nvme driver has the namespace (at most 20 s)
wait_nvme0n1() {
	i=0
	# the node appears before the disk can be opened (add_disk creates it
	# first; ENXIO until then): wait for an open to work
	while ! { [ -b /dev/nvme0n1 ] && true </dev/nvme0n1; } 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	{ [ -b /dev/nvme0n1 ] && true </dev/nvme0n1; } 2>/dev/null
}

# wait_nvme: the namespace block device is back (after a reset, an FLR or
# a bind) and answers I/O
wait_nvme() {
	i=0
	while [ ! -b /dev/nvme0n1 ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# and answers I/O
	dd if=/dev/nvme0n1 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
}

# poll_until TENTHS COMMAND...: COMMAND succeeds within TENTHS tenths of
# a second (polled every tenth)
poll_until() {
	pu_left=$1
	shift
	until "$@"; do
		[ "$pu_left" -gt 0 ] || return 1
		sleep 0.1
		pu_left=$((pu_left - 1))
	done
}

# load_nvmev [params...]: insmod and wait for the namespace block device
load_nvmev() { load_nvmev_mem "$NVMEV_MEM" "$@"; }

# load_nvmev_mem MEMORY-PARAMS [params...]: the same with other memory
# parameters (e.g. "$NVMEV_PAGED"). NVMEV_PARAM on the guest's command
# line (GUEST_APPEND="NVMEV_PARAM=write_points_per_die=8,hints=1") adds
# parameters to every load: an experiment run on another model setting.
load_nvmev_mem() {
	mem=$1
	shift
	# shellcheck disable=SC2086,SC2046 # the parameters, split on purpose
	insmod /modules/nvmev.ko $mem $(echo "${NVMEV_PARAM:-}" | tr , " ") "$@" || return 1
	wait_nvme0n1
}

unload_nvmev() {
	rmmod_nvmev || return 1
	! [ -e /dev/nvme0n1 ]
}

# rmmod_nvmev: rmmod, and the memory block the module gave back online;
# drives made in configfs hold the module: they go first
rmmod_nvmev() { drives_clean && rmmod nvmev && online_blocks; }

# the drives made at run time (drives.sh)
CFS=/sys/kernel/config/nvmev

# drives_clean: every configfs drive powered off and removed, namespaces
# first
drives_clean() {
	for dc in "$CFS"/*/; do
		[ -d "$dc" ] || continue
		echo 0 >"$dc/power"
		for dn in "$dc"namespaces/*/; do
			[ -d "$dn" ] && { rmdir "$dn" || return 1; }
		done
		rmdir "$dc" || return 1
	done
	return 0
}

# drive_mk NAME ATTR=VALUE...: a drive directory with those values
drive_mk() {
	dm_dir=$CFS/$1
	shift
	mkdir "$dm_dir" || return 1
	for dm_kv in "$@"; do
		echo "${dm_kv#*=}" >"$dm_dir/${dm_kv%%=*}" || return 1
	done
}

# drive_disk NAME [NSID]: the host's block device of the drive's namespace
# (default 1), found by the NGUID (the NSID and then the PCI domain are its
# last bytes; nvmev_admin.c), once the nvme driver has it (at most 20 s)
drive_disk() {
	dd_dom=$(printf '%02x%016x' "${2:-1}" "$(cat "$CFS/$1/pci_domain")")
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

# drive_ctrl NAME: the drive's controller device, by its PCI domain
drive_ctrl() {
	dc_dom=$(printf '%04x' "$(cat "$CFS/$1/pci_domain")")
	for dc_a in /sys/class/nvme/nvme*/address; do
		if grep -q "^$dc_dom:" "$dc_a" 2>/dev/null; then
			dc_c=${dc_a%/address}
			echo "/dev/${dc_c##*/}"
			return 0
		fi
	done
	return 1
}

# zns_drive [MAX_OPEN MAX_ACTIVE [CAP_MIB [ZONE_WIDTH]]]: drive "z" (4
# dies), namespace 1 conventional (64 MiB), namespace 2 zoned (the other
# 192 MiB: 24 zones of 8 MiB, 6 MiB writable, at most 2 open and 3 active
# by default, 0: no limit; each zone over all 4 dies by default); sets ZC
# (its controller) and Z1, Z2 (the disks)
zns_drive() {
	mount_configfs
	drive_mk z capacity_mib=256 channels=2 dies_per_channel=2 || return 1
	mkdir "$CFS/z/namespaces/1" "$CFS/z/namespaces/2" || return 1
	echo 64 >"$CFS/z/namespaces/1/size_mib"
	for kv in zoned=1 zone_mib=8 zone_cap_mib="${3:-6}" max_open="${1:-2}" max_active="${2:-3}" \
		zone_width="${4:-0}"; do
		echo "${kv#*=}" >"$CFS/z/namespaces/2/${kv%%=*}" || return 1
	done
	echo 1 >"$CFS/z/power" || return 1
	# shellcheck disable=SC2034 # used by zns.sh and zns_fs.sh
	Z1=$(drive_disk z 1) && Z2=$(drive_disk z 2) && ZC=$(drive_ctrl z)
}

# online_blocks: every memory block the kernel has, online. The module
# gives its block back at unload, and Debian's kernel leaves a block added
# back offline (auto_online_blocks); the module logs this same write.
online_blocks() {
	for ob in /sys/devices/system/memory/memory*/state; do
		[ -e "$ob" ] || continue
		grep -q offline "$ob" && { echo online >"$ob" || return 1; }
	done
	return 0
}

# memory_blocks: how many memory blocks the kernel has (none taken away)
memory_blocks() {
	mb_n=0
	for mb in /sys/devices/system/memory/memory[0-9]*; do
		[ -e "$mb" ] && mb_n=$((mb_n + 1))
	done
	echo "$mb_n"
}

# hex N: N as 0x... (what devmem and the module's parameters take)
hex() { printf '0x%x' "$1"; }

# value KEY FILE: the number after "KEY=" in a debugfs file
value() { sed -n "s/^$1=//p" "$2"; }

# control_bound_us CONTROL_US FLOOR_US: a latency bound held against a
# control measured in the same run: 8 times the control's worst (a busy
# host stretches both alike), and at least FLOOR_US
control_bound_us() {
	b=$((8 * ${1%.*}))
	[ "$b" -ge "$2" ] || b=$2
	echo "$b"
}

# mem_total_kib: the kernel's MemTotal
mem_total_kib() { sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo; }

# expect_geometry KEY VALUE: the geometry file says KEY=VALUE
expect_geometry() {
	got=$(value "$1" "$DBG/geometry")
	[ "$got" = "$2" ] || { echo "geometry $1=$got, expected $2"; return 1; }
}

# set_time_scale SCALE: the model's time scale, changed while idle, and
# the model's geometry says it took
set_time_scale() {
	echo "$1" >"$DBG/time_scale" && [ "$(value time_scale "$DBG/geometry")" = "$1" ]
}

# fails_with TEXT COMMAND...: COMMAND fails and its error output says TEXT
fails_with() {
	text=$1
	shift
	if "$@" 2>/tmp/fails.err; then
		echo "$* succeeded"
		return 1
	fi
	grep -q "$text" /tmp/fails.err || { cat /tmp/fails.err; return 1; }
}

# fio_verify FILE SIZE [fio options...]: random writes of 4-64 KiB over
# SIZE of FILE, each block crc32c-checked when read back; more options
# (--offset, --iodepth) override these
fio_verify() {
	fv_file=$1
	fv_size=$2
	shift 2
	fio --name=verify --filename="$fv_file" --size="$fv_size" --rw=randwrite \
		--bsrange=4k-64k --direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --eta=never "$@"
}

# mount_configfs: configfs where nvmet looks for it
mount_configfs() {
	grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
}

# status OUTPUT-FILE HEX: nvme-cli reported NVMe status HEX
status_is() { grep -qi "($2)" "$1" || { cat "$1"; return 1; }; }

# passthru EXPECTED-STATUS nvme-args...
passthru() {
	want=$1
	shift
	nvme "$@" >/tmp/pt.out 2>&1
	status_is /tmp/pt.out "$want"
}

# bad_insmod MESSAGE PARAMS...: insmod fails with EINVAL, says MESSAGE,
# and leaves no module and no device behind
bad_insmod() {
	msg=$1
	shift
	dmesg -c >/dev/null
	blocks_before=$(memory_blocks)
	# shellcheck disable=SC2086
	if insmod /modules/nvmev.ko "$@" 2>/tmp/insmod.err; then
		rmmod_nvmev
		echo "insmod $* succeeded"
		return 1
	fi
	grep -q "Invalid argument" /tmp/insmod.err || { cat /tmp/insmod.err; return 1; }
	dmesg | grep -q "nvmev: .*$msg" || { echo "no '$msg' in:"; dmesg | tail -3; return 1; }
	# a memory block taken and not given back would be lost until reboot
	[ "$(memory_blocks)" = "$blocks_before" ] ||
		{ echo "memory blocks $blocks_before -> $(memory_blocks)"; return 1; }
	online_blocks
	! grep -q '^nvmev ' /proc/modules && ! [ -e /dev/nvme0 ] && ! [ -d "$DBG" ]
}

# bad_write FILE VALUE [ERROR]: writing VALUE to FILE fails with ERROR
# (default EINVAL's "Invalid argument") and leaves what FILE reads unchanged
bad_write() {
	before=$(cat "$1" 2>/dev/null)
	# dd, not the shell: busybox's printf does not say why a write failed
	if printf '%s\n' "$2" | dd of="$1" 2>/tmp/write.err; then
		echo "writing '$2' to $1 succeeded"
		return 1
	fi
	grep -q "${3:-Invalid argument}" /tmp/write.err || { cat /tmp/write.err; return 1; }
	[ "$(cat "$1" 2>/dev/null)" = "$before" ] || { echo "$1 changed to $(cat "$1")"; return 1; }
}

# write the first MiB count of the device and wait until it is programmed
prefill() {
	dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count="$1" oflag=direct 2>/dev/null &&
		nvme flush /dev/nvme0n1 -n 1 >/dev/null
}

# gc_run_checks TAG: what a GC integrity run wrote (host and NAND), its
# write amplification, GC cycles and hints; it must have written at least
# 3x the capacity and garbage-collected.
gc_run_checks() {
	s=$DBG/stats
	cap=$(value capacity_bytes "$DBG/geometry")
	host=$(value host_write_units "$s")
	echo "$1: capacity $((cap >> 20)) MiB, host wrote $((host * 4096 >> 20)) MiB," \
		"NAND $(($(value nand_write_units "$s") * 4096 >> 20)) MiB," \
		"waf_milli=$(value waf_milli "$s") gc_cycles=$(value gc_cycles "$s")" \
		"gc_fg_cycles=$(value gc_fg_cycles "$s") hint_append=$(value hint_append "$s")" \
		"hint_overwrite=$(value hint_overwrite "$s")"
	check "$1: wrote >= 3x capacity" [ $((host * 4096)) -ge $((3 * cap)) ]
	check "$1: GC ran" [ "$(value gc_cycles "$s")" -gt 0 ]
}

# die of an LBA, from the device's placement query
die_of() {
	echo "$1" >"$DBG/locate"
	sed -n 's/.* die=\([0-9]*\).*/\1/p' "$DBG/locate"
}

# json_true KEY: nvmev-hint info (in /tmp/info.out) says KEY is true
json_true() { grep -q "\"$1\": true" /tmp/info.out; }

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

# zeroes_at OFFSET LENGTH: the namespace holds zeroes there. Compared by
# digest with LENGTH zero bytes (made once per length): under TCG md5sum
# reads 40 MiB in a quarter of the time cmp takes to compare them.
zeroes_at() {
	read_at "$1" "$2" /tmp/data.r || return 1
	[ -s "/tmp/zeroes.$2.md5" ] || head -c "$2" /dev/zero | md5sum >"/tmp/zeroes.$2.md5"
	[ "$(md5sum </tmp/data.r)" = "$(cat "/tmp/zeroes.$2.md5")" ]
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
