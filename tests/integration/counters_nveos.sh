#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/counters_nveos.sh: `loomctl counters --eth` on a running
# loomd (daemon/telemetry/switch_counters.c, issue 19's RoCE counters) over
# the nvue and eos plugins, against tests/servers/nvue_server.py (NVUE's REST
# API: link stats, counters/qos, the PFC watchdog's status) and
# tests/servers/eos_server.py (eAPI: show interfaces, show
# priority-flow-control counters detail / watchdog, show qos interfaces ecn
# counters queue), with per-port values this test sets in the vendor's
# names (docs/nvue-counters-notes.md, docs/eos-counters-notes.md).
#
#  1. The first read gives each port's counters as the test wrote them,
#     under loom's names, "first" (no delta, no rate).
#  2. The test moves them: each delta is what it added, rates are the delta
#     over the interval.
#  3. A PFC pause storm: rx pause frames at more than pfc_pause_per_s on
#     one NVUE port, NVUE's watchdog holding another port's queue in a
#     deadlock, and the EOS watchdog's stuck count moving, each raise
#     pfc_storm once; `loomctl health` lists both and exits non-zero;
#     /metrics exports the switch series (promtool agrees, when installed).
#  4. A value that is no number (the NVUE port) is a stale port with the
#     reason naming the GET, the port and the member; its last counters
#     are kept (never zeros), the other ports read.
#  5. An EOS platform that refuses the ECN counters command: only ecn_marked
#     is missing. An NVUE switch of release 5.4 (qos/counters): read alike.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need python3
loom_need curl
NVUE=$B/plugins/nvue/.libs/nvue.so
EOS=$B/plugins/eos/.libs/eos.so
[ -e "$NVUE" ] && [ -e "$EOS" ] || loom_skip "the nvue and eos plugins are not built"
loom_work
mkdir "$work/plugins"
cp "$NVUE" "$EOS" "$work/plugins/"

# ---- the two fake switches ------------------------------------------------------
start_server() { # NAME SCRIPT ARGS...: $NAME_port
	srv=$1 script=$2
	shift 2
	python3 "$script" "$@" >"$work/$srv.out" 2>"$work/$srv.err" &
	LOOM_PIDS="$LOOM_PIDS $!"
	loom_until 100 grep -q '^PORT ' "$work/$srv.out" ||
		loom_fail "$srv did not start: $(cat "$work/$srv.err")"
	eval "${srv}_port=\$(sed -n 's/^PORT //p' \"\$work/\$srv.out\")"
}
start_server nv "$S/tests/servers/nvue_server.py" --user cumulus --password 'Nv-pass-1'
start_server eo "$S/tests/servers/eos_server.py" --user admin --password 'Eos-pass-1'
printf 'cumulus:Nv-pass-1\n' >"$work/nv.cred"
printf 'admin:Eos-pass-1\n' >"$work/eo.cred"
# nv_set JSON: counters of the NVUE switch (nvue_server.py POST /test/counters)
nv_set() {
	curl -sf -X POST -H 'Content-Type: application/json' -d "$1" \
		"http://127.0.0.1:$nv_port/test/counters" >/dev/null || loom_fail "nvue_server refused $1"
}
# eo_set JSON: counters of the EOS switch (eos_server.py POST /_test/counters)
eo_set() {
	curl -sf -X POST -H 'Content-Type: application/json' -d "$1" \
		"http://127.0.0.1:$eo_port/_test/counters" >/dev/null || loom_fail "eos_server refused $1"
}

nv_set '{"port": "swp1", "stats": {"in-bytes": 1000000000, "out-bytes": 2000000000, "in-errors": 4, "in-drops": 6}, "qos": {"pfc-stats": {"3": {"rx-pause-frames": 300, "tx-pause-frames": 30, "rx-pause-duration": 5000}}, "egress-queue-stats": {"3": {"tx-frames": 9000, "tx-uc-buffer-discards": 12, "ecn-marked-frames": 77}}}}'
nv_set '{"port": "swp2", "stats": {"in-bytes": 1111}, "pfcwd": {"3": {"status": "OK", "deadlock-count": 0}}}'
eo_set '{"port": "Ethernet1", "interfaceCounters": {"inOctets": 5000000000, "outOctets": 6000000000, "totalInErrors": 2}, "pfc": {"3": {"rxFrames": 400, "txFrames": 40}}, "watchdog": {"3": {"stuckCount": 1, "recoveryCount": 1}}, "ecn": {"3": 55}}'

http_port=$(loom_free_port)
loom_config "plugins:" "  dir: $work/plugins" "roce:" "  interval: 0" "switches:" \
	"  - {name: leaf-nv, plugin: nvue, address: \"http://127.0.0.1:$nv_port\", credentials: $work/nv.cred}" \
	"  - {name: leaf-eo, plugin: eos, address: \"http://127.0.0.1:$eo_port\", credentials: $work/eo.cred}"
printf 'http:\n  listen: ["127.0.0.1:%s"]\n' "$http_port" >>"$work/loom.yaml"
# No simulator: the sweeper finds no InfiniBand port; the switches are all.
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"

read_now() { # FILE: read now, the --json answer into FILE
	t0=$(date +%s%N)
	loom_ctl --json counters --eth --now >"$1" || loom_fail "counters --eth --now: $(cat "$1")"
	printf ' %s' $((($(date +%s%N) - t0) / 1000000)) >>"$work/times"
}
# check FILE PYTHON-EXPRESSION MESSAGE: p(SW, PORT) a port, s(SW) a switch,
# c(SW, PORT, NAME) a counter, dl(...) its delta, rt(...) its rate
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
def rt(sw, port, name):
    return p(sw, port)["rates"][name]
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# ---- 1. the first read -----------------------------------------------------------
read_now "$work/r1.json"
check "$work/r1.json" 's("leaf-nv")["answered"] and s("leaf-eo")["answered"]' \
	"a switch was not read"
check "$work/r1.json" 'c("leaf-nv","swp1","in_octets") == 1000000000 and c("leaf-nv","swp1","out_octets") == 2000000000 and c("leaf-nv","swp1","in_errors") == 4 and c("leaf-nv","swp1","in_discards") == 6 and c("leaf-nv","swp1","pfc_rx_pause.p3") == 300 and c("leaf-nv","swp1","pfc_tx_pause.p3") == 30 and "pfc_rx_pause_duration_us.p3" not in p("leaf-nv","swp1")["counters"] and c("leaf-nv","swp1","queue_packets.q3") == 9000 and c("leaf-nv","swp1","queue_drops.q3") == 12 and c("leaf-nv","swp1","ecn_marked.q3") == 77 and c("leaf-nv","swp2","in_octets") == 1111 and c("leaf-nv","swp2","pfcwd_storm_detected.q3") == 0 and p("leaf-nv","swp2")["gauges"]["pfcwd_stormed.q3"] == 0' \
	"the NVUE switch's counters are not what the test wrote"
check "$work/r1.json" 'c("leaf-eo","Ethernet1","in_octets") == 5000000000 and c("leaf-eo","Ethernet1","out_octets") == 6000000000 and c("leaf-eo","Ethernet1","in_errors") == 2 and c("leaf-eo","Ethernet1","pfc_rx_pause.p3") == 400 and c("leaf-eo","Ethernet1","pfc_tx_pause.p3") == 40 and c("leaf-eo","Ethernet1","pfcwd_storm_detected.q3") == 1 and c("leaf-eo","Ethernet1","pfcwd_storm_restored.q3") == 1 and c("leaf-eo","Ethernet1","ecn_marked.q3") == 55' \
	"the EOS switch's counters are not what the test wrote"
check "$work/r1.json" 'all(v["state"] == "first" for v in p("leaf-nv","swp1")["deltas"].values()) and p("leaf-nv","swp1")["rates"] == {} and p("leaf-eo","Ethernet1")["bits"]["in_octets"] == 64' \
	"a first read has deltas or rates"
check "$work/r1.json" '"pfcwd_storm_restored.q3" not in p("leaf-nv","swp2")["counters"] and "queue_drops.q3" not in p("leaf-eo","Ethernet1")["counters"] and "pfcwd_storm_detected.q3" not in p("leaf-eo","Ethernet2")["counters"] and not [x for x in d["ports"] if x["port"] in ("eth0", "Management1")]' \
	"a counter the switch does not have is reported"
loom_ok "first read: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(p["counters"]) for p in d["ports"]), "counters of", len(d["ports"]), "ports, NVUE and EOS")' "$work/r1.json")"

# ---- 2. deltas and rates -----------------------------------------------------------
sleep 1
nv_set '{"port": "swp1", "stats": {"in-bytes": 1600000000}, "qos": {"egress-queue-stats": {"3": {"ecn-marked-frames": 177, "tx-uc-buffer-discards": 15}}}}'
eo_set '{"port": "Ethernet1", "interfaceCounters": {"inOctets": 5000300000}, "pfc": {"3": {"txFrames": 47}}, "ecn": {"3": 65}}'
read_now "$work/r2.json"
check "$work/r2.json" 'dl("leaf-nv","swp1","in_octets") == {"state": "ok", "delta": 600000000} and dl("leaf-nv","swp1","ecn_marked.q3") == {"state": "ok", "delta": 100} and dl("leaf-nv","swp1","queue_drops.q3") == {"state": "ok", "delta": 3} and dl("leaf-nv","swp1","pfc_rx_pause.p3") == {"state": "ok", "delta": 0}' \
	"the NVUE deltas are not what the test added"
check "$work/r2.json" 'dl("leaf-eo","Ethernet1","in_octets") == {"state": "ok", "delta": 300000} and dl("leaf-eo","Ethernet1","pfc_tx_pause.p3") == {"state": "ok", "delta": 7} and dl("leaf-eo","Ethernet1","ecn_marked.q3") == {"state": "ok", "delta": 10}' \
	"the EOS deltas are not what the test added"
check "$work/r2.json" 'abs(rt("leaf-nv","swp1","in_octets") * p("leaf-nv","swp1")["interval_s"] - 600000000) < 1 and p("leaf-nv","swp1")["interval_s"] >= 1 and abs(rt("leaf-eo","Ethernet1","ecn_marked.q3") * p("leaf-eo","Ethernet1")["interval_s"] - 10) < 1e-6' \
	"a rate is not the delta over the interval"
loom_ok "deltas and rates as added: swp1 in_octets +600000000 at $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([round(x["rates"]["in_octets"]) for x in d["ports"] if x["port"] == "swp1"][0])' "$work/r2.json") B/s"

# ---- 3. storms -> pfc_storm, health, /metrics ----------------------------------------
sleep 1
# 300 -> 300300 rx pauses on priority 3 within a read or two: far above
# pfc_pause_per_s (10000 a second by default)
nv_set '{"port": "swp1", "qos": {"pfc-stats": {"3": {"rx-pause-frames": 300300}}}}'
# swp2: NVUE's watchdog holds queue 3 in a deadlock (deadlock-count 0 -> 1)
nv_set '{"port": "swp2", "pfcwd": {"3": {"status": "DEADLOCK", "deadlock-count": 1}}}'
eo_set '{"port": "Ethernet1", "watchdog": {"3": {"stuckCount": 3}}}'
read_now "$work/r3.json"
check "$work/r3.json" 'dl("leaf-nv","swp1","pfc_rx_pause.p3")["delta"] == 300000 and rt("leaf-nv","swp1","pfc_rx_pause.p3") > 10000 and dl("leaf-eo","Ethernet1","pfcwd_storm_detected.q3") == {"state": "ok", "delta": 2} and dl("leaf-nv","swp2","pfcwd_storm_detected.q3") == {"state": "ok", "delta": 1} and p("leaf-nv","swp2")["gauges"]["pfcwd_stormed.q3"] == 1' \
	"the storm's counters did not move as set"
loom_ctl --json events --limit 200 >"$work/ev.json" || loom_fail "events"
python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["events"] if isinstance(ev, dict) else ev
def n(kind, subject): return sum(1 for e in ev if e["kind"] == kind and e["subject"] == subject)
assert n("pfc_storm", "switch leaf-nv port swp1") == 1, "nv"
assert n("pfc_storm", "switch leaf-nv port swp2") == 1, "nv watchdog"
assert n("pfc_storm", "switch leaf-eo port Ethernet1") == 1, "eo"
assert n("pfc_storm", "switch leaf-nv port swp3") == 0
assert n("pfc_storm", "switch leaf-eo port Ethernet2") == 0' "$work/ev.json" ||
	loom_fail "pfc_storm is not raised once on each storming port: $(cat "$work/ev.json")"
if loom_ctl health >"$work/health.txt"; then loom_fail "health exits 0 with pfc_storm raised"; fi
grep -q '^pfc_storm  *leaf-nv:swp1 ' "$work/health.txt" &&
	grep -q '^pfc_storm  *leaf-nv:swp2 ' "$work/health.txt" &&
	grep -q '^pfc_storm  *leaf-eo:Ethernet1 ' "$work/health.txt" ||
	loom_fail "health does not list both storms: $(cat "$work/health.txt")"
curl -s --max-time 20 "http://127.0.0.1:$http_port/metrics" >"$work/metrics.txt" || loom_fail "no /metrics"
grep -q '^loom_switch_port_pfc_rx_pause_frames_total{switch="leaf-nv",port="swp1",priority="3"} 300300$' "$work/metrics.txt" &&
	grep -q '^loom_switch_queue_pfcwd_storms_detected_total{switch="leaf-eo",port="Ethernet1",queue="3"} 3$' "$work/metrics.txt" &&
	grep -q '^loom_switch_queue_ecn_marked_packets_total{switch="leaf-nv",port="swp1",queue="3"} 177$' "$work/metrics.txt" &&
	grep -q '^loom_switch_port_alarm{kind="pfc_storm",switch="leaf-eo",port="Ethernet1"} 1$' "$work/metrics.txt" &&
	grep -q '^loom_switch_queue_pfcwd_stormed{switch="leaf-nv",port="swp2",queue="3"} 1$' "$work/metrics.txt" ||
	loom_fail "/metrics lacks the switch series: $(grep loom_switch "$work/metrics.txt" | head -40)"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$work/metrics.txt" >"$work/promtool.txt" 2>&1 ||
		loom_fail "promtool check metrics: $(cat "$work/promtool.txt")"
fi
loom_ok "a pause storm (NVUE), a watchdog deadlock (NVUE) and watchdog detections (EOS) raised pfc_storm once each; health and /metrics show them"

# ---- 4. a value that is no number ------------------------------------------------------
nv_set '{"port": "swp2", "qos": {"egress-queue-stats": {"5": {"tx-frames": "12x"}}}}'
read_now "$work/r4.json"
check "$work/r4.json" 'not p("leaf-nv","swp2")["answered"] and p("leaf-nv","swp2")["stale"] and "GET interface/swp2/counters/qos: egress-queue-stats 5 tx-frames: \"12x\" is no counter" in p("leaf-nv","swp2")["reason"] and c("leaf-nv","swp2","in_octets") == 1111 and p("leaf-nv","swp2")["deltas"] == {}' \
	"a port with a value that is no number is not stale with its last counters"
check "$work/r4.json" 'p("leaf-nv","swp1")["answered"] and s("leaf-nv")["answered"] and s("leaf-nv")["port_errors"] == 1' \
	"the other NVUE ports are not read"
loom_ok "a value that is no number: $(python3 -c 'import json,sys; print([p["reason"] for p in json.load(open(sys.argv[1]))["ports"] if not p["answered"]][0])' "$work/r4.json")"
nv_set '{"port": "swp2", "qos": {"egress-queue-stats": {"5": {"tx-frames": 0}}}}'

# ---- 5. what a platform or release lacks ------------------------------------------------
eo_set '{"refuse": ["show qos interfaces ecn counters queue"]}'
nv_set '{"release": "5.4"}'
nv_set '{"port": "swp1", "qos": {"pfc-stats": {"3": {"tx-pause-frames": 33}}}}'
read_now "$work/r5.json"
check "$work/r5.json" 's("leaf-eo")["answered"] and "ecn_marked.q3" not in p("leaf-eo","Ethernet1")["counters"] and c("leaf-eo","Ethernet1","pfc_tx_pause.p3") == 47' \
	"an EOS platform refusing the ECN command is not read without ecn_marked"
check "$work/r5.json" 's("leaf-nv")["answered"] and c("leaf-nv","swp1","pfc_tx_pause.p3") == 33 and dl("leaf-nv","swp1","pfc_tx_pause.p3") == {"state": "ok", "delta": 3} and p("leaf-nv","swp2")["answered"]' \
	"an NVUE 5.4 switch (qos/counters) is not read alike"
loom_ok "EOS without ECN counters: the rest read; NVUE 5.4's qos/counters read alike"
loom_ok "each read of both switches (4 NVUE ports, 8 EOS ports), ms:$(cat "$work/times")"
echo "counters_nveos.sh: all ok"
