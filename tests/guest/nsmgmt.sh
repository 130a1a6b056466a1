#!/bin/sh
# Guest tests of Namespace Management and Namespace Attachment (busybox
# sh, sourced by tests.sh), through Debian 12's nvme-cli as a user runs
# it: namespaces deleted, created and attached, seen by the host's nvme
# driver without a reset (the command's effects and the Namespace
# Attribute Changed event), each on flash of its own that reads as zeroes
# when made, and the specification's status for each refusal.

# ns_dev NSID: the host has /dev/nvme0nNSID (at most 10 s)
ns_dev() { poll_until 100 [ -b "/dev/nvme0n$1" ]; }

# ns_gone NSID: the host let /dev/nvme0nNSID go (at most 10 s)
ns_gone() { poll_until 100 [ ! -b "/dev/nvme0n$1" ]; }

# ns_create LBAS [nvme create-ns options...]: the NSID the drive gave
ns_create() {
	nc_lbas=$1
	shift
	nvme create-ns /dev/nvme0 --nsze="$nc_lbas" --ncap="$nc_lbas" --flbas=0 "$@" \
		>/tmp/nsc.out 2>&1 || { cat /tmp/nsc.out >&2; return 1; }
	sed -n 's/.*created nsid: *\([0-9]*\).*/\1/p' /tmp/nsc.out
}

# aen_at_least N: the drive sent N Namespace Attribute Changed events (5 s)
aen_count_at_least() { [ "$(value aen_ns_changed "$DBG/stats")" -ge "$1" ]; }
aen_at_least() { poll_until 50 aen_count_at_least "$1"; }

# id_ctrl_field NAME: that field of nvme id-ctrl
id_ctrl_field() { nvme id-ctrl /dev/nvme0 | sed -n "s/^$1 *: *//p"; }

# le16 VALUE / le64 VALUE: little-endian bytes, for a command's data
# shellcheck disable=SC2059 # octal escapes in the format: the bytes themselves
le16() { printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))"; }
le64() {
	le16 $(($1 & 65535))
	le16 $(($1 >> 16 & 65535))
	le16 $(($1 >> 32 & 65535))
	le16 $(($1 >> 48 & 65535))
}

# create_data FILE LBAS HANDLE...: a create's 4 KiB host data, with a
# placement handle list (Debian 12's nvme-cli 2.3 has no --phndls)
create_data() {
	cd_file=$1
	cd_lbas=$2
	shift 2
	{
		le64 "$cd_lbas"
		le64 "$cd_lbas"
		head -c 376 /dev/zero
		le16 $#
		head -c 118 /dev/zero
		for cd_h in "$@"; do le16 "$cd_h"; done
	} >"$cd_file.head"
	head -c 4096 /dev/zero | cat "$cd_file.head" - | head -c 4096 >"$cd_file"
}

# The drive's one namespace, written and deleted; a namespace created
# in its place is not active until attached, then the host has it
# without a reset and it reads as zeroes, not the deleted one's data; a
# second beside it, each verified under fio at once and each its own;
# every refusal with its status; deleting all of them. The capacity the
# drive reports (UNVMCAP) follows.
# desc: create, attach, detach, delete: the host sees each; a new namespace reads zeroes; refusals
# tiers: stock
test_ns_mgmt() {
	check "insmod" load_nvmev capacity_mib=256 || return 1
	check "OACS: Namespace Management" [ $(($(id_ctrl_field oacs) >> 3 & 1)) = 1 ]
	check "NN: 16 NSIDs" [ "$(id_ctrl_field nn)" = 16 ]
	lbs=$(blockdev --getss /dev/nvme0n1)
	mib=$((1048576 / lbs))
	tnvmcap=$(id_ctrl_field tnvmcap)
	echo "ns_mgmt: $lbs-byte LBAs, tnvmcap $tnvmcap, unvmcap $(id_ctrl_field unvmcap)"
	check "all of it allocated" [ "$(id_ctrl_field unvmcap)" = 0 ]
	random /tmp/old 1048576
	check "old data" write_at 0 /tmp/old
	check "old data at the end" write_at $((tnvmcap - 1048576)) /tmp/old
	aen0=$(value aen_ns_changed "$DBG/stats")
	check "delete NSID 1" nvme delete-ns /dev/nvme0 --namespace-id=1
	check "the host lets it go" ns_gone 1
	check "unvmcap: everything" [ "$(id_ctrl_field unvmcap)" = "$tnvmcap" ]
	nsid=$(ns_create $((64 * mib)))
	check "create 64 MiB: NSID 1" [ "$nsid" = 1 ]
	# (nvme-cli returns once the host rescanned: the command's effects)
	check "not active before its attach" sh -c "! [ -b /dev/nvme0n1 ]"
	check "allocated: nvme list-ns --all" sh -c "nvme list-ns /dev/nvme0 --all | grep -q ':0x1\$'"
	check "attach" nvme attach-ns /dev/nvme0 --namespace-id=1 --controllers=1
	check "the host has it" ns_dev 1
	check "64 MiB" [ "$(blockdev --getsize64 /dev/nvme0n1)" = $((64 << 20)) ]
	check "zeroes, not the deleted namespace's data" zeroes_at 0 1048576
	check "events: the delete's and the attach's" aen_at_least $((aen0 + 2))
	nsid=$(ns_create $((128 * mib)))
	check "create 128 MiB: NSID 2" [ "$nsid" = 2 ]
	check "attach 2" nvme attach-ns /dev/nvme0 --namespace-id=2 --controllers=1
	check "the host has 2" ns_dev 2
	check "2 reads zeroes" sh -c "dd if=/dev/nvme0n2 of=/tmp/end bs=1M skip=127 count=1 \
		iflag=direct 2>/dev/null && cmp -n 1048576 /tmp/end /dev/zero"
	check "unvmcap: 64 MiB left" [ "$(id_ctrl_field unvmcap)" = $((64 << 20)) ]
	fio_verify /dev/nvme0n1 8M >/tmp/fio.1 2>&1 &
	f1=$!
	check "fio verify on 2" fio_verify /dev/nvme0n2 8M --offset=120M
	check "fio verify on 1, at the same time" wait $f1 || tail -5 /tmp/fio.1
	random /tmp/ns1 1048576
	random /tmp/ns2 1048576
	dd if=/tmp/ns1 of=/dev/nvme0n1 bs=1M oflag=direct 2>/dev/null
	dd if=/tmp/ns2 of=/dev/nvme0n2 bs=1M oflag=direct 2>/dev/null
	check "1 holds its own" holds_at 0 /tmp/ns1
	check "2 holds its own" sh -c "dd if=/dev/nvme0n2 of=/tmp/r2 bs=1M count=1 iflag=direct 2>/dev/null &&
		cmp /tmp/r2 /tmp/ns2"
	# refusals: NVMe status with DNR, as nvme-cli prints it
	check "more than is free: Namespace Insufficient Capacity" \
		passthru 0x4115 create-ns /dev/nvme0 --nsze=$((65 * mib)) --ncap=$((65 * mib)) --flbas=0
	check "LBA format 1: Invalid Format" \
		passthru 0x410a create-ns /dev/nvme0 --nsze="$mib" --ncap="$mib" --flbas=1
	check "NCAP below NSZE: Invalid Field" \
		passthru 0x4002 create-ns /dev/nvme0 --nsze="$mib" --ncap=1 --flbas=0
	check "attach an attached one: Namespace Already Attached" \
		passthru 0x4118 attach-ns /dev/nvme0 --namespace-id=1 --controllers=1
	check "controller 2 of 1: Controller List Invalid" \
		passthru 0x411c attach-ns /dev/nvme0 --namespace-id=1 --controllers=2
	check "attach NSID 9, not allocated: Invalid Namespace or Format" \
		passthru 0x400b attach-ns /dev/nvme0 --namespace-id=9 --controllers=1
	check "delete NSID 9: Invalid Namespace or Format" \
		passthru 0x400b delete-ns /dev/nvme0 --namespace-id=9
	check "detach 1" nvme detach-ns /dev/nvme0 --namespace-id=1 --controllers=1
	check "the host lets 1 go" ns_gone 1
	check "detach a detached one: Namespace Not Attached" \
		passthru 0x411a detach-ns /dev/nvme0 --namespace-id=1 --controllers=1
	check "2 still holds its own" sh -c "dd if=/dev/nvme0n2 of=/tmp/r2 bs=1M count=1 iflag=direct 2>/dev/null &&
		cmp /tmp/r2 /tmp/ns2"
	check "attach 1 again" nvme attach-ns /dev/nvme0 --namespace-id=1 --controllers=1
	check "the host has 1 again" ns_dev 1
	check "a detach keeps the data" holds_at 0 /tmp/ns1
	check "delete every namespace" nvme delete-ns /dev/nvme0 --namespace-id=4294967295
	check "the host lets 1 go" ns_gone 1
	check "the host lets 2 go" ns_gone 2
	check "unvmcap: everything again" [ "$(id_ctrl_field unvmcap)" = "$tnvmcap" ]
	nsid=$(ns_create $((256 * mib)))
	check "the whole drive again: NSID 1" [ "$nsid" = 1 ]
	check "attach it" nvme attach-ns /dev/nvme0 --namespace-id=1 --controllers=1
	check "the host has it" ns_dev 1
	check "zeroes where 1 was" zeroes_at 0 1048576
	check "zeroes where 2 was" zeroes_at $((64 << 20)) 1048576
	check "zeroes at the end, where the first one wrote" zeroes_at $((tnvmcap - 1048576)) 1048576
	check "rmmod" unload_nvmev
}

# On a drive with four reclaim unit handles: a namespace created with a
# placement handle list (handles 3 and 1) places through exactly those,
# PID 0 on handle 3; one created without a list has every handle; a list
# naming a handle the drive has not, or one twice, is refused with
# Invalid Placement Handle List (2Ah).
# desc: Namespace Management with placement handle lists on an FDP drive
# tiers: stock
test_ns_mgmt_fdp() {
	check "insmod with 4 handles" load_nvmev capacity_mib=256 fdp_ruhs=4 || return 1
	lbs=$(blockdev --getss /dev/nvme0n1)
	mib=$((1048576 / lbs))
	check "delete NSID 1" nvme delete-ns /dev/nvme0 --namespace-id=1
	check "the host lets it go" ns_gone 1
	create_data /tmp/nsd $((64 * mib)) 3 1
	check "create with handles 3, 1" nvme admin-passthru /dev/nvme0 --opcode=0x0d \
		--data-len=4096 --input-file=/tmp/nsd --write
	check "attach" nvme attach-ns /dev/nvme0 --namespace-id=1 --controllers=1
	check "the host has it" ns_dev 1
	nvme fdp status /dev/nvme0n1 -n 1 >/tmp/fdps.out 2>&1
	ruhs=$(sed -n 's/.*Placement Identifier [0-9]*; Reclaim Unit Handle Identifier *:* *\([0-9]*\).*/\1/p' \
		/tmp/fdps.out | tr '\n' ' ')
	check "its identifiers: handles 3 and 1" [ "$ruhs" = "3 1 " ] || cat /tmp/fdps.out
	nsid=$(ns_create $((16 * mib)))
	check "create without a list: NSID 2" [ "$nsid" = 2 ]
	check "attach 2" nvme attach-ns /dev/nvme0 --namespace-id=2 --controllers=1
	check "the host has 2" ns_dev 2
	nvme fdp status /dev/nvme0n2 -n 2 >/tmp/fdps2.out 2>&1
	check "2: every handle" [ "$(grep -c 'Placement Identifier' /tmp/fdps2.out)" = 4 ] ||
		cat /tmp/fdps2.out
	create_data /tmp/nsd4 "$mib" 0 4
	check "handle 4 of 4: Invalid Placement Handle List" passthru 0x402a admin-passthru \
		/dev/nvme0 --opcode=0x0d --data-len=4096 --input-file=/tmp/nsd4 --write
	create_data /tmp/nsd2 "$mib" 2 2
	check "handle 2 twice: Invalid Placement Handle List" passthru 0x402a admin-passthru \
		/dev/nvme0 --opcode=0x0d --data-len=4096 --input-file=/tmp/nsd2 --write
	check "rmmod" unload_nvmev
}
