#!/bin/bash
# ftl/ reads bottom-up: a file may call functions of, and include headers
# of, only the layers below its own, in the order ftl/layers lists them.
# Calls are read from the object files (nm: what each file leaves
# undefined against what each defines), so a call hidden in a macro or an
# inline function counts; includes from the #include lines. Each breach is
# one line naming the file and the call or include; a file of ftl/ that
# ftl/layers does not list, or a function defined twice, fails too.
# Usage: scripts/ftl-layers.sh (CC: the compiler, default cc)
set -euo pipefail
cd "$(dirname "$0")/.."
list=ftl/layers
declare -A rank=() layer=() owner=()
fail=0
breach() {
	echo "ftl-layers: $*"
	fail=1
}

n=0
while read -r name files; do
	[[ -z $name || $name == \#* ]] && continue
	for f in $files; do
		rank[$f]=$n
		layer[$f]=$name
	done
	n=$((n + 1))
done <"$list"

for path in ftl/*.c ftl/*.h; do
	f=${path#ftl/}
	[ -n "${rank[$f]:-}" ] || breach "ftl/$f is in no layer of $list: add it to its layer"
done

# whether file $2 sits in a layer above that of file $1 (a layer's files
# may include each other's headers: a .c its own)
above() {
	[ "${rank[$2]}" -gt "${rank[$1]}" ]
}

for f in "${!rank[@]}"; do
	[ -e "ftl/$f" ] || { breach "$list lists $f, which ftl/ does not hold"; continue; }
	while read -r inc; do
		[ -n "${rank[$inc]:-}" ] || continue
		if above "$f" "$inc"; then
			breach "ftl/$f (layer ${layer[$f]}) includes ftl/$inc (layer ${layer[$inc]}), a layer above it"
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "ftl/$f")
done

objs=$(mktemp -d)
trap 'rm -rf "$objs"' EXIT
for f in "${!rank[@]}"; do
	[[ $f == *.c && -e ftl/$f ]] || continue
	# the userspace build of the file; warnings are the other tiers' job
	"${CC:-cc}" -c -O0 -w -Iftl "ftl/$f" -o "$objs/$f.o"
done

for o in "$objs"/*.o; do
	f=$(basename "$o" .o)
	while read -r sym; do
		if [ -n "${owner[$sym]:-}" ]; then
			breach "$sym is defined twice: in ftl/${owner[$sym]} and ftl/$f"
		fi
		owner[$sym]=$f
	done < <(nm --defined-only -g "$o" | awk '{ print $3 }')
done
calls=0
for o in "$objs"/*.o; do
	f=$(basename "$o" .o)
	while read -r sym; do
		def=${owner[$sym]:-}
		[[ -n $def && $def != "$f" ]] || continue
		calls=$((calls + 1))
		if [ "${rank[$def]}" -ge "${rank[$f]}" ]; then
			breach "ftl/$f (layer ${layer[$f]}) calls $sym, defined in ftl/$def (layer ${layer[$def]}), not a layer below it"
		fi
	done < <(nm -u "$o" | awk '{ print $2 }')
done

[ "$fail" -eq 0 ] || exit 1
echo "ftl-layers: ${#rank[@]} files in $n layers: $calls uses of another file's functions, none of a layer not below"
