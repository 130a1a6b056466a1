#!/bin/bash
# The first patch of the series adds include/linux/nvmev_hint.h, so that
# `git am` of host-patches/linux-6.1/ alone builds the patched kernel. Its
# text is generated from hint-proto/nvmev_hint.h, the one copy of the
# protocol anyone edits:
#   hint-header-patch.sh          print the patch
#   hint-header-patch.sh --write  rewrite it in the series
#   hint-header-patch.sh --check  exit 1 if the series' copy is stale
#                                 (a unit test runs this)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
header=$here/hint-proto/nvmev_hint.h
patch=$here/host-patches/linux-6.1/0001-include-the-nvmev-placement-hint-protocol-header.patch

generate() {
	local lines blob
	lines=$(wc -l <"$header")
	blob=$(git hash-object --no-filters "$header")
	cat <<EOF
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: nvmev developer <dev@nvmev.local>
Date: Sun, 29 Nov 2026 19:00:00 +0000
Subject: [PATCH 1/6] include: the nvmev placement-hint protocol header

The wire format of nvmev's placement hints (CDW12 bits, the feature
identifier, the Identify Controller capability record), shared by the
device, these kernel patches and userspace tools. Generated from
hint-proto/nvmev_hint.h by scripts/kernel/hint-header-patch.sh.

Signed-off-by: nvmev developer <dev@nvmev.local>
---
 include/linux/nvmev_hint.h | $lines $(printf '+%.0s' $(seq 1 $((lines < 60 ? lines : 60))))
 1 file changed, $lines insertions(+)
 create mode 100644 include/linux/nvmev_hint.h

diff --git a/include/linux/nvmev_hint.h b/include/linux/nvmev_hint.h
new file mode 100644
index 0000000000000000000000000000000000000000..$blob
--- /dev/null
+++ b/include/linux/nvmev_hint.h
@@ -0,0 +1,$lines @@
EOF
	sed 's/^/+/' "$header"
	printf -- '-- \n2.39.5\n\n'
}

case "${1:-}" in
"") generate ;;
--write) generate >"$patch" ;;
--check)
	if ! generate | cmp -s - "$patch"; then
		echo "hint-header-patch: $patch is stale; run $0 --write" >&2
		exit 1
	fi
	;;
*)
	echo "usage: $0 [--write|--check]" >&2
	exit 2
	;;
esac
