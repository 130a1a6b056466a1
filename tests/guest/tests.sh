#!/bin/sh
# The guest tests of nvmev.ko. Each test_<name> loads the module itself.
ALL_TESTS="smoke"

test_smoke() {
	check "insmod" load_nvmev || return 1
	cat $DBG/geometry
	nvme list
	check "id-ctrl" nvme id-ctrl /dev/nvme0
	check "read 1 MiB" dd if=/dev/nvme0n1 of=/dev/null bs=1M count=1
	check "write 1 MiB" dd if=/dev/zero of=/dev/nvme0n1 bs=1M count=1 oflag=direct
	cat $DBG/stats
	check "rmmod" unload_nvmev
}
