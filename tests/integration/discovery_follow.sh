#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Discovery follows the fabric (issue 23): a link cut or restored in the
# simulator makes the switch trap, OpenSM's plugin reports it to loomd, and
# loomd walks that switch and its neighbours again (an incremental sweep):
# the link's event is in the store within a second or two, long before any
# periodic sweep (there is none here: discovery.interval 0). The proof
# that an incremental sweep records the truth: after each step, once OpenSM
# has swept and loomd has followed, a full sweep finds nothing to change
# (0 events) — on a seeded random sequence of cuts and restores of switch
# links and host links.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need python3

{
	printf 'event_plugin_name loomosm\nrouting_engine loom\n'
	printf 'force_log_flush TRUE\nlog_flags 0x03\n'
} >"$work/opensm.conf"

loom_gen ft3 fattree --levels 3 --radix 8
loom_ibsim "$work/ft3.net"
loom_config
loom_loomd "$work/loom.yaml"
(loom_osm_plugin) &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
loom_ctl --json discover --wait >"$work/first.json" || loom_fail "the first sweep failed"

# The steps: seeded from the net file's cables (python3 picks them; the
# answers are the fabric's, never written here).
python3 - "$work/ft3.net" >"$work/steps" <<'EOP'
import random, re, sys
links, node = [], None
for line in open(sys.argv[1]):
    m = re.match(r'(Switch|Hca)\s+\d+\s+"([^"]+)"', line)
    if m:
        node = (m.group(1), m.group(2))
        continue
    m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
    if m and node and node[0] == 'Switch':
        a, pa, b, pb = node[1], int(m.group(1)), m.group(2), int(m.group(3))
        if (b, pb) > (a, pa) or b.startswith('host'):
            links.append((a, pa, b, pb))
rnd = random.Random(23)
cut = []
for step in range(6):
    if cut and (step % 3 == 2):
        l = cut.pop(rnd.randrange(len(cut)))
        print('link %s %d %s %d' % l)
    else:
        l = rnd.choice([x for x in links if x not in cut and
                        # one host link, the others between switches
                        (x[2].startswith('host') == (step == 1))])
        cut.append(l)
        print('unlink %s %d %s %d' % l)
for l in cut:  # everything back, the host too
    print('link %s %d %s %d' % l)
EOP
[ -s "$work/steps" ] || loom_fail "no steps drawn"

# event_for KIND A PA B SINCE: an event of KIND since SINCE about the link
# from A[PA] (subjects name each end "GUID[port] (description)"), or about
# node B (for a node's events: "GUID (description)").
event_for() {
	loom_ctl --json events --kind "$1" --limit 50 >"$work/ev.json" 2>/dev/null || return 1
	python3 - "$work/ev.json" "$1" "$2" "$3" "$4" "$5" <<'EOP'
import json, sys
evs, kind, a, pa, b = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
since = float(sys.argv[6])
want = '(%s)' % b if kind.startswith('node_') else '[%s] (%s)' % (pa, a)
for e in evs:
    if e['ts'] >= since and want in e['subject']:
        sys.exit(0)
sys.exit(1)
EOP
}
# osm_up_since T: OpenSM's log has a SUBNET UP stamped after T (epoch
# seconds). Not a count of SUBNET UP lines: a sweep that OpenSM began for
# one step may end after the next step began and serve both (a trap that
# comes in while a sweep runs is handled by that sweep), so counting
# waited for a sweep that never came (seen on a loaded machine).
osm_up_since() {
	python3 - "$work/opensm.log" "$1" <<'EOP'
import sys, time
since, last = float(sys.argv[2]), None
for line in open(sys.argv[1], errors="replace"):
    if "SUBNET UP" in line:
        last = line
if last is None:
    sys.exit(1)
f = last.split()
t = time.mktime(time.strptime("%s %s %s %s" % (time.localtime().tm_year, f[0], f[1], f[2]),
                              "%Y %b %d %H:%M:%S")) + int(f[3]) / 1e6
sys.exit(0 if t > since else 1)
EOP
}
# both_active A PA B PB: loom's store has both ends of the cable Active.
both_active() {
	for _e in "$1:$2" "$3:$4"; do
		loom_ctl --json ports "${_e%%:*}" >"$work/ports.json" 2>/dev/null || return 1
		python3 -c 'import json,sys; sys.exit(not any(p["port"] == int(sys.argv[2]) and p["state"] == "active" for p in json.load(open(sys.argv[1]))))' \
			"$work/ports.json" "${_e#*:}" || return 1
	done
}

while read -r op a pa b pb; do
	t0=$(date +%s.%N)
	if [ "$op" = unlink ]; then
		loom_ibsim_cmd "Unlink \"$a\"[$pa]"
		kind=link_down
	else
		loom_ibsim_cmd "Link \"$a\"[$pa] \"$b\"[$pb]"
		kind=link_up
	fi
	# A host cut off is a node that disappears (and comes back), its link
	# with it.
	case $b in host-*)
		[ "$kind" = link_down ] && kind=node_disappeared || kind=node_appeared ;;
	esac
	loom_until 100 event_for "$kind" "$a" "$pa" "$b" "$t0" ||
		loom_fail "$op $a[$pa]-$b[$pb]: no $kind event within 10 s"
	t1=$(date +%s.%N)
	# OpenSM sweeps after the trap (bringing a restored port to Active);
	# loomd follows that sweep too (a restored link: until both ends are
	# Active in the store). Then a full sweep must find no change.
	loom_until 200 osm_up_since "$t0" || loom_osm_fail "$op: OpenSM did not sweep"
	[ "$op" = link ] && { loom_until 150 both_active "$a" "$pa" "$b" "$pb" ||
		loom_fail "$op $a[$pa]-$b[$pb]: loomd did not follow OpenSM's sweep to Active"; }
	sleep 1
	loom_ctl --json discover --wait >"$work/full.json" || loom_fail "$op: the full sweep failed"
	events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sweeps"][0]["events"])' "$work/full.json")
	[ "$events" = 0 ] || {
		loom_ctl events --limit 20 >&2
		loom_fail "$op $a[$pa]-$b[$pb]: the full sweep after the incremental one recorded $events events"
	}
	loom_ok "$op $a[$pa]-$b[$pb]: $kind event $(python3 -c "print('%.2f' % ($t1 - $t0))") s after the" \
		"command (incremental sweep); a full sweep then found nothing to change"
done <"$work/steps"
grep -q "incremental sweep" "$work/loomd.log" || loom_fail "no incremental sweep in loomd's log"

# The counters read follows too: a LinkDownedCounter that moved between two
# reads (a flap shorter than OpenSM's sweep: no trap) makes loomd walk that
# port's switch again; a read where none moved walks nothing.
incr() { grep -c "incremental sweep [0-9]*:" "$work/loomd.log" || :; }
read -r _ a pa _ _ <"$work/steps"
loom_ctl counters --now >/dev/null || loom_fail "the first counters read"
sleep 1
n0=$(incr)
loom_ctl counters --now >/dev/null || loom_fail "a quiet counters read"
sleep 1
[ "$(incr)" = "$n0" ] || loom_fail "a counters read where no LinkDownedCounter moved walked a switch"
downed=$(loom_ctl --json counters "$a:$pa" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["counters"]["LinkDownedCounter"])')
loom_ibsim_cmd "PerformanceSet \"$a\"[$pa] PortCounters.LinkDownedCounter=$(( (downed + 1) % 255 ))"
loom_ctl counters --now >/dev/null || loom_fail "the counters read after the flap"
walked() { [ "$(incr)" -gt "$n0" ]; }
loom_until 100 walked ||
	loom_fail "a LinkDownedCounter move on $a[$pa] made no incremental sweep"
grep -q "the counters saw port $pa of 0x[0-9a-f]* flap: walking switch $a again" "$work/loomd.log" ||
	loom_fail "loomd's log does not say the counters' flap on $a[$pa] walked $a"
loom_ok "a LinkDownedCounter move on $a[$pa] between two counters reads walked $a again"
# Every change was followed by walks of the switches alone: OpenSM's own
# count never had to be made good by a full sweep.
grep -q "OpenSM sees" "$work/loomd.log" &&
	loom_fail "a count mismatch made a full sweep: $(grep "OpenSM sees" "$work/loomd.log" | head -1)"
grep -q "could not be walked alone" "$work/loomd.log" &&
	loom_fail "an incremental sweep fell back to a full one: $(grep "could not be walked alone" "$work/loomd.log" | head -1)"
# issue 44: every sweep stores its walk's SMPs; an incremental one's walks
# are libibnetdisc's, which count no retries nor losses (NULL, not 0)
python3 - "$work/loom.db" >"$work/smps.out" <<'EOP' || loom_fail "the sweeps' SMPs: $(cat "$work/smps.out")"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT kind, smps, smp_retries, smps_lost FROM sweeps WHERE status = 'ok'").fetchall()
incr = [r for r in rows if r[0] == "incremental"]
full = [r for r in rows if r[0] == "full"]
assert incr and full, rows
assert all(r[1] > 0 and r[2] is None and r[3] is None for r in incr), incr
assert all(r[1] > 0 and r[2] == 0 and r[3] == 0 for r in full), full
print("%d incremental sweeps sent %d SMPs, %d full ones %d" % (
    len(incr), sum(r[1] for r in incr), len(full), sum(r[1] for r in full)))
EOP
loom_ok "$(cat "$work/smps.out")"
echo "discovery_follow.sh: all ok"
