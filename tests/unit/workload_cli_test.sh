#!/bin/bash
# Command-line behaviour of the workload generators: bad input gets a
# precise message and exit status 2 before anything is written; a missing
# directory or device file fails with status 1 and names the path.
# Usage: workload_cli_test.sh NVMEV_FSFRAG NVMEV_SQLITE NVMEV_FILESERVER NVMEV_TXN
set -u
fsfrag=$1
sqlite=$2
fileserver=$3
txn=$4
# shellcheck source=tests/unit/cli_expect.sh
. "$(dirname "$0")/cli_expect.sh"

# expect STATUS PATTERN TOOL ARGS... : as expect_cmd
expect() { expect_cmd "$@"; }

mkdir "$tmp/fs"
expect 2 "multiple of --chunk-kib" "$fsfrag" "$tmp/fs" --file-kib 100 --chunk-kib 32
expect 2 "--stripe-kib must exceed --chunk-kib" "$fsfrag" "$tmp/fs" --stripe-kib 32
expect 2 "at least --gap-step-kib" "$fsfrag" "$tmp/fs" --gap random --max-gap-kib 16
expect 2 "" "$fsfrag" "$tmp/fs" --kind sideways
expect 2 "" "$fsfrag"
expect 2 "--rows and --row-kib must be > 0" "$sqlite" "$tmp/fs" --rows 0
expect 2 "power of two in 512..65536" "$sqlite" "$tmp/fs" --page-size 3000
expect 2 "must be > 0" "$fileserver" "$tmp/fs" --threads 0
expect 2 "at most 256" "$fileserver" "$tmp/fs" --threads 1000
expect 2 "" "$fileserver" "$tmp/fs" --files x
expect 2 "not in range" "$fsfrag" "$tmp/fs" --cpu 5000
# a CPU this machine does not have: refused before anything is written
expect 2 "nvmev-sqlite: --cpu 1023: Invalid argument" "$sqlite" "$tmp/fs" --cpu 1023
# nothing was written by the rejected runs
[ -z "$(ls -A "$tmp/fs")" ] || { echo "FAIL: rejected runs left files: $(ls -A "$tmp/fs")"; fails=$((fails + 1)); }
# a device file that is not there: status 1, the path named
expect 1 "$tmp/none: cannot read" "$fsfrag" "$tmp/fs" --geometry "$tmp/none" --stats "$tmp/none"
expect 1 "$tmp/no-dir" "$sqlite" "$tmp/no-dir" --no-align --stats ''
expect 2 "" "$sqlite" "$tmp/fs" --journal-mode sideways
expect 2 "" "$sqlite" "$tmp/fs" --row-spread 2000

# nvmev-sqlite end to end without a device (in the build tree: FIEMAP),
# 20 rows: the three databases, and the hint switch held at 0 while the
# reference is built, then put back; a switch that is not there: status 1
db=$(mktemp -d -p "$PWD" sqlite.XXXXXX)
trap 'rm -rf "$tmp" "$db"' EXIT
echo 7 >"$db/switch"
expect 0 "^copy," "$sqlite" "$db" --rows 20 --no-align --stats '' \
	--reference-hints "$db/switch" --format csv
grep -q "relative_to_copy=" "$tmp/out" || { echo "FAIL: no relative_to_copy"; fails=$((fails + 1)); }
for f in contiguous fragmented copy; do
	grep -q "^$f," "$tmp/out" || { echo "FAIL: no $f row"; fails=$((fails + 1)); }
done
[ "$(cat "$db/switch")" = 7 ] || { echo "FAIL: hint switch left at $(cat "$db/switch")"; fails=$((fails + 1)); }
expect 1 "$db/none" "$sqlite" "$db" --rows 2 --no-align --stats '' --reference-hints "$db/none"

# nvmev-txn: bad input, a missing device, and a run on a file (O_DIRECT:
# in the build tree, since /tmp may be a tmpfs without it)
dev=$(mktemp -p "$PWD" txn-dev.XXXXXX)
trap 'rm -rf "$tmp" "$dev"' EXIT
expect 2 "not a multiple of 4" "$txn" "$dev" --member-kib 4,6
expect 2 "a device is required" "$txn"
expect 2 "larger than --span-mib" "$txn" "$dev" --members 64 --member-kib 64 --span-mib 1
expect 2 "" "$txn" "$dev" --members 0
expect 2 "" "$txn" "$dev" --rw sideways
expect 1 "$tmp/none" "$txn" "$tmp/none"
truncate -s 8M "$dev"
expect 0 '"transactions": 20' "$txn" "$dev" --members 4 --member-kib 4,8 --count 20 --span-mib 8
expect 0 "bytes=245760" "$txn" "$dev" --members 4 --member-kib 4,4,4,48 --in-order --count 4 \
	--span-mib 8 --rw write --format text
expect 0 "late_mean_ns=" "$txn" --sleep-probe-us 50 --count 5 --format text

[ "$fails" -eq 0 ] && echo "workload CLI: all checks passed"
exit $((fails > 0))
