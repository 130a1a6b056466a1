#!/bin/bash
# The fuzz tier: build tests/fuzz/fuzz_commands with clang (libFuzzer,
# ASan, UBSan) from the same C files as nvmev.ko, replay the seed corpus
# and every past crash (tests/fuzz/regressions/), then fuzz for
# FUZZ_SECONDS (default 60) and print executions and coverage. A crash
# fails the tier and leaves its input in build/fuzz/artifacts/: add it to
# tests/fuzz/regressions/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}/fuzz
seconds=${FUZZ_SECONDS:-60}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNVMEV_FUZZ=ON \
	-DNVMEV_TESTS=OFF -DNVMEV_BENCH=OFF >"$build.log" 2>&1 ||
	{ tail -30 "$build.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target fuzz_commands >>"$build.log" 2>&1 ||
	{ tail -30 "$build.log"; exit 1; }
fuzzer=$build/tests/fuzz/fuzz_commands

# every seed and past crash once, as a regression test
mapfile -t inputs < <(find tests/fuzz/corpus tests/fuzz/regressions -type f 2>/dev/null | sort)
"$fuzzer" "${inputs[@]}" >"$build/replay.log" 2>&1 ||
	{ tail -30 "$build/replay.log"; echo "fuzz: a seed or regression input fails"; exit 1; }
echo "fuzz: ${#inputs[@]} seed and regression inputs replayed"

# a working copy of the corpus, so a run never edits the repository
rm -rf "$build/corpus" "$build/artifacts"
mkdir -p "$build/corpus" "$build/artifacts"
cp tests/fuzz/corpus/* "$build/corpus/"
status=0
"$fuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$build/artifacts/" "$build/corpus" \
	>"$build/fuzz.log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz.log")
cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$build/fuzz.log" | tail -1)
echo "fuzz: ${runs:-?} executions in ${seconds} s, ${cov:-no coverage line}," \
	"corpus $(find "$build/corpus" -type f | wc -l) inputs"
if [ "$status" -ne 0 ]; then
	grep -E "ERROR|SUMMARY|fuzz_commands:" "$build/fuzz.log" | head -20
	echo "fuzz: crash, input kept in $build/artifacts/"
	exit 1
fi
