#!/bin/sh
# The guest half of the zoned-namespace experiments
# (run.sh beside it, part of `make zns`; busybox sh, sourced
# by tests.sh; uses drives.sh's helpers): the simulator's zone-log
# workload (README.md beside it) through Linux's block layer, on two
# drives of one geometry in one guest, one after the other: drive "zz"
# one zoned namespace, drive "zc" one conventional namespace of the same
# size. Each is filled to 7/8 with whole zones; then, ZNS_LOG_ROUNDS
# times, fio writes the 4 empty zones at once (4 jobs, 64 KiB writes, the
# zoned one in fio's zoned mode) and 4 full zones picked at random are
# emptied (zoned: blkzone reset; conventional: blkdiscard of the same
# range), the same picks on both drives. One line per drive:
#   zns_log_csv,DRIVE,WAF,GC_COPY_UNITS,HOST_MIB,MB_PER_S,P99_US,MAX_US
# WAF and the 4 KiB units GC copied, from the drive's debugfs over the
# churn alone (NAND writes less host writes); MB/s
# and write latencies (fio's completion latency of every write) in the
# device's time: divided by time_scale (ZNS_LOG_SCALE, default 20: the
# model, not the emulating CPU, is the limit).

ZNS_LOG_SCALE=${ZNS_LOG_SCALE:-20}
ZNS_LOG_ROUNDS=${ZNS_LOG_ROUNDS:-16}
# 256 MiB: 32 zones of 8 MiB, each over all 4 dies (one 2 MiB block on each)
ZNS_LOG_ZONES=32

# zns_log_drive NAME ZONED: the drive, powered, its namespace in $zl_disk
zns_log_drive() {
	drive_mk "$1" capacity_mib=256 channels=2 dies_per_channel=2 spin_max_us=0 || return 1
	mkdir "$CFS/$1/namespaces/1" || return 1
	if [ "$2" = 1 ]; then
		for kv in zoned=1 zone_mib=8 max_open=0 max_active=0; do
			echo "${kv#*=}" >"$CFS/$1/namespaces/1/${kv%%=*}" || return 1
		done
	fi
	echo 1 >"$CFS/$1/power" || return 1
	zl_disk=$(drive_disk "$1") || return 1
	[ "$2" = 1 ] && echo mq-deadline >"/sys/block/${zl_disk#/dev/}/queue/scheduler"
	echo "$ZNS_LOG_SCALE" >"/sys/kernel/debug/nvmev-$1/time_scale"
}

# zns_log_fio DISK ZONED TAG FIRST_ZONE...: one fio job per zone, each
# writing its zone whole; completion latencies logged as /tmp/zl_TAG_*
zns_log_fio() {
	zf_disk=$1 zf_zbd=
	[ "$2" = 1 ] && zf_zbd=--zonemode=zbd
	zf_tag=$3
	shift 3
	zf_jobs=
	for zf_z in "$@"; do
		zf_jobs="$zf_jobs --name=z$zf_z --offset=$((zf_z * 8))M --size=8M"
	done
	# shellcheck disable=SC2086 # the job list, split on purpose
	fio --filename="$zf_disk" $zf_zbd --direct=1 --ioengine=psync --rw=write --bs=64k \
		--write_lat_log="/tmp/zl_$zf_tag" --log_avg_msec=0 --output=/tmp/zl.fio \
		$zf_jobs >/dev/null || { cat /tmp/zl.fio; return 1; }
}

# zns_log_run NAME ZONED: fill, churn, one result line
zns_log_run() {
	zl_name=$1 zl_zoned=$2
	zns_log_drive "$zl_name" "$zl_zoned" || return 1
	zl_dbg=/sys/kernel/debug/nvmev-$zl_name
	# fill: zones 0-27 full, 28-31 empty
	zl_full=
	zl_z=0
	while [ $zl_z -lt $((ZNS_LOG_ZONES - 4)) ]; do
		zns_log_fio "$zl_disk" "$zl_zoned" fill $zl_z $((zl_z + 1)) $((zl_z + 2)) $((zl_z + 3)) ||
			return 1
		zl_full="$zl_full $zl_z $((zl_z + 1)) $((zl_z + 2)) $((zl_z + 3))"
		zl_z=$((zl_z + 4))
	done
	zl_empty="28 29 30 31"
	rm -f /tmp/zl_churn*
	echo 1 >"$zl_dbg/stats_reset"
	# the same picks on both drives: a generator of our own, seeded alike
	zl_seed=1
	zl_round=0
	zl_t0=$(sed 's/ .*//' /proc/uptime)
	while [ $zl_round -lt "$ZNS_LOG_ROUNDS" ]; do
		# shellcheck disable=SC2086 # the zone list, split on purpose
		zns_log_fio "$zl_disk" "$zl_zoned" "churn$zl_round" $zl_empty || return 1
		zl_full="$zl_full $zl_empty"
		zl_empty=
		for _ in 1 2 3 4; do
			# shellcheck disable=SC2086
			set -- $zl_full
			zl_seed=$(((zl_seed * 1103515245 + 12345) % 2147483648))
			zl_pick=$((zl_seed / 65536 % $#))
			shift "$zl_pick"
			zl_z=$1
			zl_full=$(echo "$zl_full" | tr ' ' '\n' | grep -vx "$zl_z" | tr '\n' ' ')
			zl_empty="$zl_empty $zl_z"
			if [ "$zl_zoned" = 1 ]; then
				blkzone reset -o $((zl_z * 16384)) -c 1 "$zl_disk" || return 1
			else
				blkdiscard -o $((zl_z * 8 << 20)) -l $((8 << 20)) "$zl_disk" || return 1
			fi
		done
		zl_round=$((zl_round + 1))
	done
	zl_t1=$(sed 's/ .*//' /proc/uptime)
	zl_mib=$((ZNS_LOG_ROUNDS * 32))
	# fio's latency logs: msec, nsec, ddir, bs, offset, ...
	cat /tmp/zl_churn*_clat.*.log | cut -d, -f2 | sort -n >/tmp/zl.lat
	zl_host=$(value host_write_units "$zl_dbg/stats")
	zl_nand=$(value nand_write_units "$zl_dbg/stats")
	awk -v name="$zl_name" -v host="$zl_host" -v nand="$zl_nand" -v mib="$zl_mib" \
		-v t0="$zl_t0" -v t1="$zl_t1" -v ts="$ZNS_LOG_SCALE" '
		{ v[NR] = $1 }
		END {
			p99 = v[int(NR * 0.99 + 0.5)]
			printf "zns_log_csv,%s,%.3f,%d,%d,%.1f,%.1f,%.1f\n", name, nand / host,
				nand - host, mib, mib * 1.048576 * ts / (t1 - t0), p99 / 1000 / ts,
				v[NR] / 1000 / ts
		}' /tmp/zl.lat >>/tmp/zl.csv
}

# tiers: none
test_zns_log_experiment() {
	check "insmod" load_nvmev || return 1
	mount_configfs
	rm -f /tmp/zl.csv
	check "zoned drive" zns_log_run zz 1
	check "conventional drive" zns_log_run zc 0
	cat /tmp/zl.csv
	check "both measured" [ "$(grep -c . /tmp/zl.csv)" = 2 ]
	drives_clean
	check "rmmod" unload_nvmev
}
