#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Changes in a live (simulated) fabric become events, and a failed sweep
# loses nothing: on the demo fat tree, a switch-to-switch cable pulled with
# ibsim's console gives link_down, plugged back link_up; a host cable pulled
# gives node_disappeared for that host (and nothing for the rest), plugged
# back node_appeared; when loomd's own port loses its link the sweep fails, a
# sweep_failed event is written and the stored fabric stays as it was.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_ibsim "$S/tests/fabrics/demo-ft2.net"
loom_opensm
loom_config "$(loom_subnet_conf demo)"
loom_loomd "$work/loom.yaml"

last_id=0
sweep() { # sweep: discover --wait, then the events it added go to $work/new.json
	loom_ctl --json discover --wait >"$work/disc.json" || :
	loom_ctl --json events >"$work/events.json" || loom_fail "loomctl events"
	python3 - "$work/events.json" "$last_id" >"$work/new.json" <<'EOP'
import json, sys
evs = [e for e in json.load(open(sys.argv[1])) if e["id"] > int(sys.argv[2])]
json.dump(evs, sys.stdout)
EOP
	last_id=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(max([x["id"] for x in e] or [0]))' \
		"$work/events.json")
}

expect() { # expect DESCRIPTION PYTHON-CONDITION-ON-evs
	python3 - "$work/new.json" "$2" <<'EOP' || { echo "events:"; cat "$work/new.json"; echo; loom_fail "$1"; }
import json, sys
evs = json.load(open(sys.argv[1]))
kinds = sorted(e["kind"] for e in evs)
def has(kind, text):
    return any(e["kind"] == kind and text in e["subject"] for e in evs)
if not eval(sys.argv[2]):
    sys.exit(1)
EOP
	loom_ok "$1"
}

count() { # count WHAT: number of rows loomctl --json WHAT returns
	loom_ctl --json "$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'
}

sweep
expect "first sweep: one summary event" 'kinds == ["subnet_first_sweep"]'
nodes0=$(count nodes)
links0=$(count links)

loom_ibsim_cmd 'Unlink "leaf-1"[5]'
sweep
expect "cable leaf-1/5 pulled: link_down between leaf-1 and spine-0" \
	'has("link_down", "leaf-1") and has("link_down", "spine-0") and kinds.count("link_down") == 1 and "node_disappeared" not in kinds'
# links lists the pulled cable as down (issue 41): one link less up, one down
up_down() { loom_ctl --json links | python3 -c 'import json,sys; l=json.load(sys.stdin); print(sum(x.get("state") != "down" for x in l), sum(x.get("state") == "down" for x in l))'; }
[ "$(up_down)" = "$((links0 - 1)) 1" ] || loom_fail "links after the pull (up, down): $(up_down), want $((links0 - 1)) 1"

loom_ibsim_cmd 'ReLink "leaf-1"[5]'
sweep
expect "cable plugged back: link_up" 'kinds.count("link_up") == 1 and has("link_up", "leaf-1")'
[ "$(count links)" -eq "$links0" ] || loom_fail "links after replugging: $(count links), want $links0"

loom_ibsim_cmd 'Unlink "host-0005"[1]'
sweep
expect "host-0005 unplugged: node_disappeared for it alone" \
	'[e["kind"] for e in evs if e["kind"] == "node_disappeared"] == ["node_disappeared"] and has("node_disappeared", "host-0005") and "link_down" not in kinds'
[ "$(count nodes)" -eq $((nodes0 - 1)) ] || loom_fail "nodes after the unplug: $(count nodes)"

loom_ibsim_cmd 'ReLink "host-0005"[1]'
sweep
expect "host-0005 plugged back: node_appeared" 'has("node_appeared", "host-0005")'

# loomd's own port (host-0000 is where the simulator attaches us) goes down.
loom_ibsim_cmd 'Unlink "host-0000"[1]'
sweep
python3 - "$work/disc.json" <<'EOP' || loom_fail "sweep without a link not reported failed: $(cat "$work/disc.json")"
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
assert s["status"] == "failed" and "link" in s["error"], s
EOP
# (Validation checks each recorded sweep on a thread of its own: its
# findings on the fabric of the step before may land now.)
expect "sweep from a port without link: sweep_failed event, nothing else" \
	'[k for k in kinds if not k.startswith("validation_")] == ["sweep_failed"]'
[ "$(count nodes)" -eq "$nodes0" ] && [ "$(count links)" -eq "$links0" ] ||
	loom_fail "a failed sweep changed the stored fabric"
loom_ok "the stored fabric survived the failed sweep ($nodes0 nodes, $links0 links)"

# Periodic sweeps: reloaded with an interval of 5 s, loomd sweeps by itself.
loom_ibsim_cmd 'ReLink "host-0000"[1]'
last_sweep() {
	loom_ctl --json status | python3 -c '
import json, sys
s = json.load(sys.stdin)["subnets"][0]["last_sweep"]
print(s["id"] if s["status"] == "ok" else 0)'
}
sed -i 's/interval: 0/interval: 5/' "$work/loom.yaml"
kill -HUP "$LOOMD_PID"
interval_is_5() { loom_ctl --json status | grep -q '"interval": 5,'; }
loom_until 30 interval_is_5 ||
	loom_fail "reload to interval 5 not applied"
newer_than() { [ "$(last_sweep)" -gt "$1" ]; }
loom_until 120 newer_than 0 || loom_fail "no ok sweep after the port came back"
first=$(last_sweep)
# No discover from here on: the next sweep can only come from the timer.
loom_until 120 newer_than "$first" || loom_fail "no periodic sweep within 12 s of an interval of 5 s"
loom_ok "interval 5 s after reload: a sweep came by itself (after sweep $first: $(last_sweep))"
echo "events.sh: all ok"
