#!/bin/bash
# The guest half of `make experiments` (`make demo`): a stock guest loads
# nvmev.ko, makes an ext4 file system on it, runs fio and prints the
# drive's geometry and per-die statistics (guest.sh).
# Usage: run.sh
set -euo pipefail
# shellcheck source=experiments/lib/runner.sh
. "$(dirname "$0")/../lib/runner.sh"
runner_init demo
scripts/guest-test.sh demo
