#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/discovery_walk.sh: loom's own walk (discovery.walker:
# loom, daemon/ib/walk_dr.c) records the same fabric as libibnetdisc's, byte
# for byte in fab_wire's text (the `loomd --walk` child, run with each
# walker), on generated fabrics under ibsim:
# - a 2-level fat tree; the same with a host given another's node GUID (loom's
#   walk falls back to libibnetdisc, which duplicates are undone from, and
#   says so); the tree with two rails (every host has two ports,
#   on two switches);
# - two hosts with two ports on two switches, one of them the local host;
# - a degraded tree: switch links cut and narrowed, then one host link and
#   one switch link taken down in ibsim after OpenSM (ports down, not
#   connected);
# - a 2-D torus with two hosts a switch, and a dragonfly;
# - under the test bed's latency model (docs/testbed-latency.md) with 1% of
#   the SMPs lost: the walk still equals libibnetdisc's walk without the
#   model (a 3-level tree of 208 nodes), and says it retried.
# And loomd with discovery.walker: loom records in a sweep what the walk child
# gives (the key reaches the child); a bad value is refused with its line.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
MODEL=$B/tests/integration/.libs/latency_model.so
loom_work

# walk WALKER OUT [ENV...]: the --walk child with that walker, 200 ms, 3 retries, 64 SMPs
walk() {
	_w=$1 _o=$2; shift 2
	env LOOMD_WALKER="$_w" LOOMD_WALK_STATS=1 "$@" LD_PRELOAD="${LD_PRELOAD_WALK:-$PRELOAD}" \
		"$B/loomd" --walk sim "" 0 200 3 64 >"$work/$_o.wire" 2>"$work/$_o.err" ||
		loom_fail "the $_w walk failed: $(tail -n 2 "$work/$_o.err"; head -c 400 "$work/$_o.wire")"
}
# fabric_of WIRE: the wire without its SMP counts (the "LOOMSMP1" section,
# magic and three uint64_t, just before the trailer: each walker counts its
# own SMPs, libibnetdisc's neither retries nor losses), in WIRE.fab
fabric_of() {
	python3 - "$1" <<'EOP'
import sys
d = open(sys.argv[1], 'rb').read()
i = d.rfind(b'LOOMSMP1')
if i >= 0 and d[i + 32:i + 40] == b'LOOMEND1':
    d = d[:i] + d[i + 32:]
open(sys.argv[1] + '.fab', 'wb').write(d)
EOP
}
# same NAME: both walks of the fabric up now give the same fabric, byte for
# byte (the counts of SMPs apart); on a difference, the first bytes that differ
same() {
	walk ibnetdisc "$1-ibnd"
	walk loom "$1-loom"
	fabric_of "$work/$1-ibnd.wire"
	fabric_of "$work/$1-loom.wire"
	cmp -s "$work/$1-ibnd.wire.fab" "$work/$1-loom.wire.fab" || {
		cmp -l "$work/$1-ibnd.wire.fab" "$work/$1-loom.wire.fab" 2>&1 | head -n 10
		loom_fail "$1: loom's walk differs from libibnetdisc's"
	}
	grep -q LOOMSMP1 "$work/$1-loom.wire" ||
		loom_fail "$1: loom's walk handed no SMP counts with its fabric"
	loom_ok "$1: loom's walk equals libibnetdisc's ($(wc -c <"$work/$1-loom.wire") bytes; $(sed -n 's/.*walk: //p' "$work/$1-loom.err"))"
}
fabric() { # fabric NAME FABGEN-ARGS...: ibsim on it, OpenSM once
	_name=$1; shift
	loom_gen "$_name" "$@"
	loom_ibsim "$work/$_name.net"
	loom_opensm
}

fabric ft fattree --levels 2 --radix 8
same ft
# the other walker's output is not a copy of this one's: a fabric's text
grep -q 'leaf-0' "$work/ft-loom.wire" || loom_fail "no leaf-0 in the walk's fabric"
# a host given another's node GUID: loom's walk hands the subnet to
# libibnetdisc (and discovery_dups.c), says so, and the fabric is the same
loom_ibnetdiscover >"$work/ibnd.txt" || loom_fail "ibnetdiscover"
g3=$(grep -B3 '"host-0003' "$work/ibnd.txt" | sed -n 's/^caguid=//p' | head -n1)
[ -n "$g3" ] || loom_fail "no GUID of host-0003 in ibnetdiscover's output"
loom_ibsim_cmd "Guid \"host-0012\" $g3"
same dupguid
grep -q 'found twice.*walked again with libibnetdisc' "$work/dupguid-loom.err" ||
	loom_fail "a duplicate GUID: loom's walk did not say it fell back: $(tail -n 2 "$work/dupguid-loom.err")"
loom_ok "a duplicate GUID: $(sed -n 's/.*subnet sim: //p' "$work/dupguid-loom.err" | head -n1)"
loom_ibsim_stop

fabric rails fattree --levels 2 --radix 8 --rails 2
same rails
loom_ibsim_stop

# two hosts with two ports on two switches (the local one too: its second
# port is reached back through the fabric), and the shipped tiny fabric
# (a host with two ports on one switch, one of them 1x)
cat >"$work/dual.net" <<'EON'
Hca 2 "h-a"
[1] "sw-1"[1]
[2] "sw-2"[1]

Hca 2 "h-b"
[1] "sw-1"[2]
[2] "sw-2"[2]

Hca 1 "h-c"
[1] "sw-2"[3]

Switch 8 "sw-1"
[1] "h-a"[1]
[2] "h-b"[1]
[5] "sw-2"[5]
[6] "sw-2"[6]

Switch 8 "sw-2"
[1] "h-a"[2]
[2] "h-b"[2]
[3] "h-c"[1]
[5] "sw-1"[5]
[6] "sw-1"[6]
EON
for net in "$work/dual.net" "$S/tests/fabrics/tiny.net"; do
	loom_ibsim "$net"
	loom_opensm
	same "$(basename "$net" .net)"
	loom_ibsim_stop
done

fabric degraded fattree --levels 2 --radix 8 --cut 3 --slow 2 --seed 5
loom_ibsim_cmd 'Unlink "host-0005"[1]'
loom_ibsim_cmd 'Unlink "leaf-1"[6]'
same degraded
loom_ibsim_stop

fabric torus torus --dims 3,3 --hosts-per-switch 2
same torus
loom_ibsim_stop

fabric dfly dragonfly --groups 4 --routers 2 --hosts-per-router 2 --global 2
same dfly
loom_ibsim_stop

# ---- 1% of the SMPs lost under the latency model ------------------------------------
if [ -e "$MODEL" ]; then
	fabric lossy fattree --levels 3 --radix 8
	walk ibnetdisc lossy-ibnd
	LD_PRELOAD_WALK="$MODEL $PRELOAD" walk loom lossy-loom LOOM_LAT_DROP=0.01 LOOM_LAT_SEED=3 \
		LOOM_LAT_LOG="$work/drops"
	fabric_of "$work/lossy-ibnd.wire"
	fabric_of "$work/lossy-loom.wire"
	cmp -s "$work/lossy-ibnd.wire.fab" "$work/lossy-loom.wire.fab" || {
		cmp -l "$work/lossy-ibnd.wire.fab" "$work/lossy-loom.wire.fab" 2>&1 | head -n 10
		loom_fail "1% lost: loom's walk differs from libibnetdisc's"
	}
	retries=$(sed -n 's/.*(\([0-9]*\) retries.*/\1/p' "$work/lossy-loom.err")
	drops=$(grep -c -- ' --walk ' "$work/drops" || :)
	[ "$drops" -ge 1 ] || loom_fail "the model lost no SMP of the walk: nothing was tested"
	[ "${retries:-0}" -ge "$drops" ] ||
		loom_fail "the model lost $drops SMPs, the walk counted ${retries:-no} retries"
	loom_ok "1% lost: loom's walk equals libibnetdisc's; the model lost $drops SMPs, the walk retried $retries"
else
	echo "SKIP (part): $MODEL is not built: no lossy walk"
fi

# ---- loomd with discovery.walker: loom --------------------------------------------------
loom_config "$(loom_subnet_conf lossy)
  walker: loom"
grep -q 'walker: loom' "$work/loom.yaml" || loom_fail "the config has no walker key"
export LOOMD_WALK_STATS=1  # the child says which walk it did, and its counts
loom_loomd "$work/loom.yaml"
loom_ctl --json discover --wait >"$work/disc.json" || loom_fail "discover --wait"
grep -q '"status": *"ok"' "$work/disc.json" || loom_fail "the sweep failed: $(cat "$work/disc.json")"
grep -q 'walk: [0-9]* nodes' "$work/loomd.log" || loom_fail "loomd's sweep did not use loom's walk"
loom_ok "loomd sweeps with discovery.walker: loom"
sed 's/walker: loom/walker: nope/' "$work/loom.yaml" >"$work/bad.yaml"
if "$B/loomd" -n -c "$work/bad.yaml" >"$work/bad.out" 2>&1; then
	loom_fail "discovery.walker: nope was accepted"
fi
grep -q 'bad.yaml:[0-9]*: discovery.walker' "$work/bad.out" ||
	loom_fail "discovery.walker: nope: no file:line: key in $(cat "$work/bad.out")"
loom_ok "discovery.walker: nope is refused ($(head -n1 "$work/bad.out"))"
echo "discovery_walk.sh: all ok"
