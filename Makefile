# nvmev: virtual NVMe SSD (kernel module) and its flash model.
#
#   make              build nvmev.ko (against KDIR) and the userspace tools
#   make experiments  install its packages, build, simulator experiments, one guest
#   make check        install every package, build, run every test tier (TIERS=unit,guest: those)
#   make bench        simulation speed (Google Benchmark)
#   make dkms-install nvmev.ko through DKMS: rebuilt for every kernel installed later
#
# Each experiment NAME is experiments/NAME/ (its driver run.sh, guest half
# guest.sh, analysis, reference figures, and its page README.md, whose
# results block the run rewrites); `make NAME` runs it into results/NAME/:
#   fragmentation  alignment, fragmented files, random writes in nvmev-sim
#   demo           a guest with nvmev.ko: mkfs.ext4, fio, geometry, statistics
#   timing         nvmev.ko's timing in a QEMU guest vs the model
#   hints          placement-hint experiments, simulator and guest
#   subpage        sub-page appends against write points per die, simulator
#   zns            zone width, open zones, zoned vs conventional; simulator and guest
#   ext4           file-system experiments through ext4, patched guest kernel
#   nio            NIO lazy polling vs interrupts and polling, patched guest kernel
#   paths          software latency on every host path, and null_blk's, median of 3 guest runs
#   store          the default store against the memmap= store, one stock guest
#   scaling        two drives at once against one, one stock guest
#   fdp            FDP's write amplification by lifetime, in nvmev-sim
# PART=sim (or guest) runs one half of hints and zns.
#
# Kernel objects come from Kbuild; userspace from CMake into build/.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /lib/modules/*-amd64/build))))
BUILD ?= build
JOBS ?= $(shell nproc)
RESULTS ?= results

EXPERIMENTS := fragmentation demo timing hints subpage zns ext4 nio paths store scaling fdp
SIM_BIN = $(BUILD)/release/sim/nvmev-sim
PART ?= all

.PHONY: all module sim deps deps-experiments check bench experiments $(EXPERIMENTS) \
	dkms-install dkms-uninstall clean

all: module sim

# no tree, or a kernel the module is not built for: one line (kdir-check.sh)
module:
	@scripts/kdir-check.sh "$(KDIR)"
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

experiments: fragmentation demo

fragmentation: deps-experiments sim
	experiments/fragmentation/run.sh $(SIM_BIN) $(RESULTS)/fragmentation

fdp: deps-experiments sim
	SIM_BENCH=$(BUILD)/release/bench/sim_bench experiments/fdp/run.sh $(SIM_BIN) $(RESULTS)/fdp

demo: deps-experiments
	experiments/demo/run.sh

timing: deps-experiments sim
	experiments/timing/run.sh $(SIM_BIN) $(RESULTS)/timing

hints: deps-experiments sim
	experiments/hints/run.sh $(SIM_BIN) $(RESULTS)/hints $(PART)

subpage: deps-experiments sim
	experiments/subpage/run.sh $(SIM_BIN) $(RESULTS)/subpage

zns: deps-experiments sim
	experiments/zns/run.sh $(SIM_BIN) $(RESULTS)/zns $(PART)

ext4: deps
	experiments/ext4/run.sh $(RESULTS)/ext4

nio: deps
	experiments/nio/run.sh $(RESULTS)/nio

paths: deps
	experiments/paths/run.sh $(RESULTS)/paths

store: deps-experiments
	experiments/store/run.sh $(RESULTS)/store

scaling: deps-experiments
	experiments/scaling/run.sh $(RESULTS)/scaling

# KVERS="6.1.0-28-amd64 ...": build for those too (default: the running kernel)
dkms-install:
	scripts/dkms.sh install $(KVERS)

dkms-uninstall:
	scripts/dkms.sh uninstall

clean:
	rm -rf $(BUILD)
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
