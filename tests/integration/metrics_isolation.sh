#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The isolated set in /metrics (issue 42) on ibsim with OpenSM running
# loom's plugin: a spine-leaf cable
# isolated with `loomctl link isolate` is one loom_link_isolated series
# with both ends named as the links' series name them (kind link, state
# isolated, by the operator's principal, the rules "operator"), no
# probation series (an operator's isolation waits for `link restore`),
# and loom_isolation_set_version is `link isolated`'s version; once OpenSM
# rerouted, loom_isolation_applied_version (loomd's memory, through the
# module's metrics hook) is that version too; the text passes promtool
# check metrics; after `loomctl link restore` the series is gone and the
# version moved on, applied again. Then symbol errors raised with ibsim's
# PerformanceSet on another spine cable make loom isolate it by itself: by
# loom, rules errors, and a loom_isolation_probation_left_seconds series
# within isolation.clean_for_s.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_need promtool curl python3
loom_work

printf 'event_plugin_name loomosm\nrouting_engine loom\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	>"$work/opensm.conf"
LOOMOSM_ISOLATED=$work/isolated-links
export LOOMOSM_ISOLATED
loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
port=$(loom_free_port)
loom_config "$(loom_subnet_conf ft)" "http:" "  listen: 127.0.0.1:$port" \
	'telemetry:' '  interval_s: 1' "isolation:" "  mode: on" "  file: $work/isolated-links" \
	'  window_s: 600' '  errors: 50' '  clean_for_s: 600'
loom_loomd "$work/loom.yaml"
(loom_osm_plugin) &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "no SUBNET UP"
url=http://127.0.0.1:$port
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz on $url"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

scrape() { # scrape NAME: /metrics into $work/NAME.txt, promtool-clean
	curl -sf "$url/metrics" >"$work/$1.txt" || loom_fail "GET /metrics ($1)"
	promtool check metrics <"$work/$1.txt" >"$work/promtool.out" 2>&1 ||
		loom_fail "promtool check metrics ($1): $(head -n 20 "$work/promtool.out")"
}
version() { loom_ctl --json link isolated | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])'; }
# applied V: OpenSM routed with set version V, as /metrics says
applied() { curl -sf "$url/metrics" | grep -q "^loom_isolation_applied_version $1\$"; }

scrape m0
grep -q '^# TYPE loom_link_isolated gauge$' "$work/m0.txt" || loom_fail "no loom_link_isolated family"
! grep -q '^loom_link_isolated{' "$work/m0.txt" || loom_fail "a series isolated before any isolation"
v0=$(version)
grep -q "^loom_isolation_set_version $v0\$" "$work/m0.txt" ||
	loom_fail "loom_isolation_set_version is not link isolated's $v0: $(grep '^loom_isolation_set' "$work/m0.txt")"
loom_ok "nothing isolated: the family without series, set version $v0"

# leaf-1's port 5 faces a spine (fabgen: hosts first, then the uplinks).
peer=$(awk '/^Switch.*"leaf-1"/{on=1} on && /^\[5\]/{print; exit}' "$work/ft.net" |
	sed 's/^\[5\][^"]*"\([^"]*\)"\[\([0-9]*\)\].*/\1 \2/')
[ -n "$peer" ] || loom_fail "leaf-1 port 5 has no peer in the net file"
loom_ctl link isolate leaf-1:5 --reason "metrics test" >"$work/out.txt" 2>&1 ||
	loom_fail "link isolate: $(cat "$work/out.txt")"
by=$(loom_ctl --json link isolated | python3 -c 'import json,sys; print(json.load(sys.stdin)["links"][0]["by"])')
scrape m1
n=$(grep -c '^loom_link_isolated{' "$work/m1.txt" || :)
[ "$n" -eq 1 ] || loom_fail "$n loom_link_isolated series for one isolated cable"
line=$(grep '^loom_link_isolated{' "$work/m1.txt")
# Either end may be the lower one: both must be there, as a pair.
case "$line" in
*'node="leaf-1",remote_guid='*'remote_port="'"${peer#* }"'",remote_node="'"${peer% *}"'"'*) ;;
*'port="'"${peer#* }"'",node="'"${peer% *}"'",remote_guid='*'remote_port="5",remote_node="leaf-1"'*) ;;
*) loom_fail "not leaf-1[5] <-> $peer: $line" ;;
esac
echo "$line" | grep -q 'kind="link",state="isolated",by="'"$by"'",rules="operator"} 1$' ||
	loom_fail "kind, state, by ($by) or rules: $line"
# The lower end's labels are those of its link series.
ends=$(echo "$line" | sed 's/^loom_link_isolated{\(subnet="[^"]*",guid="[^"]*",port="[^"]*",node="[^"]*"\).*/\1/')
grep -q "^loom_port_state_id{$ends," "$work/m1.txt" || loom_fail "no link series labelled $ends"
! grep -q '^loom_isolation_probation_left_seconds{' "$work/m1.txt" ||
	loom_fail "a probation for an operator's isolation"
v1=$(version)
[ "$v1" -gt "$v0" ] || loom_fail "the set version did not move: $v0 -> $v1"
grep -q "^loom_isolation_set_version $v1\$" "$work/m1.txt" || loom_fail "loom_isolation_set_version is not $v1"
loom_until 300 applied "$v1" || { loom_ctl link isolated; loom_osm_fail "no loom_isolation_applied_version $v1"; }
loom_ok "isolated: $line; set version $v1, applied by OpenSM"

loom_ctl link restore leaf-1:5 >"$work/out.txt" 2>&1 || loom_fail "link restore: $(cat "$work/out.txt")"
scrape m2
! grep -q '^loom_link_isolated{' "$work/m2.txt" || loom_fail "still isolated in /metrics after the restore"
v2=$(version)
[ "$v2" -gt "$v1" ] && grep -q "^loom_isolation_set_version $v2\$" "$work/m2.txt" ||
	loom_fail "the set version after the restore: $v2, /metrics $(grep '^loom_isolation_set' "$work/m2.txt")"
loom_until 300 applied "$v2" || { loom_ctl link isolated; loom_osm_fail "no loom_isolation_applied_version $v2"; }
loom_ok "restored: no series, set version $v2, applied by OpenSM"

# loom's own isolation: errors on leaf-2[5] (a spine cable) beyond isolation.errors.
loom_ctl counters --now >/dev/null
loom_ctl counters --now >/dev/null
loom_ibsim_cmd 'PerformanceSet "leaf-2"[5] PortCounters.SymbolErrorCounter=200'
by_loom() { curl -sf "$url/metrics" | grep '^loom_link_isolated{' | grep 'by="loom"'; }
loom_until 300 by_loom >/dev/null || { loom_ctl link isolated; loom_fail "loom did not isolate leaf-2[5]"; }
scrape m3
line=$(grep '^loom_link_isolated{' "$work/m3.txt")
case "$line" in
*'node="leaf-2"'*'state="isolated",by="loom",rules="errors'*) ;;
*) loom_fail "loom's isolation in /metrics: $line" ;;
esac
left=$(grep '^loom_isolation_probation_left_seconds{' "$work/m3.txt") ||
	loom_fail "no probation series for loom's isolation"
[ "$(echo "$left" | wc -l)" -eq 1 ] || loom_fail "more than one probation series: $left"
echo "$left" | grep -q 'node="leaf-2"' || loom_fail "the probation series is not leaf-2's: $left"
python3 -c 'import sys; v = float(sys.argv[1]); sys.exit(0 if 0 < v <= 600 else 1)' \
	"${left##* }" || loom_fail "probation left not within (0, 600]: $left"
loom_ok "loom isolated it: $line; $left"
echo "metrics_isolation.sh: all ok"
