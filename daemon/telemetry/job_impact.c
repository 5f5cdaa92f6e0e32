/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/job_impact.c: see job_impact.h. */
#include "autoconf.h"
#include "daemon/telemetry/job_impact.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/config.h"
#include "daemon/core/ctl.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "lib/db/db_query.h"
#include "lib/db/health_db.h"
#include "lib/db/job_db.h"
#include "lib/fabric/hostmap.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

struct job_impact {
	struct store *store;          /* the loop's */
	char path[4096];              /* the database file; "": read on the loop */
	char pattern[128];            /* tenants.host_pattern */
	char map[4096];               /* tenants.host_map (only loomd's own: a
				       * client names no file loomd reads, nor
				       * a pattern it compiles) */
	struct work_queue *work;
	sqlite3 *db;                  /* the worker's read-only connection, kept */
	struct job_index *ix;
	int refresh_waiting;          /* a refresh is queued: one is enough */
};

enum ji_kind { JI_JOB, JI_HEALTH, JI_REFRESH };

struct ji_job {
	struct job_impact *ji;
	enum ji_kind kind;
	struct ctl_req *req;          /* NULL: a refresh */
	char job[LOOM_NAME_LEN], subnet[LOOM_NAME_LEN], pattern[128];
	char map[4096];               /* ji's, when the job was made (on the loop) */
	char *hosts;                  /* a hostlist ("gpu[001-512],..."), or NULL: as
				       * long as a request may be, as tenant create's */
	int has_job, has_subnet, has_hosts;
	unsigned top;
	unsigned window_s;            /* health: errors within it are listed */
	uint64_t seed;
	json_t *out;
};

/* On the worker (or the loop, without a file). */
static int ji_query(struct ji_job *j, sqlite3 *db, char *err, size_t errlen)
{
	struct job_impact *ji = j->ji;
	int rc;

	if (j->kind == JI_REFRESH)
		return job_index_refresh(db, ji->ix, err, errlen);
	if (j->kind == JI_HEALTH) {
		if ((rc = health_db_read(db, j->has_subnet ? j->subnet : NULL, j->top, j->window_s,
					 &j->out, err,
					 errlen)) < 0)
			return rc;
		/* Without the jobs the answer still stands; say why. */
		if (job_db_health_jobs(db, ji->ix, j->out, err, errlen) < 0)
			json_object_set_new(j->out, "jobs_index", json_pack("{s:s}", "error", err));
		err[0] = '\0';
		return 0;
	}
	{
		struct job_query q = {
			.job = j->has_job ? j->job : NULL, .hosts = j->hosts,
			.host_pattern = j->pattern, .host_map = j->map, .subnet = j->has_subnet ? j->subnet : NULL,
			.top = j->top, .seed = j->seed,
		};

		return job_db_impact(db, ji->ix, &q, &j->out, err, errlen);
	}
}

static int ji_run(void *arg, char *err, size_t errlen)
{
	struct ji_job *j = arg;

	if (!j->ji->db && !(j->ji->db = dbq_open_readonly(j->ji->path, err, errlen)))
		return -EIO;
	return ji_query(j, j->ji->db, err, errlen);
}

static void ji_done(void *arg, int rc, const char *err)
{
	struct ji_job *j = arg;

	if (j->kind == JI_REFRESH) {
		j->ji->refresh_waiting = 0;
		if (rc < 0 && rc != -ECANCELED)
			log_debug("job impact: the index was not brought up to date: %s", err);
		return;
	}
	ctl_reply_errno(j->req, rc, rc == 0 ? j->out : NULL, PROTO_ERR_INTERNAL, err);
	if (rc == 0)
		j->out = NULL;   /* the reply's */
}

static void ji_free(void *arg)
{
	struct ji_job *j = arg;

	json_decref(j->out);
	free(j->hosts);
	free(j);
}

static const struct work_ops ji_ops = { ji_run, ji_done, ji_free };

static void ji_start(struct job_impact *ji, struct ji_job *j)
{
	char err[512] = "";
	int rc;

	j->ji = ji;
	if (!ji->path[0]) {
		rc = ji_query(j, store_db(ji->store), err, sizeof(err));
		ji_done(j, rc, err);
		ji_free(j);
		return;
	}
	if ((rc = work_submit(ji->work, &ji_ops, j)) < 0) {
		if (j->req)
			ctl_reply_err(j->req, PROTO_ERR_BUSY, "cannot start the query now: %s",
				      strerror(-rc));
		else
			ji->refresh_waiting = 0;
		ji_free(j);
	}
}

static struct ji_job *ji_new(struct ctl_req *req, enum ji_kind kind)
{
	struct ji_job *j = calloc(1, sizeof(*j));

	if (!j && req)
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
	if (j) {
		j->req = req;
		j->kind = kind;
	}
	return j;
}

static void cmd_job(struct ctl_req *req, json_t *args, void *arg)
{
	struct job_impact *ji = arg;
	struct ji_job *j = ji_new(req, JI_JOB);
	json_int_t top = 0, seed = 0;
	json_t *hosts;
	int rc;

	if (!j)
		return;
	if ((rc = ctl_arg_string(req, args, "job", j->job, sizeof(j->job), 0)) < 0)
		goto bad;
	j->has_job = rc;
	/* A Slurm nodelist of a scattered job runs past any fixed buffer:
	 * the request's own bound (PROTO_MAX_REQUEST) is the list's. */
	if ((hosts = json_object_get(args, "hosts")) && !json_is_null(hosts)) {
		if (!json_is_string(hosts)) {
			ctl_reply_err(req, PROTO_ERR_BADREQ, "\"hosts\" must be a string");
			goto bad;
		}
		if (!(j->hosts = strdup(json_string_value(hosts)))) {
			ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
			goto bad;
		}
		j->has_hosts = 1;
	}
	if ((rc = ctl_arg_string(req, args, "subnet", j->subnet, sizeof(j->subnet), 0)) < 0)
		goto bad;
	j->has_subnet = rc;
	/* loomd's own rule, as its map: a client's regular expression could
	 * take gigabytes to compile ("(((x{1,40}){1,40}){1,40})...") */
	if (json_object_get(args, "host_pattern")) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"host_pattern\": loomd uses "
			      "tenants.host_pattern (a pattern of your own goes with loomctl --db)");
		goto bad;
	}
	memcpy(j->pattern, ji->pattern, sizeof(j->pattern));
	memcpy(j->map, ji->map, sizeof(j->map));
	if (ctl_arg_count(req, args, "top", 10000, &top) < 0 ||
	    ctl_arg_count(req, args, "seed", 0x7fffffff, &seed) < 0)
		goto bad;
	if (j->has_job == j->has_hosts) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "give \"job\" (a tenant's name, the Slurm job "
			      "id) or \"hosts\" (a hostlist), one of them");
		goto bad;
	}
	j->top = (unsigned)top;
	j->seed = (uint64_t)seed;
	ji_start(ji, j);
	return;
bad:
	ji_free(j);
}

void job_impact_health(struct job_impact *ji, struct ctl_req *req, const char *subnet,
		       unsigned top, unsigned window_s)
{
	struct ji_job *j = ji_new(req, JI_HEALTH);

	if (!j)
		return;
	if ((j->has_subnet = subnet != NULL))
		snprintf(j->subnet, sizeof(j->subnet), "%s", subnet);
	j->top = top;
	j->window_s = window_s;
	ji_start(ji, j);
}

void job_impact_refresh(struct job_impact *ji)
{
	struct ji_job *j;

	if (!ji || ji->refresh_waiting || !(j = ji_new(NULL, JI_REFRESH)))
		return;
	ji->refresh_waiting = 1;
	ji_start(ji, j);
}

struct job_index *job_impact_index(struct job_impact *ji)
{
	return ji ? ji->ix : NULL;
}

void job_impact_reconfigure(struct job_impact *ji, const struct hostmap_rule *hosts)
{
	snprintf(ji->pattern, sizeof(ji->pattern), "%s", hosts->pattern);
	snprintf(ji->map, sizeof(ji->map), "%s", hosts->map);
}

struct job_impact *job_impact_new(struct event_base *base, const struct hostmap_rule *hosts,
				  struct store *store, char *err, size_t errlen)
{
	struct job_impact *ji = calloc(1, sizeof(*ji));
	const char *path = store ? sqlite3_db_filename(store_db(store), "main") : NULL;

	if (!ji || !(ji->ix = job_index_new())) {
		free(ji);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ji->store = store;
	if (path && *path)
		snprintf(ji->path, sizeof(ji->path), "%s", path);
	job_impact_reconfigure(ji, hosts);
	if (!(ji->work = work_queue_new(base, "job impact", 1, WORK_FIFO, err, errlen))) {
		job_impact_free(ji);
		return NULL;
	}
	return ji;
}

void job_impact_free(struct job_impact *ji)
{
	if (!ji)
		return;
	work_queue_free(ji->work);   /* running queries answer first */
	sqlite3_close(ji->db);
	job_index_free(ji->ix);
	free(ji);
}

int job_impact_register(struct job_impact *ji, struct ctl *ctl)
{
	return ctl_handle(ctl, "job", cmd_job, ji);
}
