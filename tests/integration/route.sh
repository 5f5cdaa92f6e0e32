#!/bin/sh
# `loomctl route compute` routes topology files offline: the shipped fat tree
# (as an ibsim net file and as ibnetdiscover's capture of the same fabric in
# ibsim) and generated fat trees with cut links are routed with every CA pair
# delivered and no loop; a full fat tree's shifts never share a link; the
# LFT dump has one table per switch; bad input is refused with a reason.
set -eu
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d /tmp/loom-route.XXXXXX)
trap 'rm -rf "$work"' EXIT

metric() { # metric FILE.json KEY
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metrics"][sys.argv[2]])' "$1" "$2"
}
compute() { # compute NAME TOPOLOGY [ARGS...]: route it, require every pair delivered
	_n=$1; _t=$2; shift 2
	"$B/loomctl" --json route compute --topology "$_t" "$@" >"$work/$_n.json" ||
		loom_fail "$_n: route compute failed: $(cat "$work/$_n.json")"
	[ "$(metric "$work/$_n.json" delivered)" = "$(metric "$work/$_n.json" pairs)" ] &&
		[ "$(metric "$work/$_n.json" loops)" = 0 ] || loom_fail "$_n: pairs lost or looping"
	loom_ok "$_n: $(metric "$work/$_n.json" pairs) pairs delivered, shift worst link" \
		"$(metric "$work/$_n.json" shift_max_load), random worst link" \
		"$(metric "$work/$_n.json" random_max_load)"
}

compute demo-net "$S/tests/fabrics/demo-ft2.net" --dump "$work/demo.lfts"
[ "$(metric "$work/demo-net.json" shift_max_load)" = 1 ] ||
	loom_fail "full fat tree: a shift shares a link"
[ "$(grep -c '^Unicast lids' "$work/demo.lfts")" = 12 ] || loom_fail "dump: not one table per switch"
compute demo-ibnd "$S/tests/fabrics/demo-ft2.ibnd"
compute opensm-readback "$S/tests/fabrics/demo-ft2.ibnd" \
	--lfts "$S/tests/fabrics/demo-ft2.fts"
grep -q '"engine": "tables read"' "$work/opensm-readback.json" ||
	loom_fail "--lfts did not judge the given tables"
for e in ftree minhop; do
	compute "demo-$e" "$S/tests/fabrics/demo-ft2.net" --engine $e
	[ "$(metric "$work/demo-$e.json" shift_max_load)" = 1 ] || loom_fail "$e: a shift shares a link"
done
[ "$(metric "$work/demo-ibnd.json" pairs)" = "$(metric "$work/demo-net.json" pairs)" ] ||
	loom_fail "the net file and ibnetdiscover's capture of it differ"

"$B/loom-fabgen" fattree --levels 3 --radix 8 --cut 6 --seed 5 -o "$work/ft3cut.net"
compute "3-level fat tree, 6 cut links" "$work/ft3cut.net" --shifts 16 --random 4
"$B/loom-fabgen" fattree --levels 2 --radix 36 --hosts 648 --cut 20 --seed 9 -o "$work/ft2cut.net"
compute "648 hosts, 20 cut links" "$work/ft2cut.net" --shifts 32 --random 2

rc=0; "$B/loomctl" route compute --topology "$work/missing.net" 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q "missing.net" "$work/err" || loom_fail "a missing file: exit $rc, $(cat "$work/err")"
rc=0; "$B/loomctl" route compute --topology "$S/tests/fabrics/tiny.net" --engine nosuch 2>"$work/err" || rc=$?
[ $rc = 2 ] && grep -q "nosuch" "$work/err" || loom_fail "an unknown engine: exit $rc"
printf 'Switch 4 "s"\n[9] "h"[1]\n' >"$work/bad.net"
rc=0; "$B/loomctl" route compute --topology "$work/bad.net" 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q "bad.net:2" "$work/err" || loom_fail "a bad file: exit $rc, $(cat "$work/err")"
loom_ok "bad input refused: $(cat "$work/err")"
echo "route.sh: all ok"
