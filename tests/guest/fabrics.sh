#!/bin/sh
# Guest tests of nvmev served over NVMe/TCP by the kernel's own target
# (busybox sh, sourced by tests.sh): nvmet and nvmet-tcp export the drive
# on the loopback address through their configfs, nvme-cli connects as a
# remote host would, and what goes over the fabric is checked.

NVMET=/sys/kernel/config/nvmet
NVMET_NQN=nqn.2026-12.org.nvmev:fabric-test
NVMET_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5e4f0c6a-2d3b-4c1e-9a8f-7b6d5c4e3f21

# nvmet_export BACKEND [ADDR]: a subsystem allowing any host, on TCP
# ADDR:4420 (default 127.0.0.1), holding nvme0n1 as namespace 1 (bdev) or
# the whole controller nvme0 (passthru: its identity and commands go
# through)
nvmet_export() {
	mount_configfs || return 1
	ip link set lo up || return 1
	s=$NVMET/subsystems/$NVMET_NQN
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" || return 1
	case $1 in
	bdev)
		mkdir "$s/namespaces/1" &&
			printf /dev/nvme0n1 >"$s/namespaces/1/device_path" &&
			echo 1 >"$s/namespaces/1/enable" || return 1
		;;
	passthru)
		printf /dev/nvme0 >"$s/passthru/device_path" &&
			echo 1 >"$s/passthru/enable" || return 1
		;;
	esac
	p=$NVMET/ports/1
	mkdir "$p" && echo tcp >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
		echo "${2:-127.0.0.1}" >"$p/addr_traddr" && echo 4420 >"$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$NVMET_NQN"
}

# nvmet_unexport: everything nvmet_export made, in reverse
nvmet_unexport() {
	s=$NVMET/subsystems/$NVMET_NQN
	p=$NVMET/ports/1
	[ -L "$p/subsystems/$NVMET_NQN" ] && rm "$p/subsystems/$NVMET_NQN"
	[ -d "$p" ] && rmdir "$p"
	if [ -d "$s/namespaces/1" ]; then
		echo 0 >"$s/namespaces/1/enable"
		rmdir "$s/namespaces/1"
	fi
	[ "$(cat "$s/passthru/enable" 2>/dev/null)" = 1 ] && echo 0 >"$s/passthru/enable"
	[ -d "$s" ] && rmdir "$s"
	! [ -d "$s" ]
}

# fabric_connect [ns]: nvme connect over TCP (a host ID of its own: 6.12
# refuses one that the kernel's default host has with another NQN); sets
# FABRIC_CTRL (nvmeN) once its controller is live and, with "ns",
# FABRIC_DEV (its namespace's block device) once that is there too
fabric_connect() {
	nvme connect -t tcp -a 127.0.0.1 -s 4420 -n "$NVMET_NQN" --hostnqn="$NVMET_HOSTNQN" \
		--hostid="${NVMET_HOSTNQN##*:uuid:}" || return 1
	i=0
	FABRIC_CTRL='' FABRIC_DEV=''
	while [ $i -lt 100 ]; do
		for c in /sys/class/nvme/nvme*; do
			[ "$(cat "$c/transport" 2>/dev/null)" = tcp ] &&
				[ "$(cat "$c/state" 2>/dev/null)" = live ] && FABRIC_CTRL=$(basename "$c")
		done
		for b in /sys/block/nvme*n*; do
			[ -e "$b" ] && [ "$(basename "$b")" != nvme0n1 ] && FABRIC_DEV=/dev/$(basename "$b")
		done
		if [ -n "$FABRIC_CTRL" ]; then
			[ "${1:-}" != ns ] && return 0
			[ -n "$FABRIC_DEV" ] && [ -b "$FABRIC_DEV" ] && return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "no live TCP controller${1:+ or namespace} after connect"
	return 1
}

# The block-device backend: nvmet serves nvme0n1 as a namespace of its
# own subsystem; fio's crc-verified writes over TCP verify, and a block
# written over the fabric reads back the same from the local namespace.
# desc: nvmet serves nvme0n1 over TCP: crc-verified I/O, same data locally
# tiers: stock
test_nvmet_tcp() {
	check "insmod" load_nvmev || return 1
	check "export nvme0n1 over TCP" nvmet_export bdev || { nvmet_unexport; return 1; }
	check "connect" fabric_connect ns || { nvmet_unexport; return 1; }
	echo "nvmet_tcp: $FABRIC_CTRL ($(cat "/sys/class/nvme/$FABRIC_CTRL/transport")), namespace $FABRIC_DEV"
	check "fio verify over TCP" fio_verify "$FABRIC_DEV" 32M --iodepth=16
	random /tmp/data.f 65536
	check "write over TCP" dd if=/tmp/data.f of="$FABRIC_DEV" bs=64k seek=1000 oflag=direct
	check "the local namespace holds it" holds_at $((1000 * 65536)) /tmp/data.f
	check "disconnect" nvme disconnect -n "$NVMET_NQN"
	check "unexport" nvmet_unexport
	check "rmmod" unload_nvmev
}

# The passthru backend (CONFIG_NVME_TARGET_PASSTHRU: Debian's 6.12 has it,
# its 6.1 not): nvmet hands the whole controller through, so the remote
# host sees nvmev's identity and its placement-hint feature (0xc0, which a
# generic target refuses). Its namespace is nvme0n1 again, with the same
# NGUID and EUI-64: a kernel that already has it refuses the second copy
# ("duplicate IDs", a guard against the corruption two paths without
# multipath would bring), so data over this backend needs a second
# machine; here that refusal is checked too.
# desc: nvmet passthru over TCP shows nvmev's identity and hint feature
# tiers: stock
test_nvmet_passthru() {
	requires_kernel 6.12 || return
	check "insmod" load_nvmev || return 1
	mount_configfs
	check "enable hints" nvmev-hint enable /dev/nvme0n1
	dmesg -c >/dev/null
	check "export nvme0 (passthru) over TCP" nvmet_export passthru || { nvmet_unexport; return 1; }
	check "connect" fabric_connect || { nvmet_unexport; return 1; }
	echo "nvmet_passthru: $FABRIC_CTRL"
	nvme id-ctrl "/dev/$FABRIC_CTRL" >/tmp/id.out
	check "nvmev's identity over TCP" grep -q "^mn *: nvmev virtual SSD" /tmp/id.out
	nvme get-feature "/dev/$FABRIC_CTRL" -f 0xc0 >/tmp/feat.out 2>&1
	cat /tmp/feat.out
	check "the hint feature over TCP, enabled" grep -Eiq 'value: *(0x)?0*1( |$)' /tmp/feat.out
	check "the namespace refused as a duplicate" \
		sh -c "dmesg | grep -q 'ignoring nsid 1 because of duplicate IDs'"
	check "disconnect" nvme disconnect -n "$NVMET_NQN"
	check "unexport" nvmet_unexport
	check "rmmod" unload_nvmev
}

# The two-machine test of the passthru backend (scripts/fabric-pair.sh
# boots both guests on one Ethernet segment). The host has no nvmev of its
# own, so nothing there already holds the namespace's identifiers.
FABRIC_TARGET=10.99.0.1

# net_up ADDR: eth0 (GUEST_NET's virtio NIC) up as ADDR/24
net_up() {
	ip link set eth0 up && ip addr add "$1/24" dev eth0
}

# tcp_sessions PORT: established TCP connections on local port PORT
tcp_sessions() {
	awk -v port="$(printf ':%04X' "$1")" '$2 ~ port"$" && $4 == "01"' /proc/net/tcp | wc -l
}

# The target machine: nvmev with the hint feature on, exported whole
# (passthru) over TCP; it waits for the host to connect, do its I/O and
# disconnect (at most 10 min), then checks that what the host wrote is on
# the drive: fio re-reads the host's job and checks every block's crc32c
# and offset, and the drive counted the writes.
# desc: the target half of scripts/fabric-pair.sh: export, wait, verify
# tiers: none
test_fabric_target() {
	check "insmod" load_nvmev || return 1
	check "enable hints" nvmev-hint enable /dev/nvme0n1
	check "network" net_up $FABRIC_TARGET || return 1
	check "export nvme0 (passthru)" nvmet_export passthru $FABRIC_TARGET ||
		{ nvmet_unexport; return 1; }
	i=0
	while [ "$(tcp_sessions 4420)" = 0 ] && [ $i -lt 3000 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	check "the host connected" [ "$(tcp_sessions 4420)" -gt 0 ]
	while [ "$(tcp_sessions 4420)" != 0 ] && [ $i -lt 3000 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	check "the host disconnected" [ "$(tcp_sessions 4420)" = 0 ]
	echo "fabric_target: $(value nvme_write "$DBG/stats") writes came over the fabric"
	check "the host's writes came to nvmev" [ "$(value nvme_write "$DBG/stats")" -gt 0 ]
	check "the host's data, verified here" fio_verify /dev/nvme0n1 32M --iodepth=16 --verify_only
	check "unexport" nvmet_unexport
	check "rmmod" unload_nvmev
}

# The host machine: connects to the target, sees nvmev's identity and its
# enabled hint feature through the passthru, and runs crc-verified I/O on
# the namespace, which no other namespace here shares IDs with.
# desc: the host half of scripts/fabric-pair.sh: connect, identify, verify
# tiers: none
test_fabric_host() {
	check "network" net_up 10.99.0.2 || return 1
	# the target is ready when its port is: retry until then (10 min)
	i=0
	until nvme connect -t tcp -a $FABRIC_TARGET -s 4420 -n "$NVMET_NQN" \
		--hostnqn="$NVMET_HOSTNQN" --hostid="${NVMET_HOSTNQN##*:uuid:}" >/tmp/connect.out 2>&1; do
		i=$((i + 1))
		[ $i -lt 300 ] || break
		sleep 2
	done
	check "connect" [ $i -lt 300 ] || { cat /tmp/connect.out; return 1; }
	i=0
	while ! [ -b /dev/nvme0n1 ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "the namespace" [ -b /dev/nvme0n1 ] || { nvme disconnect -n "$NVMET_NQN"; return 1; }
	check "TCP" grep -qx tcp /sys/class/nvme/nvme0/transport
	check "nvmev's identity" sh -c "nvme id-ctrl /dev/nvme0 | grep -q '^mn *: nvmev virtual SSD'"
	nvme get-feature /dev/nvme0 -f 0xc0 >/tmp/feat.out 2>&1
	check "the hint feature, enabled" grep -Eiq 'value: *(0x)?0*1( |$)' /tmp/feat.out
	check "fio verify over TCP (passthru)" fio_verify /dev/nvme0n1 32M --iodepth=16
	check "disconnect" nvme disconnect -n "$NVMET_NQN"
}
