#!/bin/bash
# Sourced by the command-line tests: a scratch directory $tmp removed on
# exit, a count of failed checks $fails, and expect_cmd.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect_cmd STATUS PATTERN COMMAND ARGS... : the command exits with
# STATUS and its output (stdout and stderr) matches PATTERN
expect_cmd() {
	local want=$1 pattern=$2 got
	shift 2
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -ne "$want" ] || ! grep -q -- "$pattern" "$tmp/out"; then
		echo "FAIL: $* -> status $got (want $want), output:"
		sed 's/^/    /' "$tmp/out"
		fails=$((fails + 1))
	fi
}
