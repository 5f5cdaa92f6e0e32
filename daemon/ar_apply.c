/* daemon/ar_apply.c: "ar-program" on the control socket (see ar_apply.h).
 *
 * Like ar-status (daemon/ar.c): the run has its own thread and database
 * connection, wakes the loop when done, and one run at a time (a second
 * request is refused as busy, never queued: two programmers interleaving
 * Sets on one switch would defeat the read-back). The settings are copied
 * into the request when it starts, so a reload during a run changes the
 * next run, not this one.
 *
 * request: {"subnet": "..."?, "dry_run": bool?}
 * reply:   {"subnet":"...","dry_run":bool,"run":{...the child's done line},
 *           "switches":[ar_program_json...],"events":N} */
#include "autoconf.h"
#include "ar_apply.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "ar_write.h"
#include "config.h"
#include "ctl.h"
#include "log.h"
#include "loop_wake.h"
#include "proto.h"
#include "route_live.h"
#include "store.h"
#include "store_ar.h"

struct ar_apply_rq {
	struct ar_apply *a;
	struct ctl_req *req;
	pthread_t thread;
	atomic_int finished;
	int has_subnet;
	char subnet[LOOM_NAME_LEN];
	char db_path[PATH_MAX];
	int timeout_ms, retries, max_smps;
	struct ar_write_opts opts;
	int rc;
	char err[1024];
	json_t *result;
};

struct ar_apply {
	struct event_base *base;
	char db_path[PATH_MAX];
	int timeout_ms, retries, max_smps;
	int program;
	struct ar_write_opts opts;
	struct loop_wake *wake;
	struct ar_apply_rq *running;
};

/* ---- the worker thread --------------------------------------------------- */

static int run(struct ar_apply_rq *q, struct store *st, const char *name, const char *ca,
	       int port)
{
	struct disc_ib_params p = {
		.subnet = name, .ca = ca, .port = port, .timeout_ms = q->timeout_ms,
		.retries = q->retries, .max_smps = q->max_smps,
	};
	json_t *done = NULL, *switches = NULL;
	size_t n_events = 0;
	int rc;

	if ((rc = ar_write_run(&p, &q->opts, &done, &switches, q->err, sizeof(q->err))) < 0) {
		log_warn("subnet %s: cannot program adaptive routing: %s", name, q->err);
		return rc;
	}
	/* A dry run changes nothing: no event, no status. */
	if (!q->opts.dry_run &&
	    (rc = store_record_ar_program(st, name, done, switches, &n_events)) < 0) {
		snprintf(q->err, sizeof(q->err), "the AR programming ran but could not be "
			 "recorded: %s", strerror(-rc));
		log_err("subnet %s: %s", name, q->err);
		goto out;
	}
	log_notice("subnet %s: AR %s of %zu switches: %lld programmed, %lld unsupported, %lld "
		   "refused, %lld failed, %lld SMPs", name, q->opts.dry_run ? "dry run" : "program",
		   json_array_size(switches),
		   (long long)json_integer_value(json_object_get(done, "programmed")),
		   (long long)json_integer_value(json_object_get(done, "unsupported")),
		   (long long)json_integer_value(json_object_get(done, "refused")),
		   (long long)json_integer_value(json_object_get(done, "failed")),
		   (long long)json_integer_value(json_object_get(done, "smps")));
	if (!(q->result = json_pack("{s:s, s:b, s:O, s:O, s:I}", "subnet", name,
				    "dry_run", q->opts.dry_run, "run", done, "switches", switches,
				    "events", (json_int_t)n_events))) {
		snprintf(q->err, sizeof(q->err), "out of memory");
		rc = -ENOMEM;
	}
out:
	json_decref(done);
	json_decref(switches);
	return rc;
}

static void *rq_thread(void *arg)
{
	struct ar_apply_rq *q = arg;
	char name[LOOM_NAME_LEN], ca[LOOM_NAME_LEN];
	struct store *st;
	int port, rc;

	if (!(st = store_open(q->db_path, q->err, sizeof(q->err)))) {
		q->rc = -EIO;
		goto done;
	}
	q->rc = rl_db_subnet(store_db(st), q->has_subnet ? q->subnet : NULL, name, sizeof(name),
			     ca, sizeof(ca), &port, q->err, sizeof(q->err));
	if (q->rc == 0)
		q->rc = run(q, st, name, ca, port);
	store_close(st);
done:
	atomic_store(&q->finished, 1);
	if ((rc = loop_wake_signal(q->a->wake)) < 0)
		log_err("AR program request: cannot wake the event loop: %s", strerror(-rc));
	return NULL;
}

/* ---- the loop ---------------------------------------------------------------- */

static void reap(struct ar_apply *a, int wait)
{
	struct ar_apply_rq *q = a->running;

	if (!q || (!wait && !atomic_load(&q->finished)))
		return;
	pthread_join(q->thread, NULL);
	if (q->rc == 0)
		ctl_reply_ok(q->req, q->result);
	else if (q->rc == -ENOENT)
		ctl_reply_err(q->req, PROTO_ERR_NOTFOUND, "%s", q->err);
	else if (q->rc == -EINVAL)
		ctl_reply_err(q->req, PROTO_ERR_BADREQ, "%s", q->err);
	else
		ctl_reply_err(q->req, PROTO_ERR_FAILED, "%s", q->err);
	a->running = NULL;
	free(q);
}

static void wake_cb(void *arg)
{
	reap(arg, 0);
}

static void cmd_program(struct ctl_req *req, json_t *args, void *arg)
{
	struct ar_apply *a = arg;
	json_t *dry = json_object_get(args, "dry_run");
	json_t *subnet = json_object_get(args, "subnet");
	struct ar_apply_rq *q;
	int rc;

	if (dry && !json_is_boolean(dry)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"dry_run\" must be true or false");
		return;
	}
	if (subnet && !json_is_null(subnet) &&
	    (!json_is_string(subnet) || json_string_length(subnet) >= LOOM_NAME_LEN)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"subnet\" must be a string of less than "
			      "%d bytes", LOOM_NAME_LEN);
		return;
	}
	if (!a->program && !json_is_true(dry)) {
		ctl_reply_err(req, PROTO_ERR_DENIED, "AR programming is off: set ar.program: true "
			      "in loom.yaml to let loomd send AR SubnSets. It defaults to false "
			      "because the AR tables' attribute modifiers are not confirmed by any "
			      "public source (docs/ar-mad-notes.md) and a Set with a wrong one would "
			      "write the wrong block; --dry-run shows what would be sent");
		return;
	}
	if (a->running) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "AR programming is already under way; try "
			      "again when it is done");
		return;
	}
	if (!(q = calloc(1, sizeof(*q)))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	q->a = a;
	q->req = req;
	if ((q->has_subnet = json_is_string(subnet)))
		snprintf(q->subnet, sizeof(q->subnet), "%s", json_string_value(subnet));
	snprintf(q->db_path, sizeof(q->db_path), "%s", a->db_path);
	q->timeout_ms = a->timeout_ms;
	q->retries = a->retries;
	q->max_smps = a->max_smps;
	q->opts = a->opts;
	q->opts.dry_run = json_is_true(dry);
	if ((rc = pthread_create(&q->thread, NULL, rq_thread, q)) != 0) {
		log_err("cannot start an AR program thread: %s", strerror(rc));
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a thread: %s", strerror(rc));
		free(q);
		return;
	}
	a->running = q;
}

/* ---- life cycle ------------------------------------------------------------------ */

void ar_apply_reconfigure(struct ar_apply *a, const struct loom_config *conf)
{
	snprintf(a->db_path, sizeof(a->db_path), "%s", conf->db_path);
	a->timeout_ms = conf->mad_timeout_ms;
	a->retries = conf->mad_retries;
	a->max_smps = conf->max_smps;
	a->program = conf->ar_program;
	a->opts.mode = conf->ar_mode;
	a->opts.sl_mask = conf->ar_sl_mask;
	a->opts.shield = conf->ar_shield;
	a->opts.dry_run = 0;
}

struct ar_apply *ar_apply_new(struct event_base *base, const struct loom_config *conf,
			      char *err, size_t errlen)
{
	struct ar_apply *a = calloc(1, sizeof(*a));

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->base = base;
	ar_apply_reconfigure(a, conf);
	if (!(a->wake = loop_wake_new(base, wake_cb, a, "AR program events", err, errlen))) {
		ar_apply_free(a);
		return NULL;
	}
	return a;
}

void ar_apply_free(struct ar_apply *a)
{
	if (!a)
		return;
	reap(a, 1);
	loop_wake_free(a->wake);
	free(a);
}

int ar_apply_register(struct ar_apply *a, struct ctl *ctl)
{
	return ctl_register(ctl, "ar-program", CTL_WRITE, cmd_program, a);
}
