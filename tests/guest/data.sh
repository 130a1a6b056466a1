#!/bin/sh
# Guest tests of what the namespace's data reads back as (busybox sh,
# sourced by tests.sh): blocks never written or deallocated read as zeroes
# (Identify Namespace DLFEAT=1), whatever a memmap= reservation kept
# from an earlier load; and deallocation of the whole drive, many times
# over in one command, finishes without stalling the controller.

# 512-byte LBAs (the default), so that writes and deallocations can cover
# part of a 4 KiB mapping unit. Data written before a reload must read as
# zeroes after it; a sector written into a unit nobody wrote leaves the
# other seven zero; one written into a written unit keeps them.
# desc: unwritten and reloaded data reads zeroes, partial units keep neighbours
# tiers: stock memmap
test_zero_reads() {
	m=1048576
	random /tmp/data.a $((64 * 1024))
	random /tmp/data.s 512
	random /tmp/data.p 16384
	check "insmod" load_nvmev lba_bytes=512 || return 1
	check "write 64 KiB at 1 MiB" write_at $m /tmp/data.a
	check "write 16 KiB at 3 MiB" write_at $((3 * m)) /tmp/data.p
	check "read back" holds_at $m /tmp/data.a
	check "rmmod" unload_nvmev
	check "insmod again" load_nvmev lba_bytes=512 || return 1
	check "written before the reload: zeroes" zeroes_at $m $((64 * 1024))
	check "never written: zeroes" zeroes_at $((100 * m)) $m
	check "last MiB never written: zeroes" \
		zeroes_at $(($(cat /sys/block/nvme0n1/size) * 512 - m)) $m
	# one sector into a unit that held data before the reload
	check "write sector 1 of a unit" write_at $((m + 512)) /tmp/data.s
	head -c 512 /dev/zero >/tmp/data.e
	cat /tmp/data.s >>/tmp/data.e
	head -c 3072 /dev/zero >>/tmp/data.e
	check "the unit's other sectors read as zeroes" holds_at $m /tmp/data.e
	# one sector into a written unit: the rest of it stays
	check "write a unit" write_at $((2 * m)) /tmp/data.p
	check "write sector 2 of it" write_at $((2 * m + 1024)) /tmp/data.s
	{ head -c 1024 /tmp/data.p; cat /tmp/data.s; tail -c +1537 /tmp/data.p; } >/tmp/data.e
	check "written unit keeps its other sectors" holds_at $((2 * m)) /tmp/data.e
	# deallocate and write zeroes over part of a unit, a unit, part of one
	for how in discard zeroes; do
		o=$((4 * m))
		[ $how = zeroes ] && o=$((5 * m))
		check "$how: write 16 KiB" write_at $o /tmp/data.p
		if [ $how = discard ]; then
			check "$how: 8 KiB from sector 2" blkdiscard -o $((o + 1024)) -l 8192 /dev/nvme0n1
		else
			check "$how: 8 KiB from sector 2" zeroout -o $((o + 1024)) -l 8192 /dev/nvme0n1
		fi
		{ head -c 1024 /tmp/data.p; head -c 8192 /dev/zero; tail -c +9217 /tmp/data.p; } \
			>/tmp/data.e
		check "$how: zeroes there, data around" holds_at $o /tmp/data.e
	done
	check "discard 1 MiB" blkdiscard -o $m -l $m /dev/nvme0n1
	check "discarded: zeroes" zeroes_at $m $m
	check "rmmod" unload_nvmev
	# 4 KiB LBAs over the storage the 512-byte load wrote
	check "insmod, 4 KiB LBAs" load_nvmev lba_bytes=4096 || return 1
	check "4 KiB LBAs: zeroes" zeroes_at 0 $((8 * m))
	check "4 KiB LBAs: write and read" write_at $((3 * m)) /tmp/data.p
	check "4 KiB LBAs: read back" holds_at $((3 * m)) /tmp/data.p
	check "rmmod" unload_nvmev
}

# fill_and_clear HOW OFFSET LENGTH: random data over LENGTH bytes at
# OFFSET and a MiB of it just past, then HOW (discard or zeroes) of the
# LENGTH alone in one call: zeroes there, the MiB past it kept
fill_and_clear() {
	mib=$((($2 + $3) / 1048576))
	dd if=/dev/urandom of=/dev/nvme0n1 bs=1M seek=$(($2 / 1048576)) count=$(($3 / 1048576 + 1)) \
		oflag=direct 2>/dev/null || return 1
	read_at $((mib * 1048576)) 1048576 /tmp/data.k || return 1
	if [ "$1" = discard ]; then
		blkdiscard -o "$2" -l "$3" /dev/nvme0n1 || return 1
	else
		zeroout -o "$2" -l "$3" /dev/nvme0n1 || return 1
	fi
	zeroes_at "$2" "$3" || { echo "$1: old data left in $3 bytes at $2"; return 1; }
	holds_at $((mib * 1048576)) /tmp/data.k || { echo "$1: the MiB past the range changed"; return 1; }
}

# A zero-out or discard larger than one command can name at 512-byte LBAs
# (65,536 LBAs, 32 MiB): the host splits it by the limits Identify
# reports (WZSL, DMRSL), and every byte of it reads back as zeroes. Each
# of the two commands runs once on 512-byte and once on 4 KiB LBAs, one
# of the two from the start and the other from an odd MiB, so that each
# command meets each LBA size and each kind of start.
# desc: zero-outs and discards over 32 MiB, split by WZSL/DMRSL, read zeroes
# tiers: stock
test_zeroout_large() {
	for lba in 512 4096; do
		check "insmod, $lba-byte LBAs" load_nvmev lba_bytes=$lba || return 1
		if [ $lba = 512 ]; then first=zeroes second=discard; else first=discard second=zeroes; fi
		check "$lba: $first 40 MiB at 0" fill_and_clear $first 0 $((40 * 1048576))
		check "$lba: $second 41 MiB at 7 MiB" fill_and_clear $second $((7 * 1048576)) \
			$((41 * 1048576))
		check "rmmod" unload_nvmev
	done
}

# bg_fio_start [CPUS]: QD1 4 KiB random reads over the whole namespace until
# bg_fio_stop, results (terse v3) in /tmp/data.fio
bg_fio_start() {
	fio --name=bg --filename=/dev/nvme0n1 --rw=randread --bs=4k --ioengine=psync ${1:+--cpus_allowed=$1} \
		--direct=1 --time_based --runtime=600 --eta=never --output-format=terse --terse-version=3 \
		--output=/tmp/data.fio &
	bg_fio=$!
	sleep 2
}

# bg_fio_stop: end the reads; prints their count and largest completion
# latency in microseconds (terse fields 6 and 15: read KiB, clat max)
bg_fio_stop() {
	kill -INT "$bg_fio"
	wait "$bg_fio"
	awk -F';' '/^3;/ { print int($6 / 4), int($15) }' /tmp/data.fio
}

# dsm_whole N: one Dataset Management command, N ranges each the whole
# namespace (512-byte LBAs), from a CPU of DSM_CPUS (a taskset list) if set
dsm_whole() {
	nlb=$(cat /sys/block/nvme0n1/size)
	s=0
	b=$nlb
	i=1
	while [ "$i" -lt "$1" ]; do
		s=$s,0
		b=$b,$nlb
		i=$((i + 1))
	done
	${DSM_CPUS:+taskset -c "$DSM_CPUS"} nvme dsm /dev/nvme0n1 --namespace-id=1 --ad \
		--slbs=$s --blocks="$b"
}

# dsm_start N RANGES [CPUS]: N dsm_whole RANGES at once, in the
# background (on CPUS, a taskset list, if given)
dsm_start() {
	dsm_pids=
	i=0
	while [ "$i" -lt "$1" ]; do
		DSM_CPUS=${3:-} dsm_whole "$2" >/tmp/data.dsm.$i 2>&1 &
		dsm_pids="$dsm_pids $!"
		i=$((i + 1))
	done
}

# dsm_wait: the commands dsm_start began have ended; fails if any failed
dsm_wait() {
	ret=0
	for p in $dsm_pids; do
		wait "$p" || ret=1
	done
	return $ret
}

# deferred_past N: until the controller has left a command in its SQ
# for want of a held slot more than N times (the stat deferred; 60 s)
deferred_past() {
	i=0
	while [ "$(value deferred "$DBG/stats")" -le "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(value deferred "$DBG/stats")" -gt "$1" ]
}

# dsm_many N: N dsm_whole 64 at once; all succeed
dsm_many() { dsm_start "$1" 64 && dsm_wait; }

# The whole drive deallocated (blkdiscard), zeroed (blkdiscard -z: Write
# Zeroes) and deallocated 256 times in one command, while QD1 reads run:
# every command completes, no read waits for a second (or 8 times the
# worst of the same reads alone, run first, if a slow host makes that
# more), no nvme timeout (run_tests adds soft lockups, RCU stalls and hung
# tasks). Then 20 such commands at once, more than the controller holds.
# desc: whole-drive deallocate and zero-out beside QD1 reads: none waits long
# tiers: stock
test_discard_bounded() {
	check "insmod" load_nvmev lba_bytes=512 || return 1
	from=$(wc -l </tmp/kernel.log)
	check "write 64 MiB" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	bg_fio_start
	sleep 2
	bg_fio_stop >/tmp/data.lat
	read -r _ ctl_max_us </tmp/data.lat
	bound_us=$(control_bound_us "${ctl_max_us:-0}" 1000000)
	bg_fio_start
	t0=$(uptime_s)
	check "blkdiscard" blkdiscard /dev/nvme0n1
	t1=$(uptime_s)
	check "blkdiscard -z" zeroout /dev/nvme0n1
	t2=$(uptime_s)
	check "dsm: 256 ranges of the whole namespace" dsm_whole 256
	t3=$(uptime_s)
	bg_fio_stop >/tmp/data.lat
	read -r reads clat_max_us </tmp/data.lat
	echo "discard_bounded: blkdiscard $((t1 - t0)) s, blkdiscard -z $((t2 - t1)) s," \
		"dsm 256 x namespace $((t3 - t2)) s; meanwhile $reads reads, max clat ${clat_max_us} us" \
		"(alone: ${ctl_max_us} us; bound ${bound_us} us)"
	check "reads went on" [ "${reads:-0}" -gt 0 ]
	check "max read clat within bound" [ "${clat_max_us:-$bound_us}" -lt "$bound_us" ]
	# more long ones at once than the controller holds (NVMEV_HELD_TRIMS);
	# DSM_MANY: fewer in the debug tier, where each unit unmapped costs
	# ~20 x more (KASAN)
	check "${DSM_MANY:-20} dsm commands at once" dsm_many "${DSM_MANY:-20}"
	check "zeroes" zeroes_at 0 $((64 * 1048576))
	check "nothing left mapped" [ "$(awk '/^[0-9]/ { s += $14 } END { print s }' "$DBG/stats")" = 0 ]
	check "no nvme timeout" sh -c "! tail -n +$((from + 1)) /tmp/kernel.log | grep -i 'timeout'"
	check "rmmod" unload_nvmev
}

# More whole-namespace deallocations of a 4 GiB drive at once than the
# controller holds (NVMEV_HELD_TRIMS), each of 256 ranges, while QD1
# reads run; then a controller reset. The commands the controller cannot
# hold wait in their SQ instead of running inline: reads go on, and the
# reset (CC.EN = 0, CSTS.RDY = 0 within CAP.TO, 10 s) completes, the drive
# stays usable. The reads' worst latency is held against a control run
# first in the same guest (the same reader and reset, no deallocation): a
# slow or busy host stretches both, a deallocation run inline stretches
# only the second. DSM_RESET_MANY: how many.
# desc: more big deallocations than the controller holds, then a reset
# tiers: stock
test_discard_reset() {
	# 4 GiB of pages, 64 MiB of them written: each range is 8 M LBAs
	# whose deallocation walks a million units, as on a real-size drive
	check "insmod" load_nvmev_mem "$NVMEV_PAGED" capacity_mib=4096 lba_bytes=512 || return 1
	from=$(wc -l </tmp/kernel.log)
	check "write 64 MiB" dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
	# the reader alone on CPU 0, so its commands go to an SQ of their own
	# (the nvme driver maps a queue to each CPU): an SQ with a DSM that
	# waits for a held-trim slot waits with it, the others must not
	bg_fio_start 0
	sleep 3
	check "control reset" sh -c "echo 1 >/sys/class/nvme/nvme0/reset_controller"
	bg_fio_stop >/tmp/data.lat
	read -r ctl_reads ctl_max_us </tmp/data.lat
	deferred0=$(value deferred "$DBG/stats")
	bg_fio_start 0
	dsm_start "${DSM_RESET_MANY:-20}" 256 1-2
	# the reset once the controller holds all it can and a further one
	# waits in its SQ: on a slow guest the last nvme-cli processes start
	# seconds late, and a deallocation sent after the reset is not what
	# this tests
	check "more deallocations than the controller holds reached it" deferred_past "$deferred0"
	sleep 1
	c0=$(uptime_cs)
	check "reset" sh -c "echo 1 >/sys/class/nvme/nvme0/reset_controller"
	c1=$(uptime_cs)
	# the commands the reset aborted fail: only their ending matters
	dsm_wait
	bg_fio_stop >/tmp/data.lat
	read -r reads clat_max_us </tmp/data.lat
	# the bound: 8 times the control's worst, and at least 1 s (a quiet
	# TCG guest read at worst 160 ms here, 90 ms in the control; with the
	# deallocations run inline instead, 2.9 s against 70 ms)
	bound_us=$(control_bound_us "${ctl_max_us:-0}" 1000000)
	echo "discard_reset: reset $(((c1 - c0) * 10)) ms; $reads reads, max clat ${clat_max_us} us" \
		"(control: $ctl_reads reads, max clat ${ctl_max_us} us; bound ${bound_us} us);" \
		"deferred fetches $(value deferred "$DBG/stats")"
	check "reset within CAP.TO" [ $((c1 - c0)) -lt 1000 ]
	check "reads went on" [ "${reads:-0}" -gt 0 ]
	check "max read clat within bound" [ "${clat_max_us:-$bound_us}" -lt "$bound_us" ]
	check "no controller failure" sh -c "! tail -n +$((from + 1)) /tmp/kernel.log |
		grep -iE 'timeout|not ready|removing|dead'"
	check "usable after" fio_verify /dev/nvme0n1 8M
	check "rmmod" unload_nvmev
}
