#!/bin/bash
# Guest test tier: build nvmev.ko against Debian's linux-headers-amd64,
# build an initramfs, boot Debian's linux-image-amd64 under QEMU (TCG), run
# the guest tests and fail unless all pass.
# Usage: guest-test.sh [TESTS]   (comma-separated test names, default all)
# GUEST_KERNEL=SERIES boots the newest Debian kernel of that series in
# /boot (default 6.1; 6.12 needs linux-image-6.12-amd64 and its headers,
# 7.2 Debian 13's image and build tree: scripts/install-deps.sh k72).
# GUEST_MODULE=dkms boots the nvmev.ko DKMS installed for that kernel
# (scripts/dkms.sh) instead of building one, and the guest can modprobe it.
# With KERNEL_TREE=DIR (a build tree from scripts/kernel/build-kernel.sh)
# the guest boots that kernel instead, and nvmev.ko is built against it.
# GUEST_APPEND="VAR=value ..." passes variables to the guest tests (the
# kernel hands unknown command-line parameters to init as environment),
# e.g. SQLITE_ROWS=10000 for the experiments' scale. GUEST_NAME names the
# build directory of a KERNEL_TREE run (default: patched). GUEST_SMP is
# the number of vCPUs (default 3). GUEST_PIN_VCPUS=1 pins QEMU's threads
# on the host: the last vCPU (where a timing experiment runs the emulator)
# alone on the last host CPU, vCPU i on host CPU i for the others, and
# QEMU's other threads (main loop, I/O) with vCPU 0. A workload vCPU going
# idle and waking up then never lands on the emulator's CPU, and the main
# loop, which fires the guest's timers under TCG (hrtimer sleeps), is not
# queued behind the emulator's spinning vCPU. It needs GUEST_SMP <= the
# host's CPUs. GUEST_DRIVE_MIB sizes the tests' default drive (default 512:
# a 511 MiB drive; 64..2048); the guest gets that much RAM more than
# 1.5 GiB. The experiments' paper scale needs it: SQLITE_ROWS=10000 writes
# ~1.5 GiB (GUEST_DRIVE_MIB=2048). GUEST_MEMMAP=1 hides that much RAM at
# 1 GiB with memmap= (below the 3 GiB where QEMU's PCI hole starts) and the
# tests load the module with it; GUEST_MEMMAP=0 boots without, and the
# module takes a memory block for its registers and keeps the data in
# pages. The default is 0 where the kernel can hot-remove memory
# (CONFIG_MEMORY_HOTREMOVE: Debian's), 1 where it cannot (the patched
# kernels).
# GUEST_MACHINE=q35 boots QEMU's q35 machine (PCIe, an ECAM window)
# instead of the default i440fx. GUEST_IOMMU=1 (with q35) adds an Intel
# IOMMU with interrupt remapping on (intel-iommu,intremap=on), which the
# kernel then enables by default; otherwise the guest boots with
# intremap=off. The guest kernel gets iomem=relaxed: the PCI tests read
# and write BAR0 through /dev/mem with the nvme driver bound, and nokaslr:
# with the kernel image placed at random, high in RAM about one boot in
# five, no memory block below it can leave its RAM range (nvmev_bar_mem.c)
# and the block-mode loads would pass or fail by luck. A memmap= boot
# also reserves a crash kernel near the top of RAM, which puts the
# blocks below it in that position on purpose (memory.sh).
# GUEST_NET=listen:PORT or connect:PORT gives the guest a virtio NIC (eth0)
# on a QEMU socket network: the guest that listens on 127.0.0.1:PORT and
# the one that connects to it share one Ethernet segment, as two machines
# would (scripts/fabric-pair.sh). Its build directory gets -listen or
# -connect, so that both can run at once.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/vm/kernels.sh
. scripts/vm/kernels.sh
tests=${1:-all}
series=${GUEST_KERNEL:-6.1}
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || { echo "guest-test: GUEST_KERNEL=$series is not a kernel series (6.1, 6.12, 7.2)" >&2; exit 2; }
build=${BUILD:-build}/guest${KERNEL_TREE:+-${GUEST_NAME:-patched}}
[ -z "${KERNEL_TREE:-}" ] && [ "$series" != 6.1 ] && build=$build-$series
nic=(-nic none)
case ${GUEST_NET:-} in
'') ;;
listen:[1-9]* | connect:[1-9]*)
	# a MAC of each side's own
	mac=52:54:00:12:34:0$([ "${GUEST_NET%%:*}" = listen ] && echo 1 || echo 2)
	nic=(-netdev "socket,id=n0,${GUEST_NET%%:*}=127.0.0.1:${GUEST_NET#*:}"
		-device "virtio-net-pci,netdev=n0,mac=$mac")
	build=$build-${GUEST_NET%%:*}
	;;
*) echo "guest-test: GUEST_NET=$GUEST_NET is not listen:PORT or connect:PORT" >&2; exit 2 ;;
esac
timeout_s=${GUEST_TIMEOUT:-900}
smp=${GUEST_SMP:-3}
[[ $smp =~ ^[1-9][0-9]?$ ]] || { echo "guest-test: GUEST_SMP=$smp is not a vCPU count (1..99)" >&2; exit 2; }
drive_mib=${GUEST_DRIVE_MIB:-512}
if ! [[ $drive_mib =~ ^[1-9][0-9]{1,3}$ ]] || [ "$drive_mib" -lt 64 ] || [ "$drive_mib" -gt 2048 ]; then
	echo "guest-test: GUEST_DRIVE_MIB=$drive_mib is not a drive size in MiB (64..2048)" >&2
	exit 2
fi
machine=()
case ${GUEST_MACHINE:-} in
'') ;;
q35 | pc) machine=(-M "$GUEST_MACHINE") ;;
*) echo "guest-test: GUEST_MACHINE=$GUEST_MACHINE is not q35 or pc" >&2; exit 2 ;;
esac
intremap=intremap=off
case ${GUEST_IOMMU:-0} in
0) ;;
1)
	[ "${GUEST_MACHINE:-}" = q35 ] ||
		{ echo "guest-test: GUEST_IOMMU=1 needs GUEST_MACHINE=q35" >&2; exit 2; }
	machine+=(-device "intel-iommu,intremap=on")
	intremap=
	;;
*) echo "guest-test: GUEST_IOMMU=$GUEST_IOMMU is not 0 or 1" >&2; exit 2 ;;
esac
mkdir -p "$build"

if [ -n "${KERNEL_TREE:-}" ]; then
	kernel=$KERNEL_TREE/arch/x86/boot/bzImage
	kver=$(cat "$KERNEL_TREE/include/config/kernel.release")
	kdir=$KERNEL_TREE
	[ -f "$kernel" ] || { echo "guest-test: no bzImage in $KERNEL_TREE" >&2; exit 1; }
else
	kver=$(debian_kernel "$series")
	[ -n "$kver" ] || { echo "guest-test: no $series kernel in /boot (linux-image-amd64, linux-image-$series-amd64; 7.2: scripts/install-deps.sh k72)" >&2; exit 1; }
	kernel=/boot/vmlinuz-$kver
	kdir=/lib/modules/$kver/build
	scripts/kdir-check.sh "$kdir"
fi
config=${KERNEL_TREE:+$KERNEL_TREE/.config}
config=${config:-/boot/config-$kver}
memmap=${GUEST_MEMMAP:-}
if [ -z "$memmap" ]; then
	memmap=1
	grep -q '^CONFIG_MEMORY_HOTREMOVE=y' "$config" 2>/dev/null && memmap=0
fi
case $memmap in
0) memory="NVMEV_DRIVE_MIB=$drive_mib" ;;
1) memory="memmap=${drive_mib}M\$1G crashkernel=16M@$((1024 + drive_mib + 320))M" ;;
*) echo "guest-test: GUEST_MEMMAP=$memmap is not 0 or 1" >&2; exit 2 ;;
esac

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
module_env=
case ${GUEST_MODULE:-build} in
build)
	cp -r Kbuild ftl nvmev hint-proto "$scratch/"
	make -s -C "$kdir" M="$scratch" modules
	;;
dkms)
	# what `modprobe nvmev` loads on this kernel: DKMS's build
	dkms_ko=$(modinfo -k "$kver" -n nvmev 2>/dev/null) || dkms_ko=
	[[ $dkms_ko == /lib/modules/$kver/updates/dkms/nvmev.ko* ]] ||
		{ echo "guest-test: DKMS has no nvmev.ko for $kver (found: ${dkms_ko:-none}); scripts/dkms.sh install" >&2; exit 1; }
	unpack_module "$dkms_ko" "$scratch/nvmev.ko"
	export NVMEV_MODPROBE=updates/dkms/nvmev.ko
	# the guest checks that modprobe loads this tree's version
	module_env="NVMEV_DKMS_VERSION=$(scripts/dkms.sh version)"
	echo "guest-test: nvmev.ko from DKMS: $dkms_ko (version $(modinfo -F version "$scratch/nvmev.ko"))"
	;;
*) echo "guest-test: GUEST_MODULE=$GUEST_MODULE is not build or dkms" >&2; exit 2 ;;
esac
# the userspace tools the tests run, from the project's CMake build
userspace=${BUILD:-build}/release
mkdir -p "$userspace"
# one build at a time: make check runs two guests at once
(
	flock 9
	cmake -S . -B "$userspace" -DCMAKE_BUILD_TYPE=Release -DNVMEV_TESTS=OFF >/dev/null
	cmake --build "$userspace" -j "$(nproc)" \
		--target nvmev-hint nvmev-fsfrag nvmev-sqlite nvmev-fileserver nvmev-layout nvmev-txn \
		nvmev-streams nvmev-uhost >/dev/null
) 9>"$userspace/.guest-test.lock"
scripts/vm/build-initramfs.sh "$kver" "$scratch/nvmev.ko" "$build/initramfs.gz" \
	"$PWD/$userspace/hint-proto/nvmev-hint" "$PWD/$userspace/workloads/nvmev-fsfrag" \
	"$PWD/$userspace/workloads/nvmev-sqlite" "$PWD/$userspace/workloads/nvmev-fileserver" \
	"$PWD/$userspace/workloads/nvmev-layout" "$PWD/$userspace/workloads/nvmev-txn" \
	"$PWD/$userspace/workloads/nvmev-streams" "$PWD/$userspace/uhost/nvmev-uhost"

log=$build/console.log
echo "guest-test: booting $kver, ${memory%%=*}=${drive_mib}, tests: $tests (timeout ${timeout_s}s)"
pin=()
host_cpus=$(nproc)
if [ "${GUEST_PIN_VCPUS:-0}" = 1 ]; then
	if [ "$smp" -gt "$host_cpus" ]; then
		echo "guest-test: GUEST_PIN_VCPUS=1 needs GUEST_SMP ($smp) <= host CPUs ($host_cpus)" >&2
		exit 2
	fi
	pin=(taskset -c 0)
fi
# -cpu max without 5-level paging: Debian's kernels turn LA57 on when the
# CPU has it, and under this QEMU's TCG a 6.12 guest with LA57 double-faulted
# in __kmalloc_cache_noprof, its exception frame garbage, in 2 of 17 boots
# (0 of 15 with la57=off); few machines have LA57, and no test needs it.
# tsc=reliable: -cpu max under TCG is not Intel and lacks constant_tsc, so
# the kernel assumes a multi-CPU guest's TSCs unsynchronized (a heuristic,
# not a measured warp) and falls back to the HPET, whose every read is an
# MMIO exit under QEMU's global lock -- a timed loop on one vCPU then
# slows the other's interrupts. TCG derives every vCPU's TSC from one
# monotonic host counter.
# loglevel=5: warnings reach the console too, so that a stuck CPU's stack
# (every CPU's, with softlockup_all_cpu_backtrace) is in the log even when
# the task that is stuck is the runner, which reads /dev/kmsg.
# -rtc clock=rt: the guest's RTC counts the host's monotonic time, which
# the runner holds the guest's uptime against to tell a leap of the host's
# TSC (a paused or moved host VM) from a stall (tests/guest/runner.sh).
# started: has the guest begun its first test (its "--- NAME: description"
# line, after the console's escapes); QEMU's redirection may not have
# made the log yet when it is first asked
started() { [ -f "$log" ] && tr -d '\r' <"$log" | grep -qE -- '--- [a-z0-9_]+(: .*)?$'; }
# hung: one guest CPU reported stuck 3 times, each for 2 minutes or more.
# The guest cannot end such a run itself when the stuck CPU holds its
# test runner (once: PID 1 on 6.1 for 1643 s, beside two other guests,
# until the timeout), so the host stops it. A leap of the host's TSC
# (runner.sh) makes each CPU report once, not again and again.
hung() {
	tr -d '\r' <"$log" | sed -n 's/.*soft lockup - CPU#\([0-9]*\) stuck for \([0-9]*\)s!.*/\1 \2/p' |
		awk '$2 >= 120 { n[$1]++ } END { for (c in n) if (n[c] >= 3) found = 1; exit !found }'
}
# boot: one run of the guest; $status is QEMU's exit status, "stall"
# when no test began within boot_limit_s, or "hung" (hung()); QEMU is
# then stopped
boot_limit_s=${GUEST_BOOT_LIMIT:-600}
boot() {
	local waited=0
	status=0
	"${pin[@]}" timeout "$timeout_s" qemu-system-x86_64 -name nvmev-guest,debug-threads=on "${machine[@]}" \
		-m "$((drive_mib + 1536))M" -smp "$smp" -accel tcg,thread=multi -cpu max,la57=off \
		-kernel "$kernel" -initrd "$build/initramfs.gz" -nographic -no-reboot "${nic[@]}" -rtc clock=rt \
		-append "console=ttyS0 $memory $intremap iomem=relaxed nokaslr panic=-1 quiet loglevel=5 softlockup_all_cpu_backtrace=1 tsc=reliable nvme.poll_queues=1 nvmev_tests=$tests $module_env ${GUEST_APPEND:-}" \
		</dev/null >"$log" 2>&1 &
	qemu=$!
	if [ ${#pin[@]} -gt 0 ]; then
		# everything started on host CPU 0; move vCPU i (> 0) to host CPU i,
		# the last vCPU to the last host CPU
		for _ in $(seq 100); do
			moved=0
			qpid=$(pgrep -P "$qemu" | head -1) || true # timeout's child
			for comm in "/proc/${qpid:-none}"/task/*/comm; do
				[ -r "$comm" ] || continue
				if [[ $(cat "$comm" 2>/dev/null) =~ ^CPU\ ([0-9]+)/TCG$ ]] &&
					[ "${BASH_REMATCH[1]}" -gt 0 ]; then
					cpu=${BASH_REMATCH[1]}
					[ "$cpu" -eq "$((smp - 1))" ] && cpu=$((host_cpus - 1))
					tid=$(basename "$(dirname "$comm")")
					taskset -p -c "$cpu" "$tid" >/dev/null && moved=$((moved + 1))
				fi
			done
			[ "$moved" -ge "$((smp - 1))" ] && break
			sleep 0.1
		done
		echo "guest-test: pinned $moved of $((smp - 1)) vCPU threads; QEMU's others on host CPU 0"
	fi
	while kill -0 "$qemu" 2>/dev/null && ! started; do
		if [ "$waited" -ge "$boot_limit_s" ]; then
			kill "$qemu"
			wait "$qemu" 2>/dev/null
			status=stall
			return
		fi
		sleep 5
		waited=$((waited + 5))
	done
	while kill -0 "$qemu" 2>/dev/null; do
		if hung; then
			kill "$qemu"
			wait "$qemu" 2>/dev/null
			status=hung
			return
		fi
		sleep 10
	done
	wait "$qemu" || status=$?
}
boot
# Under TCG a guest kernel has, rarely and on a loaded host, died or
# stopped while booting, before any test and before nvmev.ko was loaded:
# an int3 oops in sched_clock_cpu while the kernel patched its own text
# (seen once on 6.12 beside two other guests), and a console silent after
# "MP-BIOS bug" for the whole timeout (once, the patched 6.1 kernel on a
# host at load 20). That says nothing of nvmev: boot once more, and say
# so. A guest that died or stopped after a test started is never retried.
if ! started; then
	if [ "$status" = stall ]; then
		tr -d '\r' <"$log" | grep -v '^\s*$' | tail -3
		echo "guest-test: no test began within ${boot_limit_s}s of booting; booting once more"
		boot
	elif tr -d '\r' <"$log" | grep -q 'Kernel panic'; then
		tr -d '\r' <"$log" | grep -E 'Oops|RIP:|Kernel panic' | head -3
		echo "guest-test: the guest kernel died while booting, before any test ran; booting once more"
		boot
	fi
fi
tr -d '\r' <"$log" | grep -v '^\s*$' || true
[ "$status" = stall ] && echo "guest-test: no test began within ${boot_limit_s}s of booting, twice"
[ "$status" = 124 ] && echo "guest-test: QEMU timed out after ${timeout_s}s"
[ "$status" = hung ] && echo "guest-test: a guest CPU stayed stuck (3 soft lockup reports of 2 minutes or more); QEMU stopped"
summary=$(tr -d '\r' <"$log" | grep -E '^guest: [0-9]+ passed, [0-9]+ failed' | tail -1)
if [ -z "$summary" ]; then
	echo "guest-test: no result line from the guest (status $status)"
	exit 1
fi
echo "$summary"
[[ $summary =~ ", 0 failed" ]]
