#!/bin/bash
# Command-line behaviour of nvmev-sim: bad input gets a precise message and
# exit status 2; good input produces parseable output.
set -u
sim=$1
# shellcheck source=tests/unit/cli_expect.sh
. "$(dirname "$0")/cli_expect.sh"

# expect STATUS PATTERN ARGS... : nvmev-sim ARGS exits with STATUS, its
# output matches PATTERN
expect() {
	local want=$1 pattern=$2
	shift 2
	expect_cmd "$want" "$pattern" "$sim" "$@"
}

expect 2 "invalid configuration: channels=0 is out of range" --channels 0 randwrite
expect 2 "page_bytes=6144 is not a multiple of 4096" --page-bytes 6144 alignment
expect 2 "granularity_bytes=1000 is not a multiple of 4096" fragment --granularity_bytes 1000
expect 2 "capacity too small for GC headroom" --blocks-per-plane 100 --op-percent 1 randwrite
expect 2 "stride 6144 is not a multiple of 4 KiB" alignment --stride-min-kib 6 --stride-max-kib 6
expect 2 "" --no-such-option randwrite
expect 2 "zone width 9 dies: must be 1 to the drive's 8" --capacity-mib 256 zone-log --width 9
expect 2 "total_bytes must hold a zone per stream" --capacity-mib 256 zone-sweep --open-zones 32
expect 2 "fill_percent leaves no room" --capacity-mib 256 zone-log --fill-percent 99
expect 2 "" randwrite --passes x
expect 2 "fdp_reclaim_groups=3 does not divide the 8 dies" --fdp-ruhs 2 --fdp-reclaim-groups 3 hotcold
expect 2 "hot region 1..99 %" hotcold --hot-percent 0
expect 2 "" hotcold --handle-by colour
expect 2 "" --format xml params
expect 2 "A subcommand is required"

printf 'W 0 4K\nQ 1 2\n' >"$tmp/bad.trace"
expect 2 "bad.trace:2: unknown operation 'Q'" trace "$tmp/bad.trace"
expect 2 "cannot open" trace "$tmp/missing.trace"

printf 'W 0 1M\nF\nB\nR 0 1M\n' >"$tmp/ok.trace"
expect 0 '"workload": "trace"' trace "$tmp/ok.trace"
expect 0 "^op,ops,bytes" --format csv trace "$tmp/ok.trace"
expect 0 "^stride_kib,iops" --format csv alignment --region-mib 16 --stride-max-kib 64 --reads 500
expect 0 "relative_throughput" --format csv fragment --capacity-mib 1024
expect 0 "write_amplification" --format csv --capacity-mib 64 --op-percent 20 --pages-per-block 16 randwrite --passes 1
# a row of write amplification per FDP handle
expect 0 "^1,[0-9]*,[0-9]*,[0-9]*,0,[0-9]*,[0-9]*,1\.[0-9]*$" --format csv --capacity-mib 64 --op-percent 20 --pages-per-block 16 --fdp-ruhs 2 hotcold --passes 1
# zones on flash: the log workload never collects a zoned drive (WAF
# exactly 1, no GC copy), while the conventional one amplifies
expect 0 "^zoned,1.0,0," --format csv --capacity-mib 256 zone-log --passes 2 --fill-percent 70
expect 0 "^conventional,\(1\.[0-9]*[1-9]\|[2-9]\)" --format csv --capacity-mib 256 zone-log --passes 2 --fill-percent 70
expect 0 "^8,1," --format csv --capacity-mib 512 zone-sweep --widths 8 --open-zones 1
# sub-page appends: with stream points each hinted 1 MiB file senses 33
# program units (the first append shares one), with one point about twice
expect 0 "^fragmented,[0-9.]*,[0-9.]*,33.0,32.0," --format csv --write-points-per-die 4 subpage --send-hints
expect 0 "^fragmented,[0-9.]*,[0-9.]*,6[0-9][.0-9]*,32.0," --format csv --write-points-per-die 1 subpage --send-hints
# the default: as many points as 3/4 of the write buffer holds (48 here)
expect 0 "^fragmented,[0-9.]*,[0-9.]*,33.0,32.0," --format csv subpage --send-hints
# an extent per append: a stream's unit is continued across extents
expect 0 "^fragmented,[0-9.]*,[0-9.]*,33.0,32.0," --format csv --write-points-per-die 4 subpage --send-hints --extents
expect 2 "subpage: files, sizes and reads must be non-zero multiples of 4 KiB" subpage --append-kib 0

# every parameter is listed by `params`, and options accept both spellings
"$sim" --format csv params >"$tmp/params" || fails=$((fails + 1))
for p in channels dies_per_channel granularity_bytes time_scale write_buffer_kib; do
	grep -q "^$p," "$tmp/params" || { echo "FAIL: params lacks $p"; fails=$((fails + 1)); }
done

if [ "$fails" -eq 0 ]; then
	echo "sim_cli: all checks passed"
fi
exit "$fails"
