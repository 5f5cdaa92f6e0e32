/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar.c: "ar-status" on the control socket (see ar.h).
 *
 * Like route check (daemon/routing/routes.c): the probe is a job of
 * daemon/core/work.h with its own database connection, answered on the loop.
 * One probe at a time: a second request while one runs is refused as busy
 * rather than queued, so a script looping on `ar status` cannot pile up SMP
 * walks. */
#include "autoconf.h"
#include "daemon/ar/ar.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/ar/ar_read.h"
#include "lib/ar/ar_status.h"
#include "daemon/core/config.h"
#include "daemon/ib/swept_subnets.h"
#include "daemon/core/ctl.h"
#include "lib/util/log.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "lib/route/route_live.h"
#include "daemon/core/store.h"
#include "daemon/ar/store_ar.h"
#include "lib/db/ar_status_db.h"
#include "lib/db/route_live_db.h"

struct ar_rq {
	struct ctl_req *req;
	int cached, has_subnet;
	char subnet[LOOM_NAME_LEN];
	char db_path[PATH_MAX];
	int timeout_ms, retries, max_smps;
	uint64_t m_key;  /* discovery.m_key_file's (swept_mad) */
	json_t *result;
};

struct ar_mod {
	struct event_base *base;
	char db_path[PATH_MAX];
	int timeout_ms, retries, max_smps;
	uint64_t m_key;  /* discovery.m_key_file's (swept_mad) */
	struct work_queue *work;  /* one probe at a time */
};

/* ---- the worker thread --------------------------------------------------- */

static int probe(struct ar_rq *q, struct store *st, const char *name, const char *ca, int port,
		 char *err, size_t errlen)
{
	struct disc_ib_params p = {
		.subnet = name, .ca = ca, .port = port, .timeout_ms = q->timeout_ms,
		.retries = q->retries, .max_smps = q->max_smps, .m_key = q->m_key,
	};
	json_t *info = NULL, *switches = NULL;
	size_t n_events = 0;
	int rc;

	if ((rc = ar_read_run(&p, &info, &switches, err, errlen)) < 0) {
		log_warn("subnet %s: cannot probe adaptive routing: %s", name, err);
		return rc;
	}
	if ((rc = store_record_ar(st, name, info, switches, &n_events)) < 0)
		snprintf(err, errlen, "the AR probe ran but could not be recorded: %s",
			 strerror(-rc));
	else
		log_info("subnet %s: AR probe of %zu switches, %lld SMPs in %.0f ms: %zu "
			 "capability change%s", name, json_array_size(switches),
			 (long long)json_integer_value(json_object_get(info, "smps")),
			 (json_number_value(json_object_get(info, "finished")) -
			  json_number_value(json_object_get(info, "started"))) * 1000.0,
			 n_events, n_events == 1 ? "" : "s");
	json_decref(info);
	json_decref(switches);
	return rc;
}

static int rq_run(void *job, char *err, size_t errlen)
{
	struct ar_rq *q = job;
	char name[LOOM_NAME_LEN], ca[LOOM_NAME_LEN];
	struct store *st;
	int port;
	int rc;

	if (!(st = store_open(q->db_path, err, errlen)))
		return -EIO;
	rc = rl_db_subnet(store_db(st), q->has_subnet ? q->subnet : NULL, name, sizeof(name),
			  ca, sizeof(ca), &port, err, errlen);
	if (rc == 0 && !q->cached)
		rc = probe(q, st, name, ca, port, err, errlen);
	if (rc == 0)
		rc = ar_db_status(store_db(st), name, &q->result, err, errlen);
	if (rc == 0)
		json_object_set_new(json_object_get(q->result, "probe"), "cached",
				    json_boolean(q->cached));
	store_close(st);
	return rc;
}

/* ---- the loop ---------------------------------------------------------------- */

static void rq_done(void *job, int rc, const char *err)
{
	struct ar_rq *q = job;

	ctl_reply_errno(q->req, rc, q->result, PROTO_ERR_INTERNAL, err);
}

static const struct work_ops rq_ops = { .run = rq_run, .done = rq_done, .free = free };

static void cmd_ar_status(struct ctl_req *req, json_t *args, void *arg)
{
	struct ar_mod *ar = arg;
	char subnet[LOOM_NAME_LEN];
	struct ar_rq *q;
	int cached, has_subnet, rc;

	if (work_full(ar->work)) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "an AR probe is already under way; try again "
			      "when it is done (or ask for --cached)");
		return;
	}
	if (ctl_arg_bool(req, args, "cached", &cached) < 0 ||
	    (has_subnet = ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0)) < 0)
		return;
	if (!(q = calloc(1, sizeof(*q)))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	q->req = req;
	q->cached = cached;
	if ((q->has_subnet = has_subnet))
		snprintf(q->subnet, sizeof(q->subnet), "%s", subnet);
	snprintf(q->db_path, sizeof(q->db_path), "%s", ar->db_path);
	q->timeout_ms = ar->timeout_ms;
	q->retries = ar->retries;
	q->max_smps = ar->max_smps;
	q->m_key = ar->m_key;
	if ((rc = work_submit(ar->work, &rq_ops, q)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a thread: %s", strerror(-rc));
		free(q);
	}
}

/* ---- life cycle ------------------------------------------------------------------ */

void ar_reconfigure(struct ar_mod *ar, const struct swept_mad *mad)
{
	ar->timeout_ms = mad->timeout_ms;
	ar->retries = mad->retries;
	ar->max_smps = mad->max_smps;
	ar->m_key = mad->m_key;
}

struct ar_mod *ar_new(struct event_base *base, const struct swept_mad *mad, const char *db_path,
		      char *err, size_t errlen)
{
	struct ar_mod *ar = calloc(1, sizeof(*ar));

	if (!ar) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ar->base = base;
	snprintf(ar->db_path, sizeof(ar->db_path), "%s", db_path);
	ar_reconfigure(ar, mad);
	if (!(ar->work = work_queue_new(base, "AR request", 1, WORK_REFUSE, err, errlen)))
		goto fail;
	return ar;
fail:
	ar_free(ar);
	return NULL;
}

void ar_free(struct ar_mod *ar)
{
	if (!ar)
		return;
	work_queue_free(ar->work);
	free(ar);
}

int ar_register(struct ar_mod *ar, struct ctl *ctl)
{
	return ctl_handle(ctl, "ar-status", cmd_ar_status, ar);
}
