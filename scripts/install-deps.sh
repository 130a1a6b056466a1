#!/bin/bash
# Install the Debian 12 packages a command needs, by purpose.
# Usage: install-deps.sh [experiments|check|k72]   (default: check, everything)
#   experiments  the build, one stock 6.1 guest, plots: `make experiments`
#                and the experiments that boot Debian's own kernel
#   check        every group: the test tiers, the 6.12 guest with DKMS,
#                the patched kernel build (make ext4, nio, paths), and
#                Debian 13's 7.2 kernel (k72)
#   k72          Debian 13's 7.2 kernel alone: its image, and its headers
#                as a module build tree (scripts/install-debian13-kernel.sh)
# Idempotent: does nothing when everything is present.
set -euo pipefail

# One table: every package once, in the group of what needs it.
declare -A group=(
	# the userspace build (`make sim`: nvmev-sim, bench, the tools the
	# guest runs; nvmev-sqlite links SQLite)
	[build]="build-essential cmake pkgconf libbenchmark-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev liburing-dev"
	# a guest of Debian's 6.1 kernel (scripts/guest-test.sh): QEMU, the
	# image and the headers nvmev.ko is built against, and what the
	# initramfs copies (scripts/vm/build-initramfs.sh)
	[guest]="qemu-system-x86 linux-image-amd64 linux-headers-amd64 kmod cpio busybox-static
		fio nvme-cli e2fsprogs util-linux fdisk"
	# the experiments' plots, and column for their tables
	[plot]="gnuplot-nox bsdextrautils"
	# unit tests, fuzzing (clang's libFuzzer), the scripts' style
	[test]="libgtest-dev libgmock-dev clang libclang-rt-14-dev shellcheck"
	# the guest tests of file systems other than ext4
	[guest-fs]="f2fs-tools btrfs-progs"
	# the 6.12 guest and DKMS (its modules xz-compressed, DKMS's maybe zstd)
	[guest612]="linux-image-6.12-amd64 linux-headers-6.12-amd64 dkms xz-utils zstd"
	# the patched kernels (scripts/kernel/build-kernel.sh) and checkpatch.pl,
	# both from the 6.1 source; ccache for them and the check's builds
	[kernel]="linux-source-6.1 ccache pkg-config"
	# what builds a kernel's programs: the patched kernels, and the host
	# programs of Debian 13's headers (scripts/kernel/debian-headers.sh)
	[kernel-tools]="bc bison flex libelf-dev libssl-dev dwarves file"
)
# Debian 13's kernels, by group: the series whose newest amd64 image comes
# from Debian's trixie-backports, its headers made a build tree
# (scripts/install-debian13-kernel.sh; the packages' names carry the
# release, so they are no table entries).
declare -A debian13=(
	# the kbuild check against 7.2 and a 7.2 guest
	[k72]=7.2
)
declare -A groups_of=(
	[experiments]="build guest plot"
	[check]="build guest plot test guest-fs guest612 kernel kernel-tools k72"
	[k72]="build kernel-tools k72"
)

want=${1:-check}
[ -n "${groups_of[$want]:-}" ] ||
	{ echo "install-deps: '$want' is not experiments, check or k72" >&2; exit 2; }
packages=()
series=()
for g in ${groups_of[$want]}; do
	if [ -n "${debian13[$g]:-}" ]; then
		# present: an image of the series and its build tree
		compgen -G "/lib/modules/${debian13[$g]}.*+deb13-amd64/build/Makefile" >/dev/null ||
			series+=("${debian13[$g]}")
		continue
	fi
	# shellcheck disable=SC2206 # a group is a word list
	packages+=(${group[$g]})
done

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

sudo=()
if [ "$(id -u)" -ne 0 ] && { [ ${#missing[@]} -gt 0 ] || [ ${#series[@]} -gt 0 ]; }; then
	command -v sudo >/dev/null || { echo "install-deps: need root or sudo for: ${missing[*]} ${series[*]}" >&2; exit 1; }
	sudo=(sudo)
fi
# A machine with no kernel in /boot does not boot Debian's kernel
# packages (a container, a chroot, a VM given its kernel from outside).
# There the guest kernel's initrd is never used (the guest boots the
# busybox initramfs of scripts/vm/build-initramfs.sh), yet building it is
# most of a fresh install's time, twice when initramfs-tools comes in the
# same install (the kernel's hook, then initramfs-tools' trigger).
# INITRD=No skips it, as /etc/kernel/postinst.d/initramfs-tools documents.
# Where /boot has a kernel, the machine may boot the new one: it gets its
# initrd.
env=(DEBIAN_FRONTEND=noninteractive)
compgen -G '/boot/vmlinuz-*' >/dev/null || env+=(INITRD=No)
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	"${sudo[@]}" apt-get update -qq
	# env: sudo resets the environment
	"${sudo[@]}" env "${env[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for s in "${series[@]}"; do
	"${sudo[@]}" env "${env[@]}" "$(dirname "$0")/install-debian13-kernel.sh" "$s"
done
