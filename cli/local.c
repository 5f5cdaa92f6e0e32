/* cli/local.c: loomctl --db: the read commands answered straight from a
 * database, without a daemon. The arguments and results are the daemon's
 * (daemon/fabric/queries.c runs the same lib/db/db_query.h calls), so every command
 * prints the same either way. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <string.h>

#include "lib/ar/ar_status.h"
#include "lib/db/db_commands.h"
#include "lib/db/db_query.h"
#include "lib/util/proto.h"
#include "lib/route/route_live.h"
#include "lib/db/ar_status_db.h"
#include "lib/db/counters_db.h"
#include "lib/db/health_db.h"
#include "lib/db/names_db.h"
#include "lib/db/job_db.h"
#include "lib/db/validate_db.h"
#include "lib/db/switch_counters_db.h"
#include "lib/db/route_live_db.h"

/* A string argument or NULL. */
static const char *arg_str(json_t *args, const char *key)
{
	return json_string_value(json_object_get(args, key));
}

static int local_run(sqlite3 *db, const struct loomctl *lc, const char *cmd, json_t *args,
		     json_t **out, char *err, size_t errlen)
{
	const struct dbq_command *c = dbq_command_find(cmd);

	/* the fabric's read commands: loomd's own table (lib/db/db_commands.h) */
	if (c) {
		struct dbq_args a;

		dbq_args_from_json(c, args, &a);
		return c->run(db, &a, out, err, errlen);
	}
	if (strcmp(cmd, "status") == 0) {
		/* Without a daemon only what the database knows: no version,
		 * pid or schedule. */
		json_t *subnets = NULL;
		int rc = dbq_subnets(db, &subnets, err, errlen);

		if (rc < 0)
			return rc;
		*out = json_pack("{s:s, s:o}", "db", lc->db_path, "subnets", subnets);
		if (!*out) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	/* Without a daemon, the tables are the last ones it read and stored. */
	if (strcmp(cmd, "route-check") == 0) {
		json_t *k = json_object_get(args, "shifts"), *r = json_object_get(args, "random");
		json_t *seed = json_object_get(args, "seed");
		json_t *bis = json_object_get(args, "bisections");
		struct rt_metrics_opts o = {
			.max_shifts = k ? (size_t)json_integer_value(k) : 0,
			.n_random = r ? (unsigned)json_integer_value(r) : 8,
			.seed = seed ? (uint64_t)json_integer_value(seed) : 1,
			.n_bisect = bis ? (unsigned)json_integer_value(bis) : 16,
		};
		int rc = rl_db_check(db, arg_str(args, "subnet"), &o, out, err, errlen);

		if (rc == 0)
			json_object_set_new(json_object_get(*out, "read"), "cached", json_true());
		return rc;
	}
	if (strcmp(cmd, "route-trace") == 0) {
		int rc = rl_db_trace(db, arg_str(args, "subnet"), arg_str(args, "src"),
				     arg_str(args, "dst"), out, err, errlen);

		if (rc == 0)
			json_object_set_new(json_object_get(*out, "read"), "cached", json_true());
		return rc;
	}
	/* ... and the AR capability the last probe found. */
	if (strcmp(cmd, "ar-status") == 0) {
		int rc = ar_db_status(db, arg_str(args, "subnet"), out, err, errlen);

		if (rc == 0)
			json_object_set_new(json_object_get(*out, "probe"), "cached", json_true());
		return rc;
	}
	/* ... and the port counters the last read found. */
	if (strcmp(cmd, "counters") == 0 && arg_str(args, "sort")) {
		json_t *top = json_object_get(args, "top");

		return counters_db_top(db, arg_str(args, "subnet"), arg_str(args, "sort"),
				       top ? (unsigned)json_integer_value(top) : 0, out, err, errlen);
	}
	if (strcmp(cmd, "counters") == 0) {
		json_t *port = json_object_get(args, "port");

		return counters_db_read(db, arg_str(args, "subnet"), arg_str(args, "node"),
					port ? (unsigned)json_integer_value(port) : 0, out, err,
					errlen);
	}
	/* ... and the alarms, worst ports and stale ports of those reads. */
	if (strcmp(cmd, "health") == 0) {
		json_t *top = json_object_get(args, "top"), *win = json_object_get(args, "window_s");

		/* without loomd's telemetry.window_s: --window, else its default */
		int rc = health_db_read(db, arg_str(args, "subnet"),
					top ? (unsigned)json_integer_value(top) : 10,
					win ? (unsigned)json_integer_value(win) : 3600, out, err,
					errlen);

		/* ... with the jobs on each link, from a one-off index. */
		if (rc == 0 && (rc = job_db_health_jobs(db, NULL, *out, err, errlen)) < 0) {
			json_decref(*out);
			*out = NULL;
		}
		return rc;
	}
	/* ... and a job's links under the last stored tables. */
	if (strcmp(cmd, "job") == 0) {
		json_t *top = json_object_get(args, "top"), *seed = json_object_get(args, "seed");
		struct job_query q = {
			.job = arg_str(args, "job"), .hosts = arg_str(args, "hosts"),
			.host_pattern = arg_str(args, "host_pattern"),
			.host_map = arg_str(args, "host_map"),
			.subnet = arg_str(args, "subnet"),
			.top = top ? (unsigned)json_integer_value(top) : 0,
			.seed = seed ? (uint64_t)json_integer_value(seed) : 0,
		};

		return job_db_impact(db, NULL, &q, out, err, errlen);
	}
	/* ... and the Ethernet switches' counters. */
	if (strcmp(cmd, "switch_counters") == 0)
		return switch_counters_db_read(db, arg_str(args, "switch"), arg_str(args, "port"),
					       out, err, errlen);
	/* ... and the open findings of fabric validation. */
	if (strcmp(cmd, "fabric-issues") == 0)
		return validate_db_issues(db, arg_str(args, "subnet"), out, err, errlen);
	if (strcmp(cmd, "route-runs") == 0) {
		json_t *limit = json_object_get(args, "limit");

		return dbq_routing_runs(db, limit ? (long)json_integer_value(limit) : 0, out, err,
					errlen);
	}
	snprintf(err, errlen, "\"%s\" needs a running loomd", cmd);
	return -ENOTSUP;
}

int local_call(const struct loomctl *lc, const char *cmd, json_t *args, json_t **result)
{
	char err[1024] = "";
	sqlite3 *db = dbq_open_readonly(lc->db_path, err, sizeof(err));
	struct nodename_map *names;
	int rc;

	if (!db) {
		loomctl_error(lc, "%s", err);
		json_decref(args);
		return -EIO;
	}
	/* nodes named by --node-name-map, else by the map loomd stored */
	if ((rc = loomctl_names(lc, &names)) < 0) {
		sqlite3_close(db);
		json_decref(args);
		return rc;
	}
	rc = names_db_shadow(db, names, err, sizeof(err));
	nodename_map_free(names);
	if (rc == 0)
		rc = local_run(db, lc, cmd, args, result, err, sizeof(err));
	sqlite3_close(db);
	json_decref(args);
	if (rc < 0) {
		/* The daemon's error codes, so messages read the same. */
		loomctl_error(lc, "%s: %s",
			      rc == -ENOENT ? PROTO_ERR_NOTFOUND :
			      rc == -EEXIST || rc == -EINVAL ? PROTO_ERR_BADREQ :
			      rc == -ENOTSUP ? PROTO_ERR_UNKNOWN : PROTO_ERR_INTERNAL, err);
		return rc;
	}
	return 0;
}
