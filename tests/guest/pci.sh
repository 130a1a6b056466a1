#!/bin/sh
# Guest tests of the PCI side of nvmev.ko (busybox sh, sourced by
# tests.sh): Function Level Reset, Bus Master Enable, MSI-X masking and
# pending bits, unloading after the host let go of the function, and the
# load-time claim of a memmap= reservation.

NVME_DRV=/sys/bus/pci/drivers/nvme

# bytes SIZE: a memparse-style size (512M, 1G, 0x40000000) as a number
bytes() {
	case $1 in
	*G) echo $((${1%G} << 30)) ;;
	*M) echo $((${1%M} << 20)) ;;
	*K) echo $((${1%K} << 10)) ;;
	*) echo $(($1)) ;;
	esac
}
hex() { printf '0x%x' "$1"; }

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

# wait_nvme: the namespace block device is back (after a reset or bind)
wait_nvme() {
	i=0
	while [ ! -b /dev/nvme0n1 ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# and answers I/O
	dd if=/dev/nvme0n1 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
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
# admin commands run beside fio.
# desc: nvme IRQs moved between CPUs under QD1 reads: no I/O times out
# tiers: stock
test_pci_irq_moves() {
	check "insmod" load_nvmev || return 1
	check "prefill" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=8 oflag=direct
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
		"read clat max ${clat_max} us, fio error $err"
	check "some IRQ moved" [ "$moves" -gt 0 ]
	check "fio without error" [ "$err" = 0 ]
	check "no read took 1 s" [ "${clat_max%.*}" -lt 1000000 ]
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
