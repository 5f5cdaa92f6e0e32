#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/opensm_unprivileged.sh: loomd running as a user that may
# not signal OpenSM nor write OpenSM's options file (nobody, through setpriv;
# OpenSM runs as root with libloomosm.so) still has OpenSM apply the files
# loom writes in a directory of its own, as /var/lib/loom in production
# (docs/opensm-slurm.md): the partitions file (OpenSM's partition_config_file) and
# loom's options file (libloomosm.so applies its QoS and congestion-control
# lines over OpenSM's own options, plugins/opensm/osm_options.c). loomd asks
# for the heavy sweep that re-reads them through the plugin, over the report
# socket (daemon/routing/opensm_sweep.h, plugins/opensm/request.c), no SIGHUP.
#
#  1. The user cannot signal OpenSM (kill -0 as nobody fails) nor write
#     OpenSM's own options file: loomd has no other path left.
#  2. A tenant created through that loomd is confirmed: its key reaches
#     its hosts' PKey tables (smpquery), loomd says it asked libloomosm.so,
#     and OpenSM's log shows the heavy sweep the plugin made for it.
#  3. ib_cc apply into loom's options file: OpenSM applies it at the
#     plugin's request (its own parser's output: congestion_control TRUE
#     loaded; its log: loom's lines applied over its own file), and its CC
#     manager then sets the CAs (CongestionControlTable Sets, status 0).
#  3b. ib_qos apply into the same file: every port's SL2VL and VLArb tables
#     read back in policy (`loomctl qos status --ib`).
#  4. loom's file may set only QoS and congestion-control options: a line
#     sm_priority in it is ignored (ERR LOOM10), OpenSM never loads it.
#  5. Only loomd may ask: a request from another socket (root's, sent to
#     the plugin's abstract address) is dropped and logged, no sweep made.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need smpquery setpriv python3
id nobody >/dev/null 2>&1 || loom_skip "no user nobody"
RUNAS="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups"
# The user's directory, as /var/lib/loom is the package's user's: the
# database, the sockets, the partitions file and loom's options file. OpenSM's
# own options file stays root's.
chown nobody "$work"
chmod 755 "$work"

"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
# The operator's options file (root's): log_flags 0x07 shows the CC manager's
# MADs. loom's options go to $work/loom-opensm.conf (loom_osm_plugin's
# LOOMOSM_OPTIONS), which does not exist yet.
printf 'event_plugin_name loomosm\nforce_log_flush TRUE\nlog_flags 0x07\npartition_config_file %s\n' \
	"$work/partitions.conf" >"$work/opensm.conf"
loom_osm_plugin &
OSM_PID=$!
LOOM_PIDS="$LOOM_PIDS $OSM_PID"
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
sweeps() { grep -c "heavy sweep asked by loomd ($1)" "$work/opensm.log" || :; }

# ---- 1. no signal path ----------------------------------------------------------------------
$RUNAS kill -0 "$OSM_PID" 2>/dev/null && loom_fail "nobody may signal OpenSM: the test would prove nothing"
$RUNAS sh -c ": >>'$work/opensm.conf'" 2>/dev/null && loom_fail "nobody may write OpenSM's options file"
loom_ok "user nobody can neither signal OpenSM (pid $OSM_PID) nor write its options file"

loom_config "tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  pkey_min: 4097" "  timeout_s: 30" \
	"ib_cc:" "  enable: true" "  ca:" "    control_map: 0x0001" "    sls:" \
	"      - {sl: 0, ccti_timer: 150, ccti_increase: 1, trigger_threshold: 0, ccti_min: 0}" \
	"  cct: [\"0:0\", \"1:10\"]" "  opensm_config: $work/loom-opensm.conf" \
	"ib_qos:" "  classes: {compute: 0, storage: 1}" \
	"  sl2vl: [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15]" \
	"  vlarb_low: [{vl: 0, weight: 64}, {vl: 1, weight: 128}, {vl: 2, weight: 32}, {vl: 3, weight: 8}]" \
	"  max_vls: 4" \
	"  opensm_config: $work/loom-opensm.conf"
LD_PRELOAD=$PRELOAD $RUNAS "$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOMD_PID=$!
LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd (as nobody) did not open its socket"
[ "$(stat -c %U "$work/loom.db")" = nobody ] || loom_fail "loomd does not run as nobody"
loom_ctl discover --wait >/dev/null || loom_fail "discover failed"
# loomd hears of the plugin's address from its reports: a heavy sweep's.
loom_ibsim_cmd 'Unlink "host-0015"[1]'
loom_until 200 grep -q "takes loomd's requests" "$work/loomd.log" ||
	loom_osm_fail "loomd never learned where the plugin hears requests"

# ---- 2. a tenant -------------------------------------------------------------------------------
ports() { loom_ibnetdiscover -p | awk '$1 == "CA" { d = $0; sub(/.*\( ./, "", d);
	sub(/. - .*/, "", d); print $4, $2, d }'; }
pkeys_of() { # HOST: its first port's PKeyTable (smpquery)
	_lid=$(ports | awk -v h="$1" '$3 == h { print $2; exit }')
	[ -n "$_lid" ] || loom_fail "no LID for $1"
	LD_PRELOAD=$PRELOAD smpquery pkeys "$_lid" 1 2>/dev/null | sed 's/^ *[0-9]*://'
}
loom_ctl tenant create jobA --hosts 'host-[0000-0003]' >"$work/a.out" 2>&1 ||
	loom_osm_fail "create jobA (loomd as nobody): $(cat "$work/a.out")"
K=$(sed -n 's/^pkey: *0x\(....\)$/\1/p' "$work/a.out")
F=0x$(printf '%x' $((0x$K | 0x8000)))
for h in host-0000 host-0003; do
	pkeys_of "$h" | grep -qiw "$F" || loom_fail "$h lacks $F: $(pkeys_of "$h")"
done
pkeys_of host-0004 | grep -qiw "$F" && loom_fail "host-0004 holds $F"
grep -q "tenants: .*OpenSM re-reads it (asked libloomosm.so in OpenSM pid $OSM_PID)" \
	"$work/loomd.log" || loom_fail "loomd did not say it asked the plugin"
[ "$(sweeps tenants)" -ge 1 ] || loom_osm_fail "OpenSM's log shows no sweep asked for the tenant"
loom_ok "tenant jobA ($F) on host-0000..0003 (smpquery) with loomd as nobody:" \
	"$(sweeps tenants) heavy sweep(s) asked through libloomosm.so, no signal"

# ---- 3. ib_cc apply --------------------------------------------------------------------------
loom_ctl qos apply --ib-cc >"$work/apply.out" 2>&1 || loom_fail "apply: $(cat "$work/apply.out")"
grep -q "OpenSM re-reads it (asked libloomosm.so in OpenSM pid $OSM_PID)" "$work/apply.out" ||
	loom_fail "apply: $(cat "$work/apply.out")"
loom_until 100 grep -q "Loading Cached Option:congestion_control = TRUE" "$work/opensm.out" ||
	loom_osm_fail "OpenSM did not apply congestion_control from loom's file"
grep -q "loomosm: [0-9]* option line(s) of $work/loom-opensm.conf applied over $work/opensm.conf" \
	"$work/opensm.log" || loom_osm_fail "the plugin did not say it applied loom's file"
[ "$(sweeps ib_cc)" -ge 1 ] || loom_osm_fail "OpenSM's log shows no sweep asked for ib_cc"
loom_until 300 grep -q "cc_rcv_mad: Processing received MAD status 0x0 for attr ID 23 " \
	"$work/opensm.log" || loom_osm_fail "OpenSM's CC manager sent no CongestionControlTable"
loom_ok "ib_cc apply as nobody into loom's file: OpenSM applied it over its own options" \
	"(congestion_control TRUE) at the plugin's request; its CC manager set the CCT"

# ---- 3b. ib_qos apply: every port read back in policy ------------------------------------------
qos_ok() { "$B/loomctl" -s "$work/loomd.sock" qos status --ib >"$work/qstatus.out" 2>&1; }
qos_ok && loom_fail "in policy before the apply: $(cat "$work/qstatus.out")"
loom_ctl qos apply --ib >"$work/qapply.out" 2>&1 || loom_fail "apply --ib: $(cat "$work/qapply.out")"
grep -q "OpenSM re-reads it (asked libloomosm.so in OpenSM pid $OSM_PID)" "$work/qapply.out" ||
	loom_fail "apply --ib: $(cat "$work/qapply.out")"
loom_until 300 qos_ok || loom_osm_fail "ports not in policy 30 s after apply --ib: $(tail -3 "$work/qstatus.out")"
loom_ok "ib_qos apply as nobody into loom's file: $(tail -n 1 "$work/qstatus.out") (SL2VL and VLArb read back)"

# ---- 4. loom's file sets only QoS and congestion control --------------------------------------
$RUNAS sh -c "echo 'sm_priority 3' >>'$work/loom-opensm.conf'"
loom_ctl qos status --ib-cc >/dev/null 2>&1 || :  # (drift: a line after loom's block)
n=$(sweeps ib_cc)
loom_ctl qos apply --ib-cc >"$work/apply2.out" 2>&1 || loom_fail "apply: $(cat "$work/apply2.out")"
loom_until 100 sh -c "[ \$(grep -c 'heavy sweep asked by loomd (ib_cc)' '$work/opensm.log') -gt $n ]" ||
	loom_osm_fail "no second sweep asked"
loom_until 100 grep -q "ERR LOOM10: loomosm: $work/loom-opensm.conf:[0-9]*: sm_priority is not an option loom may set" \
	"$work/opensm.log" || loom_osm_fail "the sm_priority line was not refused"
sleep 1
grep -q "Loading Cached Option:sm_priority" "$work/opensm.out" &&
	loom_osm_fail "OpenSM loaded sm_priority from loom's file"
loom_ok "a line sm_priority in loom's file is ignored (ERR LOOM10): loom sets QoS and CC only"

# ---- 5. only loomd may ask ------------------------------------------------------------------------
n=$(grep -c "heavy sweep asked by loomd" "$work/opensm.log")
python3 - "$OSM_PID" <<'EOP' || loom_fail "cannot send a request as another socket"
import os, socket, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        t = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        continue
    if t.startswith("socket:["):
        inodes.add(t[8:-1])
names = [l.split()[7] for l in open("/proc/net/unix").read().splitlines()[1:]
         if len(l.split()) >= 8 and l.split()[6] in inodes and l.split()[7].startswith("@")]
assert names, "OpenSM has no abstract socket"
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sent = 0
for n in names:  # umad2sim's sockets refuse a datagram; the plugin's takes it
    try:
        s.sendto(b'{"v":1,"type":"heavy_sweep","why":"intruder"}', "\0" + n[1:])
        sent += 1
    except OSError:
        pass
assert sent, "no abstract socket of OpenSM took the datagram"
EOP
loom_until 50 grep -q "ERR LOOM09: loomosm: a request not from loomd's socket" "$work/opensm.log" ||
	loom_osm_fail "a foreign request was not refused"
sleep 1
[ "$(sweeps intruder)" = 0 ] && [ "$(grep -c "heavy sweep asked by loomd" "$work/opensm.log")" = "$n" ] ||
	loom_osm_fail "a foreign request made OpenSM sweep"
loom_ok "a request from another socket than loomd's is dropped and logged (ERR LOOM09), no sweep"
