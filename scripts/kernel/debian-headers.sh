#!/bin/bash
# Debian 13's headers of one kernel (linux-headers-KVER from
# trixie-backports) as a module build tree on Debian 12, linked as
# /lib/modules/KVER/build, so that make, kbuild-check.sh and DKMS build
# against it as against Debian 12's own.
#
# The packages do not install on Debian 12: linux-headers-KVER depends on
# gcc-14-for-host (Debian 12 has gcc 12), and linux-kbuild-VERSION's
# modpost, objtool and resolve_btfids need glibc 2.38 (Debian 12: 2.36);
# taking either from Debian 13 would upgrade the C library. So the three
# packages are fetched with apt-get download, unpacked under the cache,
# and made to work with Debian 12's toolchain:
#  1. modpost, objtool and resolve_btfids rebuilt from linux-source-SERIES
#     of the same version with Debian 12's gcc (modules_prepare on
#     Debian's .config); every program of the tree must then run.
#  2. CC is gcc-12 (the tree's .kernelvariables), and the configuration
#     symbols that describe the toolchain (CONFIG_CC_*, GCC_*, AS_*, LD_*,
#     PAHOLE_*) are what Kconfig computes for gcc 12, binutils and pahole
#     of Debian 12 on Debian's .config: otherwise the build passes gcc-14's
#     options (-fmin-function-alignment) to gcc 12. Every other symbol,
#     what the kernel itself was built with, stays Debian's.
#  3. The tree's Makefile, which names /usr/src, names the cache instead.
# Usage: debian-headers.sh KVER   (e.g. 7.2.12+deb13-amd64; as root)
# The tree is $NVMEV_CACHE/debian-headers/KVER (NVMEV_CACHE:
# /var/cache/nvmev), outside the clone; it is built once, again only when
# this script changes. Prints the tree on the last line.
set -euo pipefail
kver=${1:-}
die() { echo "debian-headers: $*" >&2; exit 1; }
[[ $kver =~ ^(([0-9]+\.[0-9]+)\.[0-9]+\+deb13)-amd64$ ]] ||
	die "'$kver' is not a Debian 13 amd64 kernel release (e.g. 7.2.12+deb13-amd64)"
abi=${BASH_REMATCH[1]}
series=${BASH_REMATCH[2]}
cache=${NVMEV_CACHE:-/var/cache/nvmev}/debian-headers/$kver
tree=$cache/root/usr/src/linux-headers-$kver
recipe=$(sha1sum "$0" | cut -c1-12)
cc=x86_64-linux-gnu-gcc-12

link() {
	mkdir -p "/lib/modules/$kver"
	ln -sfn "$tree" "/lib/modules/$kver/build"
	echo "$tree"
}

[ "$(id -u)" -eq 0 ] || die "run as root (it links /lib/modules/$kver/build)"
if [ "$(cat "$cache/.built" 2>/dev/null)" = "$recipe" ]; then
	link
	exit 0
fi
for c in apt-get apt-cache dpkg-deb "$cc" make flex bison bc pahole; do
	command -v "$c" >/dev/null ||
		die "$c is missing: scripts/install-deps.sh check installs it"
done
version=$(apt-cache show --no-all-versions "linux-headers-$kver" 2>/dev/null |
	sed -n 's/^Version: //p')
[ -n "$version" ] ||
	die "no linux-headers-$kver in apt's sources: scripts/install-deps.sh check adds Debian's trixie-backports"

# built in a scratch directory, moved into place whole
work=$cache.tmp
rm -rf "$work"
mkdir -p "$work/debs" "$work/root" "$work/src" "$work/out"
trap 'rm -rf "$work"' EXIT
chown _apt "$work/debs" 2>/dev/null || true # apt's download sandbox
(cd "$work/debs" && apt-get download -q=2 "linux-headers-$kver=$version" \
	"linux-headers-$abi-common=$version" "linux-kbuild-$abi=$version" \
	"linux-source-$series=$version") ||
	die "apt-get download of the $kver packages ($version) failed"
for p in linux-headers linux-kbuild; do
	for d in "$work/debs/$p"-*.deb; do dpkg-deb -x "$d" "$work/root"; done
done
wtree=$work/root/usr/src/linux-headers-$kver
kbuild=$work/root/usr/lib/linux-kbuild-$abi
dpkg-deb --fsys-tarfile "$work/debs/linux-source-$series"_*.deb |
	tar -xO "./usr/src/linux-source-$series.tar.xz" |
	tar -xJ -C "$work/src" --strip-components=1

# 1. the host programs, from the same source with gcc 12
cp "$wtree/.config" "$work/out/.config"
make -s -C "$work/src" O="$work/out" CC="$cc" olddefconfig
nice -n 19 make -s -C "$work/src" O="$work/out" CC="$cc" -j "$(nproc)" modules_prepare
cp "$work/out/scripts/mod/modpost" "$kbuild/scripts/mod/modpost.real-lsb-64"
cp "$work/out/tools/objtool/objtool" "$kbuild/tools/objtool/objtool.real-x86"
cp "$work/out/tools/bpf/resolve_btfids/resolve_btfids" \
	"$kbuild/tools/bpf/resolve_btfids/resolve_btfids"
# the others' builds (big-endian, 32-bit, powerpc): not for amd64 modules
rm -f "$kbuild"/scripts/mod/modpost.real-{lsb-32,msb-32,msb-64} \
	"$kbuild/tools/objtool/objtool.real-powerpc"
while read -r f; do
	if file -b "$f" | grep -q '^ELF.*dynamically linked' && ldd "$f" 2>&1 | grep -q 'not found'; then
		die "${f#"$work/root"} does not run on this system: $(ldd "$f" 2>&1 | grep -m1 'not found')"
	fi
done < <(find "$kbuild" -type f -perm -u+x)

# 2. gcc 12: the compiler, and the toolchain's configuration symbols
sed -i 's/gcc-[0-9][0-9]*$/gcc-12/' "$wtree/.kernelvariables"
grep -q 'gcc-12$' "$wtree/.kernelvariables" || die "no CC line in $kver's .kernelvariables"
awk '
	match($0, /^CONFIG_(CC_|GCC_|AS_|LD_|PAHOLE_)[A-Z0-9_]*=/) {
		name = substr($0, 1, RLENGTH - 1)
		val = substr($0, RLENGTH + 1)
		if (FILENAME == ARGV[1]) old[name] = val; else new[name] = val
		seen[name] = 1
	}
	END { for (n in seen) if (old[n] != new[n]) print n "=" new[n] }
' "$wtree/.config" "$work/out/.config" | sort >"$work/toolchain"
while IFS= read -r line; do
	n=${line%%=*} v=${line#*=}
	sed -i -e "/^$n=/d" -e "/^# $n is not set/d" "$wtree/.config"
	sed -i "/^$n=/d" "$wtree/include/config/auto.conf"
	sed -i -e "/^#define $n /d" "$wtree/include/generated/autoconf.h"
	if [ -z "$v" ]; then
		echo "# $n is not set" >>"$wtree/.config"
		continue
	fi
	echo "$n=$v" >>"$wtree/.config"
	# auto.conf holds strings without their quotes
	v_make=${v#\"}
	echo "$n=${v_make%\"}" >>"$wtree/include/config/auto.conf"
	[ "$v" = y ] && v=1
	echo "#define $n $v" >>"$wtree/include/generated/autoconf.h"
done <"$work/toolchain"
cp "$work/toolchain" "$wtree/.nvmev-toolchain"

# 3. the cache, not /usr/src
sed -i "s#/usr/src/#$cache/root/usr/src/#" "$wtree/Makefile"

rm -rf "$cache"
mkdir -p "$cache"
mv "$work/root" "$cache/root"
echo "$recipe" >"$cache/.built"
link
