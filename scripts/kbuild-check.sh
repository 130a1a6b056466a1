#!/bin/bash
# Build nvmev.ko (module entry + ftl/) with W=1 and -Werror against every
# Debian kernel whose headers are installed (6.1 and 6.12 in make check),
# or against KDIR alone, in a scratch copy so the tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${KDIR:-}" ]; then
	kdirs=("$KDIR")
else
	mapfile -t kdirs < <(find /lib/modules -mindepth 2 -maxdepth 2 -name build | sort -V)
fi
if [ ${#kdirs[@]} -eq 0 ] || [ ! -d "${kdirs[0]}" ]; then
	echo "kbuild-check: no kernel build tree; install linux-headers-amd64" >&2
	exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for kdir in "${kdirs[@]}"; do
	rm -rf "${scratch:?}"/*
	cp -r Kbuild ftl nvmev hint-proto "$scratch/"
	make -s -C "$kdir" M="$scratch" W=1 modules
	echo "kbuild-check: nvmev.ko built against $(modinfo -F vermagic "$scratch/nvmev.ko" | cut -d' ' -f1)," \
		"module parameters: $(modinfo -F parm "$scratch/nvmev.ko" | grep -c .)"
done
