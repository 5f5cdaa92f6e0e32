/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/db/job_history_db.h: what happened to a job between two times (issue
 * 42, the job post-mortem: `loomctl job JOB --from T1 --to T2`), from
 * loom's database: for each version of the forwarding tables in force
 * within the window (lib/db/lft_history.h), the links the job's pairs
 * crossed (lib/route/route_paths.h, on the stored fabric with its cut
 * cables put back from their last peer: loom keeps no older fabric) and
 * the links that moved from the version before; the events of the window
 * on those links' ports (link_*, the isolation's, the alarms'), OpenSM's
 * reroutes (osm_*) and the drains of its hosts. The counters are the
 * caller's (loomd: Prometheus or its memory): "ports" lists the ports to
 * ask for. Shared by loomd and `loomctl --db`. */
#ifndef LOOM_JOB_HISTORY_DB_H
#define LOOM_JOB_HISTORY_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

#define JOB_HISTORY_MAX_EVENTS 500   /* listed; the rest counted */
#define JOB_HISTORY_MAX_LINKS 2000   /* a version's links listed, and its moved ones */
#define JOB_HISTORY_MAX_VERSIONS 64  /* versions answered: past them the window is cut */

struct job_history_query {
	const char *job;        /* a tenant (the Slurm job id), running or ended */
	const char *subnet;     /* NULL: the only subnet swept */
	double from, to;        /* unix seconds, from <= to */
};

/* {"job", "subnet", "from", "to", "from_ts", "to_ts", "hosts": [{"host",
 *  "port_guid"}], "ended": null | time, "fabric": "...",
 *  "versions": [{"id", "time", "ts", "after": time|null, "until": time|null,
 *                "switches", "changed_switches", "pairs", "delivered",
 *                "dropped", "loops", "n_links",
 *                "links": [{"from": "NODE[PORT]", "to", "pairs"}],
 *                "moved": {"added": [links], "removed": [links]} | null}],
 *  "events": [{"time", "ts", "severity", "kind", "subject", "old_value",
 *              "new_value", "links": ["A[p] -> B[q]"], "pairs"}],
 *  "events_more": N,
 *  "cut_at": time, "versions_more": N   when the window held more than
 *     JOB_HISTORY_MAX_VERSIONS: the answer (versions, events) stops at the
 *     first left out,
 *  "ports": [{"guid", "port", "name", "pairs", "evented"}]}   every port at
 *  an end of a link: those an event named first, then by the job's pairs
 * -ENOENT (no such job, running or ended; no subnet), -EINVAL, -EIO,
 * -ENOMEM with err. */
int job_history_db(sqlite3 *db, const struct job_history_query *q, json_t **out, char *err,
		   size_t errlen);

/* A time of the window: "now"; an age back from now, "-2h", "-90s", "-7d"
 * (or without the sign, as events --since); unix seconds; ISO 8601 UTC
 * ("2026-11-29T14:05:00Z"); or local time "2026-11-29 14:05[:SS]" (the
 * TZ of the one who asks). 0 or -EINVAL. */
int job_history_time_parse(const char *s, double now, double *out);

#endif
