#!/bin/bash
# Install the Debian 12 packages a command needs, by purpose.
# Usage: install-deps.sh [experiments|check]   (default: check, everything)
#   experiments  the build, one stock 6.1 guest, plots: `make experiments`
#                and the experiments that boot Debian's own kernel
#   check        every group: the test tiers, the 6.12 guest with DKMS,
#                the patched kernel build (make ext4, nio, paths)
# Idempotent: does nothing when everything is present.
set -euo pipefail

# One table: every package once, in the group of what needs it.
declare -A group=(
	# the userspace build (`make sim`: nvmev-sim, bench, the tools the
	# guest runs; nvmev-sqlite links SQLite)
	[build]="build-essential cmake libbenchmark-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev"
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
	[kernel]="linux-source-6.1 ccache bc bison flex libelf-dev libssl-dev pkg-config"
)
declare -A groups_of=(
	[experiments]="build guest plot"
	[check]="build guest plot test guest-fs guest612 kernel"
)

want=${1:-check}
[ -n "${groups_of[$want]:-}" ] ||
	{ echo "install-deps: '$want' is not experiments or check" >&2; exit 2; }
packages=()
for g in ${groups_of[$want]}; do
	# shellcheck disable=SC2206 # a group is a word list
	packages+=(${group[$g]})
done

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: need root or sudo for: ${missing[*]}" >&2; exit 1; }
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
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
# env: sudo resets the environment
"${sudo[@]}" env "${env[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
