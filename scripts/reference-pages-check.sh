#!/bin/bash
# The reference pages say what nvmev is and does, not when something was
# run or changed: no dates and no times of day in them (a run's diary
# goes into its commit message, its figures onto its experiment's page).
# Prints FILE:LINE: TEXT for each and fails; the shellcheck tier of
# scripts/run-checks.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# the reference pages; every other page of docs/ belongs to an experiment
reference_pages=(
	docs/module.md docs/drives.md docs/controller.md docs/model.md docs/parameters.md
	docs/zns.md docs/testing.md docs/extending.md docs/sysfs-abi.md docs/uhost.md
	docs/host-patches.md docs/fdp.md
)

month='(Jan(uary)?|Feb(ruary)?|Mar(ch)?|Apr(il)?|May|June?|July?|Aug(ust)?|Sep(t|tember)?|Oct(ober)?|Nov(ember)?|Dec(ember)?)'
day='[0-9]{1,2}(st|nd|rd|th)?'
dated=(
	'\b20[0-9]{2}-[0-9]{2}'                  # 2026-12, 2026-12-02
	"\\b$day $month\\b"                      # 2 December
	"\\b$month $day\\b"                      # December 2
	"\\b$month,? 20[0-9]{2}\\b"              # December 2026
	'\b[0-9]{1,2}:[0-9]{2}:[0-9]{2}\b'       # 00:45:10
	'\b[0-9]{1,2}:[0-9]{2} ?(UTC|GMT|[ap]m)\b' # 00:45 UTC
)
pattern=$(
	IFS='|'
	echo "${dated[*]}"
)

# What formats prescribe is not history, and is blanked before the search:
# an NVMe Qualified Name starts with the year and month its domain was
# registered (nqn.2026-11.io.nvmev...), and a Documentation/ABI entry has
# a Date: field, the month its interface was added (docs/sysfs-abi.md).
allowed=(-e 's/nqn\.20[0-9]{2}-[0-9]{2}\.[[:alnum:].:%-]*//g')
abi_date=(-e 's/^Date:\t.*//')

status=0
for page in "${reference_pages[@]}"; do
	[ -f "$page" ] || { echo "$page: listed as a reference page, but there is no such file"; status=1; continue; }
	blank=("${allowed[@]}")
	[ "$page" = docs/sysfs-abi.md ] && blank+=("${abi_date[@]}")
	if sed -E "${blank[@]}" "$page" | grep -nE "$pattern" | sed "s|^|$page:|"; then
		status=1
	fi
done
if [ "$status" -ne 0 ]; then
	echo "reference-pages-check: a date or a time in a reference page (above); a figure belongs on its experiment's page, a history in the commit message"
	exit 1
fi
echo "reference-pages-check: ${#reference_pages[@]} reference pages, no date or time"
