#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The PMA detail attributes (issue 42's inputs, lib/telemetry/pma_details.h)
# over ibsim: values set through ibsim's console in PortRcvErrorDetails,
# PortXmitDiscardDetails, PortVLXmitWaitCounters and
# PortVLXmitFlowCtlUpdateErrors are what `loomctl counters --now` shows in
# a port's "details", and what perfquery -E, -D, --vlxmitcounters and
# --vlxmitflowctlerrors read on that port; a second set shows as exact
# deltas; /metrics exports them (promtool check metrics passes); with
# telemetry.details_every 0 no detail Get is sent (the read's MADs fall by
# four a port) and the values stay as last read, "carried".
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need promtool curl python3
loom_work

loom_gen ft fattree --levels 2 --radix 4
loom_ibsim "$work/ft.net"
loom_opensm
port=$(loom_free_port)
# One try a MAD (discovery.retries 0, which the counters read uses too):
# the MADs of two reads are compared below, and they count every try.
loom_config "  timeout_ms: 1000" "  retries: 0" "$(loom_subnet_conf ft)" "http:" "  listen: 127.0.0.1:$port"
loom_loomd "$work/loom.yaml"
url=http://127.0.0.1:$port
loom_ctl discover --wait >/dev/null || loom_fail "discover"
links=$(sed -n 's/^# hosts=.* links=\([0-9]*\).*/\1/p' "$work/ft.net")

set_details() { # set_details DLID MTU VLWAIT3 FCERR15
	loom_ibsim_cmd "PerformanceSet \"leaf-1\"[2] PortRcvErrorDetails.PortDLIDMappingErrors=$1"
	loom_ibsim_cmd "PerformanceSet \"leaf-1\"[2] PortXmitDiscardDetails.PortNeighborMTUDiscards=$2"
	loom_ibsim_cmd "PerformanceSet \"leaf-1\"[2] PortVLXmitWaitCounters.PortVLXmitWaitCounters3=$3"
	loom_ibsim_cmd "PerformanceSet \"leaf-1\"[2] PortVLXmitFlowCtlUpdateErrors.PortVLXmitFlowCtlUpdateErrors15=$4"
}
# details NAME FIELD: the port's details[NAME][FIELD] in $work/p.json
details() {
	python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))["ports"][0]
print(p.get("details", {}).get(sys.argv[2], {}).get(sys.argv[3], "none"))' "$work/p.json" "$1" "$2"
}
perf() { # perf FLAG FIELD: perfquery's value of FIELD on leaf-1 port 2
	LD_PRELOAD=$PRELOAD perfquery $1 "$lid" 2 2>/dev/null | sed -n "s/^$2:\.*//p"
}

set_details 5 7 1234 1
loom_ctl counters --now >/dev/null || loom_fail "counters --now"
loom_ctl --json counters leaf-1:2 >"$work/p.json" || loom_fail "counters leaf-1:2"
lid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ports"][0]["lid"])' "$work/p.json")
for check in "-E PortDLIDMappingErrors PortDLIDMappingErrors 5" \
	"-D PortNeighborMTUDiscards PortNeighborMTUDiscards 7" \
	"--vlxmitcounters PortVLXmitWait3 PortVLXmitWait3 1234" \
	"--vlxmitflowctlerrors PortVLXmitFlowCtlUpdateErrors15 PortVLXmitFlowCtlUpdateErrors15 1"; do
	set -- $check
	want=$(perf "$1" "$2")
	got=$(details "$3" value)
	[ "$want" = "$4" ] || loom_fail "perfquery $1 reads $2 '$want', ibsim was set to $4"
	[ "$got" = "$want" ] || loom_fail "loomctl counters shows $3 '$got', perfquery $1 '$want': $(cat "$work/p.json")"
done
[ "$(details PortLoopingErrors value)" = 0 ] || loom_fail "PortLoopingErrors is not 0"
[ "$(details PortDLIDMappingErrors state)" = first ] || loom_fail "the first read's state is not first"
# Every cabled port has the four attributes: 6 + 4 + 16 + 16 counters.
n=$(python3 -c 'import json,sys; print(sum(len(p.get("details", {})) == 42 for p in json.load(sys.stdin)["ports"]))' <"$(loom_ctl --json counters >"$work/all.json"; echo "$work/all.json")")
[ "$n" -eq $((2 * links)) ] || loom_fail "$n ports of $((2 * links)) have the 42 detail counters"
mads_details=$(sqlite3 "$work/loom.db" "SELECT mads FROM counter_reads")
grep -q "PMA Gets in [0-9]* ms ($((8 * links)) of detail attributes)" "$work/loomd.log" ||
	loom_fail "the log does not count $((8 * links)) detail Gets: $(grep 'PMA Gets' "$work/loomd.log" | tail -n 1)"
loom_ok "the details loom read are perfquery's (-E, -D, --vlxmitcounters, --vlxmitflowctlerrors) on all $n ports"

set_details 12 9 1300 2
loom_ctl counters --now >/dev/null || loom_fail "second read"
loom_ctl --json counters leaf-1:2 >"$work/p.json" || loom_fail "counters leaf-1:2"
for d in "PortDLIDMappingErrors 7" "PortNeighborMTUDiscards 2" "PortVLXmitWait3 66" \
	"PortVLXmitFlowCtlUpdateErrors15 1"; do
	set -- $d
	[ "$(details "$1" delta)" = "$2" ] && [ "$(details "$1" state)" = ok ] ||
		loom_fail "$1: delta $(details "$1" delta) ($(details "$1" state)), not an exact $2"
done
loom_ctl --json ports leaf-1 | python3 -c 'import json,sys
ports = json.load(sys.stdin)
ports = ports.get("ports", ports) if isinstance(ports, dict) else ports
p = [p for p in ports if p.get("port") == 2][0]
sys.exit(0 if p["details"]["PortDLIDMappingErrors"]["value"] == 12 else 1)' ||
	loom_fail "the port panel (loomctl ports leaf-1) has no details of port 2"
# A 2-bit counter at 3 has stopped: saturated, a lower bound.
loom_ibsim_cmd 'PerformanceSet "leaf-1"[3] PortVLXmitFlowCtlUpdateErrors.PortVLXmitFlowCtlUpdateErrors0=3'
loom_ctl counters --now >/dev/null || loom_fail "third read"
loom_ctl --json counters leaf-1:3 >"$work/p.json" || loom_fail "counters leaf-1:3"
[ "$(details PortVLXmitFlowCtlUpdateErrors0 state)" = saturated ] ||
	loom_fail "a 2-bit counter at 3 is $(details PortVLXmitFlowCtlUpdateErrors0 state), not saturated"
loom_ok "a second set gives exact deltas (DLID mapping +7, VL3 XmitWait +66); a 2-bit counter at 3 is saturated; the port panel has them"

curl -sf "$url/metrics" >"$work/metrics.txt" || loom_fail "GET /metrics"
promtool check metrics <"$work/metrics.txt" >"$work/promtool.out" 2>&1 ||
	loom_fail "promtool check metrics: $(head -n 20 "$work/promtool.out")"
for m in 'loom_port_rcv_error_details_total{[^}]*port="2",node="leaf-1",kind="dlid_mapping"} 12' \
	'loom_port_xmit_discard_details_total{[^}]*port="2",node="leaf-1",kind="neighbor_mtu"} 9' \
	'loom_port_vl_xmit_wait_ticks_total{[^}]*port="2",node="leaf-1",vl="3"} 1300' \
	'loom_port_vl_xmit_flow_ctl_update_errors_total{[^}]*port="2",node="leaf-1",vl="15"} 2'; do
	grep -q "^$m\$" "$work/metrics.txt" || loom_fail "/metrics has no '$m'"
done
loom_ok "/metrics exports the four detail families (promtool check metrics passes)"

# details_every 0: no detail Gets; the values are carried, delta 0.
sed -i 's/^  interval_s: 0$/  interval_s: 0\n  details_every: 0/' "$work/loom.yaml"
grep -q '^  details_every: 0$' "$work/loom.yaml" || loom_fail "cannot set telemetry.details_every"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q "reload" "$work/loomd.log" || :
sleep 1
set_details 20 9 1300 2
loom_ctl counters --now >/dev/null || loom_fail "read without details"
mads_none=$(sqlite3 "$work/loom.db" "SELECT mads FROM counter_reads")
loom_ctl --json counters leaf-1:2 >"$work/p.json" || loom_fail "counters leaf-1:2"
[ "$(details PortDLIDMappingErrors value)" = 12 ] && [ "$(details PortDLIDMappingErrors state)" = carried ] ||
	loom_fail "with details_every 0 PortDLIDMappingErrors is $(details PortDLIDMappingErrors value) ($(details PortDLIDMappingErrors state)), not 12 carried"
[ "$mads_none" -le $((mads_details - 8 * links)) ] ||
	loom_fail "with details_every 0 the read sent $mads_none Gets, with details $mads_details: not $((8 * links)) fewer"
loom_ok "details_every 0: $mads_none Gets instead of $mads_details, the last values carried"
echo "counters_details.sh: all ok"
