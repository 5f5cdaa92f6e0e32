#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# lib/etcd against a real 3-member etcd on loopback (issue 21): the live
# cases of tests/unit/lib/etcd/test_etcd (put/range/delete, a txn's compares and
# branches, a lease that expires with its key, a dead endpoint skipped), then
# with one member killed (the rest keep a quorum: every call still works,
# also with the dead member first in the list), then with etcd's
# authentication on (the token from /v3/auth/authenticate) and a wrong
# password refused with etcd's own words.
set -eu
. "$(dirname "$0")/lib.sh"
[ -x "$B/tests/unit/lib/etcd/test_etcd" ] || loom_skip "tests/unit/lib/etcd/test_etcd is not built"
command -v etcdctl >/dev/null 2>&1 || loom_skip "etcdctl is not installed (etcd-client)"
loom_work
fail() { cat "$work/t.out"; tail -n 20 "$work"/etcd-1.log; loom_fail "$@"; }

loom_etcd_cluster 3
export LOOM_ETCD_ENDPOINTS
CK_FORK=no "$B/tests/unit/lib/etcd/test_etcd" >"$work/t.out" 2>&1 || fail "test_etcd on 3 members"
grep -q "Checks: 14, Failures: 0, Errors: 0" "$work/t.out" || fail "the live cases did not run"
loom_ok "3 members: $(tail -n1 "$work/t.out")"

loom_etcd_stop 1
LOOM_ETCD_ENDPOINTS="$(loom_etcd_url 1),$(loom_etcd_url 2),$(loom_etcd_url 3)"
CK_FORK=no "$B/tests/unit/lib/etcd/test_etcd" >"$work/t.out" 2>&1 || fail "test_etcd with member 1 down"
loom_ok "member 1 killed, listed first: $(tail -n1 "$work/t.out")"

ep="$(loom_etcd_url 2)"
etcdctl --endpoints="$ep" user add root:loom-secret >/dev/null 2>&1 || fail "etcdctl user add"
etcdctl --endpoints="$ep" auth enable >/dev/null 2>&1 || fail "etcdctl auth enable"
LOOM_ETCD_USER=root LOOM_ETCD_PASSWORD=loom-secret CK_FORK=no \
	"$B/tests/unit/lib/etcd/test_etcd" >"$work/t.out" 2>&1 || fail "test_etcd with auth"
loom_ok "with authentication: $(tail -n1 "$work/t.out")"
# Meant to fail: a failed check leaves its test function early (CK_FORK=no),
# so what it allocated is not freed; no leak report for this run.
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" LOOM_ETCD_USER=root LOOM_ETCD_PASSWORD=wrong \
	CK_FORK=no "$B/tests/unit/lib/etcd/test_etcd" >"$work/t.out" 2>&1 && fail "a wrong password was taken"
grep -q "authentication failed" "$work/t.out" || fail "no etcd error text for a wrong password"
loom_ok "a wrong password is refused: $(grep -m1 -o 'etcd http[^ ]*: [^"]*' "$work/t.out" | head -n1)"
