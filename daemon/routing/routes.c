/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/routing/routes.c: "route-check" and "route-trace" on the control socket
 * (see routes.h).
 *
 * A request is read-only for the fabric: it sends only SMP Gets, as a
 * sweep does. But route-check walks the subnet and reads every switch's
 * table (thousands of SMPs on a large fabric) and records it, so, like
 * `discover`, it is for root and the admin group (CTL_WRITE); route-trace
 * reads the switches of one path and is open to every local user
 * (CTL_READ). Requests are jobs of daemon/core/work.h, each with its own
 * database connection, answered on the loop. A few may run at once; more
 * are refused as busy rather than queued, so a script looping on them
 * cannot pile up SMP walks. */
#include "autoconf.h"
#include "daemon/routing/routes.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "lib/util/clock.h"
#include "daemon/ib/swept_subnets.h"
#include "daemon/routing/config_opensm.h"
#include "daemon/core/ctl.h"
#include "daemon/ib/lft_read.h"
#include "lib/util/log.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "lib/route/route_live.h"
#include "daemon/core/store.h"
#include "daemon/ib/store_sweep.h"
#include "lib/db/route_live_db.h"
#include "lib/util/par.h"

#define ROUTES_MAX_RUNNING 4
/* OpenSM sends its changed blocks switch by switch: the reports of one
 * reroute come within this. */
#define READ_TABLES_GATHER_S 2

struct rq {
	struct routes *rt;
	struct ctl_req *req;          /* NULL: routes_tables_changed's read */
	/* The question (copied from the request). */
	int trace, cached, has_subnet;
	char subnet[LOOM_NAME_LEN];
	char src[256], dst[256];
	struct rt_metrics_opts opts;
	char db_path[PATH_MAX];
	char sls_file[PATH_MAX];      /* the SL file loom's OpenSM plugin writes */
	int timeout_ms, retries, max_smps;
	uint64_t m_key;  /* discovery.m_key_file's (swept_mad) */
	int threads;
	/* The answer, written by the worker, read by the loop after it. */
	json_t *result;
};

struct routes {
	struct event_base *base;
	char db_path[PATH_MAX];
	int timeout_ms, retries, max_smps;
	uint64_t m_key;  /* discovery.m_key_file's (swept_mad) */
	int threads;              /* opensm.threads (0: the cores) */
	int read_tables;          /* opensm.read_tables */
	char sls_file[PATH_MAX];  /* opensm.report_socket + ".sls" (osm_sls.c) */
	struct work_queue *work;  /* ROUTES_MAX_RUNNING at once, more refused */
	struct event *changed_ev; /* gathers OpenSM's LFT change reports */
	int reading, again;       /* a read after a change is under way; another asked */
};

/* ---- the worker thread --------------------------------------------------- */

/* Walk the subnet, read its tables, record both; *live the read (with its
 * SL-to-VL tables, which the database does not keep). 0 or -errno with err. */
static int read_live(struct rq *q, struct store *st, const char *name, const char *ca,
		     int port, struct rl_read **live, char *err, size_t errlen)
{
	struct disc_ib_params p = {
		.subnet = name, .ca = ca, .port = port, .timeout_ms = q->timeout_ms,
		.retries = q->retries, .max_smps = q->max_smps, .m_key = q->m_key,
	};
	struct store_sweep_info info = { .subnet = name, .ca = ca, .port = port };
	struct store_sweep_result res = { 0, 0 };
	struct rl_read *r = NULL;
	struct fab *fab = NULL;
	int rc;

	info.started = clock_wall();
	rc = lft_read_run(&p, &fab, &r, err, errlen);
	info.finished = clock_wall();
	if (rc < 0) {
		log_warn("subnet %s: cannot read the forwarding tables: %s", name, err);
		return rc;
	}
	/* The walk that came with the tables is a sweep like any other: its
	 * changes become events, and --cached answers see the same fabric. */
	if ((rc = store_record_sweep(st, &info, fab, &res)) < 0 ||
	    (rc = store_record_lfts(st, name, res.sweep_id, r, NULL)) < 0)
		snprintf(err, errlen, "the tables were read but could not be "
			 "recorded: %s", strerror(-rc));
	else
		log_info("subnet %s: forwarding tables of %zu switches read with %zu SMPs in "
			 "%.0f ms (walk and read %.0f ms), SL-to-VL tables of %zu port pairs "
			 "among them", name, r->n, r->smps, (r->finished - r->started) * 1000.0,
			 (info.finished - info.started) * 1000.0, r->n_sl2vl);
	fab_free(fab);
	*live = r;
	return rc;
}

static int rq_run(void *job, char *err, size_t errlen)
{
	struct rq *q = job;
	char name[LOOM_NAME_LEN], ca[LOOM_NAME_LEN];
	struct store *st;
	struct rl_read *live = NULL;
	struct rl_vl_input vl = { .sls_file = q->sls_file };
	sqlite3 *db;
	int port;
	int rc;

	if (!(st = store_open(q->db_path, err, errlen)))
		return -EIO;
	db = store_db(st);
	rc = rl_db_subnet(db, q->has_subnet ? q->subnet : NULL, name, sizeof(name), ca,
			  sizeof(ca), &port, err, errlen);
	if (rc == 0 && !q->cached)
		rc = read_live(q, st, name, ca, port, &live, err, errlen);
	vl.sl2vl = live;
	if (!q->req) {
		/* routes_tables_changed's: stored, nothing to answer */
	} else if (rc == 0 && !q->trace) {
		/* The metrics on opensm.threads threads, for this check. */
		q->opts.pool = (q->threads ? (unsigned)q->threads : par_cores()) > 1 ?
			par_pool_new((unsigned)q->threads) : NULL;
		rc = rl_db_check(db, name, &q->opts, &vl, &q->result, err, errlen);
		par_pool_free(q->opts.pool);
		q->opts.pool = NULL;
	} else if (rc == 0) {
		rc = rl_db_trace(db, name, q->src, q->dst, &q->result, err, errlen);
	}
	if (rc == 0 && q->result)
		json_object_set_new(json_object_get(q->result, "read"), "cached",
				    json_boolean(q->cached));
	rl_read_free(live);
	store_close(st);
	return rc;
}

/* ---- the loop ---------------------------------------------------------------- */

static void changed_arm(struct routes *rt);

static void rq_done(void *job, int rc, const char *err)
{
	struct rq *q = job;
	struct routes *rt = q->rt;

	if (q->req) {
		ctl_reply_errno(q->req, rc, q->result, PROTO_ERR_INTERNAL, err);
		return;
	}
	if (rc < 0)
		log_warn("the forwarding tables OpenSM changed could not be read again: %s", err);
	rt->reading = 0;
	if (rt->again) {
		rt->again = 0;
		changed_arm(rt);
	}
}

static const struct work_ops rq_ops = { .run = rq_run, .done = rq_done, .free = free };

static void start(struct ctl_req *req, json_t *args, struct routes *rt, int trace)
{
	json_int_t shifts = 0, random = 8, seed = 1, bisections = 16;
	struct rq *q;
	int cached, rc;

	if (work_full(rt->work)) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "%u route requests are already under way; "
			      "try again when they are done", work_running(rt->work));
		return;
	}
	if (ctl_arg_bool(req, args, "cached", &cached) < 0)
		return;
	if (!(q = calloc(1, sizeof(*q)))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	if ((rc = ctl_arg_string(req, args, "subnet", q->subnet, sizeof(q->subnet), 0)) < 0 ||
	    (trace && (ctl_arg_string(req, args, "src", q->src, sizeof(q->src), 1) < 0 ||
		       ctl_arg_string(req, args, "dst", q->dst, sizeof(q->dst), 1) < 0)) ||
	    ctl_arg_count(req, args, "shifts", 1000000, &shifts) < 0 ||
	    ctl_arg_count(req, args, "random", 100000, &random) < 0 ||
	    ctl_arg_count(req, args, "seed", LLONG_MAX, &seed) < 0 ||
	    ctl_arg_count(req, args, "bisections", 100000, &bisections) < 0) {
		free(q);
		return;
	}
	q->has_subnet = rc > 0;
	q->rt = rt;
	q->req = req;
	q->trace = trace;
	q->cached = cached;
	q->opts = (struct rt_metrics_opts){ .max_shifts = (size_t)shifts,
					    .n_random = (unsigned)random, .seed = (uint64_t)seed,
					    .n_bisect = (unsigned)bisections };
	snprintf(q->db_path, sizeof(q->db_path), "%s", rt->db_path);
	snprintf(q->sls_file, sizeof(q->sls_file), "%s", rt->sls_file);
	q->timeout_ms = rt->timeout_ms;
	q->threads = rt->threads;
	q->retries = rt->retries;
	q->max_smps = rt->max_smps;
	q->m_key = rt->m_key;
	if ((rc = work_submit(rt->work, &rq_ops, q)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a thread: %s", strerror(-rc));
		free(q);
	}
}

static void cmd_route_check(struct ctl_req *req, json_t *args, void *arg)
{
	start(req, args, arg, 0);
}

static void cmd_route_trace(struct ctl_req *req, json_t *args, void *arg)
{
	start(req, args, arg, 1);
}

/* ---- reads after OpenSM's changes ------------------------------------------------- */

static void changed_cb(evutil_socket_t fd, short what, void *arg)
{
	struct routes *rt = arg;
	struct rq *q;
	int rc;

	(void)fd;
	(void)what;
	if (!rt->read_tables)
		return;
	if (rt->reading) {
		rt->again = 1;  /* after the read under way */
		return;
	}
	if (work_full(rt->work)) {
		changed_arm(rt);  /* requests' reads under way: later */
		return;
	}
	if (!(q = calloc(1, sizeof(*q)))) {
		log_err("cannot read the forwarding tables OpenSM changed: out of memory");
		return;
	}
	q->rt = rt;
	snprintf(q->db_path, sizeof(q->db_path), "%s", rt->db_path);
	q->timeout_ms = rt->timeout_ms;
	q->retries = rt->retries;
	q->max_smps = rt->max_smps;
	q->m_key = rt->m_key;
	if ((rc = work_submit(rt->work, &rq_ops, q)) < 0) {
		log_err("cannot read the forwarding tables OpenSM changed: %s", strerror(-rc));
		free(q);
		return;
	}
	rt->reading = 1;
	log_info("OpenSM changed the forwarding tables: reading them again "
		 "(opensm.read_tables)");
}

static void changed_arm(struct routes *rt)
{
	struct timeval tv = { READ_TABLES_GATHER_S, 0 };

	if (!rt->changed_ev && !(rt->changed_ev = evtimer_new(rt->base, changed_cb, rt))) {
		log_err("cannot read the forwarding tables OpenSM changed: out of memory");
		return;
	}
	evtimer_add(rt->changed_ev, &tv);  /* a later report moves it: the burst ends */
}

void routes_tables_changed(struct routes *rt)
{
	if (!rt->read_tables)
		return;
	if (rt->reading)
		rt->again = 1;
	else
		changed_arm(rt);
}

/* ---- life cycle ------------------------------------------------------------------ */

void routes_reconfigure(struct routes *rt, const struct opensm_conf *conf,
			const struct swept_mad *mad)
{
	rt->timeout_ms = mad->timeout_ms;
	rt->retries = mad->retries;
	rt->max_smps = mad->max_smps;
	rt->m_key = mad->m_key;
	rt->threads = conf->routing_threads;
	rt->read_tables = conf->osm_read_tables;
	if (snprintf(rt->sls_file, sizeof(rt->sls_file), "%s.sls", conf->osm_socket_path) >=
	    (int)sizeof(rt->sls_file))
		rt->sls_file[0] = '\0';
}

struct routes *routes_new(struct event_base *base, const struct opensm_conf *conf,
			  const struct swept_mad *mad, const char *db_path, char *err,
			  size_t errlen)
{
	struct routes *rt = calloc(1, sizeof(*rt));

	if (!rt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rt->base = base;
	snprintf(rt->db_path, sizeof(rt->db_path), "%s", db_path);
	routes_reconfigure(rt, conf, mad);
	if (!(rt->work = work_queue_new(base, "route request", ROUTES_MAX_RUNNING, WORK_REFUSE,
				       err, errlen)))
		goto fail;
	return rt;
fail:
	routes_free(rt);
	return NULL;
}

void routes_free(struct routes *rt)
{
	if (!rt)
		return;
	work_queue_free(rt->work);
	if (rt->changed_ev)
		event_free(rt->changed_ev);
	free(rt);
}

int routes_register(struct routes *rt, struct ctl *ctl)
{
	int rc = ctl_handle(ctl, "route-check", cmd_route_check, rt);

	return rc < 0 ? rc : ctl_handle(ctl, "route-trace", cmd_route_trace, rt);
}
