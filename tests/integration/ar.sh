#!/bin/sh
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
#  - --cached and loomctl --db (loomd stopped) show the same switches;
#  - usage errors exit 2.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
command -v python3 >/dev/null 2>&1 || loom_skip "python3 is not installed"
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
loom_ok "usage errors exit 2"
echo "ar.sh: all ok"
