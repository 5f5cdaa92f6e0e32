#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# libloomosm.so honours loomd's isolated set (issue 42): a spine-leaf link
# named in the isolated links file ($LOOMOSM_ISOLATED) is routed around by
# loom's engine inside a real OpenSM over ibsim, while the link stays up.
#
#  1. OpenSM (routing_engine loom) routes a generated 2-level fat tree with
#     no file: its run report says isolated set version 0, nothing left out.
#  2. A spine-leaf link that carries routes is picked from ibnetdiscover's
#     and dump_fts's output, one end of it written to the file as version 1,
#     and a `reroute` request sent from the report socket (where loomd would
#     be: tests/integration/osm_standin.py plays it): the run reports version
#     1 with 1 link left out; dump_fts shows no LFT entry of either switch
#     using the link's ports while smpquery shows both ends LinkUp/Active,
#     and every CA pair is still delivered (lft_check.py, an independent
#     walk over ibnetdiscover's cables, the isolated one included).
#  3. A file that does not parse: ERR LOOM11 naming the file and the line,
#     once for that content, and the previous set stays (the link still
#     carries nothing).
#  4. The file emptied (version 2): the link carries routes again.
#  5. loomd itself on the report socket: after a heavy sweep (SIGHUP) with
#     the link isolated again (version 3), loomd's log shows the run with
#     that version and the link left out.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need dump_fts smpquery python3

loom_osm_loom_conf

loom_gen ft2 fattree --levels 2 --radix 8
loom_ibsim "$work/ft2.net"

# loomd's end of the socket, played until part 5.
python3 "$S/tests/integration/osm_standin.py" "$work/osm.sock" "$work" \
	>"$work/standin.out" 2>&1 &
standin=$!
LOOM_PIDS="$LOOM_PIDS $standin"
loom_until 100 test -S "$work/osm.sock" || loom_fail "the stand-in did not bind $work/osm.sock"

(loom_osm_plugin) &
osm_pid=$!
LOOM_PIDS="$LOOM_PIDS $osm_pid"

# last_run VERSION ISOLATED: the newest routing_run report is ok, with that
# isolated set version and that many links left out; prints it.
last_run() {
	python3 - "$work/reports.jsonl" "$1" "$2" <<'EOP'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if '"routing_run"' in l]
assert runs, 'no run'
r = runs[-1]
assert r['result'] == 'ok', r
assert r.get('isolated_version') == int(sys.argv[2]) and r.get('isolated') == int(sys.argv[3]), r
print('run %d: %s routed by %s in %.1f ms, isolated set version %d, %d link(s) left out'
      % (len(runs), r['engine'], r['routed_by'], r['duration_ms'], r['isolated_version'],
         r['isolated']))
EOP
}
n_runs() { grep -c '"routing_run"' "$work/reports.jsonl" 2>/dev/null || :; }
more_runs() { [ "$(n_runs)" -gt "$1" ]; }

# ask TYPE WHY: a request from the report socket, as loomd sends it.
ask() {
	printf '{"v":1,"type":"%s","why":"%s"}' "$1" "$2" >"$work/ask.tmp"
	mv "$work/ask.tmp" "$work/ask"
	loom_until 100 test ! -e "$work/ask" || loom_fail "the stand-in did not send the $1 request"
}

# reroute WHY: ask for a reroute, wait for its run.
reroute() {
	_runs=$(n_runs)
	ask reroute "$1"
	loom_until 300 more_runs "$_runs" ||
		loom_osm_fail "$1: no routing run after the reroute request"
}

# tables: the switches' tables and the cables read now, judged by
# lft_check.py (status 1 when a pair is lost; the report in check.out).
tables() {
	loom_tables && python3 "$S/tests/integration/lft_check.py" "$work/ibnd.txt" "$work/fts.txt" \
		>"$work/check.out" 2>&1
}
readback() { # readback NAME: tables() or fail
	tables || { cat "$work/check.out" "$work/fts.err"; loom_osm_fail "$1: tables read back fail"; }
}

# uses GUID PORT: how many LFT entries of switch GUID leave by PORT now.
uses() { loom_lft_uses "$@"; }

# ---- 1. no file: version 0 ------------------------------------------------------
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "no SUBNET UP"
loom_until 100 last_run 0 0 || { cat "$work/reports.jsonl"; loom_osm_fail "no run of version 0"; }
loom_ok "no isolated links file: $(last_run 0 0)"
readback "no file"

# ---- 2. a spine-leaf link isolated ----------------------------------------------
# The link: a leaf's port to a spine, the one with the fewest LFT entries
# over it (one at least), from what ibnetdiscover and dump_fts say.
loom_lft_pick >"$work/link.txt" || loom_fail "no spine-leaf link found"
read -r leaf leaf_port leaf_lid leaf_name spine spine_port spine_lid spine_name before <"$work/link.txt"
loom_ok "the link: $leaf_name ($leaf) port $leaf_port <-> $spine_name port $spine_port," \
	"$before LFT entries over it"

printf '# loom: links taken out of the routes\nversion 1\n%s %s # test: %s[%s]\n' \
	"$leaf" "$leaf_port" "$leaf_name" "$leaf_port" >"$work/isolated-links"
reroute "isolated links version 1"
grep -q "loomosm: reroute asked by loomd (isolated links version 1)" "$work/opensm.log" ||
	loom_osm_fail "OpenSM's log does not show the reroute request"
loom_until 100 last_run 1 1 || { tail -n 2 "$work/reports.jsonl"; loom_osm_fail "no run of version 1 leaving 1 link out"; }
loom_ok "isolated: $(last_run 1 1)"
grep -q "loom engine loom: 1 isolated link left out of the routes (set version 1" \
	"$work/opensm.log" || loom_osm_fail "OpenSM's log does not say the link was left out"

# no_route NAME: every pair delivered and neither end's switch sends
# anything over the link. The run is reported before OpenSM sends the
# tables: polled a while (no_route_now), then said.
no_route_now() {
	tables && [ "$(uses "$leaf" "$leaf_port")" = 0 ] && [ "$(uses "$spine" "$spine_port")" = 0 ]
}
no_route() {
	loom_until 100 no_route_now && return 0
	readback "$1"
	loom_osm_fail "$1: $(uses "$leaf" "$leaf_port") entries of $leaf_name still leave by" \
		"port $leaf_port, $(uses "$spine" "$spine_port") of $spine_name by $spine_port"
}
no_route "isolated"
for end in "$leaf_lid $leaf_port" "$spine_lid $spine_port"; do
	# shellcheck disable=SC2086
	LD_PRELOAD=$PRELOAD smpquery portinfo $end >"$work/portinfo.txt" 2>&1 ||
		loom_fail "smpquery portinfo $end"
	grep -q "^LinkState:\.*Active" "$work/portinfo.txt" &&
		grep -q "^PhysLinkState:\.*LinkUp" "$work/portinfo.txt" ||
		{ cat "$work/portinfo.txt"; loom_fail "lid/port $end is not LinkUp/Active"; }
done
loom_ok "no LFT entry uses ${leaf_name}[$leaf_port] or ${spine_name}[$spine_port], both LinkUp/Active;" \
	"$(head -n 1 "$work/check.out")"

# ---- 3. a bad file: said once, the previous set stays -----------------------------
printf 'version 3\n%s %s\n%s 300\n' "$leaf" "$leaf_port" "$spine" >"$work/isolated-links"
reroute "a bad file"
reroute "the same bad file"
n=$(grep -c "ERR LOOM11: loomosm: isolated links file $work/isolated-links: line 3: port 300 out of range" \
	"$work/opensm.log" || :)
[ "$n" = 1 ] || loom_osm_fail "ERR LOOM11 naming the file and line 3 logged $n times, not once"
loom_until 100 last_run 1 1 || loom_osm_fail "the bad file did not keep version 1 in force"
no_route "bad file"
loom_ok "a bad file: ERR LOOM11 once ($(sed -n 's/.*\(line 3: [^;]*\);.*/\1/p' "$work/opensm.log" | head -n 1));" \
	"version 1 stays in force, the link still carries nothing"

# ---- 4. restored: the link carries routes again --------------------------------------
printf '# loom: links taken out of the routes\nversion 2\n' >"$work/isolated-links"
reroute "isolated links version 2"
loom_until 100 last_run 2 0 || loom_osm_fail "no run of version 2 with nothing left out"
used_again() { tables && [ "$(uses "$leaf" "$leaf_port")" -gt 0 ]; }
loom_until 100 used_again || { readback "restored"
	loom_osm_fail "restored: no entry of $leaf_name leaves by port $leaf_port"; }
a=$(uses "$leaf" "$leaf_port")
loom_ok "restored: $(last_run 2 0); $a entries of $leaf_name leave by port $leaf_port again;" \
	"$(head -n 1 "$work/check.out")"

# ---- 5. loomd hears the set in force ----------------------------------------------------
kill "$standin"
wait "$standin" 2>/dev/null || :
# The stand-in leaves its socket file behind: without removing it the wait
# below would pass before loomd binds (it binds the report socket after
# its control socket), and the heavy sweep's run, sent to nobody, would be
# dropped (seen in the sanitizer lane, where loomd starts slowly).
rm -f "$work/osm.sock"
loom_config
loom_loomd "$work/loom.yaml"
loom_until 100 test -S "$work/osm.sock" || loom_fail "loomd did not bind its report socket"
printf 'version 3\n%s %s\n' "$spine" "$spine_port" >"$work/isolated-links"
kill -HUP "$osm_pid"
loom_until 300 grep -q "loom routed (by .*isolated set version 3, 1 link left out" "$work/loomd.log" ||
	loom_osm_fail "loomd's log does not show a run with isolated set version 3"
loom_ok "loomd: $(sed -n 's/.*\(OpenSM 0x[0-9a-f]*: loom routed .*isolated set version 3.*\)/\1/p' \
	"$work/loomd.log" | tail -n 1)"
no_route "isolated again, by the spine's end, after a heavy sweep"
loom_ok "named by the spine's end and rerouted by a heavy sweep: no entry uses the link"

kill "$osm_pid" 2>/dev/null || :
wait "$osm_pid" 2>/dev/null || :
echo "osm_isolated.sh: all ok"
