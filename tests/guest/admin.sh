#!/bin/sh
# Guest tests of the admin command set as stock nvme-cli sees it (busybox
# sh, sourced by tests.sh): the Error Information log, Get/Set Features and
# their capabilities, the SMART/Health and Firmware Slot logs, and the I/O
# Command Set specific Identify data the Linux driver takes its discard and
# Write Zeroes limits from. Uses passthru and status_is (lib.sh).

# acheck DESCRIPTION COMMAND...: check, and name every failed one (a test
# here checks many fields; check reports only the first)
acheck() {
	check "$@" && return 0
	echo "$CURRENT: failed: $1: $(tail -3 /tmp/check.out | tr '\n' ' ')"
	return 1
}

# le BYTES OFFSET FILE: the little-endian unsigned integer there
le() { od -An -tu"$1" -j "$2" -N "$1" "$3" | tr -d ' '; }

# zeroes OFFSET LEN FILE: LEN bytes at OFFSET of FILE are all zero
zeroes() {
	[ -z "$(od -An -tx1 -v -j "$1" -N "$2" "$3" | tr -d ' 0\n')" ] ||
		{ echo "non-zero bytes at $1 (+$2) of $3"; return 1; }
}

# feat ARGS...: the value "nvme get-feature ARGS" prints, as 0x and 8 hex
# digits (nvme-cli prints it with %#010x: no 0x for a 0)
feat() {
	nvme get-feature /dev/nvme0 "$@" >/tmp/feat.out 2>&1 || { cat /tmp/feat.out; return 1; }
	v=$(sed -n 's/.*value: *\(0x\)\{0,1\}\([0-9a-fA-F][0-9a-fA-F]*\).*/\2/p' /tmp/feat.out | head -1)
	[ -n "$v" ] || { cat /tmp/feat.out; return 1; }
	printf '0x%08x\n' "0x$v"
}

# feat_is VALUE ARGS...: get-feature ARGS prints VALUE
feat_is() {
	want=$1
	shift
	got=$(feat "$@") || return 1
	[ "$got" = "$want" ] || { echo "get-feature $*: $got, expected $want"; return 1; }
}

# errlog FILE: the whole Error Information log (64 entries of 64 bytes)
errlog() { nvme get-log /dev/nvme0 --log-id=1 --log-len=4096 -b >"$1"; }

# entry_is FILE I COUNT SQID CID STATUS LBA NSID LOC: entry I of the error
# log in FILE holds these (STATUS without the phase tag, as the trace has
# it; LOC the Parameter Error Location, the bad field's byte); Command
# Specific Information 0
entry_is() {
	o=$(($2 * 64))
	got="$(le 8 "$o" "$1") $(le 2 $((o + 8)) "$1") $(le 2 $((o + 10)) "$1")"
	got="$got $(($(le 2 $((o + 12)) "$1") >> 1)) $(le 8 $((o + 16)) "$1") $(le 4 $((o + 24)) "$1")"
	want="$3 $4 $5 $(($6)) $7 $8"
	[ "$got" = "$want" ] || { echo "entry $2: $got, expected $want"; return 1; }
	[ "$(le 2 $((o + 14)) "$1")" = "$9" ] || { echo "entry $2: parameter location"; return 1; }
	zeroes $((o + 32)) 32 "$1"
}

# smart_field OFFSET: the 64-bit low half of a SMART/Health counter
smart_field() { nvme smart-log /dev/nvme0 -b >/tmp/smart.bin && le 8 "$1" /tmp/smart.bin; }

TRACE=/sys/kernel/debug/tracing

# desc: the Error Information log: its entries, their fields and order
# tiers: stock
test_error_log() {
	check "insmod" load_nvmev || return 1
	d=/dev/nvme0
	acheck "elpe 63" sh -c "nvme id-ctrl $d | grep -Eq '^elpe +: 63$'"
	acheck "error-log reads 64 entries" sh -c "nvme error-log $d | grep -q 'entries:64'"
	acheck "error log" errlog /tmp/el0.bin
	n0=$(le 8 0 /tmp/el0.bin)
	# the completions the host saw: queue, command identifier, status
	echo >"$TRACE/trace"
	echo 1 >"$TRACE/events/nvme/nvme_complete_rq/enable"
	acheck "admin opcode" passthru 0x4001 admin-passthru $d --opcode=0xfd
	acheck "io opcode" passthru 0x4001 io-passthru $d --opcode=0x7d --namespace-id=1
	acheck "lba range" passthru 0x4080 io-passthru $d --opcode=0x02 --namespace-id=1 \
		--data-len=4096 --read --cdw10=0xffffffff --cdw11=0 --cdw12=7
	acheck "bad nsid" passthru 0x400b admin-passthru $d --opcode=0x06 --namespace-id=17 \
		--cdw10=0 --data-len=4096 --read
	echo 0 >"$TRACE/events/nvme/nvme_complete_rq/enable"
	sed -n 's/.*qid=\([0-9]*\), cmdid=\([0-9]*\),.*status=\(0x[0-9a-f]*\)$/\1 \2 \3/p' \
		"$TRACE/trace" | grep -v ' 0$' >/tmp/errs
	acheck "4 failed completions traced" [ "$(wc -l </tmp/errs)" = 4 ]
	acheck "error log after" errlog /tmp/el1.bin
	# newest first: the bad nsid, the LBA range, the I/O opcode, the admin one
	# shellcheck disable=SC2046 # queue, cid, status of each
	{
		set -- $(sed -n 4p /tmp/errs)
		acheck "entry 0: bad nsid" entry_is /tmp/el1.bin 0 $((n0 + 4)) "$1" "$2" "$3" 0 0 4
		set -- $(sed -n 3p /tmp/errs)
		acheck "entry 1: lba range" entry_is /tmp/el1.bin 1 $((n0 + 3)) "$1" "$2" "$3" 4294967295 1 40
		acheck "entry 1 on an I/O queue" [ "$1" -gt 0 ]
		set -- $(sed -n 2p /tmp/errs)
		acheck "entry 2: io opcode" entry_is /tmp/el1.bin 2 $((n0 + 2)) "$1" "$2" "$3" 0 1 0
		set -- $(sed -n 1p /tmp/errs)
		acheck "entry 3: admin opcode" entry_is /tmp/el1.bin 3 $((n0 + 1)) "$1" "$2" "$3" 0 0 0
		acheck "entry 3 on the admin queue" [ "$1" = 0 ]
	}
	acheck "entries past the count are zero" zeroes $(((n0 + 4) * 64)) $((4096 - (n0 + 4) * 64)) /tmp/el1.bin
	acheck "SMART error entries" [ "$(smart_field 176)" = $((n0 + 4)) ]
	acheck "error-log shows the count" sh -c "nvme error-log $d | grep -Eq 'error_count[[:space:]]*: $((n0 + 4))\$'"
	# more errors than entries: the 64 most recent, counts one apart
	k=0
	while [ $k -lt 64 ]; do
		nvme admin-passthru $d --opcode=0xfd >/dev/null 2>&1
		k=$((k + 1))
	done
	total=$((n0 + 68))
	acheck "error log wrapped" errlog /tmp/el2.bin
	acheck "newest" [ "$(le 8 0 /tmp/el2.bin)" = $total ]
	acheck "oldest kept" [ "$(le 8 $((63 * 64)) /tmp/el2.bin)" = $((total - 63)) ]
	acheck "in order" [ "$(le 8 $((30 * 64)) /tmp/el2.bin)" = $((total - 30)) ]
	acheck "SMART error entries wrapped" [ "$(smart_field 176)" = $total ]
	check "rmmod" unload_nvmev
}

# desc: Get/Set Features: values, capabilities, refusals, reset defaults
# tiers: stock
test_features() {
	check "insmod" load_nvmev || return 1
	d=/dev/nvme0
	# Error Recovery: TLER settable, DULBE refused (NSFEAT bit 2 is 0)
	acheck "error recovery" feat_is 0x00000000 -f 5
	acheck "set TLER" nvme set-feature $d -f 5 -v 0x1234
	acheck "TLER reads back" feat_is 0x00001234 -f 5
	acheck "TLER default" feat_is 0x00000000 -f 5 -s 1
	acheck "DULBE refused" passthru 0x4002 set-feature $d -f 5 -v 0x10000
	acheck "error recovery caps" feat_is 0x00000006 -f 5 -s 3
	# Write Atomicity Normal: DN
	acheck "write atomicity" feat_is 0x00000000 -f 0xa
	acheck "set DN" nvme set-feature $d -f 0xa -v 1
	acheck "DN reads back" feat_is 0x00000001 -f 0xa
	acheck "DN saved = default" feat_is 0x00000000 -f 0xa -s 2
	acheck "write atomicity caps" feat_is 0x00000004 -f 0xa -s 3
	acheck "not saveable" passthru 0x410d set-feature $d -f 0xa -v 1 --save
	# capabilities only of features the controller has
	acheck "caps of an unsupported fid" passthru 0x4002 get-feature $d -f 0x7f -s 3
	acheck "caps of LBA range type" passthru 0x4002 get-feature $d -f 3 -s 3
	acheck "queues caps" feat_is 0x00000004 -f 7 -s 3
	acheck "vwc caps" feat_is 0x00000004 -f 6 -s 3
	# Linux 6.12's driver refuses Set Features Number of Queues from user
	# space itself (nvme_admin_cmd_allowed: it manages the queues), so the
	# device never sees it there; uhost_numq_after_create asks the device
	# directly on every kernel
	if kernel_at_least 6 12; then
		acheck "Number of Queues refused by the host driver" \
			fails_with "Permission denied" nvme set-feature $d -f 7 -v 0x00030003
	else
		acheck "queues fixed once queues exist" passthru 0xc set-feature $d -f 7 -v 0x00030003
	fi
	# temperature threshold: over (default WCTEMP), under; SMART's warning
	acheck "over temperature" feat_is 0x00000157 -f 4
	acheck "under temperature" feat_is 0x00000000 -f 4 -c 0x100000
	acheck "bad threshold type" passthru 0x4002 set-feature $d -f 4 -v 0x200000
	acheck "set over 300 K" nvme set-feature $d -f 4 -v 300
	acheck "SMART temperature warning" sh -c "nvme smart-log $d -b | od -An -tu1 -N1 | grep -qw 2"
	acheck "set over 343 K" nvme set-feature $d -f 4 -v 343
	acheck "no SMART warning" sh -c "nvme smart-log $d -b | od -An -tu1 -N1 | grep -qw 0"
	acheck "vwc off" nvme set-feature $d -f 6 -v 0
	acheck "vwc reads back" feat_is 0x00000000 -f 6
	# a controller reset: every feature back to its default
	acheck "controller reset" nvme reset $d
	i=0
	while ! nvme get-feature $d -f 5 >/dev/null 2>&1 && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	acheck "TLER reset" feat_is 0x00000000 -f 5
	acheck "DN reset" feat_is 0x00000000 -f 0xa
	acheck "vwc reset" feat_is 0x00000001 -f 6
	acheck "device still works" dd if=/dev/nvme0n1 of=/dev/null bs=64k count=16 iflag=direct
	check "rmmod" unload_nvmev
}

# desc: the SMART log: counters that move with I/O, fixed fields, reserved zero
# tiers: stock
test_smart_log() {
	check "insmod" load_nvmev || return 1
	d=/dev/nvme0
	acheck "write" dd if=/dev/zero of=/dev/nvme0n1 bs=1M count=8 oflag=direct
	acheck "smart log" sh -c "nvme smart-log $d -b >/tmp/smart.bin"
	s=/tmp/smart.bin
	acheck "critical warning" [ "$(le 1 0 $s)" = 0 ]
	acheck "composite temperature 313 K" [ "$(le 2 1 $s)" = 313 ]
	acheck "available spare" [ "$(le 1 3 $s)" = 100 ]
	acheck "spare threshold" [ "$(le 1 4 $s)" = 10 ]
	acheck "data units written" [ "$(le 8 48 $s)" -ge 16 ]
	acheck "host writes" [ "$(le 8 80 $s)" -ge 8 ]
	acheck "controller busy time" [ "$(le 8 96 $s)" -ge 1 ]
	acheck "power cycles" [ "$(le 8 112 $s)" = 1 ]
	acheck "power on hours" [ "$(le 8 128 $s)" = 0 ]
	acheck "unsafe shutdowns" [ "$(le 8 144 $s)" = 0 ]
	acheck "media errors" [ "$(le 8 160 $s)" = 0 ]
	acheck "reserved" zeroes 232 280 $s
	acheck "nvme-cli busy time" sh -c "nvme smart-log $d | grep -Eq '^controller_busy_time[[:space:]]*: 1\$'"
	# the Firmware Slot log names the revision Identify Controller has
	acheck "fw log" sh -c "nvme fw-log $d -b >/tmp/fw.bin"
	acheck "id-ctrl" sh -c "nvme id-ctrl $d -b >/tmp/idc.bin"
	acheck "active slot 1" [ "$(le 1 0 /tmp/fw.bin)" = 1 ]
	acheck "slot 1 = FR" [ "$(od -An -tx1 -j 8 -N 8 /tmp/fw.bin)" = \
		"$(od -An -tx1 -j 64 -N 8 /tmp/idc.bin)" ]
	acheck "other slots empty" zeroes 16 496 /tmp/fw.bin
	check "rmmod" unload_nvmev
}

# desc: Identify for the NVM command set and I/O command set CNS values
# tiers: stock
test_identify_cs() {
	check "insmod" load_nvmev || return 1
	d=/dev/nvme0
	b=/tmp/idnvm.bin
	acheck "CNS 06h" sh -c "nvme admin-passthru $d --opcode=0x06 --cdw10=6 --data-len=4096 -r -b >$b"
	acheck "id-ns" sh -c "nvme id-ns /dev/nvme0n1 -b >/tmp/idns.bin"
	nsze=$(le 8 0 /tmp/idns.bin)
	acheck "VSL, WZSL, WUSL, DMRL" [ "$(od -An -tu1 -N4 $b | tr -s ' ')" = " 0 13 0 0" ]
	acheck "DMRSL = namespace" [ "$(le 4 4 $b)" = "$nsze" ]
	acheck "DMSL no limit" [ "$(le 8 8 $b)" = 0 ]
	acheck "rest zero" zeroes 16 4080 $b
	acheck "CNS 06h CSI 1" passthru 0x4002 admin-passthru $d --opcode=0x06 --cdw10=6 \
		--cdw11=0x01000000 --data-len=4096 --read
	acheck "CNS 05h" sh -c "nvme admin-passthru $d --opcode=0x06 --cdw10=5 --namespace-id=1 \
		--data-len=4096 -r -b >$b"
	acheck "CNS 05h zeroes" zeroes 0 4096 $b
	acheck "CNS 05h bad nsid" passthru 0x400b admin-passthru $d --opcode=0x06 --cdw10=5 \
		--namespace-id=17 --data-len=4096 --read
	acheck "CNS 05h CSI 2" passthru 0x4002 admin-passthru $d --opcode=0x06 --cdw10=5 \
		--namespace-id=1 --cdw11=0x02000000 --data-len=4096 --read
	# what the Linux driver made of it
	q=/sys/block/nvme0n1/queue
	bytes=$(($(cat /sys/block/nvme0n1/size) * 512))
	acheck "discard_max_bytes = DMRSL" [ "$(cat $q/discard_max_bytes)" = $bytes ]
	acheck "discard_max_hw_bytes = DMRSL" [ "$(cat $q/discard_max_hw_bytes)" = $bytes ]
	acheck "write_zeroes_max_bytes = WZSL" [ "$(cat $q/write_zeroes_max_bytes)" = 33554432 ]
	echo "identify_cs: discard_max_bytes $(cat $q/discard_max_bytes)," \
		"write_zeroes_max_bytes $(cat $q/write_zeroes_max_bytes)"
	acheck "discard whole device" blkdiscard /dev/nvme0n1
	# the Command Effects log lists exactly the admin commands there are
	acheck "effects log" sh -c "nvme get-log $d --log-id=5 --log-len=4096 -b >/tmp/eff.bin"
	for op in 0 1 2 4 5 6 8 9 10 12 24; do
		acheck "effects: admin $op supported" [ $(($(le 4 $((op * 4)) /tmp/eff.bin) & 1)) = 1 ]
	done
	acheck "effects: admin 3 not" [ "$(le 4 12 /tmp/eff.bin)" = 0 ]
	acheck "effects: admin 0xfd not" [ "$(le 4 $((0xfd * 4)) /tmp/eff.bin)" = 0 ]
	check "rmmod" unload_nvmev
}
