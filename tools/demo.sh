#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The main job, end to end on real parts: install and build loom, start ibsim
# with a shipped fat-tree fabric in a private network namespace, run loomd
# against it, let OpenSM assign LIDs and route it with loom's engine (the
# libloomosm.so plugin, which reports the run to loomd), and show with
# loomctl what loom found and routed, checked against the tables read back
# from the switches; then isolate a job's hosts in their own partition (a
# tenant), confirmed on the HCA ports; then plan and apply the lossless RoCE
# policy on a SONiC leaf (a real redis-server holding CONFIG_DB in SONiC's
# schema, as `config qos reload` leaves a 12-port leaf, through the sonic
# plugin); validate the fabric against its cabling plan, with two cables
# swapped through ibsim's console; a cable cut that loomd follows at once
# (OpenSM's trap, an incremental sweep, an incremental reroute); counters,
# health and /metrics, then the site's node names from a node-name-map;
# then reach loomd as another host would: the REST API with a
# token, loomctl --server, and the web view drawn in headless chromium; last,
# two loomd in high availability on three etcd members: one leads, the
# other takes over when the leader is killed, with the tenant it made.
# Run as root on Debian 12:
#   sudo sh tools/demo.sh [NETFILE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tools/deps.sh"
sh "$top/tools/build.sh"
net=${1:-$top/tests/fabrics/demo-ft2.net}
work=$(mktemp -d /tmp/loom-demo.XXXXXX)
echo "demo: fabric $net, work directory $work"

# The cabling plan a site would keep: every cable of the fabric as built,
# one CSV line each (node,port,peer,peer_port,width,speed).
"$top/build/loomctl" fabric plan --topology "$net" >"$work/cabling.csv"

cat > "$work/loom.yaml" <<EOC
log:
  level: info
database:
  path: $work/loom.db
control:
  socket: $work/loomd.sock
opensm:
  report_socket: $work/osm.sock
discovery:
  interval: 0
  m_key_file: $work/m_key
plugins:
  dir: $top/build/plugins/sonic/.libs
roce:
  interval: 0
switches:
  - name: leaf1
    plugin: sonic
    address: "unix:$work/leaf1.sock"
    options: "pg_profile_lookup=$work/pg_profile_lookup.ini"
tenants:
  partitions_file: $work/partitions.conf
  static_partitions: $work/static.conf
  opensm_pid_file: $work/opensm.pid
  timeout_s: 30
  host_map: $work/hosts.map
http:
  listen: 127.0.0.1:9477
  tokens_file: $work/tokens
  web_root: $top/web
validation:
  expected: $work/cabling.csv
  sm_allowed: [host-0031]
names:
  node_name_map: $work/nn.map
isolation:
  file: $work/isolated-links
EOC
# The site's node names (OpenSM's node-name-map format): none yet; the demo
# names two switches later and reloads.
: >"$work/nn.map"
# A read token for the REST API and the web view (docs/api.md): the secret
# in $work/token, its hash in the tokens file loomd reads.
python3 -c 'import secrets; print(secrets.token_hex(16))' >"$work/token"
"$top/build/loomctl" token hash demo read --stdin <"$work/token" >"$work/tokens"
chmod 600 "$work/token" "$work/tokens"
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >"$work/static.conf"
# The M_Key OpenSM protects the ports with (m_key, level 2) and loom's SMPs
# carry (discovery.m_key_file: owner-only, never printed).
printf '0x4c4f4f4d4b455931\n' >"$work/m_key"
chmod 600 "$work/m_key"
cp "$work/static.conf" "$work/partitions.conf"
: >"$work/hosts.map"   # tenants.host_identity map (the default): filled below

# Everything below runs inside its own network namespace, so that ibsim's
# fixed socket cannot meet another simulator on this machine.
export top work net
cd "$work"  # umad2sim leaves a sys-PID directory where its clients run
exec unshare -n sh -eu -c '
preload=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
ip link set lo up
B=$top/build
mkfifo "$work/ibsim.in"
ibsim -s "$net" >"$work/ibsim.log" 2>&1 <"$work/ibsim.in" &
sim=$!
exec 9>"$work/ibsim.in"   # its console: PerformanceSet below
loomd=""
osm=""
redis-server --port 0 --unixsocket "$work/leaf1.sock" --unixsocketperm 700 --save "" \
	--appendonly no --daemonize no >"$work/leaf1.redis.log" 2>&1 &
redis=$!
# OpenSM and loomd go first: their umad2sim clients talk to ibsim on the way
# out, and block for good if the simulator is gone.
trap "kill \$loomd \$osm \$redis 2>/dev/null || :; wait \$loomd \$osm 2>/dev/null || :; exec 9>&-; kill \$sim 2>/dev/null || :; wait 2>/dev/null || :" EXIT
i=0; until grep -q "simulator ready" "$work/ibsim.log"; do
	i=$((i+1)); [ $i -lt 100 ] || { cat "$work/ibsim.log"; exit 1; }; sleep 0.1; done

i=0; until [ -S "$work/leaf1.sock" ]; do
	i=$((i+1)); [ $i -lt 100 ] || { cat "$work/leaf1.redis.log"; exit 1; }; sleep 0.1; done
python3 "$top/tests/servers/sonic_db.py" seed "$work/leaf1.sock" --ports 12
python3 "$top/tests/servers/sonic_db.py" lookup >"$work/pg_profile_lookup.ini"

echo "== loomd -n -u nobody: the paths loomd writes that a service user could not"
$B/loomd -n -u nobody -c "$work/loom.yaml" 2>&1 >/dev/null | cut -c1-150 | head -n 3
echo "== loomd: starting on $work/loomd.sock"
LD_PRELOAD=$preload $B/loomd -f -c "$work/loom.yaml" 2>"$work/loomd.log" &
loomd=$!
i=0; until [ -S "$work/loomd.sock" ]; do
	i=$((i+1)); [ $i -lt 100 ] || { cat "$work/loomd.log"; exit 1; }; sleep 0.1; done
ctl="$B/loomctl -s $work/loomd.sock"

echo "== OpenSM with loom inside, on host-0031 (assigns LIDs, routes with routing_engine loom, reads the partitions file loom writes)"
printf "event_plugin_name loomosm\nrouting_engine loom\npartition_config_file %s/partitions.conf\nforce_log_flush TRUE\nsm_priority 15\nm_key %s\nm_key_protection_level 2\nm_key_lease_period 60\n" \
	"$work" "$(cat "$work/m_key")" >"$work/opensm.conf"
(SIM_HOST=host-0031 OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$B/plugins/opensm/.libs LOOMOSM_SOCKET=$work/osm.sock \
	LOOMOSM_OPTIONS=$work/loom-opensm.conf LOOMOSM_ISOLATED=$work/isolated-links LD_PRELOAD=$preload exec opensm -F "$work/opensm.conf" -f "$work/opensm.log" >"$work/opensm.out" 2>&1) &
osm=$!
echo $osm >"$work/opensm.pid"
i=0; until grep -q "SUBNET UP" "$work/opensm.log" 2>/dev/null; do
	i=$((i+1)); [ $i -lt 300 ] || { echo "OpenSM did not bring the subnet up"; tail "$work/opensm.log"; exit 1; }
	sleep 0.1; done
echo "SUBNET UP"
grep -o "loom engine loom routed.*" "$work/opensm.log" | cut -c1-160

echo "== loomctl discover --wait (the last numbers: the SMPs of the walk, those sent again, those lost)"; $ctl discover --wait
echo "== discovery.walker: loom (the default) walks with its own SMPs, many switches at once, the fabric libibnetdisc would give"
"$B/loomd" -n -c "$work/loom.yaml" 2>&1 | grep "walker:" || :
echo "== loomctl status"; $ctl status
echo "== loomctl nodes --type switch"; $ctl nodes --type switch
echo "== loomctl links (first 12: each end NAME[PORT], as iblinkinfo names it)"; $ctl links | head -n 13
echo "== a typo: loomctl nodse"; $ctl nodse 2>&1 | head -n 1
echo "== loomctl __complete nod (bash completion asks loomctl)"; "$B/loomctl" __complete nod | tr "\n" " "; echo
echo "   (every ibsim port advertises 12x and QDR but trains at 4x SDR: iblinkinfo"
echo "    says \"Could be 12X Could be 10.0 Gbps\" of each link, and so does loom)"
echo "== loomctl events"; $ctl events --limit 6
echo "== loomctl route runs: what the plugin reported of OpenSM routing with loom"
i=0; until $ctl route runs | grep -q ftree; do
	i=$((i+1)); [ $i -lt 50 ] || break; sleep 0.1; done
$ctl route runs
echo "== loomctl route check: the tables the switches hold now, read back with SMPs (SL2VL too: credit loops judged per VL, SLs from the plugin)"
$ctl route check
echo "== discovery.m_key_file: OpenSM protects the ports with an M_Key (level 2), every SMP of loom carries it; loomd -n names the file, never the key"
"$B/loomd" -n -c "$work/loom.yaml" 2>&1 | grep m_key_file || :
echo "== loomctl route trace host-0000 host-0031"
$ctl route trace host-0000 host-0031
echo "== loomctl fabric validate: the fabric against its cabling plan ($work/cabling.csv) and the rules of a healthy fabric"
$ctl fabric validate || :
echo "== the web view before any fault: every line clean (4x SDR is all ibsim enables: not degraded)"
if command -v chromium >/dev/null && /usr/bin/python3 -c "import selenium" 2>/dev/null; then
	# (no counters read yet: /health answers 404, which the page expects)
	/usr/bin/python3 "$top/tests/integration/web_view.py" http://127.0.0.1:9477 "$work" shot \
		"$(cat "$work/token")" | grep -v "^browser console: .*/health" &&
		echo "   screenshot: $work/shot-1.png"
fi
echo "== ibsim: host-0000 and host-0001 swap cables on leaf-0; OpenSM brings the links up; loomctl discover --wait"
echo "Unlink \"host-0000\"[1]" >&9; echo "Unlink \"host-0001\"[1]" >&9
echo "Link \"leaf-0\"[1] \"host-0001\"[1]" >&9; echo "Link \"leaf-0\"[2] \"host-0000\"[1]" >&9
# A relinked port is INIT until OpenSM (its heavy sweep after the trap) makes it
# ACTIVE: a sweep in between finds it stuck (port-stuck). Sweep again until the
# swap is all the check finds.
i=0; while :; do
	$ctl discover --wait >/dev/null
	$ctl fabric issues 2>/dev/null | grep -q swapped &&
		! $ctl fabric issues 2>/dev/null | grep -q port-stuck && break
	i=$((i+1)); [ $i -lt 30 ] || break; sleep 1; done
echo "== loomctl fabric issues: what the check after the sweep found (one swap, not four faults; exit 5)"
$ctl fabric issues || :
echo "== loomctl events --kind validation_issue (a port-stuck line is a sweep before OpenSM made the"
echo "   relinked port ACTIVE: it opened and cleared by itself; the swap stays until the cables are back)"
$ctl events --kind validation_issue --limit 3
echo "== the cables back: the issue clears at the first sweep after OpenSM made both ports ACTIVE"
echo "   (until then a sweep finds the relinked ports in INIT: port-stuck, a finding that waits"
echo "    on the subnet manager and clears by itself; one that stays means OpenSM cannot bring"
echo "    the port up)"
echo "Unlink \"host-0000\"[1]" >&9; echo "Unlink \"host-0001\"[1]" >&9
echo "Link \"leaf-0\"[1] \"host-0000\"[1]" >&9; echo "Link \"leaf-0\"[2] \"host-0001\"[1]" >&9
sleep 3
i=0; until $ctl discover --wait >/dev/null; $ctl fabric issues --summary >/dev/null 2>&1; do
	i=$((i+1)); [ $i -lt 30 ] || break; sleep 1; done
echo "   clean after $((i + 1)) sweep(s):"
$ctl fabric issues --summary || :
echo "== a second OpenSM started by mistake on host-0005 (validation.sm_allowed names host-0031 only;"
echo "   the OpenSM running loom has sm_priority 15, so the rogue stays STANDBY: with equal priorities it"
echo "   could win the election and serve its own partitions)"
mkdir -p "$work/rogue"; printf "force_log_flush TRUE\n" >"$work/rogue/opensm.conf"
(SIM_HOST=host-0005 OSM_CACHE_DIR=$work/rogue LD_PRELOAD=$preload exec opensm -p 0 \
	-F "$work/rogue/opensm.conf" -f "$work/rogue/opensm.log" >/dev/null 2>&1) &
rogue=$!
i=0; until grep -q "Entering STANDBY state" "$work/rogue/opensm.log" 2>/dev/null; do
	i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.1; done
i=0; until $ctl discover --wait >/dev/null; $ctl fabric issues 2>/dev/null | grep -q sm-unlisted; do
	i=$((i+1)); [ $i -lt 30 ] || break; sleep 1; done
$ctl fabric issues || :
echo "== the subnet managers loomd sees (SMInfo of every port that says IsSM, and the SA list)"
$ctl fabric validate 2>/dev/null | awk "/^subnet managers/ {p = 1; print; next} p && /^  / {print; next} {p = 0}" || :
kill $rogue; wait $rogue 2>/dev/null || :
i=0; until $ctl discover --wait >/dev/null; $ctl fabric issues --summary >/dev/null 2>&1; do
	i=$((i+1)); [ $i -lt 30 ] || break; sleep 1; done
echo "   the rogue stopped; after the next sweep:"
$ctl fabric issues --summary || :
echo "== ibsim: the cable leaf-1 <-> spine-1 is cut; nobody asks for a sweep"
echo "   (the switch traps, OpenSM'"'"'s plugin tells loomd, loomd walks that switch and its"
echo "    neighbours again: an incremental sweep; OpenSM reroutes only what crossed the cable)"
n0=$($ctl --json events --kind link_down | grep -c "\"kind\"" || :)
echo "Unlink \"spine-1\"[2]" >&9
t0=$(date +%s%N)
i=0; until [ "$($ctl --json events --kind link_down | grep -c "\"kind\"" || :)" -gt "$n0" ]; do
	i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.05; done
echo "link_down in loom'"'"'s store $(( ($(date +%s%N) - t0) / 1000000 )) ms after the cut:"
$ctl events --kind link_down --limit 1
grep "incremental sweep" "$work/loomd.log" | tail -n 1 | cut -c1-160
i=0; until $ctl route runs | sed -n 2p | grep -q reroute; do
	i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.1; done
echo "== loomctl route runs (newest first: OpenSM rerouted incrementally, every pair still delivered)"
$ctl route runs --limit 2
echo "Link \"leaf-1\"[6] \"spine-1\"[2]" >&9
i=0; until $ctl events --kind link_up --limit 1 | grep -q spine-1; do
	i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.05; done
echo "== the cable back: link_up"
$ctl events --kind link_up --limit 1
echo "== self-healing links (issue 42): loomctl link isolate leaf-1:6: loomd computes what the routes lose,"
echo "   writes the set libloomosm reads and asks OpenSM to reroute: the cable stays up, no route uses it"
$ctl link isolate leaf-1:6 --reason "demo: optics swap" | cut -c1-200
i=0; until grep -q "isolated set version 1, 1 link left out" "$work/loomd.log"; do
	i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.1; done
grep -o "loom engine loom: 1 isolated link left out.*" "$work/opensm.log" | tail -n 1
$ctl link isolated | cut -c1-160
echo "== /metrics: the isolated cable (loom_link_isolated), the set version and the one OpenSM routed with"
curl -s 127.0.0.1:9477/metrics | grep "^loom_link_isolated\|^loom_isolation_" | cut -c1-200 | head -n 3
$ctl link restore leaf-1:6
echo "== loomctl counters --now: every cabled port'"'"'s PMA counters (first read: nothing to compare yet)"
$ctl counters --now | head -n 8
echo "== ibsim sets leaf-0 port 1'"'"'s SymbolErrorCounter to 42; loomctl counters --now leaf-0"
echo "PerformanceSet \"leaf-0\"[1] PortCounters.SymbolErrorCounter=42" >&9
sleep 0.5
$ctl counters --now leaf-0
echo "== ibsim sets a DLID mapping error (PortRcvErrorDetails) on leaf-0 port 1: the port details in loomctl counters"
echo "PerformanceSet \"leaf-0\"[1] PortRcvErrorDetails.PortDLIDMappingErrors=3" >&9
sleep 0.5
$ctl --json counters --now leaf-0:1 | tr -d " \n" | grep -o "\"PortDLIDMappingErrors\":{[^}]*}" || :
echo "== ibsim makes every hop of host-0000'"'"'s route to host-0031 wait (PortXmitWait);"
echo "   loomctl health: the alarms, and the congestion followed along the tables to its root"
$ctl route trace host-0000 host-0031 | awk "/^[0-9]+ +0x/ { printf \"PerformanceSet \\\"%s\\\"[%s] PortCounters.PortXmitWait=3000000000\\n\", \$6, \$5 }" >&9
sleep 0.5
$ctl counters --now >/dev/null
$ctl health --top 5 || :   # exit 1: alarms are raised
echo "== loomctl links: each link in the state of the fabric (errors, congested, down; a healthy link is -)"
$ctl links | awk "NR == 1 || \$7 != \"-\"" | head -n 6
echo "== loomctl find host-0031: a host by name, and the leaf port its cable reaches"
$ctl find host-0031
echo "== loomctl port-history leaf-0 1: the last reads of one port, kept in memory for the web view"
$ctl port-history leaf-0 1 | tail -n 4
echo "== curl 127.0.0.1:9477/metrics: the same counters for Prometheus (docs/metrics.md; the series that are not 0)"
curl -s 127.0.0.1:9477/metrics | grep loom_port_symbol_errors_total | grep -v " 0$" | head
echo "== /metrics: link state per cable end, the peer in the labels (4 Active; a cut cable reads 1 Down, its peer kept)"
curl -s 127.0.0.1:9477/metrics | grep "^loom_port_state_id" | head -n 2
echo "== names.node_name_map: the site names two switches (node-name-map format), SIGHUP renames them"
guid() { $ctl --json node "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"guid\"])"; }
printf "%s \"rack1 leaf A\"\n%s core-1\n" "$(guid leaf-0)" "$(guid spine-1)" >"$work/nn.map"
cat "$work/nn.map"
kill -HUP $loomd
i=0; until grep -q "names: 2 node names" "$work/loomd.log"; do
	i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.1; done
$ctl nodes --type switch | head -n 4
curl -s 127.0.0.1:9477/metrics | grep "^loom_port_state_id" | grep "rack1 leaf A" | head -n 2
echo "== loomctl fabric plan: the cabling plan in the site names, and route trace by them"
$ctl fabric plan | grep "rack1 leaf A" | head -n 3
$ctl route trace host-0000 host-0001 | head -n 6
echo "== the REST API (docs/api.md): GET /api/v1/status with the read token"
curl -s -H "Authorization: Bearer $(cat "$work/token")" 127.0.0.1:9477/api/v1/status |
	python3 -m json.tool | head -n 12
echo "== HTTP is served by loomd --http-front, a process apart (docs/privileges.md): its ids, no_new_privs, seccomp"
for p in /proc/[0-9]*; do
	tr "\0" " " <$p/cmdline 2>/dev/null | grep -q -- "^loomd --http-front" || continue
	echo "pid ${p#/proc/}: $(grep -E "^(Uid|NoNewPrivs|Seccomp):" $p/status | tr -s "\t\n" "  ")"
done
grep -E "loomd-http.*sandbox: none of" "$work/loomd.log" | tail -n 1
echo "== loomctl --server http://127.0.0.1:9477 --token-file ...: the same commands from another host"
$B/loomctl --server http://127.0.0.1:9477 --token-file "$work/token" nodes --type switch | head -n 5
echo "== the same token cannot change anything (role read): tenant create is refused"
$B/loomctl --server http://127.0.0.1:9477 --token-file "$work/token" tenant create nope --hosts host-0000 || :
echo "== the web view (http://127.0.0.1:9477/, the token in $work/token), drawn in headless chromium"
if command -v chromium >/dev/null && /usr/bin/python3 -c "import selenium" 2>/dev/null; then
	/usr/bin/python3 "$top/tests/integration/web_view.py" http://127.0.0.1:9477 "$work" shot \
		"$(cat "$work/token")" && echo "   screenshot: $work/shot-2.png (after the faults)"
	echo "   its Health view (alarms, worst links, congestion roots; a row opens the port on the map):"
	/usr/bin/python3 "$top/tests/integration/web_view.py" http://127.0.0.1:9477 "$work" shot \
		"$(cat "$work/token")" health && echo "   screenshot: $work/shot-3.png"
else
	echo "   (chromium, chromium-driver and python3-selenium are not installed: tools/deps.sh has them)"
fi
echo "== loomctl slurm topology: the topology.conf for Slurm from the live fabric (its first lines)"
$ctl slurm topology | head -n 8
echo "== loomctl tenant hosts --map: a host map of the fabric as its node descriptions name the"
echo "   hosts. Root on each host sets its descriptions, so tenants trust only tenants.host_map"
echo "   (tenants.host_identity: map): the operator checks these lines and keeps them as the map"
$ctl tenant hosts --map >"$work/hosts.map.new"
head -n 6 "$work/hosts.map.new"
grep -v '^#' "$work/hosts.map.new" >"$work/hosts.map"
echo "== loomctl tenant create demo-job --hosts host-[0000-0003]: a job in its own partition"
$ctl tenant create demo-job --hosts "host-[0000-0003]"
echo "   (OpenSM re-read the partitions file in a heavy sweep that loomd asked libloomosm.so for: no signal)"
grep "heavy sweep asked by loomd" "$work/opensm.log" | tail -n 1 | cut -c1-160
echo "== loomctl job demo-job: the links its pairs cross under the tables route trace read,"
echo "   the worst of them (the cable of host-0000: the SymbolErrorCounter above) and other jobs on them"
$ctl job demo-job || :   # exit 1: a link of its paths has errors
echo "== smpquery pkeys of host-0000 (member) and host-0004 (not): read by the real tool"
for h in host-0000 host-0004; do
	lid=$($ctl --json node "$h" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"lid\"])")
	printf "%s (LID %s): " "$h" "$lid"
	LD_PRELOAD=$preload smpquery pkeys "$lid" 1 2>/dev/null | head -n 1
done
echo "== loomctl tenant list; tenant delete demo-job"
$ctl tenant list
$ctl tenant delete demo-job | head -n 2
echo "== loomctl job demo-job --from -10m: the post-mortem of the ended job (its tables versions, the events on its links)"
$ctl job demo-job --from -10m | head -n 16
echo "== loomctl qos plan: the lossless RoCE policy on SONiC leaf1 (CONFIG_DB in a real redis-server)"
echo "   (loom creates objects of its own; SHARED marks what other ports or the whole switch use)"
$ctl qos plan >"$work/qos-plan.out"
head -n 14 "$work/qos-plan.out"
echo "   ..."
grep -m 2 "^  delete" "$work/qos-plan.out"
echo "   ... (the whole plan, key by key: $work/qos-plan.out)"
echo "== loomctl qos apply, then qos status (read back)"
$ctl qos apply | head -n 3
$ctl qos status
echo "== loom routing the same fabric offline, with adaptive routing groups (quality by walking the tables)"
$B/loomctl route compute --topology "$net" --ar tree
echo "== HA (docs/ha.md): three etcd members and two loomd, node-a and node-b, that elect one leader"
echo "   (the single loomd above stops; the two take the fabric and the partitions file over)"
kill $loomd; wait $loomd 2>/dev/null || :
loomd=""; etcds=""
trap "kill \$loomd \$osm \$redis \$etcds 2>/dev/null || :; wait \$loomd \$osm 2>/dev/null || :; exec 9>&-; kill \$sim 2>/dev/null || :; wait 2>/dev/null || :" EXIT
init=m1=http://127.0.0.1:12380,m2=http://127.0.0.1:22380,m3=http://127.0.0.1:32380
eps=http://127.0.0.1:12379,http://127.0.0.1:22379,http://127.0.0.1:32379
for m in 1 2 3; do
	etcd --name m$m --data-dir "$work/etcd-$m" --listen-client-urls http://127.0.0.1:${m}2379 \
		--advertise-client-urls http://127.0.0.1:${m}2379 --listen-peer-urls http://127.0.0.1:${m}2380 \
		--initial-advertise-peer-urls http://127.0.0.1:${m}2380 --initial-cluster $init \
		--initial-cluster-token loom-demo --initial-cluster-state new >"$work/etcd-$m.log" 2>&1 &
	etcds="$etcds $!"
done
i=0; until etcdctl --endpoints=$eps endpoint health >/dev/null 2>&1; do
	i=$((i+1)); [ $i -lt 100 ] || { echo "etcd did not come up"; tail "$work/etcd-1.log"; exit 1; }; sleep 0.2; done
python3 -c "import secrets; print(secrets.token_hex(16))" >"$work/admin.token"
$B/loomctl token hash ops admin --stdin <"$work/admin.token" >"$work/tokens-ha"
chmod 600 "$work/admin.token" "$work/tokens-ha"
for n in a b; do
	port=$([ $n = a ] && echo 9481 || echo 9482)
	mkdir -p "$work/ha-$n"
	cat >"$work/ha-$n/loom.yaml" <<EOY
log: {level: info}
database: {path: $work/ha-$n/loom.db}
control: {socket: $work/ha-$n/loomd.sock}
opensm: {report_socket: $work/ha-$n/osm.sock}
discovery: {interval: 0}
tenants:
  partitions_file: $work/partitions.conf
  static_partitions: $work/static.conf
  opensm_pid_file: $work/opensm.pid
  host_map: $work/hosts.map
http: {listen: 127.0.0.1:$port, tokens_file: $work/tokens-ha}
ha:
  endpoints: "$eps"
  name: node-$n
  advertise: http://127.0.0.1:$port
EOY
	LD_PRELOAD=$preload $B/loomd -f -c "$work/ha-$n/loom.yaml" 2>"$work/ha-$n/loomd.log" &
	loomd="$loomd $!"
	eval "pid_$n=$!"
	i=0; until [ -S "$work/ha-$n/loomd.sock" ]; do
		i=$((i+1)); [ $i -lt 100 ] || { cat "$work/ha-$n/loomd.log"; exit 1; }; sleep 0.1; done
	[ $n = a ] && sleep 1   # node-a first: it leads
done
role() { $B/loomctl -s "$work/ha-$1/loomd.sock" --json status 2>/dev/null |
	python3 -c "import json,sys; print(json.load(sys.stdin)[\"ha\"][\"role\"])" 2>/dev/null || echo down; }
i=0; until [ "$(role a) $(role b)" = "leader follower" ]; do
	i=$((i+1)); [ $i -lt 100 ] || { echo "no leader: $(role a) $(role b)"; exit 1; }; sleep 0.1; done
for n in a b; do
	$B/loomctl -s "$work/ha-$n/loomd.sock" discover --wait >/dev/null
	printf "loomctl status on node-%s: " $n; $B/loomctl -s "$work/ha-$n/loomd.sock" status | grep "^ *ha:" | sed "s/^ *ha: *//"
done
srv="--server http://127.0.0.1:9481,http://127.0.0.1:9482 --token-file $work/admin.token"
echo "== on the follower, a change is refused and names the leader"
$B/loomctl --server http://127.0.0.1:9482 --token-file "$work/admin.token" tenant create ha-job --hosts "host-[0004-0007]" || :
echo "== loomctl --server NODE-A,NODE-B tenant create ha-job: the leader acts; its intent went to etcd first"
$B/loomctl $srv tenant create ha-job --hosts "host-[0004-0007]" | head -n 4
etcdctl --endpoints=$eps get --prefix /loom/loom/tenants/ --keys-only | sed "/^$/d"
echo "== kill -9 the leader (node-a): node-b takes over when the lease (5 s) runs out"
kill -9 $pid_a; t0=$(date +%s.%N)
i=0; until [ "$(role b)" = leader ]; do
	i=$((i+1)); [ $i -lt 200 ] || { echo "node-b did not take over"; exit 1; }; sleep 0.1; done
python3 -c "import sys; print(\"node-b leads %.1f s after the kill\" % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)"
$B/loomctl -s "$work/ha-b/loomd.sock" status | grep "^ *ha:"
echo "== the same command line goes on to node-b: ha-job is there, active; then deleted"
$B/loomctl $srv tenant show ha-job | head -n 4
$B/loomctl $srv tenant delete ha-job | head -n 2
echo "demo: done (database kept in $work/loom.db; try: $B/loomctl --db $work/loom.db nodes)"
'
