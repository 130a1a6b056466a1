#!/bin/bash
# Build nvmev.ko (module entry + ftl/) with W=1 and -Werror against every
# Debian kernel whose headers are installed (6.1, 6.12 and 7.2 in make
# check; 7.2's the build tree of scripts/kernel/debian-headers.sh), or
# against KDIR alone, in a scratch copy so the tree stays clean. A tree
# missing or of a kernel the module is not built for: kdir-check.sh's line.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${KDIR:-}" ]; then
	kdirs=("$KDIR")
else
	mapfile -t kdirs < <(find /lib/modules -mindepth 2 -maxdepth 2 -name build | sort -V)
fi
if [ ${#kdirs[@]} -eq 0 ]; then
	echo "kbuild-check: no kernel build tree; install linux-headers-amd64" >&2
	exit 1
fi
for kdir in "${kdirs[@]}"; do
	scripts/kdir-check.sh "$kdir"
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for kdir in "${kdirs[@]}"; do
	rm -rf "${scratch:?}"/*
	cp -r Kbuild ftl nvmev hint-proto "$scratch/"
	make -s -C "$kdir" M="$scratch" W=1 modules
	echo "kbuild-check: nvmev.ko built against $(modinfo -F vermagic "$scratch/nvmev.ko" | cut -d' ' -f1)," \
		"module parameters: $(modinfo -F parm "$scratch/nvmev.ko" | grep -c .)"
done
