#!/bin/bash
# Whether nvmev.ko can be built against the kernel build tree KDIR: one
# line naming what to install, and exit 1, when there is no tree or its
# kernel is not one the module is built for (nvmev/nvmev_compat.h: Linux
# 6.1 to 7.2, the kernels the kbuild tier builds against).
# Usage: kdir-check.sh KDIR   (the Makefile's module target, kbuild-check.sh)
# NVMEV_ANY_KERNEL=1 lets a newer kernel through, for trying one.
set -euo pipefail
kdir=${1:-}
oldest=6.1
newest=7.2
die() { echo "nvmev: $*" >&2; exit 1; }

# what to do for the headers of kernel release $1, by who packages it
install_headers() {
	case $1 in
	*+deb13-amd64) echo "run scripts/install-deps.sh k72 (Debian 13's headers, made a build tree)" ;;
	*-amd64) echo "install linux-headers-$1" ;;
	*) echo "install its kernel's build tree (Debian's: linux-headers-amd64)" ;;
	esac
}

[ -n "$kdir" ] ||
	die "no kernel build tree in /lib/modules: install linux-headers-amd64 (or those of the running $(uname -r)), or set KDIR"
if [ ! -e "$kdir/Makefile" ]; then
	rel=unknown
	[[ $kdir == /lib/modules/*/build ]] && rel=$(basename "$(dirname "$kdir")")
	die "KDIR=$kdir is no kernel build tree: $(install_headers "$rel"), or set KDIR"
fi
rel=$(cat "$kdir/include/config/kernel.release" 2>/dev/null) ||
	die "KDIR=$kdir is not prepared (no include/config/kernel.release): run its 'make modules_prepare'"
[[ $rel =~ ^([0-9]+)\.([0-9]+) ]] || die "KDIR=$kdir: '$rel' is no kernel release"
series=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
if [ "$(printf '%s\n' "$series" "$oldest" | sort -V | head -1)" != "$oldest" ]; then
	die "Linux $rel (KDIR=$kdir) is older than $oldest, the oldest kernel nvmev.ko builds against: install Debian 12's linux-headers-amd64 (6.1) or a newer kernel's headers"
fi
if [ "$series" != "$newest" ] && [ "$(printf '%s\n' "$series" "$newest" | sort -V | tail -1)" = "$series" ] &&
	[ "${NVMEV_ANY_KERNEL:-0}" != 1 ]; then
	die "Linux $rel (KDIR=$kdir) is newer than $newest, the newest kernel nvmev.ko is built for: build against $newest (scripts/install-deps.sh k72 installs Debian's), or set NVMEV_ANY_KERNEL=1 to try"
fi
