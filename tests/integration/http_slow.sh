#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Slow clients cannot shut loomd's HTTP API out (issue 37): while 1000
# connections that send a byte every 3 s (plain HTTP), or stall in the TLS
# handshake (half of a ClientHello, or nothing), come from one address
# (127.0.0.2) and then from 100 (127.0.0.2..101), a legitimate client on
# 127.0.0.1 polls GET /api/v1/status, a new connection each time, and
# every poll must be answered within 1 s; then the same 1000 from 100
# addresses against a table of 256 slots (max_connections: 256), where new
# connections close the oldest ones that sent no request. Then TLS: static
# RSA and CBC-SHA1 suites refused, ECDHE-GCM taken, Strict-Transport-Security
# on TLS answers (not on plain ones). Uses only keys loomd had before issue
# 37, so that the same test run against an older loomd
# (top_builddir=/path/to/old/build) shows the attack working. Only loopback
# addresses, in the test's own network namespace; every client is bounded
# in time (http_slow.py). LOOM_SLOW_SECONDS: the attack's length (default 12);
# LOOM_SLOW_ONLY: the names of the scenarios to run (default: all).
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl openssl python3
loom_work
secs=${LOOM_SLOW_SECONDS:-12}
client() { python3 "$S/tests/integration/http_slow.py" "$@"; }

loom_pki "$work/pki" 127.0.0.1
loom_tokens "$work/tokens" "ops:read:s3cret-token-for-the-legitimate-poller-0123456789"
port=$(loom_free_port)
slow_conf() { # slow_conf tls|plain [YAML LINES...]
	_tls=$1; shift
	loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "$@"
	[ "$_tls" = plain ] || printf '  tls:\n    cert: %s\n    key: %s\n' \
		"$work/pki/srv.crt" "$work/pki/srv.key" >>"$work/loom.yaml"
}
start() { # start tls|plain [YAML LINES...]: a loomd of its own (no fabric)
	[ -z "${LOOMD_PID:-}" ] || { kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :; }
	rm -f "$work/loomd.sock"
	slow_conf "$@"
	"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
	LOOMD_PID=$!
	LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
	loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
	if [ "$1" = plain ]; then url=http://127.0.0.1:$port ca=-
	else url=https://127.0.0.1:$port ca=$work/pki/ca.crt; fi
	loom_until 50 curl -sf --cacert "$work/pki/ca.crt" "$url/healthz" || loom_fail "no /healthz on $url"
}

# scenario NAME CONNS ADDRS: the attack, and the poller once it is under way
scenario() {
	_n=$1
	case " ${LOOM_SLOW_ONLY:-$_n} " in *" $_n "*) ;; *) return 0 ;; esac
	client attack "$port" "$ca" "$2" "$3" "$secs" >"$work/$_n.attack" 2>&1 &
	_apid=$!
	LOOM_PIDS="$LOOM_PIDS $_apid"
	# Under way: the attackers have opened what loomd lets them keep.
	sleep 3
	client poll "$port" "$ca" s3cret-token-for-the-legitimate-poller-0123456789 "$((secs - 4))" 0.25 \
		"$work/$_n.polls" >"$work/$_n.poll" 2>&1 || :
	wait "$_apid" || :
	res=$(cat "$work/$_n.poll")
	echo "$_n: $(grep '^attack:' "$work/$_n.attack" || tail -n 3 "$work/$_n.attack")"
	echo "$_n: $res"
	grep -q '^poll: ' "$work/$_n.poll" || loom_fail "$_n: the poller failed: $res"
	# shellcheck disable=SC2086
	set -- $res
	# poll: N answered A p50 X p99 Y max Z hsts H
	[ "$2" -gt 0 ] && [ "$4" = "$2" ] ||
		loom_fail "$_n: $4 of $2 polls answered (200) under the attack: $res"
	awk -v m="${10}" 'BEGIN { exit !(m < 1.0) }' ||
		loom_fail "$_n: a poll took ${10} s (more than 1 s) under the attack: $res"
	kill -0 "$LOOMD_PID" || loom_fail "$_n: loomd died"
	loom_ok "$_n: $2 polls, all answered, p50 $6 s, p99 $8 s, max ${10} s"
}

start plain
scenario plain-1addr 1000 1
scenario plain-100addr 1000 100
start plain "  max_connections: 256"
scenario plain-256slots 1000 100
start tls
scenario tls-1addr 1000 1
scenario tls-100addr 1000 100
start tls "  max_connections: 256"
scenario tls-256slots 1000 100

# ---- TLS: forward secrecy only, HSTS -----------------------------------------------------
for c in AES128-SHA AES256-GCM-SHA384 ECDHE-RSA-AES128-SHA; do
	echo | openssl s_client -connect "127.0.0.1:$port" -tls1_2 -cipher "$c" \
		-CAfile "$work/pki/ca.crt" >"$work/$c.out" 2>&1 &&
		loom_fail "loomd took the TLS 1.2 suite $c: $(grep -i cipher "$work/$c.out" | head -n 3)"
	grep -q 'Cipher is (NONE)\|handshake failure\|no cipher' "$work/$c.out" ||
		loom_fail "$c was not refused by the handshake: $(tail -n 5 "$work/$c.out")"
done
echo | openssl s_client -connect "127.0.0.1:$port" -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256 \
	-CAfile "$work/pki/ca.crt" >"$work/gcm.out" 2>&1 || :
grep -q 'Cipher is ECDHE-RSA-AES128-GCM-SHA256' "$work/gcm.out" ||
	loom_fail "ECDHE-RSA-AES128-GCM-SHA256 refused: $(tail -n 5 "$work/gcm.out")"
curl -s -D "$work/hsts.h" -o /dev/null --cacert "$work/pki/ca.crt" "$url/healthz"
grep -qi '^Strict-Transport-Security: max-age=31536000' "$work/hsts.h" ||
	loom_fail "no HSTS on a TLS answer: $(cat "$work/hsts.h")"
loom_ok "TLS 1.2: AES128-SHA, AES256-GCM-SHA384 (static RSA), ECDHE-RSA-AES128-SHA (CBC-SHA1) refused, ECDHE-RSA-AES128-GCM-SHA256 taken; HSTS on TLS answers"
start plain
curl -s -D "$work/plain.h" -o /dev/null "$url/healthz"
grep -qi '^Strict-Transport-Security' "$work/plain.h" && loom_fail "HSTS on a plain HTTP answer"
loom_ok "no HSTS over plain HTTP"
echo "http_slow.sh: all ok"
