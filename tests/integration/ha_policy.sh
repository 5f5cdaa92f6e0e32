#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# HA on etcd (issue 21, second part): only the leader pushes the RoCE
# policy, and what it pushes is replicated in etcd first. One etcd member,
# two loomd on one simulated SONiC switch (a real redis-server), no fabric.
#
#  1. The follower, with roce.interval 10 and reapply, leaves a drifted
#     switch alone (it reads back only: "re-apply skipped" at debug); the
#     leader (interval 0) has not re-applied either: the drift stays.
#  2. qos apply on the leader: the record /loom/loom/policy/roce holds the
#     switch's policy as applied, a version, and its outcome "in policy".
#     The leader discovers at discovery.interval (30 s), the follower at
#     ha.follower_discovery_interval (90 s; sweep.interval in status).
#     qos apply --ib-cc on the leader: the record policy/ib_cc holds its
#     block, and the follower writes that block into its own options file.
#  3. The leader stopped: the follower takes over (ha_takeover_policy
#     events: its loom.yaml's policy is the replicated one, applied again),
#     puts the drift back, writes the record again, discovers every 30 s.
#  4. The old leader back as a follower with another loom.yaml (ECN max,
#     ib_cc off) discovers every 120 s (4 x discovery.interval); when it
#     takes over it says both policies differ and pushes nothing of its own.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_need python3
command -v etcdctl >/dev/null 2>&1 || loom_skip "etcdctl is not installed (etcd-client)"
loom_work
sonic_plugin_dir
loom_etcd_cluster 1
EP=$LOOM_ETCD_ENDPOINTS
sonic_leaf leaf1 1

# node NAME ROCE-INTERVAL [ECN-MAX [CC-ENABLE]]: NAME's loom.yaml, started ($PID_NAME).
node() {
	mkdir -p "$work/$1"
	[ -e "$work/$1/opensm.conf" ] || printf 'sm_priority 1\n' >"$work/$1/opensm.conf"
	cat >"$work/$1/loom.yaml" <<EOF2
log:
  level: debug
database:
  path: $work/$1/loom.db
control:
  socket: $work/$1/loomd.sock
opensm:
  report_socket: $work/$1/osm.sock
telemetry:
  interval_s: 0
discovery:
  interval: 30
plugins:
  dir: $work/plugins
roce:
  interval: $2
  reapply: true
  ecn: {max_bytes: ${3:-1500000}}
ib_cc:
  enable: ${4:-true}
  opensm_config: $work/$1/opensm.conf
switches:
  - {name: leaf1, plugin: sonic, address: "unix:$work/leaf1.sock"}
ha:
  endpoints: "$EP"
  name: node-$1
  advertise: http://127.0.0.1:1
  ttl_s: 3
${5:-}
EOF2
	"$B/loomd" -f -c "$work/$1/loom.yaml" 2>>"$work/$1/loomd.log" &
	eval "PID_$1=$!"
	LOOM_PIDS="$LOOM_PIDS $!"
	loom_until 100 test -S "$work/$1/loomd.sock" || { tail -n 20 "$work/$1/loomd.log"; loom_fail "node $1 did not open its socket"; }
}
ctl() { _n=$1; shift; "$B/loomctl" -s "$work/$_n/loomd.sock" "$@"; }
role() { ctl "$1" --json status 2>/dev/null |
	python3 -c 'import json, sys; print((json.load(sys.stdin).get("ha") or {}).get("role", "?"))' ||
	echo down; }
record() { etcdctl --endpoints="$EP" get "/loom/loom/policy/${K:-roce}" --print-value-only 2>/dev/null; }
block() { sed -n '/^# ---- loom ib_cc begin/,/^# ---- loom ib_cc end/p' "$work/$1/opensm.conf"; }
events() { ctl "$1" events --limit 50 | grep ha_takeover_policy || :; }
field() { record | python3 -c "import json, sys; r = json.load(sys.stdin); print($1)" 2>/dev/null; }
fail() {
	for _n in a b; do
		[ -s "$work/$_n/loomd.log" ] && { echo "--- node $_n"; tail -n 30 "$work/$_n/loomd.log"; }
	done
	loom_fail "$@"
}
# The sweeper's interval in effect (status sweep.interval).
every() { ctl "$1" --json status | python3 -c 'import json, sys; print(json.load(sys.stdin)["sweep"]["interval"])'; }
wred() { r leaf1 -n 4 hget "WRED_PROFILE|LOOM_LOSSLESS" green_max_threshold; }

# ---- 1. the follower does not push -------------------------------------------------
node a 0
loom_until 100 sh -c "[ \"\$('$B/loomctl' -s '$work/a/loomd.sock' --json status | grep -o '\"role\": *\"leader\"')\" ]" ||
	fail "node a is not leader: $(role a)"
node b 10 1500000 true "  follower_discovery_interval: 90"
loom_until 100 sh -c "'$B/loomctl' -s '$work/b/loomd.sock' --json status | grep -q '\"role\": *\"follower\"'" ||
	fail "node b is not a follower: $(role b)"
ctl a qos apply >"$work/apply.out" || fail "qos apply on the leader: $(cat "$work/apply.out")"
[ "$(wred)" = 1500000 ] || fail "the leader's apply did not land: $(wred)"
r leaf1 -n 4 hset "WRED_PROFILE|LOOM_LOSSLESS" green_max_threshold 999 >/dev/null
n=$(grep -c "re-apply skipped" "$work/b/loomd.log" || :)
loom_until 150 sh -c "[ \$(grep -c 're-apply skipped' '$work/b/loomd.log') -ge $((n + 1)) ]" ||
	fail "the follower's interval did not run after the drift"
[ "$(wred)" = 999 ] || fail "the drift was put back while the follower re-applied: $(wred)"
grep -q "re-apply skipped, read back only: .*is a follower" "$work/b/loomd.log" ||
	fail "no reason for the skip: $(grep skipped "$work/b/loomd.log" | tail -n 1)"
loom_ok "the follower (interval 10, reapply) read the drifted switch back and did not push"
[ "$(every a)" = 30 ] && [ "$(every b)" = 90 ] ||
	fail "discovery every $(every a) s on the leader, $(every b) s on the follower (want 30, 90)"
loom_ok "discovery: the leader every 30 s (discovery.interval), the follower every 90 s (ha.follower_discovery_interval)"

# ---- 2. the leader's apply is replicated first ----------------------------------------
[ "$(field 'r["switches"]["leaf1"]["state"]')" = "in policy" ] ||
	fail "no outcome in the record: $(record)"
[ "$(field 'r["switches"]["leaf1"]["policy"]["ecn_max_bytes"]')" = 1500000 ] &&
	[ "$(field 'r["by"]')" = qos-apply ] ||
	fail "the record does not hold the policy as applied: $(record)"
v=$(field 'r["version"]')
[ "${#v}" = 16 ] || fail "no version in the record: $(record)"
loom_ok "the record policy/roce: version $v, leaf1 in policy, ecn_max_bytes 1500000, by qos-apply"
ctl a qos apply --ib-cc >"$work/cc.out" || fail "qos apply --ib-cc on the leader: $(cat "$work/cc.out")"
[ "$(K=ib_cc field 'r["options"]' | head -n 1)" = "$(block a | sed -n 2p)" ] ||
	fail "no record policy/ib_cc with the leader's block: $(K=ib_cc record)"
loom_until 50 sh -c "grep -q 'congestion_control TRUE' '$work/b/opensm.conf'" ||
	fail "the follower did not write the leader's ib_cc block: $(cat "$work/b/opensm.conf")"
[ "$(block a)" = "$(block b)" ] && grep -q "^sm_priority 1" "$work/b/opensm.conf" ||
	fail "the follower's block differs or its own lines are gone: $(cat "$work/b/opensm.conf")"
loom_ok "ib_cc: the record policy/ib_cc holds the leader's block, the follower wrote it into its own options file"

# ---- 3. the new leader pushes ---------------------------------------------------------
kill "$PID_a"
wait "$PID_a" 2>/dev/null || :
loom_until 100 sh -c "'$B/loomctl' -s '$work/b/loomd.sock' --json status | grep -q '\"role\": *\"leader\"'" ||
	fail "node b did not take over: $(role b)"
loom_until 150 sh -c "[ \"\$(redis-cli -s '$work/leaf1.sock' -n 4 hget 'WRED_PROFILE|LOOM_LOSSLESS' \
	green_max_threshold)\" = 1500000 ]" || fail "the new leader did not put the drift back"
# Its next re-apply comes within one roce.interval (10 s) of the takeover,
# wherever the takeover falls in the timer's period.
loom_until 150 sh -c "etcdctl --endpoints='$EP' get /loom/loom/policy/roce --print-value-only |
	grep -q '\"by\":\"reapply\"'" || fail "the re-apply was not replicated: $(record)"
[ "$(field 'r["version"]')" = "$v" ] || fail "the same policy has another version: $(record)"
events b | grep "roce" | grep -q "is this node's loom.yaml's: applied again" &&
	events b | grep "ib_cc" | grep -q "are this node's loom.yaml's" ||
	fail "no takeover event on b: $(events b)"
[ "$(every b)" = 30 ] || fail "node b, leader now, discovers every $(every b) s, not 30"
loom_ok "node b, leader now, put the drift back by itself and replicated it (same version $v)"

# ---- 4. a new leader whose loom.yaml differs keeps the replicated policy ----------------------
node a 0 1400000 false
loom_until 100 sh -c "'$B/loomctl' -s '$work/a/loomd.sock' --json status | grep -q '\"role\": *\"follower\"'" ||
	fail "node a is not a follower: $(role a)"
[ "$(every a)" = 120 ] || fail "follower a (no follower_discovery_interval) discovers every $(every a) s, not 4 x 30"
r leaf1 -n 4 hset "WRED_PROFILE|LOOM_LOSSLESS" green_max_threshold 999 >/dev/null
kill "$PID_b"
wait "$PID_b" 2>/dev/null || :
loom_until 100 sh -c "'$B/loomctl' -s '$work/a/loomd.sock' --json status | grep -q '\"role\": *\"leader\"'" ||
	fail "node a did not take over: $(role a)"
loom_until 50 sh -c "'$B/loomctl' -s '$work/a/loomd.sock' events --limit 50 | grep ha_takeover_policy | grep -q roce" ||
	fail "no takeover event on a"
sleep 2
events a | grep roce | grep -q "differs from this node's loom.yaml .*read back only" &&
	events a | grep ib_cc | grep -q "differ from this node's loom.yaml" ||
	fail "the takeover did not say the policies differ: $(events a)"
[ "$(wred)" = 999 ] || fail "the new leader pushed its own policy: $(wred)"
[ "$(every a)" = 30 ] || fail "node a, leader now, discovers every $(every a) s, not 30"
grep -q 'congestion_control TRUE' "$work/a/opensm.conf" || fail "a's options file lost the replicated ib_cc"
loom_ok "node a (another ecn max, ib_cc off) took over: it says both differ and pushes nothing of its own"
