#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/telemetry.sh: loom's counters sweep against ibqueryerrors, on one
# simulated fabric, in one run (issue 19's benchmark). By default the
# 11664-host three-level fat tree of 36-port switches (69984 cabled ports).
#
#   sh bench/telemetry.sh [--hosts N] [--runs N] [--intervals N] [--keep]
#     --hosts N      hosts of the 3-level radix-36 tree (default 11664;
#                    1296 is a quick run of a few minutes)
#     --runs N       runs of each one-shot command (default 3): medians
#     --intervals N  counters reads of the daemon to watch (default 4)
#     --keep         keep the work directory and print its path
#   make bench-telemetry   (the same, BENCH_TELEMETRY_ARGS for the options)
#
# What it measures, all against one ibsim:
#   child      `loomd --read-counters SUBNET "" 0 200 3 64 -` with the fabric
#              on stdin, as loomd's telemetry module runs it each interval
#              (the fabric written by `loomd --walk`, the same wire form
#              walker_run_fabric hands the child): wall, CPU (user+sys),
#              peak RSS, PMA Gets sent; and ibsim's CPU meanwhile (a first
#              read: ClassPortInfo of every PMA)
#   child_next the same with what the read before found after the fabric
#              (its pma and sum lines), as loomd runs every read after its
#              first: no ClassPortInfo Gets, and the ports of switches whose
#              PortCounters sum did not move read with PortCountersExtended
#              alone (on this idle fabric: every switch)
#   child_details  child_next with the PMA detail attributes asked too (a
#              details line, telemetry.details_every: four more Gets a port)
#   iqe        `ibqueryerrors --skip-sl` (infiniband-diags): its own
#              discovery, then every port's PortCounters; same measures
#   iqe-cache  `ibqueryerrors --skip-sl --load-cache FILE` with an
#              ibnetdiscover cache: no discovery, like loom's read. On a
#              clean fabric it reads one AllPortSelect sum per switch (ibsim's
#              switch PMAs offer it) and per-port PortCounters only on CAs and
#              on switches whose sum shows errors: far fewer Gets than ports
#   iqe-ports  `ibqueryerrors --skip-sl --counters --load-cache FILE`: one
#              Get per port (the data counters), the mode that does read
#              every port
#   daemon     loomd itself with telemetry.interval_s 10 after one
#              discovery sweep: each read's duration (counter_reads),
#              the time to write the port rows (loomd's debug log), loomd's
#              CPU per interval from /proc/PID/stat (utime+stime and the
#              reaped children's cutime+cstime: the reader child counts),
#              VmRSS and VmHWM after every read, ibsim's CPU per interval
# and then the ratios (loom / ibqueryerrors; goal <= 0.2) and whether a 10 s
# interval is held (every read shorter than the interval, no interval
# skipped, loomd's CPU seconds per interval below the interval).
#
# Needs root (a network namespace: ibsim's socket is fixed), ibsim, opensm,
# infiniband-diags, sqlite3, /usr/bin/time and a build (top_builddir or
# ./build). ibsim is single-threaded and answers every MAD of both tools:
# its CPU is printed next to each so that a simulator-bound figure shows.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
hosts=11664 runs=3 intervals=4 keep=0
args="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=$2; shift ;;
	--runs) runs=$2; shift ;;
	--intervals) intervals=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/telemetry.sh [--hosts N] [--runs N] [--intervals N] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in ibqueryerrors sqlite3; do
	command -v $t >/dev/null || { echo "bench/telemetry.sh: $t is missing" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench/telemetry.sh: /usr/bin/time is missing" >&2; exit 1; }
. "$top/tests/integration/lib.sh"
# shellcheck disable=SC2086
loom_netns $args
[ $keep = 1 ] && LOOM_KEEP=1
loom_work
# A directory of its own (not /tmp/loom-test.*, which test clean-ups sweep):
# the big run takes a quarter of an hour.
rmdir "$work"
work=$(mktemp -d /tmp/loom-bench-telemetry.XXXXXX)
cd "$work"
[ $keep = 1 ] && echo "work directory: $work"
interval=10
CB_PRELOAD=$PRELOAD
. "$top/bench/counters_bench.sh"
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
measure() { cb_measure "$@"; }
col() { cb_col "$@"; }

loom_gen bench fattree --levels 3 --radix 36 --hosts "$hosts"
ports=$((2 * $(sed -n 's/^# hosts=.* links=\([0-9]*\).*/\1/p' "$work/bench.net")))
flags=$(sed -n 's/^# ibsim flags: //p' "$work/bench.net")
echo "bench/telemetry.sh: fat tree 3 levels r36, $hosts hosts, $ports cabled ports; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
loom_ibsim "$work/bench.net" $flags
loom_opensm
echo "subnet up (OpenSM, once)"

# The fabric as loomd hands it to the reader (fab_wire), and the cache
# ibqueryerrors loads.
cb_fabric

for i in $(seq "$runs"); do
	measure child "$B/loomd" --read-counters bench "" 0 200 3 64 - <"$work/fabric.wire"
	cb_read child "$ports"
	# The reads after the first: loomd hands the reader what the last read
	# found (its pma and sum lines: the PMAs' capabilities, the switches'
	# PortCounters sums) after the fabric.
	cb_next_input
	measure child_next "$B/loomd" --read-counters bench "" 0 200 3 64 - <"$work/fabric_pmas.wire"
	cb_read child_next
	# The same with the detail attributes asked (issue 42, telemetry.details_every:
	# a details line): four more Gets a port.
	{ cat "$work/fabric.wire"; echo "details f"; grep -E '^(pma|sum) ' "$work/child.stdout"; } \
		>"$work/fabric_details.wire"
	measure child_details "$B/loomd" --read-counters bench "" 0 200 3 64 - <"$work/fabric_details.wire"
	cb_read child_details "" 1
	measure iqe ibqueryerrors --skip-sl
	measure iqe_cache ibqueryerrors --skip-sl --load-cache "$work/ibnd.cache"
	measure iqe_ports ibqueryerrors --skip-sl --counters --load-cache "$work/ibnd.cache"
done
# ibqueryerrors prints the ports whose error counters are not zero; every
# port it read shows in its summary line.
iqe_summary=$(grep -i 'summary' "$work/iqe.stdout" | tail -n 1 || :)

# ---- the daemon ----------------------------------------------------------------
hport=$(loom_free_port)
loom_config "$(loom_subnet_conf bench)" "telemetry:" "  interval_s: $interval" \
	"http:" "  listen: 127.0.0.1:$hport"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "loomctl discover --wait"
reads() { grep -c 'counters of .* ports read' "$work/loomd.log" || :; }
# The reads: after each one, loomd's CPU and memory, and ibsim's CPU.
: >"$work/daemon"
seen=$(reads)
# A read that takes longer than the interval makes loomd skip intervals:
# wait for as many reads as asked, or (at least 3 reads) until the time
# those intervals would take three times over.
deadline=$(($(date +%s) + 120 + intervals * interval * 3))
while [ "$(wc -l <"$work/daemon")" -le "$intervals" ]; do
	if [ "$(date +%s)" -ge $deadline ]; then
		[ "$(wc -l <"$work/daemon")" -ge 3 ] || loom_fail "loomd read the counters fewer than 3 times"
		echo "(only $(($(wc -l <"$work/daemon") - 1)) intervals watched: reads are longer than the interval)"
		break
	fi
	n=$(reads)
	if [ "$n" -gt "$seen" ]; then
		seen=$n
		echo "$(date +%s.%N) $(cb_cpu_ticks "$LOOMD_PID") $(cb_cpu_ticks "$LOOM_SIM_PID") $(status_kb "$LOOMD_PID" VmRSS) $(status_kb "$LOOMD_PID" VmHWM)" >>"$work/daemon"
	fi
	sleep 0.2
done
sqlite3 "$work/loom.db" "SELECT ports, answered, mads, in_flight, round(finished - started, 2) FROM counter_reads" >"$work/last_read"

# ---- /metrics on the same fabric, while loomd goes on reading -----------------------
# Three GETs with curl (time to the last byte, size), then a real Prometheus
# with its default scrape timeout (10 s) scraping every 15 s: its own
# scrape_duration_seconds and up, from its HTTP API.
: >"$work/metrics_gets"
for i in 1 2 3; do
	curl -s -o "$work/metrics.txt" -w '%{time_total} %{size_download}\n' --max-time 60 \
		"http://127.0.0.1:$hport/metrics" >>"$work/metrics_gets" || echo "failed 0" >>"$work/metrics_gets"
done
series=$(grep -vc '^#' "$work/metrics.txt" || :)
prom="-"
if command -v prometheus >/dev/null 2>&1; then
	pport=$(loom_free_port)
	printf 'scrape_configs:\n  - job_name: loom\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' \
		"$hport" >"$work/prometheus.yml"
	prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
		--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
	PROM_PID=$!
	LOOM_PIDS="$LOOM_PIDS $PROM_PID"
	pq() {
		curl -s -G --max-time 5 "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
			python3 -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null || :
	}
	# Two scrapes (the first after at most 15 s; Prometheus' own start and
	# the ingestion of a million series take a while on a busy machine: up
	# to three minutes, then whatever it has).
	for i in $(seq 180); do
		[ -n "$(pq 'scrape_duration_seconds{job="loom"}')" ] &&
			[ "$(pq 'count_over_time(up{job="loom"}[5m])')" -ge 2 ] 2>/dev/null && break
		sleep 1
	done
	prom="up $(pq 'up{job="loom"}'), scrape_duration_seconds $(pq 'scrape_duration_seconds{job="loom"}'), samples scraped $(pq 'scrape_samples_scraped{job="loom"}')"
	kill "$PROM_PID" 2>/dev/null || :
fi
loom_ibsim_stop

# ---- the figures -------------------------------------------------------------------
echo "one-shot commands: medians of $runs runs (wall s, CPU s, peak RSS KiB, ibsim CPU s)"
for n in child child_next child_details iqe iqe_cache iqe_ports; do
	printf '  %-10s wall %7.2f  cpu %6.2f  rss %7d  ibsim-cpu %7.2f\n' "$n" \
		"$(col $n 1)" "$(col $n 2)" "$(col $n 3)" "$(col $n 4)"
done
awk '{ printf "  child      %d PMA Gets, %d of %d ports answered, at most %d in flight\n", $1, $2, $3, $4 }' \
	"$work/child.mads" | tail -n 1
awk '{ printf "  child_next %d PMA Gets, %d of %d ports answered, at most %d in flight\n", $1, $2, $3, $4 }' \
	"$work/child_next.mads" | tail -n 1
awk '{ printf "  child_details %d PMA Gets (%d of detail attributes), %d of %d ports answered\n", $1, $5, $2, $3 }' \
	"$work/child_details.mads" | tail -n 1
awk -v c="$(col child_next 1)" -v d="$(col child_details 1)" -v cc="$(col child_next 2)" -v dc="$(col child_details 2)" 'BEGIN {
	printf "ratio details  child_details/child_next wall %.2f  CPU %.2f   (the detail attributes cost of a read)\n", d / c, dc / (cc ? cc : 0.01) }'
[ -n "$iqe_summary" ] && echo "  ibqueryerrors: $iqe_summary"
awk -v c="$(col child 1)" -v i="$(col iqe 1)" -v k="$(col iqe_cache 1)" -v p="$(col iqe_ports 1)" \
	-v cc="$(col child 2)" -v ic="$(col iqe 2)" -v kc="$(col iqe_cache 2)" -v pc="$(col iqe_ports 2)" 'BEGIN {
	printf "ratio wall  child/iqe %.3f  child/iqe-cache %.3f  child/iqe-ports %.3f   (goal <= 0.2)\n", c / i, c / k, c / p
	printf "ratio CPU   child/iqe %.3f  child/iqe-cache %.3f  child/iqe-ports %.3f\n", cc / (ic ? ic : 0.01), cc / (kc ? kc : 0.01), cc / (pc ? pc : 0.01) }'
awk -v c="$(col child_next 1)" -v i="$(col iqe 1)" -v cc="$(col child_next 2)" -v ic="$(col iqe 2)" 'BEGIN {
	printf "ratio next  child_next/iqe wall %.3f  CPU %.3f   (goal <= 0.2; the reads after the first)\n", c / i, cc / (ic ? ic : 0.01) }'
echo "daemon: telemetry.interval_s $interval, $intervals intervals after the first read"
python3 - "$work/daemon" "$work/loomd.log" "$CB_TCK" "$interval" "$work/last_read" <<'EOP'
import datetime, re, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
tck, iv = float(sys.argv[3]), float(sys.argv[4])
last = open(sys.argv[5]).read().split("|")
def stamp(line):
    return datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
jobs, reads, stores, begin = [], [], [], None
for line in open(sys.argv[2], errors="replace"):
    if "counters read of the last sweep's fabric" in line or "no stored fabric" in line:
        begin = stamp(line)
    m = re.search(r"port counter rows written in (\d+) ms", line)
    if m:
        stores.append(int(m.group(1)) / 1000)
    m = re.search(r"counters of \d+ ports read .*?, \d+ PMA Gets in (\d+) ms", line)
    if m:
        reads.append(int(m.group(1)) / 1000)
        if begin is not None:
            jobs.append(stamp(line) - begin)
        begin = None
span = rows[-1][0] - rows[0][0]
n = len(rows) - 1
cpu = (rows[-1][1] - rows[0][1]) / tck / n   # loomd's CPU per read
sim = (rows[-1][2] - rows[0][2]) / tck / n
cycle = span / n
print("  PMA read (the child's, s):             %s" % " ".join("%.2f" % r for r in reads))
print("  rows written (store_record_counters):  %s" % " ".join("%.2f" % s for s in stores))
print("  whole read job (log, s):               %s" % " ".join("%.2f" % j for j in jobs))
print("  last read: %s ports, %s answered, %s PMA Gets, at most %s in flight, %s s"
      % tuple(x.strip() for x in last))
print("  one read every %.1f s; per read: loomd CPU %.2f s (reader child included; %.0f%% of "
      "a core over that time), ibsim CPU %.2f s" % (cycle, cpu, 100 * cpu / cycle, sim))
print("  loomd VmRSS after each read (KiB): %s" % " ".join("%d" % r[3] for r in rows))
print("  loomd VmHWM after each read (KiB): %s" % " ".join("%d" % r[4] for r in rows))
every = cycle < iv * 1.5
held = max(jobs) < iv and every and cpu < iv
print("%d s interval held: %s (longest read job %.2f s, a read every interval: %s, "
      "loomd CPU per read %.2f s)" % (iv, "yes" if held else "NO", max(jobs),
                                      "yes" if every else "no", cpu))
EOP
echo "/metrics (http.metrics_ports all): $series series"
awk '{ printf "  GET /metrics: %s s, %d bytes\n", $1, $2 }' "$work/metrics_gets"
echo "  Prometheus (default scrape_timeout 10 s): $prom"
