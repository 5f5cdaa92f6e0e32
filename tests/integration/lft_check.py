#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/lft_check.py: an independent judge of forwarding tables
# read back from a fabric. It parses what `ibnetdiscover` printed (nodes,
# cables, LIDs) and what `dump_fts` printed (every switch's LFT) and walks
# the tables hop by hop, sharing no code with loom:
#   every ordered pair of CA ports (every LID of the destination's LMC range)
#   that the cables connect must be delivered to the destination port, with
#   no loop; every CA must also reach every switch LID of its part of the
#   fabric (the SM's and tools' LID-routed SMPs need that).
# Pairs the cables do not connect are counted, not required.
#
#   lft_check.py IBNETDISCOVER.txt DUMP_FTS.txt
# Prints one summary line; exit 0 if all is delivered, 1 if not (the first
# failures are listed), 2 if an input cannot be read.
import re
import sys
from collections import deque

NODE_RE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"')
SW_LID_RE = re.compile(r'base port 0 lid (\d+) lmc (\d+)')
PORT_RE = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]')
CA_LID_RE = re.compile(r'#\s*lid (\d+) lmc (\d+)')
TABLE_RE = re.compile(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)')
ENTRY_RE = re.compile(r'^0x([0-9a-fA-F]+)\s+(\d+)\s')


class Bad(Exception):
    pass


def parse_ibnd(path):
    """-> switches {guid: {'lid', 'lmc', 'ports': {p: (kind, guid, port)}}},
    cas {(guid, port): {'lid', 'lmc', 'peer': (kind, guid, port)}}"""
    switches, cas = {}, {}
    cur = None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = NODE_RE.match(line)
            if m:
                kind, guid = m.group(1), int(m.group(4), 16)
                if kind == 'Switch':
                    s = SW_LID_RE.search(line)
                    if not s:
                        raise Bad(f'{path}:{n}: switch without a LID')
                    switches[guid] = {'lid': int(s.group(1)), 'lmc': int(s.group(2)),
                                      'ports': {}}
                    cur = ('S', guid)
                else:
                    cur = ('H' if kind == 'Ca' else 'R', guid)
                continue
            m = PORT_RE.match(line)
            if not m:
                continue
            if cur is None:
                raise Bad(f'{path}:{n}: port line outside a node')
            port = int(m.group(1))
            peer = (m.group(3), int(m.group(4), 16), int(m.group(5)))
            if cur[0] == 'S':
                switches[cur[1]]['ports'][port] = peer
            else:
                lid = CA_LID_RE.search(line)
                if not lid:
                    raise Bad(f'{path}:{n}: CA port without a LID')
                cas[(cur[1], port)] = {'lid': int(lid.group(1)), 'lmc': int(lid.group(2)),
                                       'peer': peer}
    if not switches:
        raise Bad(f'{path}: no switch found')
    return switches, cas


def parse_dump(path, switches):
    """-> {switch guid: {lid: port}}"""
    lfts, cur = {}, None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = TABLE_RE.match(line)
            if m:
                cur = int(m.group(1), 16)
                if cur not in switches:
                    raise Bad(f'{path}:{n}: table of unknown switch 0x{cur:016x}')
                if cur in lfts:
                    raise Bad(f'{path}:{n}: second table of switch 0x{cur:016x}')
                lfts[cur] = {}
                continue
            m = ENTRY_RE.match(line)
            if m:
                if cur is None:
                    raise Bad(f'{path}:{n}: entry outside a table')
                lfts[cur][int(m.group(1), 16)] = int(m.group(2))
    missing = [g for g in switches if g not in lfts]
    if missing:
        raise Bad(f'{path}: no table for switch 0x{missing[0]:016x}'
                  f' ({len(missing)} missing)')
    return lfts


def components(switches):
    """switch guid -> component number, over switch-to-switch cables"""
    comp, c = {}, 0
    for start in switches:
        if start in comp:
            continue
        comp[start] = c
        q = deque([start])
        while q:
            s = q.popleft()
            for kind, peer, _ in switches[s]['ports'].values():
                if kind == 'S' and peer in switches and peer not in comp:
                    comp[peer] = c
                    q.append(peer)
        c += 1
    return comp


def walk(switches, lfts, start, dlid, is_dest):
    """Follow the tables from switch `start` toward dlid.
    -> ('delivered', hops) | ('unreachable'|'loop'|'misdelivered', where)"""
    cur, hops, limit = start, 0, len(switches)
    while True:
        port = lfts[cur].get(dlid)
        if port is None or port == 255:
            return 'unreachable', f'no entry at 0x{cur:016x}'
        if port == 0:
            if is_dest(('S', cur, 0)):
                return 'delivered', hops
            return 'misdelivered', f'switch 0x{cur:016x} keeps it (port 0)'
        peer = switches[cur]['ports'].get(port)
        if peer is None:
            return 'unreachable', f'0x{cur:016x} port {port} is not cabled'
        if is_dest(peer):
            return 'delivered', hops
        if peer[0] != 'S':
            return 'misdelivered', f'0x{cur:016x} port {port} leads to 0x{peer[1]:016x}'
        cur, hops = peer[1], hops + 1
        if hops > limit:
            return 'loop', f'more than {limit} switch hops'


def main(argv):
    if len(argv) != 3:
        print(__doc__ or 'usage: lft_check.py IBND DUMP', file=sys.stderr)
        return 2
    try:
        switches, cas = parse_ibnd(argv[1])
        lfts = parse_dump(argv[2], switches)
    except (Bad, OSError) as e:
        print(f'lft_check: {e}', file=sys.stderr)
        return 2
    comp = components(switches)
    count = {'pairs': 0, 'delivered': 0, 'unreachable': 0, 'loop': 0, 'misdelivered': 0,
             'disconnected': 0}
    fails, max_hops = [], 0

    def judge(what, src_sw, dlid, is_dest):
        nonlocal max_hops
        count['pairs'] += 1
        res, info = walk(switches, lfts, src_sw, dlid, is_dest)
        count[res] += 1
        if res == 'delivered':
            max_hops = max(max_hops, info)
        elif len(fails) < 10:
            fails.append(f'{what} (LID {dlid}): {res}: {info}')

    attached = {k: v['peer'] for k, v in cas.items() if v['peer'][0] == 'S'}
    for (ag, ap), (_, asw, _) in sorted(attached.items()):
        for (bg, bp), b in sorted(cas.items()):
            if (ag, ap) == (bg, bp):
                continue
            if b['peer'][0] != 'S' or comp[asw] != comp[b['peer'][1]]:
                count['disconnected'] += 1
                continue
            for k in range(1 << b['lmc']):
                judge(f'CA 0x{ag:016x}/{ap} -> CA 0x{bg:016x}/{bp}', asw, b['lid'] + k,
                      lambda p, bg=bg, bp=bp: p[0] != 'S' and p[1] == bg and p[2] == bp)
        for sg, s in sorted(switches.items()):
            if comp[sg] != comp[asw]:
                continue
            judge(f'CA 0x{ag:016x}/{ap} -> switch 0x{sg:016x}', asw, s['lid'],
                  lambda p, sg=sg: p[0] == 'S' and p[1] == sg and p[2] == 0)
    ok = count['delivered'] == count['pairs']
    print(f"{'ok' if ok else 'FAILED'}: {len(switches)} switches, {len(cas)} CA ports: "
          f"{count['pairs']} paths, {count['delivered']} delivered, "
          f"{count['unreachable']} unreachable, {count['loop']} loops, "
          f"{count['misdelivered']} misdelivered, max {max_hops} switch hops; "
          f"{count['disconnected']} pairs not connected by cables")
    for f in fails:
        print('  ' + f)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
