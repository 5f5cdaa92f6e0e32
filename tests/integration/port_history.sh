#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# port-history (issue 41): a port's last reads for the port panel's chart.
# Without http.prometheus_url, from loomd's memory: the injected
# SymbolErrorCounter shows as its delta on the read that saw it, rates on
# the others, at most telemetry.history_reads reads (the oldest go), and
# telemetry.history_mib bounds them in all (a port past it is not kept,
# and counted). With http.prometheus_url, from a real Prometheus scraping
# loomd (query_range over the loom_port_* series): the same delta; an
# unreachable Prometheus is an error naming it. By name or GUID, over the
# socket and GET /api/v1/ports/{node}/history?port=.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need prometheus promtool curl python3
loom_work

SEC=history-reader-0123456789abcdef-01
loom_tokens "$work/tokens" "reader:read:$SEC"
loom_gen ft fattree --levels 2 --radix 12
loom_ibsim "$work/ft.net"
loom_opensm
port=$(loom_free_port)
pport=$(loom_free_port)
conf() { # conf PROMETHEUS_URL HISTORY_READS HISTORY_MIB
	loom_config "$(loom_subnet_conf ft)" "telemetry:" "  interval_s: 0" \
		"  history_reads: $2" "  history_mib: $3" \
		"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" \
		"  prometheus_url: \"$1\""
}
read_now() { loom_ctl counters --now >/dev/null || loom_fail "counters --now ($1)"; }

conf "" 3 128
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
read_now first
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=7'
read_now errors
loom_ctl --json port-history leaf-1 2 >"$work/h1.json" || loom_fail "port-history leaf-1 2"
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
assert h["source"] == "memory" and h["name"] == "leaf-1" and h["port"] == 2, h
s = h["samples"]
assert len(s) == 2, s
assert s[0]["rx_bytes_s"] is None and s[0]["errors"] == {}, s[0]
assert s[1]["errors"] == {"SymbolErrorCounter": 7}, s[1]
assert s[1]["rx_bytes_s"] >= 0 and s[1]["xmit_wait_per_s"] is not None, s[1]' "$work/h1.json" ||
	loom_fail "the memory history of leaf-1:2 is not [first, +7]: $(cat "$work/h1.json")"
read_now calm1
read_now calm2
guid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["guid"])' "$work/h1.json")
loom_ctl --json port-history "$guid" 2 | python3 -c '
import json, sys
s = json.load(sys.stdin)["samples"]
assert len(s) == 3 and s[0]["errors"] == {"SymbolErrorCounter": 7}, s
assert s[1]["errors"] == {} and s[2]["errors"] == {}, s' ||
	loom_fail "history_reads 3 does not keep the last 3 reads, oldest first"
loom_ctl port-history leaf-1 2 | grep -q 'SymbolErrorCounter+7' || loom_fail "the table lacks +7"
url=http://127.0.0.1:$port
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz"
curl -sf -H "Authorization: Bearer $SEC" "$url/api/v1/ports/leaf-1/history?port=2" |
	grep -q '"SymbolErrorCounter": *7' || loom_fail "GET /api/v1/ports/leaf-1/history?port=2"
loom_ctl port-history leaf-1 99 2>&1 | grep -q 'no port 99' || loom_fail "port 99 not refused"
loom_ok "from memory: the delta on the read that saw it, the last history_reads reads, REST too"

# 1 MiB holds 170 ports of 255 reads (32 + 255 x 24 bytes each): fewer than the 288
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
conf "" 255 1
loom_loomd "$work/loom.yaml"
read_now capped
loom_ctl --json port-history leaf-1 2 | python3 -c '
import json, sys
k = json.load(sys.stdin)["kept"]
assert k["cap_bytes"] == 1 << 20 and k["bytes"] <= k["cap_bytes"], k
assert k["refused"] > 0 and 0 < k["ports"] < 288, k' ||
	loom_fail "history_mib 1 does not bound the history"
grep -q "ports' reads not kept in memory: telemetry.history_mib is full" "$work/loomd.log" ||
	loom_fail "no warning when the history is full"
loom_ok "telemetry.history_mib bounds it: ports past the cap are refused and counted"

# ---- from Prometheus --------------------------------------------------------------
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
conf "http://127.0.0.1:$pport" 60 128
loom_loomd "$work/loom.yaml"
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz"
loom_ctl port-history leaf-1 2 >"$work/noprom.txt" 2>&1 && loom_fail "an absent Prometheus answered"
grep -q "Prometheus at http://127.0.0.1:$pport" "$work/noprom.txt" ||
	loom_fail "the error does not name Prometheus: $(cat "$work/noprom.txt")"
cat >"$work/prometheus.yml" <<EOP
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: loom
    static_configs:
      - targets: ['127.0.0.1:$port']
EOP
promtool check config "$work/prometheus.yml" >/dev/null 2>&1 || loom_fail "promtool check config"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
LOOM_PIDS="$LOOM_PIDS $!"
read_now "before"
sym() { curl -s -G --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
	--data-urlencode 'query=loom_port_symbol_errors_total{node="leaf-1",port="2"}' |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null; }
sym_is() { [ "$(sym)" = "$1" ]; }
loom_until 300 sym_is 7 || loom_fail "Prometheus never scraped 7 ($(sym))"
sleep 3
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=12'
read_now "more errors"
loom_until 300 sym_is 12 || loom_fail "Prometheus never scraped 12 ($(sym))"
sleep 3
loom_ctl --json port-history --since 2m leaf-1 2 >"$work/p.json" || loom_fail "port-history from Prometheus: $(cat "$work/p.json")"
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
assert h["source"] == "prometheus", h
s = h["samples"]
assert len(s) >= 2, s
moved = [x["errors"].get("SymbolErrorCounter") for x in s if x["errors"]]
assert moved == [5], moved
assert any(x["rx_bytes_s"] is not None for x in s), s' "$work/p.json" ||
	loom_fail "Prometheus' history of leaf-1:2 does not show +5 once: $(head -c 1500 "$work/p.json")"
loom_ok "from Prometheus (query_range): the counter's +5 once, rates on the points"
