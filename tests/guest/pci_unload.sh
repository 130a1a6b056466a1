#!/bin/sh
# Guest tests of unloading nvmev.ko after the host let go of its PCI
# function (busybox sh, sourced by tests.sh): a controller reset, a sysfs
# removal or the driver's unbind before rmmod, and rmmod with a read in
# flight whose completion the model still holds.

# Unloading after the host let go of the function: a controller reset
# and a sysfs removal, then rmmod; the driver's unbind (CC.SHN), then
# rmmod. PCI_UNLOAD_CYCLES (default 10) times each, no kernel report.
# desc: rmmod after a controller reset, a sysfs removal or an unbind
# tiers: stock debug
test_pci_unload() {
	n=${PCI_UNLOAD_CYCLES:-10}
	cycle=0
	while [ $cycle -lt "$n" ]; do
		check "insmod $cycle" load_nvmev || return 1
		check "nvme reset $cycle" nvme reset /dev/nvme0
		check "I/O after reset $cycle" wait_nvme
		check "remove $cycle" sh -c "echo 1 >$NVMEV_PCI/remove"
		check "function gone $cycle" [ ! -e "$NVMEV_PCI" ]
		check "rmmod after remove $cycle" rmmod_nvmev || return 1
		check "insmod $cycle (unbind)" load_nvmev || return 1
		check "I/O $cycle" dd if=/dev/zero of=/dev/nvme0n1 bs=64k count=16 oflag=direct
		check "unbind $cycle" sh -c "echo $NVMEV_BDF >$NVME_DRV/unbind"
		check "rmmod after unbind $cycle" rmmod_nvmev || return 1
		check "no device $cycle" [ ! -e /dev/nvme0 ] && check "no module" \
			sh -c "! grep -q '^nvmev ' /proc/modules"
		cycle=$((cycle + 1))
	done
	echo "pci_unload: $n cycles of reset+remove+rmmod and unbind+rmmod"
}

# timed_rmmod SECONDS: rmmod_nvmev in the background, its status and
# duration in /tmp/rmmod.res ("STATUS SECONDS"); true if it ended within
# SECONDS (a background job that ended still answers kill -0 until the
# shell reaps it, hence the file)
timed_rmmod() {
	rm -f /tmp/rmmod.res
	(
		t0=$(uptime_s)
		rmmod_nvmev
		echo "$? $(($(uptime_s) - t0))" >/tmp/rmmod.res.new
		mv /tmp/rmmod.res.new /tmp/rmmod.res
	) &
	tr_t=0
	while ! [ -e /tmp/rmmod.res ] && [ $tr_t -lt $(($1 * 2)) ]; do
		sleep 0.5
		tr_t=$((tr_t + 1))
	done
	[ -e /tmp/rmmod.res ]
}

# inflight_unload SCALE TIMEOUT_MS: a 4 KiB read held by the model
# (read_ns 100 ms times SCALE) in flight when rmmod starts, the nvme
# driver's I/O timeout TIMEOUT_MS; rmmod must end within 90 s
inflight_unload() {
	check "insmod" load_nvmev read_ns=100000000 || return 1
	check "prefill" prefill 1
	check "time_scale $1" set_time_scale "$1"
	echo "$2" >/sys/block/nvme0n1/queue/io_timeout
	posted=$(value posted "$DBG/stats")
	dd if=/dev/nvme0n1 of=/dev/null bs=4k count=1 skip=7 iflag=direct 2>/dev/null &
	reader=$!
	sleep 1
	check "the read in flight" kill -0 $reader
	check "its completion not posted yet" [ "$(value posted "$DBG/stats")" = "$posted" ]
	check "rmmod ended within 90 s" timed_rmmod 90 || return 1
	read -r status took </tmp/rmmod.res
	check "rmmod succeeded" [ "$status" = 0 ]
	wait $reader
	rc=$?
	echo "pci_unload_inflight: read due in $(($1 / 10)) s, I/O timeout $2 ms:" \
		"rmmod took $took s, the read exited $rc"
	# due long after the teardown: the nvme driver gave up on it
	[ "$1" -lt 10000 ] || check "the read failed" [ "$rc" != 0 ]
	check "module gone" sh -c "! grep -q '^nvmev ' /proc/modules"
}

# A completion still due when the host tears the function down: rmmod
# with a read in flight whose completion the model holds, due during the
# teardown (4 s: the nvme driver's removal waits for it). No oops, no
# hang: rmmod ends, and a load after works.
# desc: rmmod with a read in flight that comes due during teardown
# tiers: stock debug
test_pci_unload_inflight() {
	inflight_unload 40 30000 || return 1
	check "insmod after" load_nvmev && check "I/O" fio_verify /dev/nvme0n1 4M
	check "rmmod" unload_nvmev
}

# The same, the read due long after the teardown (1000 s): the driver's
# I/O timeout, 10 s here, ends it and the driver deletes its queues
# before the bus goes. Not in the debug tier: there Linux 6.1's lockdep
# reports its own nvme-pci timeout work taking shutdown_lock while
# nvme_remove() syncs that work (a dependency inside the nvme driver,
# no nvmev lock in it).
# desc: rmmod with a read in flight the nvme driver's timeout ends
# tiers: stock
test_pci_unload_timeout() {
	inflight_unload 10000 10000 || return 1
	check "insmod after" load_nvmev && check "I/O" fio_verify /dev/nvme0n1 4M
	check "rmmod" unload_nvmev
}
