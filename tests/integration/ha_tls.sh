#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# HA on etcd over TLS (issue 21): one etcd member that speaks only https and
# asks for a client certificate (--client-cert-auth), certificates from
# loom_pki. No fabric.
#
#  1. loomd with ha.tls {ca, cert, key}: it is elected leader (etcd ok).
#  2. A loomd whose ha.tls.ca is another CA: no leader, and `loomctl
#     status` names the endpoint and the reason (the certificate).
#  3. A loomd with the right CA and no client certificate: refused by etcd,
#     no leader, the reason in status.
set -eu
. "$(dirname "$0")/lib.sh"
command -v etcd >/dev/null 2>&1 || loom_skip "etcd is not installed (etcd-server)"
loom_need python3
loom_work
P=$work/pki
loom_pki "$P" 127.0.0.1 node-a
loom_pki_ca "$P" other
# etcd 3.4's JSON gateway calls etcd's own gRPC port with the server's
# certificate: with --client-cert-auth that certificate must allow client
# authentication too, or every gateway request fails (HTTP 503).
printf '[both]\nsubjectAltName = IP:127.0.0.1, DNS:localhost\nbasicConstraints = CA:FALSE\nextendedKeyUsage = serverAuth, clientAuth\n' >>"$P/ext.cnf"
loom_pki_cert "$P" etcd ca both 127.0.0.1
C=$(loom_free_port)
PP=$(loom_free_port)
while [ "$PP" = "$C" ]; do PP=$(loom_free_port); done
EP=https://127.0.0.1:$C
etcd --name m1 --data-dir "$work/etcd" \
	--listen-client-urls "$EP" --advertise-client-urls "$EP" \
	--listen-peer-urls "http://127.0.0.1:$PP" --initial-advertise-peer-urls "http://127.0.0.1:$PP" \
	--initial-cluster "m1=http://127.0.0.1:$PP" --initial-cluster-state new \
	--cert-file "$P/etcd.crt" --key-file "$P/etcd.key" --trusted-ca-file "$P/ca.crt" \
	--client-cert-auth >"$work/etcd.log" 2>&1 &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 300 curl -sf -m 2 --cacert "$P/ca.crt" --cert "$P/node-a.crt" --key "$P/node-a.key" \
	"$EP/health" || loom_fail "etcd over TLS is not healthy: $(tail -n 5 "$work/etcd.log")"

# node NAME TLS-YAML: NAME's loomd with ha.tls as given (continuing the ha: section).
LOOM_HA_TTL=3
node() { loom_ha_node "$1" "$EP" "  tls: $2"; }
ha() { "$B/loomctl" -s "$work/$1/loomd.sock" --json status | python3 -c '
import json, sys
h = json.load(sys.stdin)["ha"]
print(h["role"], h["etcd"]["ok"], h["etcd"].get("endpoint"), h["etcd"].get("error"))'; }
fail() { for n in a b c; do [ -s "$work/$n/loomd.log" ] && { echo "--- $n"; grep 'ha:' "$work/$n/loomd.log" | tail -n 5; }; done; loom_fail "$@"; }

node a "{ca: $P/ca.crt, cert: $P/node-a.crt, key: $P/node-a.key}"
loom_until 100 sh -c "'$B/loomctl' -s '$work/a/loomd.sock' --json status | grep -q '\"role\": *\"leader\"'" ||
	fail "no leader over TLS: $(ha a)"
loom_ok "over TLS with a client certificate: $(ha a | cut -d' ' -f1-3)"

node b "{ca: $P/other.crt, cert: $P/node-a.crt, key: $P/node-a.key}"
loom_until 50 sh -c "'$B/loomctl' -s '$work/b/loomd.sock' status | grep -q 'etcd.*$EP'" || :
sleep 2
r=$(ha b)
case "$r" in "no-quorum False $EP "*[Cc]ertificate*) ;; *) fail "wrong CA: $r" ;; esac
"$B/loomctl" -s "$work/b/loomd.sock" status | grep "ha:" | grep -q "$EP" ||
	fail "loomctl status does not name the endpoint: $("$B/loomctl" -s "$work/b/loomd.sock" status | grep ha:)"
loom_ok "another CA: no quorum, status says: $(ha b | cut -d' ' -f3-)"

node c "{ca: $P/ca.crt}"
sleep 3
r=$(ha c)
case "$r" in "no-quorum False $EP "?*) ;; *) fail "no client certificate: $r" ;; esac
loom_ok "no client certificate: no quorum, status says: $(ha c | cut -d' ' -f3-)"
