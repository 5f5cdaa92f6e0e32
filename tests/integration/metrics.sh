#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# loomd's HTTP listener and /metrics (daemon/http/, issue 19) scraped by a
# real Prometheus: an error counter injected through ibsim's console, read
# by `loomctl counters --now`, is what perfquery reads on that port, what
# /metrics says (promtool check metrics passes on it) and what
# Prometheus' HTTP API answers for the series after scraping loomd. Also:
# a non-loopback listen address without TLS is refused by `loomd -n`; 404 and 405;
# clients that open more than max_connections connections and send
# nothing neither stop /metrics for longer than the timeout nor make loomd
# hold them; a huge header is refused and loomd's memory stays put; a
# reload moves the listener, and keeps it when the new address cannot be
# bound; a 0.3 s stop of loomd shows in loom_loop_lag_seconds. Only 127.0.0.1.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need prometheus promtool curl python3
loom_work

code() { # code ARGS...: the HTTP status curl gets
	curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$@" || :
}
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$LOOMD_PID/status"; }

# ---- a listener on anything but loopback needs TLS (http_tls.sh) ------------------
printf 'http:\n  listen: ["127.0.0.1:9477", "0.0.0.0:9478"]\n' >"$work/remote.yaml"
"$B/loomd" -n -c "$work/remote.yaml" >"$work/remote.out" 2>&1 &&
	loom_fail "loomd -n accepted listen 0.0.0.0 without TLS"
grep -q 'remote.yaml:2: http.listen: "0.0.0.0:9478" is not a loopback address.*http.tls.cert' \
	"$work/remote.out" || loom_fail "no clear error for 0.0.0.0: $(cat "$work/remote.out")"
printf '  allow_remote: true\n' >>"$work/remote.yaml"
"$B/loomd" -n -c "$work/remote.yaml" >"$work/remote.out" 2>&1 &&
	loom_fail "allow_remote: true opens 0.0.0.0 to plain HTTP"
printf 'http:\n  listen: ["127.0.0.1:9477", "[::1]:9478"]\n' >"$work/local.yaml"
"$B/loomd" -n -c "$work/local.yaml" >"$work/local.out" 2>&1 ||
	loom_fail "loopback addresses refused: $(cat "$work/local.out")"
# What -n prints is accepted back, and prints the same.
"$B/loomd" -n -c "$work/local.out" >"$work/local2.out" 2>&1 &&
	cmp -s "$work/local.out" "$work/local2.out" ||
	loom_fail "loomd -n's http section does not read back: $(cat "$work/local2.out")"
loom_ok "a non-loopback listen address is refused without TLS, allow_remote or not"

# ---- the fabric, loomd with /metrics --------------------------------------------
loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
port=$(loom_free_port)
loom_config "$(loom_subnet_conf ft)" "http:" "  listen: 127.0.0.1:$port" \
	"  max_connections: 4" "  timeout_s: 2" "  max_header_bytes: 4096"
loom_asan_no_quarantine   # loomd's RSS is measured below
loom_loomd "$work/loom.yaml"
url=http://127.0.0.1:$port
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz on $url"
[ "$(curl -s "$url/healthz")" = ok ] || loom_fail "/healthz does not say ok"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=77'
loom_ctl counters --now >/dev/null || loom_fail "counters --now"
lid=$(loom_ctl --json counters leaf-1:2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["lid"])')
want=$(LD_PRELOAD=$PRELOAD perfquery "$lid" 2 | sed -n 's/^SymbolErrorCounter:\.*//p')
[ "$want" = 77 ] || loom_fail "perfquery reads SymbolErrorCounter '$want' on leaf-1 port 2, not 77"

curl -sf -D "$work/metrics.hdr" "$url/metrics" >"$work/metrics.txt" || loom_fail "GET /metrics"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$work/metrics.hdr" ||
	loom_fail "/metrics is not text format 0.0.4: $(cat "$work/metrics.hdr")"
promtool check metrics <"$work/metrics.txt" >"$work/promtool.out" 2>&1 ||
	loom_fail "promtool check metrics: $(head -n 20 "$work/promtool.out")"
got=$(sed -n 's/^loom_port_symbol_errors_total{[^}]*port="2",node="leaf-1"} //p' "$work/metrics.txt")
[ "$got" = "$want" ] || loom_fail "/metrics says $got for leaf-1 port 2, perfquery $want"
links=$(sed -n 's/^# hosts=.* links=\([0-9]*\).*/\1/p' "$work/ft.net")
n=$(grep -c '^loom_port_counters_up{.*} 1$' "$work/metrics.txt" || :)
[ "$n" -eq $((2 * links)) ] || loom_fail "$n ports up in /metrics, $((2 * links)) cabled"
loom_ok "/metrics passes promtool and says $got for leaf-1 port 2, as perfquery ($n ports)"

[ "$(code "$url/nothing-here")" = 404 ] || loom_fail "an unknown path is not 404"
[ "$(code -X POST "$url/metrics")" = 405 ] || loom_fail "POST /metrics is not 405"
curl -s -D - -o /dev/null -X DELETE "$url/metrics" | grep -qi '^Allow: GET, HEAD' ||
	loom_fail "405 without Allow: GET, HEAD"
[ "$(code -I "$url/metrics")" = 200 ] || loom_fail "HEAD /metrics is not 200"
loom_ok "404 for an unknown path, 405 with Allow for another method, HEAD works"

# ---- a real Prometheus scrapes loomd ----------------------------------------------
pport=$(loom_free_port)
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: loom
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
promtool check config "$work/prometheus.yml" >/dev/null 2>&1 || loom_fail "promtool check config"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
PROM_PID=$!
LOOM_PIDS="$LOOM_PIDS $PROM_PID"
query() { # query PROMQL: the first sample's value, or nothing
	curl -s -G --max-time 5 "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null || :
}
prom_has() { [ "$(query "$1")" = "$2" ]; }
loom_until 600 prom_has 'loom_port_symbol_errors_total{node="leaf-1",port="2"}' "$want" || {
	tail -n 20 "$work/prometheus.log"
	loom_fail "Prometheus has no loom_port_symbol_errors_total $want for leaf-1 port 2: '$(query 'loom_port_symbol_errors_total{node="leaf-1",port="2"}')'"
}
prom_has 'up{job="loom"}' 1 || loom_fail "Prometheus' scrape of loomd is not up"
kill "$PROM_PID"
wait "$PROM_PID" 2>/dev/null || :
loom_ok "Prometheus scraped loomd: loom_port_symbol_errors_total{node=\"leaf-1\",port=\"2\"} = $want"

# ---- clients that connect and send nothing ----------------------------------------
# max_connections 4, timeout 2 s: 10 silent clients. /metrics answers at
# once: a new connection closes the oldest that sent no request (issue 37;
# before, it waited behind them for their timeouts); every silent one is
# closed by loomd.
python3 - "$port" 10 >"$work/silent.out" 2>&1 <<'EOP' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
print("connected", flush=True)
closed = 0
deadline = time.time() + 30
for s in socks:
    s.settimeout(max(0.1, deadline - time.time()))
    try:
        if s.recv(1) == b"":
            closed += 1
    except OSError:
        pass
print("closed by loomd: %d of %d" % (closed, n))
EOP
SILENT_PID=$!
loom_until 100 grep -q connected "$work/silent.out" || loom_fail "silent clients: $(cat "$work/silent.out")"
t0=$(date +%s)
[ "$(code "$url/metrics")" = 200 ] || loom_fail "/metrics did not answer behind silent clients"
t1=$(date +%s)
wait "$SILENT_PID" || :
grep -q 'closed by loomd: 10 of 10' "$work/silent.out" ||
	loom_fail "silent clients not closed: $(cat "$work/silent.out")"
grep -q 'connections open (http.max_connections): closing the oldest without a request under way' \
	"$work/loomd.log" || loom_fail "loomd did not close silent clients for new ones at max_connections"
[ $((t1 - t0)) -le 1 ] || loom_fail "/metrics waited $((t1 - t0)) s behind silent clients"
loom_ok "10 silent clients on max_connections 4: /metrics answered after $((t1 - t0)) s, all closed"

# ---- a huge header -----------------------------------------------------------------
rss0=$(rss_kb)
python3 - "$port" >"$work/huge.out" 2>&1 <<'EOP' || :
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10)
try:
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (32 << 20) + b"\r\n\r\n")
except OSError as e:
    print("send stopped: %s" % e)
try:
    print("status: %s" % s.recv(200).split(b"\r\n")[0].decode())
except OSError as e:
    print("recv: %s" % e)
EOP
rss1=$(rss_kb)
grep -Eq 'status: HTTP/1.1 (400|413|431)|send stopped|status: $' "$work/huge.out" ||
	loom_fail "a 32 MB header was not refused: $(cat "$work/huge.out")"
[ $((rss1 - rss0)) -lt 16384 ] || loom_fail "loomd grew from $rss0 to $rss1 kB on a 32 MB header"
[ "$(code "$url/metrics")" = 200 ] || loom_fail "/metrics does not answer after the huge header"
loom_ok "a 32 MB header is refused ($(tr '\n' ' ' <"$work/huge.out")); loomd RSS $rss0 -> $rss1 kB"

# ---- a port that stops answering; the errors mode after a reload ---------------------
loom_ibsim_cmd 'Error "host-0009" 100 18'
loom_ctl counters --now >/dev/null || loom_fail "counters --now with a silent port"
curl -sf "$url/metrics" >"$work/stale.txt" || loom_fail "GET /metrics with a silent port"
grep -q '^loom_port_counters_stale{.*node="host-0009",reason="no_answer"} 1$' "$work/stale.txt" ||
	loom_fail "host-0009 is not stale with reason no_answer: $(grep host-0009 "$work/stale.txt")"
grep -q '^loom_port_counters_up{.*node="host-0009"} 0$' "$work/stale.txt" || loom_fail "host-0009 is not up 0"
grep -q '^loom_port_symbol_errors_total{.*node="host-0009"}' "$work/stale.txt" &&
	loom_fail "a silent port's old counters are exported as if read now"
promtool check metrics <"$work/stale.txt" >/dev/null 2>&1 || loom_fail "promtool: stale port"
sed -i 's/^  max_header_bytes: 4096$/  max_header_bytes: 4096\n  metrics_ports: errors/' "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
errors_only() {
	curl -sf "$url/metrics" >"$work/errors.txt" &&
		[ "$(grep -c '^loom_port_counters_up{' "$work/errors.txt")" -eq 2 ]
}
loom_until 50 errors_only || loom_fail "metrics_ports: errors does not keep only the port with errors and the silent one: $(grep '^loom_port_counters_up' "$work/errors.txt")"
grep -q '^loom_port_symbol_errors_total{.*port="2",node="leaf-1"} 77$' "$work/errors.txt" ||
	loom_fail "errors mode lost leaf-1 port 2"
loom_ok "a silent port is up 0, stale no_answer, without counters; errors mode keeps 2 ports of $n"

# ---- reload: a new address is bound, an address in use keeps the old one --------
port2=$(loom_free_port)
sed -i "s/^  listen: 127.0.0.1:$port\$/  listen: 127.0.0.1:$port2/" "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
loom_until 50 curl -sf "http://127.0.0.1:$port2/healthz" || loom_fail "reload did not move to $port2"
[ "$(code "$url/healthz")" = 000 ] || loom_fail "the old port $port still answers after the move"
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("bound", flush=True); time.sleep(30)' \
	"$port" >"$work/hold.out" 2>&1 &
HOLD_PID=$!
LOOM_PIDS="$LOOM_PIDS $HOLD_PID"
loom_until 100 grep -q bound "$work/hold.out" || loom_fail "cannot hold port $port: $(cat "$work/hold.out")"
sed -i "s/^  listen: 127.0.0.1:$port2\$/  listen: 127.0.0.1:$port/" "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q "cannot listen on 127.0.0.1:$port.*listeners in force stay" "$work/loomd.log" ||
	loom_fail "a bind failure at reload is not logged with its address"
[ "$(code "http://127.0.0.1:$port2/healthz")" = 200 ] || loom_fail "the running listener was lost"
kill "$HOLD_PID" 2>/dev/null || :
loom_ok "reload moves the listener; an address in use keeps the running one"

# ---- the loop's stalls: loomd stopped 0.3 s runs its 25 ms timer that late ------
kill -STOP "$LOOMD_PID"; sleep 0.3; kill -CONT "$LOOMD_PID"
curl -sf "http://127.0.0.1:$port2/metrics" >"$work/lag.txt" || loom_fail "/metrics after the stall"
max=$(sed -n 's/^loom_loop_lag_max_seconds //p' "$work/lag.txt")
over=$(awk '/^loom_loop_lag_seconds_bucket\{le="0.25"\}/{le=$2} /^loom_loop_lag_seconds_count/{n=$2}
	END{print n - le}' "$work/lag.txt")
python3 -c 'import sys; sys.exit(not 0.2 <= float(sys.argv[1]) < 5)' "${max:-0}" && [ "$over" -ge 1 ] ||
	loom_fail "a 0.3 s stall: loom_loop_lag_max_seconds ${max:-none}, $over observations over 0.25 s"
loom_ok "a 0.3 s stall shows: loom_loop_lag_max_seconds $max"
echo "metrics.sh: all ok"
