/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/history.c: see history.h. */
#include "autoconf.h"
#include "daemon/telemetry/history.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/config.h"
#include "daemon/core/ctl.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/telemetry/history_prom.h"
#include "daemon/telemetry/job_history.h"
#include "lib/db/db_query.h"
#include "lib/fabric/ibtypes.h"
#include "lib/telemetry/port_history.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

#define HISTORY_RUNNING 2             /* at once; more wait */
#define HISTORY_PROM_TIMEOUT_MS 5000  /* one query_range */
#define HISTORY_PROM_SPAN 3600        /* without since: the last hour */
#define URL_LEN 512

struct history {
	struct store *store;          /* the loop's */
	char path[PATH_MAX];          /* the database file; "": read on the loop */
	struct work_queue *work;
	struct port_history *ph;
	char prom[URL_LEN];           /* http.prometheus_url; "" none */
};

struct h_job {
	struct history *h;
	struct ctl_req *req;
	char node[256], prom[URL_LEN];
	unsigned port;
	double since;
	json_t *args;                 /* job-history's; NULL: port-history */
	json_t *out;
};

/* The node `id` names: its subnet and GUID (node's JSON). */
static int resolve(sqlite3 *db, struct h_job *j, char *subnet, size_t slen, char *guid,
		   size_t glen, char *name, size_t nlen, char *err, size_t errlen)
{
	json_t *node = NULL;
	int rc = dbq_node(db, j->node, &node, err, errlen);

	if (rc < 0)
		return rc;
	if (!json_is_string(json_object_get(node, "guid"))) {
		json_decref(node);
		snprintf(err, errlen, "\"%s\" is not an InfiniBand node", j->node);
		return -EINVAL;
	}
	snprintf(subnet, slen, "%s", json_string_value(json_object_get(node, "subnet")));
	snprintf(guid, glen, "%s", json_string_value(json_object_get(node, "guid")));
	snprintf(name, nlen, "%s", json_string_value(json_object_get(node, "name")) ?: "");
	if ((json_int_t)j->port > json_integer_value(json_object_get(node, "ports"))) {
		snprintf(err, errlen, "%s has no port %u (ports 1-%lld)", name, j->port,
			 (long long)json_integer_value(json_object_get(node, "ports")));
		json_decref(node);
		return -ENOENT;
	}
	json_decref(node);
	return 0;
}

static int query(sqlite3 *db, struct h_job *j, char *err, size_t errlen)
{
	char subnet[LOOM_NAME_LEN], guid[24], name[256];
	const char *source = j->prom[0] ? "prometheus" : "memory";
	uint64_t g;
	json_t *samples = NULL;
	int rc = resolve(db, j, subnet, sizeof(subnet), guid, sizeof(guid), name, sizeof(name),
			 err, errlen);

	if (rc < 0)
		return rc;
	if (j->prom[0]) {
		double now = clock_wall();
		double since = j->since > 0 ? j->since : now - HISTORY_PROM_SPAN;

		rc = history_prom_query(j->prom, HISTORY_PROM_TIMEOUT_MS, subnet, guid, j->port,
					since, now, &samples, err, errlen);
		if (rc < 0)
			return rc;
	} else if (ibt_guid_parse(guid, &g) < 0 ||
		   !(samples = port_history_json(j->h->ph, subnet, g, j->port, j->since))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	j->out = json_pack("{s:s, s:s, s:s, s:i, s:s, s:o}", "subnet", subnet, "guid", guid,
			   "name", name, "port", (int)j->port, "source", source, "samples",
			   samples);
	if (j->out && !j->prom[0])
		json_object_set_new(j->out, "kept", port_history_stats(j->h->ph));
	return j->out ? 0 : -ENOMEM;
}

/* A job's answer from db: the post-mortem (args kept) or a port's reads. */
static int answer(struct h_job *j, sqlite3 *db, char *err, size_t errlen)
{
	return j->args ? job_history_answer(db, j->args, j->prom, j->h->ph, &j->out, err, errlen) :
		query(db, j, err, errlen);
}

static int job_run(void *arg, char *err, size_t errlen)
{
	struct h_job *j = arg;
	sqlite3 *db = dbq_open_readonly(j->h->path, err, errlen);
	int rc;

	if (!db)
		return -EIO;
	rc = answer(j, db, err, errlen);
	sqlite3_close(db);
	return rc;
}

static void job_done(void *arg, int rc, const char *err)
{
	struct h_job *j = arg;

	ctl_reply_errno(j->req, rc, rc == 0 ? j->out : NULL, PROTO_ERR_INTERNAL, err);
	if (rc == 0)
		j->out = NULL;
}

static void job_free(void *arg)
{
	struct h_job *j = arg;

	json_decref(j->out);
	json_decref(j->args);
	free(j);
}

static const struct work_ops history_ops = { job_run, job_done, job_free };

/* j answered: on the worker, or at once on the loop's connection when there
 * is no database file to open (an in-memory store). */
static void start(struct history *h, struct h_job *j)
{
	char err[512] = "";
	int rc;

	memcpy(j->prom, h->prom, sizeof(j->prom));
	if (!h->path[0]) {
		rc = answer(j, store_db(h->store), err, sizeof(err));
		job_done(j, rc, err);
		job_free(j);
		return;
	}
	if ((rc = work_submit(h->work, &history_ops, j)) < 0) {
		ctl_reply_err(j->req, PROTO_ERR_BUSY, "cannot start the query now: %s",
			      strerror(-rc));
		job_free(j);
	}
}

/* node (GUID or name), port, since (unix seconds, typed by the declaration) */
static void cmd_port_history(struct ctl_req *req, json_t *args, void *arg)
{
	struct history *h = arg;
	struct h_job *j = calloc(1, sizeof(*j));
	json_t *since = json_object_get(args, "since");
	json_int_t port = 0;

	if (!j) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	j->h = h;
	j->req = req;
	if (ctl_arg_string(req, args, "node", j->node, sizeof(j->node), 1) < 0 ||
	    ctl_arg_count(req, args, "port", 255, &port) < 0) {
		free(j);
		return;
	}
	if (!json_is_integer(json_object_get(args, "port"))) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"port\" (a port number) is required");
		free(j);
		return;
	}
	j->port = (unsigned)port;
	j->since = json_is_number(since) ? json_number_value(since) : 0;
	start(h, j);
}

/* job, subnet, from, to (unix seconds, typed by the declaration): the
 * job post-mortem (job_history.h) on the same worker. */
static void cmd_job_history(struct ctl_req *req, json_t *args, void *arg)
{
	struct history *h = arg;
	struct h_job *j = calloc(1, sizeof(*j));

	if (!j) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	j->h = h;
	j->req = req;
	j->args = json_deep_copy(args);
	if (ctl_arg_string(req, args, "job", j->node, sizeof(j->node), 1) < 0) {
		job_free(j);
		return;
	}
	if (!j->args) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		job_free(j);
		return;
	}
	start(h, j);
}

static size_t cap_of(unsigned mib)
{
	return (size_t)mib << 20;
}

struct history *history_new(struct event_base *base, struct store *store, unsigned reads,
			    unsigned mib, const char *prometheus_url, char *err, size_t errlen)
{
	struct history *h = calloc(1, sizeof(*h));

	if (!h || !(h->ph = port_history_new(reads, cap_of(mib)))) {
		snprintf(err, errlen, "out of memory");
		free(h);
		return NULL;
	}
	h->store = store;
	/* an in-memory database (tests) has no file: read on the loop */
	snprintf(h->path, sizeof(h->path), "%s",
		 sqlite3_db_filename(store_db(store), "main") ?: "");
	snprintf(h->prom, sizeof(h->prom), "%s", prometheus_url ? prometheus_url : "");
	if (!(h->work = work_queue_new(base, "port history", HISTORY_RUNNING, WORK_FIFO, err,
				       errlen))) {
		history_free(h);
		return NULL;
	}
	return h;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	work_queue_free(h->work);   /* running queries answer first */
	port_history_free(h->ph);
	free(h);
}

void history_reconfigure(struct history *h, unsigned reads, unsigned mib,
			 const char *prometheus_url)
{
	port_history_set(h->ph, reads, cap_of(mib));
	snprintf(h->prom, sizeof(h->prom), "%s", prometheus_url ? prometheus_url : "");
}

int history_register(struct history *h, struct ctl *ctl)
{
	int rc = ctl_handle(ctl, "port-history", cmd_port_history, h);

	return rc < 0 ? rc : ctl_handle(ctl, "job-history", cmd_job_history, h);
}

struct port_history *history_store(struct history *h)
{
	return h ? h->ph : NULL;
}
