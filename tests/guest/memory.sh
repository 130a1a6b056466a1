#!/bin/sh
# Guest tests of where the registers live (busybox sh, sourced by
# tests.sh): with neither memmap_start nor memmap_size the module takes
# one memory block from the running kernel for BAR0 and keeps the data in
# kernel pages; at unload it gives the block back. With a memmap=
# reservation the data lives there, and the load claims the whole
# reservation and nothing else.

# memory_block_bytes: the size of the kernel's memory blocks
memory_block_bytes() { echo $(($(sed 's/^/0x/' /sys/devices/system/memory/block_size_bytes))); }

# Insmod with no memory parameters on a running kernel: a memory block
# leaves MemTotal, its start is BAR0, written data reads back (crc-checked
# fio) and takes pages, the NGUID does not depend on which block; rmmod
# gives the block back (online again, MemTotal as before but for the
# block's struct pages) and a second load works the same. A block the
# kernel cannot spare is skipped: the test only needs one of the blocks
# tried to go.
# desc: no memmap=: the module takes a memory block for BAR0 and gives it back
# tiers: stock iommu
test_no_memmap() {
	block=$(memory_block_bytes)
	before=$(mem_total_kib)
	blocks=$(memory_blocks)
	dmesg -c >/dev/null
	check "insmod without memmap_*" load_nvmev_mem "" capacity_mib=1024 || return 1
	check "a memory block" [ "$(value memory_block "$DBG/geometry")" = 1 ]
	start=$(($(value memmap_start "$DBG/geometry")))
	check "block-aligned" [ $((start % block)) = 0 ]
	check "BAR0 at its start" grep -q "^$(printf '0x%016x' $start) " /sys/bus/pci/devices/*/resource
	check "said where" sh -c "dmesg | grep -q 'registers in memory block'"
	check "one block gone from the kernel" [ "$(memory_blocks)" = $((blocks - 1)) ]
	during=$(mem_total_kib)
	echo "no_memmap: block of $((block >> 20)) MiB at $(printf '%#x' $start), MemTotal $before -> $during kB"
	# less the block's struct pages, which MemTotal never counted
	check "MemTotal less the block" [ $((before - during)) -ge $((block * 15 / 16 / 1024)) ]
	check "data in pages" [ "$(value data_paged "$DBG/stats")" = 1 ]
	nguid=$(nvme id-ns /dev/nvme0n1 -n 1 | sed -n 's/^nguid *: *//p')
	check "fio verify" fio_verify /dev/nvme0n1 16M
	check "pages taken" [ "$(value data_pages "$DBG/stats")" -gt 0 ]
	check "rmmod" unload_nvmev
	dmesg | grep nvmev: | tail -2
	check "block given back" [ "$(memory_blocks)" = "$blocks" ]
	echo "no_memmap: MemTotal after rmmod $(mem_total_kib) kB"
	# all but the block's struct pages, which now come from the kernel's
	# own memory (64 bytes per 4 KiB page)
	check "MemTotal as before" [ "$(mem_total_kib)" -ge $((before - block / 1024 / 64)) ]
	# no size at all: the page-backed default, 4 GiB
	check "insmod again, no parameters" load_nvmev_mem "" || return 1
	check "default capacity" expect_geometry capacity_bytes $((4096 << 20))
	check "the same NGUID" [ "$(nvme id-ns /dev/nvme0n1 -n 1 | sed -n 's/^nguid *: *//p')" = "$nguid" ]
	check "rmmod again" unload_nvmev
	check "given back again" [ "$(memory_blocks)" = "$blocks" ]
	check "MemTotal again" [ "$(mem_total_kib)" -ge $((before - block / 1024 / 64)) ]
}

# A block below a resource nested in its RAM range - the crash kernel that
# scripts/guest-test.sh reserves in a memmap= boot, in the top block; with
# KASLR often the kernel image - cannot go: the kernel could not shrink
# the range's resource around it (a WARN, and the block lost until
# reboot). The load passes over those and takes the one at the range's
# start, whose removal leaves the rest of the range, crash kernel and
# all, in place; rmmod gives it back.
# desc: the memory block taken is one whose removal leaves the crash kernel
# tiers: memmap
test_block_below_reservation() {
	requires_memmap || return
	crash=$(sed -n 's/^ *\([0-9a-f]*\)-[0-9a-f]* : Crash kernel$/\1/p' /proc/iomem)
	check "a crash kernel (crashkernel=, from scripts/guest-test.sh)" [ -n "$crash" ] || return 1
	blocks=$(memory_blocks)
	dmesg -c >/dev/null
	check "insmod without memmap_*" load_nvmev_mem "" capacity_mib=64 || return 1
	start=$(value memmap_start "$DBG/geometry")
	echo "block_below_reservation: crash kernel at 0x$crash, block taken at $start"
	check "a block below the crash kernel" [ $((start)) -lt $((0x$crash)) ]
	check "fio verify" fio_verify /dev/nvme0n1 8M
	check "rmmod" unload_nvmev
	check "block given back" [ "$(memory_blocks)" = "$blocks" ]
	check "its range System RAM again" grep -q "^ *${start#0x}-[0-9a-f]* : System RAM" /proc/iomem
}

# With a memmap= reservation: a load with no size takes all of it but the
# 1 MiB register area, with the data there (not in pages); a drive larger
# than the reservation and a cap on page-backed data are refused.
# desc: with memmap=: the whole reservation by default, oversize refused
# tiers: memmap debug
test_memmap_limits() {
	requires_memmap || return
	check "insmod" load_nvmev || return 1
	check "the whole reservation" expect_geometry capacity_bytes $(((NVMEV_DRIVE_MIB - 1) << 20))
	check "data in the reservation" [ "$(value data_paged "$DBG/stats")" = 0 ]
	check "not a memory block" [ "$(value memory_block "$DBG/geometry")" = 0 ]
	check "rmmod" unload_nvmev
	# shellcheck disable=SC2086 # the parameters, split on purpose
	check "too big for memmap" bad_insmod "does not fit memmap_size" $NVMEV_MEM \
		capacity_mib=$((NVMEV_DRIVE_MIB * 2))
	# shellcheck disable=SC2086
	check "cap with memmap data" bad_insmod "data_max_mib=4 caps page-backed data" \
		$NVMEV_MEM data_max_mib=4
}

# offline_blocks: how many of the kernel's memory blocks are offline
offline_blocks() {
	grep -l offline /sys/devices/system/memory/memory[0-9]*/state 2>/dev/null | wc -l
}

# Reloads where nobody onlines the block rmmod gives back (Debian's 6.1
# leaves hot-added memory offline): the next load takes that offline
# block again rather than another online one, so the machine stays as
# the first unload left it - one block offline, the same MemTotal - and
# loses no further RAM however often the module is reloaded.
# MEM_RELOAD_CYCLES (default 20) insmod/rmmod cycles; the blocks are
# onlined only at the end.
# desc: reloads reuse the offline block rmmod left, losing no further RAM
# tiers: stock
test_mem_reload() {
	requires_no_memmap || return
	n=${MEM_RELOAD_CYCLES:-20}
	block_kib=$(($(memory_block_bytes) / 1024))
	online_blocks
	blocks=$(memory_blocks)
	before=$(mem_total_kib)
	first=
	cycle=0
	while [ $cycle -lt "$n" ]; do
		check "insmod $cycle" load_nvmev_mem "" capacity_mib=64 || break
		# plain rmmod: rmmod_nvmev would online the block
		check "rmmod $cycle" rmmod nvmev || break
		total=$(mem_total_kib)
		off=$(offline_blocks)
		[ -n "$first" ] || first=$total
		echo "mem_reload: cycle $cycle: MemTotal $total kB, $off blocks offline," \
			"$(memory_blocks) blocks"
		check "blocks $cycle" [ "$(memory_blocks)" = "$blocks" ]
		check "at most one block offline $cycle" [ "$off" -le 1 ]
		# a block more offline would take its whole size
		check "MemTotal as after the first cycle $cycle" \
			[ "$total" -ge $((first - block_kib / 16)) ]
		cycle=$((cycle + 1))
		# a module that leaks a block a load would take the guest's RAM
		[ "$off" -le 4 ] || break
	done
	online_blocks
	echo "mem_reload: $cycle cycles, MemTotal $before -> $(mem_total_kib) kB after onlining"
	# the block's struct pages, which now come from the kernel's own memory
	check "MemTotal as before" [ "$(mem_total_kib)" -ge $((before - block_kib / 64)) ]
}

# bytes SIZE: a memparse-style size (512M, 1G, 0x40000000) as a number
bytes() {
	case $1 in
	*G) echo $((${1%G} << 30)) ;;
	*M) echo $((${1%M} << 20)) ;;
	*K) echo $((${1%K} << 10)) ;;
	*) echo $(($1)) ;;
	esac
}

# iomem_top: the top-level ranges of /proc/iomem as "START END NAME"
# (numbers), one a line
iomem_top() {
	grep -v '^ ' /proc/iomem | while IFS= read -r line; do
		range=${line%% : *}
		echo "$((0x${range%-*})) $((0x${range#*-})) ${line#* : }"
	done
}

# free_at START SIZE: no top-level resource intersects [START, START+SIZE)
free_at() {
	iomem_top | while read -r s e _; do
		[ "$s" -lt $(($1 + $2)) ] && [ "$e" -ge "$1" ] && return 1
	done
}

# The load-time claim: the whole range lies in one "Reserved" resource
# with nothing else in it, the module claims all of it while loaded and
# nothing after; a hole, a firmware reserved range, a range that is only
# partly reserved and (GUEST_MACHINE=q35) the PCIe ECAM window are
# refused with one line saying what is there.
# desc: the load claims its whole memmap= reservation, refuses other ranges
# tiers: memmap
test_pci_reservation() {
	requires_memmap || return
	mib=$((1 << 20))
	start=$(bytes "$NVMEV_RESERVATION_START")
	end=$((start + NVMEV_DRIVE_MIB * mib - 1))
	check "insmod" load_nvmev || return 1
	grep -i -E "nvmev|$NVMEV_BDF|nvme" /proc/iomem | sed 's/^/pci_reservation: loaded: /'
	# BAR0 (the function's, the nvme driver's under it) and the rest
	bar_line=$(printf '%08x-%08x : %s' "$start" $((start + 0x3fff)) "$NVMEV_BDF")
	rest_line=$(printf '%08x-%08x : nvmev' $((start + 0x4000)) "$end")
	check "BAR0 claimed" grep -q "^ *$bar_line\$" /proc/iomem
	check "the rest claimed" grep -q "^ *$rest_line\$" /proc/iomem
	check "rmmod" unload_nvmev
	check "nothing claimed after rmmod" sh -c "! grep -E 'nvmev|$NVMEV_BDF' /proc/iomem"
	# a hole: the first 1 GiB-aligned free range above RAM
	ram_end=$(iomem_top | awk '/System RAM/ { e = $2 } END { printf "%d", e }')
	hole=$(((ram_end >> 30) + 1 << 30))
	k=0
	while ! free_at $hole $((16 * mib)) && [ $k -lt 64 ]; do
		hole=$((hole + (1 << 30)))
		k=$((k + 1))
	done
	echo "pci_reservation: a hole at $(hex $hole)"
	check "hole refused" bad_insmod "is not (entirely) a memmap= reservation: a hole" \
		memmap_start="$(hex $hole)" memmap_size=16M
	dmesg | grep 'nvmev: memmap' | sed 's/^/pci_reservation: /'
	# firmware's reserved ranges above 1 MiB: each refused (RAM next to
	# one is refused by the System RAM check)
	fw=0
	iomem_top | grep ' Reserved$' >/tmp/fw_reserved
	while read -r s e _; do
		[ "$s" -eq "$start" ] && continue	# ours
		[ "$s" -lt $mib ] && continue
		s1=$((s / mib * mib))
		size=$(((e + 1 - s1 + mib - 1) / mib))
		[ "$size" -lt 2 ] && size=2
		bad_insmod "\(is not (entirely) a memmap= reservation\|overlaps System RAM\)" \
			memmap_start="$(hex $s1)" memmap_size="${size}M" ||
			{ check "firmware Reserved $(hex "$s")-$(hex "$e") refused" false; continue; }
		line=$(dmesg | grep 'nvmev: memmap')
		echo "pci_reservation: $line"
		case $line in *"is not (entirely)"*) fw=$((fw + 1)) ;; esac
	done </tmp/fw_reserved
	check "a firmware Reserved range refused by the reservation check" [ $fw -gt 0 ]
	# only partly the reservation: its last MiB and one after it
	check "partly reserved refused" bad_insmod "\(is not (entirely) a memmap= reservation\|overlaps System RAM\)" \
		memmap_start="$(hex $((end + 1 - mib)))" memmap_size=2M
	# the PCIe ECAM window (q35): Reserved, with the busy ECAM inside
	ecam=$(grep -E 'PCI ECAM|PCI MMCONFIG' /proc/iomem | head -1 | sed 's/^ *\([0-9a-f]*\)-.*/\1/')
	if [ -n "$ecam" ]; then
		echo "pci_reservation: ECAM window at 0x$ecam"
		grep -E 'PCI ECAM|PCI MMCONFIG' -B1 /proc/iomem | sed 's/^/pci_reservation: /'
		check "ECAM refused" bad_insmod "is not (entirely) a memmap= reservation" \
			memmap_start="0x$ecam" memmap_size=16M
		dmesg | grep 'nvmev: memmap' | sed 's/^/pci_reservation: /'
	else
		echo "pci_reservation: no ECAM window on this machine (GUEST_MACHINE=q35 has one)"
	fi
	check "good insmod after the refusals" load_nvmev
	check "rmmod" unload_nvmev
}
