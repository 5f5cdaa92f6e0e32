#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/ib_qos.sh: loom.yaml's ib_qos policy on ibsim + a running
# OpenSM. The tables are checked with smpquery (the real tool reading each
# port's SL2VLMappingTable and VLArbitrationTable), never with loom's view.
#
#  1. Before any apply, the ports hold OpenSM's tables, not the policy:
#     `loomctl qos status --ib` says so and exits 1.
#  2. `loomctl qos apply --ib` writes loom's block into OpenSM's options file
#     and signals OpenSM; its QoS manager programs the ports: smpquery sl2vl
#     and vlarb on a CA port and a switch port equal the policy; status says
#     every port is in policy.
#  3. Drift behind loom's back (OpenSM's options edited, OpenSM signalled):
#     status names the first differing entry, exits 1, and an ib_qos_drift
#     event is recorded; apply puts it back and ib_qos_in_policy follows.
#  4. A partition with the flag sl=N (a tenant's class) is accepted by
#     OpenSM, and its PathRecords carry that SL (saquery).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ib_qos_lib.sh"
loom_netns "$@"
loom_work
loom_need smpquery saquery

# The policy, once: the YAML and every expectation below come from these.
MAX_VLS=4
SL2VL="0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 15"
LOW="0:64 1:128 3:8"
HIGH="2:32"
CLASS_SL=2

"$B/loom-fabgen" fattree --levels 2 --radix 4 --hosts 4 -o "$work/f.net"
loom_ibsim "$work/f.net"
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x1001,sl=%s : ALL_CAS=full ;\n' \
	"$CLASS_SL" >"$work/static.conf"
cp "$work/static.conf" "$work/partitions.conf"  # loom owns it once it runs
printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work/partitions.conf" >"$work/opensm.conf"
loom_opensm_bg
loom_config "tenants:" "  host_identity: description" "  opensm_pid_file: $work/opensm.pid" \
	"  partitions_file: $work/partitions.conf" "  static_partitions: $work/static.conf" \
	"ib_qos:" "  classes: {compute: 0, storage: $CLASS_SL}" \
	"  sl2vl: [$(yaml_list "$SL2VL")]" "  vlarb_high: [$(yaml_arb "$HIGH")]" \
	"  vlarb_low: [$(yaml_arb "$LOW")]" "  high_limit: 8" "  max_vls: $MAX_VLS" \
	"  opensm_config: $work/opensm.conf"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"

# A CA port's LID and a cabled switch port (LID PORT), from ibnetdiscover.
CA_LID=$(loom_ibnetdiscover -p | awk '$1 == "CA" { print $2; exit }')
SW_PORT=$(loom_ibnetdiscover -p | awk '$1 == "SW" && $7 == "-" { print $2, $3; exit }')
[ -n "$CA_LID" ] && [ -n "$SW_PORT" ] || loom_fail "no CA or switch port in ibnetdiscover"
status_ok() { "$B/loomctl" -s "$work/loomd.sock" qos status --ib >"$work/status.out" 2>&1; }

# ---- 1. before apply -----------------------------------------------------------------
status_ok && loom_fail "status says in policy before any apply: $(cat "$work/status.out")"
grep -q "SL2VL\|VLArb" "$work/status.out" || loom_fail "no difference named: $(cat "$work/status.out")"
loom_ok "before apply: not in policy ($(grep -c 'SL2VL\|VLArb' "$work/status.out") ports differ)"

# ---- 2. apply through OpenSM ---------------------------------------------------------
loom_ctl qos apply --ib >"$work/apply.out" || loom_fail "apply: $(cat "$work/apply.out")"
grep -q "OpenSM re-reads it (signalled OpenSM pid $OSM_PID)" "$work/apply.out" || loom_fail "OpenSM not signalled: $(cat "$work/apply.out")"
grep -q "^qos_sl2vl $(echo "$SL2VL" | tr ' ' ',')$" "$work/opensm.conf" ||
	loom_fail "no qos_sl2vl in OpenSM's options: $(cat "$work/opensm.conf")"
loom_until 300 status_ok || loom_fail "not in policy 30 s after apply: $(cat "$work/status.out")"
for row in $(sl2vl_rows "$CA_LID" | tr ' ' ,) $(sl2vl_rows $SW_PORT | tr ' ' ,); do
	[ "$row" = "$(echo "$SL2VL" | tr ' ' ,)" ] || loom_fail "an SL2VL row is $row, policy $SL2VL"
done
[ "$(sl2vl_rows $SW_PORT | wc -l)" -gt 1 ] || loom_fail "switch port $SW_PORT: no SL2VL rows"
for where in "$CA_LID" "$SW_PORT"; do
	for w in low high; do
		cap=$(cap_of "$(echo $w | sed 's/^./\u&/')" $where)
		[ -n "$cap" ] || loom_fail "no VLArb cap for $where"
		ent=$LOW; [ $w = high ] && ent=$HIGH
		[ "$(vlarb_of $w $where)" = "$(want_arb "$ent" "$cap")" ] ||
			loom_fail "$where $w VLArb: $(vlarb_of $w $where), policy $(want_arb "$ent" "$cap")"
	done
done
n=$(sed -n 's/^\([0-9]*\) of \([0-9]*\) ports in policy$/\1 \2/p' "$work/status.out")
[ -n "$n" ] && [ "${n% *}" = "${n#* }" ] && [ "${n% *}" -gt 0 ] ||
	loom_fail "status: $(tail -n 2 "$work/status.out")"
loom_ok "applied through OpenSM: smpquery sl2vl/vlarb of CA LID $CA_LID and switch port" \
	"$SW_PORT equal the policy; status: ${n% *} of ${n#* } ports in policy"

# ---- 3. drift behind loom's back ------------------------------------------------------
DRIFT=$(echo "$SL2VL" | awk '{ $2 = 0; print }')
sed -i "s/^qos_sl2vl .*/qos_sl2vl $(echo "$DRIFT" | tr ' ' ,)/" "$work/opensm.conf"
kill -HUP "$OSM_PID"
loom_until 300 sh -c "[ \"\$(LD_PRELOAD=$PRELOAD smpquery sl2vl $CA_LID 2>/dev/null | tail -n 1 |
	cut -d'|' -f3 | tr -d ' ')\" = 0 ]" || loom_fail "OpenSM did not reprogram SL 1"
status_ok && loom_fail "status says in policy after the drift"
grep -q "SL2VL in [0-9]* SL 1: VL 0, policy $(echo "$SL2VL" | cut -d' ' -f2)" "$work/status.out" ||
	loom_fail "the drift is not named: $(cat "$work/status.out")"
loom_ctl events --limit 100 >"$work/events.out"
grep -q "ib_qos_drift.*SL2VL in [0-9]* SL 1: VL 0" "$work/events.out" ||
	loom_fail "no ib_qos_drift event: $(cat "$work/events.out")"
loom_ctl qos apply --ib >/dev/null || loom_fail "second apply"
loom_until 300 status_ok || loom_fail "not back in policy: $(cat "$work/status.out")"
loom_ctl events --limit 100 | grep -q "ib_qos_in_policy" || loom_fail "no ib_qos_in_policy event"
loom_ok "drift (SL 1 -> VL 0 behind loom's back) reported and recorded; apply put it back"

# ---- 4. a partition's SL --------------------------------------------------------------
grep -q "ERR.*partition\|parse.*partition" "$work/opensm.log" &&
	loom_osm_fail "OpenSM complained about the partitions file"
SRC=$(loom_ibnetdiscover -p | awk '$1 == "CA" { print $2 }' | sed -n 2p)
LD_PRELOAD=$PRELOAD saquery -p --src-to-dst "$SRC:$CA_LID" --pkey 0x1001 >"$work/pr.out" 2>&1 ||
	loom_fail "saquery: $(cat "$work/pr.out")"
sl=$(sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-f]*\)$/\1/p' "$work/pr.out" | head -n 1)
[ -n "$sl" ] && [ "$((sl))" = "$CLASS_SL" ] || loom_fail "PathRecord of PKey 0x1001: SL '$sl', partition sl=$CLASS_SL: $(cat "$work/pr.out")"
loom_ok "partition flag sl=$CLASS_SL accepted by OpenSM; its PathRecords carry SL $CLASS_SL"

# ---- 5. a tenant of a traffic class -------------------------------------------------
loom_ctl tenant create jobS --hosts host-0000,host-0001 --class nosuch >"$work/t.out" 2>&1 &&
	loom_fail "a tenant of an unknown class was created"
grep -q 'class "nosuch" is not in loom.yaml' "$work/t.out" || loom_fail "unclear error: $(cat "$work/t.out")"
loom_ctl tenant create jobS --hosts host-0000,host-0001 --class storage >"$work/t.out" ||
	loom_fail "tenant create --class: $(cat "$work/t.out")"
KS=$(sed -n 's/^pkey: *\(0x....\)$/\1/p' "$work/t.out")
grep -q "^class: *storage" "$work/t.out" || loom_fail "show: $(cat "$work/t.out")"
grep -q "^loom_jobS=$KS,sl=$CLASS_SL " "$work/partitions.conf" ||
	loom_fail "partitions file: $(grep jobS "$work/partitions.conf")"
A=$(loom_ibnetdiscover -p | awk "/'host-0000'/ && \$1 == \"CA\" { print \$2; exit }")
Z=$(loom_ibnetdiscover -p | awk "/'host-0001'/ && \$1 == \"CA\" { print \$2; exit }")
LD_PRELOAD=$PRELOAD saquery -p --src-to-dst "$A:$Z" --pkey "$KS" >"$work/pr.out" 2>&1 ||
	loom_fail "saquery: $(cat "$work/pr.out")"
sl=$(sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-f]*\)$/\1/p' "$work/pr.out" | head -n 1)
[ -n "$sl" ] && [ "$((sl))" = "$CLASS_SL" ] || loom_fail "PathRecord of jobS's $KS: SL '$sl', want $CLASS_SL"
loom_ok "tenant jobS of class storage: its partition carries sl=$CLASS_SL and its PathRecords SL $CLASS_SL (saquery); an unknown class is refused"
