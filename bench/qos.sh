#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/qos.sh: the lossless RoCE policy applied and verified on many SONiC
# switches at once: N real redis-servers (default 64), each holding a SONiC
# leaf of P ports (default 64) in SONiC's schema, one loomd with the sonic
# plugin; prints the time of `loomctl qos apply` (apply, then read back,
# every switch on a thread of its own) and of a `qos status` after it, in
# total and per switch. Target (issue 5): apply + verify of 64 x 64 < 5 s.
#
#   sh bench/qos.sh [--switches N] [--ports P] [--keep]
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
n=64 ports=64 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--switches) n=$2; shift ;;
	--ports) ports=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/qos.sh [--switches N] [--ports P] [--keep]" >&2; exit 2 ;;
	esac
	shift
done
for t in redis-server redis-cli python3; do
	command -v $t >/dev/null || { echo "bench/qos.sh: $t is missing" >&2; exit 1; }
done
[ -e "$B/plugins/sonic/.libs/sonic.so" ] || { echo "bench/qos.sh: build first (no sonic.so)" >&2; exit 1; }
work=$(mktemp -d /tmp/loom-bench-qos.XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || :; done
	wait 2>/dev/null || :
	[ $keep = 1 ] && echo "kept: $work" || rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/plugins"
cp "$B/plugins/sonic/.libs/sonic.so" "$work/plugins/"

i=0
while [ $i -lt "$n" ]; do
	redis-server --port 0 --unixsocket "$work/sw$i.sock" --unixsocketperm 700 --save '' \
		--appendonly no --daemonize no >"$work/sw$i.log" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
# Seed every switch in one redis-cli --pipe per switch (SONiC-shaped ports).
i=0
while [ $i -lt "$n" ]; do
	until redis-cli -s "$work/sw$i.sock" ping >/dev/null 2>&1; do sleep 0.05; done
	python3 - "$i" "$ports" <<'PY' | redis-cli -s "$work/sw$i.sock" --pipe >/dev/null
import sys
i, ports = int(sys.argv[1]), int(sys.argv[2])
def cmd(*a):
    out = '*%d\r\n' % len(a)
    for x in a:
        x = str(x)
        out += '$%d\r\n%s\r\n' % (len(x.encode()), x)
    sys.stdout.write(out)
cmd('SELECT', 4)
cmd('HSET', 'DEVICE_METADATA|localhost', 'hostname', 'leaf%d' % i, 'hwsku', 'ACS-MSN2700',
    'mac', '00:11:22:33:%02x:%02x' % (i >> 8, i & 255))
for p in range(ports):
    cmd('HSET', 'PORT|Ethernet%d' % (4 * p), 'alias', 'etp%d' % (p + 1), 'speed', 100000,
        'mtu', 9100, 'admin_status', 'up', 'lanes', ','.join(str(4 * p + k) for k in range(4)))
cmd('SELECT', 0)
for p in range(ports):
    cmd('HSET', 'PORT_TABLE:Ethernet%d' % (4 * p), 'oper_status', 'up')
PY
	i=$((i + 1))
done
{
	printf 'log:\n  level: notice\n'
	printf 'database:\n  path: %s/loom.db\ncontrol:\n  socket: %s/loomd.sock\n' "$work" "$work"
	printf 'opensm:\n  report_socket: %s/osm.sock\ndiscovery:\n  interval: 0\n' "$work"
	printf 'plugins:\n  dir: %s/plugins\nroce:\n  interval: 0\nswitches:\n' "$work"
	i=0
	while [ $i -lt "$n" ]; do
		printf '  - {name: leaf%d, plugin: sonic, address: "unix:%s/sw%d.sock"}\n' $i "$work" $i
		i=$((i + 1))
	done
} >"$work/loom.yaml"
"$B/loomd" -f -c "$work/loom.yaml" 2>"$work/loomd.log" &
pids="$pids $!"
until [ -S "$work/loomd.sock" ]; do sleep 0.05; done

ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }
t0=$(ms)
"$B/loomctl" -s "$work/loomd.sock" --json qos apply >"$work/apply.json" || :
t1=$(ms)
"$B/loomctl" -s "$work/loomd.sock" --json qos status >"$work/status.json" || :
t2=$(ms)
python3 - "$work/apply.json" "$work/status.json" "$n" "$ports" $((t1 - t0)) $((t2 - t1)) <<'PY'
import json, sys
a, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n, ports, ta, ts = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
keys = sum(x.get('landed', 0) for x in a['switches'])
print('switches  ports  fields-written  apply+verify-s  per-switch-ms  in-policy  status-s  in-policy')
print('%d  %d  %d  %.2f  %.1f  %d/%d  %.2f  %d/%d' % (n, ports, keys, ta / 1000, ta / n,
      a['in_policy'], a['switches_total'], ts / 1000, s['in_policy'], s['switches_total']))
print('target: apply + verify of 64 x 64 in < 5 s: %s' % ('met' if ta < 5000 and
      a['in_policy'] == n else 'NOT met'))
PY
