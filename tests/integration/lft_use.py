#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/lft_use.py: which switch ports the forwarding tables
# send traffic out of, from what `dump_fts` and `ibnetdiscover` printed
# (no loom code), for the tests of isolated links (issue 42).
#
#   lft_use.py use DUMP_FTS.txt GUID PORT
#       how many LFT entries of switch GUID leave by PORT
#   lft_use.py pick IBNETDISCOVER.txt DUMP_FTS.txt [SKIP]
#       a leaf-to-spine cable that carries routes (the one with the fewest
#       entries over it; SKIP "GUID:PORT,...", or GUID for every port of a
#       switch, left out), one line:
#       LEAF_GUID LEAF_PORT LEAF_LID LEAF_DESC SPINE_GUID SPINE_PORT
#       SPINE_LID SPINE_DESC ENTRIES
# Nodes are named leaf-*/spine-* in their descriptions (loom-fabgen's).
import re
import sys


def port_use(path):
    use, sw = {}, None
    for line in open(path):
        m = re.match(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)', line)
        if m:
            sw = int(m.group(1), 16)
            continue
        m = re.match(r'^0x([0-9a-fA-F]+)\s+(\d+)\s', line)
        if m and sw is not None:
            key = (sw, int(m.group(2)))
            use[key] = use.get(key, 0) + 1
    return use


def cables(path):
    desc, lid, out, sw = {}, {}, [], None
    for line in open(path):
        m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]+)"\s+# "([^"]*)".* lid (\d+)', line)
        if m:
            sw = int(m.group(1), 16)
            desc[sw], lid[sw] = m.group(2), int(m.group(3))
            continue
        if not line.startswith('['):
            sw = None
            continue
        m = re.match(r'^\[(\d+)\]\s+"S-([0-9a-f]+)"\[(\d+)\]', line)
        if sw is not None and m:
            out.append((sw, int(m.group(1)), int(m.group(2), 16), int(m.group(3))))
    return desc, lid, out


def main(argv):
    if len(argv) == 5 and argv[1] == 'use':
        print(port_use(argv[2]).get((int(argv[3], 16), int(argv[4])), 0))
        return 0
    if len(argv) in (4, 5) and argv[1] == 'pick':
        desc, lid, cab = cables(argv[2])
        use = port_use(argv[3])
        skip, skip_sw = set(), set()
        for s in (argv[4].split(',') if len(argv) == 5 and argv[4] else []):
            if ':' in s:
                g, p = s.split(':')
                skip.add((int(g, 16), int(p)))
            else:
                skip_sw.add(int(s, 16))
        best = None
        for a, ap, b, bp in cab:
            if not desc[a].startswith('leaf-') or not desc[b].startswith('spine-'):
                continue
            if (a, ap) in skip or (b, bp) in skip or a in skip_sw or b in skip_sw:
                continue
            n = use.get((a, ap), 0) + use.get((b, bp), 0)
            if n and (best is None or n < best[0]):
                best = (n, a, ap, b, bp)
        if not best:
            print('no leaf-spine cable carries routes', file=sys.stderr)
            return 1
        n, a, ap, b, bp = best
        print('0x%016x %d %d %s 0x%016x %d %d %s %d' %
              (a, ap, lid[a], desc[a], b, bp, lid[b], desc[b], n))
        return 0
    print(__doc__ or 'usage: lft_use.py use|pick ...', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
