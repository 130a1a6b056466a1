#!/bin/bash
# Build the patched guest kernel: Debian's linux-source-6.1 + the series in
# host-patches/linux-6.1/ (git am, nothing else), configured from
# tinyconfig + host-patches/linux-6.1/guest.config, with ccache, in a
# reusable cache directory (only what changed is rebuilt).
# Prints the build tree (usable as KDIR) on the last line.
# Usage: build-kernel.sh [--debug] [CACHE_DIR]
# CACHE_DIR defaults to $NVMEV_CACHE/kernel (NVMEV_CACHE: /var/cache/nvmev):
# outside the clone, so a fresh clone (CI) reuses an earlier build.
# --debug adds host-patches/linux-6.1/debug.config (KASAN, kmemleak,
# lockdep, ...) and builds into CACHE_DIR/out-debug, from the same source.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
variant=
if [ "${1:-}" = --debug ]; then
	variant=-debug
	shift
fi
cache_dir=${1:-${NVMEV_CACHE:-/var/cache/nvmev}/kernel}
cache=$(mkdir -p "$cache_dir" && cd "$cache_dir" && pwd)
series_dir=$here/host-patches/linux-6.1
src=$cache/src
out=$cache/out$variant
fragments=("$series_dir/guest.config")
[ -n "$variant" ] && fragments+=("$series_dir/debug.config")
# the kernel's objects have a compiler cache of their own
export CCACHE_DIR=$cache/ccache
git_id=(-c user.email=build@nvmev.local -c user.name=nvmev-build)

# linux-source-6.1.tar.xz, not a 6.1x one installed next to it (6.12)
tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.1*.tar.xz' ! -name 'linux-source-6.1[0-9]*' |
	sort -V | tail -1)
[ -n "$tarball" ] || { echo "build-kernel: install linux-source-6.1" >&2; exit 1; }
command -v ccache >/dev/null || { echo "build-kernel: install ccache" >&2; exit 1; }

# steps 1 and 2 change the source both variants build from: one at a time
# (make check builds the two at once)
exec 9>"$cache/src.lock"
flock 9

# 1. pristine source, once, as a git tree so the series applies with git am
if [ ! -d "$src/.git" ]; then
	rm -rf "$src" && mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	# Debian's tarball ignores everything through .gitignore: add with -f
	git -C "$src" init -q
	git -C "$src" add -f .
	git -C "$src" "${git_id[@]}" commit -qm "$(basename "$tarball")"
	git -C "$src" tag base
fi

# 2. the series, re-applied only when it changed
stamp=$(cat "$series_dir/series" "$series_dir"/*.patch | sha1sum | cut -d' ' -f1)
if [ "$(cat "$src/.nvmev-series" 2>/dev/null)" != "$stamp" ]; then
	git -C "$src" am --abort 2>/dev/null || true
	git -C "$src" checkout -q -f base
	# a cache from before the header was part of the series had a copy
	rm -f "$src/include/linux/nvmev_hint.h"
	while read -r p; do
		case "$p" in "" | \#*) continue ;; esac
		git -C "$src" "${git_id[@]}" am -q --keep-cr "$series_dir/$p"
	done <"$series_dir/series"
	echo "$stamp" >"$src/.nvmev-series"
fi

flock -u 9

# 3. configuration, regenerated when the fragment changed
mkdir -p "$out"
cfg_stamp=$(cat "${fragments[@]}" | sha1sum | cut -d' ' -f1)
if [ "$(cat "$out/.nvmev-config" 2>/dev/null)" != "$cfg_stamp" ]; then
	make -s -C "$src" O="$out" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"${fragments[@]}" >/dev/null
	make -s -C "$src" O="$out" olddefconfig >/dev/null
	echo "$cfg_stamp" >"$out/.nvmev-config"
fi
# a checker whose dependencies are missing is silently dropped by kconfig
if [ -n "$variant" ]; then
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$series_dir/debug.config" |
		while read -r opt; do grep -qx "$opt" "$out/.config" || echo "$opt"; done)
	[ -z "$missing" ] || { echo "build-kernel: not enabled: $(echo "$missing" | tr "\n" " ")" >&2; exit 1; }
fi

# 4. build: the kernel, and what external modules need
start=$(date +%s)
log=$cache/build$variant.log
make -s -C "$src" O="$out" -j "$(nproc)" CC="ccache gcc" bzImage modules >"$log" 2>&1 ||
	{ tail -40 "$log"; exit 1; }
echo "build-kernel: $(make -s -C "$src" O="$out" kernelrelease) built in $(($(date +%s) - start)) s" >&2
echo "$out"
