#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/qos.sh: the lossless RoCE policy of loom.yaml pushed to
# SONiC switches through loomd, the sonic plugin and real redis-servers
# holding each switch's CONFIG_DB/APPL_DB in SONiC's schema.
#
#  1. qos plan on fresh switches lists the objects it would create or
#     change (the switch-wide ones marked SHARED) and the keys, writes
#     nothing; qos apply writes them and reads them back: in policy (exit 0),
#     with each switch's overrides (leaf2's 30 m cables).
#  2. A key changed behind loom's back is drift: qos status exits 1 and
#     names the switch, qos plan shows exactly that key; apply repairs it.
#  2b. An apply that stops half-way (the switch's Redis refuses some writes)
#     is recorded as partial: which keys landed, which did not, and why.
#  3. A switch whose Redis is gone is unreachable (exit 1), the others stay
#     in policy; a plugin of another ABI version is refused, naming both.
#  4. A reload with a contradictory policy is refused; the running one stays.
#  1b. Every read stores the switch (model, ports, LLDP neighbours): loomctl
#     switches shows them, from loomd and from the database; a port going
#     down is an event.
#  5. With roce.interval and reapply, loomd reads the switches back by
#     itself: drift is an event naming the key and is put back; a switch that
#     could not be applied is retried with backoff and is in policy once its
#     Redis is back. Changes of state are events (loomctl events).
#  6. A port removed from a switch leaves the store, with an event.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_work
sonic_plugin_dir
# A plugin built for ABI 2 (test_plugin's fake), to be refused by name.
[ -e "$B/tests/unit/.libs/fake-abi3.so" ] && cp "$B/tests/unit/.libs/fake-abi3.so" "$work/plugins/"

rc() { "$@" >/dev/null 2>&1 && echo 0 || echo $?; }

sonic_leaf leaf1 1
sonic_leaf leaf2 2
conf() { # EXTRA-ROCE-YAML: the config with both leaves (and the ABI-2 one)
	loom_config "plugins:" "  dir: $work/plugins" "roce:" "  interval: 0" "$@" \
		"switches:" \
		"  - {name: leaf1, plugin: sonic, address: \"unix:$work/leaf1.sock\"}" \
		"  - name: leaf2" "    plugin: sonic" "    address: \"unix:$work/leaf2.sock\"" \
		"    roce: {headroom: {cable_m: 30}}"
}
conf
# loomd without umad2sim: no simulator here (its client would wait for one),
# so the sweeper finds no InfiniBand port and the switches are all there is.
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOM_PIDS="$LOOM_PIDS $!"
LOOMD_PID=$!
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"

# ---- 1. plan, then apply ------------------------------------------------------
loom_ctl qos plan >"$work/plan.out" || loom_fail "qos plan failed: $(cat "$work/plan.out")"
grep -q "^leaf1 .*drifted" "$work/plan.out" || loom_fail "plan: leaf1 not drifted: $(cat "$work/plan.out")"
grep -q "DSCP_TO_TC_MAP|LOOM 26: (none) -> 3" "$work/plan.out" ||
	loom_fail "plan does not list DSCP 26 -> 3: $(cat "$work/plan.out")"
[ -z "$(r leaf1 -n 4 hget "DSCP_TO_TC_MAP|LOOM" 26)" ] || loom_fail "plan wrote to the switch"
# ... and names each object once: loom's own are created, the table every
# port's cable length lives in is marked shared (switch-wide)
grep -q "^  create  DSCP_TO_TC_MAP|LOOM\$" "$work/plan.out" &&
	grep -q "^  create  CABLE_LENGTH|AZURE  SHARED: switch-wide\$" "$work/plan.out" &&
	grep -q "^  create  QUEUE|Ethernet4|3\$" "$work/plan.out" ||
	loom_fail "plan does not name the objects it would create: $(cat "$work/plan.out")"
loom_ok "qos plan: $(grep -c ' -> ' "$work/plan.out") keys would change, nothing written"

[ "$(rc loom_ctl qos apply)" = 0 ] || loom_fail "qos apply: $(loom_ctl qos apply 2>&1)"
for s in leaf1 leaf2; do
	[ "$(r $s -n 4 hget "DSCP_TO_TC_MAP|LOOM" 26)" = 3 ] || loom_fail "$s: DSCP 26 is not class 3"
	[ "$(r $s -n 4 hget "PORT_QOS_MAP|Ethernet4" pfc_enable)" = 3 ] ||
		loom_fail "$s: PFC is not on priority 3 of Ethernet4"
done
[ "$(r leaf1 -n 4 hget "CABLE_LENGTH|AZURE" Ethernet0)" = 5m ] &&
	[ "$(r leaf2 -n 4 hget "CABLE_LENGTH|AZURE" Ethernet0)" = 30m ] ||
	loom_fail "cable lengths: leaf1 $(r leaf1 -n 4 hget "CABLE_LENGTH|AZURE" Ethernet0)," \
		"leaf2 $(r leaf2 -n 4 hget "CABLE_LENGTH|AZURE" Ethernet0) (want 5m, 30m)"
[ "$(rc loom_ctl qos status)" = 0 ] || loom_fail "status after apply: $(loom_ctl qos status)"
loom_ctl --json qos apply >"$work/apply2.json"
grep -q '"changes": 0' "$work/apply2.json" && ! grep -q '"changes": [1-9]' "$work/apply2.json" ||
	loom_fail "a second apply changed keys: $(cat "$work/apply2.json")"
loom_ok "qos apply: both leaves in policy, leaf2 with its own cable length; a second apply changes nothing"

# ---- 1b. the switches as read: inventory, LLDP, port changes as events -----------
loom_ctl switches >"$work/switches.out"
grep -q "^leaf1 .*sonic .*ACS-MSN2700 .*4/4 .*1 .*in policy" "$work/switches.out" ||
	loom_fail "loomctl switches: $(cat "$work/switches.out")"
loom_ctl switches leaf2 | grep -q "^Ethernet0 .*up .*up .*spine1 .*Ethernet2" ||
	loom_fail "loomctl switches leaf2: $(loom_ctl switches leaf2)"
sonic_oper leaf1 Ethernet8 down
loom_ctl qos status >/dev/null || :
loom_ctl events --limit 5 | grep -q "port_state .*leaf1\[Ethernet8\] .*up .*down" ||
	loom_fail "no port_state event: $(loom_ctl events --limit 5)"
"$B/loomctl" --db "$work/loom.db" switches | grep -q "^leaf1 .*3/4" ||
	loom_fail "--db switches: $("$B/loomctl" --db "$work/loom.db" switches)"
sonic_oper leaf1 Ethernet8 up
loom_ok "loomctl switches: model, ports up, LLDP neighbours; a port going down is an event (also from --db)"

# ---- 2. drift ---------------------------------------------------------------------
r leaf1 -n 4 hset "PORT_QOS_MAP|Ethernet4" pfc_enable "3,4" >/dev/null
[ "$(rc loom_ctl qos status)" = 1 ] || loom_fail "status did not fail on drift"
loom_ctl qos status | grep -q "^leaf1 .*drifted" || loom_fail "leaf1 not shown drifted"
loom_ctl qos status | grep -q "^leaf2 .*in policy" || loom_fail "leaf2 not shown in policy"
loom_ctl qos plan --switch leaf1 >"$work/drift.out" || :
[ "$(grep -c ' -> ' "$work/drift.out")" = 1 ] &&
	grep -q "PORT_QOS_MAP|Ethernet4 pfc_enable: 3,4 -> 3" "$work/drift.out" ||
	loom_fail "plan after drift: $(cat "$work/drift.out")"
[ "$(rc loom_ctl qos apply --switch leaf1)" = 0 ] && [ "$(rc loom_ctl qos status)" = 0 ] ||
	loom_fail "apply did not repair the drift"
loom_ok "drift: a key changed behind loom's back is found, shown alone, and repaired"

# ---- 2b. a partial apply says what landed, what did not, and why -----------------------
# leaf1's Redis refuses writes to keys that start with "PO" (an ACL key pattern; reads
# stay open): QUEUE|Ethernet0|3 lands, PORT_QOS_MAP|Ethernet4 does not.
r leaf1 -n 4 del "QUEUE|Ethernet0|3" >/dev/null
r leaf1 -n 4 hset "PORT_QOS_MAP|Ethernet4" pfc_enable "3,4" >/dev/null
r leaf1 acl setuser default resetkeys "%R~*" "~[^P]*" "~P[^O]*" >/dev/null
[ "$(rc loom_ctl qos apply --switch leaf1)" = 1 ] || loom_fail "a partial apply exited 0"
loom_ctl events --limit 5 >"$work/partial.out"
grep "qos_applied" "$work/partial.out" | grep "switch leaf1" |
	grep "partial: 2 of 3 keys landed (QUEUE|Ethernet0|3 scheduler, QUEUE|Ethernet0|3 wred_profile)" |
	grep "not applied: PORT_QOS_MAP|Ethernet4 pfc_enable" | grep -q "error: .*NOPERM" ||
	loom_fail "the partial apply's event: $(cat "$work/partial.out")"
r leaf1 acl setuser default allkeys >/dev/null
[ "$(rc loom_ctl qos apply --switch leaf1)" = 0 ] || loom_fail "no repair after the partial apply"
loom_ok "a partial apply's event names the keys that landed, those that did not, and the error"

# ---- 3. unreachable switch, plugin of another ABI --------------------------------
eval "kill \$REDIS_leaf2; wait \$REDIS_leaf2" || :
[ "$(rc loom_ctl qos status)" = 1 ] || loom_fail "status did not fail with leaf2 down"
loom_ctl qos status >"$work/down.out" || :
grep -q "^leaf2 .*unreachable" "$work/down.out" && grep -q "^leaf1 .*in policy" "$work/down.out" ||
	loom_fail "with leaf2's redis gone: $(cat "$work/down.out")"
loom_ok "a switch whose Redis is gone is unreachable, the other stays in policy"
if [ -e "$work/plugins/fake-abi3.so" ]; then
	conf
	printf '  - {name: odd, plugin: fake-abi3, address: x}\n' >>"$work/loom.yaml"
	kill -HUP "$LOOMD_PID"
	loom_until 50 grep -q "configuration reloaded" "$work/loomd.log" || loom_fail "no reload"
	loom_ctl qos status --switch odd >"$work/odd.out" || :
	grep -q "plugin ABI version 3, this loomd speaks 1 to 2" "$work/odd.out" ||
		loom_fail "the ABI-3 plugin was not refused by name: $(cat "$work/odd.out")"
	loom_ok "a plugin of ABI 3 is refused: $(grep -o 'fake-abi3.so: [^|]*' "$work/odd.out" | head -1)"
fi

# ---- 4. a contradictory policy is refused at reload -------------------------------
conf "  ecn: {min_bytes: 2000000, max_bytes: 1000000}"
n=$(grep -c "configuration reloaded" "$work/loomd.log" || :)
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q "roce.ecn: min_bytes 2000000 must be below max_bytes 1000000" \
	"$work/loomd.log" || loom_fail "the contradictory policy was not refused with its reason"
[ "$(grep -c "configuration reloaded" "$work/loomd.log")" = "$n" ] ||
	loom_fail "the contradictory configuration was loaded"
loom_ctl qos plan --switch leaf1 >"$work/after.out" || :
grep -q "^leaf1 .*in policy" "$work/after.out" || loom_fail "the running policy did not stay"
loom_ok "a reload with ECN min above max is refused (line and key named); the running policy stays"

# ---- 5. periodic read-back, re-apply, retry -----------------------------------------
conf "  interval: 10" "  reapply: true"
sed -i 's/^  interval: 0$//' "$work/loom.yaml"
n=$(grep -c "configuration reloaded" "$work/loomd.log" || :)
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $n ]" ||
	loom_fail "no reload with interval 10"
r leaf1 -n 4 hset "WRED_PROFILE|LOOM_LOSSLESS" green_max_threshold 999 >/dev/null
loom_until 250 sh -c "[ \"\$(redis-cli -s '$work/leaf1.sock' -n 4 hget 'WRED_PROFILE|LOOM_LOSSLESS' \
	green_max_threshold)\" = 1500000 ]" || loom_fail "the drift was not put back within 25 s"
loom_ctl events --limit 50 >"$work/events.out"
grep "qos_applied" "$work/events.out" | grep -q "WRED_PROFILE|LOOM_LOSSLESS green_max_threshold" &&
	grep "qos_state .*switch leaf1" "$work/events.out" |
	grep -q "drifted (re-applied): WRED_PROFILE|LOOM_LOSSLESS green_max_threshold" ||
	loom_fail "no drift and apply events naming the key: $(cat "$work/events.out")"
loom_ok "with reapply, loomd found the drifted WRED threshold by itself and put it back (event)"
loom_until 250 grep -q "switch leaf2: apply unreachable; trying again in" "$work/loomd.log" ||
	loom_fail "the unreachable leaf2 is not retried"
sonic_leaf leaf2 2
loom_until 300 sh -c "loomctl_s() { '$B/loomctl' -s '$work/loomd.sock' \"\$@\"; }; \
	loomctl_s events --limit 20 | grep -q 'switch leaf2.*unreachable.*in policy'" ||
	loom_fail "leaf2 back: not in policy by retry: $(loom_ctl events --limit 10)"
[ "$(r leaf2 -n 4 hget "CABLE_LENGTH|AZURE" Ethernet0)" = 30m ] ||
	loom_fail "leaf2 after its retry: no cable lengths"
loom_ok "the unreachable leaf2 was retried with backoff and is in policy once its Redis is back"

# ---- 6. a port removed from a switch is gone from the store, with an event ----------
r leaf1 -n 4 del "PORT|Ethernet12" >/dev/null
loom_ctl qos status >/dev/null || :
loom_ctl events --limit 10 | grep -q "port_state .*leaf1\[Ethernet12\] .*up .*absent" ||
	loom_fail "no port_state event: $(loom_ctl events --limit 10)"
loom_ctl switches leaf1 | grep -q "^Ethernet12 " && loom_fail "Ethernet12 is still stored"
loom_ok "a port removed from leaf1 left the store with a port_state (absent) event"
