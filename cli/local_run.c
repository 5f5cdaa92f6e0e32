/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/local_run.c: see local_run.h. Without a daemon, the tables are the
 * last ones it read and stored, the AR capability the last probe found,
 * the counters the last read found: answers marked "cached" where loomd's
 * would have read the fabric. */
#include "autoconf.h"
#include "local_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/ar/ar_status.h"
#include "lib/db/ar_status_db.h"
#include "lib/db/counters_db.h"
#include "lib/db/db_commands.h"
#include "lib/db/db_query.h"
#include "lib/db/health_db.h"
#include "lib/db/job_db.h"
#include "lib/db/job_history_db.h"
#include "lib/db/route_live_db.h"
#include "lib/db/switch_counters_db.h"
#include "lib/db/validate_db.h"
#include "lib/route/route_live.h"
#include "lib/util/clock.h"

/* A string argument or NULL. */
static const char *arg_str(json_t *args, const char *key)
{
	return json_string_value(json_object_get(args, key));
}

/* An integer argument, or dflt when absent. */
static json_int_t arg_int(json_t *args, const char *key, json_int_t dflt)
{
	json_t *v = json_object_get(args, key);

	return v ? json_integer_value(v) : dflt;
}

/* rc, and on success the answer's object `what` marked cached. */
static int cached(int rc, json_t **out, const char *what)
{
	if (rc == 0)
		json_object_set_new(json_object_get(*out, what), "cached", json_true());
	return rc;
}

/* the fabric's read commands: loomd's own table (lib/db/db_commands.h) */
static int run_fabric(const char *cmd, sqlite3 *db, json_t *args, json_t **out, char *err,
		      size_t errlen)
{
	const struct dbq_command *c = dbq_command_find(cmd);
	struct dbq_args a;

	if (!c) {
		snprintf(err, errlen, "\"%s\" is not a fabric query", cmd);
		return -ENOTSUP;
	}
	dbq_args_from_json(c, args, &a);
	return c->run(db, &a, out, err, errlen);
}

#define FABRIC(name, fn)                                                                   \
	static int fn(sqlite3 *db, const char *db_path, json_t *args, json_t **out, char *err, \
		      size_t errlen)                                                        \
	{                                                                                   \
		(void)db_path;                                                              \
		return run_fabric(name, db, args, out, err, errlen);                        \
	}
FABRIC("nodes", run_nodes)
FABRIC("node", run_node)
FABRIC("ports", run_ports)
FABRIC("links", run_links)
FABRIC("events", run_events)
FABRIC("switches", run_switches)
FABRIC("find", run_find)

/* Without a daemon only what the database knows: no version, pid or schedule. */
static int run_status(sqlite3 *db, const char *db_path, json_t *args, json_t **out, char *err,
		      size_t errlen)
{
	json_t *subnets = NULL;
	int rc = dbq_subnets(db, &subnets, err, errlen);

	(void)args;
	if (rc < 0)
		return rc;
	*out = json_pack("{s:s, s:o}", "db", db_path, "subnets", subnets);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int run_route_check(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			   char *err, size_t errlen)
{
	struct rt_metrics_opts o = {
		.max_shifts = (size_t)arg_int(args, "shifts", 0),
		.n_random = (unsigned)arg_int(args, "random", 8),
		.seed = (uint64_t)arg_int(args, "seed", 1),
		.n_bisect = (unsigned)arg_int(args, "bisections", 16),
	};

	(void)db_path;
	return cached(rl_db_check(db, arg_str(args, "subnet"), &o, NULL, out, err, errlen), out, "read");
}

static int run_route_trace(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			   char *err, size_t errlen)
{
	(void)db_path;
	return cached(rl_db_trace(db, arg_str(args, "subnet"), arg_str(args, "src"),
				  arg_str(args, "dst"), out, err, errlen), out, "read");
}

static int run_ar_status(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			 char *err, size_t errlen)
{
	(void)db_path;
	return cached(ar_db_status(db, arg_str(args, "subnet"), out, err, errlen), out, "probe");
}

/* the busiest ports with "sort", else every port */
static int run_counters(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			char *err, size_t errlen)
{
	(void)db_path;
	if (arg_str(args, "sort"))
		return counters_db_top(db, arg_str(args, "subnet"), arg_str(args, "sort"),
				       (unsigned)arg_int(args, "top", 0), out, err, errlen);
	return counters_db_read(db, arg_str(args, "subnet"), arg_str(args, "node"),
				(unsigned)arg_int(args, "port", 0), out, err, errlen);
}

/* the alarms, worst ports and stale ports of those reads, with the jobs on
 * each link from a one-off index */
static int run_health(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
		      char *err, size_t errlen)
{
	/* without loomd's telemetry.window_s: --window, else its default */
	int rc = health_db_read(db, arg_str(args, "subnet"), (unsigned)arg_int(args, "top", 10),
				(unsigned)arg_int(args, "window_s", 3600), out, err, errlen);

	(void)db_path;
	if (rc == 0 && (rc = job_db_health_jobs(db, NULL, *out, err, errlen)) < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

/* a job's links under the last stored tables */
static int run_job(sqlite3 *db, const char *db_path, json_t *args, json_t **out, char *err,
		   size_t errlen)
{
	struct job_query q = {
		.job = arg_str(args, "job"), .hosts = arg_str(args, "hosts"),
		.host_pattern = arg_str(args, "host_pattern"),
		.host_map = arg_str(args, "host_map"),
		.subnet = arg_str(args, "subnet"),
		.top = (unsigned)arg_int(args, "top", 0),
		.seed = (uint64_t)arg_int(args, "seed", 0),
	};

	(void)db_path;
	return job_db_impact(db, NULL, &q, out, err, errlen);
}

/* a job's post-mortem over a window (no counters: loomd's memory and
 * Prometheus are loomd's) */
static int run_job_history(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			   char *err, size_t errlen)
{
	json_t *from = json_object_get(args, "from"), *to = json_object_get(args, "to");
	struct job_history_query q = {
		.job = arg_str(args, "job"), .subnet = arg_str(args, "subnet"),
		.from = json_number_value(from),
		.to = json_is_number(to) ? json_number_value(to) : clock_wall(),
	};
	int rc;

	(void)db_path;
	if ((rc = job_history_db(db, &q, out, err, errlen)) == 0)
		json_object_set_new(*out, "counters", json_pack(
			"{s:s, s:[], s:s}", "source", "none", "ports", "note",
			"no counter history for the window (loomctl --db reads neither loomd's "
			"memory nor Prometheus)"));
	return rc;
}

static int run_switch_counters(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			       char *err, size_t errlen)
{
	(void)db_path;
	return switch_counters_db_read(db, arg_str(args, "switch"), arg_str(args, "port"), out,
				       err, errlen);
}

/* the open findings of fabric validation */
static int run_fabric_issues(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			     char *err, size_t errlen)
{
	(void)db_path;
	return validate_db_issues(db, arg_str(args, "subnet"), out, err, errlen);
}

static int run_route_runs(sqlite3 *db, const char *db_path, json_t *args, json_t **out,
			  char *err, size_t errlen)
{
	(void)db_path;
	return dbq_routing_runs(db, (long)arg_int(args, "limit", 0), out, err, errlen);
}

static const struct local_runner runners[] = {
	{ "status", run_status },
	{ "nodes", run_nodes }, { "node", run_node }, { "ports", run_ports },
	{ "links", run_links }, { "events", run_events }, { "switches", run_switches },
	{ "find", run_find },
	{ "route-check", run_route_check }, { "route-trace", run_route_trace },
	{ "route-runs", run_route_runs }, { "ar-status", run_ar_status },
	{ "counters", run_counters }, { "health", run_health }, { "job", run_job },
	{ "job-history", run_job_history },
	{ "switch_counters", run_switch_counters }, { "fabric-issues", run_fabric_issues },
	{ NULL, NULL },
};

const struct local_runner *local_runners(void)
{
	return runners;
}

const struct local_runner *local_runner_find(const char *cmd)
{
	for (const struct local_runner *r = runners; r->cmd; r++)
		if (!strcmp(r->cmd, cmd))
			return r;
	return NULL;
}
