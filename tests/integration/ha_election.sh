#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# HA on etcd (issue 21): three etcd members and two loomd (own sockets,
# databases, HTTP ports) on one ibsim fabric with one OpenSM.
#
#  1. Exactly one leader; the follower's status names it and its URL.
#  2. A tenant change sent to the follower is refused ("not-leader", naming
#     the leader and its advertised URL; HTTP 503 on the REST API); reads
#     and `discover` work there; loomctl --server FOLLOWER,LEADER (as the
#     Slurm hooks use it) goes on to the leader, which creates the tenant,
#     its intent (key, members) in etcd under /loom/loom/tenants/.
#  3. kill -9 of the leader: the other is leader within 10 s (the time is
#     printed), loads the tenant created on the old leader from etcd and
#     finds it active (no tenant lost), creates one (--server DEAD,NEW); the killed node, started again, is a follower and does not
#     write the partitions file from its database (the leader's job).
#  4. Two of three etcd members stopped: no leader within the lease TTL
#     (fencing: the leader stops by itself), changes refused naming etcd
#     ("no-quorum"), reads go on; the members back: a leader again.
#  5. A partitioned leader (its only etcd member killed, the other two keep
#     a quorum): it stops changing things within the TTL, the other node
#     takes over.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3
command -v etcdctl >/dev/null 2>&1 || loom_skip "etcdctl is not installed (etcd-client)"
loom_work
TTL=5

loom_etcd_cluster 3
ALL_EP=$LOOM_ETCD_ENDPOINTS

loom_ha_fabric
SECRET=ha-admin-secret-0123456789abcdef
loom_tokens "$work/tokens" "ops:admin:$SECRET"
printf '%s\n' "$SECRET" >"$work/admin.token"
PORT_a=$(loom_free_port)
PORT_b=$(loom_free_port)

LOOM_HA_TTL=$TTL
node() { loom_ha_node "$@"; }
ctl() { loom_ha_ctl "$@"; }
role() { loom_ha_role "$1"; }
is_role() { loom_ha_is "$@"; }
fail() { loom_ha_fail "$@"; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$(now)"; }
# A harmless change (deleting a tenant that does not exist) as a probe of
# the gate: its error code, or "ran".
probe() { ctl "$1" tenant delete no-such-job >"$work/probe.out" 2>&1 && echo ran && return
	grep -o 'not-leader\|no-quorum' "$work/probe.out" | head -n1 || echo "other: $(cat "$work/probe.out")"; }

# ---- 1. one leader ---------------------------------------------------------------------
node a "$ALL_EP"
node b "$ALL_EP"
one_leader() { _r="$(role a | cut -d' ' -f1) $(role b | cut -d' ' -f1)"
	[ "$_r" = "leader follower" ] || [ "$_r" = "follower leader" ]; }
loom_until 200 one_leader || fail "not exactly one leader: a: $(role a), b: $(role b)"
if is_role a leader; then L=a F=b; else L=b F=a; fi
eval "LPORT=\$PORT_$L"
[ "$(role $F)" = "follower node-$L http://127.0.0.1:$LPORT" ] ||
	fail "the follower names $(role $F), not node-$L at its URL"
ctl $F status | grep -q "follower (this node: node-$F), leader node-$L at http://127.0.0.1:$LPORT; etcd ok" ||
	fail "loomctl status on the follower: $(ctl $F status | grep ha)"
ctl $L status | grep -q "leader (this node: node-$L), leader node-$L" || fail "loomctl status on the leader"
loom_ok "one leader (node-$L); the follower names it: $(ctl $F status | grep '^ *ha')"

# ---- 2. changes only on the leader -------------------------------------------------------
for n in a b; do ctl $n discover --wait >/dev/null || fail "discover on node $n"; done
ctl $F nodes >/dev/null || fail "a read on the follower"
ctl $F tenant create jobF --hosts 'host-[0000-0001]' >"$work/f.out" 2>&1 &&
	fail "the follower created a tenant: $(cat "$work/f.out")"
grep -q "not-leader" "$work/f.out" && grep -q "node-$L at http://127.0.0.1:$LPORT" "$work/f.out" ||
	fail "the follower's refusal does not name the leader: $(cat "$work/f.out")"
loom_ok "refused on the follower: $(cat "$work/f.out")"
eval "FPORT=\$PORT_$F"
code=$(curl -s -o "$work/http.out" -w '%{http_code}' -H "Authorization: Bearer $SECRET" \
	-d '{"cmd":"tenant-create","args":{"name":"jobH","hosts":"host-0002"}}' \
	"http://127.0.0.1:$FPORT/api/v1/call")
[ "$code" = 503 ] && grep -q '"not-leader"' "$work/http.out" ||
	fail "the REST API on the follower answered $code: $(cat "$work/http.out")"
loom_ok "the REST API on the follower: HTTP 503 not-leader"
# loomctl --server FOLLOWER,LEADER (the Slurm hooks' form): the follower's
# not-leader sends it on to the next URL, which creates the tenant.
remote() { "$B/loomctl" --server "$1" --token-file "$work/admin.token" "$2" "$3" "$4" "$5" "$6"; }
remote "http://127.0.0.1:$FPORT,http://127.0.0.1:$LPORT" tenant create jobA --hosts 'host-[0000-0001]' \
	>"$work/a.out" 2>&1 || fail "--server follower,leader: no tenant: $(cat "$work/a.out")"
ctl $L tenant show jobA | grep -q active || fail "jobA is not active on the leader"
# its intent went to etcd first (a txn conditioned on the leader's lease)
intent() { etcdctl --endpoints="$ALL_EP" get "/loom/loom/tenants/$1" --print-value-only 2>/dev/null; }
KA=$(ctl $L --json tenant show jobA | python3 -c 'import json,sys; print(json.load(sys.stdin)["pkey"])')
intent jobA | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["name"] == "jobA" and d["pkey"] == int(sys.argv[1], 0) and sorted(p["host"] for p in d["ports"]) == ["host-0000", "host-0001"], d' "$KA" ||
	fail "jobA's intent in etcd: $(intent jobA) (pkey $KA)"
remote "http://127.0.0.1:$FPORT" tenant create jobR --hosts 'host-0003' >"$work/r.out" 2>&1 &&
	fail "--server follower alone created a tenant"
grep -q "not-leader: .*node-$L at http://127.0.0.1:$LPORT.*HTTP 503" "$work/r.out" ||
	fail "--server follower alone: $(cat "$work/r.out")"
loom_ok "the leader created jobA through --server follower,leader (alone, the follower says: $(cat "$work/r.out"))"

# ---- 3. the leader killed ------------------------------------------------------------------
eval "kill -9 \$PID_$L"
t0=$(now)
echo "killed node-$L at $(date +%T.%N)"
# the probe, not status + python: the time is the takeover's, not the poll's
loom_until 150 ctl $F tenant delete no-such-job || fail "node $F did not take over within 15 s"
took=$(since "$t0")
is_role $F leader || fail "node $F accepts changes as $(role $F)"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 10 else 1)" "$took" ||
	fail "takeover took $took s (goal: under 10 s)"
loom_ok "leader node-$L killed -9: node-$F is leader after $took s"
ctl $F discover --wait >/dev/null || fail "discover on the new leader"
remote "http://127.0.0.1:$LPORT,http://127.0.0.1:$FPORT" tenant create jobB --hosts 'host-[0002-0003]' \
	>"$work/b.out" 2>&1 || fail "the new leader could not create a tenant: $(cat "$work/b.out")"
intent jobB | grep -q '"name":"jobB"' || fail "jobB's intent in etcd: $(intent jobB)"
loom_ok "the new leader created jobB through --server dead,new-leader; its intent is in etcd"
grep -q "tenants: this node leads now" "$work/$F/loomd.log" ||
	fail "node-$F did not take the tenants over: $(grep 'leads now' "$work/$F/loomd.log")"
grep -q "tenant jobA: from etcd, leader node-$L" "$work/$F/loomd.log" ||
	fail "node-$F did not mirror jobA from etcd while a follower"
# jobA was created on the old leader: the new one holds it, active on the
# fabric, its key in the partitions file (no tenant lost)
loom_until 300 sh -c "'$B/loomctl' -s '$work/$F/loomd.sock' tenant show jobA | grep -q 'state: *active'" ||
	fail "jobA on the new leader: $(ctl $F tenant show jobA 2>&1)"
KA_HEX=$(printf '0x%04x' "$KA")
grep -q "^loom_jobA=$KA_HEX :" "$work/partitions.conf" || fail "jobA's key $KA_HEX is not in the partitions file"
# the new leader's pool knows jobA's key: not handed out twice
[ "$(grep -c "=$KA_HEX :" "$work/partitions.conf")" = 1 ] ||
	fail "jobA's key twice in the partitions file: $(cat "$work/partitions.conf")"
ctl $F tenant show jobA | grep -q "token ops" || fail "jobA's creator on the new leader: $(ctl $F tenant show jobA)"
loom_ok "the new leader loaded jobA (created on node-$L) from etcd: active, key $KA_HEX in the partitions file"
cp "$work/partitions.conf" "$work/partitions.before"
node $L "$ALL_EP"
loom_until 100 is_role $L follower || fail "the restarted node-$L is $(role $L), not a follower"
[ "$(role $L | cut -d' ' -f2)" = "node-$F" ] || fail "node-$L names $(role $L)"
# Its database holds jobA and now jobB from etcd: the file it writes from
# them is the leader's, so it leaves the shared file as it is.
sleep 2
cmp -s "$work/partitions.conf" "$work/partitions.before" ||
	fail "the follower node-$L rewrote the partitions file: $(diff "$work/partitions.before" "$work/partitions.conf")"
grep -q "tenants: start check skipped" "$work/$L/loomd.log" || fail "node-$L: no skipped start check"
loom_ok "node-$L started again: follower of node-$F; it left the partitions file alone"
L0=$L; L=$F; F=$L0

# ---- 4. etcd without quorum ------------------------------------------------------------------
loom_etcd_stop 1
sleep $((TTL + 1))
is_role $L leader && is_role $F follower || fail "one member stopped changed the roles: $(role a) / $(role b)"
[ "$(probe $L)" = ran ] || fail "one member stopped: the leader refuses: $(cat "$work/probe.out")"
loom_ok "one etcd member stopped: nothing changes"
loom_etcd_stop 2
t0=$(now)
loom_until 100 sh -c "[ \"\$(\"$B/loomctl\" -s $work/$L/loomd.sock tenant delete no-such-job 2>&1 | grep -c no-quorum)\" = 1 ]" ||
	fail "the leader still changes things 10 s after etcd lost its quorum: $(cat "$work/probe.out")"
fenced=$(since "$t0")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" "$fenced" "$TTL" ||
	fail "the leader stopped changing things $fenced s after the quorum was lost (TTL $TTL s)"
loom_ok "two etcd members stopped: the leader stops changing things after $fenced s (TTL $TTL s)"
loom_until 100 is_role $F no-quorum || fail "node $F: $(role $F) without quorum"
for n in a b; do
	ctl $n tenant create jobQ --hosts host-0004 >"$work/q.out" 2>&1 && fail "node $n created a tenant without quorum"
	grep -q "no-quorum" "$work/q.out" && grep -q "etcd" "$work/q.out" ||
		fail "node $n's refusal without quorum: $(cat "$work/q.out")"
	ctl $n nodes >/dev/null || fail "node $n: a read without quorum"
	ctl $n tenant list >/dev/null || fail "node $n: tenant list without quorum"
done
loom_ok "without quorum: changes refused on both ($(cat "$work/q.out")); reads work"
loom_etcd_start 1
loom_etcd_start 2
t0=$(now)
loom_until 300 one_leader || fail "no leader 30 s after the members came back: $(role a) / $(role b)"
loom_ok "members back: a leader again after $(since "$t0") s ($(role a) / $(role b))"

# ---- 5. a partitioned leader --------------------------------------------------------------------
# node a talks to member 1 only, node b to members 2 and 3; a leads first.
for n in a b; do eval "kill \$PID_$n"; eval "wait \$PID_$n" 2>/dev/null || :; done
node a "$(loom_etcd_url 1)"
loom_until 150 is_role a leader || fail "node a alone did not lead: $(role a)"
node b "$(loom_etcd_url 2),$(loom_etcd_url 3)"
loom_until 150 is_role b follower || fail "node b: $(role b)"
[ "$(probe a)" = ran ] || fail "the leader a refuses: $(cat "$work/probe.out")"
loom_etcd_stop 1
t0=$(now)
loom_until 100 sh -c "\"$B/loomctl\" -s $work/a/loomd.sock tenant delete no-such-job 2>&1 | grep -q no-quorum" ||
	fail "the partitioned leader still changes things after 10 s"
fenced=$(since "$t0")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" "$fenced" "$TTL" ||
	fail "the partitioned leader stopped $fenced s after the cut (TTL $TTL s)"
loom_until 150 is_role b leader || fail "node b did not take over from the partitioned a: $(role b)"
loom_ok "partitioned leader a stops changing things after $fenced s; b leads after $(since "$t0") s"
loom_etcd_start 1
loom_until 300 is_role a follower || fail "node a after the partition: $(role a)"
loom_ok "the partition healed: a follows $(role a | cut -d' ' -f2)"
