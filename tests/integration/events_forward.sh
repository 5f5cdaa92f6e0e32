#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Events reach the operator's tools (issue 39): on the demo fat tree, a cable
# cut with ibsim's console (link_down, a warning) is logged at priority 4
# when stderr is systemd's journal stream ($JOURNAL_STREAM), and reaches
# events.forward's sinks: a syslog receiver over UDP and over TCP, which
# checks RFC 5424's framing (PRI, VERSION 1, timestamp, hostname, app-name
# loomd, msgid = the kind, structured data loom@32473), and a webhook that
# answers 500 twice before it takes the JSON (so loomd tried again, with
# the bearer token of token_file). A webhook that never answers loses its
# oldest events from a queue of 1 (counted in `loomctl status`) while every
# sweep still takes its normal time.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

python3 "$S/tests/servers/syslog_receiver.py" --port-file "$work/syslog.port" \
	--out "$work/syslog.jsonl" &
LOOM_PIDS="$LOOM_PIDS $!"
python3 "$S/tests/servers/webhook_server.py" --port-file "$work/hook.port" \
	--out "$work/hook.jsonl" --fail-first 2 &
LOOM_PIDS="$LOOM_PIDS $!"
python3 "$S/tests/servers/webhook_server.py" --port-file "$work/dead.port" \
	--out "$work/dead.jsonl" --hang &
LOOM_PIDS="$LOOM_PIDS $!"
for f in syslog hook dead; do
	loom_until 100 test -s "$work/$f.port" || loom_fail "the $f test server did not start"
done
read -r udp tcp <"$work/syslog.port"
hook=$(cat "$work/hook.port")
dead=$(cat "$work/dead.port")
echo "s3cret-token" >"$work/hook.token"

loom_ibsim "$S/tests/fabrics/demo-ft2.net"
loom_opensm
loom_config "$(loom_subnet_conf demo)" 'events:' '  forward:' \
	'    - type: syslog' "      address: udp://127.0.0.1:$udp" \
	'    - type: syslog' "      address: tcp://127.0.0.1:$tcp" '      kinds: [link_down]' \
	'    - type: webhook' "      url: http://127.0.0.1:$hook/loom" \
	"      token_file: $work/hook.token" '      retries: 4' \
	'    - type: webhook' '      name: dead' "      url: http://127.0.0.1:$dead/" \
	'      min_severity: info' '      timeout_ms: 3000' '      retries: 2' '      queue: 1'
: >"$work/loomd.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$work/loomd.log")
export JOURNAL_STREAM
loom_loomd "$work/loom.yaml"

ms() { echo $(($(date +%s%N) / 1000000)); }
sweep() { # sweep: discover --wait, its duration in $took (ms)
	_t0=$(ms)
	loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"
	took=$(($(ms) - _t0))
}
sweep
first=$took

# Events for the dead sink while it hangs on the first one.
slowest=0
for p in 5 6; do
	loom_ibsim_cmd "Unlink \"leaf-1\"[$p]"
	sweep
	[ $took -gt $slowest ] && slowest=$took
	loom_ibsim_cmd "ReLink \"leaf-1\"[$p]"
	sweep
	[ $took -gt $slowest ] && slowest=$took
done
# Normal time: the first sweep's, with room for a busy machine; the dead
# sink alone would hold a sending sweep for its 3 s x 3 tries.
[ $slowest -lt $((first * 3 + 1500)) ] ||
	loom_fail "sweeps with a dead sink took up to $slowest ms (the first took $first ms)"
loom_ok "sweeps with a dead webhook: at most $slowest ms (first sweep $first ms)"

grep -q '^<4>warning: event link_down: .*leaf-1' "$work/loomd.log" ||
	loom_fail "no '<4>' log line for link_down under \$JOURNAL_STREAM: $(grep link_down "$work/loomd.log")"
grep -q '^<6>info: ' "$work/loomd.log" || loom_fail "info lines do not carry <6>"
if grep -v '^<[0-7]>' "$work/loomd.log" | grep -q '^[0-9]\{4\}-'; then
	loom_fail "a line without its priority prefix: $(grep -v '^<[0-7]>' "$work/loomd.log" | head -n2)"
fi
loom_ok "journal stream: link_down logged at priority 4, every line with its <N>"

loom_until 150 grep -q '"status": 200.*link_down' "$work/hook.jsonl" ||
	loom_fail "the webhook never took link_down: $(cat "$work/hook.jsonl" 2>/dev/null)"
python3 - "$work/hook.jsonl" <<'EOP' || loom_fail "webhook: $(cat "$work/hook.jsonl")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
first = recs[0]["body"]
tries = [r for r in recs if r["body"] == first]
assert [r["status"] for r in tries][:3] == [500, 500, 200], [r["status"] for r in tries]
assert tries[1]["time"] - tries[0]["time"] >= 0.9, "no backoff between tries"
for r in recs:
    assert r["authorization"] == "Bearer s3cret-token", r["authorization"]
    assert r["content_type"] == "application/json" and r["path"] == "/loom", r
downs = [r["body"] for r in recs if r["status"] == 200 and r["body"]["kind"] == "link_down"]
assert downs and "leaf-1" in downs[0]["subject"] and downs[0]["severity"] == "warning", downs
assert all(r["body"]["severity"] in ("warning", "error") for r in recs), "min_severity ignored"
assert downs[0]["source"] == "loomd" and downs[0]["time"].endswith("Z"), downs[0]
EOP
loom_ok "webhook: link_down taken after two 500s, with backoff and the bearer token"

loom_until 50 grep -q '"transport": "tcp"' "$work/syslog.jsonl" ||
	loom_fail "no syslog message over TCP: $(cat "$work/syslog.jsonl" 2>/dev/null)"
python3 - "$work/syslog.jsonl" "$(hostname)" <<'EOP' || loom_fail "syslog: $(cat "$work/syslog.jsonl")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in recs if r["errors"]]
assert not bad, bad
for t in ("udp", "tcp"):
    d = [r for r in recs if r["transport"] == t and r["msgid"] == "link_down"]
    assert d, "no link_down over " + t
    r = d[0]
    assert r["pri"] == 3 * 8 + 4 and r["version"] == 1, r
    assert r["app_name"] == "loomd" and r["hostname"] == sys.argv[2], r
    assert r["sd_id"] == "loom@32473" and "leaf-1" in r["sd"]["subject"], r
    assert r["sd"]["severity"] == "warning" and r["msg"].startswith("link_down: "), r
assert all(r["msgid"] == "link_down" for r in recs if r["transport"] == "tcp"), "kinds ignored"
EOP
loom_ok "syslog: link_down over UDP and TCP in RFC 5424 (structured data loom@32473)"

# A link that bounces: its first down and up as ever, then one link_flap
# whose count grows, not a down/up pair per bounce.
for i in 1 2; do
	loom_ibsim_cmd 'Unlink "leaf-1"[5]'
	sweep
	loom_ibsim_cmd 'ReLink "leaf-1"[5]'
	sweep
done
loom_ctl --json events >"$work/events.json"
python3 - "$work/events.json" <<'EOP' || loom_fail "a bouncing link: $(cat "$work/events.json")"
import json, sys
evs = [e for e in json.load(open(sys.argv[1])) if "leaf-1" in e["subject"] and "[5]" in e["subject"]
       and e["kind"] in ("link_down", "link_up", "link_flap")]
kinds = sorted(e["kind"] for e in evs)
assert kinds == ["link_down", "link_flap", "link_up"], kinds
f = [e for e in evs if e["kind"] == "link_flap"][0]
assert f["new"] == "3 bounces; now up" and f["severity"] == "warning", f
EOP
loom_ok "a link bounced three times: link_down, link_up, one link_flap (3 bounces)"

loom_ctl --json status >"$work/status.json"
python3 - "$work/status.json" <<'EOP' || loom_fail "dead sink's counts: $(cat "$work/status.json")"
import json, sys
s = {x["name"]: x for x in json.load(open(sys.argv[1]))["events_forward"]}
d = s["dead"]
assert d["dropped"] >= 1 and d["sent"] == 0 and d["queued"] <= 1, d
assert s["webhook-2"]["sent"] >= 1, s
EOP
loom_ok "dead webhook: $(python3 -c 'import json,sys; print([x for x in json.load(open(sys.argv[1]))["events_forward"] if x["name"] == "dead"][0])' "$work/status.json")"

# Shutdown does not wait on the dead sink's retries: at most a try's timeout.
t0=$(ms)
kill "$LOOMD_PID"
wait "$LOOMD_PID" 2>/dev/null || :
[ $(($(ms) - t0)) -lt 5000 ] || loom_fail "loomd took $(($(ms) - t0)) ms to stop with a dead sink"
LOOMD_PID=""
loom_ok "loomd stops in $(($(ms) - t0)) ms with the dead sink still hanging"
echo "events_forward.sh: all ok"
