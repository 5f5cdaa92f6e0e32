#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/lft_use.py: which switch ports the forwarding tables
# send traffic out of, from what `dump_fts` and `ibnetdiscover` printed
# (no loom code), for the tests of isolated links (issue 42); and whether
# loomd read the same tables back.
#
#   lft_use.py use DUMP_FTS.txt GUID PORT
#       how many LFT entries of switch GUID leave by PORT
#   lft_use.py pick IBNETDISCOVER.txt DUMP_FTS.txt [SKIP]
#       a leaf-to-spine cable that carries routes (the one with the fewest
#       entries over it; SKIP "GUID:PORT,...", or GUID for every port of a
#       switch, left out), one line:
#       LEAF_GUID LEAF_PORT LEAF_LID LEAF_DESC SPINE_GUID SPINE_PORT
#       SPINE_LID SPINE_DESC ENTRIES
#   lft_use.py same LOOM.db DUMP_FTS.txt N
#       the tables of loomd's last stored read (a route check's) are
#       dump_fts's for its N switches, entry for entry (route_live.sh,
#       latency_drop.sh); prints the entries compared
# Nodes are named leaf-*/spine-* in their descriptions (loom-fabgen's).
import re
import sqlite3
import sys


def tables(path):
    """{switch GUID: {LID: port}} of a dump_fts output."""
    fts, cur = {}, None
    for line in open(path):
        m = re.match(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)', line)
        if m:
            cur = fts.setdefault(int(m.group(1), 16), {})
            continue
        m = re.match(r'^0x([0-9a-fA-F]+)\s+(\d+)\s', line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return fts


def port_use(path):
    use = {}
    for sw, t in tables(path).items():
        for port in t.values():
            use[(sw, port)] = use.get((sw, port), 0) + 1
    return use


def same(db_path, fts_path, n_sw):
    db = sqlite3.connect(db_path)
    rid = db.execute("SELECT max(id) FROM lft_reads").fetchone()[0]
    loom = {}
    for guid, top, blob in db.execute("SELECT switch_guid, top, lft FROM lfts WHERE read_id = ?",
                                      (rid,)):
        assert len(blob) == top + 1, (guid, top, len(blob))
        loom[int(guid, 16)] = {lid: p for lid, p in enumerate(blob) if p != 0xff and lid > 0}
    fts = tables(fts_path)
    assert len(fts) == n_sw and sorted(fts) == sorted(loom), (sorted(fts), sorted(loom))
    for g in fts:
        assert fts[g] == loom[g], (hex(g), fts[g], loom[g])
    print(sum(len(t) for t in fts.values()), "entries")


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
    if len(argv) == 5 and argv[1] == 'same':
        same(argv[2], argv[3], int(argv[4]))
        return 0
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
    print(__doc__ or 'usage: lft_use.py use|pick|same ...', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
