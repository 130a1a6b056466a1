#!/bin/sh
# Guest tests of nvmev.ko on any kernel (busybox sh, sourced by tests.sh):
# loading and parameters, I/O and data integrity, admin and passthru
# commands, resets and removal, GC, timing, and the device side of the
# placement hints.

# desc: the module loads, a namespace reads and writes, the module unloads
# tiers: stock patched debug debug_long iommu
test_smoke() {
	check "insmod" load_nvmev || return 1
	check "read 1 MiB" dd if=/dev/nvme0n1 of=/dev/null bs=1M count=1
	check "write 1 MiB" dd if=/dev/zero of=/dev/nvme0n1 bs=1M count=1 oflag=direct
	check "rmmod" unload_nvmev
}

# id_field TOOL-OUTPUT-KEY: a field of "nvme id-ctrl/id-ns" output
id_field() { sed -n "s/^$1 *: *//p" /tmp/id.out | head -1; }

# desc: derived geometry and Identify fields for two drive shapes
# tiers: stock debug_long
test_geometry() {
	# the paper's 8-die drive on 256 MiB, 512-byte LBAs
	check "insmod 8 dies" load_nvmev capacity_mib=256 || return 1
	check "dies" expect_geometry dies 8
	check "granularity" expect_geometry effective_granularity_bytes 32768
	check "stripe" expect_geometry stripe_bytes 262144
	check "capacity" expect_geometry capacity_bytes 268435456
	nvme id-ctrl /dev/nvme0 >/tmp/id.out
	check "model name" grep -q "^mn *: nvmev virtual SSD" /tmp/id.out
	check "mdts" [ "$(id_field mdts)" = 8 ]
	nvme id-ns /dev/nvme0n1 >/tmp/id.out
	check "nsze" [ "$(id_field nsze)" = 0x80000 ]
	check "npwg = 32 KiB" [ "$(id_field npwg)" = 63 ]
	check "rmmod" unload_nvmev
	# 16 dies on 8 channels, 16 KiB granularity, 4 KiB LBAs, the default size
	check "insmod 16 dies" load_nvmev channels=8 dies_per_channel=2 \
		planes_per_die=1 granularity_bytes=16384 lba_bytes=4096 pages_per_block=32 || return 1
	check "dies 16" expect_geometry dies 16
	check "granularity 16K" expect_geometry effective_granularity_bytes 16384
	check "stripe 256K" expect_geometry stripe_bytes 262144
	check "lba 4K" expect_geometry lba_bytes 4096
	# the tests' default drive: a memmap= reservation but its 1 MiB
	# register area (lib.sh asks for as much without one)
	check "default drive" expect_geometry capacity_bytes $(((NVMEV_DRIVE_MIB - 1) * 1024 * 1024))
	nvme id-ns /dev/nvme0n1 >/tmp/id.out
	check "nsze 4K LBAs" [ "$(id_field nsze)" = "$(printf '0x%x' $(((NVMEV_DRIVE_MIB - 1) * 256)))" ]
	check "lbaf 4K" grep -q "lbads:12" /tmp/id.out
	check "rmmod" unload_nvmev
}

# Every parameter with a range -- the flash model's table
# (ftl/ftl_config.h) and the module's own (nvmev/nvmev_params.h) -- as the
# module describes it ("[default D, MIN..MAX]"): one above its maximum,
# one below its minimum where that is a number of its type, and not a
# number. Each load must fail with its own message and leave nothing
# behind. BAD_PARAMS_SWEEP=max: only the value above each maximum;
# BAD_PARAMS_SWEEP=none (the debug tier, where a load costs seconds and a
# range is refused before anything is allocated): no sweep, the loads
# that fail late are test_bad_params' own.
bad_model_params() {
	tr '\0' '\n' </modules/nvmev.ko >/tmp/modinfo
	sed -n 's/^parm=\([a-z0-9_]*\):.*\[default -\{0,1\}[0-9]*, \(-\{0,1\}[0-9]*\)\.\.\([0-9]*\)\]$/\1 \2 \3/p' \
		/tmp/modinfo >/tmp/model_params
	n=$(wc -l </tmp/model_params)
	# every parameter but the two memmap sizes (strings) and default_drive
	# (a bool) has a range
	all=$(($(grep -c '^parmtype=' /tmp/modinfo) - $(grep -cE '^parmtype=.*:(charp|bool)$' /tmp/modinfo)))
	if [ "$n" -eq 0 ] || [ "$n" -ne "$all" ]; then
		echo "ranges of $n of $all parameters found in nvmev.ko"
		return 1
	fi
	loads=0
	while read -r name lo hi; do
		# shellcheck disable=SC2086
		bad_insmod "$name=$((hi + 1)) is out of range" $NVMEV_MEM "$name=$((hi + 1))" ||
			{ echo "$name=$((hi + 1)) accepted or not explained"; return 1; }
		loads=$((loads + 1))
		[ "${BAD_PARAMS_SWEEP:-full}" = max ] && continue
		# below the minimum: the model's are unsigned, the module's int
		if [ "$lo" -gt 0 ] || grep -q "^parmtype=$name:int$" /tmp/modinfo; then
			# shellcheck disable=SC2086
			bad_insmod "$name=$((lo - 1)) is out of range" $NVMEV_MEM "$name=$((lo - 1))" ||
				{ echo "$name=$((lo - 1)) accepted or not explained"; return 1; }
			loads=$((loads + 1))
		fi
		# shellcheck disable=SC2086
		bad_insmod "invalid for parameter .$name" $NVMEV_MEM "$name=12x" ||
			{ echo "$name=12x accepted or not explained"; return 1; }
		loads=$((loads + 1))
	done </tmp/model_params
	echo "bad_params: $n parameters, $loads refused loads (sweep ${BAD_PARAMS_SWEEP:-full})"
}

# shellcheck disable=SC2086 # $m is a list of parameters
# desc: every out-of-range module parameter refused with its own message
# tiers: stock debug_long
test_bad_params() {
	m=$NVMEV_MEM
	check "channels=0" bad_insmod "channels=0 is out of range" $m channels=0
	check "time_scale" bad_insmod "time_scale=10001 is out of range" $m time_scale=10001
	check "page_bytes" bad_insmod "page_bytes=6144 is not a multiple of 4096" $m page_bytes=6144
	check "granularity" bad_insmod "granularity_bytes=6144 is not a multiple" $m granularity_bytes=6144
	check "granularity > block" bad_insmod "larger than an erase block" $m granularity_bytes=4194304
	check "both sizes" bad_insmod "mutually exclusive" $m capacity_mib=64 blocks_per_plane=10
	# capacity_mib=0: $m may set it, and the two sizes exclude each other
	check "headroom" bad_insmod "capacity too small for GC headroom" $m capacity_mib=0 \
		blocks_per_plane=20 op_percent=1
	check "gc order" bad_insmod "gc_fg_free_blocks=5 must not exceed" $m gc_fg_free_blocks=5
	check "default_drive" bad_insmod "invalid for parameter .default_drive" $m default_drive=2
	check "gc_bg" bad_insmod "must be below the" $m capacity_mib=0 blocks_per_plane=16 \
		op_percent=50 gc_bg_free_blocks=16
	check "write buffer" bad_insmod "write_buffer_kib=64 is too small" $m write_buffer_kib=64
	check "geometry overflow" bad_insmod "more than 4294967294 4 KiB pages" $m capacity_mib=16777216
	check "lba_bytes" bad_insmod "lba_bytes=1000 must be 512 or 4096" $m lba_bytes=1000
	check "cpu" bad_insmod "cpu=64 is not an online CPU" $m cpu=64
	check "no memmap_start" bad_insmod "memmap_start is missing" memmap_size=512M
	check "no memmap_size" bad_insmod "memmap_size is missing" memmap_start=1G
	check "bad size" bad_insmod "memmap_size=12Q is not a size" memmap_start=1G memmap_size=12Q
	check "unaligned" bad_insmod "memmap_size=3000K must be a non-zero multiple of 1 MiB" memmap_start=1G memmap_size=3000K
	check "system RAM" bad_insmod "overlaps System RAM" memmap_start=256M memmap_size=64M
	check "not reserved" bad_insmod "is not (entirely) a memmap= reservation" memmap_start=3G memmap_size=16M
	check "memmap_start 0" bad_insmod "memmap_start=0 must be a non-zero multiple" memmap_start=0 memmap_size=512M
	check "memmap_size 0" bad_insmod "memmap_size=0 must be a non-zero multiple of 1 MiB" \
		memmap_start=1G memmap_size=0
	if [ "${BAD_PARAMS_SWEEP:-full}" = none ]; then
		echo "bad_params: no sweep of the ranged parameters (BAD_PARAMS_SWEEP=none)"
	else
		check "every ranged parameter" bad_model_params && tail -1 /tmp/check.out
	fi
	# and a good load still works afterwards
	check "good insmod" load_nvmev
	check "rmmod" unload_nvmev
}

# desc: stats_reset zeroes the counters the model keeps
# tiers: stock debug_long
test_stats_reset() {
	check "insmod" load_nvmev || return 1
	check "write" dd if=/dev/zero of=/dev/nvme0n1 bs=1M count=4 oflag=direct
	check "counted" [ "$(value model_writes "$DBG/stats")" -gt 0 ]
	check "reset" sh -c "echo 1 > $DBG/stats_reset"
	check "zeroed" [ "$(value model_writes "$DBG/stats")" = 0 ]
	check "posting zeroed" [ "$(value posted "$DBG/stats")" = 0 ]
	# every completion's posting time is measured against its due time
	check "16 reads" dd if=/dev/nvme0n1 of=/dev/null bs=4k count=16 iflag=direct
	check "16 posted" [ "$(value posted "$DBG/stats")" = 16 ]
	check "mean lateness <= max" [ "$(value post_late_mean_ns "$DBG/stats")" -le \
		"$(value post_late_max_ns "$DBG/stats")" ]
	check "gauges kept" [ "$(awk '/^0 / { print $14 }' "$DBG/stats")" -gt 0 ]
	check "bad reset value" sh -c "! echo 0 > $DBG/stats_reset"
	check "rmmod" unload_nvmev
}

# Every writable debugfs file: invalid values fail with an error and change
# nothing (module parameters: bad_params; hint fields: hints_placement).
# desc: invalid writes to every debugfs file fail and change nothing
# tiers: stock debug_long
test_bad_attrs() {
	check "insmod" load_nvmev || return 1
	check "write" dd if=/dev/urandom of=/dev/nvme0n1 bs=64k count=4 oflag=direct
	scale=$(cat "$DBG/time_scale")
	writes=$(value model_writes "$DBG/stats")
	for v in 0 10001 -1 abc 1.5 ""; do
		check "time_scale '$v'" bad_write "$DBG/time_scale" "$v"
	done
	check "time_scale unchanged" [ "$(cat "$DBG/time_scale")" = "$scale" ]
	for v in 0 no 2 abc; do
		check "stats_reset '$v'" bad_write "$DBG/stats_reset" "$v"
	done
	check "counters kept" [ "$(value model_writes "$DBG/stats")" = "$writes" ]
	echo 8 >"$DBG/locate"
	nsze=$(value namespace_lbas "$DBG/geometry")
	for v in "$nsze" 18446744073709551615; do
		check "locate '$v'" bad_write "$DBG/locate" "$v" "Numerical result out of range"
	done
	for v in -1 abc ""; do
		check "locate '$v'" bad_write "$DBG/locate" "$v"
	done
	check "locate query kept" grep -q "^lba=8 " "$DBG/locate"
	check "rmmod" unload_nvmev
}

# Leaks: kmemleak (debug kernel) scans after the other tests ran and their
# modules were unloaded; anything unreferenced since boot fails the run.
# desc: kmemleak finds nothing unreferenced after the other tests
# tiers: debug debug_long
test_kmemleak() {
	requires_kmemleak || return
	k=/sys/kernel/debug/kmemleak
	# two scans: an object must be unreferenced in both to be reported
	echo scan >$k
	sleep 2
	echo scan >$k
	cat $k >/tmp/leaks
	echo "kmemleak: $(grep -c '^unreferenced object' /tmp/leaks) unreferenced objects"
	head -40 /tmp/leaks
	check "no leaks" [ ! -s /tmp/leaks ]
}

# LIFECYCLE_CYCLES (default 20) insmod/rmmod cycles, each writing a
# random MiB at a different offset and reading it back.
# desc: repeated load/unload cycles, each writing and reading back a MiB
# tiers: stock debug debug_long
test_lifecycle() {
	n=${LIFECYCLE_CYCLES:-20}
	dd if=/dev/urandom of=/tmp/pattern bs=1M count=1 2>/dev/null
	# "cycle", not "i": load_nvmev's wait loop counts with i
	cycle=0
	while [ $cycle -lt "$n" ]; do
		check "insmod $cycle" load_nvmev || return 1
		check "write $cycle" dd if=/tmp/pattern of=/dev/nvme0n1 bs=1M seek=$cycle oflag=direct
		check "read back $cycle" sh -c "dd if=/dev/nvme0n1 bs=1M skip=$cycle count=1 \
			iflag=direct 2>/dev/null | cmp - /tmp/pattern"
		check "rmmod $cycle" unload_nvmev || return 1
		cycle=$((cycle + 1))
	done
	echo "lifecycle: $n load/unload cycles with I/O"
}

# rmmod with ext4 mounted and writing: it is a surprise removal (the
# namespace goes away under the file system, like a pulled drive). It must
# not crash or hang; the file system sees I/O errors and can be unmounted.
# desc: rmmod under a mounted, writing ext4 is a clean surprise removal
# tiers: stock debug debug_long
test_rmmod_mounted() {
	check "insmod" load_nvmev || return 1
	check "mkfs.ext4" mkfs.ext4 -q -F /dev/nvme0n1
	check "mount" mount -t ext4 /dev/nvme0n1 /mnt
	dd if=/dev/zero of=/mnt/f bs=64k count=4096 oflag=direct 2>/dev/null &
	writer=$!
	sleep 1
	check "rmmod while mounted" timeout 60 rmmod nvmev
	online_blocks
	wait $writer
	echo "rmmod_mounted: writer exit status $? (an I/O error is expected)"
	check "device gone" [ ! -e /dev/nvme0n1 ]
	check "umount after removal" timeout 60 umount /mnt
	check "load again" load_nvmev
	check "rmmod" unload_nvmev
}
