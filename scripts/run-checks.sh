#!/bin/bash
# Every test tier that exists, each counted, with one closing summary line:
#   unit     GoogleTest + CLI tests under ASan/UBSan (ctest)
#   release  the optimised build (-O2 warnings differ) and the experiments
#   kbuild   the module and ftl/ compiled as kernel code (W=1, -Werror)
#   guest    nvmev.ko in a QEMU guest running Debian's kernel, no memmap=;
#            then a q35 guest with interrupt remapping on and a memmap=
#            reservation (the iommu and memmap tests)
#   guest612 the stock tests on Debian's 6.12, with the nvmev.ko that DKMS
#            built when that kernel was "installed" (its postinst hook),
#            loaded by modprobe (the dkms test) and by the stock tests
#   guest72  the same on Debian 13's 7.2, then its q35 guest with
#            interrupt remapping and memmap=, and two 7.2 guests over
#            NVMe/TCP (the fabric pair)
#   patched  the kernel built with host-patches/ (ext4 hints) in a guest
#   debug    that kernel with KASAN, kmemleak, lockdep, ... (debug.config):
#            the functional guest tests; any kernel report fails
#   fuzz     libFuzzer over command parsing, PRP walking, hints and the model
#   checkpatch, shellcheck  style: kernel C; scripts, and no dates or
#            times in the reference pages (reference-pages-check.sh)
# TIERS=unit,guest runs only those (make check TIERS=...); default all.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/vm/kernels.sh
. scripts/vm/kernels.sh
build=${BUILD:-build}
jobs=$(nproc)
passed=0
failed=0
# what failed, one line each, repeated just above the closing summary: a
# log cut to its tail still names the tier and test that failed
failures=()
# NVMEV_LONG=1: the long mode of the robustness tiers (fuzz 10 min here,
# more cycles and GC passes in the debug tier below)
[ -n "${NVMEV_LONG:-}" ] && export FUZZ_SECONDS=${FUZZ_SECONDS:-600}

# userspace builds (CMake) go through ccache, its cache outside the clone
# like the kernel's, so a second run on this machine recompiles nothing;
# paths below the clone are hashed relative to it (CCACHE_BASEDIR), so a
# clone elsewhere hits the same entries
cache=${NVMEV_CACHE:-/var/cache/nvmev}
if command -v ccache >/dev/null && mkdir -p "$cache/ccache" 2>/dev/null; then
	export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
	export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
fi

all_tiers="unit release kbuild fuzz guest guest612 guest72 patched debug checkpatch shellcheck"
TIERS=${TIERS:-}
for t in ${TIERS//,/ }; do
	[[ " $all_tiers " == *" $t "* ]] ||
		{ echo "run-checks: TIERS: no tier '$t' (tiers: $all_tiers)" >&2; exit 2; }
done
wanted() { [ -z "$TIERS" ] || [[ ",$TIERS," == *",$1,"* ]]; }

tier() { # name command...
	local name=$1 start=$SECONDS rc=0
	shift
	echo "=== $name"
	"$@" || rc=$?
	took "$name" "$start"
	if [ "$rc" -eq 0 ]; then
		echo "=== $name: ok ($((SECONDS - start)) s)"
		return 0
	fi
	echo "=== $name: FAILED ($((SECONDS - start)) s)"
	return 1
}

# took NAME START: NAME took from START to now ($SECONDS), for the closing
# "times:" line (a file: the lanes' tiers run in subshells)
took() { echo "$1 $((SECONDS - $2)) s" >>"$build/times"; }

unit() {
	if ! cmake -S . -B "$build/check" -DCMAKE_BUILD_TYPE=Debug -DNVMEV_SANITIZE=ON \
		-DNVMEV_BENCH=OFF >"$build/check-build.log" 2>&1 ||
		! cmake --build "$build/check" -j "$jobs" >>"$build/check-build.log" 2>&1; then
		tail -50 "$build/check-build.log"
		return 1
	fi
	(cd "$build/check" && ctest --output-on-failure -j "$jobs") | tee "$build/ctest.log"
	return "${PIPESTATUS[0]}"
}

# failed_tier NAME LOG: count NAME as failed and note why, from its log:
# the guest tests' "not ok" lines, else the tier (ctest's failed tests are
# noted where its count is read, below)
failed_tier() {
	local why
	failed=$((failed + 1))
	why=$(grep -h '^not ok - ' "$2" 2>/dev/null | sort -u | head -5)
	if [ -z "$why" ]; then
		failures+=("$1")
		return
	fi
	while IFS= read -r line; do
		failures+=("$1: ${line#not ok - }")
	done <<<"$why"
}

# run_tier name command...: the tier if TIERS wants it, counted as one
run_tier() {
	local log=$build/tier-$1.log
	wanted "$1" || return 0
	if tier "$@" 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed_tier "$1" "$log"
	fi
}

# run_lanes "A B" "C D": the guest tiers in two lanes at once, each lane's
# tiers one after the other, each tier counted as one, their output one
# after the other; "@FUNCTION" in a lane is a step that is no tier (its
# log is read by the tier that needs it). Lanes rather than pairs, so
# that no lane waits for the other at a barrier and both CPUs stay busy
# to the end (what the lanes cost: the comment at run_lanes' call). Their
# timing checks compare against controls measured in the same run, which
# a neighbour slows alike (scripts/busy-neighbour.sh is the same test).
# Tiers TIERS does not want are left out.
run_lanes() {
	local lane t pids=() rc
	rm -f "$build"/tier-*.rc
	for lane in "$@"; do
		(
			for t in $lane; do
				case $t in
				@*)
					"${t#@}" >"$build/step-${t#@}.log" 2>&1
					continue
					;;
				esac
				wanted "$t" || continue
				tier "$t" "$t" >"$build/tier-$t.log" 2>&1
				echo $? >"$build/tier-$t.rc"
			done
		) &
		pids+=($!)
	done
	wait "${pids[@]}"
	for lane in "$@"; do
		for t in $lane; do
			[[ $t != @* ]] || continue
			wanted "$t" || continue
			cat "$build/tier-$t.log"
			rc=$(cat "$build/tier-$t.rc" 2>/dev/null || echo 1)
			if [ "$rc" -eq 0 ]; then
				passed=$((passed + 1))
			else
				failed_tier "$t" "$build/tier-$t.log"
			fi
		done
	done
}

# count_unit: ctest's own count goes into the total (the other tiers
# count one each), from its log: a build that failed counts as one failure
count_unit() {
	local line total bad
	if line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$build/ctest.log" 2>/dev/null); then
		total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
		bad=$(sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/' <<<"$line")
		passed=$((passed + total - bad))
		failed=$((failed + bad))
		[ "$bad" -eq 0 ] || failures+=("unit: $(grep -E '^[[:space:]]+[0-9]+ - ' "$build/ctest.log" |
			awk '{ print $3 }' | paste -sd' ')")
	else
		failed_tier unit /dev/null
	fi
}
mkdir -p "$build"
rm -f "$build/times" "$build/ctest.log" "$build"/dkms-*.rc	# nothing counts an old run
if wanted unit; then
	tier unit unit
	count_unit
fi

release() {
	make -s sim BUILD="$build" >"$build/release-build.log" 2>&1 ||
		{ tail -50 "$build/release-build.log"; return 1; }
	# the pages' results blocks are written into copies: the tree stays as it is
	mkdir -p "$build/experiments"
	cp experiments/fragmentation/README.md "$build/experiments/fragmentation.md"
	cp experiments/subpage/README.md "$build/experiments/subpage.md"
	cp experiments/fdp/README.md "$build/experiments/fdp.md"
	RESULTS_PAGE="$build/experiments/fragmentation.md" experiments/fragmentation/run.sh \
		"$build/release/sim/nvmev-sim" "$build/experiments/fragmentation" &&
		RESULTS_PAGE="$build/experiments/subpage.md" experiments/subpage/run.sh \
			"$build/release/sim/nvmev-sim" "$build/experiments/subpage" &&
		RESULTS_PAGE="$build/experiments/fdp.md" experiments/fdp/run.sh \
			"$build/release/sim/nvmev-sim" "$build/experiments/fdp"
}

run_tier release release
# kbuild and fuzz run in a guest lane, below
kbuild() { scripts/kbuild-check.sh; }
fuzz() { scripts/fuzz.sh; }
# the stock tests, then those that must also hold with x86 interrupt
# remapping on (q35 with an Intel IOMMU)
guest() {
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} GUEST_APPEND="$loop_counts" scripts/guest-test.sh &&
		GUEST_MACHINE=q35 GUEST_IOMMU=1 GUEST_MEMMAP=1 scripts/guest-test.sh iommu,memmap
}
# A user's `make dkms-install` on a machine whose running kernel has no
# headers (CI's), then what apt runs when a kernel is installed: DKMS's
# postinst hook builds nvmev.ko for it. The install and 7.2's hook run
# before the lanes start, as guest72 opens its lane; 6.12's hook opens the
# third lane, long before guest612 boots (after the 6.1 guest), and never
# beside another hook: they build in DKMS's one build directory. Each
# kernel's tier prints what its hook said and fails if it failed.
dkms_install() {
	scripts/dkms.sh uninstall >"$build/dkms-install.log" 2>&1 &&
		scripts/dkms.sh install >>"$build/dkms-install.log" 2>&1
	echo $? >"$build/dkms-install.rc"
}
dkms_hook() { # SERIES
	local s=$1 k rc
	wanted "guest${s//./}" || return 0
	rc=$(cat "$build/dkms-install.rc" 2>/dev/null || echo 1)
	cp "$build/dkms-install.log" "$build/dkms-$s.log"
	k=$(debian_kernel "$s")
	if [ "$rc" -ne 0 ]; then
		:
	elif [ -z "$k" ]; then
		echo "dkms: no $s kernel installed (scripts/install-deps.sh check)" >>"$build/dkms-$s.log"
		rc=1
	else
		/etc/kernel/postinst.d/dkms "$k" >>"$build/dkms-$s.log" 2>&1
		rc=$?
	fi
	echo "$rc" >"$build/dkms-$s.rc"
}
dkms_hook_612() { dkms_hook 6.12; }
# dkms_ready SERIES: that kernel's hook ran and built the module (waiting
# for a hook another lane runs, up to 20 minutes)
dkms_ready() {
	local waited=0
	while [ ! -e "$build/dkms-$1.rc" ] && [ "$waited" -lt 1200 ]; do
		sleep 5
		waited=$((waited + 5))
	done
	tail -20 "$build/dkms-$1.log" 2>/dev/null
	[ "$(cat "$build/dkms-$1.rc" 2>/dev/null)" = 0 ]
}
# every stock test on each kernel, with the repetitions of its loops (the
# parameter sweep, fuzzed passthru commands, load cycles) cut to a few:
# every path is still driven on every kernel. The full counts (~130 s of
# a 6.1 guest) are the long mode's: NVMEV_LONG=1.
loop_counts="BAD_PARAMS_SWEEP=max PASSTHRU_FUZZ=100 LIFECYCLE_CYCLES=5"
loop_counts="$loop_counts PCI_UNLOAD_CYCLES=3 MEM_RELOAD_CYCLES=5"
[ -n "${NVMEV_LONG:-}" ] && loop_counts=
# alignment (fio's stride knees) measures ftl/ alone, the same C on every
# kernel: it runs on 6.1, and on 6.12 and 7.2 in the long mode only, as
# does 6.12's boot with memory in ZONE_MOVABLE (the 6.1 and 7.2 stock
# boots hot-remove memory too, without movablecore=), and 6.12's
# namespaces created with placement handle lists (the device's side is
# the same C on every kernel; 6.1 and 7.2 run it), its GC run over 4
# drive writes and its fill of every zone: both measure ftl/ alone, and
# the kernel's paths they take (direct writes, trims, zone resets) are
# each driven by shorter tests on 6.12 too
per_kernel=",-alignment"
per_612=",-ns_mgmt_fdp,-gc_integrity,-zns_fill_all"
[ -n "${NVMEV_LONG:-}" ] && per_kernel='' per_612=''
# bad_params' sweep of every ranged parameter (one refused load each)
# checks the module's range table, the same C on every kernel: 6.1 runs
# it, 6.12 and 7.2 only the loads whose refusal involves the kernel (the
# memmap= reservation against its resource tree) and the fixed ones
newer_counts=${loop_counts/BAD_PARAMS_SWEEP=max/BAD_PARAMS_SWEEP=none}
guest612() {
	dkms_ready 6.12 &&
		GUEST_KERNEL=6.12 GUEST_MODULE=dkms GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} \
			GUEST_APPEND="$newer_counts" \
			scripts/guest-test.sh "stock,dkms$per_kernel$per_612" || return
	[ -n "${NVMEV_LONG:-}" ] || return 0
	GUEST_KERNEL=6.12 GUEST_MODULE=dkms GUEST_MEMMAP=0 GUEST_APPEND="movablecore=768M" \
		scripts/guest-test.sh movable
}
# 7.2 reached the MSI parent domains and lost E820_TYPE_RESERVED_KERN
# (nvmev/nvmev_compat.h): the q35 boot drives both, through interrupt
# remapping and a memmap= reservation
guest72() {
	dkms_ready 7.2 &&
		GUEST_KERNEL=7.2 GUEST_MODULE=dkms GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} \
			GUEST_APPEND="$newer_counts" scripts/guest-test.sh "stock,dkms$per_kernel" &&
		GUEST_KERNEL=7.2 GUEST_MODULE=dkms GUEST_MACHINE=q35 GUEST_IOMMU=1 GUEST_MEMMAP=1 \
			scripts/guest-test.sh iommu,memmap &&
		GUEST_KERNEL=7.2 GUEST_MODULE=dkms scripts/fabric-pair.sh
}
# patched_long: the workload-level figures of the ext4 experiments
# (fileserver, fileserver_small, SQLite; ~450 s of a quiet guest), which
# make ext4 runs and checks too; the worst-case appends and overwrites
# (ext4_experiment) stay in every check
patched() {
	local tests=patched
	[ -n "${NVMEV_LONG:-}" ] && tests=patched,patched_long
	[ -n "$patched_tree" ] || { echo "patched: the kernel did not build (above)"; return 1; }
	KERNEL_TREE=$patched_tree GUEST_TIMEOUT=1800 scripts/guest-test.sh "$tests"
}

# NVMEV_LONG=1: the documented long mode (more load cycles, GC passes)
debug() {
	# the limit only guards against a hang: the tier has taken ~900 s
	# beside another guest on a 2-core machine
	local tests=debug limit=2400
	# every exec costs ~0.5 s under KASAN, lockdep and kmemleak in TCG:
	# the counts are cut to what drives each path a few times
	local counts="LIFECYCLE_CYCLES=5 PASSTHRU_FUZZ=20 PCI_UNLOAD_CYCLES=2"
	counts="$counts PAGED_MIB=8 RESET_IO_MIB=16"
	if [ -n "${NVMEV_LONG:-}" ]; then
		tests=debug_long
		counts="LIFECYCLE_CYCLES=200 GC_PASSES=12 PASSTHRU_FUZZ=2000 debug_pagealloc=on"
		limit=7200
	fi
	[ -n "$debug_tree" ] || { echo "debug: the kernel did not build (above)"; return 1; }
	KERNEL_TREE=$debug_tree GUEST_NAME=debug GUEST_TIMEOUT=$limit GUEST_APPEND="$counts" \
		scripts/guest-test.sh "$tests"
}

# the patched and debug kernels first, one after the other, before any
# guest runs: a build (most of an hour of both CPUs on a fresh machine,
# seconds from the cache) must not run beside a guest's timing checks
patched_tree=
debug_tree=
kernels_start=$SECONDS
if wanted patched; then
	patched_tree=$(scripts/kernel/build-kernel.sh | tail -1) || patched_tree=
fi
if wanted debug; then
	debug_tree=$(scripts/kernel/build-kernel.sh --debug | tail -1) || debug_tree=
fi
if wanted guest612 || wanted guest72; then
	dkms_install
	dkms_hook 7.2
fi
took "kernel builds and DKMS" "$kernels_start"
lanes_start=$SECONDS
# Three lanes (6.1 then 6.12; 7.2 then the debug kernel; 6.12's DKMS
# hook, the patched kernel, kbuild and fuzz). On 2 CPUs the lanes are
# CPU-bound: a TCG guest alone keeps 1.3 to 2 host CPUs busy through its
# I/O tests, and alone ran a set of them in a third of the time they took
# in the lanes. Their time follows the total work in them, so only less
# work shortens them; the lanes keep both CPUs busy to the end. Three
# guests at once cost more than two (9 vCPU threads on 2 CPUs): with
# 6.12 moved after kbuild and fuzz, beside the other two, the 6.1 and 7.2
# tiers took 1399 and 1300 s with less work in them than 1241 and 1184.
# More in them costs the guests what it saves elsewhere: with the unit,
# release and style tiers in the third lane too, the 6.1 and 7.2 guests
# took 1403 and 1359 s against 1029 and 1027, for 244 s of tiers taken
# off the serial path. The timing checks compare against controls from
# their own run, which a neighbour slows alike; fuzz-defects finds each
# defect in a second or two of its 30, beside busy guests too.
run_lanes "guest guest612" "guest72 debug" "@dkms_hook_612 patched kbuild fuzz"
took "the three lanes" "$lanes_start"
run_tier checkpatch scripts/checkpatch.sh
style() {
	shellcheck -x -P SCRIPTDIR/../.. scripts/*.sh scripts/vm/*.sh scripts/kernel/*.sh \
		tests/unit/*.sh tests/guest/*.sh experiments/*/*.sh .ci/run &&
		scripts/reference-pages-check.sh
}
run_tier shellcheck style

for f in "${failures[@]}"; do
	echo "failed: $f"
done
# every step's time in one line near the end, where a truncated log keeps it
echo "times: $(paste -sd, "$build/times" 2>/dev/null | sed 's/,/, /g'); all $SECONDS s"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
