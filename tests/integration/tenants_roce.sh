#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/tenants_roce.sh: tenant isolation on RoCE: a job's hosts
# get their own access VLAN on exactly the switch ports facing them (LLDP),
# through loomd, the sonic plugin and real redis-servers holding each
# switch's CONFIG_DB/APPL_DB in SONiC's schema. Every VLAN is checked with
# redis-cli in the switches' own CONFIG_DB, never with loom's view.
#
# Two leaves; host-0000 has a rail on each (leaf2 sees it as
# host-0000.cluster), the leaves see each other on Ethernet12, host-0004's
# NIC announces no useful name and is placed by tenants.host_map.
#
#  1. Two tenants: each host-facing port of its hosts (both rails) holds
#     its VLAN untagged, no other port holds it, the uplinks are untouched;
#     the tenants have no PKey (no InfiniBand here); audit events.
#  2. Refused, nothing changed: a port of another tenant's; an unknown host;
#     uid 65534 (permission), which may once tenants.users names it.
#  3. add-hosts takes a port from an operator's VLAN; remove-hosts clears.
#  4. A switch that stops answering mid-change: the change fails naming it,
#     the port already changed on the other switch is put back, the tenant
#     is as before.
#  4b. Changes queued behind a delete that fails: the deleted tenant's VLAN
#     is not handed to a create meanwhile, and a change of the same tenant
#     queued behind it fails (it was written against what the rollback
#     undid) instead of reporting success.
#  5. tenants.host_map places a host LLDP does not name.
#  6. Drift: a VLAN removed behind loom's back fails `tenant verify`; the
#     same create again (a retried prolog) puts it back.
#  7. Delete clears the VLAN from every port; the other tenant's VLAN,
#     removed while loomd is down, is put back by loomd's start.
#  7b. With tenants.interval, a VLAN removed behind loom's back is put back
#     by loomd itself, with a tenant_repaired event naming the port.
#  8. A switch taken out of loom.yaml does not keep its tenant from being
#     deleted: loomd says the port keeps the VLAN.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_need setpriv
[ "$(id -u)" = 0 ] || loom_skip "needs root (a second uid)"
loom_work
chmod 755 "$work"  # uid 65534 of section 2 reaches the socket
sonic_plugin_dir

leaf() { # NAME N: 4 ports at 100G, the other leaf on Ethernet12
	sonic_start "$1" "00:11:22:33:44:5$2"
	for i in 0 4 8 12; do
		sonic_port "$1" "Ethernet$i" "etp$((i / 4 + 1))"
	done
}
leaf leaf1 1
leaf leaf2 2
sonic_lldp leaf1 Ethernet0 host-0000 eth0 "02:00:00:00:00:01"
sonic_lldp leaf1 Ethernet4 host-0001 eth0 "02:00:00:00:01:01"
sonic_lldp leaf1 Ethernet8 host-0002 eth0 "02:00:00:00:02:01"
sonic_lldp leaf1 Ethernet12 leaf2 Ethernet12 "00:11:22:33:44:52"
sonic_lldp leaf2 Ethernet0 host-0000.cluster eth1 "02:00:00:00:00:02"
sonic_lldp leaf2 Ethernet4 host-0003 eth0 "02:00:00:00:03:01"
sonic_lldp leaf2 Ethernet8 localhost eth0 "02:00:00:00:04:01"
sonic_lldp leaf2 Ethernet12 leaf1 Ethernet12 "00:11:22:33:44:51"
# An operator's VLAN on host-0002's port, from before loom.
r leaf1 -n 4 hset "VLAN|Vlan100" vlanid 100 >/dev/null
r leaf1 -n 4 hset "VLAN_MEMBER|Vlan100|Ethernet8" tagging_mode untagged >/dev/null
printf '# host  switch port\nhost-0004 leaf2 Ethernet8\n' >"$work/hosts.map"

SWITCHES="leaf1 leaf2"
conf() { # EXTRA-TENANTS-LINES: the config with the switches of $SWITCHES
	loom_config "plugins:" "  dir: $work/plugins" "roce:" "  interval: 0" \
		"tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" "  vlan_min: 2000" \
		"  host_map: $work/hosts.map" "$@" "switches:"
	for s in $SWITCHES; do
		printf '  - {name: %s, plugin: sonic, address: "unix:%s/%s.sock"}\n' "$s" "$work" "$s"
	done >>"$work/loom.yaml"
}
conf
# No simulator: the sweeper finds no InfiniBand port; the switches are all.
start_loomd() {
	"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
	LOOM_PIDS="$LOOM_PIDS $!"
	LOOMD_PID=$!
	loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
}
start_loomd
# A read of the switches stores their ports and LLDP neighbours.
loom_ctl qos status >/dev/null 2>&1 || :
loom_ctl switches | grep -q "^leaf2 " || loom_fail "switches: $(loom_ctl switches)"

# The ports of SWITCH holding VLAN untagged, by CONFIG_DB: "Ethernet0 Ethernet4".
members() { # SWITCH VLAN
	r "$1" -n 4 --scan --pattern "VLAN_MEMBER|Vlan$2|*" | while read -r k; do
		[ "$(r "$1" -n 4 hget "$k" tagging_mode)" = untagged ] && echo "${k##*|}"
	done | sort -V | tr '\n' ' ' | sed 's/ $//'
}
vlan_of() { loom_ctl tenant show "$1" | sed -n 's/^vlan: *//p'; }

# ---- 1. two tenants ------------------------------------------------------------------
loom_ctl tenant create jobA --hosts 'host-[0000-0001]' >"$work/a.out" ||
	loom_fail "create jobA: $(cat "$work/a.out")"
loom_ctl tenant create jobB --hosts host-0003 >"$work/b.out" ||
	loom_fail "create jobB: $(cat "$work/b.out")"
VA=$(vlan_of jobA)
VB=$(vlan_of jobB)
[ "$VA" = 2000 ] && [ "$VB" = 2001 ] || loom_fail "VLANs $VA, $VB: the pool starts at 2000"
grep -q '^pkey: *-$' "$work/a.out" || loom_fail "jobA got a PKey: $(cat "$work/a.out")"
[ "$(members leaf1 "$VA")" = "Ethernet0 Ethernet4" ] || loom_fail "leaf1 $VA: $(members leaf1 "$VA")"
[ "$(members leaf2 "$VA")" = "Ethernet0" ] || loom_fail "leaf2 $VA (host-0000's 2nd rail): $(members leaf2 "$VA")"
[ "$(members leaf2 "$VB")" = "Ethernet4" ] || loom_fail "leaf2 $VB: $(members leaf2 "$VB")"
[ -z "$(members leaf1 "$VB")" ] || loom_fail "leaf1 $VB: $(members leaf1 "$VB")"
[ "$(r leaf1 -n 4 --scan --pattern 'VLAN_MEMBER|*|Ethernet12')" = "" ] || loom_fail "an uplink was touched"
loom_ctl events --limit 10 | grep -q "tenant_created .*tenant jobA .*VLAN $VA.*(uid 0)" ||
	loom_fail "no audit event: $(loom_ctl events --limit 10)"
loom_ok "jobA VLAN $VA on leaf1 Ethernet0,4 + leaf2 Ethernet0 (both rails), jobB VLAN $VB on leaf2 Ethernet4 only (CONFIG_DB); no PKey; audited"

# ---- 2. refusals that change nothing --------------------------------------------------
snap() { for s in leaf1 leaf2; do r $s -n 4 --scan --pattern 'VLAN_MEMBER|*' | sort; done; }
snap >"$work/before.keys"
loom_ctl tenant create jobC --hosts 'host-0000' >"$work/c.out" 2>&1 &&
	loom_fail "a create on jobA's ports succeeded"
grep -q "already in another tenant's VLAN: leaf1 Ethernet0 (host-0000) is tenant jobA's" "$work/c.out" ||
	loom_fail "unclear error: $(cat "$work/c.out")"
loom_ctl tenant create jobC --hosts 'host-0009' >"$work/c.out" 2>&1 &&
	loom_fail "a create with an unknown host succeeded"
grep -q "unknown host.*host-0009" "$work/c.out" || loom_fail "unclear error: $(cat "$work/c.out")"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$B/loomctl" -s "$work/loomd.sock" "$@"; }
as_nobody tenant create jobC --hosts host-0002 >"$work/c.out" 2>&1 &&
	loom_fail "uid 65534 created a tenant"
grep -q "permission denied for uid 65534" "$work/c.out" || loom_fail "unclear error: $(cat "$work/c.out")"
snap | cmp -s - "$work/before.keys" || loom_fail "a refusal changed a switch"
loom_ctl tenant show jobC >/dev/null 2>&1 && loom_fail "jobC exists"
# tenants.users lets the scheduler's user (here: nobody) in, and only for tenants.
conf "  users: nobody"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q "configuration reloaded" "$work/loomd.log" || loom_fail "no reload"
as_nobody tenant create jobC --hosts host-0002 >"$work/c.out" 2>&1 ||
	loom_fail "tenants.users: nobody may not create: $(cat "$work/c.out")"
as_nobody tenant delete jobC >/dev/null || loom_fail "tenants.users: nobody may not delete"
as_nobody discover >"$work/c.out" 2>&1 && loom_fail "tenants.users let nobody run discover"
loom_ctl events --limit 20 | grep -q "tenant_created .*tenant jobC .*(uid 65534)" ||
	loom_fail "no audit event for uid 65534"
loom_ok "refused, nothing changed: jobA's port, unknown host, uid 65534; tenants.users: nobody then may (tenants only), audited"

# ---- 3. add and remove hosts ------------------------------------------------------------
[ "$(members leaf1 100)" = "" ] || loom_fail "jobC's delete left the operator's VLAN 100 on Ethernet8"
r leaf1 -n 4 hset "VLAN_MEMBER|Vlan100|Ethernet8" tagging_mode untagged >/dev/null
loom_ctl tenant add-hosts jobA host-0002 >/dev/null || loom_fail "add-hosts failed"
loom_ctl tenant remove-hosts jobA host-0001 >/dev/null || loom_fail "remove-hosts failed"
[ "$(members leaf1 "$VA")" = "Ethernet0 Ethernet8" ] || loom_fail "leaf1 $VA: $(members leaf1 "$VA")"
[ "$(members leaf1 100)" = "" ] || loom_fail "the operator's VLAN 100 stayed on Ethernet8"
loom_ok "add-hosts moved host-0002's port from VLAN 100 into $VA; remove-hosts cleared host-0001's"

# ---- 4. a switch stops answering mid-change ----------------------------------------------
kill -STOP "$REDIS_leaf2"
loom_ctl tenant add-hosts jobA 'host-0001,host-0004' >"$work/d.out" 2>&1 &&
	{ kill -CONT "$REDIS_leaf2"; loom_fail "a change on a dead switch succeeded"; }
kill -CONT "$REDIS_leaf2"
grep -q "rolled back: VLAN $VA: switch leaf2: " "$work/d.out" || loom_fail "unclear error: $(cat "$work/d.out")"
[ "$(members leaf1 "$VA")" = "Ethernet0 Ethernet8" ] ||
	loom_fail "leaf1's Ethernet4 was not put back: $(members leaf1 "$VA")"
grep -q "switch leaf1: Ethernet4 put back" "$work/loomd.log" || loom_fail "loomd did not say it put Ethernet4 back"
loom_ctl tenant show jobA | grep -q host-0001 && loom_fail "jobA kept host-0001 after the rollback"
loom_ok "leaf2 stopped: the change failed naming it, leaf1's Ethernet4 put back: $(cut -c1-100 "$work/d.out")"

# ---- 4b. changes queued behind one that fails ----------------------------------------------
kill -STOP "$REDIS_leaf2"
loom_ctl tenant delete jobB >"$work/q1.out" 2>&1 &
Q1=$!
sleep 0.5
loom_ctl tenant create jobZ --hosts host-0001 >"$work/q2.out" 2>&1 &
Q2=$!
sleep 0.5
loom_ctl tenant create jobB --hosts host-0003 >"$work/q3.out" 2>&1 &
Q3=$!
wait $Q1 && { kill -CONT "$REDIS_leaf2"; loom_fail "a delete on a stopped switch succeeded"; }
kill -CONT "$REDIS_leaf2"
wait $Q2 || loom_fail "jobZ: $(cat "$work/q2.out")"
wait $Q3 && loom_fail "jobB's create behind its failed delete succeeded"
grep -q "rolled back" "$work/q1.out" || loom_fail "delete: $(cat "$work/q1.out")"
grep -q "not done: the delete before it failed and was rolled back" "$work/q3.out" ||
	loom_fail "queued create: $(cat "$work/q3.out")"
[ "$(vlan_of jobB)" = "$VB" ] || loom_fail "jobB after the rollback: VLAN $(vlan_of jobB), was $VB"
VZ=$(vlan_of jobZ)
[ "$VZ" != "$VB" ] || loom_fail "jobZ was given jobB's VLAN $VB while jobB's delete was under way"
[ "$(members leaf2 "$VB")" = "Ethernet4" ] || loom_fail "leaf2 $VB: $(members leaf2 "$VB")"
loom_ctl tenant delete jobZ >/dev/null || loom_fail "delete jobZ"
loom_ok "a failed delete kept its VLAN $VB from jobZ (given $VZ) and failed the create queued behind it"

# ---- 5. the host map ------------------------------------------------------------------------
loom_ctl tenant add-hosts jobA host-0004 >/dev/null || loom_fail "add-hosts host-0004 (mapped) failed"
[ "$(members leaf2 "$VA")" = "Ethernet0 Ethernet8" ] || loom_fail "leaf2 $VA: $(members leaf2 "$VA")"
loom_ok "tenants.host_map put host-0004 (LLDP name 'localhost') on leaf2 Ethernet8"

# ---- 6. drift ------------------------------------------------------------------------------
r leaf2 -n 4 del "VLAN_MEMBER|Vlan$VB|Ethernet4" >/dev/null
loom_ctl tenant verify jobB >"$work/v.out" 2>&1 && loom_fail "verify missed the drift"
grep -q "switch leaf2: 1 member port without it, 0 other ports with it (first: Ethernet4 lacks it" "$work/v.out" ||
	loom_fail "unclear error: $(cat "$work/v.out")"
loom_ctl tenant create jobB --hosts host-0003 >/dev/null || loom_fail "the repeated create did not repair"
[ "$(members leaf2 "$VB")" = "Ethernet4" ] || loom_fail "leaf2 $VB: $(members leaf2 "$VB")"
loom_ok "a VLAN removed behind loom's back fails verify; the retried create puts it back"

# ---- 7. delete, restart ------------------------------------------------------------------
loom_ctl tenant delete jobA >/dev/null || loom_fail "delete failed"
[ -z "$(members leaf1 "$VA")$(members leaf2 "$VA")" ] ||
	loom_fail "after delete: leaf1 $(members leaf1 "$VA"), leaf2 $(members leaf2 "$VA")"
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
# Changed while loomd was down: its start puts it back by itself.
r leaf2 -n 4 del "VLAN_MEMBER|Vlan$VB|Ethernet4" >/dev/null
start_loomd
loom_until 100 grep -q "tenants: 1 of 1 confirmed on the fabric (start check)" "$work/loomd.log" ||
	loom_fail "loomd did not check the tenants at start"
[ "$(members leaf2 "$VB")" = "Ethernet4" ] || loom_fail "the start did not put $VB back on leaf2 Ethernet4"
loom_ctl tenant verify jobB >/dev/null || loom_fail "jobB does not verify after the restart"
loom_ctl tenant list | grep -q "^jobB  *-  *$VB .*active" || loom_fail "list: $(loom_ctl tenant list)"
loom_ok "deleted: VLAN $VA on no port; jobB's VLAN, removed while loomd was down, put back by its start"

# ---- 7b. the periodic check puts drift back by itself ------------------------------
conf "  interval: 5"
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "grep -c 'configuration reloaded' '$work/loomd.log' | grep -qv '^[01]$'" ||
	loom_fail "no reload"
repaired() { loom_ctl events --limit 100 | grep -c "tenant_repaired .*tenant jobB" || :; }
n0=$(repaired)
r leaf2 -n 4 del "VLAN_MEMBER|Vlan$VB|Ethernet4" >/dev/null
i=0; until [ "$(repaired)" -gt "$n0" ]; do
	i=$((i + 1)); [ $i -lt 150 ] || loom_fail "no new tenant_repaired event within 15 s"
	sleep 0.1
done
[ "$(members leaf2 "$VB")" = "Ethernet4" ] || loom_fail "the periodic check did not put $VB back"
loom_ctl events --limit 20 | grep -q "tenant_repaired .*tenant jobB .*switch leaf2 Ethernet4: VLAN 0 -> $VB" ||
	loom_fail "the event does not name the port: $(loom_ctl events --limit 5)"
loom_ok "tenants.interval 5: a VLAN removed behind loom's back was put back by itself, with a tenant_repaired event naming the port"

# ---- 8. a switch leaves loom.yaml -----------------------------------------------------
SWITCHES=leaf1 conf
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "grep -c 'configuration reloaded' '$work/loomd.log' | grep -qv '^[012]$'" ||
	loom_fail "no reload"
loom_ctl tenant delete jobB >"$work/e.out" 2>&1 || loom_fail "delete jobB: $(cat "$work/e.out")"
grep -q "tenant jobB: switch leaf2 is no longer in loom.yaml: Ethernet4 keeps VLAN $VB" "$work/loomd.log" ||
	loom_fail "loomd did not say what it left on leaf2"
loom_ok "jobB deleted after leaf2 left loom.yaml; loomd says Ethernet4 keeps VLAN $VB"
