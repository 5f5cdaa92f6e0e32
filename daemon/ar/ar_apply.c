/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_apply.c: "ar-program" on the control socket (see ar_apply.h).
 *
 * Like ar-status (daemon/ar/ar.c): the run is a job of daemon/core/work.h
 * with its own database connection, answered on the loop, and one run at a
 * time (a second
 * request is refused as busy, never queued: two programmers interleaving
 * Sets on one switch would defeat the read-back). The settings are copied
 * into the request when it starts, so a reload during a run changes the
 * next run, not this one.
 *
 * Runs also start by themselves (ar_apply_lft_changed): OpenSM's reroute
 * sets new static tables, which turns AR off on NVIDIA switches, so once
 * its LFT changes have settled for ar.after_reroute_s the subnet of that
 * OpenSM is programmed again. Such a run has no request; its results are
 * logged and recorded like any other. Each OpenSM that changed tables is
 * remembered until its subnet has had its run (several subnets: one run
 * after the other); a change during a run makes one more after it, never
 * two at once.
 *
 * request: {"subnet": "..."?, "dry_run": bool?}
 * reply:   {"subnet":"...","dry_run":bool,"run":{...the child's done line},
 *           "switches":[ar_program_json...],"events":N} */
#include "autoconf.h"
#include "daemon/ar/ar_apply.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/ar/ar_write.h"
#include "daemon/ar/config_ar.h"
#include "daemon/ib/swept_subnets.h"
#include "daemon/core/ctl.h"
#include "daemon/core/intent.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "lib/route/route_live.h"
#include "daemon/core/store.h"
#include "daemon/ib/store_sweep.h"
#include "daemon/ar/store_ar.h"
#include "lib/db/route_live_db.h"

struct ar_apply_rq {
	struct ar_apply *a;
	struct ctl_req *req;           /* NULL: a run after OpenSM's reroute */
	uint64_t sm_guid;              /* that OpenSM's port (0: none) */
	int has_subnet;
	char subnet[LOOM_NAME_LEN];
	char db_path[PATH_MAX];
	int timeout_ms, retries, max_smps;
	uint64_t m_key;  /* discovery.m_key_file's (swept_mad) */
	struct ar_write_opts opts;
	json_t *result;
	struct intent_writer w;        /* HA: put before any Set (put NULL: none) */
};

#define AR_APPLY_PENDING 16

struct ar_apply {
	struct event_base *base;
	struct ctl *ctl;        /* its gate (HA: only the leader programs AR) */
	char db_path[PATH_MAX];
	int timeout_ms, retries, max_smps;
	uint64_t m_key;  /* discovery.m_key_file's (swept_mad) */
	int program;
	int after_reroute_s;
	struct ar_write_opts opts;
	struct work_queue *work;       /* one run at a time */
	int closing;                   /* freeing: a finished run arms nothing */
	struct event *settle;          /* armed after an LFT change */
	uint64_t pending[AR_APPLY_PENDING]; /* OpenSMs whose changes wait for a run */
	size_t n_pending;
	struct intent_writer w;        /* HA: the decisions replicated (put NULL: none) */
	char node[64];
};

/* HA: the record ar/SUBNET (see ar_apply.h), 0 or -errno with err. */
static int record_put(struct ar_apply_rq *q, const char *subnet, const char *state,
		      const json_t *done, const json_t *switches, char *err, size_t errlen)
{
	char key[LOOM_NAME_LEN + 8], *text;
	json_t *rec;
	int rc;

	rec = json_pack("{s:s, s:s, s:s, s:f, s:{s:i, s:i, s:b}}", "subnet", subnet, "state", state,
			"by", q->w.node ? q->w.node : "", "at", clock_wall(), "settings",
			"mode", (int)q->opts.mode, "sl_mask", (int)q->opts.sl_mask,
			"shield", q->opts.shield);
	if (rec && done)
		json_object_set(rec, "run", (json_t *)done);
	if (rec && switches)
		json_object_set(rec, "switches", (json_t *)switches);
	if (!rec || !(text = json_dumps(rec, JSON_SORT_KEYS | JSON_COMPACT))) {
		json_decref(rec);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_decref(rec);
	snprintf(key, sizeof(key), "ar/%s", subnet);
	rc = q->w.put(q->w.arg, key, text, err, errlen);
	free(text);
	return rc;
}

/* ---- the worker thread --------------------------------------------------- */

static int program_subnet(struct ar_apply_rq *q, struct store *st, const char *name, const char *ca,
			  int port, char *err, size_t errlen)
{
	struct disc_ib_params p = {
		.subnet = name, .ca = ca, .port = port, .timeout_ms = q->timeout_ms,
		.retries = q->retries, .max_smps = q->max_smps, .m_key = q->m_key,
	};
	json_t *done = NULL, *switches = NULL;
	size_t n_events = 0;
	int rc;

	/* HA: etcd holds the decision to program before any Set is sent. */
	if (!q->opts.dry_run && q->w.put &&
	    (rc = record_put(q, name, "programming", NULL, NULL, err, errlen)) < 0) {
		log_warn("subnet %s: AR program refused: the decision could not be replicated in "
			 "etcd: %s", name, err);
		return rc;
	}
	if ((rc = ar_write_run(&p, &q->opts, &done, &switches, err, errlen)) < 0) {
		log_warn("subnet %s: cannot program adaptive routing: %s", name, err);
		return rc;
	}
	/* A dry run changes nothing: no event, no status. */
	if (!q->opts.dry_run && q->w.put) {
		char werr[512];

		if (record_put(q, name, "programmed", done, switches, werr, sizeof(werr)) < 0)
			log_warn("subnet %s: the AR outcome could not be replicated: %s", name, werr);
	}
	if (!q->opts.dry_run &&
	    (rc = store_record_ar_program(st, name, !q->req, done, switches, &n_events)) < 0) {
		snprintf(err, errlen, "the AR programming ran but could not be "
			 "recorded: %s", strerror(-rc));
		log_err("subnet %s: %s", name, err);
		goto out;
	}
	log_notice("subnet %s: AR %s of %zu switches%s: %lld programmed, %lld unsupported, %lld "
		   "refused, %lld failed, %lld SMPs", name, q->opts.dry_run ? "dry run" : "program",
		   json_array_size(switches),
		   q->req ? "" : " (after OpenSM changed the forwarding tables)",
		   (long long)json_integer_value(json_object_get(done, "programmed")),
		   (long long)json_integer_value(json_object_get(done, "unsupported")),
		   (long long)json_integer_value(json_object_get(done, "refused")),
		   (long long)json_integer_value(json_object_get(done, "failed")),
		   (long long)json_integer_value(json_object_get(done, "smps")));
	if (!(q->result = json_pack("{s:s, s:b, s:O, s:O, s:I}", "subnet", name,
				    "dry_run", q->opts.dry_run, "run", done, "switches", switches,
				    "events", (json_int_t)n_events))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
out:
	json_decref(done);
	json_decref(switches);
	return rc;
}

/* The subnet whose stored fabric has the port sm_guid (the OpenSM that
 * rerouted) into q->subnet; nothing when none has (then the only subnet). */
static void subnet_of_sm(struct ar_apply_rq *q, struct store *st)
{
	if (q->sm_guid && store_subnet_of_port(st, q->sm_guid, q->subnet, sizeof(q->subnet)) > 0)
		q->has_subnet = 1;
}

static int rq_run(void *job, char *err, size_t errlen)
{
	struct ar_apply_rq *q = job;
	char name[LOOM_NAME_LEN], ca[LOOM_NAME_LEN];
	struct store *st;
	int port, rc;

	if (!(st = store_open(q->db_path, err, errlen)))
		return -EIO;
	if (!q->req)
		subnet_of_sm(q, st);
	rc = rl_db_subnet(store_db(st), q->has_subnet ? q->subnet : NULL, name, sizeof(name),
			  ca, sizeof(ca), &port, err, errlen);
	if (rc == 0)
		rc = program_subnet(q, st, name, ca, port, err, errlen);
	store_close(st);
	return rc;
}

/* ---- the loop ---------------------------------------------------------------- */

static void arm(struct ar_apply *a);

static void rq_done(void *job, int rc, const char *err)
{
	struct ar_apply_rq *q = job;
	struct ar_apply *a = q->a;

	if (!q->req) {
		/* A run of our own: program_subnet() logged its outcome; say a failure. */
		if (rc < 0)
			log_warn("AR program after OpenSM's reroute: %s", err);
		json_decref(q->result);
	} else {
		ctl_reply_errno(q->req, rc, q->result, PROTO_ERR_FAILED, err);
	}
	if (a->n_pending && !a->closing)
		arm(a);  /* the next OpenSM's subnet, or changes made during this run */
}

static const struct work_ops rq_ops = { .run = rq_run, .done = rq_done, .free = free };

/* A run with the settings as they are now, answering req (NULL: none). */
static int start(struct ar_apply *a, struct ctl_req *req, const char *subnet, int dry_run,
		 uint64_t sm_guid)
{
	struct ar_apply_rq *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return -ENOMEM;
	q->a = a;
	q->req = req;
	q->sm_guid = sm_guid;
	if ((q->has_subnet = subnet != NULL))
		snprintf(q->subnet, sizeof(q->subnet), "%s", subnet);
	snprintf(q->db_path, sizeof(q->db_path), "%s", a->db_path);
	q->timeout_ms = a->timeout_ms;
	q->retries = a->retries;
	q->max_smps = a->max_smps;
	q->m_key = a->m_key;
	q->opts = a->opts;
	q->opts.dry_run = dry_run;
	q->w = a->w;
	if ((rc = work_submit(a->work, &rq_ops, q)) < 0) {
		free(q);
		return rc;
	}
	return 0;
}

static void settle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ar_apply *a = arg;
	uint64_t sm;
	int rc;

	(void)fd;
	(void)what;
	if (!a->program || !a->after_reroute_s)
		return;
	if (work_running(a->work) || !a->n_pending)
		return;  /* rq_done() arms the timer again when the run ends */
	sm = a->pending[0];
	memmove(a->pending, a->pending + 1, --a->n_pending * sizeof(a->pending[0]));
	{
		char why[1024];

		if (ctl_gate_check(a->ctl, "AR programming after a reroute", why, sizeof(why)) < 0) {
			log_info("AR program after OpenSM's reroute skipped: %s", why);
			a->n_pending = 0;
			return;
		}
	}
	log_info("OpenSM 0x%016llx changed the forwarding tables %d s ago: programming AR "
		 "again", (unsigned long long)sm, a->after_reroute_s);
	if ((rc = start(a, NULL, NULL, 0, sm)) < 0)
		log_err("AR program after OpenSM's reroute: %s", strerror(-rc));
}

static void arm(struct ar_apply *a)
{
	struct timeval tv = { a->after_reroute_s, 0 };

	if (a->settle && evtimer_add(a->settle, &tv) < 0)
		log_err("AR program: cannot arm its timer");
}

void ar_apply_lft_changed(void *arg, uint64_t sm_guid)
{
	struct ar_apply *a = arg;

	if (!a->program || !a->after_reroute_s)
		return;
	for (size_t i = 0; i < a->n_pending; i++)
		if (a->pending[i] == sm_guid)
			goto armed;
	if (a->n_pending == AR_APPLY_PENDING) {
		log_warn("AR program: more than %d OpenSMs rerouted at once; 0x%016llx waits for "
			 "its next change", AR_APPLY_PENDING, (unsigned long long)sm_guid);
		return;
	}
	a->pending[a->n_pending++] = sm_guid;
armed:
	arm(a);  /* the wait starts over with each change */
}

static void cmd_program(struct ctl_req *req, json_t *args, void *arg)
{
	struct ar_apply *a = arg;
	char subnet[LOOM_NAME_LEN];
	int dry, has_subnet, rc;

	if (ctl_arg_bool(req, args, "dry_run", &dry) < 0 ||
	    (has_subnet = ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0)) < 0)
		return;
	if (!a->program && !dry) {
		ctl_reply_err(req, PROTO_ERR_DENIED, "AR programming is off: set ar.program: true "
			      "in loom.yaml to let loomd send AR SubnSets. It defaults to false "
			      "because the AR tables' attribute modifiers are not confirmed by any "
			      "public source (docs/ar-mad-notes.md) and a Set with a wrong one would "
			      "write the wrong block; --dry-run shows what would be sent");
		return;
	}
	if (work_full(a->work)) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "AR programming is already under way; try "
			      "again when it is done");
		return;
	}
	if ((rc = start(a, req, has_subnet ? subnet : NULL, dry, 0)) < 0)
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a run: %s", strerror(-rc));
}

/* ---- life cycle ------------------------------------------------------------------ */

void ar_apply_reconfigure(struct ar_apply *a, const struct ar_conf *conf,
			  const struct swept_mad *mad)
{
	a->timeout_ms = mad->timeout_ms;
	a->retries = mad->retries;
	a->max_smps = mad->max_smps;
	a->m_key = mad->m_key;
	a->program = conf->ar_program;
	a->opts.mode = conf->ar_mode;
	a->opts.sl_mask = conf->ar_sl_mask;
	a->opts.shield = conf->ar_shield;
	a->opts.dry_run = 0;
	a->after_reroute_s = conf->ar_after_reroute_s;
	if ((!a->program || !a->after_reroute_s) && a->settle) {
		evtimer_del(a->settle);
		a->n_pending = 0;
	}
}

struct ar_apply *ar_apply_new(struct event_base *base, const struct ar_conf *conf,
			      const struct swept_mad *mad, const char *db_path, char *err,
			      size_t errlen)
{
	struct ar_apply *a = calloc(1, sizeof(*a));

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->base = base;
	snprintf(a->db_path, sizeof(a->db_path), "%s", db_path);
	ar_apply_reconfigure(a, conf, mad);
	if (!(a->settle = evtimer_new(base, settle_cb, a))) {
		snprintf(err, errlen, "cannot make a timer");
		ar_apply_free(a);
		return NULL;
	}
	if (!(a->work = work_queue_new(base, "AR program request", 1, WORK_REFUSE, err,
				      errlen))) {
		ar_apply_free(a);
		return NULL;
	}
	return a;
}

void ar_apply_free(struct ar_apply *a)
{
	if (!a)
		return;
	a->closing = 1;
	work_queue_free(a->work);
	if (a->settle)
		event_free(a->settle);
	free(a);
}

int ar_apply_register(struct ar_apply *a, struct ctl *ctl)
{
	a->ctl = ctl;
	return ctl_handle(ctl, "ar-program", cmd_program, a);
}

void ar_apply_set_intent(struct ar_apply *a, const struct intent_writer *w)
{
	a->w = *w;
	snprintf(a->node, sizeof(a->node), "%s", w->node ? w->node : "");
	a->w.node = a->node;
}
