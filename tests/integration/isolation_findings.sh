#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# isolation.findings (issue 42): an open validation finding of one of the
# listed codes isolates its cable, the counters' own rules off. ibsim with
# a real OpenSM running loom's plugin; the finding is validation's `ber`
# (telemetry's symbol-error alarm on the cable, found by the check after a
# sweep), named by the site's names.
#
#  1. symbol errors on a spine-leaf cable, a sweep: validation opens a `ber`
#     finding on it; isolation (errors, ber_exp, flaps off; findings [ber])
#     isolates it for that finding: link_isolated says "finding" and the
#     finding's words; no LFT entry leaves by it.
#  2. a finding of a code not listed (the same cable, findings [mtu-mismatch]
#     after a reload and a restore) isolates nothing.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need dump_fts python3

loom_osm_loom_conf
loom_gen ft2 fattree --levels 2 --radix 8
loom_ibsim "$work/ft2.net"
conf() {
	loom_config 'telemetry:' '  interval_s: 1' 'isolation:' '  mode: on' \
		"  file: $work/isolated-links" '  errors: 0' '  ber_exp: 0' '  flaps: 0' \
		"  findings: [$1]" '  clean_for_s: 3600'
}
conf ber
loom_loomd "$work/loom.yaml"
loom_osm_plugin_bg
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"

has_event() { loom_ctl --json events --kind "$1" | grep -q "$2"; }
loom_tables
loom_lft_pick >"$work/c.txt" ||
	loom_fail "no spine-leaf cable"
read -r leaf port lid name spine sport slid sname n <"$work/c.txt"

# ---- 1. a listed finding isolates ------------------------------------------------------
loom_ctl counters --now >/dev/null
loom_ctl counters --now >/dev/null
loom_ibsim_cmd "PerformanceSet \"$name\"[$port] PortCounters.SymbolErrorCounter=500"
finding() { loom_ctl discover --wait >/dev/null && loom_ctl --json fabric issues | grep -q '"ber"'; }
loom_until 200 finding || { loom_ctl fabric issues; loom_fail "validation found no ber"; }
loom_until 200 has_event link_isolated "$leaf\[$port\]" ||
	{ loom_ctl --json events --kind link_isolation_refused; tail -n 20 "$work/loomd.log"
	  loom_fail "the ber finding did not isolate $name[$port]"; }
loom_ctl --json events --kind link_isolated | grep -q "rules finding: validation ber" ||
	{ loom_ctl --json events --kind link_isolated; loom_fail "the event does not say the finding"; }
loom_ctl --json link isolated | python3 -c '
import json, sys
links = json.load(sys.stdin)["links"]
assert [l["rules"] for l in links] == ["finding"], links' || loom_fail "not isolated for the finding alone"
no_route() { loom_tables && [ "$(loom_lft_uses "$leaf" "$port")" = 0 ]; }
loom_until 100 no_route || loom_fail "$name[$port] still carries routes"
loom_ok "validation's ber finding on $name[$port] isolated it; no LFT entry leaves by it"

# ---- 2. a code not listed isolates nothing ----------------------------------------------
conf mtu-mismatch
kill -HUP "$LOOMD_PID"
sleep 1
loom_ctl link restore "$name:$port" >/dev/null || loom_fail "link restore"
loom_ctl discover --wait >/dev/null
n=$(loom_ctl --json events --kind link_isolated | grep -o '"kind": *"link_isolated"' | wc -l)
sleep 3
loom_ctl discover --wait >/dev/null
sleep 2
m=$(loom_ctl --json events --kind link_isolated | grep -o '"kind": *"link_isolated"' | wc -l)
[ "$n" = "$m" ] || loom_fail "a ber finding isolated with findings [mtu-mismatch]"
loom_ctl --json link isolated | grep -q '"links": \[\]' || loom_fail "still isolated"
loom_ok "findings [mtu-mismatch]: the ber finding isolates nothing"

kill "$OSM_PID" 2>/dev/null || :
wait "$OSM_PID" 2>/dev/null || :
echo "isolation_findings.sh: all ok"
