#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A switch panel's ports and the links' state from the fabric (issue 41),
# over ibsim: ibsim's 4x SDR links (ports supporting 12x QDR, enabling 4x
# SDR) are "up", not degraded; `ports NODE` carries each port's peer by
# name, width/speed_max, rates, the error counters' values and last deltas,
# its alarms since when; `links` says "errors" for a link whose port raised
# link_errors and "congested" for link_congested, with the reason; a host
# cable cut in the last sweep is listed "down" with the port it faced and
# since when, as is the switch port's panel, after loomd restarts too (from
# the fabric, not from recent events); the REST API answers the same.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl python3
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
port=$(loom_free_port)
SEC=panel-reader-0123456789abcdef0123456789
loom_tokens "$work/tokens" "reader:read:$SEC"
loom_config "$(loom_subnet_conf ft)" "telemetry:" "  interval_s: 0" "  thresholds:" \
	"    errors: 1" "    xmit_wait_per_s: 5000" "    link_downed: 1" "    clear_after: 2" \
	"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl counters --now >/dev/null || loom_fail "counters --now"

# state NODE PORT: the state of the link at NODE:PORT (either end), or "absent"
state() {
	loom_ctl --json links | python3 -c '
import json, sys
n, p = sys.argv[1], int(sys.argv[2])
for l in json.load(sys.stdin):
    for x in ("a", "b"):
        if l[x]["name"] == n and l[x]["port"] == p:
            print(l["state"], "|", l["reason"], "|", l.get("down_since"))
            sys.exit(0)
print("absent")' "$1" "$2"
}

loom_ctl --json links >"$work/l0.json"
python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))
bad = [x for x in l if x["state"] != "up"]
assert l and not bad, bad[:3]
assert all(x["width"] == "4x" and x["width_max"] == "4x" and x["speed_max"] == "SDR" for x in l), l[0]' \
	"$work/l0.json" || loom_fail "a quiet ibsim fabric is not all up: $(head -c 600 "$work/l0.json")"
loom_ok "ibsim's 4x SDR links (12x QDR supported, 4x SDR enabled) are up, not degraded"

loom_ibsim_cmd 'PerformanceSet "leaf-1"[3] PortCounters.SymbolErrorCounter=7'
loom_ibsim_cmd 'PerformanceSet "leaf-0"[4] PortCounters.PortXmitWait=4000000000'
loom_ctl counters --now >/dev/null || loom_fail "counters --now (faults)"
state leaf-1 3 | grep -q '^errors | leaf-1:3 link_errors: SymbolErrorCounter+7' ||
	loom_fail "leaf-1:3's link is not errors with the reason: $(state leaf-1 3)"
state leaf-0 4 | grep -q '^congested | leaf-0:4 link_congested: PortXmitWait' ||
	loom_fail "leaf-0:4's link is not congested with the reason: $(state leaf-0 4)"
loom_ctl links | grep -q ' errors .*-> leaf-1\| errors *leaf-1' ||
	loom_fail "loomctl links' FLAG does not say errors: $(loom_ctl links | head -3)"
loom_ok "links: errors and congested from the ports' alarms, with the reason"

loom_ctl --json ports leaf-1 >"$work/p1.json" || loom_fail "ports leaf-1"
python3 -c '
import json, sys
ports = {p["port"]: p for p in json.load(open(sys.argv[1]))}
p = ports[3]
assert p["peer"]["name"].startswith("host-"), p["peer"]
assert p["width"] == "4x" and p["width_max"] == "4x" and p["speed_max"] == "SDR", p
assert p["width_capable"] == "12x" and p["speed_capable"] == "QDR", p
assert p["degraded"] is False, p
assert p["errors"]["values"]["SymbolErrorCounter"] == 7, p["errors"]
assert p["errors"]["deltas"] == {"SymbolErrorCounter": 7}, p["errors"]
assert p["errors"]["last_error_n"] == 7, p["errors"]
assert [a["kind"] for a in p["alarms"]] == ["link_errors"] and p["alarms"][0]["since"], p["alarms"]
assert p["rates"]["rx_bytes_s"] >= 0 and p["rates"]["tx_bytes_s"] >= 0, p["rates"]
assert ports[1]["alarms"] == [] and ports[1]["errors"]["deltas"] == {}, ports[1]
assert "down_since" not in p, p' "$work/p1.json" ||
	loom_fail "ports leaf-1 lacks the panel's fields: $(head -c 1500 "$work/p1.json")"
loom_ok "ports NODE: peer named, width/speed max and capable, rates, errors with deltas, alarms"

# the host on leaf-2's port 1 loses its one cable
host=$(loom_ctl --json ports leaf-2 | python3 -c 'import json,sys; print([p for p in json.load(sys.stdin) if p["port"] == 1][0]["peer"]["name"])')
loom_ibsim_cmd "Unlink \"$host\"[1]"
loom_ctl discover --wait >/dev/null || loom_fail "discover after the cut"
s=$(state leaf-2 1)
case "$s" in
"down | was cabled to $host:1; the port is "*"| 20"*) ;;
*) loom_fail "the cut host cable is not listed down with its peer and since when: $s" ;;
esac
loom_ok "a cable cut in the last sweep is listed down, with the host it faced and since when"

kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
loom_loomd "$work/loom.yaml"
s2=$(state leaf-2 1)
[ "$s2" = "$s" ] || loom_fail "after a restart the cut cable reads '$s2', not '$s'"
loom_ctl --json ports leaf-2 | python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin) if p["port"] == 1][0]
assert p["peer"] is None and p["down_since"] and p["last_peer"]["name"] == sys.argv[1], p' "$host" ||
	loom_fail "leaf-2:1's panel does not say down since when, facing $host"
loom_ok "after loomd restarts (no new event) the cut cable is still down, on the switch panel too"

url=http://127.0.0.1:$port
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz"
curl -sf -H "Authorization: Bearer $SEC" "$url/api/v1/nodes/leaf-1/ports" >"$work/rest.json" ||
	loom_fail "GET /api/v1/nodes/leaf-1/ports"
python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))
r = b["result"] if isinstance(b, dict) else b
p = [p for p in r if p["port"] == 3][0]
assert p["alarms"][0]["kind"] == "link_errors" and "width_max" in p, p' "$work/rest.json" ||
	loom_fail "the REST ports lack the panel fields: $(head -c 400 "$work/rest.json")"
curl -sf -H "Authorization: Bearer $SEC" "$url/api/v1/links" | grep -q '"state": *"down"' ||
	loom_fail "GET /api/v1/links does not list the down cable"
etag=$(curl -sf -D - -o /dev/null -H "Authorization: Bearer $SEC" "$url/api/v1/links" |
	sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p')
[ -n "$etag" ] || loom_fail "GET /api/v1/links has no ETag (the kept answer)"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $SEC" \
	-H "If-None-Match: $etag" "$url/api/v1/links")" = 304 ] ||
	loom_fail "GET /api/v1/links with its ETag is not 304: the answer is no longer kept"
loom_ok "the REST API answers the same; links' answer is still kept (ETag, 304)"
