#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# HA (issue 21): the loss of a management node, its loomd and its OpenSM
# together. Two management nodes on one ibsim fabric, host-0000 (node a)
# and host-0001 (node b), each with its own OpenSM (a: SM priority 15, the
# master; b: priority 1, standby; the failover settings of docs/ha.md) and
# its own loomd writing its own OpenSM's partitions file; three etcd.
#
#  1. A tenant created on the leader (a) is written by the follower (b) into
#     b's own partitions file too: the standby OpenSM has the same
#     partitions before anything fails.
#  2. Node a lost: its loomd and OpenSM killed -9 and its links unlinked in
#     ibsim. b's OpenSM becomes master and b's loomd the leader; the
#     tenant's key stays on exactly its hosts (smpquery), b's loomd did not
#     have to rewrite the file at takeover, and a new tenant is enforced by
#     b's OpenSM alone.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3
command -v etcdctl >/dev/null 2>&1 || loom_skip "etcdctl is not installed (etcd-client)"
command -v smpquery >/dev/null 2>&1 || loom_skip "smpquery is not installed (infiniband-diags)"
loom_work
LOOM_HA_TTL=3

loom_etcd_cluster 3
ALL_EP=$LOOM_ETCD_ENDPOINTS
"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
SECRET=ha-nodeloss-admin-0123456789abcdef
loom_tokens "$work/tokens" "ops:admin:$SECRET"
printf '%s\n' "$SECRET" >"$work/admin.token"

fail() {
	for n in a b; do
		echo "--- OpenSM $n:"; grep -E 'Entering|partition' "$work/$n/opensm.log" 2>/dev/null | tail -n 8
	done
	loom_ha_fail "$@"
}

# OpenSM of node N on ibsim host H with SM priority P ($OSM_N is its pid).
opensm_on() { # N H P
	mkdir -p "$work/$1/osm"
	printf '%s\n' "partition_config_file $work/$1/partitions.conf" "sm_priority $3" \
		"sminfo_polling_timeout 1000" "polling_retry_number 2" "force_log_flush TRUE" \
		"log_flags 0x03" >"$work/$1/opensm.conf"
	(SIM_HOST=$2 OSM_CACHE_DIR=$work/$1/osm LD_PRELOAD=$PRELOAD exec opensm \
		-F "$work/$1/opensm.conf" -f "$work/$1/opensm.log" >"$work/$1/opensm.out" 2>&1) &
	eval "OSM_$1=$!"
	LOOM_PIDS="$LOOM_PIDS $!"
	echo "$!" >"$work/$1/opensm.pid"
}
mkdir -p "$work/a" "$work/b"
opensm_on a host-0000 15
loom_until 300 grep -q "SUBNET UP" "$work/a/opensm.log" || fail "OpenSM a: no SUBNET UP"
opensm_on b host-0001 1
loom_until 300 grep -q "Entering STANDBY state" "$work/b/opensm.log" || fail "OpenSM b is not standby"
loom_ok "OpenSM a master on host-0000, OpenSM b standby on host-0001"

PORT_a=$(loom_free_port) PORT_b=$(loom_free_port)
LOOM_HA_PARTITIONS=$work/%s/partitions.conf LOOM_HA_OSM_PID=$work/%s/opensm.pid
SIMHOST_a=host-0000 SIMHOST_b=host-0001
loom_ha_node a "$ALL_EP"
loom_until 100 loom_ha_is a leader || fail "node a does not lead: $(loom_ha_role a)"
loom_ha_node b "$ALL_EP"
loom_until 100 loom_ha_is b follower || fail "node b: $(loom_ha_role b)"
for n in a b; do loom_ha_ctl $n discover --wait >/dev/null || fail "discover on node $n"; done

# smpquery from host-0001 (host-0000 goes away below): the PKey table of a
# host's first port.
loom_ibnetdiscover -p | awk '$1 == "CA" { d = $0; sub(/.*\( ./, "", d);
	sub(/. - .*/, "", d); print $4, $2, d }' >"$work/ports"
holders() { # KEY -> the hosts whose table holds it
	_out=""
	while read -r _guid _lid _h; do
		SIM_HOST=host-0001 LD_PRELOAD=$PRELOAD smpquery pkeys "$_lid" 1 2>/dev/null |
			sed 's/^ *[0-9]*://' | grep -qw "$1" && _out="$_out $_h"
	done <"$work/ports"
	echo "$_out" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'
}
key_of() { loom_ha_ctl "$1" --json tenant show "$2" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("0x%04x" % (d["pkey"] | 0x8000))'; }
remote() { "$B/loomctl" --server "http://127.0.0.1:$PORT_a,http://127.0.0.1:$PORT_b" \
	--token-file "$work/admin.token" "$@"; }

# ---- 1. the follower writes its own OpenSM's file ------------------------------------------
remote tenant create jobA --hosts 'host-[0002-0005]' >"$work/a.out" 2>&1 ||
	fail "jobA: $(cat "$work/a.out")"
KA=$(key_of a jobA)
loom_until 50 sh -c "[ \"\$(grep -c '=$(printf '0x%04x' $((KA & 0x7fff))) *:' '$work/b/partitions.conf' 2>/dev/null)\" = 1 ]" ||
	fail "jobA's key is not in node b's partitions file: $(cat "$work/b/partitions.conf" 2>&1)"
cmp -s "$work/a/partitions.conf" "$work/b/partitions.conf" ||
	fail "the partitions files differ: $(diff "$work/a/partitions.conf" "$work/b/partitions.conf")"
[ "$(holders "$KA")" = "host-0002 host-0003 host-0004 host-0005" ] || fail "jobA's key $KA on [$(holders "$KA")]"
loom_ok "jobA ($KA) created on leader a; follower b wrote the same partitions file for its standby OpenSM"

# ---- 2. node a lost ------------------------------------------------------------------------------
kill -9 "$OSM_a" "$PID_a"
wait "$OSM_a" 2>/dev/null || :
wait "$PID_a" 2>/dev/null || :
loom_ibsim_reap
loom_ibsim_cmd 'Unlink "host-0000"'
t0=$(date +%s)
loom_until 200 grep -q "Entering MASTER state" "$work/b/opensm.log" || fail "OpenSM b did not become master"
loom_until 150 loom_ha_is b leader || fail "loomd b does not lead: $(loom_ha_role b)"
loom_ok "node a lost: OpenSM b master and loomd b leader after $(($(date +%s) - t0)) s"
loom_until 300 sh -c "'$B/loomctl' -s '$work/b/loomd.sock' tenant show jobA | grep -q 'state: *active'" ||
	fail "jobA on the new leader: $(loom_ha_ctl b tenant show jobA 2>&1)"
# OpenSM b has swept as master: the key it enforces from b's own file
loom_until 100 grep -q "SUBNET UP" "$work/b/opensm.log" || fail "OpenSM b: no SUBNET UP as master"
[ "$(holders "$KA")" = "host-0002 host-0003 host-0004 host-0005" ] ||
	fail "after the loss, jobA's key $KA on [$(holders "$KA")]"
grep -q "it differed from the database" "$work/b/loomd.log" &&
	fail "loomd b had to rewrite its partitions file at takeover: the standby OpenSM did not have it"
loom_ok "jobA active on b; OpenSM b enforces its key on exactly its hosts from b's own file"
"$B/loomctl" --server "http://127.0.0.1:$PORT_a,http://127.0.0.1:$PORT_b" --token-file "$work/admin.token" \
	tenant create jobB --hosts 'host-[0006-0007]' >"$work/b.out" 2>&1 || fail "jobB: $(cat "$work/b.out")"
KB=$(key_of b jobB)
[ "$KB" != "$KA" ] || fail "jobB got jobA's key $KA"
[ "$(holders "$KB")" = "host-0006 host-0007" ] || fail "jobB's key $KB on [$(holders "$KB")]"
loom_ok "jobB ($KB) created on b after the loss, enforced by OpenSM b"
