#!/bin/bash
# The fuzz tier: build the libFuzzer targets with clang (ASan, UBSan) from
# the same C files as nvmev.ko, replay each one's seed corpus and every
# past crash (tests/fuzz/regressions/), fuzz each for FUZZ_SECONDS
# (default 30) and print executions and coverage, then check that the
# state-machine fuzzer still catches the defects it was written for
# (scripts/fuzz-defects.sh). A crash fails the tier and leaves its input
# in build/fuzz/artifacts-TARGET/: add it to tests/fuzz/regressions/ once
# fixed.
#   fuzz_commands  command parsing, PRP walking, hints, the model's entry
#   fuzz_ctrl      the controller's state machine under a hostile host
#   fuzz_model     data and zone state against a reference model, through
#                  the module's data path (FUZZ_MODEL_ALLOW: checks to let
#                  pass, see tests/fuzz/fuzz_model.cc)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}/fuzz
seconds=${FUZZ_SECONDS:-30}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNVMEV_FUZZ=ON \
	-DNVMEV_TESTS=OFF -DNVMEV_BENCH=OFF >"$build.log" 2>&1 ||
	{ tail -30 "$build.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target fuzz_commands fuzz_ctrl fuzz_model >>"$build.log" 2>&1 ||
	{ tail -30 "$build.log"; exit 1; }

# fuzz TARGET CORPUS_DIR: replay, then fuzz a working copy of the corpus
fuzz() {
	local target=$1 seeds=$2 fuzzer=$build/tests/fuzz/$1 status=0 runs cov
	local corpus=$build/corpus-$1 artifacts=$build/artifacts-$1
	local inputs
	mapfile -t inputs < <(find "$seeds" "tests/fuzz/regressions/$target" -type f 2>/dev/null | sort)
	"$fuzzer" "${inputs[@]}" >"$build/replay-$target.log" 2>&1 ||
		{ tail -30 "$build/replay-$target.log"; echo "fuzz: $target: a seed or regression input fails"; return 1; }
	echo "fuzz: $target: ${#inputs[@]} seed and regression inputs replayed"
	# a working copy of the corpus, so a run never edits the repository
	rm -rf "$corpus" "$artifacts"
	mkdir -p "$corpus" "$artifacts"
	cp "$seeds"/* "$corpus/"
	"$fuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" \
		>"$build/fuzz-$target.log" 2>&1 || status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz-$target.log")
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$build/fuzz-$target.log" | tail -1)
	echo "fuzz: $target: ${runs:-?} executions in ${seconds} s, ${cov:-no coverage line}," \
		"corpus $(find "$corpus" -type f | wc -l) inputs"
	if [ "$status" -ne 0 ]; then
		grep -E "ERROR|SUMMARY|$target:" "$build/fuzz-$target.log" | head -20
		echo "fuzz: $target: crash, input kept in $artifacts/"
		return 1
	fi
}

fuzz fuzz_commands tests/fuzz/corpus
fuzz fuzz_ctrl tests/fuzz/corpus-ctrl
fuzz fuzz_model tests/fuzz/corpus-model
DEFECT_SECONDS=${DEFECT_SECONDS:-30} scripts/fuzz-defects.sh
DEFECT_SECONDS=${DEFECT_SECONDS:-30} FUZZ_TARGET=fuzz_model scripts/fuzz-defects.sh
