/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/find_db.h: `find`, everything an operator may type to reach a
 * thing of the fabric (issue 41), from loom's database:
 *   a node's name (the site's node-name-map) or description, a node or a
 *   port GUID (with or without 0x, any case, a prefix of 6 hex digits or
 *   more), a LID (decimal, or 0x and 1-4 hex digits), a port as NAME:PORT
 *   or GUID:PORT, a host (tenants.host_pattern on CA descriptions, or the
 *   host map: lib/fabric/hostmap.h's rule, the tenants'), a Slurm job (a
 *   tenant named by the job id: digits, "123" or "123_4") or a tenant.
 * The answer, best first (exact, then prefix, then substring; then hosts,
 * switches, CAs, routers, ports, jobs, tenants; then by name), at most
 * `limit`:
 *   [{"kind": "switch"|"ca"|"router"|"port"|"host"|"job"|"tenant",
 *     "name", "guid" (node GUID, null for a job or tenant), "port" (a port,
 *     a host's or a CA's first cabled port; else null), "lid" (null: none),
 *     "subnet" (null for a job or tenant), "matched": "name"|"description"|
 *     "node_guid"|"port_guid"|"lid"|"port"|"host"|"job"|"tenant",
 *     "leaf": {"guid", "name", "port"} for a host, a CA or a CA's port:
 *     the switch port its first cable reaches (null when none)}]
 * Each query is indexed or a scan of the nodes (13k rows at 11664 hosts);
 * a LID scans the ports (bench/results-find.md). */
#ifndef LOOM_FIND_DB_H
#define LOOM_FIND_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

#define FIND_DB_LIMIT 20     /* results when no limit is given */
#define FIND_DB_LIMIT_MAX 200

/* q: what was typed (1..256 bytes); limit 0: FIND_DB_LIMIT; pattern: the
 * host pattern (NULL: the first word); map: a host map file (NULL or "":
 * none). 0 with *out, or -EINVAL (bad q, limit, pattern or map), -EIO,
 * -ENOMEM with err. */
int find_db(sqlite3 *db, const char *q, long limit, const char *pattern, const char *map,
	    json_t **out, char *err, size_t errlen);

#endif
