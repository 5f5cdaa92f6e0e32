#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `find` (issue 41): everything an operator may type, on ibsim's fat tree,
# answered best first with the leaf a host's cable reaches: a node's name
# from the node-name-map and its description (exact before prefix before
# substring), a node GUID and a port GUID (with or without 0x, upper case,
# a 6-digit prefix), a LID (decimal and 0x), NAME:PORT and GUID:PORT, a
# host by the tenants' host pattern and by tenants.host_map, a Slurm job
# (a tenant named by its id) and a tenant; a limit; bad input refused;
# loomctl --db and GET /api/v1/find answer the same.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl python3
loom_work

SEC=find-reader-0123456789abcdef-0123
loom_tokens "$work/tokens" "reader:read:$SEC"
"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >"$work/static.conf"
printf 'partition_config_file %s\nforce_log_flush TRUE\n' "$work/partitions.conf" \
	>"$work/opensm.conf"
loom_opensm_bg
: >"$work/nn.map"
: >"$work/hosts.map"
port=$(loom_free_port)
loom_config "tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  static_partitions: $work/static.conf" "  opensm_pid_file: $work/opensm.pid" \
	"  timeout_s: 30" "  host_map: $work/hosts.map" \
	"names:" "  node_name_map: $work/nn.map" \
	"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

j() { loom_ctl --json node "$1" | python3 -c "import json,sys; n=json.load(sys.stdin); print($2)"; }
G_LEAF=$(j leaf-1 'n["guid"]')
G_HOST=$(j host-0005 'n["guid"]')
P_HOST=$(j host-0009 'n["port_list"][0]["guid"]')
L_HOST=$(j host-0009 'n["port_list"][0]["lid"]')
printf '%s "rack1 leaf A"\n' "$G_LEAF" >"$work/nn.map"
printf 'gpu-x %s\n' "$P_HOST" >"$work/hosts.map"
kill -HUP "$LOOMD_PID"
loom_until 100 grep -q 'names: 1 node names from' "$work/loomd.log" || loom_fail "the map was not loaded"
loom_ctl tenant create 4242 --hosts 'host-[0000-0001]' >/dev/null || loom_fail "tenant create 4242"
loom_ctl tenant create teamblue --hosts 'host-[0002-0003]' >/dev/null || loom_fail "tenant create teamblue"

# first Q [LIMIT]: the best hit as "kind name guid port lid matched leaf:port"
first() {
	loom_ctl --json find ${2:+--limit "$2"} "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
if not r:
    print("none"); sys.exit(0)
h = r[0]
leaf = "%s:%s" % (h["leaf"]["name"], h["leaf"]["port"]) if h["leaf"] else "-"
print(h["kind"], h["name"], h["guid"], h["port"], h["lid"], h["matched"], leaf)'
}
expect() { # expect Q PATTERN: the best hit matches the shell pattern
	_got=$(first "$1")
	case "$_got" in
	$2) ;;
	*) loom_fail "find \"$1\": '$_got', expected '$2'" ;;
	esac
}

expect "rack1 leaf A" "switch rack1 leaf A $G_LEAF None * name -"
expect "rack1" "switch rack1 leaf A $G_LEAF None * name -"
expect "leaf-1" "switch rack1 leaf A $G_LEAF None * description -"
expect "host-0005" "host host-0005 $G_HOST 1 * host *:*"
n=$(loom_ctl --json find host | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$n" = 20 ] || loom_fail "find host: $n hits, not the default limit 20"
n=$(loom_ctl --json find --limit 3 host | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$n" = 3 ] || loom_fail "find --limit 3 host: $n hits"
loom_ctl --json find host-000 | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r[0]["name"] == "host-0000" and r[0]["kind"] == "host", r[0]
assert all(h["name"].startswith("host-000") for h in r), r' ||
	loom_fail "find host-000 does not list the hosts by prefix, in order"
loom_ok "names from the node-name-map, descriptions and hosts: exact, prefix, limit"

up=$(printf '%s' "${G_HOST#0x}" | tr a-f A-F)
expect "$G_HOST" "ca host-0005 $G_HOST None * node_guid *:*"
expect "$up" "ca host-0005 $G_HOST None * node_guid *:*"
pfx=$(printf '%s' "${G_HOST#0x}" | cut -c1-14)
loom_ctl --json find "0x$pfx" | grep -q "\"$G_HOST\"" || loom_fail "a 14-digit GUID prefix does not find host-0005"
loom_ctl --json find "$(printf '%s' "${G_HOST#0x}" | cut -c1-5)" | grep -q node_guid &&
	loom_fail "5 hex digits are taken as a GUID prefix"
expect "$P_HOST" "port host-0009:1 * 1 $L_HOST port_guid *:*"
loom_ok "node and port GUIDs, any case, with or without 0x, by prefix of 6+ digits"

expect "$L_HOST" "port host-0009:1 * 1 $L_HOST lid *:*"
expect "$(printf '0x%x' "$L_HOST")" "port host-0009:1 * 1 $L_HOST lid *:*"
expect "leaf-1:3" "port rack1 leaf A:3 $G_LEAF 3 * port -"
expect "rack1 leaf A:3" "port rack1 leaf A:3 $G_LEAF 3 * port -"
expect "$G_LEAF:3" "port rack1 leaf A:3 $G_LEAF 3 * port -"
loom_ok "LIDs (decimal, 0x), NAME:PORT and GUID:PORT"

expect "gpu-x" "host gpu-x * 1 $L_HOST host *:*"
expect "4242" "job 4242 None None None job -"
expect "teamblue" "tenant teamblue None None None tenant -"
loom_ok "a host of the host map, a Slurm job and a tenant"

loom_ctl find "" >/dev/null 2>&1 && loom_fail "an empty find is accepted"
loom_ctl --json find --limit 500 host >/dev/null 2>&1 && loom_fail "--limit 500 is accepted"
[ "$(first nothing-of-the-kind)" = none ] || loom_fail "find of nothing finds something"
loom_ok "bad input refused; nothing found is an empty list"

loom_ctl --json find leaf >"$work/live.json"
"$B/loomctl" --db "$work/loom.db" --json find leaf >"$work/db.json" ||
	loom_fail "loomctl --db find"
cmp -s "$work/live.json" "$work/db.json" || loom_fail "--db find differs: $(diff "$work/live.json" "$work/db.json" | head)"
url=http://127.0.0.1:$port
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz"
curl -sf -G -H "Authorization: Bearer $SEC" "$url/api/v1/find" --data-urlencode "q=gpu-x" \
	--data-urlencode limit=5 >"$work/rest.json" || loom_fail "GET /api/v1/find"
python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))
r = b["result"] if isinstance(b, dict) else b
assert r[0]["kind"] == "host" and r[0]["name"] == "gpu-x" and r[0]["leaf"], r' "$work/rest.json" ||
	loom_fail "GET /api/v1/find?q=gpu-x: $(head -c 400 "$work/rest.json")"
loom_ok "loomctl --db and GET /api/v1/find answer the same"
