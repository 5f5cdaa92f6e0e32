#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/tenants_identity.sh: a host cannot name itself into
# another host's tenant (issue 37, tenants.host_identity, loom.yaml(5)).
# On ibsim + a running OpenSM; every PKey is checked with smpquery.
#
# The attack: root on one host sets its HCA's node description to
# "host-0001 mlx5_9" (here: the simulator's node host-0015 is described so),
# so that by the description rule it counts as a second rail of host-0001.
#
#  1. The default (host_identity: map) with an empty tenants.host_map:
#     host-0001 is unknown (the error says why and how to make a map), the
#     impostor's description names nobody into a partition.
#  2. `loomctl tenant hosts --map` (the bootstrap): the two CAs that claim
#     host-0001 are left commented, "claimed by two systems"; the others
#     are map lines.
#  3. With the real host-0001's port in the map: jobA on host-0001 holds
#     only that port (smpquery: the impostor's table lacks the key); a
#     host_claim event names the impostor's port; it is not refused.
#  3b. The PKey read-back on the last swept fabric (issue 44): a member cabled
#     since that sweep (host-0003, unlinked for the sweep, then back) makes
#     it walk again; the tenant is confirmed (smpquery), not timed out.
#  4. host_identity: description (reloaded): loomd warns at the reload; a
#     tenant on host-0001 is refused naming both CAs (two systems claim it),
#     a host_claim event says so; host-0002, claimed by one system, is fine.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work
loom_need smpquery

"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
# host-0015's root describes its HCA as a second rail of host-0001.
sed -i 's/"host-0015"/"host-0001 mlx5_9"/g' "$work/f.net"
loom_ibsim "$work/f.net"
printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work/partitions.conf" >"$work/opensm.conf"
loom_opensm_bg
: >"$work/hosts.map"
loom_config "tenants:" "  partitions_file: $work/partitions.conf" \
	"  opensm_pid_file: $work/opensm.pid" "  pkey_min: 4097" "  timeout_s: 30" \
	"  host_map: $work/hosts.map"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"

# Each CA port: "GUID LID DESC" from ibnetdiscover (the ground truth).
ports() { loom_ibnetdiscover -p | awk '$1 == "CA" { d = $0; sub(/.*\( ./, "", d);
	sub(/. - .*/, "", d); print $4, $2, d }'; }
guid_of() { ports | awk -v d="$1" '{ g = $1; l = $2; $1 = ""; $2 = ""; sub(/^  /, "")
	if ($0 == d) print g }'; }
lid_of() { ports | awk -v d="$1" '{ g = $1; l = $2; $1 = ""; $2 = ""; sub(/^  /, "")
	if ($0 == d) print l }'; }
pkeys_lid() { LD_PRELOAD=$PRELOAD smpquery pkeys "$1" 1 2>/dev/null | sed 's/^ *[0-9]*://'; }
REAL=$(guid_of host-0001)
FAKE=$(guid_of "host-0001 mlx5_9")
[ -n "$REAL" ] && [ -n "$FAKE" ] && [ "$REAL" != "$FAKE" ] ||
	loom_fail "no two CAs for host-0001 in the fabric: $(ports)"

# ---- 1. the default trusts no description ---------------------------------------------
loom_ctl tenant create jobA --hosts host-0001 >"$work/a0.out" 2>&1 &&
	loom_fail "host-0001 was found by its description under host_identity map: $(cat "$work/a0.out")"
grep -q "unknown host.*not in tenants.host_map.*host_identity is map.*host-0001" "$work/a0.out" ||
	loom_fail "unclear error: $(cat "$work/a0.out")"
grep -q . "$work/partitions.conf" 2>/dev/null && grep -q "0x1001" "$work/partitions.conf" &&
	loom_fail "a refused create wrote a partition: $(cat "$work/partitions.conf")"
loom_ok "host_identity map (the default): a host named only by descriptions is unknown, said why"

# ---- 2. the bootstrap map ---------------------------------------------------------------
loom_ctl tenant hosts >"$work/hosts.out" || loom_fail "tenant hosts: $(cat "$work/hosts.out")"
grep -q "^host identity: map" "$work/hosts.out" || loom_fail "tenant hosts: $(cat "$work/hosts.out")"
grep "$FAKE" "$work/hosts.out" | grep -q "claimed by two systems" ||
	loom_fail "the impostor's claim is not flagged: $(cat "$work/hosts.out")"
loom_ctl tenant hosts --map >"$work/boot.map" || loom_fail "tenant hosts --map"
grep -q "^# host-0001 $FAKE .*claimed by two systems" "$work/boot.map" &&
	grep -q "^# host-0001 $REAL " "$work/boot.map" ||
	loom_fail "host-0001's two claimants are not left out of the map: $(cat "$work/boot.map")"
[ "$(grep -c '^host-' "$work/boot.map")" = 14 ] ||
	loom_fail "expected 14 map lines (16 CAs less host-0001's two): $(cat "$work/boot.map")"
loom_ok "tenant hosts --map: 14 hosts as their descriptions name them, host-0001's two claimants left out"

# ---- 3. the map decides; the impostor is named, not a member ------------------------------
grep '^host-' "$work/boot.map" >"$work/hosts.map"
echo "host-0001 $REAL" >>"$work/hosts.map"
loom_ctl tenant create jobA --hosts 'host-[0001-0002]' >"$work/a.out" 2>&1 ||
	loom_fail "create jobA: $(cat "$work/a.out")"
KA=$(sed -n 's/^pkey: *0x\(....\)$/\1/p' "$work/a.out")
FA=0x$(printf '%x' $((0x$KA | 0x8000)))
pkeys_lid "$(lid_of host-0001)" | grep -qiw "$FA" || loom_fail "host-0001 lacks $FA"
pkeys_lid "$(lid_of host-0002)" | grep -qiw "$FA" || loom_fail "host-0002 lacks $FA"
pkeys_lid "$(lid_of "host-0001 mlx5_9")" | grep -qiw "$FA" &&
	loom_fail "the impostor's port holds jobA's key $FA"
grep -qi "$FAKE" "$work/partitions.conf" && loom_fail "the impostor is in the partitions file"
loom_ctl events --kind host_claim --limit 5 >"$work/ev.out"
grep -q "tenant jobA.*port $FAKE (\"host-0001 mlx5_9\".*names itself host-0001" "$work/ev.out" ||
	loom_fail "no host_claim event naming the impostor: $(cat "$work/ev.out")"
grep -q "tenant jobA.*$FAKE.*names itself host-0001" "$work/loomd.log" ||
	loom_fail "the impostor is not in the log"
loom_ok "map: jobA $FA on host-0001's mapped port only (smpquery), the impostor named in a host_claim event"

# ---- 3b. a member cabled since the last sweep ---------------------------------------------
# The read-back is handed the last swept fabric (issue 44); a member's port
# that is not in it makes the read walk the fabric again instead of waiting
# for a port it cannot see until the change times out.
loom_ibsim_cmd 'Unlink "host-0003"[1]'
loom_ctl discover --wait >/dev/null || loom_fail "discover without host-0003 failed"
loom_ctl --json nodes --type ca | grep -q '"host-0003"' && loom_fail "host-0003 still swept"
loom_ibsim_cmd 'ReLink "host-0003"[1]'
loom_ctl tenant create jobD --hosts host-0003 >"$work/d.out" 2>&1 ||
	loom_fail "jobD on host-0003 (cabled since the sweep): $(cat "$work/d.out")"
KD=$(sed -n 's/^pkey: *0x\(....\)$/\1/p' "$work/d.out")
pkeys_lid "$(lid_of host-0003)" | grep -qiw "0x$(printf '%x' $((0x$KD | 0x8000)))" ||
	loom_fail "host-0003 lacks jobD's key 0x$KD"
grep -q "a member's port is not in the last swept fabric: reading again with a walk" \
	"$work/loomd.log" || loom_fail "the read-back did not say it walked again"
loom_ok "a member cabled since the last sweep: the read-back walked again, jobD 0x$KD on host-0003 (smpquery)"

# ---- 4. description (permissive): two systems claiming one host are refused --------------
loom_config "tenants:" "  partitions_file: $work/partitions.conf" \
	"  opensm_pid_file: $work/opensm.pid" "  pkey_min: 4097" "  timeout_s: 30" \
	"  host_identity: description"
grep -q 'configuration reloaded' "$work/loomd.log" && loom_fail "reloaded before the test asked"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q 'configuration reloaded' "$work/loomd.log" || loom_fail "no reload"
grep -q "host_identity is description: .*a host can name itself into another host's tenant" \
	"$work/loomd.log" || loom_fail "no warning for the permissive mode"
loom_ctl tenant create jobB --hosts host-0001 >"$work/b.out" 2>&1 &&
	loom_fail "host-0001, claimed by two systems, was taken: $(cat "$work/b.out")"
grep -q "host-0001 is claimed by the CAs of 2 systems" "$work/b.out" &&
	grep -q "$REAL" "$work/b.out" && grep -q "$FAKE" "$work/b.out" ||
	loom_fail "the refusal does not name both CAs: $(cat "$work/b.out")"
loom_ctl events --kind host_claim --limit 5 | grep -q "tenant jobB.*claimed by the CAs of 2" ||
	loom_fail "no host_claim event for the refusal"
loom_ctl tenant create jobC --hosts host-0002 >"$work/c.out" 2>&1 ||
	loom_fail "host-0002 (one system) refused: $(cat "$work/c.out")"
loom_ok "description: warned at reload; host-0001 claimed by two systems refused naming both; host-0002 taken"
