#!/bin/bash
# Every test tier that exists, each counted, with one closing summary line:
#   unit     GoogleTest + CLI tests under ASan/UBSan (ctest)
#   release  the optimised build (-O2 warnings differ) and the experiments
#   kbuild   the module and ftl/ compiled as kernel code (W=1, -Werror)
#   guest    nvmev.ko in a QEMU guest running Debian's kernel, no memmap=;
#            then a q35 guest with interrupt remapping on and a memmap=
#            reservation (the iommu and memmap tests)
#   patched  the kernel built with host-patches/ (ext4 hints) in a guest
#   debug    that kernel with KASAN, kmemleak, lockdep, ... (debug.config):
#            the functional guest tests; any kernel report fails
#   fuzz     libFuzzer over command parsing, PRP walking, hints and the model
#   checkpatch, shellcheck  style: kernel C, scripts
# TIERS=unit,guest runs only those (make check TIERS=...); default all.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${BUILD:-build}
jobs=$(nproc)
passed=0
failed=0
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

all_tiers="unit release kbuild fuzz guest patched debug checkpatch shellcheck"
TIERS=${TIERS:-}
for t in ${TIERS//,/ }; do
	[[ " $all_tiers " == *" $t "* ]] ||
		{ echo "run-checks: TIERS: no tier '$t' (tiers: $all_tiers)" >&2; exit 2; }
done
wanted() { [ -z "$TIERS" ] || [[ ",$TIERS," == *",$1,"* ]]; }

tier() { # name command...
	local name=$1 start=$SECONDS
	shift
	echo "=== $name"
	if "$@"; then
		echo "=== $name: ok ($((SECONDS - start)) s)"
		return 0
	fi
	echo "=== $name: FAILED ($((SECONDS - start)) s)"
	return 1
}

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

# run_tier name command...: the tier if TIERS wants it, counted as one
run_tier() {
	wanted "$1" || return 0
	if tier "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# ctest's own count goes into the total; the other tiers count one each
mkdir -p "$build"
if wanted unit; then
	rm -f "$build/ctest.log"	# a failed build must not count an old run
	tier unit unit
	if line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$build/ctest.log" 2>/dev/null); then
		total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
		bad=$(sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/' <<<"$line")
		passed=$((passed + total - bad))
		failed=$((failed + bad))
	else
		failed=$((failed + 1))
	fi
fi

release() {
	make -s sim BUILD="$build" >"$build/release-build.log" 2>&1 ||
		{ tail -50 "$build/release-build.log"; return 1; }
	scripts/sim-experiments.sh "$build/release/sim/nvmev-sim" "$build/experiments"
}

run_tier release release
run_tier kbuild scripts/kbuild-check.sh
run_tier fuzz scripts/fuzz.sh
# the stock tests, then those that must also hold with x86 interrupt
# remapping on (q35 with an Intel IOMMU)
guest() {
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} scripts/guest-test.sh &&
		GUEST_MACHINE=q35 GUEST_IOMMU=1 GUEST_MEMMAP=1 scripts/guest-test.sh iommu,memmap
}
run_tier guest guest
patched() {
	local tree
	tree=$(scripts/kernel/build-kernel.sh | tail -1) &&
		KERNEL_TREE=$tree GUEST_TIMEOUT=1800 scripts/guest-test.sh patched
}

run_tier patched patched
# NVMEV_LONG=1: the documented long mode (more load cycles, GC passes)
debug() {
	local tree tests=debug limit=1500
	# every exec costs ~0.5 s under KASAN, lockdep and kmemleak in TCG:
	# the counts are cut to what drives each path a few times
	local counts="LIFECYCLE_CYCLES=5 PASSTHRU_FUZZ=20 SYNC_POLL_IOS=100 PCI_UNLOAD_CYCLES=2 BAD_PARAMS_SWEEP=none"
	counts="$counts PAGED_MIB=8"
	if [ -n "${NVMEV_LONG:-}" ]; then
		tests=debug_long
		counts="LIFECYCLE_CYCLES=200 GC_PASSES=12 PASSTHRU_FUZZ=2000 debug_pagealloc=on"
		limit=7200
	fi
	tree=$(scripts/kernel/build-kernel.sh --debug | tail -1) &&
		KERNEL_TREE=$tree GUEST_NAME=debug GUEST_TIMEOUT=$limit GUEST_APPEND="$counts" \
			scripts/guest-test.sh "$tests"
}

run_tier debug debug
run_tier checkpatch scripts/checkpatch.sh
run_tier shellcheck shellcheck -x -P SCRIPTDIR/../.. scripts/*.sh scripts/vm/*.sh scripts/kernel/*.sh \
	tests/unit/*.sh tests/guest/*.sh experiments/guest/*.sh .ci/run

echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
