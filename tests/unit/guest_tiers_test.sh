#!/bin/bash
# Every guest test declares itself in the comment lines right above its
# function: "# tiers: stock debug" (or "none" for one run only by name)
# on the line above it, with known tier names, and in tests/guest/ a
# one-line "# desc:" in the same block; no two tests share a name; every
# requires_* guard a test calls is one runner.sh defines, and what it
# requires is given by every tier that runs the test (a test of a tier
# must not skip there). Prints each tier's size.
set -euo pipefail
cd "$(dirname "$0")/../.."
runner=tests/guest/runner.sh
tiers=$(sed -n 's/^GUEST_TIERS="\(.*\)"$/\1/p' "$runner")
[ -n "$tiers" ] || { echo "$runner: no GUEST_TIERS"; exit 1; }
known=" $tiers none "
# gives TIER: what runner.sh's tier_gives says that tier's boot gives
gives() { sh -c '. "$1"; tier_gives "$2"' gives "$runner" "$1"; }
status=0
declare -A count seen
while IFS=: read -r file line text; do
	name=${text%%()*}
	name=${name#test_}
	[ -z "${seen[$name]:-}" ] || { echo "$file:$line: test_$name also in ${seen[$name]}"; status=1; }
	seen[$name]=$file
	above=$(sed -n "$((line - 1))p" "$file")
	if [[ $above != "# tiers: "* ]]; then
		echo "$file:$line: test_$name has no '# tiers:' line above it"
		status=1
		continue
	fi
	# the comment block above the function: its "# desc:" line
	if [[ $file == tests/guest/* ]]; then
		awk -v l="$line" 'NR >= l { exit } !/^#/ { d = 0 } /^# desc: ./ { d = 1 } END { exit !d }' "$file" ||
			{ echo "$file:$line: test_$name has no '# desc:' line above it"; status=1; }
	fi
	read -ra words <<<"${above#\# tiers: }"
	# each requirement the test's guards name, given by every tier that
	# runs it (but the kernel's version: stock runs on 6.1 and 6.12)
	while read -r need; do
		[ "$need" = kernel ] && continue
		for w in "${words[@]}"; do
			[ "$w" = none ] && continue
			[[ " $(gives "$w") " == *" $need "* ]] ||
				{ echo "$file:$line: test_$name requires $need, which tier $w does not give"; status=1; }
		done
	done < <(awk -v l="$line" 'NR > l && /^}/ { exit }
		NR > l && /^\trequires_/ { sub(/^\trequires_/, ""); sub(/ .*/, ""); print }' "$file")
	if [ "${words[0]}" = none ]; then
		count[none]=$((${count[none]:-0} + 1))
		continue
	fi
	for w in "${words[@]}"; do
		if [[ $known != *" $w "* ]]; then
			echo "$file:$line: test_$name: no tier '$w' (tiers:$known)"
			status=1
		fi
		count[$w]=$((${count[$w]:-0} + 1))
	done
done < <(grep -n '^test_[a-z0-9_]*() {' tests/guest/*.sh experiments/*/guest.sh)
# every guard a test calls is one runner.sh defines
while IFS=: read -r file line guard; do
	grep -q "^$guard() {" "$runner" ||
		{ echo "$file:$line: $guard is no guard of $runner"; status=1; }
done < <(grep -on '^	requires_[a-z0-9_]*' tests/guest/*.sh experiments/*/guest.sh | tr -d '\t')
for t in $tiers none; do
	printf '%s=%s ' "$t" "${count[$t]:-0}"
done
echo
if [ "${count[stock]:-0}" -eq 0 ] || [ "${count[debug]:-0}" -eq 0 ]; then
	echo "a tier is empty"
	status=1
fi
exit "$status"
