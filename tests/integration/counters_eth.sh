#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/counters_eth.sh: `loomctl counters --eth` on a running
# loomd (daemon/telemetry/switch_counters.c, issue 19's RoCE counters) over
# the sonic plugin and real redis-servers whose COUNTERS_DB (db 2) holds
# what orchagent's flex counters write there, in SONiC's own keys and
# fields (docs/sonic-counters-notes.md).
#
#  1. The first read gives every port's counters as the test wrote them
#     (octets, PFC pauses per priority, ECN marks, drops and watchdog storms
#     per queue), each "first": no delta, no rate.
#  2. The test moves them: each delta is what it added, octet rates are the
#     delta over the interval; a counter lowered (a clear) is "reset", a
#     lower bound with no rate; the watchdog's stormed queue shows.
#  3. A port whose hash holds a value that is no number is stale with the
#     reason naming key and field, its last counters kept (never zeros);
#     the other port is read.
#  4. A switch whose Redis is gone, one without COUNTERS_DB maps, and one
#     behind an ABI-1 plugin (no counters op) are each "not read" with the
#     reason; the first one's ports keep their counters, stale.
#  5. --db answers the same without loomd; telemetry.interval_s reads the
#     switches on its own after a reload.
#  6. A switch that accepts the connection and never answers (a hung
#     Redis) is bounded by the plugin's timeout: the read ends, that switch
#     is "not read" with the reason, the others are read.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_need python3
loom_work
sonic_plugin_dir
abi1=0
if [ -e "$B/tests/unit/.libs/fake-abi1.so" ]; then
	cp "$B/tests/unit/.libs/fake-abi1.so" "$work/plugins/"
	abi1=1
fi

# COUNTERS_DB of one port, as orchagent names it: the port map entry, the
# port's hash, and its queues 0..7 (unicast) and 8 (multicast).
# counters_port SWITCH PORT N: port oid oid:0x100000000000N, queue q of it
# oid:0x15000000000N0q.
counters_port() {
	_p=oid:0x100000000000$3
	r "$1" -n 2 hset COUNTERS_PORT_NAME_MAP "$2" "$_p" >/dev/null
	for _q in 0 1 2 3 4 5 6 7 8; do
		_o=oid:0x15000000000${3}0$_q
		_t=SAI_QUEUE_TYPE_UNICAST
		[ "$_q" = 8 ] && _t=SAI_QUEUE_TYPE_MULTICAST
		r "$1" -n 2 hset COUNTERS_QUEUE_NAME_MAP "$2:$_q" "$_o" >/dev/null
		r "$1" -n 2 hset COUNTERS_QUEUE_TYPE_MAP "$_o" "$_t" >/dev/null
		r "$1" -n 2 hset "COUNTERS:$_o" SAI_QUEUE_STAT_PACKETS 1000 \
			SAI_QUEUE_STAT_DROPPED_PACKETS 10 >/dev/null
	done
}
# set_port SWITCH N FIELD VALUE ...: fields of port N's hash
set_port() { _s=$1 _n=$2; shift 2; r "$_s" -n 2 hset "COUNTERS:oid:0x100000000000$_n" "$@" >/dev/null; }
# set_queue SWITCH N Q FIELD VALUE ...
set_queue() { _s=$1 _n=$2 _q=$3; shift 3; r "$_s" -n 2 hset "COUNTERS:oid:0x15000000000${_n}0$_q" "$@" >/dev/null; }

sonic_start leaf1 00:11:22:33:44:51
for i in 1 2; do
	sonic_port leaf1 "Ethernet$((4 * (i - 1)))" "etp$i"
	counters_port leaf1 "Ethernet$((4 * (i - 1)))" "$i"
	set_port leaf1 "$i" SAI_PORT_STAT_IF_IN_OCTETS $((1000000000 * i)) \
		SAI_PORT_STAT_IF_OUT_OCTETS $((2000000000 * i)) SAI_PORT_STAT_IF_IN_ERRORS 50 \
		SAI_PORT_STAT_IF_OUT_ERRORS 0 SAI_PORT_STAT_IF_IN_DISCARDS 9 \
		SAI_PORT_STAT_IF_OUT_DISCARDS 0 \
		SAI_PORT_STAT_PFC_3_RX_PKTS 300 SAI_PORT_STAT_PFC_3_TX_PKTS 30 \
		SAI_PORT_STAT_PFC_4_RX_PKTS 400 SAI_PORT_STAT_PFC_4_TX_PKTS 40
	set_queue leaf1 "$i" 3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS 77 \
		PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED 1 PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED 1 \
		PFC_WD_STATUS operational PFC_WD_DETECTION_TIME 200000 PFC_WD_ACTION drop
done
# leaf2: a SONiC whose flex counters were never enabled (no maps at all)
sonic_start leaf2 00:11:22:33:44:52
sonic_port leaf2 Ethernet0 etp1

http_port=$(loom_free_port)
conf() { # TELEMETRY-INTERVAL [EXTRA SWITCH LINE]
	loom_config "telemetry:" "  interval_s: $1" "plugins:" "  dir: $work/plugins" \
		"roce:" "  interval: 0" "switches:" \
		"  - {name: leaf1, plugin: sonic, address: \"unix:$work/leaf1.sock\"}" \
		"  - {name: leaf2, plugin: sonic, address: \"unix:$work/leaf2.sock\"}" ${2:+"$2"}
	[ "$abi1" = 1 ] &&
		printf '  - {name: old1, plugin: fake-abi1, address: x}\n' >>"$work/loom.yaml"
	printf 'http:\n  listen: ["127.0.0.1:%s"]\n' "$http_port" >>"$work/loom.yaml"
}
conf 0
# No simulator: the sweeper finds no InfiniBand port; the switches are all.
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOM_PIDS="$LOOM_PIDS $!"
LOOMD_PID=$!
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"

read_now() { # FILE: read now, the --json answer into FILE
	loom_ctl --json counters --eth --now >"$1" || loom_fail "counters --eth --now: $(cat "$1")"
}
# check FILE PYTHON-EXPRESSION MESSAGE: p(SW, PORT) is a port, s(SW) a switch
check() {
	python3 - "$1" "$2" <<'EOF' || loom_fail "$3: $(cat "$1")"
import json, sys
d = json.load(open(sys.argv[1]))
def p(sw, port):
    return [x for x in d["ports"] if x["switch"] == sw and x["port"] == port][0]
def s(sw):
    return [x for x in d["switches"] if x["switch"] == sw][0]
def c(sw, port, name):
    return p(sw, port)["counters"][name]
def dl(sw, port, name):
    return p(sw, port)["deltas"][name]
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# ---- 1. the first read -----------------------------------------------------------
read_now "$work/r1.json"
check "$work/r1.json" 'c("leaf1","Ethernet0","in_octets") == 1000000000 and c("leaf1","Ethernet4","out_octets") == 4000000000 and c("leaf1","Ethernet4","pfc_rx_pause.p3") == 300 and c("leaf1","Ethernet0","pfc_tx_pause.p4") == 40 and c("leaf1","Ethernet0","ecn_marked.q3") == 77 and c("leaf1","Ethernet0","queue_drops.q7") == 10 and c("leaf1","Ethernet0","pfcwd_storm_detected.q3") == 1 and p("leaf1","Ethernet0")["gauges"]["pfcwd_stormed.q3"] == 0' \
	"the first read does not give the counters written"
check "$work/r1.json" 'all(v["state"] == "first" for v in p("leaf1","Ethernet0")["deltas"].values()) and p("leaf1","Ethernet0")["rates"] == {} and p("leaf1","Ethernet0")["interval_s"] is None and p("leaf1","Ethernet0")["bits"]["in_octets"] == 64' \
	"a first read has deltas or rates"
check "$work/r1.json" '"queue_drops.q8" not in p("leaf1","Ethernet0")["counters"] and "ecn_marked.q0" not in p("leaf1","Ethernet0")["counters"] and len(p("leaf1","Ethernet0")["counters"]) == 6 + 4 + 8 + 8 + 3' \
	"counters the switch does not have (multicast queue, ECN on queue 0) are reported"
check "$work/r1.json" 'not s("leaf2")["answered"] and "COUNTERS_DB (db 2) has no COUNTERS_PORT_NAME_MAP" in s("leaf2")["reason"] and not [x for x in d["ports"] if x["switch"] == "leaf2"]' \
	"leaf2 without COUNTERS_DB maps is not reported as not read"
if [ "$abi1" = 1 ]; then
	check "$work/r1.json" 'not s("old1")["answered"] and "plugin fake-abi1 (ABI 1) has no counters operation" in s("old1")["reason"]' \
		"the ABI-1 plugin's switch is not said to have no counters op"
	loom_ok "an ABI-1 plugin loads, its switch is not read: $(grep -o 'plugin fake-abi1 (ABI 1)[^"]*' "$work/r1.json" | head -1)"
fi
loom_ok "first read: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(p["counters"]) for p in d["ports"]))' "$work/r1.json") counters of 2 ports, all first"

# ---- 2. deltas, rates, a clear ---------------------------------------------------------
sleep 1
set_port leaf1 1 SAI_PORT_STAT_IF_IN_OCTETS 1500000000 SAI_PORT_STAT_PFC_3_RX_PKTS 420 \
	SAI_PORT_STAT_IF_IN_ERRORS 3
set_queue leaf1 1 3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS 107 SAI_QUEUE_STAT_DROPPED_PACKETS 14 \
	PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED 2 PFC_WD_STATUS stormed
read_now "$work/r2.json"
check "$work/r2.json" 'dl("leaf1","Ethernet0","in_octets") == {"state": "ok", "delta": 500000000} and dl("leaf1","Ethernet0","pfc_rx_pause.p3") == {"state": "ok", "delta": 120} and dl("leaf1","Ethernet0","ecn_marked.q3") == {"state": "ok", "delta": 30} and dl("leaf1","Ethernet0","queue_drops.q3") == {"state": "ok", "delta": 4} and dl("leaf1","Ethernet0","pfcwd_storm_detected.q3") == {"state": "ok", "delta": 1} and dl("leaf1","Ethernet0","pfc_rx_pause.p4") == {"state": "ok", "delta": 0}' \
	"the deltas are not what the test added"
check "$work/r2.json" 'abs(p("leaf1","Ethernet0")["rates"]["in_octets"] * p("leaf1","Ethernet0")["interval_s"] - 500000000) < 1 and p("leaf1","Ethernet0")["interval_s"] >= 1 and p("leaf1","Ethernet0")["rates"]["pfc_rx_pause.p4"] == 0' \
	"the octet rate is not the delta over the interval"
check "$work/r2.json" 'dl("leaf1","Ethernet0","in_errors") == {"state": "reset", "delta": 3} and "in_errors" not in p("leaf1","Ethernet0")["rates"] and all(v >= 0 for v in p("leaf1","Ethernet0")["rates"].values())' \
	"a cleared counter is not marked reset without a rate"
check "$work/r2.json" 'p("leaf1","Ethernet0")["gauges"]["pfcwd_stormed.q3"] == 1 and p("leaf1","Ethernet4")["gauges"]["pfcwd_stormed.q3"] == 0 and all(v["delta"] == 0 for v in p("leaf1","Ethernet4")["deltas"].values())' \
	"the stormed queue, or the port nobody touched, is wrong"
loom_ctl counters --eth leaf1 >"$work/r2.txt" || loom_fail "counters --eth leaf1: $(cat "$work/r2.txt")"
grep -q "^leaf1 *Ethernet0 *counters reset .*p3+120 .*q3+30 .*q3+4 .*q3+1 q3 stormed .*in_errors>=3" "$work/r2.txt" ||
	loom_fail "the table does not show what moved: $(cat "$work/r2.txt")"
grep -q "^switch: *leaf2 (sonic): not read at .*COUNTERS_PORT_NAME_MAP" "$work/r2.txt" &&
	loom_fail "counters --eth leaf1 shows leaf2: $(cat "$work/r2.txt")"
loom_ok "deltas and rates as written, a clear is a reset: $(grep '^leaf1 *Ethernet0' "$work/r2.txt" | tr -s ' ')"

# ---- 3. a port whose counter is no number --------------------------------------------
set_port leaf1 2 SAI_PORT_STAT_PFC_3_RX_PKTS 12x
read_now "$work/r3.json"
check "$work/r3.json" 'not p("leaf1","Ethernet4")["answered"] and p("leaf1","Ethernet4")["stale"] and "COUNTERS:oid:0x1000000000002 field SAI_PORT_STAT_PFC_3_RX_PKTS: \"12x\" is no number" in p("leaf1","Ethernet4")["reason"] and c("leaf1","Ethernet4","pfc_rx_pause.p3") == 300 and p("leaf1","Ethernet4")["deltas"] == {} and p("leaf1","Ethernet4")["rates"] == {}' \
	"a port with a value that is no number is not stale with its last counters"
check "$work/r3.json" 'p("leaf1","Ethernet0")["answered"] and s("leaf1")["answered"] and s("leaf1")["port_errors"] == 1 and s("leaf1")["ports"] == 1' \
	"the other port is not read"
loom_ok "a value that is no number: $(python3 -c 'import json,sys; print([p["reason"] for p in json.load(open(sys.argv[1]))["ports"] if not p["answered"]][0])' "$work/r3.json")"

# ---- 4. alarms: the watchdog's storm, the unreadable port -----------------------------
loom_ctl --json events --limit 200 >"$work/ev.json" || loom_fail "events"
python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["events"] if isinstance(ev, dict) else ev
def n(kind, subject): return sum(1 for e in ev if e["kind"] == kind and e["subject"] == subject)
storm = [e for e in ev if e["kind"] == "pfc_storm" and e["subject"] == "switch leaf1 port Ethernet0"]
assert len(storm) == 1 and "pfcwd_storm_detected.q3+1" in storm[0]["new"], storm
assert n("pfc_storm", "switch leaf1 port Ethernet4") == 0
assert n("counters_unreadable", "switch leaf1 port Ethernet4") == 1
assert n("link_errors", "switch leaf1 port Ethernet0") == 1' "$work/ev.json" ||
	loom_fail "the switch alarms are not raised once each: $(cat "$work/ev.json")"
if loom_ctl health >"$work/health.txt"; then loom_fail "health exits 0 with switch alarms raised"; fi
sed -n '/^ETHERNET SWITCH ALARMS/,/^$/p' "$work/health.txt" | grep -q '^pfc_storm  *leaf1:Ethernet0 .*pfcwd_storm' ||
	loom_fail "health does not list leaf1:Ethernet0's pfc_storm: $(cat "$work/health.txt")"
loom_ctl --json health | python3 -c '
import json, sys
t = json.load(sys.stdin)["pause_trees"]
assert "leaf1:Ethernet0" in t["unknown"] or any("leaf1:Ethernet0" in r["paused"] for r in t["roots"]), t' ||
	loom_fail "the paused port is not in health's pause trees"
loom_ok "the PFC watchdog's storm raised pfc_storm once, the port with no number counters_unreadable; health lists them"

# ---- 4b. /metrics: the switch counters and alarms, checked by promtool ----------------
curl -s --max-time 20 "http://127.0.0.1:$http_port/metrics" >"$work/metrics.txt" ||
	loom_fail "no /metrics"
grep -q '^loom_switch_queue_pfcwd_storms_detected_total{switch="leaf1",port="Ethernet0",queue="3"} 2$' "$work/metrics.txt" &&
grep -q '^loom_switch_port_pfc_rx_pause_frames_total{switch="leaf1",port="Ethernet0",priority="3"} 420$' "$work/metrics.txt" &&
grep -q '^loom_switch_port_alarm{kind="pfc_storm",switch="leaf1",port="Ethernet0"} 1$' "$work/metrics.txt" &&
grep -q '^loom_switch_port_counters_up{switch="leaf1",port="Ethernet4"} 0$' "$work/metrics.txt" ||
	loom_fail "/metrics lacks the switch series: $(grep loom_switch "$work/metrics.txt" | head -40)"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$work/metrics.txt" >"$work/promtool.txt" 2>&1 ||
		loom_fail "promtool check metrics: $(cat "$work/promtool.txt")"
fi
loom_ok "/metrics has the switch counters (per priority, per queue) and alarms; promtool agrees"

# ---- 5a. --db ------------------------------------------------------------------------
"$B/loomctl" --db "$work/loom.db" --json counters --eth >"$work/db.json" ||
	loom_fail "loomctl --db counters --eth: $(cat "$work/db.json")"
loom_ctl --json counters --eth >"$work/live.json"
cmp -s "$work/db.json" "$work/live.json" || loom_fail "--db and loomd differ: $(diff "$work/db.json" "$work/live.json")"
"$B/loomctl" --db "$work/loom.db" --json counters --eth leaf1:Ethernet4 >"$work/one.json"
check "$work/one.json" 'len(d["ports"]) == 1 and d["ports"][0]["port"] == "Ethernet4" and [x["switch"] for x in d["switches"]] == ["leaf1"]' \
	"SWITCH:PORT does not pick one port"
"$B/loomctl" --db "$work/loom.db" counters --eth leaf1:Ethernet99 >/dev/null 2>&1 &&
	loom_fail "an unknown port is not an error"
loom_ok "--db answers without loomd, SWITCH:PORT picks one port"

# ---- 4. a switch whose Redis is gone -------------------------------------------------
kill "$REDIS_leaf1"
wait "$REDIS_leaf1" 2>/dev/null || :
read_now "$work/r4.json"
check "$work/r4.json" 'not s("leaf1")["answered"] and s("leaf1")["reason"] and all(not p("leaf1",x)["answered"] and p("leaf1",x)["stale"] and p("leaf1",x)["reason"] == s("leaf1")["reason"] for x in ("Ethernet0","Ethernet4")) and c("leaf1","Ethernet0","in_octets") == 1500000000' \
	"a switch whose Redis is gone does not leave its ports stale with their counters"
grep -q "switch leaf1: counters not read: " "$work/loomd.log" || loom_fail "loomd did not log leaf1's failure"
loom_ok "a switch gone: $(python3 -c 'import json,sys; print([s["reason"] for s in json.load(open(sys.argv[1]))["switches"] if s["switch"] == "leaf1"][0])' "$work/r4.json")"

# ---- 5b. on the interval ------------------------------------------------------------
before=$(loom_ctl --json counters --eth leaf2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["switches"][0]["finished"])')
conf 1
kill -HUP "$LOOMD_PID"
newer() { [ "$(loom_ctl --json counters --eth leaf2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["switches"][0]["finished"])')" != "$before" ]; }
loom_until 150 newer || loom_fail "no switch counters read on telemetry.interval_s 1 after a reload"
loom_ok "reads the switches on telemetry.interval_s after a reload"

# ---- 6. a switch that hangs ------------------------------------------------------------
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(16)
held = []
while True:
    held.append(s.accept()[0])
' "$work/hung.sock" &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 50 test -S "$work/hung.sock" || loom_fail "the hung server did not start"
conf 0 "  - {name: hung, plugin: sonic, address: \"unix:$work/hung.sock\"}"
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "grep -c 'configuration reloaded' '$work/loomd.log' | grep -q '^2$'" ||
	loom_fail "no second reload"
before=$(loom_ctl --json counters --eth leaf2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["switches"][0]["finished"])')
sleep 1
t0=$(date +%s)
read_now "$work/r6.json"
t=$(($(date +%s) - t0))
check "$work/r6.json" 'not s("hung")["answered"] and s("hung")["reason"] and s("leaf2")["finished"] != "'"$before"'"' \
	"the hung switch is not 'not read' with a reason, or leaf2 was not read again"
[ "$t" -lt 60 ] || loom_fail "a read with a hung switch took $t s"
loom_ok "a hung switch ends the read in $t s: $(python3 -c 'import json,sys; print([s["reason"] for s in json.load(open(sys.argv[1]))["switches"] if s["switch"] == "hung"][0])' "$work/r6.json")"
echo "counters_eth.sh: all ok"
