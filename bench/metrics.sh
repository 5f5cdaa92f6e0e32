#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/metrics.sh: loomd's /metrics on one simulated fabric (issue 39):
# the body's size plain and gzip, the render time (loomd's debug log:
# "rendered in S s"), curl's wall time for each, and a real Prometheus
# scrape of it (scrape_duration_seconds, scrape_samples_scraped).
#
#   sh bench/metrics.sh [--hosts N] [--scrapes N]
#     --hosts N    hosts of the 3-level radix-36 fat tree (default 11664;
#                  1296 is a run of a few minutes)
#     --scrapes N  Prometheus scrapes to take the median of (default 5)
# Results: bench/results-telemetry.md. Run it on a build of each commit to
# compare (git worktree add DIR COMMIT; sh tools/build.sh there).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
hosts=11664 scrapes=5
args="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=$2; shift ;;
	--scrapes) scrapes=$2; shift ;;
	*) echo "usage: sh bench/metrics.sh [--hosts N] [--scrapes N]" >&2; exit 2 ;;
	esac
	shift
done
. "$top/tests/integration/lib.sh"
# shellcheck disable=SC2086
loom_netns $args
loom_need prometheus curl python3 gzip
loom_work
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

loom_gen bench fattree --levels 3 --radix 36 --hosts "$hosts"
ports=$((2 * $(sed -n 's/^# hosts=.* links=\([0-9]*\).*/\1/p' "$work/bench.net")))
echo "bench/metrics.sh: fat tree 3 levels r36, $hosts hosts, $ports cabled ports; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
loom_ibsim "$work/bench.net" -N 16384 -S 2048 -P 131072
loom_opensm
port=$(loom_free_port)
loom_config "$(loom_subnet_conf bench)" "http:" "  listen: 127.0.0.1:$port"
loom_loomd "$work/loom.yaml"
url=http://127.0.0.1:$port
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl counters --now >/dev/null || loom_fail "counters --now"

for i in 1 2 3; do
	curl -s -o "$work/plain.txt" -w '%{time_total}\n' "$url/metrics" >>"$work/plain.t"
	curl -s -H 'Accept-Encoding: gzip' -o "$work/body.gz" -w '%{time_total}\n' "$url/metrics" >>"$work/gz.t"
done
grep -o 'rendered in [0-9.]* s, [0-9]* bytes (gzip: [0-9]* in [0-9.]* s)' "$work/loomd.log" |
	awk '{ print $3, $10 }' >"$work/render.t"
plain=$(wc -c <"$work/plain.txt") gz=$(wc -c <"$work/body.gz")

pport=$(loom_free_port)
cat >"$work/prometheus.yml" <<EOF2
global:
  scrape_interval: 15s
  scrape_timeout: 14s
scrape_configs:
  - job_name: loom
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF2
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
LOOM_PIDS="$LOOM_PIDS $!"
# Wait for `scrapes` scrapes (a large fabric's first ones take a while on 2
# cores), at most 10 minutes; what Prometheus said goes in the log.
: >"$work/scrape.t"
t=0
while [ "$(wc -l <"$work/scrape.t")" -lt "$scrapes" ] && [ $t -lt 600 ]; do
	sleep 15; t=$((t + 15))
	curl -s -G "http://127.0.0.1:$pport/api/v1/query" \
		--data-urlencode "query=scrape_duration_seconds{job=\"loom\"}[${t}s]" |
		python3 -c 'import json,sys
for r in json.load(sys.stdin)["data"]["result"]:
    for v in r["values"]: print(v[1])' >"$work/scrape.t" 2>/dev/null || :
done
grep -i "scrape\|error" "$work/prometheus.log" | tail -n 3 || :
samples=$(curl -s -G "http://127.0.0.1:$pport/api/v1/query" \
	--data-urlencode 'query=scrape_samples_scraped{job="loom"}' |
	python3 -c 'import json,sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "-")')
echo "| hosts | cabled ports | /metrics plain | gzip | render (loomd) | gzip (loomd) | curl plain | curl gzip | Prometheus scrape_duration_seconds (median of $(wc -l <"$work/scrape.t")) | samples |"
echo "|---|---|---|---|---|---|---|---|---|---|"
echo "| $hosts | $ports | $plain B | $gz B | $(cut -d' ' -f1 "$work/render.t" | median) s | $(awk '$2 > 0 { print $2 }' "$work/render.t" | median) s | $(median <"$work/plain.t") s | $(median <"$work/gz.t") s | $(median <"$work/scrape.t") s | $samples |"
