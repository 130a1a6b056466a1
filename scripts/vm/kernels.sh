#!/bin/bash
# Sourced by the guest scripts: which Debian kernel to boot, and its
# modules as the guest's busybox insmod can load them.

# debian_kernel SERIES: the release (uname -r) of the newest kernel of
# SERIES (6.1, 6.12; Debian 13's 7.2) in /boot, Debian's generic flavour
# (not -rt, -cloud); nothing if there is none
debian_kernel() {
	local k
	k=$(find /boot -maxdepth 1 -name "vmlinuz-$1.*-amd64" ! -name '*-rt-amd64' \
		! -name '*-cloud-amd64' -printf '%f\n' | sort -V | tail -1)
	echo "${k#vmlinuz-}"
}

# unpack_module FILE OUT: a module as modinfo -n names it (Debian's 6.12
# and 7.2 compress them with xz, DKMS may use zstd) to OUT, uncompressed
unpack_module() {
	case "$1" in
	*.xz) xz -dc "$1" >"$2" ;;
	*.zst) zstd -qdc "$1" >"$2" ;;
	*) cp "$1" "$2" ;;
	esac
}
