#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/ib_qos_layers.sh: loom.yaml's ib_qos classes on a fabric
# that loom's dfsssp routes on VL layers (a torus), through libloomosm inside
# a running OpenSM (lib/qos/ib_qos.h has the scheme). Everything is checked with
# the real tools, the expectations computed here from the policy and from
# the VL count OpenSM's log reports:
#
#  1. `loomctl qos apply --ib` is accepted and says how the SLs and VLs are
#     shared; OpenSM programs the ports: smpquery sl2vl of a CA port and of a
#     switch port pair is SL l*K+s -> VL l*V+sl2vl[s] (K = 16 / layers SLs a
#     layer, V class VLs), and vlarb has every weighted class entry once per
#     layer; `loomctl qos status --ib` finds every port in policy.
#  2. PathRecords (saquery) of a partition with sl=1 carry SL l*K+1 for their
#     path's layer: the class survives in every one, and paths of more than
#     one layer are seen. The default partition's carry l*K, and so do
#     those of a partition whose sl= is no class SL of a layer (sl=K), which
#     OpenSM's log says once (ERR LOOM06).
#  3. A policy that cannot share the VLs with the layers (max_vls too small)
#     is refused by apply with the numbers, and OpenSM's options stay.
#  4. On a fabric dfsssp routes on one VL (a fat tree), the partition's sl=
#     is the PathRecords' SL: no layer to add, nothing overwritten.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ib_qos_lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need smpquery saquery

# The policy, once: the YAML and every expectation below come from these.
# Classes on SLs 0 and 1, VLs 0 and 1; SLs 2.. repeat them.
MAX_VLS=8
SL2VL="0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 15"
LOW="0:64 1:32"
HIGH="1:16"
CLASS_SL=1
policy_yaml() { # MAX_VLS
	printf '%s\n' "ib_qos:" "  classes: {compute: 0, storage: $CLASS_SL}" \
		"  sl2vl: [$(yaml_list "$SL2VL")]" "  vlarb_high: [$(yaml_arb "$HIGH")]" \
		"  vlarb_low: [$(yaml_arb "$LOW")]" "  max_vls: $1" \
		"  opensm_config: $work/opensm.conf"
}

"$B/loom-fabgen" torus --dims 3,3,2 --hosts-per-switch 2 -o "$work/t.net"
loom_ibsim "$work/t.net"
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x1001,sl=%s : ALL_CAS=full ;\n' \
	"$CLASS_SL" >"$work/partitions.conf"
printf '%s\n' "event_plugin_name loomosm" "routing_engine loom-dfsssp" "qos TRUE" \
	"partition_config_file $work/partitions.conf" "force_log_flush TRUE" \
	"log_flags 0x03" >"$work/opensm.conf"
loom_config
policy_yaml $MAX_VLS >>"$work/loom.yaml"
loom_loomd "$work/loom.yaml"
loom_until 100 test -S "$work/osm.sock" || loom_fail "loomd did not bind its report socket"
(OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD \
	LOOMOSM_SOCKET=$work/osm.sock exec opensm -F "$work/opensm.conf" \
	-f "$work/opensm.log" >"$work/opensm.out" 2>&1) &
OSM_PID=$!
LOOM_PIDS="$LOOM_PIDS $OSM_PID"
echo "$OSM_PID" >"$work/opensm.pid"
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
grep -q "loom engine loom-dfsssp routed" "$work/opensm.log" ||
	loom_osm_fail "loom-dfsssp did not route"
L=$(sed -n 's/.*loom engine loom-dfsssp routed.* \([0-9]*\) VLs\{0,1\}\(;.*\)\{0,1\}$/\1/p' \
	"$work/opensm.log" | tail -n 1)
[ "${L:-1}" -ge 2 ] || loom_osm_fail "the torus was routed on ${L:-1} VL: nothing to combine"
runs_seen() { loom_ctl route runs 2>/dev/null | grep -q "loom-dfsssp"; }
loom_until 100 runs_seen || loom_fail "loomd recorded no routing run: $(loom_ctl route runs 2>&1)"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"

# The expectations: K SLs a layer, V class VLs, the layered SL2VL row.
K=$((16 / L))
V=$(echo "$SL2VL" | awk -v k=$K '{ v = 0; for (i = 1; i <= k; i++)
	if ($i != 15 && $i + 1 > v) v = $i + 1; print v }')
WANT_SL2VL=$(echo "$SL2VL" | awk -v k=$K -v n=$L -v v=$V '{
	for (sl = 0; sl < 16; sl++) { l = int(sl / k); s = sl % k
		x = (l >= n || $(s + 1) == 15) ? 15 : l * v + $(s + 1)
		printf "%s%d", sl ? "," : "", x } print "" }')
expand() { # ENTRIES: every weighted entry once per layer, entry-major
	for e in $1; do
		[ "${e##*:}" -gt 0 ] && [ "${e%%:*}" -lt "$V" ] || continue
		l=0; while [ $l -lt "$L" ]; do
			printf '%s:%s ' $((l * V + ${e%%:*})) "${e##*:}"; l=$((l + 1)); done
	done | sed 's/ $//'
}
WANT_LOW=$(expand "$LOW")
WANT_HIGH=$(expand "$HIGH")

# SL2VL rows with commas, as WANT_SL2VL is written.
sl2vl_csv() { sl2vl_rows "$@" | tr ' ' ','; }
status_ok() { "$B/loomctl" -s "$work/loomd.sock" qos status --ib >"$work/status.out" 2>&1; }
CA_LID=$(loom_ibnetdiscover -p | awk '$1 == "CA" { print $2; exit }')
SW_PORT=$(loom_ibnetdiscover -p | awk '$1 == "SW" && $7 == "-" && $8 == "SW" { print $2, $3; exit }')
[ -n "$CA_LID" ] && [ -n "$SW_PORT" ] || loom_fail "no CA or inter-switch port in ibnetdiscover"

# A partition asking for SL K, past the SLs a layer has for classes; OpenSM
# reads it with the apply's SIGHUP.
printf 'wide=0x1002,sl=%s : ALL_CAS=full ;\n' "$K" >>"$work/partitions.conf"

# ---- 1. apply: the layered tables on the ports ------------------------------------
loom_ctl qos apply --ib >"$work/apply.out" || loom_fail "apply: $(cat "$work/apply.out")"
grep -q "routing on $L VL layers: SL = layer x $K + class SL, VL = layer x $V + class VL; SL2VL $WANT_SL2VL$" \
	"$work/apply.out" || loom_fail "apply does not say how the layers share the SLs (want" \
	"SL2VL $WANT_SL2VL): $(cat "$work/apply.out")"
layered() {
	[ "$(sl2vl_csv "$CA_LID" | sort -u)" = "$WANT_SL2VL" ] &&
	[ "$(sl2vl_csv $SW_PORT | sort -u)" = "$WANT_SL2VL" ]
}
loom_until 300 layered || loom_fail "SL2VL not layered 30 s after apply: CA $CA_LID:" \
	"$(sl2vl_csv "$CA_LID" | sort -u | tr '\n' ' '), switch port $SW_PORT:" \
	"$(sl2vl_csv $SW_PORT | sort -u | tr '\n' ' '); want $WANT_SL2VL"
for where in "$CA_LID" "$SW_PORT"; do
	for w in low high; do
		cap=$(cap_of "$(echo $w | sed 's/^./\u&/')" $where)
		[ -n "$cap" ] || loom_fail "no VLArb cap for $where"
		ent=$WANT_LOW; [ $w = high ] && ent=$WANT_HIGH
		# shellcheck disable=SC2086
		[ "$(vlarb_of $w $where)" = "$(want_arb "$ent" "$cap")" ] ||
			loom_fail "$where $w VLArb: $(vlarb_of $w $where), want $(want_arb "$ent" "$cap")"
	done
done
loom_until 300 status_ok || loom_fail "status: not in policy: $(cat "$work/status.out")"
grep -q "^routing on $L VL layers" "$work/status.out" || loom_fail "status: $(cat "$work/status.out")"
loom_ok "$L VL layers x classes: smpquery sl2vl = $WANT_SL2VL, vlarb low $WANT_LOW, high" \
	"$WANT_HIGH on CA LID $CA_LID and switch port $SW_PORT; $(tail -n 2 "$work/status.out" | head -n 1)"

# ---- 2. PathRecords: class and layer in one SL ---------------------------------------
lids=$(loom_ibnetdiscover -p | awk '$1 == "CA" { print $2 }' | head -n 12)
: >"$work/sls.txt"
: >"$work/sls0.txt"
: >"$work/slsk.txt"
for s in $lids; do
	for d in $lids; do
		[ "$s" = "$d" ] && continue
		LD_PRELOAD=$PRELOAD saquery -p --src-to-dst "$s:$d" --pkey 0x1001 2>/dev/null |
			sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p' >>"$work/sls.txt"
		LD_PRELOAD=$PRELOAD saquery -p --src-to-dst "$s:$d" --pkey 0xffff 2>/dev/null |
			sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p' >>"$work/sls0.txt"
		LD_PRELOAD=$PRELOAD saquery -p --src-to-dst "$s:$d" --pkey 0x1002 2>/dev/null |
			sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p' >>"$work/slsk.txt"
	done
done
check_sls() { # FILE CLASS_SL
	awk -v k=$K -v n=$L -v c="$2" '{ v = index("0123456789abcdef", tolower($1)) - 1
		if (v < 0 || v % k != c || int(v / k) >= n) bad = 1
		layer[int(v / k)] = 1; rows++ }
		END { for (l in layer) used++; exit (rows < 100 || bad || used < 2) }' "$1"
}
check_sls "$work/sls.txt" "$CLASS_SL" || loom_fail "PathRecords of sl=$CLASS_SL: SLs" \
	"$(sort "$work/sls.txt" | uniq -c | tr '\n' ' ')(want layer x $K + $CLASS_SL, 2 layers or more)"
check_sls "$work/sls0.txt" 0 || loom_fail "PathRecords of the default partition: SLs" \
	"$(sort "$work/sls0.txt" | uniq -c | tr '\n' ' ')"
check_sls "$work/slsk.txt" 0 || loom_fail "PathRecords of the partition with sl=$K: SLs" \
	"$(sort "$work/slsk.txt" | uniq -c | tr '\n' ' ')"
[ "$(grep -c 'ERR LOOM06' "$work/opensm.log")" = 1 ] ||
	loom_osm_fail "sl=$K past a layer's SLs was not said exactly once in OpenSM's log"
loom_ok "$(wc -l <"$work/sls.txt") PathRecords of the storage partition (sl=$CLASS_SL): SLs" \
	"$(sort -u "$work/sls.txt" | tr '\n' ' ')= layer x $K + $CLASS_SL; default partition:" \
	"$(sort -u "$work/sls0.txt" | tr '\n' ' ')and sl=$K: $(sort -u "$work/slsk.txt" | tr '\n' ' ')(said once)"

# ---- 3. a policy the layers leave no room for ------------------------------------------
# The largest VL count a port offers that is below V x L.
SMALL=$(for m in 15 8 4 2 1; do [ $m -lt $((V * L)) ] && { echo $m; break; }; done)
cp "$work/opensm.conf" "$work/opensm.conf.before"
loom_config
policy_yaml $SMALL >>"$work/loom.yaml"
kill -HUP "$LOOMD_PID"
loom_until 100 sh -c "grep -c 'configuration reloaded' '$work/loomd.log' | grep -q '^[1-9]'" ||
	loom_fail "loomd did not reload: $(tail -n 3 "$work/loomd.log")"
loom_ctl qos apply --ib >"$work/apply.out" 2>&1 &&
	loom_fail "apply with max_vls $SMALL accepted: $(cat "$work/apply.out")"
grep -q "$L VL layers.*$((V * L)) in all, but ib_qos.max_vls is $SMALL" "$work/apply.out" ||
	loom_fail "unclear refusal: $(cat "$work/apply.out")"
cmp -s "$work/opensm.conf" "$work/opensm.conf.before" ||
	loom_fail "a refused apply changed OpenSM's options"
loom_ok "max_vls $SMALL < $V class VLs x $L layers: apply refused ($(cut -c1-90 "$work/apply.out")...)," \
	"OpenSM's options untouched"

# ---- 4. one layer: the partition's SL stands ---------------------------------------------
kill "$OSM_PID" 2>/dev/null || :
wait "$OSM_PID" 2>/dev/null || :
loom_ibsim_stop
"$B/loom-fabgen" fattree --levels 2 --radix 4 --hosts 4 -o "$work/ft.net"
loom_ibsim "$work/ft.net"
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x1001,sl=%s : ALL_CAS=full ;\n' \
	"$CLASS_SL" >"$work/partitions.conf"
sed -i 's/^routing_engine .*/routing_engine loom-dfsssp/' "$work/opensm.conf"
rm -f "$work/opensm.log" "$work"/guid2lid
(OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD \
	exec opensm -F "$work/opensm.conf" -f "$work/opensm.log" >"$work/opensm.out" 2>&1) &
OSM_PID=$!
LOOM_PIDS="$LOOM_PIDS $OSM_PID"
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "fat tree: no SUBNET UP"
grep -q "loom engine loom-dfsssp routed .* 1 VL" "$work/opensm.log" ||
	loom_osm_fail "the fat tree was not routed by loom-dfsssp on one VL"
lids=$(loom_ibnetdiscover -p | awk '$1 == "CA" { print $2 }')
: >"$work/sls1.txt"
for s in $lids; do
	for d in $lids; do
		[ "$s" = "$d" ] && continue
		LD_PRELOAD=$PRELOAD saquery -p --src-to-dst "$s:$d" --pkey 0x1001 2>/dev/null |
			sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p' >>"$work/sls1.txt"
	done
done
[ "$(sort -u "$work/sls1.txt")" = "$CLASS_SL" ] && [ "$(wc -l <"$work/sls1.txt")" -ge 6 ] ||
	loom_fail "one layer: PathRecords of sl=$CLASS_SL carry SLs $(sort "$work/sls1.txt" | uniq -c | tr '\n' ' ')"
loom_ok "fat tree on one VL (loom-dfsssp): $(wc -l <"$work/sls1.txt") PathRecords of sl=$CLASS_SL all carry SL $CLASS_SL"
echo "ib_qos_layers.sh: all ok"
