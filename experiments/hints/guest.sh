#!/bin/sh
# The guest half of `make hints`, run.sh beside it (busybox sh,
# sourced by tests.sh).

# The paper's fragmented-file patterns on the raw device, hints off and on,
# read at time_scale 1000: fraction of the contiguous file's throughput.
# Reads are 256 KiB: a larger O_DIRECT buffer can exceed the driver's 127
# segments and be split at a random point, adding a NAND read mid-granule.
# `make hints` checks the bounds; `make check` gates the same placement
# end to end through ext4 (ext4_experiment, patched tier) and not here
# too: these reads at time_scale 1000 cost two minutes of CI.
# tiers: none (run by name only)
test_hints_experiment() {
	check "insmod" load_nvmev || return 1
	for pattern in append overwrite; do
		for gap in worst random; do
			for h in off on; do
				nvmev-hint --format csv replay /dev/nvme0n1 --pattern $pattern --gap $gap \
					--hints $h --read-time-scale 1000 --read-kib 256 >/tmp/replay.csv ||
					{ check "replay $pattern $gap $h" false; continue; }
				rel=$(sed -n 's/^# relative_throughput=//p' /tmp/replay.csv)
				frag=$(grep '^fragmented,' /tmp/replay.csv)
				echo "hints_experiment: pattern=$pattern gap=$gap hints=$h relative=$rel $frag"
				r=$(awk -v r="$rel" 'BEGIN { printf "%d", r * 1000 }')
				case "$gap/$h" in
				worst/off) check "$pattern worst off <= 20 %" [ "$r" -le 200 ] ;;
				worst/on) check "$pattern worst on >= 98 %" [ "$r" -ge 980 ] ;;
				random/on) check "$pattern random on >= 97 %" [ "$r" -ge 970 ] ;;
				esac
			done
		done
	done
	check "rmmod" unload_nvmev
}
