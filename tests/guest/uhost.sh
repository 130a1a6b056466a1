#!/bin/sh
# Guest tests of nvmev-uhost (uhost/), the user-level polled NVMe driver:
# the controller is taken from the nvme driver and given to
# uio_pci_generic, its queues and data live in hugepages, and no interrupt
# is used. One test per torture case of `nvmev-uhost case`; several check
# behaviour the device does not have yet and fail until it does.
UHOST_HUGEPAGES=32

# pages_match_units: a page-backed store holds a page for every unit the
# model has mapped (the per-die valid_units of stats) and none more
pages_match_units() {
	[ "$(value data_paged "$DBG/stats")" = 1 ] || return 0
	pages=$(value data_pages "$DBG/stats")
	units=$(awk '/^[0-9]/ { s += $14 } END { print s + 0 }' "$DBG/stats")
	[ "$pages" = "$units" ] || { echo "$pages pages held for $units mapped units"; return 1; }
}

uhost_hugepages() {
	echo "$1" >/proc/sys/vm/nr_hugepages
	[ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$1" ]
}

# uio_pci_generic: a module init.sh loaded (scripts/vm/build-initramfs.sh
# lists it) or, in the patched kernel, built in
uhost_uio() { [ -d /sys/bus/pci/drivers/uio_pci_generic ]; }

# uhost_load [nvmev params...]: the device (the nvme driver binds first),
# hugepages, uio; nvmev-uhost moves the device to uio itself
uhost_load() {
	check "insmod" load_nvmev "$@" || return 1
	check "reserve $UHOST_HUGEPAGES hugepages" uhost_hugepages "$UHOST_HUGEPAGES" || return 1
	check "uio_pci_generic present" uhost_uio
}

# uhost_case NAME [ARGS]: run one case, show its lines, fail unless it
# printed "case NAME: ok" and exited 0
uhost_case_run() {
	nvmev-uhost case "$@" >/tmp/uhost.out 2>&1
	rc=$?
	[ $rc -eq 0 ] && grep -q "^case $1: ok$" /tmp/uhost.out
}
uhost_case() {
	check "case $*" uhost_case_run "$@"
	r=$?
	cat /tmp/uhost.out
	return $r
}

# uhost_expect_fail STATUS PATTERN CMD...: exits STATUS, says PATTERN
uhost_expect_fail() {
	want=$1
	pattern=$2
	shift 2
	"$@" >/tmp/uhost.err 2>&1
	rc=$?
	cat /tmp/uhost.err
	[ $rc -eq "$want" ] && grep -q "$pattern" /tmp/uhost.err
}

# give the device back to the nvme driver
uhost_rebind_nvme() {
	echo nvme >"$NVMEV_PCI/driver_override" &&
		echo "$NVMEV_BDF" >/sys/bus/pci/drivers/uio_pci_generic/unbind &&
		echo "$NVMEV_BDF" >/sys/bus/pci/drivers_probe &&
		wait_nvme0n1
}

# desc: nvmev-uhost takes the device, identifies it, reads, gives it back
# tiers: stock
test_uhost_bringup() {
	check "insmod" load_nvmev || return 1
	# an earlier test's reservation stays: take it back first
	check "release hugepages" uhost_hugepages 0
	check "no hugepages: says how to reserve them" uhost_expect_fail 1 nr_hugepages \
		nvmev-uhost info
	check "malformed BDF: usage error" uhost_expect_fail 2 "malformed PCI address" \
		nvmev-uhost --bdf 7e00:0 info
	check "no such device" uhost_expect_fail 1 "no PCI device" nvmev-uhost --bdf 7e01:00:00.0 info
	check "hugepages" uhost_hugepages "$UHOST_HUGEPAGES" || return 1
	check "uio_pci_generic present" uhost_uio || return 1
	check "info" sh -c 'nvmev-uhost info >/tmp/info.json'
	cat /tmp/info.json
	check "bound to uio_pci_generic" grep -q '"driver": "uio_pci_generic"' /tmp/info.json
	check "identify: namespace size" grep -q '"nsze": [1-9]' /tmp/info.json
	check "identify: model" grep -q '"model": "nvmev virtual SSD"' /tmp/info.json
	check "polled reads" nvmev-uhost bench --rw randread --bs 4k --qd 4 --queues 2 --ios 2000 \
		--format csv
	check "release" nvmev-uhost release
	check "back to the nvme driver" uhost_rebind_nvme
	check "nvme driver reads" dd if=/dev/nvme0n1 of=/dev/null bs=64k count=16 iflag=direct
	check "rmmod" unload_nvmev
}

# crc-verified random I/O of 4-64 KiB on 3 queues, 2x the capacity
# written (half of 4x moved), then everything read back; GC must have run
# desc: nvmev-uhost's crc-verified random I/O over twice the capacity, GC ran
# tiers: stock
test_uhost_verify() {
	uhost_load capacity_mib=64 op_percent=7 || return 1
	cap=$(value capacity_bytes "$DBG/geometry")
	check "verified randrw" sh -c "nvmev-uhost --dma-mib 48 bench --rw randrw --bs 4k:64k --qd 8 \
		--queues 3 --verify --io-bytes $((4 * cap)) >/tmp/uhost.json"
	cat /tmp/uhost.json
	gc=$(value gc_cycles "$DBG/stats")
	echo "uhost_verify: capacity $((cap >> 20)) MiB, gc_cycles=$gc," \
		"host_write_units=$(value host_write_units "$DBG/stats")"
	check "GC ran" [ "$gc" -gt 0 ]
	check "verify errors 0" grep -q '"verify_errors": 0' /tmp/uhost.json
	check "rmmod with uio bound" unload_nvmev
}

# desc: Create I/O CQ refuses bad interrupt vectors; a polled CQ verifies
# tiers: stock debug
test_uhost_vector() {
	uhost_load || return 1
	uhost_case vector
}

# the top-level "Reserved" ranges of /proc/iomem: START END (hex)
uhost_reserved() { sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : Reserved$/\1 \2/p' /proc/iomem; }

# the start of the last reserved range (not memmap's) that ends below the
# end of RAM: firmware's memory, which the guest kernel never hands out
uhost_bios_range() {
	ram_end=$(sed -n 's/^[0-9a-f]*-\([0-9a-f]*\) : System RAM$/\1/p' /proc/iomem | tail -1)
	uhost_reserved | while read -r start end; do
		[ "$start" != 40000000 ] && [ $((0x$end)) -lt $((0x$ram_end)) ] && echo "$start"
	done | tail -1
}

# Aim PRPs and queue bases at memory that is not host RAM: the device's
# own BAR0, the memory after it (a memmap= reservation's data, or the
# memory block the module took) and a firmware range below the end of RAM.
# Each on a fresh device.
# desc: PRPs and queue bases aimed at memory that is not host RAM
# tiers: stock debug
test_uhost_bad_prp() {
	uhost_load || return 1
	bar=$(head -1 "$NVMEV_PCI/resource" | cut -d' ' -f1)
	bios=$(uhost_bios_range)
	echo "bad_prp: BAR0 $bar, firmware range at 0x$bios"
	check "firmware range found" [ -n "$bios" ] || return 1
	uhost_case bad-prp --addr "$bar"
	check "no page kept by a failed write" pages_match_units
	rmmod_nvmev
	# 1 MiB past BAR0: the data of a memmap= reservation, or the rest of
	# the memory block the module took (both not RAM while it is loaded)
	for a in $((bar + 0x100000)) $((0x$bios)); do
		uhost_load || return 1
		uhost_case bad-prp --addr "$a"
		check "no page kept by a failed write ($a)" pages_match_units
		rmmod_nvmev
	done
}

# slow modelled time: a 4 KiB read takes tens of ms
# desc: deleting a submission queue with commands in flight
# tiers: stock debug
test_uhost_delete_sq_inflight() {
	uhost_load time_scale=1000 || return 1
	uhost_case delete-sq-inflight
}

# desc: a full completion queue holds completions back until there is room
# tiers: stock debug
test_uhost_cq_full() {
	uhost_load || return 1
	uhost_case cq-full
}

# desc: a full completion queue shared by several submission queues
# tiers: stock debug
test_uhost_cq_full_shared() {
	uhost_load || return 1
	uhost_case cq-full-shared
}

# desc: rounds of CC.EN off and on, each reset done right
# tiers: stock debug
test_uhost_cc_toggle() {
	uhost_load || return 1
	uhost_case cc-toggle
}

# desc: CC values the controller cannot take (queue entry sizes, AMS) refused
# tiers: stock debug
test_uhost_cc_bad() {
	uhost_load || return 1
	uhost_case cc-bad
}

# desc: Number of Queues: set before any I/O queue, refused after
# tiers: stock debug
test_uhost_numq_after_create() {
	uhost_load || return 1
	uhost_case numq-after-create
}

# desc: Bus Master Enable off under a user-level driver
# tiers: stock debug
test_uhost_bme() {
	uhost_load || return 1
	uhost_case bme
}

# the kernel's reset of the function while uio owns it, between two runs
# desc: a Function Level Reset while uio owns the device
# tiers: stock debug
test_uhost_flr() {
	uhost_load || return 1
	echo "flr: reset_method: $(cat "$NVMEV_PCI/reset_method" 2>/dev/null || echo none)"
	uhost_case flr --phase before || return 1
	check "reset" sh -c "echo 1 >$NVMEV_PCI/reset"
	uhost_case flr --phase after
}

# desc: a controller shutdown, then rmmod with uio bound
# tiers: stock debug
test_uhost_shutdown() {
	uhost_load || return 1
	uhost_case shutdown
	check "rmmod with uio bound" unload_nvmev
}

# also across a reload: what the nvme driver wrote before must be gone
# desc: unwritten blocks read zeroes to a user-level driver, across a reload
# tiers: stock
test_uhost_zero_read() {
	uhost_load || return 1
	lbs=$(cat /sys/block/nvme0n1/queue/logical_block_size)
	check "pattern" dd if=/dev/urandom of=/tmp/pattern bs=4096 count=1
	check "write it with the nvme driver" dd if=/tmp/pattern of=/dev/nvme0n1 bs=4096 seek=2048 \
		count=1 oflag=direct conv=fsync
	check "read it back" dd if=/dev/nvme0n1 of=/tmp/back bs=4096 skip=2048 count=1 iflag=direct
	check "it is there" cmp /tmp/pattern /tmp/back
	check "rmmod" unload_nvmev || return 1
	uhost_load || return 1
	uhost_case zero-read --lba $((2048 * 4096 / lbs))
}

# desc: Dataset Management of the most ranges, to the namespace's end
# tiers: stock debug
test_uhost_dsm_big() {
	uhost_load capacity_mib=64 || return 1
	uhost_case dsm-big
}

# The memory block under a live ring of a user-level driver (a hugepage)
# may not go offline: the kernel would migrate the page under the
# controller. The case tries, and nvmev says why it refused. The tier
# "movable" (a boot of the 6.12 tier) has movablecore= and no memmap=
# reservation, so that the hugepages lie in ZONE_MOVABLE blocks, which
# can otherwise go offline (elsewhere the kernel refuses for pages it
# cannot move, before nvmev is asked, and the test shows nothing).
# desc: a memory block under a live queue ring may not go offline
# tiers: movable
test_uhost_offline_ring() {
	requires_movable || return
	uhost_load || return 1
	dmesg -c >/dev/null
	uhost_case offline-ring
	dmesg | grep 'nvmev: ' | tail -3
	check "nvmev refused it for a ring" sh -c "dmesg | grep -qE 'may not go offline: queue [0-9]+.s (submission|completion) ring'"
	online_blocks
}
