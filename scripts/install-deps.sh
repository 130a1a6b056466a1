#!/bin/bash
# Install the Debian 12 packages the build, tests and experiments need.
# Idempotent: does nothing when everything is present.
set -euo pipefail

packages=(
	build-essential cmake pkg-config
	libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
	linux-headers-amd64 kmod
	qemu-system-x86 linux-image-amd64 busybox-static fio nvme-cli e2fsprogs f2fs-tools
	btrfs-progs
	linux-image-6.12-amd64 linux-headers-6.12-amd64 dkms
	cpio util-linux fdisk xz-utils zstd
	shellcheck linux-source-6.1 xz-utils
	ccache bc bison flex libelf-dev libssl-dev
	gnuplot-nox libsqlite3-dev
	clang libclang-rt-14-dev
)

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
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
