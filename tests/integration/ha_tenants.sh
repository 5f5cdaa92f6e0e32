#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# HA on etcd (issue 21), the tenants' intent: three etcd members, two loomd
# with their own databases and partitions files, one ibsim fabric whose
# OpenSM reads node a's file.
#
#  1. A loomd that ran alone (its database holds jobP) becomes the cluster's
#     first leader: it seeds etcd from its database (jobP's record and the
#     marker /loom/loom/intent-seeded, one fenced txn) and deletes nothing.
#  2. The follower mirrors the records: its `tenant list` equals the
#     leader's within ~2 s after a create, an add-hosts and a delete, and it
#     writes its own partitions file, equal to the leader's.
#  3. A create the fabric cannot take (OpenSM stopped, timeout) is rolled
#     back in etcd too: no record left; the follower never lists it. A
#     confirmed change's record says "active".
#  4. Fencing inside a change: etcd loses its quorum while a create waits
#     for the fabric: the change stops within the TTL, answers no-quorum and
#     rolls nothing back; etcd back, the leader's takeover completes the
#     record left "applying" (event tenant_takeover).
#  5. A tenant deleted while node b was down is gone from b's database once
#     b takes over (the takeover deletes what etcd no longer holds); a
#     create left "applying" that b's fabric cannot take is rolled back by
#     the takeover (its record and the tenant deleted, tenant_takeover).
set -eu
T0=$(date +%s)
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3
command -v etcdctl >/dev/null 2>&1 || loom_skip "etcdctl is not installed (etcd-client)"
loom_work
LOOM_HA_TTL=3
LOOM_HA_PARTITIONS=$work/%s/partitions.conf
LOOM_HA_TENANT_TIMEOUT=6
LOOM_HA_OSM_PID=$work/%s/opensm.pid   # node a's OpenSM; none on b

loom_etcd_cluster 3
EP=$LOOM_ETCD_ENDPOINTS
"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 8 -o "$work/f.net"
loom_ibsim "$work/f.net"
mkdir -p "$work/a"
printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work/a/partitions.conf" >"$work/opensm.conf"
loom_opensm_bg
cp "$work/opensm.pid" "$work/a/opensm.pid"

ctl() { loom_ha_ctl "$@"; }
is_role() { [ "$(loom_ha_role "$1" | cut -d' ' -f1)" = "$2" ]; }
fail() { loom_ha_fail "$@"; }
etcd_get() { etcdctl --endpoints="$EP" get "/loom/loom/$1" --print-value-only 2>/dev/null; }
# The tenants as a node lists them, without what is local (times).
tenants() { ctl "$1" --json tenant list | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d.get("tenants", d) if isinstance(d, dict) else d
print(json.dumps(sorted([{k: t.get(k) for k in ("name", "pkey", "vlan", "membership", "state",
	"n_ports", "n_hosts")} for t in d], key=lambda t: t["name"])))'; }
same_tenants() { [ "$(tenants a)" = "$(tenants b)" ]; }
same_files() { cmp -s "$work/a/partitions.conf" "$work/b/partitions.conf"; }
# the follower within ~2 s (poll_ms 500: a few polls)
mirrored() {
	loom_until 25 same_tenants || fail "$1: node b lists $(tenants b), node a $(tenants a)"
	loom_until 25 same_files ||
		fail "$1: the partitions files differ: $(diff "$work/a/partitions.conf" "$work/b/partitions.conf")"
}

# ---- 1. the first leader seeds etcd ------------------------------------------------------
loom_ha_node a ""
ctl a discover --wait >/dev/null || fail "discover on node a alone"
ctl a tenant create jobP --hosts 'host-[0000-0001]' >/dev/null || fail "jobP on node a alone"
loom_ha_stop a
[ -z "$(etcd_get intent-seeded)" ] || fail "etcd holds the marker before any leader"
loom_ha_node a "$EP"
loom_until 100 is_role a leader || fail "node a does not lead: $(loom_ha_role a)"
loom_until 50 sh -c "etcdctl --endpoints='$EP' get /loom/loom/intent-seeded --print-value-only | grep -q node-a" ||
	fail "node a did not seed etcd: intent-seeded is '$(etcd_get intent-seeded)'"
etcd_get tenants/jobP | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["name"] == "jobP" and len(d["ports"]) == 2 and d["state"] == "active", d' ||
	fail "jobP's record in etcd after the seed: $(etcd_get tenants/jobP)"
ctl a tenant show jobP | grep -q 'state: *active' || fail "jobP on node a after the seed: $(ctl a tenant show jobP 2>&1)"
loom_ok "node a, alone before, leads and seeded etcd from its database: jobP and $(etcd_get intent-seeded)"

# ---- 2. the follower's mirror ------------------------------------------------------------
loom_ha_node b "$EP"
loom_until 100 is_role b follower || fail "node b: $(loom_ha_role b)"
ctl b discover --wait >/dev/null || fail "discover on node b"
mirrored "at b's start"
grep -q "mirrored from etcd" "$work/b/loomd.log" || fail "node b did not write its partitions file"
ctl a tenant create jobA --hosts 'host-[0002-0003]' >/dev/null || fail "jobA on node a"
etcd_get tenants/jobA | grep -q '"state":"active"' || fail "jobA's record is not active: $(etcd_get tenants/jobA)"
mirrored "after jobA's create"
ctl b tenant show jobA | grep -q "from etcd, leader node-a" ||
	ctl b events 2>/dev/null | grep -q "from etcd, leader node-a" ||
	grep -q "tenant jobA: from etcd, leader node-a" "$work/b/loomd.log" || fail "node b's jobA does not say where it came from"
ctl a tenant add-hosts jobA host-0004 >/dev/null || fail "add-hosts on node a"
mirrored "after add-hosts"
ctl a tenant create jobD --hosts host-0005 >/dev/null || fail "jobD on node a"
ctl a tenant delete jobA >/dev/null || fail "delete jobA on node a"
mirrored "after jobA's delete"
loom_ok "node b mirrors the tenants within 2 s (create, add-hosts, delete): $(tenants b)"

# ---- 3. a failed change leaves etcd as it was ----------------------------------------------
kill -STOP "$OSM_PID"
ctl a tenant create jobX --hosts host-0006 >"$work/x.out" 2>&1 && { kill -CONT "$OSM_PID"; fail "jobX was created with OpenSM stopped"; }
kill -CONT "$OSM_PID"
grep -q "rolled back" "$work/x.out" || fail "jobX: $(cat "$work/x.out")"
[ -z "$(etcd_get tenants/jobX)" ] || fail "the failed create left its record in etcd: $(etcd_get tenants/jobX)"
mirrored "after the failed create"
loom_ok "a create the fabric did not take left no record in etcd and nothing on node b"

# ---- 4. the lease lost inside a change ------------------------------------------------------
# b down (a alone takes the lead back). The change waits on the stopped
# OpenSM; etcd loses its quorum: a stops the change (no-quorum, nothing
# rolled back), and once etcd is back and a leads again its takeover
# completes the record left "applying".
loom_ha_stop b
kill -STOP "$OSM_PID"
ctl a tenant create jobF --hosts host-0007 >"$work/fence.out" 2>&1 &
FPID=$!
loom_until 50 sh -c "etcdctl --endpoints='$EP' get /loom/loom/tenants/jobF --print-value-only | grep -q applying" ||
	{ kill -CONT "$OSM_PID"; fail "jobF's record did not reach etcd: $(etcd_get tenants/jobF)"; }
loom_etcd_stop 1
loom_etcd_stop 2
t0=$(date +%s)
wait "$FPID" && { kill -CONT "$OSM_PID"; fail "jobF was created without a lease: $(cat "$work/fence.out")"; }
took=$(( $(date +%s) - t0 ))
kill -CONT "$OSM_PID"
grep -q "no-quorum.*lost the leadership during the change" "$work/fence.out" ||
	fail "the change stopped by the fence answered: $(cat "$work/fence.out")"
[ "$took" -le $((LOOM_HA_TTL + 1)) ] || fail "the fence stopped the change after $took s (TTL $LOOM_HA_TTL s)"
grep -q "tenant jobF: rolled back\|jobF.*rolled back" "$work/a/loomd.log" && fail "the fenced change was rolled back"
loom_ok "the lease lost inside a change: it stopped after $took s, answered $(cut -c1-90 "$work/fence.out")..."
loom_etcd_start 1
loom_etcd_start 2
loom_until 300 is_role a leader || fail "node a does not lead again: $(loom_ha_role a)"
loom_until 300 sh -c "etcdctl --endpoints='$EP' get /loom/loom/tenants/jobF --print-value-only | grep -q '\"state\":\"active\"'" ||
	fail "jobF's record after the takeover: $(etcd_get tenants/jobF)"
ctl a tenant show jobF | grep -q 'state: *active' || fail "jobF on node a: $(ctl a tenant show jobF 2>&1)"
ctl a events 2>/dev/null | grep -q "tenant_takeover.*completed" ||
	fail "no tenant_takeover event for jobF: $(ctl a events 2>&1 | grep jobF)"
loom_ok "the new leader completed the change left applying: jobF active, event tenant_takeover"

# ---- 5. deleted while b was down: gone after b's takeover ----------------------------------
ctl a tenant delete jobD >/dev/null || fail "delete jobD on node a"
eval "kill -9 \$PID_a"
# a create the old leader left "applying" that this fabric cannot take (its
# port does not exist): the new leader rolls it back (deleted: a create)
etcdctl --endpoints="$EP" put /loom/loom/tenants/jobU '{"name":"jobU","by":"test","pkey":4352,"vlan":0,"limited":false,"class":"","ports":[{"host":"host-ghost","guid":"0x00000000deadbeef"}],"eth_ports":[],"state":"applying","leader":"node-a","prev":null}' >/dev/null ||
	fail "cannot put jobU's record"
sleep $((LOOM_HA_TTL + 1))   # a's lease expires: b's first step takes the lead
loom_ha_node b "$EP"
loom_until 100 is_role b leader || fail "node b did not take over: $(loom_ha_role b)"
loom_until 50 sh -c "! '$B/loomctl' -s '$work/b/loomd.sock' tenant show jobD >/dev/null 2>&1" ||
	fail "jobD, deleted while node b was down, is still on b: $(ctl b tenant show jobD 2>&1)"
grep -q "tenant jobD: deleted: etcd no longer holds it" "$work/b/loomd.log" || fail "b's log does not say why jobD went"
ctl b tenant show jobP | grep -q 'state: *active' || fail "jobP on node b after the takeover: $(ctl b tenant show jobP 2>&1)"
loom_ok "jobD, deleted while node b was down, is gone from b after its takeover; jobP stays"
loom_until 200 sh -c "[ -z \"\$(etcdctl --endpoints='$EP' get /loom/loom/tenants/jobU --print-value-only)\" ]" ||
	fail "jobU, left applying and not possible here, is still in etcd: $(etcd_get tenants/jobU)"
ctl b tenant show jobU >/dev/null 2>&1 && fail "jobU is still on node b: $(ctl b tenant show jobU)"
ctl b events 2>/dev/null | grep -q "tenant_takeover.*jobU.*rolled back\|jobU.*tenant_takeover.*rolled back" ||
	fail "no tenant_takeover event for jobU: $(ctl b events 2>&1 | grep jobU)"
loom_ok "a create left applying that the fabric cannot take was rolled back by the new leader (etcd, database, event)"
echo "took $(( $(date +%s) - T0 )) s"
