#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/latency_drop.sh: loom under the test bed's latency
# model (tests/integration/latency_model.c, docs/testbed-latency.md), a
# preload before umad2sim that delays each MAD's answer and loses a share.
#
# On a generated 2-level fat tree of 8-port switches under ibsim:
# - the model delays by the hop: with 40 ms a hop, an smpquery to a switch
#   3 DR hops away takes at least 120 ms longer than one to the switch 1 hop
#   away (160 ms in the model, there and back; a bound, not an exact time);
#   MADs in flight overlap: ibnetdiscover -o 64 takes at most a quarter of
#   the time of -o 1 (one SMP at a time, at least 1 s);
# - with 1% of MADs lost (seeded), a full loomd sweep (`loomctl discover
#   --wait`) still records the whole fabric exactly (compare.py against
#   ibnetdiscover and iblinkinfo run without the model), and the lost MADs
#   are counted on the model's side (its log: loomd cannot see them, the
#   kernel's retries of a send, which the model plays, hide them from
#   libibnetdisc); the sweep stores as many retries and losses (schema 022)
#   as the model lost tries of its walk's SMPs, and one without losses 0;
#   and `loomctl route check` reads every switch's table
#   exactly (the stored tables against dump_fts without the model);
# - with every MAD lost the same sweep fails: the model does its job.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
MODEL=$B/tests/integration/.libs/latency_model.so
[ -e "$MODEL" ] || loom_fail "$MODEL is not built (make check builds it)"
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm                      # LIDs and routes, without the model
loom_ibnetdiscover >"$work/ibnd.txt" || loom_fail "ibnetdiscover"
LD_PRELOAD=$PRELOAD iblinkinfo -l >"$work/linkinfo.txt" 2>/dev/null || loom_fail "iblinkinfo"

# ---- the delay grows with the hops -------------------------------------------------------
ms_now() { echo $(($(date +%s%N) / 1000000)); }
# the fastest of 3 smpquery NodeInfo over DR path $1, 40 ms a hop, no service time
query_ms() {
	_best=""
	for _i in 1 2 3; do
		_t0=$(ms_now)
		LOOM_LAT_HOP_NS=40000000 LOOM_LAT_SWITCH_US=0 LOOM_LAT_HCA_US=0 \
			LD_PRELOAD="$MODEL $PRELOAD" smpquery -D nodeinfo "$1" >"$work/q.out" 2>&1 ||
			loom_fail "smpquery -D nodeinfo $1 under the model: $(cat "$work/q.out")"
		_t=$(($(ms_now) - _t0))
		[ -n "$_best" ] && [ "$_best" -le "$_t" ] || _best=$_t
	done
	echo "$_best"
}
# from host-0000: 0,1 is leaf-0; its port 5 a spine; the spine's port 2 leaf-1
grep -q '"leaf-0"' "$work/ibnd.txt" || loom_fail "no leaf-0 in the generated tree"
near=$(query_ms 0,1)
far=$(query_ms 0,1,5,2)
[ "$far" -ge $((near + 120)) ] ||
	loom_fail "3 hops answered in $far ms, 1 hop in $near ms: the model adds no 40 ms a hop"
loom_ok "40 ms a hop: a switch 3 hops away answers in $far ms, one 1 hop away in $near ms"

# ---- MADs in flight are not serialized -------------------------------------------------------
# ibnetdiscover with 64 SMPs in flight against 1, 2 ms a hop: one at a time
# pays every round trip; a model that queued the MADs in flight would too.
ibnd_ms() {
	_t0=$(ms_now)
	LOOM_LAT_HOP_NS=2000000 LD_PRELOAD="$MODEL $PRELOAD" ibnetdiscover -o "$1" >"$work/o$1.txt" 2>&1 ||
		loom_fail "ibnetdiscover -o $1 under the model: $(tail -n3 "$work/o$1.txt")"
	echo $(($(ms_now) - _t0))
}
one=$(ibnd_ms 1)
many=$(ibnd_ms 64)
# -o 1: some 280 SMPs, each at least 4 ms there and back (1 hop)
[ "$one" -ge 1000 ] || loom_fail "ibnetdiscover -o 1 took $one ms: the model adds no 2 ms a hop"
[ $((many * 4)) -le "$one" ] ||
	loom_fail "ibnetdiscover took $many ms with 64 SMPs in flight, $one ms with 1: the model serializes them"
loom_ok "2 ms a hop: ibnetdiscover -o 64 in $many ms, -o 1 in $one ms (answers overlap)"

run_loomd() { # run_loomd DROP: loomd under the model, its losses in $work/drops
	rm -f "$work"/loom.db* "$work/loomd.sock"
	: >"$work/drops"
	LOOM_LAT_DROP=$1 LOOM_LAT_SEED=7 LOOM_LAT_LOG=$work/drops LD_PRELOAD="$MODEL $PRELOAD" \
		"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
	LOOM_PIDS="$LOOM_PIDS $!"
	LOOMD_PID=$!
	loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
}
stop_loomd() { kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :; }
# the SMPs loom stored, summed over its sweeps (loomd may sweep on its own
# before discover): SMPS RETRIES LOST ("None": not counted), then the last
# sweep's retries (what discover --wait showed)
stored_smps() {
	python3 - "$work/loom.db" <<'EOP'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(*db.execute("SELECT sum(smps), sum(smp_retries), sum(smps_lost) FROM sweeps").fetchone(),
      db.execute("SELECT smp_retries FROM sweeps ORDER BY id DESC LIMIT 1").fetchone()[0])
EOP
}
loom_config "$(loom_subnet_conf ft)"

# ---- no MAD lost: the sweep stores its SMPs and no retry ---------------------------------
run_loomd 0
loom_ctl --json discover --wait >"$work/disc0.json" || loom_fail "discover --wait, none lost"
set -- $(stored_smps)
[ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$3" = 0 ] ||
	loom_fail "no MAD lost, yet the sweep stored $1 SMPs, $2 retries, $3 lost"
grep -q '"smp_retries": 0,*$' "$work/disc0.json" ||
	loom_fail "discover --wait does not say 0 retries: $(cat "$work/disc0.json")"
loom_ok "none lost: the sweep stored $1 SMPs, 0 retries, 0 lost"
stop_loomd

# ---- a sweep with 1% of MADs lost --------------------------------------------------------
run_loomd 0.01
loom_ctl --json discover --wait >"$work/disc.json" || loom_fail "discover --wait with 1% lost"
python3 - "$work/disc.json" <<'EOP' || loom_fail "sweep not ok with 1% lost: $(cat "$work/disc.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sweeps"] and all(s["status"] == "ok" for s in d["sweeps"]), d
EOP
for what in nodes ports links; do
	loom_ctl --json "$what" >"$work/$what.json" || loom_fail "loomctl $what"
done
python3 "$S/tests/integration/compare.py" "$work/ibnd.txt" "$work/linkinfo.txt" \
	"$work/nodes.json" "$work/ports.json" "$work/links.json" >"$work/compare.out" || {
	cat "$work/compare.out"; loom_fail "with 1% lost, loom differs from ibnetdiscover"; }
walk=$(grep -c ' --walk ' "$work/drops" || :)
all=$(wc -l <"$work/drops")
[ "$walk" -ge 1 ] || loom_fail "the model lost no MAD of the sweep (--walk): nothing was tested"
loom_ok "1% lost: the sweep records the fabric exactly ($(tail -n1 "$work/compare.out")) though the model lost $walk of its SMPs ($all MADs in all of loomd's children)"
# Every try the model lost is one the walk sent again (a retry) or its
# request's last (a loss): the walk sends each try with no kernel retries,
# and it resends only after a try's timeout. Not the walk's: the SMInfo
# (0x0020) the --walk child asks after it, and Mellanox's ExtPortInfo
# (0xff90), whose timeout report is final (refused, never retried).
smp_drops=$(grep ' --walk class=0x81 ' "$work/drops" | grep -cv 'attr=0x0020\|attr=0xff90' || :)
set -- $(stored_smps)
[ "$2" != None ] && [ "$3" != None ] && [ "$2" -gt 0 ] && [ $(($2 + $3)) -eq "$smp_drops" ] ||
	loom_fail "the model lost $smp_drops tries of the walk's SMPs; loom stored $2 retries, $3 lost"
grep -q "\"smp_retries\": *$4[,}]*\$" "$work/disc.json" ||
	loom_fail "discover --wait does not say the $4 retries stored: $(cat "$work/disc.json")"
loom_ok "1% lost: loom stored $1 SMPs, $2 retries, $3 lost: the model's $smp_drops lost tries of the walk"

# ---- the forwarding tables read back with 1% lost ----------------------------------------
# route check's --read-lfts child: every switch's LFT blocks (and the SL-to-VL
# tables) many switches at once through mad_window.c; a lost SMP is sent
# again after its timeout, and the tables stored are dump_fts's exactly.
loom_ctl --json route check >"$work/check.json" ||
	loom_fail "route check with 1% lost: $(cat "$work/check.json")"
LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.txt" 2>/dev/null || loom_fail "dump_fts"
python3 "$S/tests/integration/lft_use.py" same "$work/loom.db" "$work/fts.txt" \
	"$(grep -c '^Switch' "$work/ibnd.txt")" >"$work/same.out" ||
	loom_fail "with 1% lost, the tables route check read differ from dump_fts's"
lfts=$(grep -c ' --read-lfts ' "$work/drops" || :)
[ "$lfts" -ge 1 ] || loom_fail "the model lost no MAD of route check's read (--read-lfts): nothing was tested"
loom_ok "1% lost: route check read the tables exactly ($(cat "$work/same.out")) though the model lost $lfts of its SMPs"
stop_loomd

# ---- every MAD lost: the sweep fails -----------------------------------------------------
run_loomd 1
if loom_ctl --json discover --wait >"$work/disc1.json" 2>&1 &&
	grep -q '"status": *"ok"' "$work/disc1.json"; then
	loom_fail "a sweep with every MAD lost succeeded: the model drops nothing"
fi
[ -s "$work/drops" ] || loom_fail "every MAD lost, yet the model logged no loss"
loom_ok "every MAD lost: the sweep fails ($(grep -c . "$work/drops") losses logged)"
stop_loomd
echo "latency_drop.sh: all ok"
