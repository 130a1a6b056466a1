#!/usr/bin/env python3
"""Writes fuzz_model's seed corpus (tests/fuzz/corpus-model/): a few
layouts that power on, each with a sequence of commands in the byte
format fuzz_model.cc reads (its make_drive() and step()). The fuzzer
mutates from here; the seeds only spare it finding a valid layout."""
import hashlib
import os
import random
import struct
import sys

U8 = lambda v: bytes([v & 0xff])
U32 = lambda v: struct.pack('<Q', v)  # Input::u32() takes 8 bytes


def layout(ns, cap=12, chans=1, dpc=1, planes=1, page=0, ppb=1, op=4,
           wpts=0, wbuf=2, store=0, drain=0, lists=0):
    """cap: 4 + cap MiB; ns: (lba 0/1 = 512/4096, zoned, size_mib,
    zone_mib log2, zone_cap_mib, width, max_open, max_active); with FDP
    (wpts from fdp()) the placement-handle lists byte (handle_lists())."""
    b = bytes([chans - 1, dpc - 1, planes - 1, page, ppb, cap, op - 3, wpts,
               wbuf, len(ns) - 1])
    for n in ns:
        b += bytes(n)
    b += bytes([store, drain])
    return b + bytes([lists]) if (wpts >> 2) % 4 else b


def step(ns, op, *fields):
    return U8(ns) + U8(op) + b''.join(fields)


def at_wp(zone, delta=None):
    """pick_slba(): a zone's write pointer (+ delta)"""
    return U8(1 if delta is None else 3) + U8(zone) + (U8(delta) if delta is not None else b'')


def lba(v):
    return U8(0) + U32(v)


def nlb_small(n):
    return U8(0) + U8(n - 1)


def nlb_any(n):
    return U8(1) + U32(n - 1)


def write(ns, slba, nlb):
    return step(ns, 0, slba, nlb)


def seeds():
    out = []
    # conventional 512 B and zoned 4 KiB: mixed commands
    L = layout([(0, 0, 6, 0, 0, 0, 0, 0), (1, 1, 0, 1, 0, 0, 2, 3)])
    s = L
    s += write(0, lba(5), nlb_small(7)) + write(1, at_wp(0), nlb_any(100))
    s += step(0, 2, lba(0), nlb_small(8)) + step(1, 8, U8(1), U8(1), nlb_small(3))
    s += step(1, 6, U8(3 + 16), U8(2)) + step(1, 7, U8(0), U8(3))
    s += step(0, 4, U8(1), lba(3), U8(1), nlb_any(40), U8(1)) + step(0, 11)
    out.append(s)
    # zoned 512 B: a partly written unit at the write pointer deallocated
    L = layout([(0, 1, 0, 0, 0, 0, 0, 0)])
    s = L + write(0, at_wp(0), nlb_small(3))
    s += step(0, 4, U8(0), lba(0), U8(1), nlb_small(8), U8(1))
    s += write(0, at_wp(0), nlb_small(2)) + step(0, 11)
    out.append(s)
    # zones filled and the conventional namespace rewritten
    # (blocks of 512 KiB over 4 dies: a 1 MiB zone takes 2 MiB of flash)
    L = layout([(1, 1, 8, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0, 0, 0)], cap=16,
               chans=2, dpc=2, planes=2, page=2, ppb=2, op=10)
    s = L
    for z in range(8):
        s += step(0, 9, U8(z), U32(2047))
    s += step(1, 10) + step(1, 10)
    out.append(s)
    # limits and resources: open/active limits of 1 and 2, appends
    L = layout([(1, 1, 0, 0, 0, 0, 1, 2)], store=2 + 4 * 3)
    s = L
    for z in range(4):
        s += step(0, 8, U8(z), U8(1), nlb_small(2))
    s += step(0, 6, U8(1), U8(0)) + step(0, 6, U8(3), U8(1))
    s += step(0, 6, U8(4 + 16 * 0), U8(0)) + step(0, 7, U8(0x20), U8(1))
    out.append(s)
    # three zoned namespaces of zones one die wide, each with its zone 0
    # on die 0: more than that die holds beside GC's headroom (the layout
    # is refused; without the refusal, filling them runs out part-way)
    L = layout([(1, 1, 4, 2, 4, 1, 0, 0), (1, 1, 4, 2, 4, 1, 0, 0),
                (1, 1, 0, 2, 4, 1, 0, 0)], cap=20, chans=2, dpc=2, op=3)
    s = L
    for n in range(3):
        s += step(n, 9, U8(0), U32(255))
    s += step(0, 11)
    out.append(s)
    # a long deallocation cut by a controller reset
    L = layout([(1, 0, 0, 0, 0, 0, 0, 0)], drain=1, store=1)
    s = L + step(0, 10) + step(0, 4, U8(0), lba(0), U8(0), nlb_any(2000),
                               U8(1)) + step(0, 11)
    out.append(s)
    rnd = random.Random(1)
    for _ in range(6):
        base = out[rnd.randrange(len(out))]
        out.append(base + bytes(rnd.randrange(256) for _ in range(200)))
    # two namespaces written; the first deleted and made again in place
    # (op 12): it reads zeroes, the second keeps its data
    L = layout([(0, 0, 6, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0, 0, 0)], store=1)
    s = L + step(0, 10) + step(1, 10) + step(0, 12) + step(0, 11)
    s += write(0, lba(8), nlb_small(8)) + step(1, 12) + step(1, 11)
    out.append(s)
    out += fdp_seeds()
    return out


def fdp(ruhs, ruh_type=1, groups=1, layout=0):
    """the write point byte with flexible data placement (fuzz_model.cc's
    set_fdp()): layout 1 one die, 2 two dies, 3 all dies with 2 blocks
    on each; 0 all dies, a block on each"""
    return ruhs << 2 | (ruh_type - 1) << 4 | (groups - 1) << 5 | layout << 6


def fstep(ns, op, handle, *fields):
    """a step of an FDP drive: its handle byte (bit 7: none; ruh =
    handle % ruhs, group = (handle >> 3) % groups) after the op"""
    return U8(ns) + U8(op) + U8(handle) + b''.join(fields)


def fdp_seeds():
    out = []
    # two handles, persistently isolated, two reclaim groups of two dies,
    # units on one die: the drive filled through one handle, scattered
    # overwrites through both, so that GC meets blocks of each, updates
    L = layout([(1, 0, 0, 0, 0, 0, 0, 0)], chans=2, dpc=2, op=10,
               wpts=fdp(2, 2, 2, 1))
    rnd = random.Random(2)
    s = L + fstep(0, 10, 0)
    for i in range(80):
        s += fstep(0, 0, i % 2, lba(rnd.randrange(4096)), nlb_small(8))
    s += fstep(0, 11, 1) + fstep(0, 10, 0x80 | 1 << 3) + fstep(0, 11, 0)
    out.append(s)
    # three handles, initially isolated, units over all four dies with two
    # blocks on each, a zoned namespace beside (its writes follow zones)
    L = layout([(1, 0, 6, 0, 0, 0, 0, 0), (1, 1, 0, 1, 0, 0, 2, 3)],
               chans=2, dpc=2, op=10, wpts=fdp(3, 1, 1, 3))
    s = L
    for i in range(12):
        s += fstep(0, 0, i, lba(i * 64), nlb_any(100))
    s += fstep(1, 0, 2, at_wp(0), nlb_any(100)) + fstep(0, 10, 2)
    s += fstep(0, 11, 1) + fstep(0, 10, 0) + fstep(0, 11, 2)
    out.append(s)
    # three handles, two namespaces: the first lists handles 2 and 0
    # (placement handles 0 and 1), the second all three; writes and
    # updates through each placement handle and one past the list
    L = layout([(1, 0, 6, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 0)],
               chans=2, dpc=2, op=10, wpts=fdp(3, 1, 1, 0), lists=0x29)
    s = L
    for i in range(12):
        s += fstep(i % 2, 0, i % 3, lba(i * 64), nlb_any(64))
    s += fstep(0, 11, 1) + fstep(0, 11, 0x40) + fstep(1, 11, 2) + fstep(0, 10, 0)
    out.append(s)
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), 'corpus-model')
    os.makedirs(d, exist_ok=True)
    for s in seeds():
        with open(os.path.join(d, hashlib.sha1(s).hexdigest()), 'wb') as f:
            f.write(s)


if __name__ == '__main__':
    main()
