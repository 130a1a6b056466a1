#!/bin/sh
# Guest tests of flexible data placement (busybox sh, sourced by
# tests.sh): a drive loaded with fdp_ruhs=4 (one reclaim group, a unit of
# one erase block on each die), seen through Debian 12's nvme-cli `fdp`
# plugin and, on Linux 6.16 and later, through the block layer's write
# streams. Namespace 1 lists the four handles as placement identifiers 0-3.

FDP_RUHS=4

# fdp_ruamw PID: what `nvme fdp status` says placement identifier PID of
# namespace 1 may still write (RUAMW, in LBAs)
fdp_ruamw() {
	nvme fdp status /dev/nvme0n1 -n 1 >/tmp/fdps.out 2>&1 || { cat /tmp/fdps.out >&2; return 1; }
	sed -n "/Placement Identifier $1;/,/RUAMW/s/.*(RUAMW): *\([0-9]*\).*/\1/p" /tmp/fdps.out
}

# fdp_ruamws: every identifier's RUAMW, in PID order, on one line
fdp_ruamws() {
	fr_all=$(fdp_ruamw 0)
	fr_i=1
	while [ $fr_i -lt $FDP_RUHS ]; do
		fr_all="$fr_all $(fdp_ruamw $fr_i)"
		fr_i=$((fr_i + 1))
	done
	echo "$fr_all"
}

# fdp_status_is RUAMW...: every identifier's RUAMW is as given, in PID
# order; else what nvme-cli said
fdp_status_is() {
	fs_got=$(fdp_ruamws)
	[ "$fs_got" = "$*" ] && return 0
	cat /tmp/fdps.out
	echo "RUAMW by PID: $fs_got, not $*"
	return 1
}

# fdp_load: the drive, and FDP_RUNS (a reclaim unit's bytes, from the
# configurations log), FDP_LBS (bytes per LBA), FDP_FULL (a unit in LBAs)
fdp_load() {
	load_nvmev fdp_ruhs=$FDP_RUHS || return 1
	nvme fdp configs /dev/nvme0 -e 1 >/tmp/fdpc.out 2>&1 || { cat /tmp/fdpc.out; return 1; }
	FDP_RUNS=$(sed -n 's/.*Reclaim Unit Nominal Size: *\([0-9]*\).*/\1/p' /tmp/fdpc.out)
	FDP_LBS=$(cat /sys/block/nvme0n1/queue/logical_block_size)
	FDP_FULL=$((FDP_RUNS / FDP_LBS))
	[ "$FDP_FULL" -gt 0 ]
}

# fdp_write PID OFFSET BYTES: nvme-cli's Write of random data with
# directive type 2h (data placement) and DSPEC PID, kept in /tmp/fdpw
fdp_write() {
	head -c "$3" /dev/urandom >/tmp/fdpw
	nvme write /dev/nvme0n1 -s $(($2 / FDP_LBS)) -c $(($3 / FDP_LBS - 1)) -z "$3" \
		-d /tmp/fdpw -T 2 -S "$1" >/tmp/fdpw.out 2>&1 || { cat /tmp/fdpw.out; return 1; }
}

# What the drive says of its FDP configuration and state, through every
# subcommand of nvme-cli's fdp plugin, against what the test wrote: the
# configuration (one group, four initially isolated handles), each
# identifier's writable media (a write through PID 2 takes from it alone;
# an update gives it a fresh unit), the statistics (host bytes written),
# usage, and the events a handle records once they are enabled. A write
# naming an identifier the namespace has not is placed through PID 0 and
# recorded as such. Bad input: an update of an identifier the namespace
# has not, FDP changed while namespaces exist, events of a handle the
# namespace has not or of all namespaces at once, a log read past its end.
# desc: FDP through nvme-cli: configs, status, update, stats, usage, events, bad input
# tiers: stock
test_fdp_nvme_cli() {
	check "insmod with $FDP_RUHS handles" fdp_load || return 1
	echo "fdp_nvme_cli: reclaim unit $FDP_RUNS bytes, $FDP_LBS-byte LBAs"
	nvme id-ctrl /dev/nvme0 >/tmp/id.out
	ctratt=$(sed -n 's/^ctratt *: *//p' /tmp/id.out)
	check "Identify: FDP supported (CTRATT bit 19)" [ $((ctratt >> 19 & 1)) = 1 ]
	check "one reclaim group" grep -q "Number of Reclaim Groups: *1\$" /tmp/fdpc.out
	check "$FDP_RUHS handles" grep -q "Number of Reclaim Unit Handles: *$FDP_RUHS\$" /tmp/fdpc.out
	check "each initially isolated" [ "$(grep -c "Initially Isolated" /tmp/fdpc.out)" = $FDP_RUHS ]
	check "status: every identifier a whole unit" fdp_status_is "$FDP_FULL" "$FDP_FULL" "$FDP_FULL" "$FDP_FULL"
	# 64 KiB through PID 2
	check "a write through PID 2" fdp_write 2 0 65536
	took=$((FDP_FULL - 65536 / FDP_LBS))
	check "PID 2, and only it, took it" fdp_status_is "$FDP_FULL" "$FDP_FULL" "$took" "$FDP_FULL"
	check "it reads back" sh -c "dd if=/dev/nvme0n1 bs=64k count=1 iflag=direct 2>/dev/null | cmp -s - /tmp/fdpw"
	nvme fdp stats /dev/nvme0 -e 1 >/tmp/fdpst.out 2>&1
	check "statistics: 64 KiB from the host" \
		grep -Eq "HBMW[^0-9]*65536\$" /tmp/fdpst.out || cat /tmp/fdpst.out
	nvme fdp usage /dev/nvme0 -e 1 >/tmp/fdpu.out 2>&1
	check "usage: the namespace's $FDP_RUHS handles" \
		[ "$(grep -ci "host specified" /tmp/fdpu.out)" = $FDP_RUHS ] || cat /tmp/fdpu.out
	# an update moves PID 2 on; with the event enabled, recorded
	check "enable handle 2's RU-not-fully-written events" \
		nvme fdp set-events /dev/nvme0n1 -n 1 -p 2 -t 0 -e
	check "update of PID 2" nvme fdp update /dev/nvme0n1 -n 1 -p 2
	check "PID 2 on a fresh unit" [ "$(fdp_ruamw 2)" = "$FDP_FULL" ]
	nvme fdp events /dev/nvme0 -e 1 -E >/tmp/fdpe.out 2>&1
	check "the event: a unit not fully written" grep -qi "not fully written" /tmp/fdpe.out ||
		cat /tmp/fdpe.out
	# a bad identifier: placed through PID 0, an event where enabled
	check "enable handle 0's invalid-identifier events" \
		nvme fdp set-events /dev/nvme0n1 -n 1 -p 0 -t 3 -e
	check "a write naming PID 9 completes" fdp_write 9 1048576 4096
	check "through PID 0" [ "$(fdp_ruamw 0)" = $((FDP_FULL - 4096 / FDP_LBS)) ]
	nvme fdp events /dev/nvme0 -e 1 -E >/tmp/fdpe.out 2>&1
	check "the event: an invalid placement identifier" grep -qi "invalid placement" /tmp/fdpe.out ||
		cat /tmp/fdpe.out
	# bad input, each with its status
	check "update of PID 9: Invalid Field" \
		fails_with "0x4002" nvme fdp update /dev/nvme0n1 -n 1 -p 9
	check "enabling FDP again: Command Sequence Error" \
		fails_with "0x400c" nvme set-feature /dev/nvme0 -n 0 -f 0x1d -v 1 -c 1
	check "events of placement handle 4: Invalid Field" \
		fails_with "0x4002" nvme fdp set-events /dev/nvme0n1 -n 1 -p $FDP_RUHS -t 0 -e
	check "events of every namespace at once: Invalid Namespace" \
		fails_with "0x400b" nvme get-feature /dev/nvme0 -n 0xffffffff -f 0x1e -c 0x00ff0000 -l 510
	check "statistics read past their end: Invalid Field" \
		fails_with "0x4002" nvme get-log /dev/nvme0 -i 0x22 -l 64 -o 64 -S 1
	check "rmmod" unload_nvmev
}

# Linux's write streams are the namespace's placement identifiers (6.16
# and later): as many streams as identifiers, a reclaim unit the
# granularity, and a write through stream N is placed through the N-th
# identifier RUH Status lists, as nvme-cli then shows.
# desc: Linux write streams (io_uring write_stream) land on their FDP handles
# tiers: stock
test_fdp_write_streams() {
	requires_kernel 6.16 || return
	check "insmod with $FDP_RUHS handles" fdp_load || return 1
	q=/sys/block/nvme0n1/queue
	echo "fdp_write_streams: $(cat $q/max_write_streams) streams of $(cat $q/write_stream_granularity) bytes"
	check "$FDP_RUHS write streams" [ "$(cat $q/max_write_streams)" = $FDP_RUHS ]
	check "granularity: a reclaim unit" [ "$(cat $q/write_stream_granularity)" = "$FDP_RUNS" ]
	check "256 KiB through stream 3" \
		nvmev-streams /dev/nvme0n1 --stream 3 --offset 1048576 --bytes 262144
	took=$((FDP_FULL - 262144 / FDP_LBS))
	check "on PID 2, the third identifier" fdp_status_is "$FDP_FULL" "$FDP_FULL" "$took" "$FDP_FULL"
	check "no stream: PID 0" nvmev-streams /dev/nvme0n1 --offset 0 --bytes 4096
	check "PID 0 took it" [ "$(fdp_ruamw 0)" = $((FDP_FULL - 4096 / FDP_LBS)) ]
	check "stream $((FDP_RUHS + 1)) refused" \
		fails_with "Invalid argument" nvmev-streams /dev/nvme0n1 --stream $((FDP_RUHS + 1)) \
		--offset 0 --bytes 4096
	check "rmmod" unload_nvmev
}

# fdp_handles DISK NSID: "PID:RUHID ..." of the namespace's RUH Status
fdp_handles() {
	nvme fdp status "$1" -n "$2" >/tmp/fdph.out 2>&1 || { cat /tmp/fdph.out; return 1; }
	sed -n 's/^Placement Identifier \([0-9]*\); Reclaim Unit Handle Identifier \([0-9]*\)$/\1:\2/p' \
		/tmp/fdph.out | tr '\n' ' ' | sed 's/ $//'
}

# A namespace uses the handles its configfs placement_handles lists, in
# that order: a drive with four handles, namespace 1 on handles 2 and 3,
# namespace 2 on handle 1, handle 0 on neither (Unused in the usage log).
# Refused:
# a list that repeats a handle (at the write), one naming a handle the
# drive has not (at power on, the drive left off).
# desc: FDP placement handles of configfs namespaces: RUH Status, usage, refusals
# tiers: stock
test_fdp_placement_handles() {
	check "insmod" load_nvmev || return 1
	mount_configfs
	check "a drive with 4 handles" drive_mk f capacity_mib=256 channels=2 dies_per_channel=2 \
		fdp_ruhs=4 || { drives_clean; return 1; }
	mkdir "$CFS/f/namespaces/1" "$CFS/f/namespaces/2"
	echo 64 >"$CFS/f/namespaces/1/size_mib"
	ph1=$CFS/f/namespaces/1/placement_handles
	check "a list that repeats a handle refused" \
		fails_with "Invalid argument" sh -c "echo 2,2 >$ph1"
	check "namespace 1: handles 2 and 3" sh -c "echo 2,3 >$ph1"
	check "namespace 2: handle 1" sh -c "echo 1 >$CFS/f/namespaces/2/placement_handles"
	check "read back" [ "$(cat "$ph1")" = "2,3" ]
	check "power on" sh -c "echo 1 >$CFS/f/power" || { drives_clean; return 1; }
	d1=$(drive_disk f 1) && d2=$(drive_disk f 2) && c=$(drive_ctrl f)
	echo "fdp_placement_handles: $c, $d1, $d2"
	check "namespace 1's identifiers: handles 2, 3" [ "$(fdp_handles "$d1" 1)" = "0:2 1:3" ]
	check "namespace 2's: handle 1" [ "$(fdp_handles "$d2" 2)" = "0:1" ]
	nvme fdp usage "$c" -e 1 >/tmp/fdpu.out 2>&1
	check "usage: three handles listed" [ "$(grep -ci "host specified" /tmp/fdpu.out)" = 3 ] ||
		cat /tmp/fdpu.out
	check "power off" sh -c "echo 0 >$CFS/f/power"
	check "a handle the drive has not: refused at power on" sh -c "echo 3,4 >$ph1"
	check "power on refused" fails_with "Invalid argument" sh -c "echo 1 >$CFS/f/power"
	check "with its line" sh -c "dmesg | grep -q 'namespace 1: placement_handles names handle 4, the drive has 4'"
	check "clean up" drives_clean
	check "rmmod" unload_nvmev
}
