#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `loomctl ar status` on a live fabric (issue 7): ibsim, a generated 3-level
# fat tree routed by OpenSM (with loom's engine through libloomosm.so when it
# is built, else OpenSM's own), loomd. ibsim 0.10 answers no vendor SMP, so
# every switch is a switch without adaptive routing. Proves that
#  - the probe reaches every switch (ibsim logs each ARInfo Get it drops),
#    lists every switch ibnetdiscover finds, each unsupported with the reason
#    "no answer to ARInfo (vendor attribute 0xFF20)" and enable unknown;
#  - the Gets run concurrently, max_smps at once: the probe takes at most
#    ceil(switches / max_smps) timeouts per try, not one per switch and try
#    (ibsim reports each dropped Get as timed out at once, so it is quicker);
#  - each switch's first finding is an ar_unsupported event saying it is left
#    on static routing, and probing again adds no event;
#  - static routing is untouched: the forwarding tables (dump_fts) are the
#    same before and after, and route check still delivers every pair;
#  - `ar program` with ar.program false (the default) is refused naming
#    ar.program; its --dry-run reports every switch unsupported, sends no Set
#    and records nothing; both runs have max_smps switches under way at once;
#  - after a reload to `ar: {program: true, shield: true}`, `ar program`
#    reports every switch unsupported, SHIELD unsupported, each after its
#    ARInfo GetCap tries alone: ibsim logs the Gets (0xff20) and not one
#    packet of the group table or the AR LFTs (0xff21-0xff23), so no Set and
#    no table access was tried; one ar_unsupported event per switch; the
#    forwarding tables (dump_fts) are byte-identical before and after; a
#    bad ar: section on reload is refused and the running one stays;
#  - --cached and loomctl --db (loomd stopped) show the same switches;
#  - usage errors exit 2.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3
command -v dump_fts >/dev/null 2>&1 || loom_skip "dump_fts (infiniband-diags) is not installed"
loom_work

py() { python3 -c "$@"; }
# The probe's MAD settings: a short timeout and a small window, so that the
# test is quick and the window is exercised (several switches per slot).
TIMEOUT_MS=100 RETRIES=1 MAX_SMPS=8

loom_gen ft fattree --levels 3 --radix 8 --hosts 32
flags=$(sed -n 's/^# ibsim flags: //p' "$work/ft.net")
# shellcheck disable=SC2086
loom_ibsim "$work/ft.net" $flags

PLUGIN_DIR=$B/plugins/opensm/.libs
if [ -e "$PLUGIN_DIR/libloomosm.so" ]; then
	printf 'event_plugin_name loomosm\nrouting_engine loom\nforce_log_flush TRUE\nlog_flags 0x03\n' \
		>"$work/opensm.conf"
	(OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD \
		LOOMOSM_SOCKET=$work/osm.sock exec opensm -F "$work/opensm.conf" -o \
		-f "$work/opensm.log" >"$work/opensm.out" 2>&1) || :
	grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM did not bring the subnet up"
else
	loom_opensm
fi
engine=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' \
	"$work/opensm.log" | tail -n 1)
loom_ok "OpenSM routed the fat tree with ${engine:-its engine} and brought it up"

loom_config "  timeout_ms: $TIMEOUT_MS" "  retries: $RETRIES" "  max_smps: $MAX_SMPS"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"
loom_ibnetdiscover >"$work/ibnd.txt" || loom_fail "ibnetdiscover"
n_sw=$(grep -c '^Switch' "$work/ibnd.txt")
LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.before" 2>/dev/null || loom_fail "dump_fts"

# ---- the live probe ------------------------------------------------------------------
loom_ctl --json ar status >"$work/ar.json" || loom_fail "ar status: exit $?: $(cat "$work/ar.json")"
python3 - "$work/ar.json" "$work/ibnd.txt" "$TIMEOUT_MS" "$RETRIES" "$MAX_SMPS" <<'EOP' ||
import json, math, re, sys
a = json.load(open(sys.argv[1]))
timeout, retries, window = (int(x) for x in sys.argv[3:6])
want = {"0x" + m.group(1) for m in re.finditer(r'^Switch\s+\d+\s+"S-([0-9a-f]{16})"',
                                                  open(sys.argv[2]).read(), re.M)}
sw = a["switches"]
assert {s["guid"] for s in sw} == want and len(sw) == len(want), (len(sw), len(want))
for s in sw:
    assert s["supported"] is False and s["enabled"] is None, s
    assert s["groups_used"] is None and s["group_cap"] is None and s["caps"] is None, s
    assert s["mad_status"] is None, s
    assert "no answer to ARInfo (vendor attribute 0xFF20)" in s["reason"], s
    assert "0xFF20) in %d tries" % (retries + 1) in s["reason"], s
assert a["supported"] == 0 and a["unsupported"] == len(want), a
p = a["probe"]
assert p["cached"] is False and p["switches"] == len(want), p
assert p["smps"] == len(want) * (retries + 1), p
assert p["in_flight"] == min(window, len(want)), p
assert p["timeout_ms"] == timeout and p["retries"] == retries, p
# At most one timeout per try and window of switches, never one per switch.
waves = math.ceil(len(want) / window) * (retries + 1)
assert p["duration_ms"] <= waves * timeout + 1000, (p, waves)
EOP
	loom_fail "ar status: $(head -c 2000 "$work/ar.json")"
ms=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["duration_ms"])' "$work/ar.json")
loom_ok "ar status: the $n_sw switches ibnetdiscover finds, all unsupported (no answer to ARInfo), probed in $ms ms"

# ibsim saw the Gets (it drops vendor attributes and says so).
n_drop=$(grep -c 'no one to handle pkt.*attr 0xff20' "$work/ibsim.log" || :)
[ "$n_drop" -ge "$n_sw" ] || loom_fail "ibsim logged $n_drop dropped ARInfo Gets for $n_sw switches"
loom_ok "ibsim dropped $n_drop ARInfo Gets (vendor attribute 0xff20) sent to the $n_sw switches"

# ---- events ----------------------------------------------------------------------------
loom_ctl --json events >"$work/events.json" || loom_fail "events"
python3 - "$work/events.json" "$work/ar.json" <<'EOP' || loom_fail "ar events: $(head -c 2000 "$work/events.json")"
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e["kind"].startswith("ar_")]
sw = json.load(open(sys.argv[2]))["switches"]
assert len(ev) == len(sw) and all(e["kind"] == "ar_unsupported" for e in ev), ev
assert sorted(e["subject"].split()[0] for e in ev) == sorted(s["guid"] for s in sw), ev
assert all("left on static routing" in e["new"] and "0xFF20" in e["new"] for e in ev), ev
EOP
loom_ok "one ar_unsupported event per switch, each saying it is left on static routing"

loom_ctl --json ar status >"$work/ar2.json" || loom_fail "second ar status"
loom_ctl --json events >"$work/events2.json" || loom_fail "events"
python3 - "$work/events.json" "$work/events2.json" <<'EOP' || loom_fail "a second probe of the same switches added events"
import json, sys
count = lambda f: sum(e["kind"].startswith("ar_") for e in json.load(open(f)))
assert count(sys.argv[1]) == count(sys.argv[2]), (count(sys.argv[1]), count(sys.argv[2]))
EOP
loom_ok "probing again finds no change and records no event"

# ---- static routing untouched ------------------------------------------------------------
LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.after" 2>/dev/null || loom_fail "dump_fts after the probes"
cmp -s "$work/fts.before" "$work/fts.after" || loom_fail "the forwarding tables changed during the probes"
loom_ctl --json route check >"$work/check.json" || loom_fail "route check after the probes: $(head -c 2000 "$work/check.json")"
pairs=$(py 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"]; print("%d of %d" % (m["delivered"], m["pairs"]))' "$work/check.json")
loom_ok "static routing untouched: dump_fts unchanged, route check delivers $pairs pairs"

# ---- ar program -----------------------------------------------------------------------------
ev_count() { py 'import json,sys; print(sum(e["kind"].startswith(sys.argv[2]) for e in json.load(open(sys.argv[1]))))' "$@"; }
loom_ctl --json events >"$work/ev0.json" || loom_fail "events"
n_ev0=$(ev_count "$work/ev0.json" ar_)
rc=0; loom_ctl ar program >"$work/prog0.out" 2>&1 || rc=$?
[ $rc = 1 ] || loom_fail "ar program with ar.program false: exit $rc: $(cat "$work/prog0.out")"
grep -q 'set ar.program: true in loom.yaml' "$work/prog0.out" && grep -q 'defaults to false' "$work/prog0.out" ||
	loom_fail "the refusal does not name ar.program and why: $(cat "$work/prog0.out")"
loom_ok "ar program is refused while ar.program is false, naming it and why"

n_ff20_0=$(grep -c 'no one to handle pkt.*attr 0xff20' "$work/ibsim.log" || :)
loom_ctl --json ar program --dry-run >"$work/dry.json" || loom_fail "ar program --dry-run: exit $?: $(head -c 2000 "$work/dry.json")"
python3 - "$work/dry.json" "$work/ibnd.txt" "$RETRIES" "$MAX_SMPS" <<'EOP' || loom_fail "ar program --dry-run: $(head -c 2000 "$work/dry.json")"
import json, re, sys
a = json.load(open(sys.argv[1])); retries, window = int(sys.argv[3]), int(sys.argv[4])
want = {"0x" + m.group(1) for m in re.finditer(r'^Switch\s+\d+\s+"S-([0-9a-f]{16})"',
                                                  open(sys.argv[2]).read(), re.M)}
sw = a["switches"]
assert a["dry_run"] is True and a["events"] == 0, a
assert {s["guid"] for s in sw} == want and len(sw) == len(want), (len(sw), len(want))
for s in sw:
    assert s["result"] == "unsupported" and s["sets"] == 0 and s["groups"] == 0, s
    assert s["smps_sent"] == retries + 1 and s["shield"] == "off", s
    assert s["reason"].startswith("no answer to ARInfo GetCap (vendor attribute 0xFF20"), s
r = a["run"]
assert r["dry_run"] and r["unsupported"] == len(want) and r["switches"] == len(want), r
assert r["programmed"] == r["refused"] == r["failed"] == 0, r
assert r["smps"] == len(want) * (retries + 1), r
# max_smps switches under way at once, not one after the other.
assert r["in_flight"] == min(window, len(want)), r
EOP
loom_ctl --json events >"$work/ev1.json" || loom_fail "events"
[ "$(ev_count "$work/ev1.json" ar_)" = "$n_ev0" ] || loom_fail "a dry run recorded events"
loom_ok "ar program --dry-run: the $n_sw switches, all unsupported, nothing recorded"

# Reload with programming on (and SHIELD asked for).
n_reload=$(grep -c 'configuration reloaded' "$work/loomd.log" || :)
loom_config "  timeout_ms: $TIMEOUT_MS" "  retries: $RETRIES" "  max_smps: $MAX_SMPS" \
	"ar:" "  program: true" "  shield: true"
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $n_reload ]" ||
	loom_fail "loomd did not reload"
n_ff20_1=$(grep -c 'no one to handle pkt.*attr 0xff20' "$work/ibsim.log" || :)
loom_ctl --json ar program >"$work/prog.json" || loom_fail "ar program: exit $?: $(head -c 2000 "$work/prog.json")"
python3 - "$work/prog.json" "$work/ibnd.txt" "$RETRIES" "$MAX_SMPS" <<'EOP' || loom_fail "ar program: $(head -c 2000 "$work/prog.json")"
import json, re, sys
a = json.load(open(sys.argv[1])); retries, window = int(sys.argv[3]), int(sys.argv[4])
want = {"0x" + m.group(1) for m in re.finditer(r'^Switch\s+\d+\s+"S-([0-9a-f]{16})"',
                                                  open(sys.argv[2]).read(), re.M)}
sw = a["switches"]
assert a["dry_run"] is False and a["events"] == len(want), a
assert {s["guid"] for s in sw} == want and len(sw) == len(want), (len(sw), len(want))
for s in sw:
    assert s["result"] == "unsupported" and s["sets"] == 0 and s["smps_sent"] == retries + 1, s
    assert s["shield"] == "unsupported" and not s["ar_state_unknown"], s
    assert "left on static routing" in s["reason"], s
r = a["run"]
assert r["unsupported"] == len(want) and r["shield"] is True and r["mode"] == "tree", r
assert r["smps"] == len(want) * (retries + 1), r
# max_smps switches under way at once, not one after the other.
assert r["in_flight"] == min(window, len(want)), r
EOP
n_ff20_2=$(grep -c 'no one to handle pkt.*attr 0xff20' "$work/ibsim.log" || :)
[ $((n_ff20_2 - n_ff20_1)) -ge $((n_sw * (RETRIES + 1))) ] ||
	loom_fail "ibsim logged $((n_ff20_2 - n_ff20_1)) ARInfo Gets for $n_sw switches"
[ $((n_ff20_1 - n_ff20_0)) -ge $((n_sw * (RETRIES + 1))) ] ||
	loom_fail "ibsim logged $((n_ff20_1 - n_ff20_0)) ARInfo Gets of the dry run for $n_sw switches"
n_tables=$(grep -c 'attr 0xff2[1-3]' "$work/ibsim.log" || :)
[ "$n_tables" = 0 ] || loom_fail "ibsim saw $n_tables AR table packets (0xff21-0xff23)"
loom_ok "ar program (program: true, shield: true): the $n_sw switches unsupported, each after its ARInfo GetCap tries alone; ibsim saw no AR table packet"

loom_ctl --json events >"$work/ev2.json" || loom_fail "events"
python3 - "$work/ev1.json" "$work/ev2.json" "$work/prog.json" <<'EOP' || loom_fail "ar program events: $(head -c 2000 "$work/ev2.json")"
import json, sys
old = {e["id"] for e in json.load(open(sys.argv[1]))}
new = [e for e in json.load(open(sys.argv[2])) if e["id"] not in old and e["kind"].startswith("ar_")]
sw = json.load(open(sys.argv[3]))["switches"]
assert len(new) == len(sw) and all(e["kind"] == "ar_unsupported" for e in new), new
assert sorted(e["subject"].split()[0] for e in new) == sorted(s["guid"] for s in sw), new
assert all("left on static routing" in e["new"] for e in new), new
EOP
LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.prog" 2>/dev/null || loom_fail "dump_fts after ar program"
cmp -s "$work/fts.before" "$work/fts.prog" || loom_fail "the forwarding tables changed during ar program"
loom_ok "one ar_unsupported event per switch; dump_fts byte-identical before and after"

loom_ctl ar program >"$work/prog.out" || loom_fail "ar program (table): exit $?"
grep -q '^SWITCH  *GUID  *RESULT  *GROUPS  *SMPS  *SHIELD  *REASON$' "$work/prog.out" ||
	loom_fail "ar program table header: $(cat "$work/prog.out")"
rows=$(grep -c " unsupported  *0  *$((RETRIES + 1))  *unsupported  *no answer to ARInfo GetCap" "$work/prog.out" || :)
[ "$rows" = "$n_sw" ] || loom_fail "ar program table: $rows rows for $n_sw switches: $(cat "$work/prog.out")"
grep -q ": $n_sw switches: 0 programmed, $n_sw unsupported (static routing), 0 refused, 0 failed" "$work/prog.out" ||
	loom_fail "ar program summary: $(tail -n 1 "$work/prog.out")"

# A bad ar: section is refused on reload; the running one (program: true) stays.
n_refused=$(grep -c 'reload refused' "$work/loomd.log" || :)
loom_config "  timeout_ms: $TIMEOUT_MS" "  retries: $RETRIES" "  max_smps: $MAX_SMPS" \
	"ar:" "  program: maybe"
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "[ \$(grep -c 'reload refused' '$work/loomd.log') -gt $n_refused ]" ||
	loom_fail "a bad ar: section was not refused on reload"
grep 'reload refused' "$work/loomd.log" | tail -n 1 | grep -q 'loom.yaml:[0-9]*: ar.program: "maybe" is not true or false' ||
	loom_fail "the refusal does not name the line and key: $(grep 'reload refused' "$work/loomd.log" | tail -n 1)"
loom_ctl --json ar program >/dev/null || loom_fail "ar program after a refused reload: exit $?"
loom_ok "ar program table and summary; a bad ar: on reload is refused (file:line: key) and programming stays on"

# ---- after a reroute: loomd programs AR again by itself ---------------------------------------
# OpenSM stays up now, reporting to loomd; a cable cut makes it reroute and
# report its LFT changes; after_reroute_s later loomd runs ar program on that
# OpenSM's subnet: every switch unsupported again, no AR table packet, and
# one ar_program_run event instead of an event per switch.
if [ -e "$PLUGIN_DIR/libloomosm.so" ]; then
	n_reload=$(grep -c 'configuration reloaded' "$work/loomd.log" || :)
	loom_config "  timeout_ms: $TIMEOUT_MS" "  retries: $RETRIES" "  max_smps: $MAX_SMPS" \
		"ar:" "  program: true" "  after_reroute_s: 1"
	kill -HUP "$LOOMD_PID"
	loom_until 50 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $n_reload ]" ||
		loom_fail "loomd did not reload"
	loom_ctl --json events >"$work/ev3.json" || loom_fail "events"
	rm -f "$work/opensm.log"
	(OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD \
		LOOMOSM_SOCKET=$work/osm.sock exec opensm -F "$work/opensm.conf" \
		-f "$work/opensm.log" >"$work/opensm.out" 2>&1) &
	osm_pid=$!
	LOOM_PIDS="$LOOM_PIDS $osm_pid"
	loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
	auto() { grep -c "AR program of .* (after OpenSM changed the forwarding tables)" \
		"$work/loomd.log" || :; }
	n_auto=$(auto)
	n_tables0=$(grep -c 'attr 0xff2[1-3]' "$work/ibsim.log" || :)
	# The first switch-to-switch cable of the net file.
	cut=$(awk 'NR == FNR { if (/^Switch/) { split($0, f, "\""); is[f[2]] = 1 }; next }
		/^Switch/ { split($0, f, "\""); name = f[2]; next }
		/^[A-Za-z]/ { name = "" }
		/^\[/ && name != "" { split($0, f, "\""); if (f[2] in is) { p = $0
			sub(/\].*/, "", p); sub(/^\[/, "", p); print "\"" name "\"[" p "]"; exit } }' \
		"$work/ft.net" "$work/ft.net")
	[ -n "$cut" ] || loom_fail "no switch-to-switch cable in the net file"
	loom_ibsim_cmd "Unlink $cut"
	loom_until 300 sh -c "[ \$(grep -c 'AR program of .* (after OpenSM changed the forwarding tables)' '$work/loomd.log') -gt $n_auto ]" ||
		loom_fail "no AR program run after the reroute: $(grep -i 'forwarding tables\|AR program' "$work/loomd.log" | tail -n 5)"
	grep "(after OpenSM changed the forwarding tables)" "$work/loomd.log" | tail -n 1 |
		grep -q "AR program of $n_sw switches .*: 0 programmed, $n_sw unsupported, 0 refused, 0 failed" ||
		loom_fail "the run after the reroute: $(grep 'after OpenSM changed' "$work/loomd.log" | tail -n 1)"
	[ "$(grep -c 'attr 0xff2[1-3]' "$work/ibsim.log" || :)" = "$n_tables0" ] ||
		loom_fail "ibsim saw AR table packets after the reroute"
	loom_until 50 sh -c "'$B/loomctl' -s '$work/loomd.sock' --json events | grep -q ar_program_run" ||
		loom_fail "no ar_program_run event"
	loom_ctl --json events >"$work/ev4.json" || loom_fail "events"
	python3 - "$work/ev3.json" "$work/ev4.json" "$n_sw" <<'EOP' || loom_fail "events of the run after the reroute: $(head -c 2000 "$work/ev4.json")"
import json, sys
old = {e["id"] for e in json.load(open(sys.argv[1]))}
new = [e for e in json.load(open(sys.argv[2])) if e["id"] not in old and e["kind"].startswith("ar_")]
n = int(sys.argv[3])
assert [e["kind"] for e in new] == ["ar_program_run"], new
assert new[0]["new"] == "after a reroute: 0 programmed, %d unsupported, 0 refused, 0 failed" % n, new
EOP
	kill "$osm_pid" 2>/dev/null || :
	wait "$osm_pid" 2>/dev/null || :
	loom_ok "after a cable cut ($cut) OpenSM rerouted and loomd ran ar program by itself:" \
		"$n_sw switches unsupported, no AR table packet, one ar_program_run event"
fi

# ---- --cached, the table, and --db with loomd stopped -----------------------------------------
loom_ctl ar status --cached >"$work/ar.out" || loom_fail "ar status --cached"
grep -q '^SWITCH  *GUID  *SUPPORTED  *ENABLED  *GROUPS-USED  *CAPACITY  *REASON$' "$work/ar.out" ||
	loom_fail "ar status table header: $(cat "$work/ar.out")"
rows=$(grep -c ' no  *-  *-  *-  *no answer to ARInfo (vendor attribute 0xFF20)' "$work/ar.out" || :)
[ "$rows" = "$n_sw" ] || loom_fail "ar status table: $rows unsupported rows for $n_sw switches: $(cat "$work/ar.out")"
grep -q "(cached)" "$work/ar.out" || loom_fail "ar status --cached does not say cached"
loom_ctl --json ar status --cached >"$work/cached.json" || loom_fail "ar status --cached --json"
kill "$LOOMD_PID"
wait "$LOOMD_PID" 2>/dev/null || :
"$B/loomctl" --db "$work/loom.db" --json ar status >"$work/db.json" || loom_fail "loomctl --db ar status"
"$B/loomctl" --db "$work/loom.db" ar status >"$work/db.out" || loom_fail "loomctl --db ar status (table)"
python3 - "$work/ar2.json" "$work/cached.json" "$work/db.json" <<'EOP' || loom_fail "--cached / --db differ from the live probe"
import json, sys
live, cached, db = (json.load(open(f)) for f in sys.argv[1:])
assert cached["probe"]["cached"] and db["probe"]["cached"], (cached["probe"], db["probe"])
for c in (cached, db):
    assert c["switches"] == live["switches"], c
    assert {k: v for k, v in c["probe"].items() if k != "cached"} == \
           {k: v for k, v in live["probe"].items() if k != "cached"}, (c["probe"], live["probe"])
EOP
cmp -s "$work/db.out" "$work/ar.out" ||
	loom_fail "the --db table differs: $(cat "$work/db.out")"
loom_ok "ar status --cached and loomctl --db (loomd stopped) show the live probe's switches"

# ---- usage errors ---------------------------------------------------------------------------
rc=0; "$B/loomctl" --db "$work/loom.db" ar 2>/dev/null || rc=$?
[ $rc = 2 ] || loom_fail "ar without a subcommand: exit $rc"
rc=0; "$B/loomctl" --db "$work/loom.db" ar status extra 2>/dev/null || rc=$?
[ $rc = 2 ] || loom_fail "ar status with an extra argument: exit $rc"
rc=0; "$B/loomctl" --db "$work/loom.db" ar program 2>/dev/null || rc=$?
[ $rc = 2 ] || loom_fail "ar program with --db: exit $rc"
rc=0; "$B/loomctl" --db "$work/loom.db" ar program --dry-run extra 2>/dev/null || rc=$?
[ $rc = 2 ] || loom_fail "ar program with an extra argument: exit $rc"
loom_ok "usage errors exit 2"
echo "ar.sh: all ok"
