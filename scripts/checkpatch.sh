#!/bin/bash
# checkpatch.pl (from Debian's linux-source-6.1) over the kernel-side C:
# ftl/ and nvmev/. Extracts the script once into build/checkpatch.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD:-build}/checkpatch
# linux-source-6.1.tar.xz, not a 6.1x one installed next to it (6.12)
tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.1*.tar.xz' ! -name 'linux-source-6.1[0-9]*' |
	sort -V | tail -1)
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	[ -n "$tarball" ] || { echo "checkpatch: install linux-source-6.1" >&2; exit 1; }
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
checkpatch() {
	"$dir/scripts/checkpatch.pl" --no-tree --quiet --strict --show-types \
		--ignore FILE_PATH_CHANGES "$@"
}

# The parameter tables are X-macros (FTL_CONFIG_PARAMS, NVMEV_PARAMS): each
# one list that becomes struct fields, module parameters and the
# validator's table. checkpatch cannot tell such a list from a statement
# macro, so only in the files that define and expand them are the
# macro-shape rules relaxed (an argument that names a struct member
# cannot take the parentheses MACRO_ARG_PRECEDENCE asks for).
xmacro_files=(ftl/ftl_config.h nvmev/nvmev_params.h nvmev/nvmev_main.c nvmev/nvmev_drive.c
	nvmev/nvmev_configfs.c)
xmacro_rules=COMPLEX_MACRO,TRAILING_SEMICOLON,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE
# nvmev.ko builds against more than one kernel (Debian 12's 6.1 and 6.12);
# what differs between them is in one header, the only file that may test
# LINUX_VERSION_CODE. checkpatch warns on any use of it (in-tree code is
# for one version), and takes its idiom, LINUX_VERSION_CODE >=
# KERNEL_VERSION(...), for a constant on the left of a comparison.
version_files=(nvmev/nvmev_compat.h)
version_rules=LINUX_VERSION_CODE,CONSTANT_COMPARISON
files=()
for f in ftl/*.c ftl/*.h nvmev/*.c nvmev/*.h hint-proto/*.h; do
	case " ${xmacro_files[*]} ${version_files[*]} " in
	*" $f "*) ;;
	*) files+=("$f") ;;
	esac
done
status=0
checkpatch -f "${files[@]}" || status=1
# the Linux 6.1 series, as patches (on stdin: inside a git work tree
# checkpatch.pl would take a tracked path for a source file)
patches=(host-patches/linux-6.1/*.patch)
for p in "${patches[@]}"; do
	checkpatch - <"$p" || { echo "checkpatch: in $p" >&2; status=1; }
done
checkpatch --ignore "$xmacro_rules" -f "${xmacro_files[@]}" || status=1
checkpatch --ignore "$version_rules" -f "${version_files[@]}" || status=1
[ "$status" -eq 0 ] &&
	echo "checkpatch: $((${#files[@]} + ${#xmacro_files[@]} + ${#version_files[@]})) files and ${#patches[@]} patches clean"
exit "$status"
