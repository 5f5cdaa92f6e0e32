# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/lib.sh: shared by the integration tests (sourced, not run).
#
# Every test that touches a simulated fabric runs in its own network namespace:
# ibsim listens on a fixed abstract unix socket, so two simulators on one
# machine would collide, and a test must never meet a stray one.
#
#   . "$(dirname "$0")/lib.sh"
#   loom_netns "$@"            # re-exec this script in a new netns (root) or skip
#   loom_work                  # $work: scratch directory, removed at exit
#   loom_ibsim NETFILE [FLAGS] # start ibsim; its console is fed by loom_ibsim_cmd
#   loom_opensm                # one OpenSM sweep: LIDs, routes, SUBNET UP
#   loom_opensm_bg             # OpenSM kept running ($OSM_PID, $work/opensm.pid)
#   loom_loomd CONFIG          # start loomd -f (preloaded), wait for its socket
#   loom_ctl ARGS...           # loomctl on $work/loomd.sock
#   loom_free_port [ADDR]      # a free TCP port; loom_tokens FILE NAME:ROLE:SECRET...
#   loom_browser               # chromium + selenium ($PYSEL) or skip
#   loom_pki DIR [IP [CN...]]  # a test CA, a server and client certificates
#
# Failures go through loom_fail, which prints the logs worth reading.

S=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${top_builddir:-$S/build}
PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
LOOM_PIDS=""

loom_skip() { echo "SKIP: $*"; exit 77; }
# loom_need TOOL...: skip the test unless every TOOL is on the PATH.
loom_need() { for _t; do command -v "$_t" >/dev/null 2>&1 || loom_skip "$_t is not installed"; done; }

# True when the loomd under test is built with AddressSanitizer (the
# sanitizer lane, tools/check-asan.sh). Its allocator keeps freed memory in
# a quarantine (256 MB by default) to catch uses after free, so a test that
# bounds loomd's resident memory starts that loomd with
# ASAN_OPTIONS=...:quarantine_size_mb=0 (loom_asan_no_quarantine), or
# leaves the bound to the normal lane (docs/sanitizers.md).
loom_asan() { ldd "$B/loomd" 2>/dev/null | grep -q 'libasan'; }
loom_asan_no_quarantine() { ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0"; export ASAN_OPTIONS; }

loom_fail() {
	echo "FAIL: $*"
	for f in "$work"/loomd.log "$work"/ibsim.log; do
		[ -s "$f" ] || continue
		echo "--- $f (last 40 lines):"; tail -n 40 "$f"
	done
	# Again, last: CI shows a failed test's last lines only.
	echo "FAIL: $*"
	exit 1
}

loom_ok() { echo "ok: $*"; }

# Fail, showing what OpenSM said about loom, its errors, and its last lines.
loom_osm_fail() {
	for f in "$work/opensm.log" "$work/opensm.out"; do
		[ -s "$f" ] || continue
		echo "--- $f (loom's lines, errors and the last 15 lines):"
		grep -E 'loom|ERR|tables configured|routing algorithm|SUBNET UP|trap' "$f" |
			tail -n 30 || :
		tail -n 15 "$f"
	done
	loom_fail "$@"
}

# Re-run the calling script inside a private network namespace.
loom_netns() {
	if [ "${LOOM_IN_NETNS:-}" != 1 ]; then
		[ "$(id -u)" -eq 0 ] || loom_skip "needs root (network namespace for ibsim)"
		loom_need ibsim opensm ibnetdiscover unshare ip
		[ -e "$PRELOAD" ] || loom_skip "$PRELOAD is missing (ibsim-utils)"
		unshare -n true 2>/dev/null || loom_skip "cannot create a network namespace"
		LOOM_IN_NETNS=1 exec unshare -n sh "$0" "$@"
	fi
	ip link set lo up
}

loom_cleanup() {
	for p in $LOOM_PIDS; do kill -9 "$p" 2>/dev/null || :; done
	for p in $LOOM_PIDS; do wait "$p" 2>/dev/null || :; done
	exec 9>&- 2>/dev/null || :
	cd /
	[ -n "${LOOM_KEEP:-}" ] || rm -rf "$work"
}

loom_work() {
	work=$(mktemp -d /tmp/loom-test.XXXXXX)
	# Others may pass through (not list): loomd's HTTP front end runs as
	# http.user (nobody) when loomd is root, and serves the web view from here.
	chmod 0711 "$work"
	cd "$work"  # umad2sim leaves a sys-PID directory where its clients run
	trap loom_cleanup EXIT
	trap 'exit 1' INT TERM
}

# Wait up to $1 tenths of a second for the command in $2... to succeed.
loom_until() {
	_n=$1; shift
	_i=0
	until "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -lt "$_n" ] || return 1
		sleep 0.1
	done
}

loom_ibsim() {
	_net=$1; shift
	rm -f "$work/ibsim.in"
	mkfifo "$work/ibsim.in"
	ibsim "$@" -s "$_net" <"$work/ibsim.in" >"$work/ibsim.log" 2>&1 &
	LOOM_SIM_PID=$!
	LOOM_PIDS="$LOOM_PIDS $!"
	exec 9>"$work/ibsim.in"   # keeps the console open; closed at cleanup
	loom_until 600 grep -q "simulator ready" "$work/ibsim.log" ||
		loom_fail "ibsim did not start on $_net"
}

# Stop the simulator (and everything attached to it: loomd), so that the
# same test can start another fabric.
loom_ibsim_stop() {
	[ -n "${LOOMD_PID:-}" ] && { kill "$LOOMD_PID" 2>/dev/null; wait "$LOOMD_PID" 2>/dev/null || :; }
	LOOMD_PID=""
	exec 9>&-
	kill "$LOOM_SIM_PID" 2>/dev/null || :
	wait "$LOOM_SIM_PID" 2>/dev/null || :
}

# Send one console command to ibsim ("Unlink \"node\"[port]", ...). A
# simulator that died is said with its log, not a silent SIGPIPE (exit 141)
# of the test on the console's write.
loom_ibsim_cmd() {
	kill -0 "$LOOM_SIM_PID" 2>/dev/null ||
		loom_fail "ibsim (pid $LOOM_SIM_PID) is gone; the console command was: $1"
	printf '%s\n' "$1" >&9; sleep 0.3; }

loom_opensm() {
	rm -f "$work/opensm.log" "$work"/guid2lid "$work"/opensm-sa.dump  # it appends
	OSM_CACHE_DIR=$work LD_PRELOAD=$PRELOAD opensm -o -f "$work/opensm.log" \
		>"$work/opensm.out" 2>&1 || :
	grep -q "SUBNET UP" "$work/opensm.log" || loom_fail "OpenSM did not bring the subnet up"
}

# OpenSM running in the background on $work/opensm.conf (it re-reads the
# partitions file and its QoS options on SIGHUP): $OSM_PID and
# $work/opensm.pid are OpenSM itself (exec), so signals and the cleanup
# reach it. Waits for SUBNET UP.
loom_opensm_bg() {
	(OSM_CACHE_DIR=$work LD_PRELOAD=$PRELOAD exec opensm -F "$work/opensm.conf" \
		-f "$work/opensm.log" >"$work/opensm.out" 2>&1) &
	OSM_PID=$!
	LOOM_PIDS="$LOOM_PIDS $OSM_PID"
	echo "$OSM_PID" >"$work/opensm.pid"
	loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
}

# loom_need_osm_plugin: $PLUGIN_DIR holds libloomosm.so (loom's OpenSM
# plugin: its routing engines and the reports to loomd), or skip.
loom_need_osm_plugin() {
	PLUGIN_DIR=$B/plugins/opensm/.libs
	[ -e "$PLUGIN_DIR/libloomosm.so" ] ||
		loom_skip "$PLUGIN_DIR/libloomosm.so is not built (configure found no OpenSM headers)"
}

# loom_osm_plugin [OPENSM-ARGS...]: exec OpenSM on $work/opensm.conf with the
# plugin, reporting to the socket of loom_config's loomd ($work/osm.sock),
# with loom's options file $work/loom-opensm.conf (applied when it exists);
# run it in a subshell, or with & so that $! is OpenSM itself.
loom_osm_plugin() {
	OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD \
		LOOMOSM_SOCKET=$work/osm.sock LOOMOSM_OPTIONS=$work/loom-opensm.conf \
		exec opensm -F "$work/opensm.conf" \
		-f "$work/opensm.log" "$@" >"$work/opensm.out" 2>&1
}

# loom_osm_loom_conf: $work/opensm.conf for an OpenSM running loom's plugin
# and engine, its log flushed; the isolated links file it reads (issue 42),
# LOOMOSM_ISOLATED=$work/isolated-links, exported.
loom_osm_loom_conf() {
	printf 'event_plugin_name loomosm\nrouting_engine loom\nforce_log_flush TRUE\nlog_flags 0x03\n' \
		>"$work/opensm.conf"
	LOOMOSM_ISOLATED=$work/isolated-links
	export LOOMOSM_ISOLATED
}

# loom_osm_plugin_bg: loom_osm_plugin in the background ($OSM_PID, OpenSM
# itself), waited for until SUBNET UP.
loom_osm_plugin_bg() {
	(loom_osm_plugin) &
	OSM_PID=$!
	LOOM_PIDS="$LOOM_PIDS $OSM_PID"
	loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "no SUBNET UP"
}

# loom_tables: the switches' tables (dump_fts) and the cables
# (ibnetdiscover) as they are now, in $work/fts.txt and $work/ibnd.txt.
loom_tables() {
	LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.txt" 2>"$work/fts.err" &&
		loom_ibnetdiscover >"$work/ibnd.txt"
}
# loom_lft_uses GUID PORT: how many LFT entries of switch GUID leave by PORT
# in $work/fts.txt; loom_lft_pick [SKIP]: a leaf-spine cable that carries
# routes (tests/integration/lft_use.py says the line and SKIP).
loom_lft_uses() { python3 "$S/tests/integration/lft_use.py" use "$work/fts.txt" "$1" "$2"; }
loom_lft_pick() { python3 "$S/tests/integration/lft_use.py" pick "$work/ibnd.txt" "$work/fts.txt" "$@"; }

# Write a loomd config for this work directory: loom_config [EXTRA YAML...]
loom_config() {
	{
		printf 'log:\n  level: debug\n'
		printf 'database:\n  path: %s/loom.db\n' "$work"
		printf 'control:\n  socket: %s/loomd.sock\n' "$work"
		# Not the default /run/loom/osm.sock: tests run loomds side by side.
		printf 'opensm:\n  report_socket: %s/osm.sock\n' "$work"
		# No counters read on an interval unless the test asks for one
		# (a `telemetry:` line of its own): reads only on request. Before
		# discovery:, which the lines below may continue (subnets:), as
		# lines appended to the file may continue the last section.
		case " $* " in
		*" telemetry:"*) ;;
		*) printf 'telemetry:\n  interval_s: 0\n' ;;
		esac
		printf 'discovery:\n  interval: 0\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$work/loom.yaml"
}

loom_loomd() {
	LD_PRELOAD=$PRELOAD "$B/loomd" -f -c "$1" 2>>"$work/loomd.log" &
	LOOM_PIDS="$LOOM_PIDS $!"
	LOOMD_PID=$!
	loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
}

loom_ctl() { "$B/loomctl" -s "$work/loomd.sock" "$@"; }

# ibnetdiscover's view of the fabric (the ground truth for discovery tests).
loom_ibnetdiscover() { LD_PRELOAD=$PRELOAD ibnetdiscover "$@" 2>/dev/null; }

# ---- discovery checks shared by discovery.sh and discovery_large.sh ----------

loom_gen() { # loom_gen NAME FABGEN-ARGS...: generate $work/NAME.net
	_n=$1; shift
	"$B/loom-fabgen" "$@" -o "$work/$_n.net" || loom_fail "loom-fabgen $*"
}

# loom_tree_up NAME HOSTS: the benches' 3-level radix-36 fat tree of HOSTS
# hosts in $work/NAME.net, in ibsim (with the flags its size needs), OpenSM
# run over it once (LIDs, routes).
loom_tree_up() {
	loom_gen "$1" fattree --levels 3 --radix 36 --hosts "$2"
	_flags=$(sed -n 's/^# ibsim flags: //p' "$work/$1.net")
	echo "fat tree 3 levels r36, $2 hosts; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	# shellcheck disable=SC2086
	loom_ibsim "$work/$1.net" $_flags
	loom_opensm
}

loom_check_fabric() { # loom_check_fabric NAME NETFILE [YAML LINES for discovery.subnets...]
	name=$1 net=$2; shift 2
	flags=$(sed -n 's/^# ibsim flags: //p' "$net")
	# shellcheck disable=SC2086
	loom_ibsim "$net" $flags
	loom_opensm
	rm -f "$work"/loom.db*
	: >"$work/loomd.log"
	loom_config "$@"
	loom_loomd "$work/loom.yaml"

	loom_ctl --json discover --wait >"$work/disc.json" || loom_fail "$name: discover --wait"
	python3 - "$work/disc.json" <<'EOP' || loom_fail "$name: sweep not ok: $(cat "$work/disc.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sweeps"] and all(s["status"] == "ok" for s in d["sweeps"]), d
EOP
	loom_ibnetdiscover >"$work/ibnd.txt" || loom_fail "$name: ibnetdiscover"
	LD_PRELOAD=$PRELOAD iblinkinfo -l >"$work/linkinfo.txt" 2>/dev/null || loom_fail "$name: iblinkinfo"
	for what in nodes ports links; do
		loom_ctl --json "$what" >"$work/$what.json" || loom_fail "$name: loomctl $what"
	done
	python3 "$S/tests/integration/compare.py" "$work/ibnd.txt" "$work/linkinfo.txt" \
		"$work/nodes.json" "$work/ports.json" "$work/links.json" >"$work/compare.out" || {
		cat "$work/compare.out"; loom_fail "$name: loom differs from ibnetdiscover"; }
	loom_ok "$name: $(tail -n1 "$work/compare.out")"

	n1=$(loom_ctl --json events | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
	loom_ctl discover --wait >/dev/null || loom_fail "$name: second sweep"
	n2=$(loom_ctl --json events | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
	[ "$n1" = "$n2" ] || loom_fail "$name: a sweep of an unchanged fabric added $((n2 - n1)) events"
	loom_ok "$name: second sweep of the unchanged fabric records no event"
	loom_ibsim_stop
}

# A TCP port free on ADDR (default 127.0.0.1) now, for a listener.
loom_free_port() {
	python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' \
		"${1:-127.0.0.1}"
}

# loom_tokens FILE NAME:ROLE:SECRET...: a REST API tokens file (loomd's
# http.tokens_file: the secrets' hashes, made by loomctl token hash),
# private as loomd requires.
loom_tokens() {
	_f=$1; shift
	: >"$_f"
	chmod 600 "$_f"
	for _t in "$@"; do
		_n=${_t%%:*}; _r=${_t#*:}; _r=${_r%%:*}; _s=${_t#*:*:}
		printf '%s\n' "$_s" | "$B/loomctl" token hash "$_n" "$_r" --stdin >>"$_f" ||
			loom_fail "loomctl token hash $_n $_r"
	done
}

# loom_pki DIR [SERVER_IP [CLIENT_CN...]]: a test PKI made by openssl in DIR
# (created): the CA DIR/ca.crt (key ca.key), a server certificate
# DIR/srv.crt (key srv.key, mode 600) for SERVER_IP (default 127.0.0.1,
# in its subjectAltName with DNS:localhost), and DIR/CN.crt (CN.key) for
# each CLIENT_CN, client certificates of the CA, all valid for 2 days.
# More with loom_pki_ca DIR NAME (NAME.crt, another CA) and loom_pki_cert
# DIR NAME CA srv|cli CN. DIR/ext.cnf also configures `openssl ca` on the
# CA (DIR/index.txt, DIR/serial, DIR/new) for certificates with chosen dates.
# openssl's output goes to DIR/openssl.log, and into the failure message.
loom_pki() {
	_pki=$1; _ip=${2:-127.0.0.1}
	[ $# -lt 2 ] || shift
	shift
	loom_need openssl
	mkdir -p "$_pki/new"
	: >"$_pki/index.txt"
	echo 01 >"$_pki/serial"
	cat >"$_pki/ext.cnf" <<EOF
[srv]
subjectAltName = IP:$_ip, DNS:localhost
basicConstraints = CA:FALSE
extendedKeyUsage = serverAuth
[cli]
basicConstraints = CA:FALSE
extendedKeyUsage = clientAuth
[ca]
default_ca = ca_default
[ca_default]
database = $_pki/index.txt
new_certs_dir = $_pki/new
serial = $_pki/serial
default_md = sha256
policy = any
[any]
commonName = supplied
EOF
	loom_pki_ca "$_pki" ca
	loom_pki_cert "$_pki" srv ca srv "$_ip"
	for _cn in "$@"; do
		loom_pki_cert "$_pki" "$_cn" ca cli "$_cn"
	done
}
_loom_ossl() { # DIR ARGS...
	_d=$1; shift
	openssl "$@" >>"$_d/openssl.log" 2>&1 || loom_fail "openssl $*: $(tail -n 5 "$_d/openssl.log")"
}
loom_pki_ca() { # DIR NAME
	_loom_ossl "$1" req -x509 -newkey rsa:2048 -nodes -keyout "$1/$2.key" -out "$1/$2.crt" \
		-days 2 -subj "/CN=loom test $2"
}
loom_pki_cert() { # DIR NAME CA srv|cli CN
	_loom_ossl "$1" req -newkey rsa:2048 -nodes -keyout "$1/$2.key" -out "$1/$2.csr" -subj "/CN=$5"
	_loom_ossl "$1" x509 -req -in "$1/$2.csr" -CA "$1/$3.crt" -CAkey "$1/$3.key" \
		-CAcreateserial -out "$1/$2.crt" -days 2 -extfile "$1/ext.cnf" -extensions "$4"
	chmod 600 "$1/$2.key"
}

# A real browser for the web view's tests: Debian's chromium and
# chromedriver, and python3-selenium ($PYSEL: Debian's python3 when the
# first python3 in PATH lacks it), or skip.
loom_browser() {
	for _t in chromium chromedriver; do
		command -v $_t >/dev/null 2>&1 || loom_skip "$_t is not installed"
	done
	PYSEL=python3
	$PYSEL -c 'import selenium' 2>/dev/null || PYSEL=/usr/bin/python3
	$PYSEL -c 'import selenium' 2>/dev/null || loom_skip "python3-selenium is not installed"
}

loom_subnet_conf() { # the YAML for one configured subnet on the simulator's HCA
	printf '  subnets:\n    - name: %s\n      ca: ibsim0\n      port: 1\n' "$1"
}

# ---- etcd (HA, issue 21) ------------------------------------------------------
# loom_etcd_cluster N: N etcd members on free loopback ports, data dirs
# $work/etcd-I, logs $work/etcd-I.log; waits until the cluster answers.
# $LOOM_ETCD_ENDPOINTS: their client URLs, comma-separated; loom_etcd_url I
# one of them. loom_etcd_stop I (kill -9) and loom_etcd_start I (again, same
# ports and data) take one member down and back; the cleanup stops them all.
loom_etcd_cluster() {
	command -v etcd >/dev/null 2>&1 || loom_skip "etcd is not installed (etcd-server)"
	loom_need curl
	LOOM_ETCD_N=$1
	_enit="" LOOM_ETCD_ENDPOINTS=""
	_e=1
	while [ "$_e" -le "$LOOM_ETCD_N" ]; do
		_c=$(loom_free_port) _p=$(loom_free_port)
		while [ "$_p" = "$_c" ]; do _p=$(loom_free_port); done
		eval "LOOM_ETCD_C$_e=$_c LOOM_ETCD_P$_e=$_p"
		_enit="$_enit${_enit:+,}m$_e=http://127.0.0.1:$_p"
		LOOM_ETCD_ENDPOINTS="$LOOM_ETCD_ENDPOINTS${LOOM_ETCD_ENDPOINTS:+,}http://127.0.0.1:$_c"
		_e=$((_e + 1))
	done
	LOOM_ETCD_INIT=$_enit
	_e=1
	while [ "$_e" -le "$LOOM_ETCD_N" ]; do loom_etcd_start "$_e"; _e=$((_e + 1)); done
	_e=1
	while [ "$_e" -le "$LOOM_ETCD_N" ]; do
		loom_until 300 loom_etcd_healthy "$_e" || loom_fail "etcd member $_e is not healthy"
		_e=$((_e + 1))
	done
}

loom_etcd_url() { eval "echo http://127.0.0.1:\$LOOM_ETCD_C$1"; }

loom_etcd_healthy() { curl -sf -m 2 "$(loom_etcd_url "$1")/health" | grep -q '"health":"true"'; }

loom_etcd_start() {
	eval "_c=\$LOOM_ETCD_C$1 _p=\$LOOM_ETCD_P$1"
	etcd --name "m$1" --data-dir "$work/etcd-$1" \
		--listen-client-urls "http://127.0.0.1:$_c" --advertise-client-urls "http://127.0.0.1:$_c" \
		--listen-peer-urls "http://127.0.0.1:$_p" --initial-advertise-peer-urls "http://127.0.0.1:$_p" \
		--initial-cluster "$LOOM_ETCD_INIT" --initial-cluster-token loom-test \
		--initial-cluster-state new >>"$work/etcd-$1.log" 2>&1 &
	eval "LOOM_ETCD_PID$1=$!"
	LOOM_PIDS="$LOOM_PIDS $!"
}

loom_etcd_stop() {
	eval "_pid=\$LOOM_ETCD_PID$1"
	kill -9 "$_pid" 2>/dev/null || :
	wait "$_pid" 2>/dev/null || :
}

# ---- loomd nodes of an HA cluster (issue 21) -----------------------------------
# loom_ha_node NAME ENDPOINTS [EXTRA YAML LINES...]: write $work/NAME/loom.yaml
# (its own database, sockets, HTTP port $PORT_NAME, picked when unset) and
# start loomd ($PID_NAME); ENDPOINTS "" starts it without HA. The tenants'
# files: $LOOM_HA_PARTITIONS (default $work/partitions.conf, one OpenSM for
# all) and $LOOM_HA_OSM_PID (default $work/opensm.pid); "%s" in either is
# the node's name. The lease: $LOOM_HA_TTL s (default 5); tenants.timeout_s
# $LOOM_HA_TENANT_TIMEOUT (default 30). Tokens: $work/tokens when present.
# SIMHOST_NAME: the ibsim host it runs on (default: the simulator's first);
# without a simulator (loom_ibsim) loomd runs without umad2sim.
loom_ha_node() {
	_name=$1 _ep=$2; shift 2
	eval "_port=\${PORT_$_name:-}"
	[ -n "$_port" ] || { _port=$(loom_free_port); eval "PORT_$_name=$_port"; }
	# shellcheck disable=SC2059
	_parts=$(printf "${LOOM_HA_PARTITIONS:-$work/partitions.conf}" "$_name")
	# shellcheck disable=SC2059
	_pidf=$(printf "${LOOM_HA_OSM_PID:-$work/opensm.pid}" "$_name")
	mkdir -p "$work/$_name"
	{
		printf 'log:\n  level: debug\ndatabase:\n  path: %s/loom.db\n' "$work/$_name"
		printf 'control:\n  socket: %s/loomd.sock\n' "$work/$_name"
		printf 'opensm:\n  report_socket: %s/osm.sock\n' "$work/$_name"
		printf 'telemetry:\n  interval_s: 0\ndiscovery:\n  interval: 0\n'
		printf 'tenants:\n  host_identity: description\n  partitions_file: %s\n  opensm_pid_file: %s\n  timeout_s: %s\n' \
			"$_parts" "$_pidf" "${LOOM_HA_TENANT_TIMEOUT:-30}"
		printf 'http:\n  listen: 127.0.0.1:%s\n' "$_port"
		[ -e "$work/tokens" ] && printf '  tokens_file: %s/tokens\n' "$work"
		[ -n "$_ep" ] && printf 'ha:\n  endpoints: "%s"\n  name: node-%s\n  advertise: %s\n  ttl_s: %s\n' \
			"$_ep" "$_name" "http://127.0.0.1:$_port" "${LOOM_HA_TTL:-5}"
		for _l in "$@"; do printf '%s\n' "$_l"; done
	} >"$work/$_name/loom.yaml"
	rm -f "$work/$_name/loomd.sock"
	eval "_simhost=\${SIMHOST_$_name:-}"
	# umad2sim only with a simulator to talk to (tests of etcd alone have none)
	_pre=${LOOM_SIM_PID:+$PRELOAD}
	if [ -n "$_simhost" ]; then
		SIM_HOST=$_simhost LD_PRELOAD=$_pre "$B/loomd" -f -c "$work/$_name/loom.yaml" \
			2>>"$work/$_name/loomd.log" &
	else
		LD_PRELOAD=$_pre "$B/loomd" -f -c "$work/$_name/loom.yaml" 2>>"$work/$_name/loomd.log" &
	fi
	eval "PID_$_name=$!"
	LOOM_PIDS="$LOOM_PIDS $!"
	loom_until 100 test -S "$work/$_name/loomd.sock" || loom_fail "node $_name did not open its socket"
}

# loom_ha_ctl NAME ARGS...: loomctl on node NAME's socket.
loom_ha_ctl() { _node=$1; shift; "$B/loomctl" -s "$work/$_node/loomd.sock" "$@"; }

# loom_ha_role NAME: "ROLE LEADER-NAME LEADER-URL" from its status ("down - -").
# Read from `loomctl status`'s ha line, no python: tests poll it.
loom_ha_role() { loom_ha_ctl "$1" status 2>/dev/null | awk '
	/^ *ha:/ { role = $2; name = "-"; url = "-"
		if (match($0, /, leader [^ ;]+/)) name = substr($0, RSTART + 9, RLENGTH - 9)
		if (match($0, / at [^;]+;/)) url = substr($0, RSTART + 4, RLENGTH - 5)
		print role, name, url; found = 1 }
	END { if (!found) print "down - -" }'; }
loom_ha_is() { [ "$(loom_ha_role "$1" | cut -d' ' -f1)" = "$2" ]; }

# loom_ha_stop NAME: stop node NAME (SIGTERM: it gives its lease back).
loom_ha_stop() { eval "_pid=\$PID_$1"; kill "$_pid" 2>/dev/null || :; wait "$_pid" 2>/dev/null || :; }

# ibsim frees a client's slot (of 10) only when the client says goodbye: a
# process killed -9 keeps its slot, and after a few the simulator refuses
# new clients ("sim_init: connect failed"). A real HCA forgets a dead
# process's MADs by itself; this does the same: every attached client whose
# pid is gone is disconnected (the console's "X N").
loom_ibsim_reap() {
	_at=$(wc -c <"$work/ibsim.log")
	loom_ibsim_cmd "Attached"
	tail -c +"$((_at + 1))" "$work/ibsim.log" |
		sed -n 's/.*Client \([0-9]*\): pid \([0-9]*\) connected.*/\1 \2/p' >"$work/ibsim.attached"
	while read -r _cl _pid; do
		kill -0 "$_pid" 2>/dev/null || loom_ibsim_cmd "X $_cl"
	done <"$work/ibsim.attached"
}

# loom_ha_fabric: the HA tests' fabric: a 16-host fat tree in ibsim with one
# OpenSM in the background reading $work/partitions.conf (all nodes' file
# unless LOOM_HA_PARTITIONS gives each its own).
loom_ha_fabric() {
	"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
	loom_ibsim "$work/f.net"
	printf 'partition_config_file %s\nforce_log_flush TRUE\nlog_flags 0x03\n' \
		"$work/partitions.conf" >"$work/opensm.conf"
	loom_opensm_bg
}

# loom_ha_fail MSG: every node's role and its last HA, tenant, policy and
# audit lines, then loom_fail.
loom_ha_fail() {
	for _d in "$work"/*/; do
		_n=$(basename "$_d")
		[ -s "$_d/loomd.log" ] || continue
		echo "--- node $_n: $(loom_ha_role "$_n")"
		grep -E 'ha:|tenant|audit|qos|partitions' "$_d/loomd.log" | tail -n 30
	done
	loom_fail "$@"
}

# loom_slurm_hooks: the Slurm hooks as `make install` writes them, with this
# test's paths: $work/loom-prolog, $work/loom-epilog, loomctl in $work/bin,
# their settings in $work/etc/loom/slurm-hooks.conf.
loom_slurm_hooks() {
	mkdir -p "$work/bin" "$work/etc/loom"
	cp "$B/loomctl" "$work/bin/"
	for _h in prolog epilog; do
		sed -e "s|@bindir[@]|$work/bin|g" -e "s|@sysconfdir[@]|$work/etc|g" \
			-e "s|@pkgdatadir[@]|$work|g" "$S/etc/slurm/loom-$_h.in" >"$work/loom-$_h"
		chmod 755 "$work/loom-$_h"
	done
}

# ---- a real Slurm on this machine (../shared/slurm-testbed.md) ----------------
# loom_slurm_need: skip unless slurm-wlm, munge and the slurm user are here.
loom_slurm_need() {
	for _t in slurmctld slurmd sbatch squeue scontrol munged; do
		command -v $_t >/dev/null 2>&1 || loom_skip "$_t is not installed (slurm-wlm, munge)"
	done
	id slurm >/dev/null 2>&1 || loom_skip "no slurm user"
}

# loom_munge: munged with a fresh key on $work/munge/sock.
loom_munge() {
	mkdir -p "$work/munge"
	chmod 755 "$work/munge"
	dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$work/munge.key"
	munged -F --force --socket="$work/munge/sock" --key-file="$work/munge.key" \
		--pid-file="$work/munge/pid" --log-file="$work/munge.log" \
		--seed-file="$work/munge/seed" >"$work/munged.out" 2>&1 &
	LOOM_PIDS="$LOOM_PIDS $!"
	loom_until 50 test -S "$work/munge/sock" || loom_fail "munged did not start"
}

# loom_slurm_conf [LINES...]: $work/slurm.conf (exported as SLURM_CONF) with
# what every test's Slurm needs (no cgroups, state in $work), then LINES
# (nodes, partitions, hooks, TopologyPlugin...).
loom_slurm_conf() {
	mkdir -p "$work/ctld" "$work/spool"
	chown slurm:slurm "$work/ctld"
	{
		cat <<EOC
ClusterName=loomtest
SlurmctldHost=$(hostname -s)(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
SlurmUser=slurm
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/ctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
EOC
		for _l in "$@"; do printf '%s\n' "$_l"; done
	} >"$work/slurm.conf"
	SLURM_CONF="$work/slurm.conf"
	export SLURM_CONF
}

# loom_slurmctld: the controller on $SLURM_CONF ($SLURMCTLD_PID).
loom_slurmctld() {
	slurmctld -D -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
	SLURMCTLD_PID=$!
	LOOM_PIDS="$LOOM_PIDS $!"
}

# loom_slurmd NAME: a slurmd that is node NAME.
loom_slurmd() {
	slurmd -D -N "$1" -f "$SLURM_CONF" >"$work/slurmd-$1.out" 2>&1 &
	LOOM_PIDS="$LOOM_PIDS $!"
}
