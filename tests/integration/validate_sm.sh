#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/validate_sm.sh: the subnet managers and M_Keys loom's
# sweep reads (issue 43), judged by validation, on ibsim.
#
# A generated 2-level fat tree; loomd sweeps from host-0000. Two OpenSMs on
# two simulated hosts: host-0001 (-p 15, MASTER) and host-0002 (-p 1,
# STANDBY), both in validation.sm_allowed. The sweep asks SMInfo of every
# port that advertises IsSM, and the SA for its SMInfoRecord table:
# `fabric validate` lists both (state, priority, both in the SA's list) and
# finds nothing of them. A third OpenSM on host-0003 is a rogue: one
# sm-unlisted naming host-0003[1], an open issue, counted by /metrics'
# loom_validation_issues_by_code{code="sm-unlisted"} (what the shipped
# LoomSubnetManagerRogue alert selects on). The master stopped with
# SIGSTOP answers nothing: after the next sweep one sm-stalled naming it;
# SIGCONT, and after the next sweep it is gone. ibsim's ports have no
# M_Key: validation.keys report makes that one m-key-unset warning for the
# subnet (not one per port), required an error, off nothing.
# (A STANDBY above the MASTER's priority cannot be held in OpenSM: the
# master hands over to it; sm-priority is tested at unit level,
# tests/unit/lib/validate/test_validate_sm.c.)
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"

# osm NAME HOST PRIORITY: an OpenSM of its own (cache, log) on HOST, kept
# running; its pid in $OSM_<NAME> (its log flushed line by line: the test
# waits on it)
printf 'force_log_flush TRUE\n' >"$work/osm.conf"
osm() {
	mkdir -p "$work/$1"
	(SIM_HOST=$2 OSM_CACHE_DIR=$work/$1 LD_PRELOAD=$PRELOAD exec opensm -F "$work/osm.conf" -p "$3" \
		-f "$work/$1/opensm.log" >"$work/$1/opensm.out" 2>&1) &
	LOOM_PIDS="$LOOM_PIDS $!"
	eval "OSM_$1=$!"
}
osm master host-0001 15
loom_until 300 grep -q "SUBNET UP" "$work/master/opensm.log" || loom_fail "the master: no SUBNET UP"
osm standby host-0002 1
loom_until 300 grep -q "Entering STANDBY state" "$work/standby/opensm.log" ||
	loom_fail "the second OpenSM did not become STANDBY: $(tail -n 5 "$work/standby/opensm.log")"
# The master adds the standby to the SA's SMInfoRecord table when it next
# polls the SMs, which may come after the standby says STANDBY (a CI run
# swept in between): wait for the table, read as an operator reads it
# (saquery SMIR), to hold both.
smirs() { LD_PRELOAD=$PRELOAD saquery SMIR 2>/dev/null | grep -c 'SMInfoRecord dump' || :; }
two_smirs() { [ "$(smirs)" -ge 2 ]; }
loom_until 300 two_smirs || loom_fail "the SA does not list 2 SMs: $(LD_PRELOAD=$PRELOAD saquery SMIR 2>&1 | head -n 20)"

port=$(loom_free_port)
conf() {
	loom_config "$(loom_subnet_conf ft)" "validation:" "  sm_allowed: [host-0001, host-0002]" \
		"  keys: $1" "http:" "  listen: 127.0.0.1:$port"
}
# the value of loom_validation_issues_by_code for code $1 ("" none)
by_code() {
	curl -sf "http://127.0.0.1:$port/metrics" |
		sed -n "s/^loom_validation_issues_by_code{subnet=\"ft\",code=\"$1\",severity=\"[a-z]*\"} //p"
}
conf report
loom_loomd "$work/loom.yaml"

checks() { grep -c 'validated [0-9]* nodes' "$work/loomd.log" || :; }
checked_since() { [ "$(checks)" -gt "$_before" ]; }
sweep() {
	_before=$(checks)
	loom_ctl discover --wait >/dev/null || loom_fail "discover ($1)"
	loom_until 100 checked_since || loom_fail "no validation after the sweep ($1)"
}
validate() { rc=0; loom_ctl --json fabric validate >"$work/v.json" || rc=$?; }
# "code|severity|subject" of each finding of codes sm-* and m-key-*
findings() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["subnets"]:
    for f in r["findings"]:
        if f["code"].startswith(("sm-", "m-key-")):
            print(f["code"] + "|" + f["severity"] + "|" + f["subject"])' "$work/v.json"
}
# "node[port] STATE priority" of each SM fabric validate lists
sms() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["subnets"]:
    for s in r["subnet_managers"] or []:
        print("%s %s %d%s" % (s["where"], s["state"], s["priority"], " sa" if s["sa"] else ""))' "$work/v.json"
}
issue_open() { loom_ctl --json fabric issues | grep -q "\"$1\""; }

# ---- two allowed SMs ------------------------------------------------------------------
sweep two
validate
[ "$(sms)" = "host-0001[1] MASTER 15 sa
host-0002[1] STANDBY 1 sa" ] || loom_fail "fabric validate lists: $(sms) ($(cat "$work/v.json"))"
[ "$(findings)" = "m-key-unset|warning|subnet ft" ] || loom_fail "two allowed SMs: $(findings)"
grep -q '"got": "44 of 44 ports, e.g.' "$work/v.json" ||
	loom_fail "m-key-unset does not count 32 host ports and 12 switch ports 0: $(grep -o '"got": "[0-9]* of [^"]*' "$work/v.json")"
loom_ctl fabric validate >"$work/v.txt" || :
grep -q '^subnet managers (2):' "$work/v.txt" && grep -q 'host-0001\[1\] *priority 15 MASTER' "$work/v.txt" ||
	loom_fail "fabric validate's text: $(cat "$work/v.txt")"
loom_ok "MASTER host-0001 and STANDBY host-0002 listed (IsSM ports and the SA's SMInfoRecords), no SM finding; zero M_Keys: one m-key-unset warning for the subnet"

# ---- a rogue ------------------------------------------------------------------------------
osm rogue host-0003 0
loom_until 300 grep -q "Entering STANDBY state" "$work/rogue/opensm.log" ||
	loom_fail "the rogue OpenSM did not start: $(tail -n 5 "$work/rogue/opensm.log")"
sweep rogue
validate
[ "$(findings)" = "sm-unlisted|error|host-0003[1]
m-key-unset|warning|subnet ft" ] || loom_fail "a rogue SM: $(findings)"
issue_open sm-unlisted || loom_fail "no open sm-unlisted issue: $(loom_ctl fabric issues)"
[ "$(by_code sm-unlisted)" = 1 ] || loom_fail "/metrics does not count the sm-unlisted issue: $(by_code sm-unlisted)"
kill "$OSM_rogue"; wait "$OSM_rogue" 2>/dev/null || :
sweep rogue-gone
validate
[ "$(findings)" = "m-key-unset|warning|subnet ft" ] || loom_fail "the rogue stopped: $(findings)"
[ -z "$(by_code sm-unlisted)" ] || loom_fail "/metrics still counts sm-unlisted: $(by_code sm-unlisted)"
loom_ok "a third OpenSM on host-0003: sm-unlisted names host-0003[1] (and /metrics counts it); gone with it"

# ---- the master stopped ------------------------------------------------------------------
kill -STOP "$OSM_master"
sweep stopped
validate
[ "$(findings)" = "sm-stalled|error|host-0001[1]
m-key-unset|warning|subnet ft" ] || { kill -CONT "$OSM_master"; loom_fail "master stopped: $(findings)"; }
issue_open sm-stalled || { kill -CONT "$OSM_master"; loom_fail "no open sm-stalled issue"; }
kill -CONT "$OSM_master"
sweep continued
validate
[ "$(findings)" = "m-key-unset|warning|subnet ft" ] || loom_fail "master continued: $(findings)"
! issue_open sm-stalled || loom_fail "sm-stalled still open after SIGCONT"
loom_ok "the master SIGSTOPped: sm-stalled names host-0001[1] after the next sweep; SIGCONT clears it"

# ---- keys required, then off ---------------------------------------------------------------
# reload: SIGHUP, and wait for loomd to say it read the file
reload() {
	conf "$1"
	_r=$(grep -c 'configuration reloaded' "$work/loomd.log" || :)
	kill -HUP "$LOOMD_PID"
	loom_until 100 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $_r ]" ||
		loom_fail "loomd did not reload (keys: $1)"
}
reload required
sweep required
validate
[ "$(findings)" = "m-key-unset|error|subnet ft" ] || loom_fail "keys: required: $(findings)"
[ "$rc" = 5 ] || loom_fail "keys: required: exit $rc, not 5"
reload off
sweep off
validate
[ -z "$(findings)" ] || loom_fail "keys: off: $(findings)"
loom_ok "validation.keys: required makes m-key-unset an error (exit 5), off removes it"
