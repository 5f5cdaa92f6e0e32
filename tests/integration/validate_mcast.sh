#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/validate_mcast.sh: multicast trees validated (issue 43) on
# ibsim + OpenSM.
#
# Hosts on four leaves of a generated fat tree join three groups and
# OpenSM's IPoIB broadcast group (an SA MCMemberRecord Set each, from
# tests/integration/mcast_drive under the umad2sim preload with SIM_HOST):
# OpenSM builds the trees and programs the switches' MFTs, and loom reads
# them back with the SA's groups and finds nothing; `fabric validate` lists
# the four groups with their members. Then the test changes the MFTs with
# SMP Sets (OpenSM runs with no periodic sweep, so nothing repairs them):
# a member's port dropped on its leaf is one mcast-unreached naming the
# group and that leaf port, recorded as an open issue after the sweep; a
# loom.yaml with the wrong SM_Key makes the read fail (the SA hides the
# members) and the open finding stays, with a warning; with the port back
# and a second spine forwarding the group between two of its leaves, an
# mcast-loop of that group.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work
D=$B/tests/integration/mcast_drive
[ -x "$D" ] || loom_skip "$D is not built (make check builds it)"

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
# No periodic sweep: OpenSM neither repairs nor reprograms the tables the
# test changes; it still answers the SA.
printf 'sweep_interval 0\nforce_log_flush TRUE\nlog_flags 0x03\n' >"$work/opensm.conf"
loom_opensm_bg

drive() { # drive HOST ARGS...: mcast_drive attached as HOST
	_h=$1; shift
	SIM_HOST=$_h LD_PRELOAD=$PRELOAD "$D" "$@" 2>>"$work/drive.err"
}
G1=ff12:1234::1 G2=ff12:1234::2 G3=ff12:1234::3 IPOIB=ff12:401b:ffff::ffff:ffff
for h in host-0001 host-0006 host-0013 host-0030; do
	drive "$h" join "$G1" "$G2" "$IPOIB" >>"$work/joins.txt" || loom_fail "join from $h"
	echo "$h $G1 $G2 $IPOIB" >>"$work/members.txt"
done
for h in host-0002 host-0020; do
	drive "$h" join "$G3" >>"$work/joins.txt" || loom_fail "join from $h"
	echo "$h $G3" >>"$work/members.txt"
done
mlid_of() { awk -v g="$1" '$1 == g { print $2; exit }' "$work/joins.txt"; }
M1=$(mlid_of "$G1")
loom_ibnetdiscover >"$work/ibnd.txt"
lid_of() { sed -n "s/^Switch.*# \"$1\" .* lid \([0-9]*\) .*/\1/p" "$work/ibnd.txt"; }
LEAF1=$(lid_of leaf-1)
[ -n "$M1" ] && [ -n "$LEAF1" ] || loom_fail "no MLID ($M1) or LID of leaf-1 ($LEAF1)"
# Wait until OpenSM has programmed every member's leaf port for its groups.
has_port() { drive host-0000 mask "$1" "$2" 8 | grep -qw "$3"; }
programmed() {
	while read -r h groups; do
		set -- $(sed -n "/^Hca 1 \"$h\"/{n;s/^\[1\] \"\(leaf-[0-9]*\)\"\[\([0-9]*\)\]/\1 \2/p}" "$work/ft.net")
		for g in $groups; do
			has_port "$(lid_of "$1")" "$(mlid_of "$g")" "$2" || return 1
		done
	done <"$work/members.txt"
}
loom_until 100 programmed || loom_fail "OpenSM did not program the members' leaves"
loom_config "$(loom_subnet_conf ft)" "validation:" "  multicast: true"
loom_loomd "$work/loom.yaml"
checks() { grep -c 'validated [0-9]* nodes' "$work/loomd.log" || :; }
checked_since() { [ "$(checks)" -gt "$_before" ]; }
sweep() {
	_before=$(checks)
	loom_ctl discover --wait >/dev/null || loom_fail "discover ($1)"
	loom_until 200 checked_since || loom_fail "no validation after the sweep ($1)"
}
validate() {
	loom_ctl --json fabric validate >"$work/v.json" || :
}
# "code|subject" of the findings whose code starts with mcast
mfindings() {
	python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["subnets"]:
    for f in s["findings"]:
        if f["code"].startswith("mcast"):
            print(f["code"] + "|" + f["subject"])' "$work/v.json"
}
field() { python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["subnets"][0]; print(eval(sys.argv[2]))' "$work/v.json" "$1"; }

sweep clean
validate
[ -z "$(mfindings)" ] || loom_fail "multicast findings on OpenSM's trees: $(mfindings)"
[ "$(field 'len(s["multicast"]["groups"])')" = 4 ] ||
	loom_fail "not the four groups: $(field 's.get("multicast")') $(field 's.get("multicast_warning")')"
[ "$(field 'sorted(g["members"] for g in s["multicast"]["groups"])')" = "[2, 4, 4, 4]" ] ||
	loom_fail "members per group: $(field 's["multicast"]')"
loom_ctl fabric validate >"$work/v.txt" || :
grep -q "^multicast: 4 groups" "$work/v.txt" && grep -q "^  $G3 mlid $(mlid_of "$G3"): 2 members" "$work/v.txt" ||
	loom_fail "loomctl fabric validate does not list the groups: $(cat "$work/v.txt")"
loom_ok "OpenSM's trees of 4 groups: no finding ($(field 's["multicast"]["mads"]') MADs)"

drive host-0000 mft "$LEAF1" "$M1" 3 drop || loom_fail "drop leaf-1[3] from $G1"
sweep dropped
validate
[ "$(mfindings)" = "mcast-unreached|$G1 leaf-1[3]" ] ||
	loom_fail "a dropped member port: want one mcast-unreached $G1 leaf-1[3], got: $(mfindings)"
loom_ctl --json fabric issues >"$work/issues.json" || :
grep -q "mcast-unreached" "$work/issues.json" || loom_fail "the finding is not an open issue"
loom_ok "a member's port dropped on its leaf: mcast-unreached $G1 leaf-1[3]"

# A read that fails judges nothing: the open finding stays. (SM_Key 0 is
# untrusted: OpenSM answers, without the members; a wrong key gets no answer.)
loom_config "$(loom_subnet_conf ft)" "validation:" "  multicast_sm_key: 0"
kill -HUP "$LOOMD_PID"
loom_until 100 grep -q "reload" "$work/loomd.log" || :
sleep 1
sweep "wrong key"
validate
field 's.get("multicast_warning", "")' | grep -q "SM_Key" ||
	loom_fail "no warning of the failed read: $(field 's.get("multicast_warning")')"
loom_ctl --json fabric issues >"$work/issues.json" || :
grep -q "mcast-unreached" "$work/issues.json" ||
	loom_fail "a failed read cleared the open multicast finding"
loom_ok "the SA hides the members from a wrong SM_Key: a warning, the finding stays open"
loom_config "$(loom_subnet_conf ft)" "validation:" "  multicast: true"
kill -HUP "$LOOMD_PID"
sleep 1

# A loop: a spine outside the tree forwards the group between leaf-0 and
# leaf-1, which forward it to that spine.
drive host-0000 mft "$LEAF1" "$M1" 3 add || loom_fail "restore leaf-1[3]"
LEAF0=$(lid_of leaf-0)
spine=""
for s in spine-0 spine-1 spine-2 spine-3; do
	if [ -z "$(drive host-0000 mask "$(lid_of $s)" "$M1" 8 | tr -d ' ')" ]; then
		spine=$s
		break
	fi
done
[ -n "$spine" ] || loom_fail "every spine forwards $G1"
SP=$(lid_of "$spine")
# leaf-N's port 5 + spine index goes to spine-I; spine-I's port N + 1 to leaf-N
i=${spine#spine-}
drive host-0000 mft "$LEAF0" "$M1" $((5 + i)) add &&
	drive host-0000 mft "$LEAF1" "$M1" $((5 + i)) add &&
	drive host-0000 mft "$SP" "$M1" 1 add &&
	drive host-0000 mft "$SP" "$M1" 2 add || loom_fail "the loop's MFT Sets"
grep -q "^\[$((5 + i))\].*\"$spine\"\[1\]" "$work/ft.net" || loom_fail "leaf-0[$((5 + i))] is not on $spine[1]"
sweep loop
validate
mfindings | grep -q "^mcast-loop|$G1 " || loom_fail "no mcast-loop of $G1: $(mfindings)"
mfindings | grep -qv "^mcast-loop|$G1 \|^mcast-not-updown|$G1 " &&
	loom_fail "other multicast findings than the loop's: $(mfindings)"
loom_ok "a second spine forwarding $G1 between two leaves: $(mfindings | grep loop)"
