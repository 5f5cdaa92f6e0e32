/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sweep.c: the sweep scheduler.
 *
 * Each subnet (one local HCA port) is a job. A sweep of a job is a job of
 * daemon/core/work.h: discovery (blocking SMPs) and then the store
 * transaction on the worker's own database connection, so the event loop
 * never waits on the fabric or on SQLite. Subnets sweep in parallel. Back on
 * the loop, the result is published, `discover --wait` clients are answered
 * and what comes next is scheduled.
 *
 * Fields of a job that the worker writes (run_*) are read by the loop only
 * after it has returned, so no lock is needed. */
#include "autoconf.h"
#include "daemon/ib/sweep.h"
#include "daemon/ib/sweep_impl.h"
#include "daemon/ib/discovery_part.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "lib/util/clock.h"
#include "daemon/ib/config_discovery.h"
#include "daemon/core/ctl.h"
#include "daemon/ib/discovery_ib.h"

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/util/log.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "daemon/core/store.h"
#include "daemon/ib/store_sweep.h"
#include "daemon/ib/walker.h"

static struct job *sweep_job_new(struct sweeper *sw, const char *name, const char *ca, int port)
{
	struct job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->sw = sw;
	snprintf(job->name, sizeof(job->name), "%.*s", (int)sizeof(job->name) - 1, name);
	snprintf(job->ca, sizeof(job->ca), "%.*s", (int)sizeof(job->ca) - 1, ca);
	job->port = port;
	return job;
}

/* A job about to be freed: no waiter may keep pointing at it. */
static void waiters_forget(struct sweeper *sw, const struct job *job)
{
	for (struct waiter *w = sw->waiters; w; w = w->next)
		for (int i = 0; i < w->n; i++)
			if (w->jobs[i] == job) {
				w->jobs[i] = w->jobs[w->n - 1];
				w->target[i] = w->target[w->n - 1];
				w->n--;
				i--;
			}
}

static void job_free(struct job *job)
{
	if (!job)
		return;
	json_decref(job->last);
	nodename_map_free(job->run_names);
	fab_free(job->run_fab);
	fab_free(job->base);
	sweep_follow_job_free(job);
	free(job);
}

/* ---- the worker thread --------------------------------------------------- */

/* A followed run: the switches of run_lid walked again from base. NULL
 * when only a full walk will do (run_part_why says why). */
static struct fab *walk_followed(struct job *job)
{
	uint64_t guids[SWEEP_FOLLOW_MAX];
	size_t n = 0;
	int need_full = 0;
	struct fab *fab;

	if (!job->base) {
		snprintf(job->run_part_why, sizeof(job->run_part_why), "no fabric recorded yet");
		return NULL;
	}
	for (size_t i = 0; i < job->run_n_lid; i++) {
		size_t before = n;

		for (size_t k = 0; k < job->base->n_nodes && n == before; k++) {
			const struct fab_node *nd = job->base->nodes[k];

			if (nd->type == IBT_NODE_SWITCH && nd->ports[0].lid == job->run_lid[i])
				guids[n++] = nd->guid;
		}
		if (n == before) {
			snprintf(job->run_part_why, sizeof(job->run_part_why),
				 "LID %u is no switch loom knows", job->run_lid[i]);
			return NULL;
		}
	}
	fab = disc_part_sweep(&job->params, job->base, guids, n, &need_full, job->run_part_why,
			      sizeof(job->run_part_why));
	(void)need_full;  /* either way the full walk follows */
	return fab;
}

static int job_run(void *arg, char *unused, size_t unusedlen)
{
	struct job *job = arg;
	struct store_sweep_info info = {
		.subnet = job->name, .ca = job->ca, .port = job->port,
		.jobs = job->sw->job_index, .names = job->run_names,
	};
	char err[512] = "";
	struct store *st;
	struct fab *fab;

	job->run_started = clock_wall();
	fab = job->run_part ? walk_followed(job) : NULL;
	if (!fab) {
		job->run_fell_back = job->run_part;
		fab = walker_sweep(&job->params, &job->run_walk_rss_kb, err, sizeof(err));
	}
	job->run_finished = clock_wall();
	info.started = job->run_started;
	info.finished = job->run_finished;
	info.kind = job->run_part && !job->run_fell_back ? "incremental" : "full";

	st = store_open(job->db_path, job->run_error, sizeof(job->run_error));
	if (!st) {
		job->run_rc = -EIO;
	} else if (fab) {
		job->run_nodes = fab->n_nodes;
		job->run_links = fab_count_links(fab);
		job->run_smps = fab->smps;
		job->run_rc = store_record_sweep(st, &info, fab, &job->run_res);
		if (job->run_rc < 0)
			snprintf(job->run_error, sizeof(job->run_error),
				 "sweep found %zu nodes but could not be recorded: %s",
				 fab->n_nodes, strerror(-job->run_rc));
	} else {
		snprintf(job->run_error, sizeof(job->run_error), "%s", err);
		job->run_rc = -EIO;
		if (store_record_failed_sweep(st, &info, err, &job->run_res) < 0)
			log_err("subnet %s: could not record the failed sweep", job->name);
	}
	store_close(st);
	if (job->run_rc == 0) {
		/* What the next followed run walks from; the listener gets
		 * a reference of its own (handed on by job_finished()): both
		 * only read it, and a followed run changes a copy. */
		fab_free(job->base);
		job->base = fab;
		if (job->want_fab)
			job->run_fab = fab_hold(fab);
	} else {
		fab_free(fab);
	}
	job->run_recorded = clock_wall();
	(void)unused;
	(void)unusedlen;
	return job->run_rc;  /* its message is job->run_error */
}

/* ---- scheduling (event loop thread) --------------------------------------- */

static void job_done(void *arg, int rc, const char *err);

/* A job outlives its runs: the sweeper frees it (work_ops.free is NULL). */
static const struct work_ops job_ops = { .run = job_run, .done = job_done };

int sweep_job_start(struct sweeper *sw, struct job *job, int part)
{
	int rc;

	if (job->running) {
		if (!part)
			job->rerun = 1;
		return 0;
	}
	/* A full walk sees every change reported before it starts. */
	if (!part) {
		job->n_pend = 0;
		job->pend_full = 0;
	}
	job->run_part = part;
	job->run_fell_back = 0;
	job->run_part_why[0] = '\0';
	job->params = (struct disc_ib_params){
		.subnet = job->name, .ca = job->ca, .port = job->port,
		.timeout_ms = sw->timeout_ms, .retries = sw->retries, .max_smps = sw->max_smps,
		.walker = sw->walker, .m_key = sw->m_key,
	};
	snprintf(job->db_path, sizeof(job->db_path), "%s", sw->db_path);
	job->run_rc = 0;
	job->run_error[0] = '\0';
	job->run_nodes = job->run_links = 0;
	job->run_smps.sent = job->run_smps.retries = job->run_smps.lost = FAB_COUNT_UNKNOWN;
	memset(&job->run_res, 0, sizeof(job->run_res));
	fab_free(job->run_fab);
	job->run_fab = NULL;
	job->want_fab = sw->on_swept != NULL;
	/* the names the run's events use: the map in force when it starts */
	nodename_map_free(job->run_names);
	job->run_names = nodename_map_hold(sw->names);
	if ((rc = work_submit(sw->work, &job_ops, job)) < 0) {
		log_err("subnet %s: cannot start a sweep: %s", job->name, strerror(-rc));
		return rc;
	}
	job->running = 1;
	job->gen_started++;
	log_debug("subnet %s: %s sweep %u started (%s/%d)", job->name,
		  part ? "incremental" : "full", job->gen_started, job->ca, job->port);
	return 0;
}

/* A walk's count, or null when it was not counted. */
static json_t *count_json(uint64_t v)
{
	return v == FAB_COUNT_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

static json_t *job_result(const struct job *job)
{
	char ts[32];
	time_t t = (time_t)job->run_finished;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:I, s:I, s:s, "
			 "s:s*}",
			 "subnet", job->name,
			 "status", job->run_rc == 0 ? "ok" : "failed",
			 "kind", job->run_part && !job->run_fell_back ? "incremental" : "full",
			 "sweep_id", (json_int_t)job->run_res.sweep_id,
			 "nodes", (json_int_t)job->run_nodes,
			 "links", (json_int_t)job->run_links,
			 "events", (json_int_t)job->run_res.n_events,
			 "smps", count_json(job->run_smps.sent),
			 "smp_retries", count_json(job->run_smps.retries),
			 "smps_lost", count_json(job->run_smps.lost),
			 "duration_ms",
			 (json_int_t)((job->run_finished - job->run_started) * 1000.0 + 0.5),
			 "record_ms",
			 (json_int_t)((job->run_recorded - job->run_finished) * 1000.0 + 0.5),
			 "walk_rss_kb", (json_int_t)job->run_walk_rss_kb,
			 "finished", ts,
			 "error", job->run_rc == 0 ? NULL : job->run_error);
}

static int waiter_satisfied(const struct waiter *w)
{
	for (int i = 0; i < w->n; i++)
		if (w->jobs[i]->gen_done < w->target[i])
			return 0;
	return 1;
}

static void waiters_check(struct sweeper *sw)
{
	struct waiter **pp = &sw->waiters;

	while (*pp) {
		struct waiter *w = *pp;

		if (!waiter_satisfied(w)) {
			pp = &w->next;
			continue;
		}
		json_t *sweeps = json_array();
		for (int i = 0; i < w->n; i++)
			if (w->jobs[i]->last)
				json_array_append(sweeps, w->jobs[i]->last);
		ctl_reply_ok(w->req, json_pack("{s:o}", "sweeps", sweeps));
		*pp = w->next;
		free(w);
	}
}

/* The run of `job` has returned: publish its result. */
static void job_finished(struct sweeper *sw, struct job *job)
{
	job->running = 0;
	job->gen_done = job->gen_started;
	json_decref(job->last);
	job->last = job_result(job);
	if (job->run_part && job->run_fell_back)
		log_info("subnet %s: the changed switches could not be walked alone (%s): "
			 "the whole subnet was", job->name, job->run_part_why);
	if (job->run_rc == 0)
		log_info("subnet %s: %s sweep %lld: %zu nodes, %zu links, %zu events in %.0f ms "
			 "(+%.0f ms to record)", job->name,
			 job->run_part && !job->run_fell_back ? "incremental" : "full",
			 (long long)job->run_res.sweep_id,
			 job->run_nodes, job->run_links, job->run_res.n_events,
			 (job->run_finished - job->run_started) * 1000.0,
			 (job->run_recorded - job->run_finished) * 1000.0);
	else
		log_warn("subnet %s: sweep failed: %s", job->name, job->run_error);
	/* Discovery met these GUIDs twice and kept the first sighting
	 * (validation reports them as findings). */
	for (size_t i = 0; job->run_fab && i < job->run_fab->n_dups; i++) {
		const struct fab_dup *d = &job->run_fab->dups[i];

		log_info("subnet %s: duplicate %s GUID 0x%016llx: \"%s\" and \"%s\"", job->name,
			 d->is_port ? "port" : "node", (unsigned long long)d->guid, d->first,
			 d->second);
	}
	if (job->run_fab && sw->on_swept)
		sw->on_swept(sw->on_swept_arg, job->name, job->run_fab);
	else
		fab_free(job->run_fab);
	job->run_fab = NULL;
	if (job->rerun && !job->retired) {
		job->rerun = 0;
		sweep_job_start(sw, job, 0);
	}
	if (!job->retired)
		sweep_follow_after_run(sw, job);
}

static void job_done(void *arg, int rc, const char *err)
{
	struct job *job = arg;
	struct sweeper *sw = job->sw;

	(void)rc;
	(void)err;  /* job_run() kept both in the job */
	if (sw->closing) {
		job->running = 0;  /* sweeper_free() frees every job */
		return;
	}
	if (!job->retired) {
		job_finished(sw, job);
	} else {
		for (int i = 0; i < sw->n_retired; i++)
			if (sw->retired[i] == job)
				sw->retired[i] = sw->retired[--sw->n_retired];
		waiters_forget(sw, job);
		job_free(job);
	}
	waiters_check(sw);
}

/* A retired job of that subnet whose run is still going, taken back (so
 * that one port never has two runs at once), or NULL. */
static struct job *unretire_job(struct sweeper *sw, const char *name, const char *ca,
				int port)
{
	for (int i = 0; i < sw->n_retired; i++) {
		struct job *job = sw->retired[i];

		if (strcmp(job->name, name) == 0 && strcmp(job->ca, ca) == 0 &&
		    job->port == port) {
			sw->retired[i] = sw->retired[--sw->n_retired];
			job->retired = 0;
			return job;
		}
	}
	return NULL;
}

/* Build the job list when no subnet is configured: every local IB port
 * that has a link. */
static void autodetect_jobs(struct sweeper *sw)
{
	struct disc_ib_local_port ports[LOOM_MAX_SUBNETS];
	int n = disc_ib_local_ports(ports, LOOM_MAX_SUBNETS);

	if (n < 0) {
		if (!sw->warned_no_ports)
			log_warn("cannot list local InfiniBand ports: %s", strerror(-n));
		sw->warned_no_ports = 1;
		return;
	}
	if (n > LOOM_MAX_SUBNETS)
		n = LOOM_MAX_SUBNETS;
	for (int i = 0; i < n; i++) {
		char name[LOOM_NAME_LEN];
		int known = 0;

		snprintf(name, sizeof(name), "%.48s/%d", ports[i].ca, ports[i].port);
		for (int j = 0; j < sw->n_jobs; j++)
			known |= strcmp(sw->jobs[j]->name, name) == 0;
		if (known || sw->n_jobs == LOOM_MAX_SUBNETS)
			continue;
		struct job *job = unretire_job(sw, name, ports[i].ca, ports[i].port);
		if (!job && !(job = sweep_job_new(sw, name, ports[i].ca, ports[i].port)))
			return;
		job->autodetected = 1;
		sw->jobs[sw->n_jobs++] = job;
		log_notice("found local InfiniBand port %s (state %d): sweeping it as subnet %s",
			   name, ports[i].state, name);
	}
	if (sw->n_jobs == 0 && !sw->warned_no_ports) {
		log_warn("no local InfiniBand port found and no subnet configured: nothing to sweep");
		sw->warned_no_ports = 1;
	}
}

static void schedule_next(struct sweeper *sw)
{
	if (sw->interval <= 0) {
		evtimer_del(sw->timer);
		sw->next_due = 0;
		return;
	}
	struct timeval tv = { .tv_sec = sw->interval, .tv_usec = 0 };
	evtimer_add(sw->timer, &tv);
	sw->next_due = clock_mono() + sw->interval;
}

void sweeper_on_swept(struct sweeper *sw, sweeper_swept_fn fn, void *arg)
{
	sw->on_swept = fn;
	sw->on_swept_arg = arg;
}

void sweeper_trigger(struct sweeper *sw)
{
	if (sw->autodetect)
		autodetect_jobs(sw);
	for (int i = 0; i < sw->n_jobs; i++)
		sweep_job_start(sw, sw->jobs[i], 0);
	schedule_next(sw);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	sweeper_trigger(arg);
}

/* ---- configuration ---------------------------------------------------------- */

static void retire_job(struct sweeper *sw, struct job *job)
{
	if (!job->running) {
		waiters_forget(sw, job);
		job_free(job);
		return;
	}
	/* Freed by job_done() when its run ends. The list is only for
	 * sweeper_free(): at most as many as can run (the queue's limit). */
	job->retired = 1;
	sw->retired[sw->n_retired++] = job;
}

int sweeper_reconfigure(struct sweeper *sw, const struct discovery_conf *conf)
{
	struct job *jobs[LOOM_MAX_SUBNETS];
	int n = 0;

	sw->timeout_ms = conf->mad_timeout_ms;
	sw->retries = conf->mad_retries;
	sw->max_smps = conf->max_smps;
	sw->walker = conf->walker_id;
	sw->m_key = conf->m_key;
	sw->autodetect = conf->n_subnets == 0;

	/* Keep the jobs whose subnet is still configured the same way, so their
	 * last result and any run under way carry over. */
	for (int i = 0; i < conf->n_subnets; i++) {
		const struct loom_subnet_conf *sc = &conf->subnets[i];
		struct job *job = NULL;

		for (int j = 0; j < sw->n_jobs; j++) {
			struct job *old = sw->jobs[j];

			if (old && strcmp(old->name, sc->name) == 0 &&
			    strcmp(old->ca, sc->ca) == 0 && old->port == sc->port) {
				job = old;
				sw->jobs[j] = NULL;
			}
		}
		if (!job && !(job = unretire_job(sw, sc->name, sc->ca, sc->port)) &&
		    !(job = sweep_job_new(sw, sc->name, sc->ca, sc->port)))
			return -ENOMEM;
		job->autodetected = 0;
		jobs[n++] = job;
	}
	if (sw->autodetect) {
		/* An emptied list means what no list means: every local port.
		 * Keep the ports found before; configured subnets are no longer
		 * swept (autodetect_jobs() takes a local one back under its
		 * "<ca>/<port>" name). */
		for (int j = 0; j < sw->n_jobs; j++)
			if (sw->jobs[j] && sw->jobs[j]->autodetected)
				jobs[n++] = sw->jobs[j], sw->jobs[j] = NULL;
	}
	for (int j = 0; j < sw->n_jobs; j++)
		if (sw->jobs[j])
			retire_job(sw, sw->jobs[j]);
	memcpy(sw->jobs, jobs, sizeof(jobs[0]) * (size_t)n);
	sw->n_jobs = n;
	if (sw->autodetect)
		autodetect_jobs(sw);  /* "status" shows the ports at once */

	sw->follow = conf->discovery_follow;
	sw->conf_interval = conf->sweep_interval;
	if (sw->interval != (sw->override >= 0 ? sw->override : conf->sweep_interval)) {
		sw->interval = sw->override >= 0 ? sw->override : conf->sweep_interval;
		if (sw->timer)
			schedule_next(sw);
	}
	return 0;
}

struct sweeper *sweeper_new(struct event_base *base, const struct discovery_conf *conf,
			    const char *db_path, char *err, size_t errlen)
{
	struct sweeper *sw = calloc(1, sizeof(*sw));

	if (!sw) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sw->base = base;
	snprintf(sw->db_path, sizeof(sw->db_path), "%s", db_path);
	/* Every configured subnet and every retired one still running. */
	if (!(sw->work = work_queue_new(base, "sweep", SWEEP_MAX_RUNNING, WORK_REFUSE, err,
					errlen)))
		goto fail;
	sw->timer = evtimer_new(base, timer_cb, sw);
	if (!sw->timer) {
		snprintf(err, errlen, "cannot set up sweep events");
		goto fail;
	}
	sw->interval = sw->conf_interval = conf->sweep_interval;
	sw->override = -1;
	if (sweeper_reconfigure(sw, conf) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return sw;
fail:
	sweeper_free(sw);
	return NULL;
}

void sweeper_free(struct sweeper *sw)
{
	if (!sw)
		return;
	sw->closing = 1;
	work_queue_free(sw->work);  /* waits for the runs under way */
	for (int i = 0; i < sw->n_jobs; i++)
		job_free(sw->jobs[i]);
	for (int i = 0; i < sw->n_retired; i++)
		job_free(sw->retired[i]);
	while (sw->waiters) {
		struct waiter *w = sw->waiters;

		sw->waiters = w->next;
		ctl_reply_err(w->req, PROTO_ERR_BUSY, "loomd is shutting down");
		free(w);
	}
	if (sw->timer)
		event_free(sw->timer);
	nodename_map_free(sw->names);
	free(sw);
}

/* ---- control commands -------------------------------------------------------- */

static void cmd_discover(struct ctl_req *req, json_t *args, void *arg)
{
	struct sweeper *sw = arg;
	struct waiter *w;
	int wait;

	if (ctl_arg_bool(req, args, "wait", &wait) < 0)
		return;
	sweeper_trigger(sw);
	if (sw->n_jobs == 0) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND,
			      "nothing to sweep: no subnet is configured and no local "
			      "InfiniBand port was found");
		return;
	}
	if (!wait) {
		ctl_reply_ok(req, json_pack("{s:b}", "started", 1));
		return;
	}
	if (!(w = calloc(1, sizeof(*w)))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	w->req = req;
	for (int i = 0; i < sw->n_jobs; i++) {
		struct job *job = sw->jobs[i];

		w->jobs[w->n] = job;
		/* A run that was already going when the request came does not
		 * count: wait for the rerun it scheduled. */
		w->target[w->n++] = job->gen_started + (job->rerun ? 1 : 0);
	}
	w->next = sw->waiters;
	sw->waiters = w;
}

json_t *sweeper_status(struct sweeper *sw)
{
	json_t *subnets = json_array();
	double now = clock_mono();
	int running = 0;

	for (int i = 0; i < sw->n_jobs; i++) {
		struct job *job = sw->jobs[i];
		json_t *next = sw->next_due > 0 ?
			json_integer((json_int_t)(sw->next_due - now + 0.5)) : json_null();

		running |= job->running != 0;
		json_array_append_new(subnets, json_pack(
			"{s:s, s:s, s:i, s:b, s:O?, s:o}",
			"name", job->name, "ca", job->ca, "port", job->port,
			"running", job->running != 0, "last", job->last, "next_in_s", next));
	}
	return json_pack("{s:i, s:b, s:b, s:o}", "interval", sw->interval,
			 "running", running, "autodetect", sw->autodetect, "subnets", subnets);
}

int sweeper_register(struct sweeper *sw, struct ctl *ctl)
{
	return ctl_handle(ctl, "discover", cmd_discover, sw);
}

void sweeper_set_interval(struct sweeper *sw, int interval)
{
	int next = interval >= 0 ? interval : sw->conf_interval;

	sw->override = interval;
	if (next == sw->interval)
		return;
	log_info("discovery: every %d s from now%s", next,
		 interval >= 0 ? "" : " (discovery.interval)");
	sw->interval = next;
	schedule_next(sw);
}

void sweeper_set_names(struct sweeper *sw, struct nodename_map *names)
{
	nodename_map_free(sw->names);
	sw->names = nodename_map_hold(names);
}

void sweeper_set_job_index(struct sweeper *sw, struct job_index *jobs)
{
	sw->job_index = jobs;
}
