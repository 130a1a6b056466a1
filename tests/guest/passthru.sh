#!/bin/sh
# Guest tests of raw commands through nvme-cli's admin- and io-passthru
# (busybox sh, sourced by tests.sh): the precise status of every bad field,
# and random commands that must never hang, crash or stop the device.

# desc: passthru commands with bad fields get the statuses the spec asks
# tiers: stock debug_long
test_passthru() {
	check "insmod" load_nvmev || return 1
	d=/dev/nvme0
	check "io opcode" passthru 0x4001 io-passthru $d --opcode=0x7d --namespace-id=1
	# (the host kernel itself refuses I/O passthru to a foreign nsid)
	check "bad nsid" passthru 0x400b admin-passthru $d --opcode=0x06 --namespace-id=17 \
		--cdw10=0 --data-len=4096 --read
	check "lba range" passthru 0x4080 io-passthru $d --opcode=0x02 --namespace-id=1 \
		--data-len=4096 --read --cdw10=0xffffffff --cdw11=0 --cdw12=7
	check "mdts" passthru 0x4002 io-passthru $d --opcode=0x02 --namespace-id=1 \
		--data-len=4096 --read --cdw12=4095
	check "admin opcode" passthru 0x4001 admin-passthru $d --opcode=0xfd
	check "identify cns" passthru 0x4002 admin-passthru $d --opcode=0x06 --cdw10=0x55 \
		--data-len=4096 --read
	check "log page" passthru 0x4109 admin-passthru $d --opcode=0x02 --cdw10=0x00ff007e \
		--data-len=1024 --read
	# NUMD of 4 GiB: above MDTS, refused without a transfer or an allocation
	check "log page > MDTS" passthru 0x4002 admin-passthru $d --opcode=0x02 \
		--cdw10=0xffff0002 --cdw11=0x0000ffff --data-len=4096 --read
	check "feature" passthru 0x4002 admin-passthru $d --opcode=0x0a --cdw10=0x7f
	check "create cq qid 0" passthru 0x4101 admin-passthru $d --opcode=0x05 --cdw10=0x000f0000 --cdw11=1
	check "create cq size" passthru 0x4102 admin-passthru $d --opcode=0x05 --cdw10=0xffff0030 --cdw11=1
	check "create sq no cq" passthru 0x4100 admin-passthru $d --opcode=0x01 --cdw10=0x000f0030 \
		--cdw11=0x00310001
	check "delete cq in use" passthru 0x410c admin-passthru $d --opcode=0x04 --cdw10=1
	check "delete sq unknown" passthru 0x4101 admin-passthru $d --opcode=0x00 --cdw10=60
	check "smart log" nvme smart-log $d
	check "device still works" dd if=/dev/nvme0n1 of=/dev/null bs=64k count=16 iflag=direct
	check "rmmod" unload_nvmev
}

# PASSTHRU_FUZZ (default 300) commands with random fields through
# io-passthru, and the admin commands that cannot take the host's own
# queues away (identify, log pages, features, unknown opcodes). Random
# everywhere except the fields that size a data transfer: those must match
# the buffer the host mapped, because the device, like a real one without
# an IOMMU, moves as much data as the command says to wherever its PRPs
# point. Each command must end with success or an NVMe status within a
# timeout, the device must still do I/O afterwards, and the harness fails
# the test on any kernel report.
# desc: random passthru commands: every one completes, nothing breaks
# tiers: stock debug debug_long
test_passthru_fuzz() {
	check "insmod" load_nvmev capacity_mib=64 || return 1
	n=${PASSTHRU_FUZZ:-300}
	d=/dev/nvme0
	k=0
	statuses=0
	while [ $k -lt "$n" ]; do
		# the command's random words from one od: a fork per field made
		# this test take minutes on the debug kernel
		# shellcheck disable=SC2046 # the words are split on purpose
		set -- $(od -An -N40 -tu4 /dev/urandom)
		r1=$1 r2=$2 r3=$3 r4=$4 r5=$5 r6=$6 r7=$7 r8=$8 r9=$9 r10=${10}
		set -- 0 1 2 4294967295
		shift $((r1 % 4))
		nsid=$1
		if [ $((r2 % 2)) = 0 ]; then
			set -- 0x00 0x01 0x02 0x04 0x05 0x08 0x09 0x0d 0x7d 0x81 0x99
			shift $((r3 % 11))
			op=$1
			case $op in
			0x01 | 0x02)	# read/write: NLB (512 B LBAs) fills the buffer
				len=$(( (r4 % 2 + 1) * 4096 ))
				cdw12=$(( (r5 & 0xffff0000) | (len / 512 - 1) )) ;;
			0x09)		# dataset management: up to 256 ranges of 16 B
				len=4096
				cdw12=$r5 ;;
			*)	len=0
				cdw12=$r5 ;;
			esac
			dir=--read
			[ "$op" = 0x01 ] || [ "$op" = 0x09 ] && dir=--write
			[ $len = 0 ] && dir=--read
			set -- io-passthru $d --opcode="$op" --namespace-id="$nsid" \
				--cdw10="$r6" --cdw11="$((r7 % 2))" --cdw12="$cdw12" \
				--cdw13="$r8" --cdw2="$r9" --cdw3="$r10" \
				--data-len=$len $dir
		else
			set -- 0x02 0x06 0x0a 0x7f 0xc5 0x14
			shift $((r3 % 6))
			op=$1
			len=4096
			cdw10=$r6
			cdw11=$r7
			case $op in
			0x02)	# NUMD: 4 KiB (test_passthru checks one above MDTS)
				cdw10=$(( (1023 << 16) | (cdw10 & 0xffff) ))
				cdw11=$((cdw11 & 0xffff0000)) ;;
			0x7f | 0xc5 | 0x14) len=0 ;;
			esac
			set -- admin-passthru $d --opcode="$op" --namespace-id="$nsid" \
				--cdw10="$cdw10" --cdw11="$cdw11" --cdw12="$r5" \
				--cdw13="$r8" --data-len=$len --read
		fi
		timeout 20 nvme "$@" </dev/urandom >/tmp/pt.out 2>&1
		if [ $? = 124 ]; then
			echo "passthru_fuzz: timed out: nvme $*"
			check "command $k completes" false
			return 1
		fi
		grep -q "NVMe status" /tmp/pt.out && statuses=$((statuses + 1))
		k=$((k + 1))
	done
	echo "passthru_fuzz: $n random commands, $statuses ended with an NVMe error status"
	check "some were rejected" [ $statuses -gt 0 ]
	check "device still works" dd if=/dev/urandom of=/dev/nvme0n1 bs=64k count=16 oflag=direct
	check "and reads" dd if=/dev/nvme0n1 of=/dev/null bs=64k count=16 iflag=direct
	check "rmmod" unload_nvmev
}
