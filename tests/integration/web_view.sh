#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The web view in a real browser (issue 20): Debian's chromium, headless,
# driven by chromedriver through python3-selenium, against loomd on an
# ibsim fat tree, through /api/v1 with a read token typed into the page.
# The fabric drawing has as many switches and links as `loomctl --json`
# says; a link cut in ibsim is drawn down after the next sweep (and after
# loomd restarts with no link event left: the fabric's state), and is an
# open `missing` issue against the cabling plan in the issues view; a tenant
# created through the API (another token, role tenant) is in the tenants
# view, its creator the token's name (as in the audit log); a wrong token
# shows the 401 and draws nothing. Screenshots of each step are the test's
# artifacts, in BUILDDIR/tests/artifacts/web_view/.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl
loom_browser
loom_work
art="$B/tests/artifacts/web_view"
rm -rf "$art"
mkdir -p "$art"

"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work/partitions.conf" >"$work/opensm.conf"
loom_opensm_bg

# Two tokens: the operator's (read) and the scheduler's (tenant).
viewer=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
sched=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "viewer:read:$viewer" "slurm:tenant:$sched"

port=$(loom_free_port)
url="http://127.0.0.1:$port"
# the cabling plan: the fabric as OpenSM brought it up (validation.expected)
loom_ibnetdiscover >"$work/plan.topo" || loom_fail "ibnetdiscover"
loom_config "validation:" "  expected: $work/plan.topo" \
	"tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  opensm_pid_file: $work/opensm.pid" "  pkey_min: 4097" "  timeout_s: 30" \
	"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  web_root: $S/web"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl counters --now >/dev/null || loom_fail "counters --now"  # links coloured by them

count() { loom_ctl --json "$@" | python3 -c 'import json,sys; x=json.load(sys.stdin); print(len([i for i in x if i.get("fabric") != "eth"]))'; }
switches=$(count nodes --type switch)
links=$(count links)
[ "$switches" -gt 0 ] && [ "$links" -gt 0 ] || loom_fail "no fabric: $switches switches, $links links"

page() { # page STEP ARGS...: web_view.py against the page
	$PYSEL "$S/tests/integration/web_view.py" "$url" "$art" "$@" >"$work/page.out" 2>&1 ||
		loom_fail "the page ($1): $(tail -20 "$work/page.out")"
	cat "$work/page.out"
}

page fabric "$viewer" "$switches" "$links" 0
loom_ok "the fabric drawn: $switches switches and $links links, as loomctl --json says"

loom_ibsim_cmd 'Unlink "leaf-1"[5]'
loom_ctl discover --wait >/dev/null || loom_fail "discover after the cut"
loom_ctl counters --now >/dev/null || loom_fail "counters --now after the cut"
page fabric "$viewer" "$switches" "$((links - 1))" 1
loom_ok "a link cut in ibsim is drawn down after the next sweep"
issue_open() { ! loom_ctl fabric issues --summary >/dev/null 2>&1; }
loom_until 100 issue_open || loom_fail "no open issue after the cut"
page issues "$viewer" missing "leaf-1[5]" "$(loom_ctl --json fabric issues | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["issues"]))')"
loom_ok "the cut cable is an open missing issue in the issues view"

# The cut cable is drawn down from the fabric's state, not from a recent
# event: loomd restarted, the link_down events gone (as after a few days'
# pruning), it is still drawn down.
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
sqlite3 "$work/loom.db" "DELETE FROM events WHERE kind IN ('link_down', 'link_up')" ||
	loom_fail "cannot delete the link events"
loom_loomd "$work/loom.yaml"
loom_until 100 curl -sf "$url/healthz" || loom_fail "no HTTP after the restart"
page fabric "$viewer" "$switches" "$((links - 1))" 1
loom_ok "after a restart and without any link_down event, the cut cable is still drawn down"

hosts=$(loom_ctl --json nodes --type ca | python3 -c 'import json,sys; print(",".join(sorted(n["desc"] for n in json.load(sys.stdin))[:2]))')
code=$(curl -s -o "$work/create.out" -w '%{http_code}' -H "Authorization: Bearer $sched" \
	-H 'Content-Type: application/json' -d "{\"name\": \"job-web\", \"hosts\": \"$hosts\"}" \
	"$url/api/v1/tenants")
[ "$code" = 200 ] || loom_fail "POST /api/v1/tenants answered $code: $(cat "$work/create.out")"
# its creator is the principal, as the audit log names it (not the -1 of
# created_by, the uid of socket peers)
curl -s -H "Authorization: Bearer $viewer" "$url/api/v1/tenants/job-web" >"$work/show.json"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert t["creator"] == "token slurm" and t["created_by"] == -1, t' \
	"$work/show.json" || loom_fail "GET tenants/job-web: $(cat "$work/show.json")"
grep -q 'audit: "tenant-create" run by token slurm' "$work/loomd.log" ||
	loom_fail "the audit log does not name token slurm"
page tenants "$viewer" job-web "token slurm"
loom_ok "a tenant created through the API is in the tenants view, created by token slurm"

page denied "not-a-token"
loom_ok "a wrong token shows the 401 and draws nothing"
ls "$art"/*.png >/dev/null 2>&1 || loom_fail "no screenshots in $art"
echo "web_view.sh: all ok (screenshots in $art)"
