#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Check loom's view of a fabric against the real InfiniBand tools.

    compare.py IBNETDISCOVER.txt IBLINKINFO.txt NODES.json PORTS.json LINKS.json

IBNETDISCOVER.txt is `ibnetdiscover` output (default format), IBLINKINFO.txt
`iblinkinfo -l`; the JSON files are `loomctl --json nodes|ports|links`.
Compared: every node (type, GUID, system image GUID, vendor/device id, number
of ports, description), every switch LID and CA port LID/LMC and port GUID,
every link (both ends, width, speed), and each link's degraded flag against
iblinkinfo's "Could be ..." remark. Prints each difference; exit 1 if any.
"""
import json
import re
import sys

NODE_RE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"[SHR]-([0-9a-f]+)"\s+#\s+"(.*?)"(.*)$')
SW_PORT_RE = re.compile(
    r'^\[(\d+)\]\s+"[SHR]-([0-9a-f]+)"\[(\d+)\](?:\((\w+)\))?\s+#\s+"(.*?)"\s+lid\s+(\d+)\s+(\d+x)(\w+)')
CA_PORT_RE = re.compile(
    r'^\[(\d+)\]\((\w+)\)\s+"[SHR]-([0-9a-f]+)"\[(\d+)\](?:\((\w+)\))?\s+#\s+lid\s+(\d+)\s+lmc\s+(\d+)'
    r'\s+"(.*?)"\s+lid\s+(\d+)\s+(\d+x)(\w+)')
LINKINFO_RE = re.compile(
    r'^(0x[0-9a-f]+)\s+".*?"\s+(\d+)\s+(\d+)\[.*?\]\s+==\((.*?)\)==>\s+(0x[0-9a-f]+)\s+(\d+)\s+(\d+)\[.*?\]'
    r'\s+".*?"\s+\((.*)\)\s*$')
TYPES = {"Switch": "switch", "Ca": "ca", "Rt": "router"}


def g(x):
    """Normalize a GUID written in any of the tools' ways to 0x + 16 hex."""
    return "0x%016x" % int(x, 16)


def parse_ibnetdiscover(path):
    nodes, ports, links = {}, {}, {}
    attrs, cur = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if re.match(r'^(switchguid|caguid|rtguid)=', line):
            continue
        m = re.match(r'^(vendid|devid|sysimgguid)=(0x[0-9a-f]+)', line)
        if m:
            attrs[m.group(1)] = int(m.group(2), 16)
            continue
        m = NODE_RE.match(line)
        if m:
            kind, nports, guid, desc, rest = m.groups()
            cur = g(guid)
            node = {"type": TYPES[kind], "ports": int(nports), "desc": desc,
                    "sysimg_guid": "0x%016x" % attrs.get("sysimgguid", 0),
                    "vendor_id": attrs.get("vendid", 0), "device_id": attrs.get("devid", 0)}
            lm = re.search(r'\blid (\d+) lmc (\d+)', rest)
            if kind == "Switch" and lm:
                node["lid"] = int(lm.group(1))
            nodes[cur] = node
            attrs = {}
            continue
        m = SW_PORT_RE.match(line)
        if m and cur:
            port, rguid, rport, _, _, _, width, speed = m.groups()
            add_link(links, (cur, int(port)), (g(rguid), int(rport)), width, speed)
            continue
        m = CA_PORT_RE.match(line)
        if m and cur:
            port, pguid, rguid, rport, _, lid, lmc, _, _, width, speed = m.groups()
            ports[(cur, int(port))] = {"guid": g(pguid), "lid": int(lid), "lmc": int(lmc)}
            add_link(links, (cur, int(port)), (g(rguid), int(rport)), width, speed)
            continue
        sys.exit("compare.py: cannot parse ibnetdiscover line: %r" % line)
    return nodes, ports, links


def add_link(links, a, b, width, speed):
    key = tuple(sorted([a, b]))
    val = (width, speed)
    if key in links and links[key] != val:
        sys.exit("compare.py: ibnetdiscover shows link %s two ways: %s / %s" % (key, links[key], val))
    links[key] = val


def parse_iblinkinfo(path, port_owner):
    """{link key: degraded?} from `iblinkinfo -l` (port GUIDs mapped to nodes)."""
    out = {}
    for line in open(path):
        m = LINKINFO_RE.match(line.rstrip("\n"))
        if not m:
            continue
        pg_a, _, pa, _, pg_b, _, pb, remark = m.groups()
        a = (port_owner.get(g(pg_a), g(pg_a)), int(pa))
        b = (port_owner.get(g(pg_b), g(pg_b)), int(pb))
        out[tuple(sorted([a, b]))] = "Could be" in remark
    return out


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    want_nodes, want_ports, want_links = parse_ibnetdiscover(sys.argv[1])
    loom_nodes = {n["guid"]: n for n in json.load(open(sys.argv[3]))}
    loom_ports = {(p["node_guid"], p["port"]): p for p in json.load(open(sys.argv[4]))}
    loom_links = {}
    for l in json.load(open(sys.argv[5])):
        if l.get("state") == "down":
            continue  # a cable of an earlier sweep, down now (issue 41): no link
        key = tuple(sorted([(l["a"]["guid"], l["a"]["port"]), (l["b"]["guid"], l["b"]["port"])]))
        loom_links[key] = l
    port_owner = {p["guid"]: p["node_guid"] for p in loom_ports.values()}
    could_be = parse_iblinkinfo(sys.argv[2], port_owner)
    errors = []

    for guid in sorted(set(want_nodes) | set(loom_nodes)):
        w, l = want_nodes.get(guid), loom_nodes.get(guid)
        if not w or not l:
            errors.append("node %s: %s" % (guid, "missing in loom" if w else "unknown to ibnetdiscover"))
            continue
        got = {"type": l["type"], "ports": l["ports"], "desc": l["desc"],
               "sysimg_guid": l["sysimg_guid"], "vendor_id": int(l["vendor_id"], 16),
               "device_id": int(l["device_id"], 16)}
        if w["type"] == "switch":
            got["lid"] = l["lid"]
        if got != w:
            errors.append("node %s: loom %s, ibnetdiscover %s" % (guid, got, w))

    for key, w in sorted(want_ports.items()):
        l = loom_ports.get(key)
        got = l and {"guid": l["guid"], "lid": l["lid"], "lmc": l["lmc"]}
        if got != w:
            errors.append("port %s[%d]: loom %s, ibnetdiscover %s" % (key[0], key[1], got, w))

    for key in sorted(set(want_links) | set(loom_links)):
        w, l = want_links.get(key), loom_links.get(key)
        if not w or not l:
            errors.append("link %s: %s" % (key, "missing in loom" if w else "unknown to ibnetdiscover"))
            continue
        if (l["width"], l["speed"]) != w:
            errors.append("link %s: loom %s %s, ibnetdiscover %s %s" % (key, l["width"], l["speed"], *w))
        if key not in could_be:
            errors.append("link %s: not shown by iblinkinfo" % (key,))
        elif could_be[key] != l["degraded"]:
            errors.append("link %s: loom degraded=%s, iblinkinfo %s" %
                          (key, l["degraded"], "says it could be faster" if could_be[key] else "is content"))

    for e in errors[:50]:
        print("DIFF:", e)
    if len(errors) > 50:
        print("DIFF: ... and %d more" % (len(errors) - 50))
    print("compare.py: %d nodes, %d CA ports, %d links checked; %d differences" %
          (len(want_nodes), len(want_ports), len(want_links), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
