#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The REST API over TLS (issue 20) with a CA made here by openssl:
#  1. a client certificate whose CN is a "NAME ROLE cert" line of the
#     tokens file gets that role (reads yes, discover 403); a verified
#     certificate whose CN is not listed is 401; a bearer token is checked
#     before the certificate;
#  2. loomctl --server https://... --cacert CA prints what the socket
#     prints; without --cacert (the system's CAs) it fails naming the server.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl openssl python3
loom_work

pki=$work/pki
loom_pki "$pki" 127.0.0.1 monitor01 stranger

SEC_ADMIN=admin-secret-0123456789abcdef-0123
{
	printf '%s\n' "$SEC_ADMIN" | "$B/loomctl" token hash ops admin --stdin
	echo "monitor01 read cert"
} >"$work/tokens"
chmod 600 "$work/tokens"
printf '%s\n' "$SEC_ADMIN" >"$work/admin.token"

loom_ibsim "$S/tests/fabrics/tiny.net"
loom_opensm
port=$(loom_free_port)
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  tls:" \
	"    cert: $pki/srv.crt" "    key: $pki/srv.key" "    client_ca: $pki/ca.crt" \
	"    client_cert: optional"
loom_loomd "$work/loom.yaml"
url=https://127.0.0.1:$port/api/v1
loom_until 50 curl -sf --cacert "$pki/ca.crt" "https://127.0.0.1:$port/healthz" || loom_fail "no TLS listener"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

# ---- 1. certificates and roles -------------------------------------------------
code() { curl -s -o "$work/out" -w '%{http_code}' --max-time 20 --cacert "$pki/ca.crt" "$@" || :; }
c=$(code --cert "$pki/monitor01.crt" --key "$pki/monitor01.key" "$url/nodes")
[ "$c" = 200 ] || loom_fail "monitor01's certificate: GET nodes is $c: $(cat "$work/out")"
c=$(code --cert "$pki/monitor01.crt" --key "$pki/monitor01.key" -X POST "$url/discover")
[ "$c" = 403 ] && grep -q 'cert monitor01 (role read)' "$work/out" ||
	loom_fail "monitor01's certificate: POST discover is $c: $(cat "$work/out")"
c=$(code --cert "$pki/stranger.crt" --key "$pki/stranger.key" "$url/nodes")
[ "$c" = 401 ] || loom_fail "an unlisted CN: GET nodes is $c"
c=$(code "$url/nodes")
[ "$c" = 401 ] || loom_fail "no certificate, no token: $c"
c=$(code --cert "$pki/monitor01.crt" --key "$pki/monitor01.key" -H "Authorization: Bearer $SEC_ADMIN" \
	-X POST "$url/discover")
[ "$c" = 202 ] || loom_fail "the admin token with monitor01's certificate: POST discover is $c"
grep -q 'audit: "discover" refused to cert monitor01 (role read)' "$work/loomd.log" ||
	loom_fail "no audit line naming the certificate"
loom_ok "a listed certificate CN has its role (read: 200, discover 403); unlisted: 401; a token first"

# ---- 2. loomctl --server https --cacert --------------------------------------------
remote() { "$B/loomctl" --server "https://127.0.0.1:$port" --token-file "$work/admin.token" "$@"; }
for cmd in nodes "--json links" status; do
	# shellcheck disable=SC2086
	loom_ctl $cmd >"$work/local.out" 2>&1 || loom_fail "loomctl $cmd"
	# shellcheck disable=SC2086
	remote --cacert "$pki/ca.crt" $cmd >"$work/remote.out" 2>&1 ||
		loom_fail "--server https $cmd: $(cat "$work/remote.out")"
	[ "$cmd" = status ] || cmp -s "$work/local.out" "$work/remote.out" ||
		loom_fail "$cmd over https differs: $(diff "$work/local.out" "$work/remote.out" | head -n 5)"
done
remote nodes >"$work/noca.out" 2>&1 && loom_fail "--server https without the CA succeeded"
grep -q "^loomctl: https://127.0.0.1:$port: .*certificate" "$work/noca.out" ||
	loom_fail "without --cacert: $(cat "$work/noca.out")"
loom_ok "loomctl --server https --cacert prints what the socket prints; without the CA: a certificate error naming the server"
