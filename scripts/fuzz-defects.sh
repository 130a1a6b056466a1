#!/bin/bash
# Shows that a fuzzer catches the defects it was written for: each patch
# in its directory puts one fixed defect back into a scratch copy of the
# tree; the fuzzer, started from its seed corpus, must stop on it within
# DEFECT_SECONDS (default 60). Fails if any defect goes unnoticed or a
# patch no longer applies (the code it reverts changed: update the patch).
#   FUZZ_TARGET=fuzz_ctrl (default)  tests/fuzz/defects/, corpus-ctrl/
#   FUZZ_TARGET=fuzz_model           tests/fuzz/defects-model/, corpus-model/
# A patch's text before its diff says what it puts back; a first line
# FUZZ_MODEL_ALLOW=CHECKS lets those checks pass for that patch alone (a
# defect that lies behind another one the fuzzer would stop on first).
# Usage: fuzz-defects.sh [PATCH...]   (default: every patch)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${DEFECT_SECONDS:-60}
target=${FUZZ_TARGET:-fuzz_ctrl}
case $target in
fuzz_ctrl) defects=tests/fuzz/defects corpus=tests/fuzz/corpus-ctrl ;;
fuzz_model) defects=tests/fuzz/defects-model corpus=tests/fuzz/corpus-model ;;
*) echo "fuzz-defects: no defects for $target"; exit 1 ;;
esac
here=$PWD
mapfile -t patches < <(if [ $# -gt 0 ]; then printf '%s\n' "$@"; else ls "$defects"/*.patch 2>/dev/null || true; fi)
if [ ${#patches[@]} -eq 0 ]; then
	echo "fuzz-defects: $target: no patches in $defects/"
	exit 0
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
missed=0
for p in "${patches[@]}"; do
	name=$(basename "$p" .patch)
	tree=$scratch/$name
	mkdir -p "$tree"
	tar -C "$here" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf -
	if ! patch -s -p1 -d "$tree" <"$p"; then
		echo "fuzz-defects: $name: patch does not apply"
		missed=$((missed + 1))
		continue
	fi
	# ccache (run-checks.sh) hits across the scratch trees: paths relative
	# to each, so only what the patch touches compiles again
	export CCACHE_BASEDIR=$tree
	if ! CC=clang CXX=clang++ cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DNVMEV_FUZZ=ON -DNVMEV_TESTS=OFF -DNVMEV_BENCH=OFF >"$tree/build.log" 2>&1 ||
		! cmake --build "$tree/build" -j "$(nproc)" --target "$target" >>"$tree/build.log" 2>&1; then
		tail -20 "$tree/build.log"
		echo "fuzz-defects: $name: build failed"
		missed=$((missed + 1))
		continue
	fi
	mkdir -p "$tree/corpus" "$tree/artifacts"
	cp "$corpus"/* "$tree/corpus/"
	allow=$(sed -n '1s/^FUZZ_MODEL_ALLOW=//p' "$p")
	start=$SECONDS
	if FUZZ_MODEL_ALLOW=$allow "$tree/build/tests/fuzz/$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
		-artifact_prefix="$tree/artifacts/" "$tree/corpus" >"$tree/fuzz.log" 2>&1; then
		echo "fuzz-defects: $name: NOT found in $seconds s"
		missed=$((missed + 1))
	else
		why=$(grep -m1 -E "^$target: |ERROR: AddressSanitizer|runtime error" "$tree/fuzz.log" |
			sed -E 's/^==[0-9]+==//' | cut -c1-100) || true
		echo "fuzz-defects: $name: found in $((SECONDS - start)) s: ${why:-crash}"
	fi
	rm -rf "$tree"
done
echo "fuzz-defects: $target: $((${#patches[@]} - missed)) of ${#patches[@]} reintroduced defects found"
[ "$missed" -eq 0 ]
