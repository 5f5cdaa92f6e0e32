#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The web view's issue 41 views in a real browser (chromium, selenium) on
# a 2000-host 3-level fat tree in ibsim, a SymbolErrorCounter injected on
# one host's cable (host-0005's port) and a job (tenant) across three
# leaves. web_view_find.py proves, in one page:
#  - the legend's tick for "up" hides the up lines, the errors stay;
#  - Find by the host's name, and by its GUID, opens its leaf's panel with
#    the host's cable marked and its SymbolErrorCounter=77 shown (host
#    cables are not drawn at this size: their state is the leaf's);
#  - the Health view lists the port `loomctl health` lists first under
#    errors, and its row opens that port's panel on the map; it lists the
#    congestion root (PortXmitWait injected on a leaf's uplink) the CLI lists;
#  - the Events view's node filter narrows the list to the events naming it;
#  - the Jobs view lists first the link `loomctl job` lists first.
# Screenshots of each view: BUILDDIR/tests/artifacts/web_view_find/.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl
loom_browser
loom_work
art="$B/tests/artifacts/web_view_find"
rm -rf "$art"
mkdir -p "$art"

"$B/loom-fabgen" fattree --levels 3 --radix 24 --hosts 2000 -o "$work/big.net"
flags=$(sed -n 's/^# ibsim flags: //p' "$work/big.net")
# shellcheck disable=SC2086
loom_ibsim "$work/big.net" $flags
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >"$work/static.conf"
printf 'partition_config_file %s\nforce_log_flush TRUE\n' "$work/partitions.conf" \
	>"$work/opensm.conf"
loom_opensm_bg
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "viewer:read:$token"
port=$(loom_free_port)
url="http://127.0.0.1:$port"
loom_config "$(loom_subnet_conf big)" "tenants:" "  host_identity: description" \
	"  partitions_file: $work/partitions.conf" "  static_partitions: $work/static.conf" \
	"  opensm_pid_file: $work/opensm.pid" "  timeout_s: 60" \
	"telemetry:" "  interval_s: 0" "  thresholds:" "    errors: 1" "    xmit_wait_per_s: 5000" \
	"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  web_root: $S/web"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl tenant create webjob --hosts 'host-0005,host-0100,host-1000' >/dev/null ||
	loom_fail "tenant create webjob"
loom_ctl route check >/dev/null || loom_fail "route check (reads and stores the tables)"
loom_ctl counters --now >/dev/null || loom_fail "first counters read"
loom_ibsim_cmd 'PerformanceSet "host-0005"[1] PortCounters.SymbolErrorCounter=77'
loom_ibsim_cmd 'PerformanceSet "pod1-leaf-2"[13] PortCounters.PortXmitWait=4000000000'
loom_ctl counters --now >/dev/null || loom_fail "counters read after the injection"

host=host-0005
hguid=$(loom_ctl --json nodes --type ca | python3 -c 'import json,sys; print([n["guid"] for n in json.load(sys.stdin) if n["desc"] == sys.argv[1]][0])' "$host")
# what the CLI lists first: the worst port by errors, the job's worst link
loom_ctl --json health >"$work/health.json" || :
first=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["errors"][0]; print("%s:%s" % (e["guid"], e["port"]))' "$work/health.json") ||
	loom_fail "loomctl health lists no errors: $(cat "$work/health.json")"
[ "$first" = "$hguid:1" ] || loom_fail "loomctl health's worst port is $first, not $host's $hguid:1"
root=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["congestion_trees"][0]["roots"][0]; print("%s:%s" % (r["guid"], r["port"]))' "$work/health.json") ||
	loom_fail "loomctl health lists no congestion root: $(cat "$work/health.json")"
loom_ctl --json job webjob >"$work/job.json" || :
worst=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["worst"][0]["from"])' "$work/job.json") ||
	loom_fail "loomctl job webjob lists no worst link: $(cat "$work/job.json")"
loom_ok "loomctl: health's worst port $first ($host), congestion root $root, job webjob's worst link from $worst"

$PYSEL "$S/tests/integration/web_view_find.py" "$url" "$art" "$token" "$host" "$hguid" \
	"$first" "$root" webjob "$worst" >"$work/page.out" 2>&1 ||
	loom_fail "the page: $(tail -30 "$work/page.out")"
cat "$work/page.out"
loom_ok "legend, find by name and GUID, health, events filter and the job view agree with loomctl"
ls "$art"/*.png >/dev/null 2>&1 || loom_fail "no screenshots in $art"
echo "web_view_find.sh: all ok (screenshots in $art)"
