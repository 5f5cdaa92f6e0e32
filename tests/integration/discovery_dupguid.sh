#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/discovery_dupguid.sh: a duplicate node GUID does not take
# the subnet's discovery away (issue 22).
#
# On a generated fat tree, ibsim's console gives one host the node GUID of
# another (`Guid "host-B" GUID-of-host-A`): the sweep still succeeds, loom
# lists the fabric with one node less (libibnetdisc, and ibnetdiscover with
# it, merge the two; the count is compared with ibnetdiscover's), the host
# found first keeps its own GUID, description and the leaf port of the net
# file, and the duplicate is reported once per sweep naming both hosts and
# the leaf ports they hang on (loomd's log, and one dup-node-guid finding of
# `loomctl fabric validate`). Then the same with a spine given the
# GUID of another spine. Each GUID put back, a sweep finds no duplicate and
# the whole fabric again. A port GUID cannot be duplicated with ibsim 0.10
# (its console ignores `Guid "node"[port]`): checked, and said, not faked.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
loom_config "$(loom_subnet_conf ft)"
loom_loomd "$work/loom.yaml"

sweep() { # sweep NAME: one sweep that must succeed
	loom_ctl --json discover --wait >"$work/disc.json" || loom_fail "$1: discover --wait"
	python3 - "$work/disc.json" <<'EOP' || loom_fail "$1: sweep not ok: $(cat "$work/disc.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sweeps"] and all(s["status"] == "ok" for s in d["sweeps"]), d
EOP
}
loom_nodes() { loom_ctl --json nodes >"$work/nodes.json" || loom_fail "loomctl nodes"
	python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/nodes.json"; }
ibnd_nodes() { loom_ibnetdiscover >"$work/ibnd.txt" || loom_fail "ibnetdiscover"
	grep -c '^\(Switch\|Ca\)[[:space:]]' "$work/ibnd.txt"; }
guid_of() { # guid_of NAME: the node GUID ibnetdiscover shows for NAME
	awk -v n="\"$1\"" '/^(switchguid|caguid)=/ { g = $0; sub(/^[a-z]*=/, "", g); sub(/\(.*/, "", g) }
		/^(Switch|Ca)[ \t]/ && index($0, "# " n) { print g; exit }' "$work/ibnd.txt"; }
peer_in_net() { # peer_in_net NODE: "leaf[port]" of NODE's port 1 in the net file
	grep -A1 "^Hca .*\"$1\"" "$work/ft.net" | sed -n 's/^\[1\] "\(.*\)"\[\([0-9]*\)\].*/\1[\2]/p'; }
dup_lines() { grep -c "duplicate node GUID" "$work/loomd.log" || :; }
# The dup-node-guid findings of `loomctl fabric validate` (lib/validate/health.c
# reports fab->dups).
validate_dups() {
	loom_ctl --json fabric validate >"$work/v.json" || :
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["subnets"]:
    for f in r["findings"]:
        if f["code"] == "dup-node-guid":
            print(json.dumps(f))' "$work/v.json"
}

# ---- the clean fabric -------------------------------------------------------------------
sweep clean
n_clean=$(ibnd_nodes)
[ "$(loom_nodes)" = "$n_clean" ] || loom_fail "clean: loom lists $(loom_nodes) nodes, ibnetdiscover $n_clean"
[ "$(dup_lines)" = 0 ] || loom_fail "clean: a duplicate GUID reported"
loom_ok "clean fabric: $n_clean nodes, no duplicate"
loom_ctl --json ports >"$work/ports.json" || loom_fail "loomctl ports"
loom_ctl --json nodes >"$work/nodes.json" || loom_fail "loomctl nodes"
lid_of() { python3 -c '
import json, sys
g = [n["guid"] for n in json.load(open(sys.argv[1] + "/nodes.json")) if n["desc"].split()[0] == sys.argv[2]]
print([p["lid"] for p in json.load(open(sys.argv[1] + "/ports.json")) if p["node_guid"] == g[0] and p["port"] == 1][0])' "$work" "$1"; }

# ---- a host with the node GUID of another host ------------------------------------------
a=host-0003 b=host-0012
ga=$(guid_of $a) gb=$(guid_of $b)
[ -n "$ga" ] && [ -n "$gb" ] || loom_fail "no GUIDs of $a/$b in ibnetdiscover's output"
pa=$(peer_in_net $a) pb=$(peer_in_net $b)
lid_a=$(lid_of $a) lid_b=$(lid_of $b)
[ "$lid_a" != "$lid_b" ] || loom_fail "$a and $b share LID $lid_a"
loom_ibsim_cmd "Guid \"$b\" $ga"
[ "$(ibnd_nodes)" = $((n_clean - 1)) ] ||
	loom_fail "ibnetdiscover does not merge $b into $a ($(ibnd_nodes) nodes)"
before=$(dup_lines)
sweep "duplicate host GUID"
n=$(loom_nodes)
[ "$n" = $((n_clean - 1)) ] || loom_fail "duplicate host GUID: loom lists $n nodes, ibnetdiscover $((n_clean - 1))"
python3 - "$work/nodes.json" "$ga" "$a" <<'EOP' || loom_fail "$a is not listed under its own GUID"
import json, sys
g = int(sys.argv[2], 16)
hits = [n for n in json.load(open(sys.argv[1])) if int(str(n["guid"]), 16) == g]
assert len(hits) == 1 and hits[0]["desc"].split()[0] == sys.argv[3], hits
EOP
loom_ctl --json links >"$work/links.json" || loom_fail "loomctl links"
loom_ctl --json ports >"$work/ports.json" || loom_fail "loomctl ports"
leaf=${pa%%\[*} lport=${pa#*\[}; lport=${lport%]}
python3 - "$work" "$a" "$leaf" "$lport" "$lid_a" <<'EOP' || loom_fail "$a is not back on $pa with its own port: $(cat "$work/py.err")"
import json, sys
w, host, leaf, lport, lid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
nodes = json.load(open(w + "/nodes.json"))
guid = {n["desc"].split()[0]: n["guid"] for n in nodes}
links = json.load(open(w + "/links.json"))
ends = [{(l["a"]["guid"], l["a"]["port"]), (l["b"]["guid"], l["b"]["port"])} for l in links]
err = open(w + "/py.err", "w")
if {(guid[host], 1), (guid[leaf], lport)} not in ends:
    err.write("no link %s[1] - %s[%d]" % (host, leaf, lport)); sys.exit(1)
port = [p for p in json.load(open(w + "/ports.json")) if p["node_guid"] == guid[host] and p["port"] == 1]
if len(port) != 1 or port[0]["lid"] != lid:
    err.write("%s[1]: %s, want LID %d" % (host, port, lid)); sys.exit(1)
EOP
after=$(dup_lines)
[ $((after - before)) = 1 ] || loom_fail "duplicate host GUID: $((after - before)) log lines, not one"
grep "duplicate node GUID" "$work/loomd.log" | tail -n1 >"$work/dup.txt"
grep -qF "\"$a (on $pa)\" and \"$b (on $pb)\"" "$work/dup.txt" ||
	loom_fail "the duplicate does not name $a on $pa and $b on $pb: $(cat "$work/dup.txt")"
validate_dups >"$work/vd.txt"
[ "$(wc -l <"$work/vd.txt")" = 1 ] && grep -q "$a" "$work/vd.txt" && grep -q "$b" "$work/vd.txt" ||
	loom_fail "fabric validate: not one dup-node-guid naming $a and $b: $(cat "$work/v.json")"
loom_ok "fabric validate: one dup-node-guid naming $a and $b"
loom_ok "$b with the GUID of $a: sweep ok, $n nodes, $a on $pa, one duplicate naming $a (on $pa) and $b (on $pb)"

loom_ibsim_cmd "Guid \"$b\" $gb"
before=$(dup_lines)
sweep "host GUID put back"
[ "$(loom_nodes)" = "$n_clean" ] || loom_fail "GUID put back: loom lists $(loom_nodes) nodes, not $n_clean"
[ "$(dup_lines)" = "$before" ] || loom_fail "GUID put back: a duplicate still reported"
[ -z "$(validate_dups)" ] || loom_fail "GUID put back: fabric validate still finds a duplicate"
loom_ok "$b's own GUID back: $n_clean nodes, no duplicate"

# ---- a spine with the node GUID of another spine ----------------------------------------
ibnd_nodes >/dev/null
gs0=$(guid_of spine-0) gs1=$(guid_of spine-1)
loom_ibsim_cmd "Guid \"spine-1\" $gs0"
n_ibnd=$(ibnd_nodes)
before=$(dup_lines)
sweep "duplicate spine GUID"
[ "$(loom_nodes)" = "$n_ibnd" ] || loom_fail "duplicate spine GUID: loom lists $(loom_nodes) nodes, ibnetdiscover $n_ibnd"
[ $(($(dup_lines) - before)) = 1 ] || loom_fail "duplicate spine GUID: $(($(dup_lines) - before)) log lines, not one"
grep "duplicate node GUID" "$work/loomd.log" | tail -n1 >"$work/dup.txt"
grep -q "\"spine-0.*\" and \"spine-1 (on leaf-[0-9]*\[[0-9]*\])\"" "$work/dup.txt" ||
	loom_fail "the duplicate does not name spine-0 and spine-1: $(cat "$work/dup.txt")"
validate_dups >"$work/vd.txt"
[ "$(wc -l <"$work/vd.txt")" = 1 ] && grep -q "spine-0" "$work/vd.txt" && grep -q "spine-1" "$work/vd.txt" ||
	loom_fail "fabric validate: not one dup-node-guid naming spine-0 and spine-1: $(cat "$work/v.json")"
loom_ok "spine-1 with the GUID of spine-0: sweep ok, $n_ibnd nodes as ibnetdiscover, one duplicate naming both (log, fabric validate)"
loom_ibsim_cmd "Guid \"spine-1\" $gs1"
before=$(dup_lines)
sweep "spine GUID put back"
[ "$(loom_nodes)" = "$n_clean" ] && [ "$(dup_lines)" = "$before" ] ||
	loom_fail "spine GUID put back: $(loom_nodes) nodes (not $n_clean) or a duplicate left"
loom_ok "spine-1's own GUID back: $n_clean nodes, no duplicate"

# ---- a port GUID: what ibsim 0.10 does with it ------------------------------------------
pg=$(grep -A1 "# \"$a\"" "$work/ibnd.txt" | sed -n 's/^\[1\](\([0-9a-f]*\)).*/\1/p' | head -1)
loom_ibsim_cmd "Guid \"$b\"[1] 0x$pg"
if loom_ibnetdiscover | grep -A1 "# \"$b\"" | grep -q "^\[1\]($pg)"; then
	before=$(grep -c "duplicate port GUID" "$work/loomd.log" || :)
	sweep "duplicate port GUID"
	[ $(($(grep -c "duplicate port GUID" "$work/loomd.log" || :) - before)) = 1 ] ||
		loom_fail "a duplicate port GUID is not reported once"
	loom_ok "$b[1] with the port GUID of $a[1]: reported once"
else
	loom_ok "ibsim ignores a port GUID set from its console: no port GUID duplicate to test here"
fi
echo "discovery_dupguid.sh: all ok"
