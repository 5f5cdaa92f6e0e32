#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The web view's RoCE switches (issue 20) in a real browser (chromium
# headless through selenium) against loomd managing two SONiC switches
# (real redis-servers in SONiC's schema, tests/integration/sonic_lib.sh):
#  1. after `qos apply` the page shows both switches in sync, no port
#     drifted, and when the policy was applied;
#  2. one port's PFC field changed in CONFIG_DB with redis-cli behind loom's
#     back: the page (its live read, qos-status) shows that switch drifted
#     and marks exactly that port and that field, with the value the switch
#     holds and the policy's (both read from Redis by the test), the other
#     switch in sync;
#  3. an apply the switch's Redis half refuses (an ACL on the PORT_QOS_MAP
#     keys): the page shows that switch's push as failed.
# Screenshots in BUILDDIR/tests/artifacts/web_view_roce/.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_browser
loom_work
art="$B/tests/artifacts/web_view_roce"
rm -rf "$art"
mkdir -p "$art"
sonic_plugin_dir

# two SONiC leaves: 4 ports at 100G up, one LLDP neighbour
sonic_leaf leaf1 1
sonic_leaf leaf2 2

viewer=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "viewer:read:$viewer"
port=$(loom_free_port)
url="http://127.0.0.1:$port"
loom_config "plugins:" "  dir: $work/plugins" "roce:" "  interval: 0" \
	"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  web_root: $S/web" \
	"switches:" \
	"  - {name: leaf1, plugin: sonic, address: \"unix:$work/leaf1.sock\"}" \
	"  - {name: leaf2, plugin: sonic, address: \"unix:$work/leaf2.sock\"}"
# loomd without umad2sim: no InfiniBand here, the switches are all there is
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOM_PIDS="$LOOM_PIDS $!"
LOOMD_PID=$!
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"

page() { # page STEP ARGS...: web_view.py against the page
	$PYSEL "$S/tests/integration/web_view.py" "$url" "$art" "$@" >"$work/page.out" 2>&1 ||
		loom_fail "the page ($1): $(tail -20 "$work/page.out")"
	cat "$work/page.out"
}

# ---- 1. applied: in sync ---------------------------------------------------------------
loom_ctl qos apply >"$work/apply.out" || loom_fail "qos apply: $(cat "$work/apply.out")"
page switches "$viewer" leaf1,leaf2
loom_ok "after qos apply: leaf1 and leaf2 in sync on the page, no port drifted"

# ---- 2. one port's PFC field changed behind loom's back ---------------------------------
key="PORT_QOS_MAP|Ethernet4"
want=$(r leaf1 -n 4 hget "$key" pfc_enable)
[ -n "$want" ] || loom_fail "the apply wrote no pfc_enable on leaf1's Ethernet4"
r leaf1 -n 4 hset "$key" pfc_enable "$want,4" >/dev/null
page switches "$viewer" leaf2 leaf1 Ethernet4 "$key" pfc_enable "$want,4" "$want"
loom_ok "pfc_enable of leaf1's Ethernet4 changed in CONFIG_DB: the page marks exactly that" \
	"port and field drifted ($want,4 -> $want), leaf2 in sync"

# ---- 3. a push that fails half-way --------------------------------------------------------
# leaf1's Redis refuses writes to keys that start with "PO" (reads stay open)
r leaf1 -n 4 del "QUEUE|Ethernet0|3" >/dev/null
r leaf1 acl setuser default resetkeys "%R~*" "~[^P]*" "~P[^O]*" >/dev/null
loom_ctl qos apply --switch leaf1 >/dev/null 2>&1 && loom_fail "a half-refused apply exited 0"
page switches-failed "$viewer" leaf1
r leaf1 acl setuser default allkeys >/dev/null
loom_ok "an apply that leaf1 half refused shows as a failed push"
ls "$art"/*.png >/dev/null 2>&1 || loom_fail "no screenshots in $art"
echo "web_view_roce.sh: all ok (screenshots in $art)"
