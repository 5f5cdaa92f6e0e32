#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# /metrics' link and fabric families on ibsim, scraped by a real Prometheus
# that loads the shipped rules (issue 39): every cabled port has its link
# state, physical state, width, speed and rate with both ends as labels;
# after a cable cut in ibsim (Unlink) and the next sweep, the same series
# of both ends read Down (loom_port_state_id 1) and the shipped LoomLinkDown
# alert fires in Prometheus for it; /metrics is served gzip-compressed to a
# scraper that accepts it and passes promtool check metrics both ways;
# /readyz says ready once swept; and every panel of the shipped Grafana
# dashboard evaluates through Prometheus' HTTP API, with data where this
# fabric has some (routing runs and HA are not part of it).
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need prometheus promtool curl python3 gzip
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
port=$(loom_free_port)
loom_config "$(loom_subnet_conf ft)" "http:" "  listen: 127.0.0.1:$port"
loom_loomd "$work/loom.yaml"
url=http://127.0.0.1:$port
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz on $url"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_until 50 curl -sf "$url/readyz" || loom_fail "/readyz is not ready after a sweep: $(curl -s "$url/readyz")"
loom_ctl counters --now >/dev/null || loom_fail "counters --now"
loom_ok "/readyz: $(curl -s "$url/readyz")"

# ---- the link families, plain and gzip --------------------------------------------
curl -sf "$url/metrics" >"$work/m0.txt" || loom_fail "GET /metrics"
curl -sf -H 'Accept-Encoding: gzip' -D "$work/gz.hdr" "$url/metrics" >"$work/m0.gz" ||
	loom_fail "GET /metrics with gzip"
grep -qi '^Content-Encoding: gzip' "$work/gz.hdr" || loom_fail "no gzip for Accept-Encoding: gzip"
gzip -dc "$work/m0.gz" >"$work/m0z.txt" || loom_fail "the gzip body does not inflate"
for f in m0 m0z; do
	promtool check metrics <"$work/$f.txt" >"$work/promtool.out" 2>&1 ||
		loom_fail "promtool check metrics ($f): $(head -n 20 "$work/promtool.out")"
done
# Same families and series both ways (values of loomd's own may move).
cut -d' ' -f1 "$work/m0.txt" | grep -v '^#' | sort >"$work/s0"
cut -d' ' -f1 "$work/m0z.txt" | grep -v '^#' | sort >"$work/s0z"
cmp -s "$work/s0" "$work/s0z" || loom_fail "gzip and plain /metrics hold other series"
loom_ok "/metrics plain $(wc -c <"$work/m0.txt") bytes, gzip $(wc -c <"$work/m0.gz"); promtool clean both"

links=$(sed -n 's/^# hosts=.* links=\([0-9]*\).*/\1/p' "$work/ft.net")
n=$(grep -c '^loom_port_state_id{.*} 4$' "$work/m0.txt" || :)
[ "$n" -eq $((2 * links)) ] || loom_fail "$n ports Active in /metrics, $((2 * links)) cabled"
for f in loom_port_physical_state_id loom_port_link_width_lanes loom_port_rate_bytes_per_second \
	loom_port_link_lane_speed_bytes_per_second; do
	[ "$(grep -c "^$f{" "$work/m0.txt")" -eq $((2 * links)) ] || loom_fail "$f: not one series per cabled port"
done
line=$(grep '^loom_port_state_id{[^}]*port="5",node="leaf-1",' "$work/m0.txt") ||
	loom_fail "no link state for leaf-1 port 5"
# Its peer as ibsim's net file has it.
peer=$(awk '/^Switch.*"leaf-1"/{on=1} on && /^\[5\]/{print; exit}' "$work/ft.net" |
	sed 's/^\[5\][^"]*"\([^"]*\)"\[\([0-9]*\)\].*/\1 \2/')
echo "$line" | grep -q "remote_port=\"${peer#* }\",remote_node=\"${peer% *}\"" ||
	loom_fail "leaf-1 port 5's peer is $peer in the net file; /metrics: $line"
grep -q '^loom_fabric_nodes{subnet="ft",type="switch"} 12$' "$work/m0.txt" || loom_fail "loom_fabric_nodes"
grep -q "^loom_fabric_links{subnet=\"ft\"} $links\$" "$work/m0.txt" || loom_fail "loom_fabric_links"
grep -q '^loom_sweep_success{subnet="ft"} 1$' "$work/m0.txt" || loom_fail "loom_sweep_success"
# issue 44: the walk's SMPs summed over the recorded sweeps; ibsim loses none
grep -q '^loom_sweep_smps_total{subnet="ft"} [1-9][0-9]*$' "$work/m0.txt" ||
	loom_fail "loom_sweep_smps_total: $(grep '^loom_sweep_smp' "$work/m0.txt")"
grep -q '^loom_sweep_smp_retries_total{subnet="ft"} 0$' "$work/m0.txt" &&
	grep -q '^loom_sweep_smps_lost_total{subnet="ft"} 0$' "$work/m0.txt" ||
	loom_fail "retries or losses without a lost SMP: $(grep '^loom_sweep_smp' "$work/m0.txt")"
grep -q '^loom_build_info{version=' "$work/m0.txt" || loom_fail "no loom_build_info"
grep -q '^process_open_fds [1-9]' "$work/m0.txt" || loom_fail "no process_open_fds"
loom_ok "every cabled port's link: $n Active; leaf-1 port 5 faces $peer"

# ---- a real Prometheus with the shipped rules --------------------------------------
pport=$(loom_free_port)
cat >"$work/prometheus.yml" <<EOF2
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $S/etc/prometheus/loom-rules.yml
scrape_configs:
  - job_name: loom
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF2
promtool check config "$work/prometheus.yml" >/dev/null 2>&1 || loom_fail "promtool check config"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
PROM_PID=$!
LOOM_PIDS="$LOOM_PIDS $PROM_PID"
prom=http://127.0.0.1:$pport
query() { # query PROMQL: the first sample's value, or nothing
	curl -s -G --max-time 5 "$prom/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null || :
}
prom_has() { [ "$(query "$1")" = "$2" ]; }
sel='node="leaf-1",port="5"'
loom_until 600 prom_has "loom_port_state_id{$sel}" 4 || {
	tail -n 20 "$work/prometheus.log"
	loom_fail "Prometheus has no loom_port_state_id 4 for leaf-1 port 5"
}
firing() { # firing ALERT SELECTOR: the alert is firing for a series
	curl -s "$prom/api/v1/alerts" | python3 -c 'import json, sys
want = dict(kv.split("=", 1) for kv in sys.argv[2].replace("\"", "").split(","))
for a in json.load(sys.stdin)["data"]["alerts"]:
    if a["labels"].get("alertname") == sys.argv[1] and a["state"] == "firing" and \
       all(a["labels"].get(k) == v for k, v in want.items()):
        sys.exit(0)
sys.exit(1)' "$1" "$2"
}
firing LoomLinkDown "$sel" && loom_fail "LoomLinkDown fires before the cut"

# ---- the cut -----------------------------------------------------------------------
loom_ibsim_cmd 'Unlink "leaf-1"[5]'
loom_ctl discover --wait >/dev/null || loom_fail "discover after the cut"
curl -sf "$url/metrics" >"$work/m1.txt" || loom_fail "GET /metrics after the cut"
cut1=$(echo "$line" | sed 's/ 4$/ 1/')
grep -qxF "$cut1" "$work/m1.txt" ||
	loom_fail "the cut cable's series is not Down: $(grep 'port="5",node="leaf-1"' "$work/m1.txt" | grep state_id)"
grep -q "^loom_port_state_id{[^}]*port=\"${peer#* }\",node=\"${peer% *}\",remote_guid=\"[^\"]*\",remote_port=\"5\",remote_node=\"leaf-1\"} 1\$" \
	"$work/m1.txt" || loom_fail "the far end ($peer) is not Down facing leaf-1 port 5"
grep -q "^loom_port_rate_bytes_per_second{[^}]*port=\"5\",node=\"leaf-1\"," "$work/m1.txt" &&
	loom_fail "a Down port still has a rate"
promtool check metrics <"$work/m1.txt" >/dev/null 2>&1 || loom_fail "promtool check metrics after the cut"
loom_ok "after the cut and one sweep: $cut1"

loom_until 600 firing LoomLinkDown "$sel" || {
	curl -s "$prom/api/v1/alerts" | head -c 2000
	loom_fail "LoomLinkDown does not fire in Prometheus for leaf-1 port 5"
}
loom_ok "Prometheus fires the shipped LoomLinkDown for leaf-1 port 5"

# ---- every dashboard panel through Prometheus' HTTP API ----------------------------
# The drill-down on leaf-1 port 2 (up: the cut port has no counters).
# Rates need two samples in their window: give the scrapes a few seconds.
loom_until 600 prom_has 'count(loom:port_errors:rate5m{node="leaf-1",port="2"}) > 0' 1 ||
	loom_fail "the recording rules produce nothing: $(query 'count(loom:port_errors:rate5m)')"
python3 "$S/tests/integration/grafana_panels.py" "$S/etc/grafana/loom-fabric.json" "$prom" \
	subnet=ft node=leaf-1 port=2 datasource=prom \
	--may-be-empty "Routing: last run succeeded" --may-be-empty "Routing: unreachable pairs" \
	--may-be-empty "Routing: worst shift load" \
	--may-be-empty "Routing: effective bisection bandwidth" --may-be-empty "HA role" \
	>"$work/panels.out" 2>&1 || loom_fail "dashboard panels: $(grep FAIL "$work/panels.out")"
loom_ok "every dashboard panel evaluates ($(grep -c '^ok' "$work/panels.out") panels)"
echo "metrics_fabric.sh: all ok"
