#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# loomctl as an operator lives in it (issue 41), against a live loomd on the
# tiny fabric with a node-name-map:
#  1. every command's --help (the list from `loomctl help` itself) exits 0
#     and prints its synopsis, as `loomctl help WORDS` does;
#  2. a mistyped command or sub-word: the nearest suggested, exit 2, not the
#     whole usage;
#  3. completion: `__complete` for a partial word, a sub-word, an option's
#     values, a file, node names and GUIDs from loomd (nothing, quietly,
#     without loomd); the bash script itself on those;
#  4. --json anywhere on the line, errors then one JSON object on stdout
#     ({"error": {"code", "message"}}) with the text error's exit status;
#  5. socket errors that say what is wrong: no socket, connection refused
#     (a stale socket file), permission denied (nobody against a 0660
#     socket: the group to join);
#  6. links and ports name each end NAME[PORT] by the map, GUIDs in --json.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3 setpriv bash
loom_work
# `nobody` must reach the socket inside the work directory.
chmod 755 "$work"
cd "$work"

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
ctl() { "$B/loomctl" "$@"; }
# the bash completion script on a command line: COMPREPLY, one a line
bash_complete() {
	LOOMCTL=$B/loomctl bash -c '. "$1"; shift; COMP_WORDS=("$LOOMCTL" "$@");
		COMP_CWORD=$#; _loomctl; printf "%s\n" "${COMPREPLY[@]}"' sh \
		"$S/etc/bash-completion/loomctl" "$@"
}

# ---- 1. every command's --help ---------------------------------------------------
ctl help >help.out || loom_fail "loomctl help"
# a synopsis line: two blanks, then the command's words
grep '^  [a-z]' help.out >syn.txt
n=0
while IFS= read -r line; do
	# the command's words: up to the first that is an option or argument
	words=$(printf '%s\n' "$line" | awk '{for (i = 1; i <= NF && $i ~ /^[a-z][a-z-]*$/; i++) printf "%s ", $i}')
	[ -n "$words" ] || loom_fail "no command word in: $line"
	# shellcheck disable=SC2086
	ctl $words --help >h.out 2>h.err || loom_fail "loomctl $words--help: exit $?: $(cat h.err)"
	grep -qxF -- "$line" h.out || loom_fail "loomctl $words--help lacks \"$line\": $(cat h.out)"
	# shellcheck disable=SC2086
	ctl help $words >h2.out || loom_fail "loomctl help $words"
	cmp -s h.out h2.out || loom_fail "loomctl help $words differs from --help"
	n=$((n + 1))
done <syn.txt
[ "$n" -ge 20 ] || loom_fail "only $n commands in loomctl help: $(cat help.out)"
loom_ok "--help of each of the $n commands of loomctl help: exit 0, its synopsis, as help WORDS"

# ---- 2. typos ---------------------------------------------------------------------
rc=0; ctl nodse >t.out 2>t.err || rc=$?
[ "$rc" = 2 ] || loom_fail "loomctl nodse: exit $rc"
grep -qF 'unknown command "nodse"; did you mean "nodes"?' t.err || loom_fail "nodse: $(cat t.err)"
[ "$(wc -l <t.err)" -le 3 ] || loom_fail "nodse printed the whole usage: $(wc -l <t.err) lines"
rc=0; ctl tenant craete x --hosts h1 2>t.err || rc=$?
[ "$rc" = 2 ] && grep -qF 'unknown command "tenant craete"; did you mean "tenant create"?' t.err ||
	loom_fail "tenant craete: exit $rc: $(cat t.err)"
rc=0; ctl route check --shfits 3 2>t.err || rc=$?
[ "$rc" = 2 ] && grep -qxF 'loomctl route: did you mean "--shifts"?' t.err ||
	loom_fail "route check --shfits: exit $rc: $(cat t.err)"
rc=0; ctl xyzzy 2>t.err || rc=$?
[ "$rc" = 2 ] && grep -qF 'unknown command "xyzzy"' t.err && ! grep -q 'did you mean' t.err ||
	loom_fail "xyzzy: exit $rc: $(cat t.err)"
loom_ok "typos: $(head -n1 t.err | cut -c1-60)...; nodse -> nodes, tenant craete -> tenant create, --shfits -> --shifts"

# ---- 3a. completion of words (no loomd needed) ----------------------------------------
# the command words that start with "nod", from the usage (not a list here)
want=$(awk '{print $1}' syn.txt | grep '^nod' | awk '!seen[$0]++')
got=$(ctl __complete nod)
[ "$got" = "$want" ] && echo "$got" | grep -qx nodes && echo "$got" | grep -qx node ||
	loom_fail "__complete nod: \"$got\", want \"$want\""
[ "$(ctl __complete tenant cr)" = create ] || loom_fail "__complete tenant cr: $(ctl __complete tenant cr)"
[ "$(ctl __complete nodes --type '' | tr '\n' ' ')" = "switch ca router " ] ||
	loom_fail "__complete nodes --type: $(ctl __complete nodes --type '')"
ctl __complete nodes --t | grep -qx -- --type || loom_fail "__complete nodes --t"
[ "$(ctl __complete route compute --topology '')" = @file ] || loom_fail "__complete --topology FILE"
[ "$(bash_complete nod | tr '\n' ' ')" = "$(echo "$want" | tr '\n' ' ')" ] ||
	loom_fail "the bash script on \"loomctl nod\": $(bash_complete nod)"
loom_ok "__complete: nod -> $(echo "$got" | tr '\n' ' '); tenant cr -> create; --type's values; the bash script alike"

# ---- 5a. socket errors without loomd ----------------------------------------------------
rc=0; ctl -s "$work/none.sock" status 2>s.err || rc=$?
[ "$rc" = 3 ] && grep -qxF "loomctl: no loomd socket at $work/none.sock: is loomd running? (systemctl status loomd)" s.err ||
	loom_fail "no socket: exit $rc: $(cat s.err)"
loom_ok "no socket: $(cat s.err)"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$work/stale.sock"
rc=0; ctl -s "$work/stale.sock" status 2>s.err || rc=$?
[ "$rc" = 3 ] && grep -qF "$work/stale.sock: connection refused: no loomd listens there (a stale socket" s.err ||
	loom_fail "stale socket: exit $rc: $(cat s.err)"
loom_ok "stale socket: $(cat s.err)"
[ -z "$(ctl __complete -s "$work/none.sock" node '' 2>&1)" ] || loom_fail "node completion without loomd is not quiet"

# ---- the fabric, named by a map -----------------------------------------------------------
loom_ibsim "$S/tests/fabrics/tiny.net"
loom_opensm
: >"$work/nn.map"
loom_config "names:" "  node_name_map: $work/nn.map"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"
guid() { loom_ctl --json node "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["guid"])'; }
printf '%s "leaf one"\n%s gpu-a\n' "$(guid Switch-1)" "$(guid Hca-A)" >"$work/nn.map"
kill -HUP "$LOOMD_PID"
loom_until 100 grep -q 'names: 2 node names from' "$work/loomd.log" || loom_fail "the map was not loaded"

# ---- 3b. node names and GUIDs from loomd -----------------------------------------------------
loom_ctl --json nodes >nodes.json
ctl __complete -s "$work/loomd.sock" node '' >c.out
python3 - nodes.json c.out <<'EOP' || loom_fail "__complete node: $(cat c.out)"
import json, sys
nodes = json.load(open(sys.argv[1]))
got = open(sys.argv[2]).read().splitlines()
want = [v for n in nodes for v in (n.get("name") or n["desc"], n["guid"])]
assert sorted(got) == sorted(want), (got, want)
assert "leaf one" in got and "gpu-a" in got, got
EOP
[ "$(ctl __complete -s "$work/loomd.sock" route trace gp)" = gpu-a ] ||
	loom_fail "__complete route trace gp: $(ctl __complete -s "$work/loomd.sock" route trace gp)"
[ "$(ctl __complete -s "$work/loomd.sock" ports le)" = "leaf one" ] || loom_fail "__complete ports le"
[ "$(LOOM_SOCKET=$work/loomd.sock bash_complete node le)" = 'leaf\ one' ] ||
	loom_fail "the bash script on \"loomctl node le\": $(LOOM_SOCKET=$work/loomd.sock bash_complete node le)"
loom_ok "node completion from loomd: $(tr '\n' ' ' <c.out)"

# ---- 4. --json anywhere; errors as JSON ---------------------------------------------------------
loom_ctl nodes --type switch --json >j.out || loom_fail "nodes --type switch --json"
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert len(d) == 1 and d[0]["name"] == "leaf one", d' j.out ||
	loom_fail "--json after the arguments: $(cat j.out)"
# the same error as text and as JSON: the same exit status, the code and message
rc_text=0; loom_ctl node No-Such-Node 2>e.err || rc_text=$?
rc=0; loom_ctl node No-Such-Node --json >e.out 2>e2.err || rc=$?
[ "$rc" = "$rc_text" ] && [ "$rc" = 1 ] || loom_fail "node No-Such-Node: exit $rc under --json, $rc_text as text"
[ ! -s e2.err ] || loom_fail "--json error left text on stderr: $(cat e2.err)"
python3 - e.out e.err <<'EOP' || loom_fail "not-found as JSON: $(cat e.out) (text: $(cat e.err))"
import json, sys
e = json.load(open(sys.argv[1]))
assert list(e) == ["error"] and sorted(e["error"]) == ["code", "message"], e
text = open(sys.argv[2]).read().strip()
assert e["error"]["code"] == "not-found", e
assert text == "loomctl: not-found: " + e["error"]["message"], (text, e)
EOP
# usage errors, the daemon unreachable, permission: each code with its exit status
check_json() { # WANT_RC WANT_CODE loomctl-args...
	_want_rc=$1 _code=$2; shift 2
	_rc=0; ctl "$@" >je.out 2>je.err || _rc=$?
	[ "$_rc" = "$_want_rc" ] || loom_fail "loomctl $*: exit $_rc, not $_want_rc: $(cat je.out je.err)"
	python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["error"]; assert e["code"] == sys.argv[2] and e["message"], e' \
		je.out "$_code" || loom_fail "loomctl $*: $(cat je.out je.err)"
	[ ! -s je.err ] || loom_fail "loomctl $*: stderr under --json: $(cat je.err)"
}
check_json 2 usage -s "$work/loomd.sock" nodes --bogus --json
grep -qF '"message": "nodes: unknown option \"--bogus\""' je.out || loom_fail "nodes --bogus --json: $(cat je.out)"
check_json 2 usage -s "$work/loomd.sock" nodes --type nosuch --json
check_json 2 usage nodse --json
check_json 3 unreachable -s "$work/none.sock" nodes --json
# loomd's own refusal keeps loomd's code
rc=0; as_nobody "$B/loomctl" -s "$work/loomd.sock" discover --json >d.out 2>d.err || rc=$?
[ "$rc" = 1 ] && [ ! -s d.err ] && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["error"]["code"] == "permission-denied"' d.out ||
	loom_fail "discover as nobody --json: exit $rc: $(cat d.out d.err)"
loom_ok "--json after the command; errors as {\"error\":{\"code\",\"message\"}}: $(tr -s '\n ' ' ' <e.out | cut -c1-100)"

# ---- 5b. permission denied: nobody against a 0660 socket ------------------------------------------
chmod 0660 "$work/loomd.sock"
group=$(stat -c %G "$work/loomd.sock")
rc=0; as_nobody "$B/loomctl" -s "$work/loomd.sock" nodes 2>p.err || rc=$?
rc_json=0; as_nobody "$B/loomctl" -s "$work/loomd.sock" nodes --json >pj.out 2>&1 || rc_json=$?
chmod 0666 "$work/loomd.sock"
[ "$rc_json" = "$rc" ] && python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["error"]; assert e["code"] == "permission-denied" and "join group" in e["message"], e' pj.out ||
	loom_fail "permission denied under --json: exit $rc_json: $(cat pj.out)"
[ "$rc" = 1 ] || loom_fail "permission denied: exit $rc: $(cat p.err)"
grep -qF "loomctl: $work/loomd.sock: permission denied: join group \"$group\" (the group of $work/loomd.sock: ls -l $work/loomd.sock shows it" p.err &&
	grep -q 'control.admin_group' p.err && grep -q 'or use sudo$' p.err || loom_fail "permission denied: $(cat p.err)"
as_nobody "$B/loomctl" -s "$work/loomd.sock" nodes >/dev/null || loom_fail "nobody cannot read with the socket 0666 again"
loom_ok "permission denied: $(cat p.err)"

# ---- 6. links and ports: each end NAME[PORT] ----------------------------------------------------
loom_ctl links >links.out
loom_ctl --json links >links.json
python3 - links.json links.out <<'EOP' || loom_fail "links by name: $(cat links.out)"
import json, sys
links = json.load(open(sys.argv[1]))
rows = open(sys.argv[2]).read().splitlines()
assert rows[0].split() == ["WIDTH", "SPEED", "FLAG", "A[PORT]", "->", "B[PORT]"], rows[0]
name = lambda e: e.get("name") or e["desc"]
for l, r in zip(links, rows[1:]):
    assert l["a"]["guid"].startswith("0x") and l["b"]["guid"].startswith("0x"), l
    want = "%s[%d] -> %s[%d]" % (name(l["a"]), l["a"]["port"], name(l["b"]), l["b"]["port"])
    assert r.endswith("  " + want), (r, want)
    assert r.split()[2] == (l["state"] if l["state"] != "up" else "-"), (r, l)
assert len(rows) == len(links) + 1 == 4, rows
assert any("leaf one[" in r for r in rows) and any("gpu-a[" in r for r in rows), rows
EOP
loom_ctl ports gpu-a >ports.out
loom_ctl --json ports gpu-a >ports.json
python3 - ports.json ports.out <<'EOP' || loom_fail "ports by name: $(cat ports.out)"
import json, sys
ports = json.load(open(sys.argv[1]))
rows = open(sys.argv[2]).read().splitlines()[1:]
assert len(rows) == len(ports) == 2, rows
for p, r in zip(ports, rows):
    peer = p["peer"]
    assert peer["guid"].startswith("0x") and peer["name"] == "leaf one", p
    assert r.endswith("  gpu-a[%d] -> leaf one[%d]" % (p["port"], peer["port"])), (r, p)
EOP
loom_ok "links and ports by name: $(sed -n 2p links.out | tr -s ' '); $(sed -n 2p ports.out | tr -s ' ' | cut -d' ' -f9-)"
