#!/bin/bash
# Debian 13's kernel of one series on Debian 12, taken the way a user takes
# it: the newest linux-image-SERIES.*+deb13-amd64 from Debian's own
# trixie-backports through apt, and its headers as a module build tree
# (scripts/kernel/debian-headers.sh: the headers' packages need Debian
# 13's C library and gcc, which would upgrade Debian 12's).
# The apt source names the archive this machine's Debian 12 sources
# already use (read from /etc/apt/sources.list.d/*.sources, *.list or
# /etc/apt/sources.list) and is pinned to priority 50: apt takes from it
# what is asked for by name and what only it has, `apt-get upgrade` never
# anything. Before installing, apt's plan is checked: nothing but the
# kernel's own packages and linux-base may come from the suite, and the C
# library is never touched.
# Debian 13's linux-base (the image pre-depends on it) puts its own kernel
# hooks in /usr/share/kernel/{postinst,prerm}.d, which its linux-run-hooks
# hands to run-parts together with /etc/kernel/*.d: Debian 12's run-parts
# (debianutils 5.7) takes one directory only, and the image's configuration
# fails. Its hooks (00-legacy-boot copies the image to /boot) are therefore
# diverted (dpkg-divert, package nvmev) into /etc/kernel/*.d, where
# run-parts runs them in the same name order among the others, and the
# emptied directories removed.
# Usage: install-debian13-kernel.sh SERIES   (e.g. 7.2; as root;
#        scripts/install-deps.sh k72 runs it)
# Idempotent: with an image of SERIES installed, it only makes sure of the
# headers' build tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
series=${1:-}
suite=trixie-backports
list=/etc/apt/sources.list.d/nvmev-$suite.sources
pin=/etc/apt/preferences.d/nvmev-$suite
die() { echo "install-debian13-kernel: $*" >&2; exit 1; }
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "'$series' is not a kernel series (e.g. 7.2)"
[ "$(id -u)" -eq 0 ] || die "run as root"

# "URI KEYRING" of this machine's Debian 12 archive (suite bookworm): the
# first deb822 stanza or one-line entry that has it
debian_archive() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		{ [ -e "$f" ] && [ "$f" != "$list" ]; } || continue
		awk -v RS= '
			{
				uri = ""; key = ""; deb = 0; ours = 0
				n = split($0, line, "\n")
				for (i = 1; i <= n; i++) {
					if (line[i] ~ /^Types:/ && line[i] ~ /[: ]deb( |$)/) deb = 1
					if (line[i] ~ /^Suites:/ && line[i] ~ /[: ]bookworm( |$)/) ours = 1
					if (line[i] ~ /^URIs:/) { split(line[i], w, " "); uri = w[2] }
					if (line[i] ~ /^Signed-By: *\//) { split(line[i], w, " "); key = w[2] }
				}
				if (deb && ours && uri != "") { print uri, key; exit }
			}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		# deb [options] URI SUITE COMPONENTS...
		awk '$1 == "deb" {
			i = 2
			if ($2 ~ /^\[/) while ($i !~ /\]$/) i++
			if ($2 ~ /^\[/) i++
			if ($(i + 1) == "bookworm") { print $i; exit }
		}' "$f"
	done
}

# dpkg-query fails when no package matches
# linux-base's hooks from /usr/share/kernel/TYPE.d to /etc/kernel/TYPE.d
divert_kernel_hooks() {
	local d f
	for d in /usr/share/kernel/*.d; do
		[ -d "$d" ] || continue
		mkdir -p "/etc/kernel/$(basename "$d")"
		for f in "$d"/*; do
			[ -e "$f" ] || continue
			dpkg-divert --package nvmev --rename --quiet \
				--divert "/etc/kernel/$(basename "$d")/$(basename "$f")" --add "$f"
		done
		rmdir "$d"
	done
}

installed=$({ dpkg-query -W -f='${Status} ${Package}\n' "linux-image-$series.*+deb13-amd64" 2>/dev/null || true; } |
	sed -n 's/^install ok installed linux-image-//p' | sort -V | tail -1)
if [ -n "$installed" ]; then
	divert_kernel_hooks # a linux-base upgraded since may have brought new ones
	"$here/kernel/debian-headers.sh" "$installed" >/dev/null
	exit 0
fi

if [ ! -e "$list" ]; then
	read -r uri key < <(debian_archive | head -1) || true
	[ -n "${uri:-}" ] ||
		die "no Debian 12 (bookworm) source in /etc/apt to take the archive's address from"
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$uri" "$suite" "${key:-/usr/share/keyrings/debian-archive-keyring.gpg}" >"$list"
	printf 'Package: *\nPin: release n=%s\nPin-Priority: 50\n' "$suite" >"$pin"
fi
uri=$(sed -n 's/^URIs: //p' "$list")
# this source alone: the others' lists stay as they are; --error-on=any:
# a suite that cannot be fetched is an error, not apt's warning
if ! apt-get update -qq --error-on=any -o Dir::Etc::SourceList="$list" -o Dir::Etc::SourceParts=/dev/null \
	-o APT::Get::List-Cleanup=0 >/dev/null 2>&1; then
	rm -f "$list" "$pin"
	die "Debian's $suite cannot be reached at $uri (apt-get update failed)"
fi
kver=$(apt-cache search --names-only "^linux-image-${series//./\\.}\.[0-9]+\+deb13-amd64\$" |
	sed -n 's/^linux-image-\([^ ]*\) .*/\1/p' | sort -V | tail -1)
[ -n "$kver" ] || die "no linux-image-$series.*+deb13-amd64 in $suite at $uri"

want=("linux-image-$kver" "linux-base/$suite")
plan=$(apt-get install -s --no-install-recommends "${want[@]}" 2>&1) ||
	die "apt cannot install linux-image-$kver: $(grep -m1 '^E:' <<<"$plan")"
# what would come from Debian 13: the kernel's packages and linux-base only
foreign=$(awk -v k="$kver" '$1 == "Inst" && /(deb13|bpo13|Debian:13|stable-backports)/ {
	p = $2
	if (p != "linux-base" && p != "linux-image-" k && p != "linux-base-" k &&
	    p != "linux-binary-" k && p != "linux-modules-" k) print p
}' <<<"$plan")
[ -z "$foreign" ] || die "linux-image-$kver would take more from Debian 13: $(echo "$foreign" | tr '\n' ' ')"
! grep -q '^Inst libc6 ' <<<"$plan" || die "linux-image-$kver would upgrade libc6"
echo "install-debian13-kernel: installing linux-image-$kver from $suite"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "linux-base/$suite" >/dev/null
divert_kernel_hooks
# the image before its headers: its DKMS hook skips a kernel without them
# (with the tree present it would build every registered module, and a
# failing one would leave the image half-configured)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
"$here/kernel/debian-headers.sh" "$kver" >/dev/null
