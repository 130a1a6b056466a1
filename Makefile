# nvmev: virtual NVMe SSD (kernel module) and its flash model.
#
#   make              build nvmev.ko (against KDIR) and the userspace tools
#   make experiments  install its packages, build, simulator experiments, one guest
#   make check        install every package, build, run every test tier (TIERS=unit,guest: those)
#   make bench        simulation speed (Google Benchmark)
#   make timing       nvmev.ko's timing in a QEMU guest vs the model
#   make hints        placement-hint experiments, simulator and guest
#   make subpage      sub-page appends against write points per die, simulator
#   make ext4         file-system experiments through ext4, patched guest kernel
#   make nio          NIO lazy polling vs interrupts and polling, patched guest kernel
#   make paths        software latency on every host path, and null_blk's, median of 3 guest runs
#   make store        the default store against the memmap= store, one stock guest
#   make dkms-install nvmev.ko through DKMS: rebuilt for every kernel installed later
#
# Kernel objects come from Kbuild; userspace from CMake into build/.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /lib/modules/*-amd64/build))))
BUILD ?= build
JOBS ?= $(shell nproc)
RESULTS ?= results

.PHONY: all module sim deps deps-experiments check bench experiments timing hints subpage zns ext4 nio paths store \
	scaling \
	dkms-install dkms-uninstall clean

all: module sim

module:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "nvmev: no kernel build tree (KDIR=$(KDIR)); run 'make deps' or set KDIR" >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

sim:
	cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release -DNVMEV_TESTS=OFF >/dev/null
	cmake --build $(BUILD)/release -j $(JOBS)

# Packages (scripts/install-deps.sh: one table, by purpose). What boots
# Debian's own 6.1 kernel or runs only the simulator needs the small
# experiments set; make check, and the experiments that build the patched
# kernel (ext4, nio, paths), need everything.
deps:
	scripts/install-deps.sh check

deps-experiments:
	scripts/install-deps.sh experiments

# Every tier: unit tests under ASan/UBSan, the model compiled as kernel
# code (W=1, -Werror), and the style checks.
check: deps
	TIERS=$(TIERS) scripts/run-checks.sh

bench: deps-experiments sim
	$(BUILD)/release/bench/sim_bench

experiments: deps-experiments sim
	scripts/sim-experiments.sh $(BUILD)/release/sim/nvmev-sim $(RESULTS)/sim
	scripts/guest-test.sh demo

# nvmev.ko's timing in a guest next to the model (latency, stride knees)
timing: deps-experiments sim
	scripts/guest-timing.sh $(BUILD)/release/sim/nvmev-sim $(RESULTS)/guest

# placement hints off/on in nvmev-sim and in a guest (nvmev-hint replay)
hints: deps-experiments sim
	scripts/hint-experiments.sh $(BUILD)/release/sim/nvmev-sim $(RESULTS)/hints

# page-level fragmentation: sub-page appends vs write points per die
subpage: deps-experiments sim
	scripts/subpage-experiments.sh $(BUILD)/release/sim/nvmev-sim $(RESULTS)/subpage

# zoned namespaces in nvmev-sim: zone width and open zones; zoned vs
# conventional, there and through Linux's block layer in a stock guest
zns: deps-experiments sim
	scripts/zns-experiments.sh $(BUILD)/release/sim/nvmev-sim $(RESULTS)/zns
	scripts/zns-guest-experiment.sh $(RESULTS)/zns

# fragmentation through ext4 with the host patches: hints off/on vs contiguous
ext4: deps
	scripts/ext4-experiments.sh $(RESULTS)/ext4

# synchronous polling and NIO (host patches 4-5): latency and CPU
nio: deps
	scripts/nio-experiments.sh $(RESULTS)/nio

paths: deps
	scripts/paths-experiment.sh $(RESULTS)/paths

# the default (page-backed) store vs the memmap= store, stock guest: IOPS ratios
store: deps-experiments
	scripts/store-experiment.sh $(RESULTS)/store

# two drives at once against one: IOPS and latency ratios (docs/drives.md)
scaling: deps-experiments
	scripts/scaling-experiment.sh $(RESULTS)/scaling

# KVERS="6.1.0-28-amd64 ...": build for those too (default: the running kernel)
dkms-install:
	scripts/dkms.sh install $(KVERS)

dkms-uninstall:
	scripts/dkms.sh uninstall

clean:
	rm -rf $(BUILD)
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
