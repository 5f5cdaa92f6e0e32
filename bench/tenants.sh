#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/tenants.sh: tenant isolation at scale. On a simulated fabric of
# 1000 hosts (ibsim) with a running OpenSM that reads loom's partitions
# file, create N tenants (default 100) of 10 hosts each, one after another,
# then delete them. Each `loomctl tenant create` returns only when loomd has
# read the new key back from every HCA port (PKeyTable by SMP) and found it
# on exactly the tenant's ports, so its wall time is the time from request
# to verified enforcement. Prints median, 90th percentile and maximum of
# create and of delete. Target: median create < 5 s.
#
#   sh bench/tenants.sh [--tenants N] [--hosts H]
#
# Needs root (a network namespace: ibsim's socket is fixed), ibsim, opensm,
# infiniband-diags, python3 and a build (top_builddir or ./build).
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
n=100 hosts=1000
while [ $# -gt 0 ]; do
	case $1 in
	--tenants) n=$2; shift 2 ;;
	--hosts) hosts=$2; shift 2 ;;
	*) echo "usage: sh bench/tenants.sh [--tenants N] [--hosts H]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "bench/tenants.sh: needs root (network namespace)" >&2; exit 1; }
for t in ibsim opensm unshare python3; do
	command -v $t >/dev/null || { echo "bench/tenants.sh: $t is missing" >&2; exit 1; }
done
if [ "${LOOM_IN_NETNS:-}" != 1 ]; then
	LOOM_IN_NETNS=1 exec unshare -n sh "$0" --tenants "$n" --hosts "$hosts"
fi
ip link set lo up
work=$(mktemp -d /tmp/loom-bench-tenants.XXXXXX)
pids=""
cleanup() {
	exec 9>&- 2>/dev/null || :
	for p in $pids; do kill "$p" 2>/dev/null || :; done
	wait 2>/dev/null || :
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cd "$work"
per=$((hosts / n))
[ "$per" -ge 1 ] || { echo "bench/tenants.sh: fewer hosts than tenants" >&2; exit 2; }

"$B/loom-fabgen" fattree --levels 2 --radix 48 --hosts "$hosts" -o f.net
mkfifo ibsim.in
ibsim -s f.net <ibsim.in >ibsim.log 2>&1 &
pids="$pids $!"
exec 9>ibsim.in
until grep -q "simulator ready" ibsim.log; do sleep 0.1; done
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >static.conf
printf 'partition_config_file %s/partitions.conf\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	"$work" >opensm.conf
(OSM_CACHE_DIR=$work LD_PRELOAD=$PRELOAD exec opensm -F opensm.conf -f opensm.log \
	>opensm.out 2>&1) &
pids="$pids $!"
echo $! >opensm.pid
until grep -q "SUBNET UP" opensm.log; do sleep 0.2; done
cat >loom.yaml <<EOC
log:
  level: notice
database:
  path: $work/loom.db
control:
  socket: $work/loomd.sock
opensm:
  report_socket: $work/osm.sock
discovery:
  interval: 0
tenants:
  host_identity: description
  partitions_file: $work/partitions.conf
  static_partitions: $work/static.conf
  opensm_pid_file: $work/opensm.pid
  timeout_s: 120
EOC
LD_PRELOAD=$PRELOAD "$B/loomd" -f -c loom.yaml 2>loomd.log &
pids="$pids $!"
until [ -S loomd.sock ]; do sleep 0.1; done
ctl() { "$B/loomctl" -s "$work/loomd.sock" "$@"; }
ctl discover --wait >/dev/null

now() { date +%s.%N; }
: >create.times
: >delete.times
i=0
while [ $i -lt "$n" ]; do
	first=$((i * per))
	last=$((first + per - 1))
	t0=$(now)
	ctl tenant create "job$i" --hosts "$(printf 'host-[%04d-%04d]' $first $last)" >/dev/null ||
		{ echo "create job$i failed"; tail -5 loomd.log; exit 1; }
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>create.times
	i=$((i + 1))
done
i=0
while [ $i -lt "$n" ]; do
	t0=$(now)
	ctl tenant delete "job$i" >/dev/null || { echo "delete job$i failed"; exit 1; }
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>delete.times
	i=$((i + 1))
done
python3 - "$n" "$hosts" "$per" <<'PY'
import sys
n, hosts, per = sys.argv[1:4]
def stats(f):
    v = sorted(float(x) for x in open(f))
    return v[len(v) // 2], v[min(len(v) - 1, int(len(v) * 0.9))], v[-1]
c, d = stats('create.times'), stats('delete.times')
print('fabric: %s hosts (ibsim), %s tenants of %s hosts, one after another' % (hosts, n, per))
print('%-8s %10s %10s %10s' % ('', 'median-s', 'p90-s', 'max-s'))
print('%-8s %10.2f %10.2f %10.2f' % ('create', *c))
print('%-8s %10.2f %10.2f %10.2f' % ('delete', *d))
print('target: median create to verified enforcement < 5 s: %s' % ('met' if c[0] < 5 else 'NOT met'))
PY
