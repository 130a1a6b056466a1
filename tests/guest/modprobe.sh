#!/bin/sh
# Guest test of the module as DKMS installs it (busybox sh, sourced by
# tests.sh): scripts/guest-test.sh with GUEST_MODULE=dkms puts the nvmev.ko
# DKMS built for the guest's kernel where DKMS put it, with a modules.dep,
# and `modprobe nvmev` must find it, load this tree's version (DKMS's
# package version, in modinfo) and give a working drive.


# desc: modprobe loads the DKMS-built nvmev.ko of this tree's version
# tiers: dkms
test_dkms_modprobe() {
	requires_dkms || return
	dmesg -c >/dev/null
	# shellcheck disable=SC2086 # the parameters, split on purpose
	check "modprobe nvmev" modprobe nvmev $NVMEV_MEM || return 1
	check "the namespace" wait_nvme0n1 || return 1
	# the version DKMS built it as: this tree's (scripts/dkms.sh version)
	echo "dkms_modprobe: version $(cat /sys/module/nvmev/version), expected $NVMEV_DKMS_VERSION"
	check "this tree's version is what runs" \
		[ "$(cat /sys/module/nvmev/version)" = "$NVMEV_DKMS_VERSION" ]
	check "fio verify" fio_verify /dev/nvme0n1 16M
	check "modprobe -r" modprobe -r nvmev
	online_blocks
	check "gone" sh -c "! grep -q '^nvmev ' /proc/modules && ! [ -e /dev/nvme0 ]"
}
