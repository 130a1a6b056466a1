#!/bin/sh
# Guest tests of the PCI side of nvmev.ko (busybox sh, sourced by
# tests.sh): Function Level Reset, Bus Master Enable, MSI-X masking and
# pending bits, interrupts moved between CPUs and through an interrupt
# remapping IOMMU.

# bar0: where the loaded function's BAR0 is (the start of the reservation,
# or of the memory block the module took)
bar0() { echo $(($(head -c 18 "$NVMEV_PCI/resource"))); }

# bar32 OFFSET [VALUE]: read (or write) a register dword of BAR0 through
# /dev/mem; with the nvme driver bound this needs iomem=relaxed, which
# scripts/guest-test.sh passes
bar32() {
	if [ $# -eq 2 ]; then
		devmem "$(hex $(($(bar0) + $1)))" 32 "$2"
	else
		echo $(($(devmem "$(hex $(($(bar0) + $1)))" 32)))
	fi
}

# cfg16 OFFSET [VALUE]: read (or write) a config space word through sysfs
cfg16() {
	if [ $# -eq 2 ]; then
		# shellcheck disable=SC2059 # the format is the two bytes
		printf "\\$(printf %o $(($2 & 0xff)))\\$(printf %o $(($2 >> 8 & 0xff)))" |
			dd of="$NVMEV_PCI/config" bs=2 seek=$(($1 / 2)) count=1 conv=notrunc 2>/dev/null
	else
		dd if="$NVMEV_PCI/config" bs=2 skip=$(($1 / 2)) count=1 2>/dev/null | od -An -tu2 | tr -d ' '
	fi
}

# count_of PATTERN: how many kernel messages match
count_of() { dmesg | grep -c "$1"; }

# A Function Level Reset (the Initiate FLR bit of DEVCTL) resets the
# function: with the nvme driver bound (its reset_prepare/reset_done
# path) the device comes back with its data and the driver re-initialised;
# with the driver unbound the controller registers, the MSI-X table and
# the config registers are back at their reset values.
# desc: a Function Level Reset, driver bound and unbound, resets the function
# tiers: stock
test_pci_flr() {
	requires_devmem || return
	check "insmod" load_nvmev || return 1
	dd if=/dev/urandom of=/tmp/pattern bs=1M count=1 2>/dev/null
	check "write" dd if=/tmp/pattern of=/dev/nvme0n1 bs=1M seek=3 oflag=direct
	inits=$(count_of 'default/read/poll queues')
	flrs=$(count_of 'nvmev: function level reset done')
	check "FLR, driver bound" sh -c "echo 1 >$NVMEV_PCI/reset"
	check "the device did the FLR" [ "$(count_of 'nvmev: function level reset done')" -gt "$flrs" ]
	check "nvme driver re-initialised" [ "$(count_of 'default/read/poll queues')" -gt "$inits" ]
	check "namespace back" wait_nvme
	check "data kept" sh -c "dd if=/dev/nvme0n1 bs=1M skip=3 count=1 iflag=direct 2>/dev/null |
		cmp - /tmp/pattern"
	check "I/O after FLR" fio --name=flr --filename=/dev/nvme0n1 --offset=16M --size=8M --bs=16k \
		--rw=randwrite --ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
		--verify_fatal=1 --output=/tmp/flr.out
	# unbound (the driver's removal shut the controller down: CC.SHN)
	check "unbind" sh -c "echo $NVMEV_BDF >$NVME_DRV/unbind"
	cc=$(bar32 0x14)
	echo "pci_flr: driver unbound: CC=$(hex "$cc") CSTS=$(hex "$(bar32 0x1c)")" \
		"MSI-X entry 0 address $(hex "$(bar32 0x2000)")"
	check "CC set before the FLR" [ "$cc" != 0 ]
	flrs=$(count_of 'nvmev: function level reset done')
	check "FLR, driver unbound" sh -c "echo 1 >$NVMEV_PCI/reset"
	check "the device did the FLR (unbound)" \
		[ "$(count_of 'nvmev: function level reset done')" -gt "$flrs" ]
	cc=$(bar32 0x14)
	csts=$(bar32 0x1c)
	echo "pci_flr: after FLR: CC=$(hex "$cc") CSTS=$(hex "$csts")" \
		"MSI-X entry 0 address $(hex "$(bar32 0x2000)") control $(hex "$(bar32 0x200c)")"
	check "CC reset" [ "$cc" = 0 ]
	check "CSTS reset (not ready)" [ "$csts" = 0 ]
	check "MSI-X entry 0 reset" [ "$(bar32 0x2000)" = 0 ] && check "masked" [ "$(bar32 0x200c)" = 1 ]
	check "bind" sh -c "echo $NVMEV_BDF >$NVME_DRV/bind"
	check "namespace after bind" wait_nvme
	check "data kept after bind" sh -c "dd if=/dev/nvme0n1 bs=1M skip=3 count=1 iflag=direct \
		2>/dev/null | cmp - /tmp/pattern"
	check "rmmod" unload_nvmev
}

# Bus Master Enable off stops the device's DMA: with QD1 reads running,
# no completion is posted while it is off (2 s, well below the nvme
# driver's 30 s timeout); back on, I/O resumes and fio sees no error.
# desc: Bus Master Enable off stops completions; back on, I/O resumes
# tiers: stock
test_pci_bme() {
	check "insmod" load_nvmev || return 1
	check "prefill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=8 oflag=direct
	fio --name=bme --filename=/dev/nvme0n1 --size=8M --bs=4k --rw=randread \
		--ioengine=pvsync2 --direct=1 --runtime=8 --time_based --output=/tmp/bme.out &
	fio_pid=$!
	sleep 2
	cmd=$(cfg16 4)
	check "BME on" [ $((cmd & 4)) = 4 ]
	check "BME off" cfg16 4 $((cmd & ~4))
	sleep 0.3	# what the worker had in hand when it went off
	p0=$(value posted "$DBG/stats")
	sleep 2
	p1=$(value posted "$DBG/stats")
	check "BME on again" cfg16 4 "$cmd"
	echo "pci_bme: posted $p0 -> $p1 with Bus Master Enable off"
	check "no completion while off" [ "$p1" = "$p0" ]
	check "fio completes" wait $fio_pid
	check "no fio errors" grep -q "err= 0" /tmp/bme.out
	check "I/O resumed" [ "$(value posted "$DBG/stats")" -gt "$p1" ]
	grep -E "READ:" /tmp/bme.out | sed 's/^ */pci_bme: /'
	check "rmmod" unload_nvmev
}

# QD1 interrupt-driven reads while a loop moves the nvme IRQs between
# CPUs as fast as it can (x86 masks a vector while it moves it): no I/O
# may wait for the nvme timeout. The I/O queues' IRQs are managed (the
# kernel refuses to move them, EIO); the admin queue's is not, and
# admin commands run beside fio. The reads' worst is held against the
# same reads with no IRQ moved, run first: a busy host stretches both (and
# the moving loop takes guest CPU: 0.7 s against 38 ms on a host running
# four guests), an interrupt lost in a move holds a read until the nvme
# timeout, 30 s.
# desc: nvme IRQs moved between CPUs under QD1 reads: no I/O times out
# tiers: stock
test_pci_irq_moves() {
	check "insmod" load_nvmev || return 1
	check "prefill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=8 oflag=direct
	check "reads alone" fio --name=irqstill --filename=/dev/nvme0n1 --size=8M --bs=4k \
		--rw=randread --ioengine=pvsync2 --direct=1 --runtime=3 --time_based \
		--output-format=terse --terse-version=3 --output=/tmp/irq.still
	still_max=$(cut -d';' -f15 /tmp/irq.still)
	# 8 times that, and at least 5 s
	bound_us=$(control_bound_us "$still_max" 5000000)
	dmesg -c >/dev/null
	irqs=$(sed -n 's/^ *\([0-9]*\):.*nvme0q.*/\1/p' /proc/interrupts | tr '\n' ' ')
	fio --name=irqmove --filename=/dev/nvme0n1 --size=8M --bs=4k --rw=randread \
		--ioengine=pvsync2 --direct=1 --runtime=10 --time_based \
		--output-format=terse --terse-version=3 --output=/tmp/irq.out &
	fio_pid=$!
	(while kill -0 $fio_pid 2>/dev/null; do nvme id-ctrl /dev/nvme0 >/dev/null; done) &
	admin_pid=$!
	ncpu=$(grep -c '^processor' /proc/cpuinfo)
	moves=0
	refused=0
	m=1
	while kill -0 $fio_pid 2>/dev/null; do
		for n in $irqs; do
			if printf '%x\n' $m >"/proc/irq/$n/smp_affinity" 2>/dev/null; then
				moves=$((moves + 1))
			else
				refused=$((refused + 1))
			fi
		done
		m=$((m * 2))
		[ $m -ge $((1 << ncpu)) ] && m=1
	done
	check "fio" wait $fio_pid
	wait $admin_pid
	# terse v3: 5 = error, 15 = read clat max (us)
	err=$(cut -d';' -f5 /tmp/irq.out)
	clat_max=$(cut -d';' -f15 /tmp/irq.out)
	echo "pci_irq_moves: $moves affinity changes ($refused refused: managed), IRQs $irqs," \
		"read clat max ${clat_max} us (none moved: ${still_max} us; bound ${bound_us} us), fio error $err"
	check "some IRQ moved" [ "$moves" -gt 0 ]
	check "fio without error" [ "$err" = 0 ]
	check "no read took long" [ "${clat_max%.*}" -lt "$bound_us" ]
	check "no nvme timeout" sh -c '! dmesg | grep -i timeout'
	check "rmmod" unload_nvmev
}

# The direct check: mask an I/O queue's MSI-X vector in the table (as the
# host does while it moves an IRQ), issue a read on that queue: the
# interrupt waits in the PBA, and unmasking sends it; nothing waits for
# the nvme driver's 30 s timeout.
# desc: a masked MSI-X vector's interrupt waits in the PBA until unmasked
# tiers: stock
test_pci_msix_pending() {
	requires_devmem || return
	check "insmod" load_nvmev || return 1
	dmesg -c >/dev/null
	# hctx 0 is I/O queue 1, MSI-X vector 1 (the admin queue has 0)
	cpu=$(sed 's/[^0-9].*//' /sys/block/nvme0n1/mq/0/cpu_list)
	v=1
	vctrl=$((0x2000 + v * 16 + 12))
	check "vector $v unmasked" [ $(($(bar32 $vctrl) & 1)) = 0 ]
	check "mask vector $v" bar32 $vctrl 1
	taskset -c "$cpu" dd if=/dev/nvme0n1 of=/dev/null bs=4k count=1 skip=77 iflag=direct \
		2>/dev/null &
	dd_pid=$!
	sleep 1
	pba=$(bar32 0x3000)
	echo "pci_msix_pending: read on CPU $cpu, vector $v masked: PBA $(hex "$pba")"
	check "the read waits while masked" kill -0 $dd_pid
	check "PBA bit $v set" [ $((pba >> v & 1)) = 1 ]
	check "unmask" bar32 $vctrl 0
	sleep 1
	check "the read completed on unmask" sh -c "! kill -0 $dd_pid 2>/dev/null"
	check "PBA bit $v cleared" [ $(($(bar32 0x3000) >> v & 1)) = 0 ]
	wait $dd_pid	# without the fix: after the nvme timeout
	check "no nvme timeout" sh -c '! dmesg | grep -i timeout'
	check "rmmod" unload_nvmev
}

# nvme_irqs: interrupts the nvme driver's queues took, all CPUs
nvme_irqs() {
	awk '/nvme0q/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' \
		/proc/interrupts
}

# With x86 interrupt remapping on (q35 with intel-iommu,intremap=on; the
# kernel enables it by default): the stock driver binds, its queues' MSI-X
# interrupts arrive and complete I/O (crc-verified), polled queues take
# none. Prints the kernel's view of the remapping and of the vectors.
# desc: with interrupt remapping on, MSI-X interrupts arrive and complete I/O
# tiers: iommu
test_intremap() {
	requires_intremap || return
	grep -E "DMAR-IR|x2apic|IRQ remapping" /tmp/kernel.log | head -4
	check "insmod" load_nvmev || return 1
	grep nvme0q /proc/interrupts | head -3
	irqs=$(nvme_irqs)
	check "fio verify by interrupts" fio --name=ir --filename=/dev/nvme0n1 --size=32M --bs=64k \
		--rw=randwrite --ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
		--verify_fatal=1 --output=/tmp/fio.out
	echo "intremap: $(($(nvme_irqs) - irqs)) interrupts for the verify run"
	check "interrupts arrived" [ $(($(nvme_irqs) - irqs)) -gt 100 ]
	check "rmmod" unload_nvmev
}
