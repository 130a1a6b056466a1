#!/bin/sh
# Guest tests of where the registers live (busybox sh, sourced by
# tests.sh): with neither memmap_start nor memmap_size the module takes
# one memory block from the running kernel for BAR0 and keeps the data in
# kernel pages; at unload it gives the block back. Uses data.sh's helpers.

# mem_total_kib: the kernel's MemTotal
mem_total_kib() { sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo; }

# online_blocks: every memory block the kernel has, online (a block given
# back by the module stays offline where auto_online_blocks says so)
online_blocks() {
	for s in /sys/devices/system/memory/memory*/state; do
		grep -q offline "$s" && { echo online >"$s" || return 1; }
	done
	return 0
}

# Insmod with no memory parameters on a running kernel: a memory block
# leaves MemTotal, its start is BAR0, written data reads back (crc-checked
# fio) and takes pages, the NGUID does not depend on which block; rmmod
# gives the block back (online again, MemTotal as before but for the
# block's struct pages) and a second load works the same. A block the
# kernel cannot spare is skipped: the test only needs one of the blocks
# tried to go.
# tiers: stock iommu
test_no_memmap() {
	block=$(($(sed 's/^/0x/' /sys/devices/system/memory/block_size_bytes)))
	before=$(mem_total_kib)
	dmesg -c >/dev/null
	check "insmod without memmap_*" load_nvmev_mem "" capacity_mib=1024 || return 1
	check "a memory block" [ "$(value memory_block "$DBG/geometry")" = 1 ]
	start=$(($(value memmap_start "$DBG/geometry")))
	check "block-aligned" [ $((start % block)) = 0 ]
	check "BAR0 at its start" grep -q "^$(printf '0x%016x' $start) " /sys/bus/pci/devices/*/resource
	check "said where" sh -c "dmesg | grep -q 'registers in memory block'"
	during=$(mem_total_kib)
	echo "no_memmap: block of $((block >> 20)) MiB at $(printf '%#x' $start), MemTotal $before -> $during kB"
	# less the block's struct pages, which MemTotal never counted
	check "MemTotal less the block" [ $((before - during)) -ge $((block * 15 / 16 / 1024)) ]
	check "data in pages" [ "$(value data_paged "$DBG/stats")" = 1 ]
	nguid=$(nvme id-ns /dev/nvme0n1 -n 1 | sed -n 's/^nguid *: *//p')
	check "fio verify" fio --name=block --filename=/dev/nvme0n1 --rw=randwrite --bsrange=4k-64k \
		--size=16M --direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --eta=never
	check "pages taken" [ "$(value data_pages "$DBG/stats")" -gt 0 ]
	check "rmmod" unload_nvmev
	dmesg | grep nvmev: | tail -2
	check "block given back" online_blocks
	echo "no_memmap: MemTotal after rmmod $(mem_total_kib) kB"
	# all but the block's struct pages, which now come from the kernel's
	# own memory (64 bytes per 4 KiB page)
	check "MemTotal as before" [ "$(mem_total_kib)" -ge $((before - block / 1024 / 64)) ]
	check "insmod again" load_nvmev_mem "" capacity_mib=1024 || return 1
	check "the same NGUID" [ "$(nvme id-ns /dev/nvme0n1 -n 1 | sed -n 's/^nguid *: *//p')" = "$nguid" ]
	check "rmmod again" unload_nvmev
	check "given back again" online_blocks
	check "MemTotal again" [ "$(mem_total_kib)" -ge $((before - block / 1024 / 64)) ]
}
