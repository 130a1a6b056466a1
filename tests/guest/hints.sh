#!/bin/sh
# Guest tests of the device side of the placement hints, driven by
# nvmev-hint (busybox sh, sourced by tests.sh): the capability and its
# feature, hinted writes landing on the dies the hints ask for, and a
# device whose hint feature is left off.

# desc: the hint capability and feature, and hints=0 turning them off
# tiers: stock
test_hints_capability() {
	requires_hints_off || return
	check "insmod" load_nvmev || return 1
	nvmev-hint info /dev/nvme0n1 >/tmp/info.out
	cat /tmp/info.out
	check "advertised" json_true supported
	check "append and overwrite" json_true append && check "overwrite" json_true overwrite
	check "off until enabled" grep -q '"enabled": false' /tmp/info.out
	check "enable" nvmev-hint enable /dev/nvme0n1
	nvmev-hint info /dev/nvme0n1 >/tmp/info.out
	check "enabled" json_true enabled
	check "bad feature value" passthru 0x4002 set-feature /dev/nvme0 -f 0xc0 -v 2
	check "rmmod" unload_nvmev
	# hints=0: not advertised, cannot be enabled
	check "insmod hints=0" load_nvmev hints=0 || return 1
	nvmev-hint info /dev/nvme0n1 >/tmp/info.out
	check "not advertised" grep -q '"supported": false' /tmp/info.out
	check "enable refused" sh -c '! nvmev-hint enable /dev/nvme0n1 2>/tmp/en.err'
	check "says why" grep -q "placement hints not supported" /tmp/en.err
	check "rmmod" unload_nvmev
}

# 32 KiB chunks, 512-byte LBAs: chunk k starts at LBA 64 k
# desc: hinted writes land on the dies the hints ask for
# tiers: stock debug_long
test_hints_placement() {
	check "insmod" load_nvmev || return 1
	check "enable" nvmev-hint enable /dev/nvme0n1
	# three plain chunks: dies 0, 1, 2; the drive's cursor is then at die 3
	check "plain" nvmev-hint write /dev/nvme0n1 --lba 0 --blocks 192
	check "plain dies" [ "$(die_of 0)$(die_of 64)$(die_of 128)" = 012 ]
	# append after the block at LBA 56 (die 0): lands on die 1, not 3
	check "append (tool)" nvmev-hint write /dev/nvme0n1 --lba 4096 --blocks 64 --append 56
	check "append die" [ "$(die_of 4096)" = 1 ] && check "append last" [ "$(die_of 4159)" = 1 ]
	# the same with nvme-cli: CDW12 = NLB-1 | bit 24, CDW2 = previous LBA
	dd if=/dev/urandom of=/tmp/chunk bs=32k count=1 2>/dev/null
	check "append (nvme-cli)" nvme io-passthru /dev/nvme0n1 --opcode=0x01 --namespace-id=1 \
		--data-len=32768 --write --input-file=/tmp/chunk --cdw10=8192 --cdw12=$((63 | 1 << 24)) \
		--cdw2=128
	check "nvme-cli append die" [ "$(die_of 8192)" = 3 ]
	# overwrite hint: chunk 1 (die 1) stays on die 1; a plain rewrite moves
	check "overwrite" nvmev-hint write /dev/nvme0n1 --lba 64 --blocks 64 --overwrite
	check "overwrite die" [ "$(die_of 64)" = 1 ]
	check "overwrite (nvme-cli)" nvme io-passthru /dev/nvme0n1 --opcode=0x01 --namespace-id=1 \
		--data-len=32768 --write --input-file=/tmp/chunk --cdw10=128 --cdw12=$((63 | 1 << 25))
	check "overwrite die 2" [ "$(die_of 128)" = 2 ]
	check "plain rewrite moves" nvmev-hint write /dev/nvme0n1 --lba 0 --blocks 64
	check "cursor die" [ "$(die_of 0)" = 3 ]
	# malformed and unusable hints are counted, not honoured
	check "both bits" nvme io-passthru /dev/nvme0n1 --opcode=0x01 --namespace-id=1 \
		--data-len=32768 --write --input-file=/tmp/chunk --cdw10=16384 --cdw12=$((63 | 3 << 24))
	check "unmapped prev" nvmev-hint write /dev/nvme0n1 --lba 20480 --blocks 64 --append 100000
	check "out of range prev" nvmev-hint write /dev/nvme0n1 --lba 24576 --blocks 64 --append 99999999999
	check "read with bits" nvme io-passthru /dev/nvme0n1 --opcode=0x02 --namespace-id=1 \
		--data-len=4096 --read --cdw12=$((7 | 1 << 24))
	s=$DBG/stats
	grep '^hint' "$s"
	check "honoured" [ "$(value hint_honoured "$s")" = 4 ]
	check "invalid" [ "$(value hint_ignored_invalid "$s")" = 1 ]
	check "unmapped" [ "$(value hint_ignored_unmapped "$s")" = 1 ]
	check "range" [ "$(value hint_ignored_range "$s")" = 1 ]
	check "opcode" [ "$(value hint_ignored_opcode "$s")" = 1 ]
	check "rmmod" unload_nvmev
}

# desc: hint bits while the feature is off are counted, not honoured
# tiers: stock
test_hints_disabled() {
	requires_hints_off || return
	check "insmod" load_nvmev || return 1
	# the feature is off after every controller reset: the bits mean nothing
	check "plain" nvmev-hint write /dev/nvme0n1 --lba 0 --blocks 192
	check "hinted while disabled" nvmev-hint write /dev/nvme0n1 --lba 4096 --blocks 64 --append 56
	check "placed round-robin" [ "$(die_of 4096)" = 3 ]
	check "counted" [ "$(value hint_bits_disabled "$DBG/stats")" = 1 ]
	check "not seen by the model" [ "$(value hint_append "$DBG/stats")" = 0 ]
	check "rmmod" unload_nvmev
}
