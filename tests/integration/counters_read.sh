#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The PMA counters reader (daemon/telemetry/counters_read.c, `loomd
# --read-counters`, issue 19's first piece) on ibsim: every cabled port of
# a 2-level fat tree is read; values set through ibsim's console
# (PerformanceSet) come back on the right port, and every port's error
# counters and PortXmitWait equal what perfquery reads on the same port; a
# port whose PMA drops the Gets (ibsim's Error) is reported unanswered with
# its reason, never as zeros. Handed what an earlier read found, a read
# asks no PMA's ClassPortInfo again, and reads the ports of switches whose
# PortCounters sum did not move with PortCountersExtended alone.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=77'
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.PortXmitWait=1234'
loom_ibsim_cmd 'PerformanceSet "spine-0"[3] PortCounters.LinkDownedCounter=3'
loom_ibsim_cmd 'PerformanceSet "host-0005"[1] PortCounters.PortRcvErrors=42'

read_counters() { # read_counters OUT: the child's answer (counters_wire.h's lines)
	LD_PRELOAD=$PRELOAD "$B/loomd" --read-counters ft "" 0 200 2 16 >"$1" 2>"$work/read.err" ||
		loom_fail "loomd --read-counters: $(cat "$1" "$work/read.err")"
}
read_counters "$work/c1.txt"
ports=$(grep -c '^port ' "$work/c1.txt" || :)
links=$(sed -n 's/^# hosts=.* links=\([0-9]*\).*/\1/p' "$work/ft.net")
[ "$ports" -eq $((2 * links)) ] ||
	loom_fail "$ports ports read, the fabric has $links links (both ends of each)"
loom_ok "$ports cabled ports read ($links links)"

# Each port against perfquery on the same LID and port.
python3 - "$work/c1.txt" "$S/tests/integration" <<'EOP' || loom_fail "counters differ from perfquery"
import os, subprocess, sys
sys.path.insert(0, sys.argv[2])
from counters_wire import read_answer
ports, done = read_answer(sys.argv[1])
static = ["SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
          "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
          "PortXmitDiscards", "PortXmitConstraintErrors", "PortRcvConstraintErrors",
          "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
          "PortXmitWait"]
env = dict(os.environ, LD_PRELOAD="/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so")
def perfquery(lid, port):
    out = subprocess.run(["perfquery", str(lid), str(port)], env=env, capture_output=True,
                         text=True, check=True).stdout
    v = {}
    for line in out.splitlines():
        if ":" in line and "." in line:
            k, _, val = line.partition(":")
            v[k.strip()] = int(val.strip(". "), 0)
    return v
want = {("leaf-1", 2): {"SymbolErrorCounter": 77, "PortXmitWait": 1234},
        ("spine-0", 3): {"LinkDownedCounter": 3}, ("host-0005", 1): {"PortRcvErrors": 42}}
bad = 0
for p in ports:
    if not p["answered"]:
        print("port %s[%d] not answered: %s" % (p["node"], p["port"], p.get("reason")))
        bad += 1
        continue
    c = p["counters"]
    for (node, port), kv in want.items():
        if p["node"] == node and p["port"] == port:
            for k, v in kv.items():
                if c.get(k) != v:
                    print("%s[%d] %s = %s, set to %d" % (node, port, k, c.get(k), v))
                    bad += 1
    # perfquery on a few ports (each run is a process): the injected ones
    # and every 5th.
    if (p["node"], p["port"]) in want or ports.index(p) % 5 == 0:
        pq = perfquery(p["lid"], p["port"])
        for k in static:
            if k in c and pq.get(k) != c[k]:
                print("%s[%d] %s: loom %s, perfquery %s" % (p["node"], p["port"], k, c[k],
                                                          pq.get(k)))
                bad += 1
        # data counters only grow (MADs count as traffic): perfquery reads later.
        for k in ("PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts"):
            if k in c and p["bits"][k] == 32 and pq.get(k, -1) < c[k]:
                print("%s[%d] %s went back: loom %s, perfquery %s" % (p["node"], p["port"], k,
                                                                    c[k], pq.get(k)))
                bad += 1
print("checked %d ports, %d MADs, at most %d in flight" % (len(ports), done["mads"],
                                                            done["in_flight"]))
sys.exit(1 if bad else 0)
EOP
loom_ok "injected values and perfquery agree"

# A read handed the PMAs' capabilities that the first one found (its pma
# lines, after the fabric on stdin, as loomd does from the second read on)
# sends no ClassPortInfo: exactly one Get fewer per PMA, the same counters.
# The reads whose MADs are counted against each other below make one try
# a MAD (retries 0, a 2 s timeout): "mads" counts every try, and a quick
# retry of a Get answered late on a loaded machine would count one more.
LD_PRELOAD=$PRELOAD "$B/loomd" --walk ft "" 0 200 2 16 >"$work/fabric.wire" 2>"$work/walk.err" ||
	loom_fail "loomd --walk: $(cat "$work/walk.err")"
LD_PRELOAD=$PRELOAD "$B/loomd" --read-counters ft "" 0 2000 0 16 >"$work/c0.txt" 2>"$work/read.err" ||
	loom_fail "loomd --read-counters: $(cat "$work/c0.txt" "$work/read.err")"
grep '^pma ' "$work/c0.txt" >"$work/pmas.txt" || loom_fail "the first read gave no pma lines"
cat "$work/fabric.wire" "$work/pmas.txt" |
	LD_PRELOAD=$PRELOAD "$B/loomd" --read-counters ft "" 0 2000 0 16 - >"$work/c1b.txt" 2>"$work/read.err" ||
	loom_fail "loomd --read-counters with known capabilities: $(cat "$work/c1b.txt" "$work/read.err")"
python3 - "$work/c0.txt" "$work/c1b.txt" "$S/tests/integration" <<'EOP' || loom_fail "a read with known capabilities"
import sys
sys.path.insert(0, sys.argv[3])
from counters_wire import read_answer
pa, pb = [], []
a, da = read_answer(sys.argv[1], pa)
b, db = read_answer(sys.argv[2], pb)
assert pa and sorted(pa) == sorted(pb), (len(pa), len(pb))
assert db["mads"] == da["mads"] - len(pa), (da["mads"], db["mads"], len(pa))
static = ("SymbolErrorCounter", "LinkDownedCounter", "PortRcvErrors", "PortXmitWait")
for x, y in zip(a, b):
    assert (x["guid"], x["port"]) == (y["guid"], y["port"])
    assert x["bits"] == y["bits"], (x["node"], x["port"], x["bits"], y["bits"])
    for k in static:
        assert x["counters"].get(k) == y["counters"].get(k), (x["node"], x["port"], k)
print("%d PMAs known: %d Gets instead of %d, the same counters" % (len(pa), db["mads"],
                                                                     da["mads"]))
EOP
loom_ok "a read handed the PMAs' capabilities sends no ClassPortInfo"

# A PMA that says it has IsAdditionalPortCountersExtendedSupported
# (CapabilityMask2 bit 1: every counter in PortCountersExtended, 64 bits
# wide) is read with that one Get per port. ibsim does not say so: loomd's
# pma line for leaf-1 says it here. (ibsim's PortCountersExtended carries
# only the data and packet counters, so its error counters read 0.)
python3 - "$work/c1.txt" "$work/pmas.txt" "$work/pmas_all.txt" "$S/tests/integration" <<'EOP' ||
import sys
sys.path.insert(0, sys.argv[4])
from counters_wire import read_answer
ports, _ = read_answer(sys.argv[1])
guid = [p["guid"] for p in ports if p["node"] == "leaf-1"][0]
with open(sys.argv[3], "w") as out:
    for line in open(sys.argv[2]):
        f = line.split()
        if f[1] == guid:
            f[4] = "%x" % (int(f[4], 16) | 2)
        out.write(" ".join(f) + "\n")
EOP
	loom_fail "cannot write the pma lines"
cat "$work/fabric.wire" "$work/pmas_all.txt" |
	LD_PRELOAD=$PRELOAD "$B/loomd" --read-counters ft "" 0 2000 0 16 - >"$work/c1c.txt" 2>"$work/read.err" ||
	loom_fail "loomd --read-counters, leaf-1 with every counter extended: $(cat "$work/c1c.txt" "$work/read.err")"
python3 - "$work/c1b.txt" "$work/c1c.txt" "$S/tests/integration" <<'EOP' || loom_fail "leaf-1 read through PortCountersExtended alone"
import sys
sys.path.insert(0, sys.argv[3])
from counters_wire import read_answer
b, db = read_answer(sys.argv[1])
c, dc = read_answer(sys.argv[2])
leaf = [p for p in c if p["node"] == "leaf-1"]
assert leaf and all(p["answered"] for p in leaf), leaf[:1]
assert all(set(p["bits"].values()) == {64} for p in leaf), leaf[0]["bits"]
assert all(p["bits"]["SymbolErrorCounter"] == 16 for p in c if p["node"] != "leaf-1")
# one Get a port, and no sum (AllPortSelect) for it: it would save nothing
assert dc["mads"] == db["mads"] - len(leaf) - 1, (db["mads"], dc["mads"], len(leaf))
print("leaf-1: %d ports, one Get each, every counter 64 bits wide" % len(leaf))
EOP
loom_ok "a PMA with the additional extended counters is read with one Get a port"

# A read handed the switches' sums (sum lines: PortCounters with
# AllPortSelect, which ibsim's switch PMAs answer) reads the ports of a
# switch whose sum did not move with PortCountersExtended alone: they
# answer "same", and loomd keeps their stored error counters. One Get
# fewer per switch port. A counter that moves on one port makes its switch
# read port by port again, with the new value; the other switches stay
# "same".
grep -E '^(pma|sum) ' "$work/c1.txt" >"$work/known1.txt" || loom_fail "the first read gave no sum lines"
read_known() { # read_known KNOWN OUT
	cat "$work/fabric.wire" "$1" |
		LD_PRELOAD=$PRELOAD "$B/loomd" --read-counters ft "" 0 2000 0 16 - >"$2" 2>"$work/read.err" ||
		loom_fail "loomd --read-counters with known sums: $(cat "$2" "$work/read.err")"
}
read_known "$work/known1.txt" "$work/c3.txt"
python3 - "$work/c1.txt" "$work/c1b.txt" "$work/c3.txt" "$S/tests/integration" <<'EOP' || loom_fail "a read behind unchanged sums"
import sys
sys.path.insert(0, sys.argv[4])
from counters_wire import read_answer
sums1 = []
a, _ = read_answer(sys.argv[1], sums=sums1)
b, db = read_answer(sys.argv[2])
c, dc = read_answer(sys.argv[3])
switches = {p["guid"] for p in a if p["type"] == "switch"}
assert {s[0] for s in sums1} == switches, (len(sums1), len(switches))
sw = [p for p in c if p["type"] == "switch"]
assert sw and all(p["answered"] and p["same"] for p in sw), [p for p in sw if not p["same"]][:1]
assert all("SymbolErrorCounter" not in p["counters"] and p["bits"]["PortXmitData"] == 64
           for p in sw), sw[0]
assert not any(p["same"] for p in c if p["type"] == "CA")
assert dc["mads"] == db["mads"] - len(sw), (db["mads"], dc["mads"], len(sw))
print("%d switch ports behind %d unchanged sums: %d Gets instead of %d" %
      (len(sw), len(sums1), dc["mads"], db["mads"]))
EOP
loom_ok "switches whose sum did not move are read with PortCountersExtended alone"
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=80'
grep -E '^(pma|sum) ' "$work/c3.txt" >"$work/known3.txt" || loom_fail "the second read gave no sum lines"
read_known "$work/known3.txt" "$work/c4.txt"
python3 - "$work/c4.txt" "$S/tests/integration" <<'EOP' || loom_fail "a switch whose sum moved"
import sys
sys.path.insert(0, sys.argv[2])
from counters_wire import read_answer
c, _ = read_answer(sys.argv[1])
leaf = [p for p in c if p["node"] == "leaf-1"]
others = [p for p in c if p["type"] == "switch" and p["node"] != "leaf-1"]
assert leaf and not any(p["same"] for p in leaf), leaf[:1]
p2 = [p for p in leaf if p["port"] == 2][0]
assert p2["counters"]["SymbolErrorCounter"] == 80, p2
assert others and all(p["same"] for p in others), [p for p in others if not p["same"]][:1]
print("leaf-1 read port by port (SymbolErrorCounter 80 on port 2), %d other switch ports same"
      % len(others))
EOP
loom_ok "a switch whose sum moved is read port by port again"

# A node that drops every PortCounters Get (ibsim's Error, all of attribute
# 0x12; a host, as a switch would also drop SwitchInfo, the same number in
# the SMP class, and the walk before the read would fail): its port is
# unanswered, with the reason.
loom_ibsim_cmd 'Error "host-0009" 100 18'
read_counters "$work/c2.txt"
python3 - "$work/c2.txt" "$S/tests/integration" <<'EOP' || loom_fail "a silent node's ports"
import sys
sys.path.insert(0, sys.argv[2])
from counters_wire import read_answer
ports, _ = read_answer(sys.argv[1])
silent = [p for p in ports if p["node"] == "host-0009"]
others = [p for p in ports if p["node"] != "host-0009" and not p["answered"]]
assert silent and all(not p["answered"] and "counters" not in p and "no answer" in p["reason"]
                      for p in silent), silent[:2]
assert not others, others[:2]
print("%d port(s) of host-0009 unanswered: %s" % (len(silent), silent[0]["reason"]))
EOP
loom_ok "a node that drops MADs is reported unanswered"
echo "counters_read.sh: all ok"
