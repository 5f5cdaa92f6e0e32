#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/fabric_reads.sh: the web view's reads of issue 41 on a large stored
# fabric: `find` (goal: one under 50 ms at 11664 hosts) and `links` with
# each link's state (before/after: --vs a loomctl of the commit before).
# Each is `loomctl --db DB`, the whole process timed by farm-bench: the
# same queries (lib/db/) loomd runs off its loop, plus loomctl's start.
#
#   sh bench/fabric_reads.sh DB [--vs OTHER_LOOMCTL]
#
# DB: a loom.db of the fabric, e.g. the one `sudo sh bench/api.sh --keep`
# leaves (the 11664-host 3-level fat tree of 36-port switches).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
L=${top_builddir:-$top/build}/loomctl
[ $# -ge 1 ] || { echo "usage: sh bench/fabric_reads.sh DB [--vs OTHER_LOOMCTL]" >&2; exit 2; }
db=$1; shift
vs=""
[ "${1:-}" = --vs ] && vs=$2
command -v farm-bench >/dev/null || { echo "farm-bench is not installed" >&2; exit 2; }
echo "bench/fabric_reads.sh: $(sqlite3 "$db" 'SELECT count(*) FROM nodes') nodes," \
	"$(sqlite3 "$db" 'SELECT count(*) FROM ports') ports," \
	"$(sqlite3 "$db" 'SELECT count(*) FROM links') links"
ca=$(sqlite3 "$db" "SELECT description FROM nodes WHERE type = 'ca' ORDER BY guid LIMIT 1 OFFSET 5000")
guid=$(sqlite3 "$db" "SELECT guid FROM nodes WHERE type = 'ca' ORDER BY guid LIMIT 1 OFFSET 5000")
lid=$(sqlite3 "$db" "SELECT lid FROM ports WHERE lid > 0 ORDER BY lid LIMIT 1 OFFSET 9000")
sw=$(sqlite3 "$db" "SELECT description FROM nodes WHERE type = 'switch' LIMIT 1 OFFSET 100")
for q in "$ca" "${ca%?}" host "$guid" "${guid#0x}" "$(printf '%s' "${guid#0x}" | cut -c1-10)" \
	"$lid" "$sw:3"; do
	echo "== find \"$q\""
	farm-bench -n 10 -- "$L" --db "$db" find "$q" | grep -E ' (cpu|wall) s|peak MiB'
done
echo "== links (--json)"
if [ -n "$vs" ]; then
	farm-bench -n 5 --vs "$vs --db $db --json links" -- "$L" --db "$db" --json links |
		grep -E ' (cpu|wall) s|peak MiB|A/B|^[AB] = '
else
	farm-bench -n 5 -- "$L" --db "$db" --json links | grep -E ' (cpu|wall) s|peak MiB'
fi
