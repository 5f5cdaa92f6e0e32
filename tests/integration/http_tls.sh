#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# TLS on loomd's HTTP listener (daemon/http/tls.c, issue 20), with a test
# CA made by openssl here: curl gets /healthz and /metrics over TLS; plain
# HTTP to the TLS port fails and loomd serves on; TLS 1.1 is refused;
# client certificates (none, from another CA, expired, good) in the
# optional and the required mode; `loomd -n` refuses a non-loopback
# address without TLS and a bad key or certificate by its name; a reload
# with a bad key keeps the running certificate; a reload rotates it for
# new connections while an open keep-alive connection goes on; the
# per-peer cap closes the extra connection from 127.0.0.1 while 127.0.0.2
# is served; a client sending a byte a second is closed by
# http.header_timeout_s; one that never reads a large /metrics answer is
# closed by http.timeout_s. Only 127.0.0.1 and 127.0.0.2, in the test's
# own network namespace.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl openssl python3 ss
loom_work
client() { python3 "$S/tests/integration/tls_client.py" "$@"; }

# ---- a test PKI -------------------------------------------------------------------
pki=$work/pki
loom_pki "$pki" 127.0.0.1 alice
loom_pki_ca "$pki" otherca
loom_pki_cert "$pki" srv2 ca srv 127.0.0.1
loom_pki_cert "$pki" mallory otherca cli mallory
ossl() { _loom_ossl "$pki" "$@"; }
# Expired: signed by the right CA, valid for one day in 2020.
ossl req -newkey rsa:2048 -nodes -keyout "$pki/old.key" -out "$pki/old.csr" -subj /CN=old
ossl ca -batch -config "$pki/ext.cnf" -cert "$pki/ca.crt" -keyfile "$pki/ca.key" \
	-in "$pki/old.csr" -out "$pki/old.crt" -startdate 20200101000000Z \
	-enddate 20200102000000Z -extfile "$pki/ext.cnf" -extensions cli -notext
cp "$pki/srv.crt" "$work/loomd.crt"
cp "$pki/srv.key" "$work/loomd.key"
chmod 600 "$work/loomd.key"
fpr() { openssl x509 -noout -fingerprint -sha256 -in "$1" | sed 's/.*=//; s/://g' | tr 'A-F' 'a-f'; }
loom_ok "a test CA, a second CA, two server certificates, good, foreign and expired client ones"

# ---- the config check ----------------------------------------------------------------
check() { # check NAME YAML-LINES...: loomd -n on them; its output in $work/NAME.out
	_n=$1; shift
	printf '%s\n' "$@" >"$work/$_n.yaml"
	"$B/loomd" -n -c "$work/$_n.yaml" >"$work/$_n.out" 2>&1
}
check plain 'http:' '  listen: ["127.0.0.1:9477", "0.0.0.0:9478"]' '  allow_remote: true' &&
	loom_fail "loomd -n accepted 0.0.0.0 without TLS"
grep -q 'plain.yaml:2: http.listen: "0.0.0.0:9478" is not a loopback address.*http.tls.cert' \
	"$work/plain.out" || loom_fail "no clear error for 0.0.0.0 without TLS: $(cat "$work/plain.out")"
check tls 'http:' '  listen: ["127.0.0.1:9477", "0.0.0.0:9478"]' '  tls:' \
	"    cert: $work/loomd.crt" "    key: $work/loomd.key" ||
	loom_fail "loomd -n refused 0.0.0.0 with TLS: $(cat "$work/tls.out")"
"$B/loomd" -n -c "$work/tls.out" >"$work/tls2.out" 2>&1 && cmp -s "$work/tls.out" "$work/tls2.out" ||
	loom_fail "loomd -n's http.tls does not read back: $(cat "$work/tls2.out")"
check nokey 'http:' '  listen: 127.0.0.1:9477' '  tls:' "    cert: $work/loomd.crt" \
	"    key: $work/missing.key" && loom_fail "loomd -n accepted a missing key"
grep -q "http.tls.key: cannot read $work/missing.key: No such file" "$work/nokey.out" ||
	loom_fail "a missing key is not named: $(cat "$work/nokey.out")"
check mismatch 'http:' '  listen: 127.0.0.1:9477' '  tls:' "    cert: $work/loomd.crt" \
	"    key: $pki/srv2.key" && loom_fail "loomd -n accepted a key of another certificate"
grep -q "http.tls.key: $pki/srv2.key does not match the certificate $work/loomd.crt" \
	"$work/mismatch.out" || loom_fail "a mismatched key is not named: $(cat "$work/mismatch.out")"
check notcert 'http:' '  listen: 127.0.0.1:9477' '  tls:' "    cert: $work/plain.yaml" \
	"    key: $work/loomd.key" && loom_fail "loomd -n accepted a YAML file as a certificate"
grep -q "http.tls.cert: $work/plain.yaml is no PEM certificate" "$work/notcert.out" ||
	loom_fail "a file that is no certificate is not named: $(cat "$work/notcert.out")"
check required 'http:' '  listen: 127.0.0.1:9477' '  tls:' "    cert: $work/loomd.crt" \
	"    key: $work/loomd.key" '    client_cert: required' &&
	loom_fail "loomd -n accepted client_cert: required without client_ca"
grep -q 'http.tls.client_cert: required needs http.tls.client_ca' "$work/required.out" ||
	loom_fail "required without client_ca: $(cat "$work/required.out")"
loom_ok "loomd -n: 0.0.0.0 needs TLS; a missing, mismatched or non-PEM file is refused by name"

# ---- loomd over TLS on a fabric ----------------------------------------------------------
# Socket send buffers of at most 64 kB in this namespace, so that an answer
# of /metrics (200+ kB) a client does not read stays partly in loomd,
# where its write timeout has to deal with it (by default the kernel would
# take all of it, up to 4 MB).
sysctl -qw net.ipv4.tcp_wmem="4096 16384 65536" || loom_skip "cannot bound tcp_wmem in the test's namespace"
loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
port=19443
tls_conf() { # tls_conf CLIENT_CERT_MODE [HEADER_TIMEOUT [TIMEOUT]]
	loom_config "$(loom_subnet_conf ft)" "http:" "  listen: 127.0.0.1:$port" \
		"  max_connections: 64" "  max_connections_per_peer: 4" "  timeout_s: ${3:-3}" \
		"  header_timeout_s: ${2:-8}" "  tls:" "    cert: $work/loomd.crt" \
		"    key: $work/loomd.key" "    client_ca: $pki/ca.crt" "    client_cert: $1"
}
tls_conf optional
loom_asan_no_quarantine   # loomd's RSS is measured below
chmod 640 "$work/loomd.key"
loom_loomd "$work/loom.yaml"
url=https://127.0.0.1:$port
reload_ok() { # SIGHUP, and wait for loomd to say it reloaded
	_n=$(grep -c 'configuration reloaded' "$work/loomd.log" || :)
	kill -HUP "$LOOMD_PID"
	loom_until 100 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $_n ]" ||
		loom_fail "the reload is not logged"
}
get() { # get PATH CURL-ARGS...: the HTTP status (000: no answer)
	_p=$1; shift
	curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$pki/ca.crt" "$@" \
		"$url$_p" || :
}
loom_until 50 curl -sf --cacert "$pki/ca.crt" "$url/healthz" || loom_fail "no /healthz on $url"
chmod 600 "$work/loomd.key"
[ "$(curl -s --cacert "$pki/ca.crt" "$url/healthz")" = ok ] || loom_fail "/healthz does not say ok"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl counters --now >/dev/null || loom_fail "counters --now"
curl -sf --cacert "$pki/ca.crt" "$url/metrics" >"$work/metrics.txt" || loom_fail "GET /metrics over TLS"
grep -q '^loom_port_counters_up{' "$work/metrics.txt" || loom_fail "/metrics over TLS has no ports"
grep -q "http.tls.key: $work/loomd.key can be read by others than its owner (mode 0640)" "$work/loomd.log" ||
	loom_fail "a group-readable key is not warned about"
loom_ok "curl --cacert gets /healthz and /metrics ($(wc -c <"$work/metrics.txt") bytes) over TLS"

[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/healthz" || :)" = 000 ] ||
	loom_fail "plain HTTP on the TLS port got an answer"
[ "$(get /healthz)" = 200 ] || loom_fail "loomd does not serve after a plain HTTP client"
kill -0 "$LOOMD_PID" || loom_fail "loomd died of a plain HTTP client"
# The client allows anything (SECLEVEL 0): the refusal is loomd's.
for v in tls1 tls1_1; do
	echo | openssl s_client -connect "127.0.0.1:$port" -"$v" -cipher 'DEFAULT:@SECLEVEL=0' \
		-CAfile "$pki/ca.crt" >"$work/$v.out" 2>&1 && loom_fail "loomd took $v: $(tail -n 5 "$work/$v.out")"
	grep -Eqi 'protocol version|no protocols available|unsupported protocol' "$work/$v.out" ||
		loom_fail "$v was not refused for its version: $(tail -n 5 "$work/$v.out")"
done
# (The exit code says nothing: loomd may close first on the request "\n".)
echo | openssl s_client -connect "127.0.0.1:$port" -tls1_2 -CAfile "$pki/ca.crt" \
	>"$work/tls1_2.out" 2>&1 || :
grep -q 'Protocol *: TLSv1.2' "$work/tls1_2.out" && grep -q 'Verify return code: 0 (ok)' "$work/tls1_2.out" ||
	loom_fail "TLS 1.2 refused or not verified: $(tail -n 5 "$work/tls1_2.out")"
loom_ok "plain HTTP on the TLS port gets no answer and loomd serves on; TLS 1.0/1.1 refused, 1.2 taken"

# Nagle's algorithm and the client's delayed ACK cost 40 ms an answer that
# goes out in two TLS records: loomd's sockets have TCP_NODELAY.
ms=$(client latency "$port" "$pki/ca.crt" 50) || loom_fail "latency client: $ms"
[ "$(echo "$ms" | sed 's/\..*//')" -lt 20 ] || loom_fail "GET /healthz over TLS keep-alive takes $ms"
loom_ok "GET /healthz over one TLS connection: $ms"

# ---- client certificates: optional ------------------------------------------------------
cert() { echo --cert "$pki/$1.crt" --key "$pki/$1.key"; }
# shellcheck disable=SC2046
{
[ "$(get /healthz)" = 200 ] || loom_fail "optional: no certificate is not served"
[ "$(get /healthz $(cert alice))" = 200 ] || loom_fail "optional: a good certificate is not served"
[ "$(get /healthz $(cert mallory))" = 000 ] || loom_fail "optional: a certificate of another CA is served"
[ "$(get /healthz $(cert old))" = 000 ] || loom_fail "optional: an expired certificate is served"
}
loom_ok "client_cert optional: none and good served; another CA's and an expired one refused"

# ---- a reload with a bad key keeps the running certificate ---------------------------------
fp0=$(client fingerprint "$port" "$pki/ca.crt") || loom_fail "no fingerprint"
[ "$fp0" = "$(fpr "$pki/srv.crt")" ] || loom_fail "loomd does not serve srv.crt"
sed -i "s|^    key: $work/loomd.key\$|    key: $work/gone.key|" "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q "http.tls.key: cannot read $work/gone.key" "$work/loomd.log" ||
	loom_fail "a reload with a missing key is not refused naming it"
[ "$(get /healthz)" = 200 ] || loom_fail "no TLS after a refused reload"
[ "$(client fingerprint "$port" "$pki/ca.crt")" = "$fp0" ] || loom_fail "the certificate changed on a refused reload"
loom_ok "a reload with a missing key is refused naming the file; the running certificate serves on"

# ---- client certificates: required, by reload ----------------------------------------------
tls_conf required
reload_ok
loom_until 50 sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert '$pki/ca.crt' '$url/healthz')\" = 000 ]" ||
	loom_fail "required: no certificate is still served after the reload"
# shellcheck disable=SC2046
{
[ "$(get /healthz $(cert alice))" = 200 ] || loom_fail "required: a good certificate is not served"
[ "$(get /healthz $(cert mallory))" = 000 ] || loom_fail "required: a certificate of another CA is served"
[ "$(get /healthz $(cert old))" = 000 ] || loom_fail "required: an expired certificate is served"
}
loom_ok "client_cert required (by reload): none, another CA's and expired refused; good served"
tls_conf optional
reload_ok
loom_until 50 sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert '$pki/ca.crt' '$url/healthz')\" = 200 ]" ||
	loom_fail "optional again: not served without a certificate"

# ---- rotation by reload ----------------------------------------------------------------------
# Time enough for the keep-alive connection to wait through the reload.
tls_conf optional 30 30
reload_ok
client keepalive "$port" "$pki/ca.crt" "$work/go" >"$work/keepalive.out" 2>&1 &
KA_PID=$!
loom_until 100 grep -q '^first: 200 ok' "$work/keepalive.out" ||
	loom_fail "keep-alive client: $(cat "$work/keepalive.out")"
cp "$pki/srv2.crt" "$work/loomd.crt.new" && mv "$work/loomd.crt.new" "$work/loomd.crt"
cp "$pki/srv2.key" "$work/loomd.key.new" && chmod 600 "$work/loomd.key.new" &&
	mv "$work/loomd.key.new" "$work/loomd.key"
kill -HUP "$LOOMD_PID"
fp2=$(fpr "$pki/srv2.crt")
new_cert() { [ "$(client fingerprint "$port" "$pki/ca.crt")" = "$fp2" ]; }
loom_until 50 new_cert || loom_fail "new connections do not get the new certificate after the reload"
touch "$work/go"
wait "$KA_PID" || :
grep -q "^second: 200 ok fp=$fp0" "$work/keepalive.out" ||
	loom_fail "the keep-alive connection did not survive the rotation: $(cat "$work/keepalive.out")"
loom_ok "reload rotates the certificate for new connections; an open keep-alive one goes on with the old"

# ---- connections per peer ------------------------------------------------------------------
client cap "$port" "$pki/ca.crt" 4 >"$work/cap.out" 2>&1 || loom_fail "cap client: $(cat "$work/cap.out")"
grep -q 'idle connection' "$work/cap.out" && loom_fail "an idle connection under the cap was closed: $(cat "$work/cap.out")"
grep -q '^extra from 127.0.0.1: closed' "$work/cap.out" ||
	loom_fail "the 5th connection from 127.0.0.1 was not closed: $(cat "$work/cap.out")"
grep -q '^from 127.0.0.2: 200 ok' "$work/cap.out" ||
	loom_fail "127.0.0.2 was not served beside a full 127.0.0.1: $(cat "$work/cap.out")"
grep -q 'http: 127.0.0.1 has 4 connections open (http.max_connections_per_peer)' "$work/loomd.log" ||
	loom_fail "the refused peer is not logged"
loom_ok "max_connections_per_peer 4: the 5th from 127.0.0.1 is closed, 127.0.0.2 is served, logged"

# ---- slowloris, and a client that does not read -----------------------------------------------
tls_conf optional 3
reload_ok
open_conns() { ss -Htn state established "( sport = :$port )" | wc -l; }
loom_until 100 sh -c "[ \$(ss -Htn state established '( sport = :$port )' | wc -l) -eq 0 ]" ||
	loom_fail "connections left open before the slow client: $(open_conns)"
client slowloris "$port" "$pki/ca.crt" >"$work/slow.out" 2>&1 || loom_fail "slow client: $(cat "$work/slow.out")"
t=$(sed -n 's/^closed after \([0-9]*\)\..*/\1/p' "$work/slow.out")
[ -n "$t" ] && [ "$t" -ge 2 ] && [ "$t" -le 6 ] ||
	loom_fail "a byte a second was not closed by header_timeout_s 3: $(cat "$work/slow.out")"
loom_until 50 sh -c "[ \$(ss -Htn state established '( sport = :$port )' | wc -l) -eq 0 ]" ||
	loom_fail "loomd holds $(open_conns) connections after the slow client"
loom_ok "a client sending a byte a second is closed by header_timeout_s 3 ($(cat "$work/slow.out")), none left open"

# The answer cannot all be handed to the kernel (tcp_wmem above, Send-Q
# below): loomd is still writing it when the write timeout (timeout_s 3)
# closes the connection (header_timeout_s 30 cannot). Meanwhile the client
# sends as much as loomd reads: a request's worth, not hundreds of MB.
tls_conf optional 30
reload_ok
size=$(wc -c <"$work/metrics.txt")
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$LOOMD_PID/status"; }
rss0=$(rss_kb)
client noread "$port" "$pki/ca.crt" 40 >"$work/noread.out" 2>&1 &
NR_PID=$!
LOOM_PIDS="$LOOM_PIDS $NR_PID"
loom_until 100 grep -q 'sent the request' "$work/noread.out" || loom_fail "no-read client: $(cat "$work/noread.out")"
t0=$(date +%s)
sleep 1
[ "$(open_conns)" -eq 1 ] || loom_fail "the no-read client's connection is not open ($(open_conns))"
# Send-Q: what loomd's socket holds unsent, the client's window being full.
q=$(ss -Htn state established "( sport = :$port )" | awk '{ print $2 }')
[ "${q:-0}" -gt 0 ] || loom_fail "the answer did not fill the socket buffers (Send-Q ${q:-none})"
loom_until 200 sh -c "[ \$(ss -Htn state established '( sport = :$port )' | wc -l) -eq 0 ]" ||
	loom_fail "a client that does not read is not closed in 20 s (timeout_s 3)"
t1=$(date +%s)
rss1=$(rss_kb)
loom_until 100 grep -q 'bytes more' "$work/noread.out" || loom_fail "no-read client: $(cat "$work/noread.out")"
more=$(sed -n 's/^then \([0-9]*\) bytes more/\1/p' "$work/noread.out")
[ -n "$more" ] && [ "$more" -lt 16777216 ] ||
	loom_fail "loomd read ${more:-?} bytes from a client it could not answer: $(cat "$work/noread.out")"
[ $((rss1 - rss0)) -lt 16384 ] || loom_fail "loomd grew from $rss0 to $rss1 kB on a client that does not read"
kill -0 "$NR_PID" 2>/dev/null || loom_fail "the no-read client ended by itself: $(cat "$work/noread.out")"
kill "$NR_PID" 2>/dev/null || :
[ $((t1 - t0)) -le 12 ] || loom_fail "the no-read client was closed after $((t1 - t0)) s: not by timeout_s 3"
[ "$(get /healthz)" = 200 ] || loom_fail "loomd does not serve after the no-read client"
loom_ok "a client that never reads /metrics ($size bytes, Send-Q $q) and sends $more bytes more is closed after $((t1 - t0)) s (timeout_s 3); loomd RSS $rss0 -> $rss1 kB"
echo "http_tls.sh: all ok"
