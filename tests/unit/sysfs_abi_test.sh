#!/bin/bash
# Every sysfs attribute and module parameter that host-patches/ adds has
# an ABI entry in docs/sysfs-abi.md, and every entry there is added by a
# patch. A knob the patches add in a form this script cannot read fails
# too, so that a new kind of attribute is not silently left out.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
doc=$here/docs/sysfs-abi.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the module a source file builds into, for its parameters' sysfs path
module_of() {
	case "$1" in
	drivers/nvme/host/core.c) echo nvme_core ;;
	drivers/nvme/host/pci.c) echo nvme ;;
	block/*) echo block ;;
	*) return 1 ;;
	esac
}

status=0
for patch in "$here"/host-patches/linux-6.1/*.patch; do
	awk -v patch="$(basename "$patch")" '
		/^\+\+\+ b\// { file = substr($2, 3); next }
		/^\+/ && /QUEUE_R[OW]_ENTRY\(/ {
			if (match($0, /"[a-z0-9_]+"/)) {
				print "/sys/block/<disk>/queue/" substr($0, RSTART + 1, RLENGTH - 2); next
			}
		}
		/^\+/ && /^\+EXT4_(RW_|RO_)?ATTR[A-Z_]*\(/ {
			s = $0; sub(/^\+EXT4_[A-Z_]*\(/, "", s); sub(/[ ,)].*/, "", s)
			print "/sys/fs/ext4/<disk>/" s; next
		}
		/^\+/ && /module_param(_named)?\(/ {
			s = $0; sub(/.*module_param(_named)?\(/, "", s); sub(/[ ,)].*/, "", s)
			print "param " file " " s; next
		}
		/^\+/ && /(_ATTR[A-Z_]*\(|_ENTRY\(|DEVICE_ATTR|__ATTR)/ {
			print "unread " patch ": " $0
		}
	' "$patch"
done >"$tmp/raw"

while read -r kind a b; do
	case "$kind" in
	param)
		if ! m=$(module_of "$a"); then
			echo "FAIL: module_param $b in $a: no module known for that file (add it to module_of)"
			status=1
			continue
		fi
		echo "/sys/module/$m/parameters/$b" ;;
	unread)
		echo "FAIL: a sysfs attribute this test cannot read: $a $b"
		status=1 ;;
	*) echo "$kind" ;;
	esac
done <"$tmp/raw" | sort -u >"$tmp/added"
grep -q FAIL "$tmp/added" && { grep FAIL "$tmp/added"; status=1; }
grep -v FAIL "$tmp/added" >"$tmp/knobs"

sed -n 's/^What:[[:space:]]*//p' "$doc" | sort -u >"$tmp/documented"

[ -s "$tmp/knobs" ] || { echo "FAIL: found no knob in the patches (is the parser broken?)"; exit 1; }
while read -r k; do
	echo "FAIL: $k is added by host-patches/ but has no 'What:' entry in docs/sysfs-abi.md"
	status=1
done < <(comm -23 "$tmp/knobs" "$tmp/documented")
while read -r k; do
	echo "FAIL: docs/sysfs-abi.md documents $k, which no patch adds"
	status=1
done < <(comm -13 "$tmp/knobs" "$tmp/documented")
[ "$status" -eq 0 ] && echo "sysfs_abi: $(wc -l <"$tmp/knobs") knobs, each documented"
exit "$status"
