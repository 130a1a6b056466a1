#!/bin/sh
# Guest tests of zoned namespaces (busybox sh, sourced by tests.sh): a
# configfs drive (zns_drive) with a conventional namespace and a zoned
# one, which Linux's zoned block stack takes as a host-managed disk.

# zone_field ZONE FIELD: a field of `blkzone report`'s line for the zone
# (8 MiB zones: 16384 sectors), e.g. wptr, zcond
zone_field() {
	blkzone report -o $(($1 * 16384)) -c 1 "$Z2" |
		sed -n "s/.* $2[: ]*\([^ ,]*\).*/\1/p"
}

# zns_write STATUS SLBA NLB: a Write of NLB 512-byte LBAs at SLBA of the
# zoned namespace through io-passthru, ending with STATUS (hex, 0: ok)
zns_write() {
	head -c $(($3 * 512)) /dev/urandom >/tmp/zw
	nvme io-passthru "$Z2" --opcode=0x01 --namespace-id=2 --cdw10="$2" --cdw12=$(($3 - 1)) \
		--data-len=$(($3 * 512)) --write --input-file=/tmp/zw >/tmp/pt.out 2>&1
	[ "$1" = 0 ] && ! grep -q "NVMe status" /tmp/pt.out && return 0
	status_is /tmp/pt.out "$1"
}

# zns_send STATUS ZSLBA ACTION [ALL]: Zone Management Send, ending with STATUS
zns_send() {
	nvme io-passthru "$Z2" --opcode=0x79 --namespace-id=2 --cdw10="$2" \
		--cdw13=$(($3 | ${4:-0} << 8)) >/tmp/pt.out 2>&1
	[ "$1" = 0 ] && ! grep -q "NVMe status" /tmp/pt.out && return 0
	status_is /tmp/pt.out "$1"
}

# The zone model as Linux sees it and as the spec says: the namespace a
# host-managed zoned disk of 24 zones, zone capacity below zone size;
# blkzone's open, close, finish and reset move zones through their states;
# writes only at the write pointer, within the capacity, into a zone that
# is not full; Zone Append returns the LBA it wrote; the open and active
# limits refuse with their statuses; a reset zone reads zeroes. Each
# refusal with the ZNS status the spec gives it.
# desc: zone states, write pointer rules, Zone Append and open/active limits
# tiers: stock
test_zns_states() {
	requires_zoned || return
	check "insmod" load_nvmev || return 1
	check "a drive with a zoned namespace" zns_drive || { drives_clean; return 1; }
	q=/sys/block/${Z2#/dev/}/queue
	echo "zns_states: $ZC has $Z1 (conventional) and $Z2 ($(cat "$q/zoned"), $(cat "$q/nr_zones") zones)"
	check "host-managed" [ "$(cat "$q/zoned")" = host-managed ]
	check "24 zones" [ "$(cat "$q/nr_zones")" = 24 ]
	check "8 MiB zones" [ "$(cat "$q/chunk_sectors")" = 16384 ]
	check "limits 2 open, 3 active" [ "$(cat "$q/max_open_zones"):$(cat "$q/max_active_zones")" = 2:3 ]
	check "the conventional one is not zoned" [ "$(cat "/sys/block/${Z1#/dev/}/queue/zoned")" = none ]
	check "zone 0 empty" [ "$(zone_field 0 zcond)" = "1(em)" ]
	check "capacity 6 MiB" [ "$(zone_field 0 cap)" = 0x003000 ]
	# writes: at the pointer, which moves; the zone opens implicitly
	check "write at the pointer" zns_write 0 0 8
	check "pointer moved" [ "$(zone_field 0 wptr)" = 0x000008 ]
	check "implicitly open" [ "$(zone_field 0 zcond)" = "2(oi)" ]
	check "not at the pointer" zns_write 0x41bc 100 8
	# Zone Append: the LBA it wrote, the pointer's
	head -c 4096 /dev/urandom >/tmp/za
	nvme zns zone-append "$Z2" --namespace-id=2 --zslba=0 --data-size=4096 --data=/tmp/za \
		>/tmp/za.out 2>&1
	check "append wrote at LBA 8" grep -q "LBA 8\$" /tmp/za.out || cat /tmp/za.out
	check "append's data there" sh -c "dd if=$Z2 bs=512 skip=8 count=8 iflag=direct 2>/dev/null | cmp - /tmp/za"
	check "append not at a zone start" sh -c "nvme io-passthru $Z2 --opcode=0x7d --namespace-id=2 \
		--cdw10=8 --cdw12=7 --data-len=4096 --write --input-file=/tmp/za >/tmp/pt.out 2>&1;
		grep -qi '(0x4002)' /tmp/pt.out"
	# capacity and full zones
	check "zone 1: up to 4 KiB short of its capacity" \
		dd if=/dev/urandom of="$Z2" bs=4k seek=$((16384 / 8)) count=$((12288 / 8 - 1)) oflag=direct
	check "across the capacity" zns_write 0x41b8 $((16384 + 12288 - 8)) 16
	check "filling it" zns_write 0 $((16384 + 12288 - 8)) 8
	check "full" [ "$(zone_field 1 zcond)" = "14(fu)" ]
	check "a full zone refuses" zns_write 0x41b9 $((16384 + 12288)) 8
	# limits: zone 0 implicitly open; explicit opens of 2 and 3 close it
	check "open zone 2" blkzone open -o $((2 * 16384)) -c 1 "$Z2"
	check "open zone 3" blkzone open -o $((3 * 16384)) -c 1 "$Z2"
	check "zone 2 explicitly open" [ "$(zone_field 2 zcond)" = "3(oe)" ]
	check "zone 0 implicitly closed" [ "$(zone_field 0 zcond)" = "4(cl)" ]
	check "a third open" zns_send 0x41be 0 3
	check "a write to a closed zone, both open explicitly" zns_write 0x41be 16 8
	check "close zone 3" blkzone close -o $((3 * 16384)) -c 1 "$Z2"
	check "a fourth active" zns_write 0x41bd $((4 * 16384)) 8
	check "close of an empty zone" zns_send 0x41bf $((5 * 16384)) 1
	check "an unknown action" zns_send 0x4002 0 7
	check "finish zone 3" blkzone finish -o $((3 * 16384)) -c 1 "$Z2"
	check "zone 3 full" [ "$(zone_field 3 zcond)" = "14(fu)" ]
	check "now the write goes in" zns_write 0 $((4 * 16384)) 8
	# reset: empty, reads zeroes
	check "reset zone 0" blkzone reset -o 0 -c 1 "$Z2"
	check "zone 0 empty again" [ "$(zone_field 0 zcond):$(zone_field 0 wptr)" = "1(em):0x000000" ]
	head -c 16384 /dev/zero >/tmp/z16
	check "reads zeroes" sh -c "dd if=$Z2 bs=4k count=4 iflag=direct 2>/dev/null | cmp - /tmp/z16"
	check "reset all" blkzone reset "$Z2"
	check "every zone empty" [ "$(blkzone report "$Z2" | grep -c '1(em)')" = 24 ]
	check "the conventional namespace works" fio_verify "$Z1" 16M
	drives_clean
	check "rmmod" unload_nvmev
}

# Linux's zoned stack on it: fio's zoned mode writes and crc-verifies
# 8 zones (two open at a time, within each zone's capacity) while the
# conventional namespace of the same drive is verified too.
# desc: fio's zoned mode verifies 8 zones beside the conventional namespace
# tiers: stock
test_zns_fio() {
	requires_zoned || return
	check "insmod" load_nvmev || return 1
	check "a drive with a zoned namespace" zns_drive || { drives_clean; return 1; }
	echo mq-deadline >"/sys/block/${Z2#/dev/}/queue/scheduler" 2>/dev/null
	fio_verify "$Z1" 32M >/tmp/fio.z1 2>&1 &
	f1=$!
	check "fio zbd verify" fio --name=zbd --filename="$Z2" --direct=1 --zonemode=zbd \
		--max_open_zones=2 --rw=write --bs=64k --size=64M --ioengine=libaio --iodepth=4 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --eta=never
	check "fio verify on the conventional one, meanwhile" wait $f1 || tail -5 /tmp/fio.z1
	check "zones written" [ "$(blkzone report "$Z2" | grep -vc '1(em)')" -ge 1 ]
	drives_clean
	check "rmmod" unload_nvmev
}

# 512-byte LBAs: the 4 KiB unit at the write pointer written in part
# (LBAs 0-3 of zone 5), then deallocated whole (Dataset Management of
# LBAs 0-7): the write of LBAs 4-7 at the pointer goes in, LBAs 0-3 read
# as zeroes, 4-7 as written, and the zone goes on from there. A reset of
# the empty zone 6 leaves it writable and reading zeroes.
# desc: deallocating the unit at a write pointer, then writing on from there
# tiers: stock
test_zns_dsm_wp() {
	requires_zoned || return
	check "insmod" load_nvmev || return 1
	check "a drive with a zoned namespace" zns_drive 0 0 || { drives_clean; return 1; }
	s=$((5 * 16384))
	check "LBAs 0-3 written" zns_write 0 $s 4
	check "LBAs 0-7 deallocated" nvme dsm "$Z2" --namespace-id=2 --ad --slbs=$s --blocks=8
	check "pointer unmoved" [ "$(zone_field 5 wptr)" = 0x000004 ]
	check "LBAs 4-7 at the pointer" zns_write 0 $((s + 4)) 4
	cp /tmp/zw /tmp/zw47
	check "pointer moved" [ "$(zone_field 5 wptr)" = 0x000008 ]
	head -c 2048 /dev/zero >/tmp/z2k
	check "LBAs 0-3 read zeroes" sh -c "dd if=$Z2 bs=512 skip=$s count=4 iflag=direct 2>/dev/null | cmp - /tmp/z2k"
	check "LBAs 4-7 read as written" sh -c "dd if=$Z2 bs=512 skip=$((s + 4)) count=4 iflag=direct 2>/dev/null | cmp - /tmp/zw47"
	check "the zone goes on" zns_write 0 $((s + 8)) 16
	check "reset of an empty zone" blkzone reset -o $((6 * 16384)) -c 1 "$Z2"
	check "it takes a write" zns_write 0 $((6 * 16384)) 8
	head -c 4096 /dev/zero >/tmp/z4k
	check "and reads zeroes after a reset" sh -c "blkzone reset -o $((6 * 16384)) -c 1 $Z2 &&
		dd if=$Z2 bs=4k skip=$((6 * 16384 / 8)) count=1 iflag=direct 2>/dev/null | cmp - /tmp/z4k"
	drives_clean
	check "rmmod" unload_nvmev
}

# Every zone of a namespace of many small zones spread over all 8 dies
# (64 zones of 4 MiB, 512 KiB a die each, less than an erase block)
# fills to its capacity through fio's zoned mode while the conventional
# namespace of the same drive is rewritten three times: the flash the
# layout promises is there, no write fails with Capacity Exceeded. Then
# a reset of every zone brings each back empty, reading zeroes, and they
# fill again.
# desc: every small zone fills to its capacity; a reset empties them all
# tiers: stock
test_zns_fill_all() {
	requires_zoned || return
	check "insmod" load_nvmev || return 1
	mount_configfs
	from=$(wc -l </tmp/kernel.log)
	check "drive" drive_mk z capacity_mib=320 channels=4 dies_per_channel=2 || return 1
	mkdir "$CFS/z/namespaces/1" "$CFS/z/namespaces/2"
	echo 64 >"$CFS/z/namespaces/1/size_mib"
	for kv in zoned=1 zone_mib=4 zone_cap_mib=4 max_open=0 max_active=0 zone_width=0; do
		echo "${kv#*=}" >"$CFS/z/namespaces/2/${kv%%=*}"
	done
	check "power on" sh -c "echo 1 >$CFS/z/power" || { drives_clean; return 1; }
	Z1=$(drive_disk z 1) && Z2=$(drive_disk z 2)
	echo mq-deadline >"/sys/block/${Z2#/dev/}/queue/scheduler" 2>/dev/null
	check "64 zones" [ "$(blkzone report "$Z2" | wc -l)" = 64 ]
	fio --name=conv --filename="$Z1" --direct=1 --rw=randwrite --bs=64k --size=64M --loops=3 \
		--ioengine=psync --verify=crc32c --verify_fatal=1 --do_verify=1 --eta=never \
		>/tmp/fio.z1 2>&1 &
	f1=$!
	check "fill every zone" fio --name=fill --filename="$Z2" --direct=1 --zonemode=zbd \
		--max_open_zones=8 --rw=write --bs=128k --ioengine=libaio --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --eta=never
	check "the conventional rewrites, meanwhile" wait $f1 || tail -5 /tmp/fio.z1
	full=$(blkzone report "$Z2" | grep -c '14(fu)')
	echo "zns_fill_all: $full of 64 zones full"
	check "every zone full" [ "$full" = 64 ]
	check "no write refused" sh -c "! tail -n +$((from + 1)) /tmp/kernel.log |
		grep -iE 'capacity exceeded|space allocation|I/O error'"
	check "reset every zone" blkzone reset "$Z2"
	check "every zone empty" [ "$(blkzone report "$Z2" | grep -c '1(em)')" = 64 ]
	head -c 4194304 /dev/zero >/tmp/z4m
	check "the last zone reads zeroes" sh -c "dd if=$Z2 bs=1M skip=252 count=4 iflag=direct \
		2>/dev/null | cmp - /tmp/z4m"
	check "fill again" fio --name=refill --filename="$Z2" --direct=1 --zonemode=zbd \
		--max_open_zones=8 --rw=write --bs=128k --ioengine=libaio --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --eta=never
	check "every zone full again" [ "$(blkzone report "$Z2" | grep -c '14(fu)')" = 64 ]
	drives_clean
	check "rmmod" unload_nvmev
}

# zone_row ZONE COLUMN: a column of debugfs zones' row for the zoned
# namespace's zone (nsid zone state wp first_die width blocks
# host_write_units nand_write_units pad_units resets finishes erases)
zone_row() {
	awk -v z="$1" -v c="$2" '$1 == 2 && $2 == z { print $c }' /sys/kernel/debug/nvmev-z/zones
}

# die_col DIE COLUMN: a column of debugfs stats' row for a die of drive z
# (die host_reads read_units read_collisions read_wait_ns buffer_hits
# host_write_units programs gc_reads gc_copies erases ...)
die_col() {
	awk -v d="$1" -v c="$2" 'NR > 1 && $1 == d && NF >= 15 { print $c; exit }' \
		/sys/kernel/debug/nvmev-z/stats
}

# Zones on flash, seen through debugfs: with zone_width=2 on the drive's
# 4 dies, a full zone written through the block layer lands on its two
# dies only, on blocks of its own (8 MiB: two 2 MiB blocks on each), and
# reaches NAND exactly once (WAF 1, no GC); a finish programs the one
# unit a zone buffers, padded to its program unit; a reset erases the
# zone's blocks and gives them back.
# desc: a zone's data on its own dies and blocks, written once, erased on reset
# tiers: stock
test_zns_flash() {
	requires_zoned || return
	check "insmod" load_nvmev || return 1
	check "a drive with 2-die zones" zns_drive 0 0 8 2 || { drives_clean; return 1; }
	check "zone 0 on dies 0-1" [ "$(zone_row 0 5):$(zone_row 0 6)" = 0:2 ]
	check "zone 1 on dies 2-3" [ "$(zone_row 1 5):$(zone_row 1 6)" = 2:2 ]
	check "a zone written whole" dd if=/dev/urandom of="$Z2" bs=1M count=8 oflag=direct 2>/dev/null
	echo "zns_flash: zone 0: $(zone_row 0 7) blocks, $(zone_row 0 8) host units, $(zone_row 0 9) NAND units;" \
		"die host units $(die_col 0 7) $(die_col 1 7) $(die_col 2 7) $(die_col 3 7)"
	check "zone 0 full" [ "$(zone_field 0 zcond)" = "14(fu)" ]
	check "2048 host units" [ "$(zone_row 0 8)" = 2048 ]
	check "written to NAND once" [ "$(zone_row 0 9):$(zone_row 0 10)" = 2048:0 ]
	check "on blocks of its own" [ "$(zone_row 0 7)" = 4 ]
	check "on its dies only" [ "$(die_col 0 7):$(die_col 1 7):$(die_col 2 7):$(die_col 3 7)" = 1024:1024:0:0 ]
	check "no GC" [ "$(($(die_col 0 10) + $(die_col 1 10)))" = 0 ]
	check "4 KiB into zone 1" dd if=/dev/urandom of="$Z2" bs=4k count=1 seek=2048 oflag=direct 2>/dev/null
	check "buffered, not programmed" [ "$(zone_row 1 9)" = 0 ]
	check "finish zone 1" blkzone finish -o 16384 -c 1 "$Z2"
	echo "zns_flash: zone 1 finished: $(zone_row 1 9) NAND units, $(zone_row 1 10) of them padding"
	check "programmed, padded" [ "$(zone_row 1 9):$(zone_row 1 10):$(zone_row 1 12)" = 8:7:1 ]
	e0=$(($(die_col 0 11) + $(die_col 1 11)))
	check "reset zone 0" blkzone reset -o 0 -c 1 "$Z2"
	echo "zns_flash: zone 0 reset: $(zone_row 0 13) erases, $(zone_row 0 7) blocks held"
	check "its 4 blocks erased" [ "$(zone_row 0 13):$(($(die_col 0 11) + $(die_col 1 11) - e0))" = 4:4 ]
	check "and given back" [ "$(zone_row 0 7):$(zone_row 0 11)" = 0:1 ]
	head -c 1048576 /dev/zero >/tmp/z1m
	check "reads zeroes" sh -c "dd if=$Z2 bs=1M count=1 iflag=direct 2>/dev/null | cmp - /tmp/z1m"
	drives_clean
	check "rmmod" unload_nvmev
}

# A zoned namespace's values that cannot be: each refused at power-on
# with EINVAL and one line, nothing made, and the drive powers on once
# they are mended; a zoned command on the conventional namespace is
# Invalid Command Opcode.
# desc: impossible zoned namespace values refused at power-on
# tiers: stock
test_zns_bad_input() {
	requires_zoned || return
	check "insmod" load_nvmev || return 1
	mount_configfs
	check "mkdir" drive_mk zb capacity_mib=128 || return 1
	n=$CFS/zb/namespaces
	mkdir "$n/1" "$n/2" && echo 32 >"$n/1/size_mib" && echo 1 >"$n/2/zoned"
	for bad in "zoned=2:zoned=2 must be 0 or 1" \
		"zone_mib=3:zone_mib=3 must be a power of two" \
		"zone_mib=128:zone_mib=128 must be a power of two, at most the namespace.s 96 MiB" \
		"zone_cap_mib=32:zone_cap_mib=32 is more than zone_mib=16" \
		"max_open=4:max_open=4 and max_active=2" \
		"max_open=-1:max_open=-1 and max_active=0" \
		"zone_width=9:zone_width=9 must be 1 to the drive.s 8 dies" \
		"zone_width=-1:zone_width=-1 must be 1 to the drive.s 8 dies"; do
		kv=${bad%%:*} msg=${bad#*:}
		[ "${kv%%=*}" = max_open ] && [ "${kv#*=}" = 4 ] && echo 2 >"$n/2/max_active"
		echo "${kv#*=}" >"$n/2/${kv%%=*}"
		dmesg -c >/dev/null
		check "$kv refused" fails_with "Invalid argument" sh -c "echo 1 >$CFS/zb/power"
		check "$kv logged" sh -c "dmesg | grep -q 'drive zb: namespace 2: $msg'"
		check "$kv: nothing made" sh -c "[ \$(cat $CFS/zb/power) = 0 ] && ! [ -d /sys/kernel/debug/nvmev-zb ]"
		echo 0 >"$n/2/max_active"
		case ${kv%%=*} in
		zoned) echo 1 >"$n/2/zoned" ;;
		zone_mib) echo 0 >"$n/2/zone_mib" ;;
		*) echo 0 >"$n/2/${kv%%=*}" ;;
		esac
	done
	check "power on mended" sh -c "echo 1 >$CFS/zb/power" || { drives_clean; return 1; }
	d1=$(drive_disk zb 1)
	check "a zone action on the conventional namespace" sh -c "nvme io-passthru $d1 --opcode=0x79 \
		--namespace-id=1 --cdw13=4 >/tmp/pt.out 2>&1; grep -qi '(0x4001)' /tmp/pt.out"
	check "96 MiB of 16 MiB zones" [ "$(cat "/sys/block/$(basename "$(drive_disk zb 2)")/queue/nr_zones")" = 6 ]
	drives_clean
	check "rmmod" unload_nvmev
}
