#!/bin/sh
# Guest tests of page-backed data (busybox sh, sourced by tests.sh): with
# no memmap_* parameter, or memmap_size=1M (the reservation holds the
# registers only), the data lives in kernel pages, one per 4 KiB unit written, freed when the unit
# is deallocated; at most data_max_mib of them, after which a write fails
# with Capacity Exceeded and changes nothing.

# load_paged [params...]: load_nvmev with the data in pages
load_paged() { load_nvmev_mem "$NVMEV_PAGED" "$@"; }

# pages_are N: the store holds N pages (prints what it holds otherwise)
pages_are() {
	p=$(value data_pages "$DBG/stats")
	[ "$p" = "$1" ] || { echo "data_pages=$p, expected $1"; return 1; }
}

# id_ns NAME: a field of Identify Namespace as a decimal number (nvme-cli
# prints some in hex)
id_ns() {
	echo $(($(nvme id-ns /dev/nvme0n1 -n 1 | sed -n "s/^$1 *: *//p" | head -1)))
}

# dd_at OFFSET FILE: write_at with dd's error output kept
dd_at() {
	dd if="$2" of=/dev/nvme0n1 bs=64k seek="$1" oflag=direct,seek_bytes conv=notrunc
}

# A drive four times the tests' default: crc-verified writes of mixed sizes
# take a page per unit written; partial units keep zeroes around what was
# written; a deallocation or Write Zeroes of whole units frees their
# pages, of part of a unit zeroes that part; Identify says thin
# provisioned, with NUSE the pages held.
# desc: data in kernel pages: a page per unit written, freed on deallocation
# tiers: stock debug
test_paged_data() {
	m=1048576
	cap=$((NVMEV_DRIVE_MIB * 4))
	check "insmod, data in pages" load_paged capacity_mib=$cap lba_bytes=512 || return 1
	check "paged" [ "$(value data_paged "$DBG/stats")" = 1 ]
	check "no page before a write" pages_are 0
	check "capacity" [ "$(cat /sys/block/nvme0n1/size)" -ge $((cap * 2048 * 9 / 10)) ]
	check "nsfeat: thin provisioned" [ $(($(id_ns nsfeat) & 1)) = 1 ]
	check "nuse 0" [ "$(id_ns nuse)" = 0 ]
	# every 4 KiB unit of PAGED_MIB (32; the debug tier: fewer) written
	# once, past the default drive's size
	mib=${PAGED_MIB:-32}
	off=$(((cap - 64) * m))
	check "fio verify, 4-64 KiB" fio_verify /dev/nvme0n1 "${mib}M" --offset=$off
	check "a page per unit written" pages_are $((mib * 256))
	check "nuse: the pages" [ "$(id_ns nuse)" = $((mib * 256 * 8)) ]
	check "discard them" blkdiscard -o $off -l $((mib * m)) /dev/nvme0n1
	check "pages freed" pages_are 0
	check "discarded: zeroes" zeroes_at $off $((mib * m))
	# sector 1 of a unit nobody wrote: one page, the other sectors zero
	random /tmp/data.s 512
	random /tmp/data.p 16384
	check "write sector 1 of a unit" write_at $((m + 512)) /tmp/data.s
	check "one page" pages_are 1
	{ head -c 512 /dev/zero; cat /tmp/data.s; head -c 3072 /dev/zero; } >/tmp/data.e
	check "the unit's other sectors read as zeroes" holds_at $m /tmp/data.e
	# part of a unit deallocated or zeroed: that part zero, the rest kept
	check "write 16 KiB" write_at $((2 * m)) /tmp/data.p
	check "discard 8 KiB from sector 2" blkdiscard -o $((2 * m + 1024)) -l 8192 /dev/nvme0n1
	{ head -c 1024 /tmp/data.p; head -c 8192 /dev/zero; tail -c +9217 /tmp/data.p; } >/tmp/data.e
	check "zeroes there, data around" holds_at $((2 * m)) /tmp/data.e
	# of its four units only the second lies wholly in the discarded
	# range: its page goes, those deallocated in part keep theirs
	check "a partly deallocated unit keeps its page" pages_are 4
	check "write zeroes over the 16 KiB" zeroout -o $((2 * m)) -l 16384 /dev/nvme0n1
	check "zeroed: pages freed" pages_are 1
	check "zeroed: zeroes" zeroes_at $((2 * m)) 16384
	check "rmmod" unload_nvmev
}

# data_max_mib=4: 3 MiB written fit, then a 1 MiB write fills the cap and
# the next fails with No space (Capacity Exceeded), counted, said once in
# the kernel log, and leaves what was there; after a deallocation the
# same write fits.
# desc: data_max_mib caps page-backed data: the write past it fails, no space
# tiers: stock debug
test_paged_cap() {
	m=1048576
	check "insmod, 4 MiB cap" load_paged capacity_mib=256 data_max_mib=4 || return 1
	check "cap" [ "$(value data_pages_max "$DBG/stats")" = 1024 ]
	random /tmp/data.a $((3 * m))
	random /tmp/data.b $m
	random /tmp/data.s 512
	check "write 3 MiB" write_at 0 /tmp/data.a
	check "write 1 MiB more: the cap" write_at $((100 * m)) /tmp/data.b
	check "1024 pages" pages_are 1024
	dmesg -c >/dev/null
	check "past the cap: No space" fails_with "No space left" dd_at $((200 * m)) /tmp/data.b
	check "again" fails_with "No space left" dd_at $((250 * m)) /tmp/data.s
	check "counted" [ "$(value data_full_writes "$DBG/stats")" -ge 2 ]
	check "said once" [ "$(dmesg | grep -c 'raise data_max_mib')" = 1 ]
	check "no page taken" pages_are 1024
	check "what was written stays" holds_at 0 /tmp/data.a
	check "and the last write" holds_at $((100 * m)) /tmp/data.b
	check "the refused write left zeroes" zeroes_at $((200 * m)) $m
	check "free 1 MiB" blkdiscard -o 0 -l $m /dev/nvme0n1
	check "now it fits" write_at $((200 * m)) /tmp/data.b
	check "and reads back" holds_at $((200 * m)) /tmp/data.b
	check "rmmod" unload_nvmev
}

# A drive 64 times the guest's RAM takes ext4 and a crc-verified fio job on
# a working set that fits: only what is written takes pages (the model's
# tables, 8 bytes per 4 KiB, are the part that is not sparse). A drive
# whose tables would not fit is refused at load with what they need.
# desc: a drive 64 times the guest's RAM holds a working set that fits
# tiers: stock
test_paged_sparse() {
	ram_mib=$(($(mem_total_kib) / 1024))
	cap=$((ram_mib * 64))
	check "insmod, ${cap} MiB" load_paged capacity_mib=$cap || return 1
	meta=$(value metadata_bytes "$DBG/geometry")
	echo "paged_sparse: ${cap} MiB drive, ${ram_mib} MiB RAM, tables $((meta >> 20)) MiB"
	check "tables: 8 bytes per 4 KiB" [ $((meta >> 20)) -ge $((cap / 512)) ]
	check "mkfs.ext4" mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 /dev/nvme0n1
	check "mount" mount /dev/nvme0n1 /mnt || return 1
	check "fio verify, 128 MiB" fio --name=sparse --directory=/mnt --size=128M --rw=randwrite \
		--bs=4k --direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --eta=never
	check "umount" umount /mnt
	pages=$(value data_pages "$DBG/stats")
	echo "paged_sparse: $((pages / 256)) MiB of data held after mkfs and fio"
	check "a page per unit written, not per unit of capacity" \
		sh -c "[ $pages -ge 32768 ] && [ $pages -le $((ram_mib * 256 / 2)) ]"
	check "rmmod" unload_nvmev
	# a drive whose tables would take more than half of the RAM left
	dmesg -c >/dev/null
	# shellcheck disable=SC2086 # the parameters, split on purpose
	check "tables too large: refused" fails_with "Cannot allocate memory" \
		insmod /modules/nvmev.ko $NVMEV_PAGED capacity_mib=$((ram_mib * 1024))
	check "says what they need" sh -c "dmesg | grep -q \"nvmev: the flash model's tables need\""
	check "nothing left" sh -c "! grep -q '^nvmev ' /proc/modules && ! [ -e /dev/nvme0 ]"
}
