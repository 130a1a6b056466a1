#!/bin/bash
# Build a guest initramfs from Debian packages: busybox as the shell, the
# test tools with their libraries, the stock kernel's nvme/ext4/f2fs (and
# NVMe/TCP host and target, and a virtio NIC's) modules in dependency
# order, nvmev.ko and the guest tests.
# Usage: build-initramfs.sh KVER NVMEV_KO OUT.cpio.gz [EXTRA_BINARY...]
# With NVMEV_MODPROBE=DIR/nvmev.ko (relative to /lib/modules/KVER, e.g.
# updates/dkms/nvmev.ko, where DKMS installs it) nvmev.ko is also there,
# in a modules.dep, so that the guest can `modprobe nvmev`.
set -euo pipefail
kver=$1
ko=$2
out=$3
shift 3
extra=("$@")
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/vm/kernels.sh
. "$here/scripts/vm/kernels.sh"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,lib,lib64,usr/bin,usr/sbin,proc,sys,dev,tmp,mnt,modules,tests,etc}
cp /bin/busybox "$root/bin/busybox"
for app in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done

# dynamically linked tools and every library they load; f2fs's and
# btrfs's only where installed (install-deps.sh check): `make
# experiments` installs neither, and only their own tests use them
tools=(fio nvme mke2fs e2fsck filefrag blkdiscard blkzone sfdisk "${extra[@]}")
absent=()
for t in mkfs.f2fs fsck.f2fs mkfs.btrfs btrfs; do
	if command -v "$t" >/dev/null; then tools+=("$t"); else absent+=("$t"); fi
done
[ ${#absent[@]} -eq 0 ] || echo "build-initramfs: without ${absent[*]}: the f2fs and btrfs tests would fail"
for t in "${tools[@]}"; do
	path=$(command -v "$t") || { echo "build-initramfs: $t not installed" >&2; exit 1; }
	t=$(basename "$t")
	rm -f "$root/bin/$t" # may be a busybox applet link
	cp "$path" "$root/bin/$t"
	[ "$(head -c 2 "$path")" = "#!" ] && continue # a script: busybox runs it
	ldd "$path" | grep -o '/[^ ]*' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
rm -f "$root/bin/mkfs.ext4"
ln -s mke2fs "$root/bin/mkfs.ext4"
# the busybox applets of the same names must not shadow the real tools
for t in "${tools[@]}" mkfs.ext4; do
	t=$(basename "$t")
	ln -sf "/bin/$t" "$root/sbin/$t" 2>/dev/null || true
done
cp /etc/mke2fs.conf "$root/etc/mke2fs.conf"

# stock modules, dependencies first
declare -A seen=()
order=()
add_module() {
	local m=$1 dep
	[ -n "${seen[$m]:-}" ] && return
	seen[$m]=1
	for dep in $(modinfo -k "$kver" -F depends "$m" 2>/dev/null | tr ',' ' '); do
		add_module "$dep"
	done
	order+=("$m")
}
# put_modules LIST: the modules add_module ordered, listed in LIST
put_modules() {
	local m f
	: >"$root/modules/$1"
	for m in "${order[@]}"; do
		f=$(modinfo -k "$kver" -n "$m")
		[ "$f" = "(builtin)" ] && continue
		unpack_module "$f" "$root/modules/$m.ko"
		echo "$m" >>"$root/modules/$1"
	done
}
for m in configfs nvme ext4 f2fs crc32_generic crc32c_generic uio_pci_generic nvmet nvmet_tcp nvme_tcp \
	virtio_pci virtio_net; do
	modinfo -k "$kver" -n "$m" >/dev/null 2>&1 && add_module "$m"
done
put_modules order
# loaded at boot (init.sh); btrfs only by the test that needs it: its
# raid6_pq dependency benchmarks its algorithms when it loads
order=()
modinfo -k "$kver" -n btrfs >/dev/null 2>&1 && add_module btrfs
put_modules order-btrfs
# without its DWARF (4 MB of the 4.3 MB that a build against Debian's
# headers makes): the kernel copies and walks the whole file at every
# insmod, about a second of TCG time per load, and the tests load it
# hundreds of times; modinfo and kallsyms (oops traces) do not need it
strip --strip-debug -o "$root/modules/nvmev.ko" "$ko"
if [ -n "${NVMEV_MODPROBE:-}" ]; then
	mkdir -p "$root/lib/modules/$kver/$(dirname "$NVMEV_MODPROBE")"
	cp "$root/modules/nvmev.ko" "$root/lib/modules/$kver/$NVMEV_MODPROBE"
	echo "$NVMEV_MODPROBE:" >"$root/lib/modules/$kver/modules.dep"
fi

cp "$here"/tests/guest/*.sh "$root/tests/"
# each experiment's guest half as /experiments/NAME.sh; NIO's calibration
# as a command (the nio and paths experiments and tests call it)
mkdir -p "$root/experiments"
for half in "$here"/experiments/*/guest.sh; do
	name=$(basename "$(dirname "$half")")
	cp "$half" "$root/experiments/$name.sh"
done
cp "$here/experiments/nio/calibrate.sh" "$root/bin/nio-calibrate.sh"
cp "$here/tests/guest/init.sh" "$root/init"
chmod +x "$root/init" "$root"/tests/*.sh

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out"
echo "build-initramfs: $out ($(du -h "$out" | cut -f1))"
