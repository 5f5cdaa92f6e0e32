/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/fabric/queries.c: read-only fabric commands on the control socket.
 *
 * The commands and the argument each takes are lib/db/db_commands.h's
 * table, which loomctl --db runs too. Each runs its query off the loop, on a work queue
 * thread with a read-only connection of its own: a list of the whole
 * fabric takes a few hundred milliseconds at 10k hosts, time the loop owes
 * to sweeps, counters and other clients. WAL lets those readers run while
 * the loop's connection writes. The connections are kept for the next
 * query (one per running job); an in-memory database (tests) has no file
 * to open twice, and is read on the loop.
 *
 * Their answers depend on nothing but their arguments and the database,
 * so each command gives ctl its version (dbq_data_version): a transport
 * may hand out a kept answer while the version stays (the HTTP API does).
 * For the same reason a request that asks what a query under way (or
 * waiting its turn) asks, at the same data version, joins it: a hundred
 * clients polling the node list cost one query, not a queue of a hundred
 * that would go on long after they have gone.
 *
 * find (lib/db/find_db.h) names hosts by the tenants' rule, which loomd.c
 * hands in (queries_set_hosts) at start and on reload. */
#include "autoconf.h"
#include "daemon/fabric/queries.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/ctl.h"
#include "daemon/core/work.h"
#include "lib/db/db_commands.h"
#include "lib/db/db_query.h"
#include "lib/fabric/hostmap.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

#define QUERIES_RUNNING 2       /* queries at once; more wait their turn */
#define QUERY_ARG_LEN 1024

struct query_job;

struct queries {
	struct query_job *flights;  /* submitted, not yet done */
	sqlite3 *db;                /* the loop's connection: versions, and reads
				     * when there is no file */
	char path[4096];            /* "": read on the loop */
	struct work_queue *work;
	sqlite3 *idle[QUERIES_RUNNING];   /* read-only connections not in use */
	char pattern[HOSTMAP_PATTERN_LEN];  /* find's host rule: tenants.host_pattern */
	char map[PATH_MAX];                 /* and tenants.host_map ("": none) */
};

struct query_waiter {
	struct query_waiter *next;
	struct ctl_req *req;
};

struct query_job {
	struct queries *q;
	struct query_job *next;     /* q->flights */
	struct ctl_req *req;        /* the first to ask */
	struct query_waiter *waiters;   /* those who joined since */
	unsigned version;           /* the data version it was asked at */
	int versioned;              /* 0: joins nothing */
	const struct dbq_command *cmd;   /* what it runs */
	sqlite3 *db;                /* taken from idle[], or opened by run() */
	char s[QUERY_ARG_LEN];      /* the string argument; has_s: given */
	int has_s;
	double since;
	long limit;
	char pattern[HOSTMAP_PATTERN_LEN];  /* find: the host rule when asked */
	char map[PATH_MAX];
	json_t *out;
};

/* ---- the queries -------------------------------------------------------------------- */

/* Run j's command on db (lib/db/db_commands.h, loomctl --db's table too). */
static int query_run(sqlite3 *db, const struct query_job *j, json_t **out, char *err,
		     size_t errlen)
{
	const struct dbq_args a = { .s = j->has_s ? j->s : NULL, .since = j->since,
				    .limit = j->limit, .host_pattern = j->pattern,
				    .host_map = j->map };

	return j->cmd->run(db, &a, out, err, errlen);
}

/* ---- off the loop --------------------------------------------------------------------- */

static int job_run(void *arg, char *err, size_t errlen)
{
	struct query_job *j = arg;

	if (!j->db && !(j->db = dbq_open_readonly(j->q->path, err, errlen)))
		return -EIO;
	return query_run(j->db, j, &j->out, err, errlen);
}

static void job_done(void *arg, int rc, const char *err)
{
	struct query_job *j = arg, **p;

	for (p = &j->q->flights; *p && *p != j; p = &(*p)->next)
		;
	if (*p)
		*p = j->next;
	for (struct query_waiter *w = j->waiters, *next; w; w = next) {
		next = w->next;
		ctl_reply_errno(w->req, rc, rc == 0 ? json_incref(j->out) : NULL,
				PROTO_ERR_INTERNAL, err);
		free(w);
	}
	j->waiters = NULL;
	ctl_reply_errno(j->req, rc, rc == 0 ? j->out : NULL, PROTO_ERR_INTERNAL, err);
	if (rc == 0)
		j->out = NULL;   /* stolen by the reply */
}

/* The same question at the same data version. */
static int same_query(const struct query_job *a, const struct query_job *b)
{
	return a->versioned && b->versioned && a->version == b->version && a->cmd == b->cmd &&
	       a->has_s == b->has_s && (!a->has_s || !strcmp(a->s, b->s)) &&
	       a->since == b->since && a->limit == b->limit && !strcmp(a->pattern, b->pattern) &&
	       !strcmp(a->map, b->map);
}

static void job_free(void *arg)
{
	struct query_job *j = arg;

	for (size_t i = 0; j->db && i < QUERIES_RUNNING; i++)
		if (!j->q->idle[i]) {
			j->q->idle[i] = j->db;
			j->db = NULL;
		}
	sqlite3_close(j->db);
	json_decref(j->out);
	free(j);
}

static const struct work_ops query_ops = { job_run, job_done, job_free };

/* Run j now on the loop's connection, or on the work queue. Answers. */
static void query_start(struct queries *q, struct query_job *j)
{
	char err[512] = "";
	int rc;

	j->q = q;
	j->versioned = dbq_data_version(q->db, &j->version) == 0;
	for (struct query_job *f = q->flights; f; f = f->next) {
		struct query_waiter *w;

		if (!same_query(f, j) || !(w = calloc(1, sizeof(*w))))
			continue;
		w->req = j->req;
		w->next = f->waiters;
		f->waiters = w;
		free(j);
		return;
	}
	if (!q->path[0]) {
		rc = query_run(q->db, j, &j->out, err, sizeof(err));
		job_done(j, rc, err);
		job_free(j);
		return;
	}
	for (size_t i = 0; !j->db && i < QUERIES_RUNNING; i++) {
		j->db = q->idle[i];
		q->idle[i] = NULL;
	}
	j->next = q->flights;
	q->flights = j;
	if ((rc = work_submit(q->work, &query_ops, j)) < 0) {
		q->flights = j->next;
		log_warn("control: cannot start the query of \"%s\": %s", ctl_req_cmd(j->req),
			 strerror(-rc));
		ctl_reply_err(j->req, PROTO_ERR_BUSY, "cannot start the query now: %s",
			      strerror(-rc));
		job_free(j);
	}
}

/* A job of the command called name, with its one string argument (the
 * table's key) from args: NULL when answered. */
static struct query_job *query_job_new(struct ctl_req *req, json_t *args, const char *name)
{
	struct query_job *j = calloc(1, sizeof(*j));
	struct dbq_args a;
	int rc = 0;

	if (!j) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return NULL;
	}
	j->req = req;
	j->cmd = dbq_command_find(name);
	dbq_args_from_json(j->cmd, args, &a);   /* since, limit (typed by ctl) */
	j->since = a.since;
	j->limit = a.limit;
	if (j->cmd->key &&
	    (rc = ctl_arg_string(req, args, j->cmd->key, j->s, sizeof(j->s), 0)) < 0) {
		free(j);
		return NULL;
	}
	j->has_s = rc == 1;
	return j;
}

/* ---- the commands ---------------------------------------------------------------------- */

static void cmd_nodes(struct ctl_req *req, json_t *args, void *arg)
{
	struct query_job *j = query_job_new(req, args, "nodes");

	if (!j)
		return;
	if (j->has_s && strcmp(j->s, "switch") && strcmp(j->s, "ca") && strcmp(j->s, "router") &&
	    strcmp(j->s, "host")) {
		ctl_reply_err(req, PROTO_ERR_BADREQ,
			      "unknown node type \"%s\": use switch, ca, router or host", j->s);
		free(j);
		return;
	}
	query_start(arg, j);
}

static void cmd_node(struct ctl_req *req, json_t *args, void *arg)
{
	struct query_job *j = query_job_new(req, args, "node");

	if (!j)
		return;
	if (!j->has_s) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"id\" (a node GUID or description) is required");
		free(j);
		return;
	}
	query_start(arg, j);
}

static void cmd_ports(struct ctl_req *req, json_t *args, void *arg)
{
	struct query_job *j = query_job_new(req, args, "ports");

	if (j)
		query_start(arg, j);
}

static void cmd_links(struct ctl_req *req, json_t *args, void *arg)
{
	struct query_job *j = query_job_new(req, args, "links");

	if (j)
		query_start(arg, j);
}

/* since and limit are typed by the events spec (ctl_set_args) */
static void cmd_events(struct ctl_req *req, json_t *args, void *arg)
{
	struct query_job *j;
	char err[2048];

	/* kind: one kind, or several comma-separated, each one loom records */
	if (!(j = query_job_new(req, args, "events")))
		return;
	if (j->has_s && dbq_event_kinds_check(j->s, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "%s", err);
		free(j);
		return;
	}
	query_start(arg, j);
}

static void cmd_switches(struct ctl_req *req, json_t *args, void *arg)
{
	struct query_job *j = query_job_new(req, args, "switches");

	if (j)
		query_start(arg, j);
}

/* find: what an operator typed (lib/db/find_db.h), hosts by loomd's rule */
static void cmd_find(struct ctl_req *req, json_t *args, void *arg)
{
	struct queries *q = arg;
	struct query_job *j = query_job_new(req, args, "find");

	if (!j)
		return;
	if (!j->has_s || !j->s[0]) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"q\" (what to find) is required");
		free(j);
		return;
	}
	memcpy(j->pattern, q->pattern, sizeof(j->pattern));
	memcpy(j->map, q->map, sizeof(j->map));
	query_start(q, j);
}

void queries_set_hosts(struct queries *q, const struct hostmap_rule *hosts)
{
	snprintf(q->pattern, sizeof(q->pattern), "%s", hosts->pattern);
	snprintf(q->map, sizeof(q->map), "%s", hosts->map);
}

static int version(void *arg, unsigned *v)
{
	struct queries *q = arg;

	return dbq_data_version(q->db, v);
}

struct queries *queries_new(struct event_base *base, struct ctl *ctl, sqlite3 *db,
			    char *err, size_t errlen)
{
	static const struct {
		const char *name;
		ctl_handler_fn fn;
	} cmds[] = {
		{ "nodes", cmd_nodes }, { "node", cmd_node }, { "ports", cmd_ports },
		{ "links", cmd_links }, { "events", cmd_events }, { "switches", cmd_switches },
		{ "find", cmd_find },
	};
	struct queries *q = calloc(1, sizeof(*q));
	const char *path = sqlite3_db_filename(db, "main");
	int rc = 0;

	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	q->db = db;
	if (path && *path)
		snprintf(q->path, sizeof(q->path), "%s", path);
	if (!(q->work = work_queue_new(base, "fabric query", QUERIES_RUNNING, WORK_FIFO, err,
				       errlen))) {
		free(q);
		return NULL;
	}
	for (size_t i = 0; rc == 0 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if ((rc = ctl_handle(ctl, cmds[i].name, cmds[i].fn, q)) == 0)
			rc = ctl_set_version(ctl, cmds[i].name, version, q);
	if (rc < 0) {
		snprintf(err, errlen, "cannot register the fabric queries: %s", strerror(-rc));
		queries_free(q);
		return NULL;
	}
	return q;
}

void queries_free(struct queries *q)
{
	if (!q)
		return;
	work_queue_free(q->work);   /* running queries answer first */
	for (size_t i = 0; i < QUERIES_RUNNING; i++)
		sqlite3_close(q->idle[i]);
	free(q);
}
