#!/bin/bash
# Build nvmev.ko (module entry + ftl/) against the installed kernel headers
# with W=1 and -Werror, in a scratch copy so the tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
kdir=${KDIR:-$(find /lib/modules -mindepth 2 -maxdepth 2 -name build | sort -V | tail -1)}
[ -d "$kdir" ] || { echo "kbuild-check: no kernel build tree; install linux-headers-amd64" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r Kbuild ftl nvmev hint-proto "$scratch/"
make -s -C "$kdir" M="$scratch" W=1 modules
modinfo -F parm "$scratch/nvmev.ko" | grep -c . | xargs echo "kbuild-check: nvmev.ko built, module parameters:"
