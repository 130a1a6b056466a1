#!/bin/bash
# nvmev.ko through DKMS, so that it is rebuilt for every kernel installed
# later (Debian's kernel packages run DKMS's hook) and `modprobe nvmev`
# keeps working after a kernel update.
# Usage: dkms.sh install [KVER...]  stage this tree's module sources in
#            /usr/src/nvmev-VERSION, replace any nvmev DKMS already has,
#            build and install for each KVER (default: the running kernel,
#            if its headers are installed)
#        dkms.sh uninstall          remove every nvmev version from DKMS
#        dkms.sh version            the VERSION this tree installs as
set -euo pipefail
cd "$(dirname "$0")/.."

# the last commit's date and id; 0.local outside a git checkout
version() { git log -1 --format=%cd.g%h --date=format:%Y%m%d 2>/dev/null || echo 0.local; }

# every nvmev version DKMS knows, one per line
installed() { dkms status nvmev 2>/dev/null | sed -n 's#^nvmev/\([^,:]*\).*#\1#p' | sort -u; }

remove_all() {
	local v
	for v in $(installed); do
		dkms remove "nvmev/$v" --all >/dev/null
		rm -rf "/usr/src/nvmev-$v"
		echo "dkms: removed nvmev/$v"
	done
}

need() {
	command -v dkms >/dev/null || { echo "dkms: install Debian's dkms package" >&2; exit 1; }
	[ "$(id -u)" -eq 0 ] || { echo "dkms: run as root (sudo make dkms-install)" >&2; exit 1; }
}

install() {
	local v src k kvers=("$@")
	need
	v=$(version)
	src=/usr/src/nvmev-$v
	remove_all
	mkdir -p "$src"
	cp Kbuild "$src/"
	cp --parents ftl/*.[ch] nvmev/*.[ch] hint-proto/*.h "$src/"
	sed "s/@VERSION@/$v/" dkms.conf >"$src/dkms.conf"
	dkms add "nvmev/$v" >/dev/null
	echo "dkms: added nvmev/$v ($src)"
	if [ ${#kvers[@]} -eq 0 ]; then
		k=$(uname -r)
		if [ -d "/lib/modules/$k/build" ]; then
			kvers=("$k")
		else
			echo "dkms: no headers for the running kernel $k: nvmev/$v builds for the kernels installed from now on, or: dkms install nvmev/$v -k KVER"
		fi
	fi
	for k in "${kvers[@]}"; do
		dkms install "nvmev/$v" -k "$k" >/dev/null ||
			{ echo "dkms: nvmev/$v did not build for $k (/var/lib/dkms/nvmev/$v/build/make.log)" >&2; exit 1; }
		echo "dkms: nvmev/$v installed for $k: modprobe nvmev"
	done
}

case ${1:-} in
install) shift; install "$@" ;;
uninstall) need; remove_all ;;
version) version ;;
*) sed -n '5,10s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
