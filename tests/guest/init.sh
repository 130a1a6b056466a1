#!/bin/sh
# /init of the test guest: mount the basics, load the stock nvme and ext4
# modules, run the guest tests named on the kernel command line
# (nvmev_tests=a,b,... or all) and power off. Results are printed as
# "ok - name", "not ok - name: why" or "skip - name: why" and a closing
# "guest: N passed, N failed, N skipped" line for the host to parse.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmp /tmp
echo 0 >/proc/sys/kernel/printk_ratelimit 2>/dev/null
# the debug kernel: forget what boot left unreferenced, so that the
# kmemleak test reports only what the tests leaked
[ -e /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak

while read -r m; do
	case "$m" in
	nvme) insmod "/modules/$m.ko" poll_queues=1 ;;
	*) insmod "/modules/$m.ko" ;;
	esac || echo "init: insmod $m failed"
done </modules/order

tests=all
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case "$arg" in
	nvmev_tests=*) tests=${arg#nvmev_tests=} ;;
	esac
done

# every kernel message, for the per-test check for kernel reports (its own
# reader: "dmesg -c" in a test does not hide anything from it)
cat /dev/kmsg >/tmp/kernel.log 2>/dev/null &

[ -r /sys/class/rtc/rtc0/since_epoch ] ||
	echo "init: no RTC: a leap of the host's clock would show as a stall"

# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
# shellcheck source=tests/guest/runner.sh
. /tests/runner.sh
# shellcheck source=tests/guest/tests.sh
. /tests/tests.sh
run_tests "$tests"
echo "guest: $PASSED passed, $FAILED failed, $SKIPPED skipped"
poweroff -f
