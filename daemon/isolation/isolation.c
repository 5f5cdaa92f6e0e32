/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation.c: see isolation.h. The loop's side: the
 * inputs gathered, one job at a time submitted, the commands. */
#include "autoconf.h"
#include "daemon/isolation/isolation.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/core/authz.h"
#include "daemon/core/ctl.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/routing/osm_report.h"
#include "daemon/slurm/slurm_drain.h"
#include "daemon/isolation/isolation_impl.h"
#include "daemon/isolation/store_isolation.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/telemetry/metrics_text.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

/* Reads' moves kept for the next evaluation, at most (then the oldest go). */
#define ISO_PENDING_MAX 64
/* Ports tracked in the windows, at most. */
#define ISO_WINDOW_PORTS 65536
/* Operators' requests waiting behind the one under way. */
#define ISO_MAX_WAITING 16

int iso_subnet_index(struct isolation_mod *m, const char *name)
{
	for (size_t i = 0; i < m->n_names; i++)
		if (!strcmp(m->names[i], name))
			return (int)i;
	if (m->n_names == ISO_NAMES_MAX)
		return -1;
	snprintf(m->names[m->n_names], sizeof(m->names[0]), "%s", name);
	return (int)m->n_names++;
}

static void pending_free(struct iso_pending *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].v);
	free(p);
}

static void iso_evaluate(struct isolation_mod *m);

/* ---- jobs ------------------------------------------------------------------------ */


/* What Slurm did with a drain or a resume, as an event. */
struct host_ctx {
	struct isolation_mod *m;
	struct iso_host_act a;
};

static void host_done(void *arg, const struct slurm_node_result *res)
{
	struct host_ctx *h = arg;
	char text[768];
	const char *kind = h->a.resume ? (res->rc ? "host_resume_refused" : "host_resumed") :
			   (res->rc ? "host_drain_refused" : "host_drained");

	if (res->rc != -ECANCELED) {
		snprintf(text, sizeof(text), "%s: %s; Slurm: %s%s%s", h->a.host, h->a.why,
			 res->msg && res->msg[0] ? res->msg : "done",
			 res->state && res->state[0] ? "; state " : "", res->state ? res->state : "");
		store_record_event(h->m->store, clock_wall(), h->a.sid, res->rc ? "warning" :
				   h->a.resume ? "notice" : "warning", kind, h->a.subject, "", text);
	}
	free(h);
}

/* The job's drains and resumes, in order (slurm_drain.h: one at a time). */
static void host_acts(struct isolation_mod *m, struct iso_job *j)
{
	for (size_t i = 0; i < j->n_host_acts; i++) {
		struct host_ctx *h = malloc(sizeof(*h));
		struct slurm_node_result res = { .rc = -ENOTSUP, .state = "", .reason = "",
						 .msg = "no Slurm to ask (slurm.scontrol)" };
		int rc;

		if (!h)
			continue;
		h->m = m;
		h->a = j->host_acts[i];
		rc = !m->slurm ? -ENOTSUP : h->a.resume ?
		     slurm_resume(m->slurm, h->a.host, host_done, h) :
		     slurm_drain(m->slurm, h->a.host, h->a.why, host_done, h);
		if (rc < 0) {
			res.rc = rc;
			if (rc != -ENOTSUP)
				res.msg = strerror(-rc);
			host_done(h, &res);
		}
	}
}

static void job_done(void *arg, int rc, const char *err)
{
	struct iso_job *j = arg;
	struct isolation_mod *m = j->m;

	if (rc == 0)
		host_acts(m, j);
	if (rc == 0 && j->put_version >= 0)
		m->etcd_version = j->put_version;
	if (j->req) {
		if (rc == 0)
			ctl_reply_ok(j->req, j->result ? j->result : json_object());
		else
			ctl_reply_errno(j->req, rc == -EPERM ? -EINVAL : rc, NULL,
					rc == -EPERM ? PROTO_ERR_FAILED : PROTO_ERR_INTERNAL, err);
		j->req = NULL;
		j->result = NULL;
		return;
	}
	if (rc < 0 && rc != -ECANCELED)
		log_warn("isolation: %s", err);
	m->running = 0;
	if (m->again && rc != -ECANCELED) {
		m->again = 0;
		iso_evaluate(m);
	}
}

static void job_free(void *arg)
{
	struct iso_job *j = arg;

	for (size_t i = 0; i < j->n; i++)
		fab_free(j->s[i].fab);
	pending_free(j->pending, j->n_pending);
	json_decref(j->result);
	free(j->host_acts);
	nodename_map_free(j->names);
	if (j->hm_loaded)
		hostmap_clear(&j->hm);
	free(j);
}

static const struct work_ops job_ops = { .run = iso_eval_run, .done = job_done,
					 .free = job_free };

static struct iso_job *job_new(struct isolation_mod *m, int kind, struct ctl_req *req)
{
	struct iso_job *j = calloc(1, sizeof(*j));
	char why[256];

	if (!j)
		return NULL;
	j->m = m;
	j->kind = kind;
	j->req = req;
	j->conf = m->conf;
	j->now = clock_wall();
	j->jobs = m->jobs;
	j->hosts = m->hosts;
	j->intent = m->intent;
	j->names = nodename_map_hold(m->site_names);
	j->etcd_version = m->etcd_version;
	j->put_version = -1;
	snprintf(j->db_path, sizeof(j->db_path), "%s", m->db_path);
	j->may_act = kind != ISO_JOB_EVAL || !m->ctl ||
		     ctl_gate_check(m->ctl, "isolation", why, sizeof(why)) == 0;
	for (size_t i = 0; i < m->fabs.n; i++) {
		int idx;

		if (!m->fabs.s[i].last || (idx = iso_subnet_index(m, m->fabs.s[i].name)) < 0)
			continue;
		snprintf(j->s[j->n].name, sizeof(j->s[0].name), "%s", m->fabs.s[i].name);
		j->s[j->n].fab = fab_hold(m->fabs.s[i].last);
		j->s[j->n].idx = (unsigned)idx;
		j->n++;
	}
	opensm_sweep_find(m->osm, m->osm_pid_file, m->store, &j->osm);
	return j;
}

/* One evaluation now, or once the one under way ends. */
static void iso_evaluate(struct isolation_mod *m)
{
	struct iso_job *j;
	int rc;

	if (m->conf.iso_mode == ISO_MODE_OFF && !m->n_pending)
		return;
	if (m->running) {
		m->again = 1;
		return;
	}
	if (!(j = job_new(m, ISO_JOB_EVAL, NULL)))
		return;
	if (m->conf.iso_mode == ISO_MODE_OFF) {
		/* Off: the windows still count, nothing is decided. */
		pending_free(m->pending, m->n_pending);
		m->pending = NULL;
		m->n_pending = 0;
		job_free(j);
		return;
	}
	j->pending = m->pending;
	j->n_pending = m->n_pending;
	m->pending = NULL;
	m->n_pending = 0;
	if ((rc = work_submit(m->work, &job_ops, j)) < 0) {
		log_warn("isolation: cannot start an evaluation: %s", strerror(-rc));
		job_free(j);
		return;
	}
	m->running = 1;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	iso_evaluate(arg);
}

static void timer_arm(struct isolation_mod *m)
{
	/* Often enough for a probation to end on time, at most twice a minute. */
	int s = m->conf.iso_clean_for_s / 4;
	struct timeval tv = { s < 1 ? 1 : s > 30 ? 30 : s, 0 };

	event_del(m->timer);
	if (m->conf.iso_mode != ISO_MODE_OFF)
		event_add(m->timer, &tv);
}

void isolation_on_run(void *arg, const struct osm_run_info *run)
{
	struct isolation_mod *m = arg;

	if (!run->ok || !run->isolated_version || run->isolated_version == m->applied_version)
		return;
	log_notice("isolation: OpenSM routed with the isolated set version %" PRIu64 " (%u links "
		   "left out) in %.2f s", run->isolated_version, run->isolated, run->secs);
	m->applied_version = run->isolated_version;
	m->applied_links = run->isolated;
}

void isolation_metrics(const struct isolation_mod *m, struct mt_buf *out)
{
	char line[64];

	mt_puts(out, "# HELP loom_isolation_applied_version The version of the isolated set "
		"OpenSM last routed with (as its loom plugin reported); no series before a "
		"report.\n# TYPE loom_isolation_applied_version gauge\n");
	if (m && m->applied_version) {
		snprintf(line, sizeof(line), "loom_isolation_applied_version %" PRIu64 "\n",
			 m->applied_version);
		mt_puts(out, line);
	}
}

void isolation_on_swept(void *arg, const char *subnet, struct fab *fab)
{
	struct isolation_mod *m = arg;

	if (swept_fabs_keep(&m->fabs, subnet, fab) >= 0)
		iso_evaluate(m);
}

void isolation_on_read(void *arg, const char *subnet, double at,
		       const struct counters_moved *moved, size_t n, size_t over)
{
	struct isolation_mod *m = arg;
	struct iso_pending *p;
	int idx;

	if (m->conf.iso_mode == ISO_MODE_OFF)
		return;
	if (over)
		log_warn("subnet %s: the errors of %zu ports moved in one read beyond the %zu "
			 "the isolation counts", subnet, over, n);
	if (n && (idx = iso_subnet_index(m, subnet)) >= 0) {
		if (m->n_pending == ISO_PENDING_MAX) {
			/* An evaluation stuck that long: the oldest read goes. */
			free(m->pending[0].v);
			memmove(&m->pending[0], &m->pending[1], (m->n_pending - 1) * sizeof(*p));
			m->n_pending--;
		}
		if (!(p = realloc(m->pending, (m->n_pending + 1) * sizeof(*p))))
			return;
		m->pending = p;
		p = &p[m->n_pending];
		if (!(p->v = malloc(n * sizeof(*moved))))
			return;
		memcpy(p->v, moved, n * sizeof(*moved));
		p->n = n;
		p->at = at;
		p->subnet = (unsigned)idx;
		m->n_pending++;
	}
	iso_evaluate(m);
}

/* ---- HA: a follower's mirror, a new leader's takeover (isolation_ha.c) ---------- */

void isolation_watch(void *arg, const json_t *records, int leading)
{
	struct isolation_mod *m = arg;
	const json_t *rec = records ? json_object_get(records, "set") : NULL;
	int rc;

	if (!rec)
		return;   /* etcd unread, or nothing isolated yet: keep what this node has */
	if ((rc = iso_ha_mirror(m->store, rec)) < 0) {
		log_err("isolation: the isolated set from etcd (version %" JSON_INTEGER_FORMAT ") "
			"cannot be stored: %s", json_integer_value(json_object_get(rec, "version")),
			strerror(-rc));
		return;
	}
	m->etcd_version = json_integer_value(json_object_get(rec, "version"));
	log_info("isolation: %s the isolated set version %" JSON_INTEGER_FORMAT " (%zu rows) from "
		 "etcd", leading ? "took over" : "mirrored",
		 json_integer_value(json_object_get(rec, "version")),
		 json_array_size(json_object_get(rec, "links")));
	iso_evaluate(m);
}

/* ---- commands -------------------------------------------------------------------- */

static void cmd_isolated(struct ctl_req *req, json_t *args, void *arg)
{
	struct isolation_mod *m = arg;
	char subnet[LOOM_NAME_LEN] = "";
	struct iso_rows rows;
	double now = clock_wall();
	json_t *list;
	int has_subnet, rc;
	int64_t version;

	if ((has_subnet = ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0)) < 0)
		return;
	if ((rc = store_iso_load(store_db(m->store), &rows)) < 0 ||
	    (version = store_iso_version(store_db(m->store))) < 0) {
		ctl_reply_errno(req, rc < 0 ? rc : -EIO, NULL, PROTO_ERR_INTERNAL,
				"cannot read the isolated links");
		return;
	}
	list = json_array();
	for (size_t i = 0; i < rows.n; i++)
		if (!has_subnet || !strcmp(rows.v[i].subnet, subnet))
			json_array_append_new(list, store_iso_row_json(&rows.v[i], now));
	store_iso_rows_free(&rows);
	ctl_reply_ok(req, json_pack("{s:s, s:I, s:I, s:i, s:o}", "mode",
				    iso_mode_name(m->conf.iso_mode), "version", (json_int_t)version,
				    "applied_version", (json_int_t)m->applied_version,
				    "applied_links", (int)m->applied_links, "links", list));
}

static void cmd_change(struct ctl_req *req, json_t *args, struct isolation_mod *m, int kind)
{
	const struct authz_principal *who = ctl_req_principal(req);
	struct iso_job *j;
	int rc;

	if (work_waiting(m->work) >= ISO_MAX_WAITING) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "%u isolation requests are waiting; try again "
			      "later", work_waiting(m->work));
		return;
	}
	if (!(j = job_new(m, kind, req))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	if (ctl_arg_string(req, args, "port", j->port, sizeof(j->port), 1) < 0 ||
	    ctl_arg_string(req, args, "subnet", j->subnet, sizeof(j->subnet), 0) < 0 ||
	    (kind == ISO_JOB_ISOLATE &&
	     (ctl_arg_string(req, args, "reason", j->reason, sizeof(j->reason), 1) < 0 ||
	      ctl_arg_bool(req, args, "force", &j->force) < 0))) {
		j->req = NULL;   /* answered */
		job_free(j);
		return;
	}
	snprintf(j->by, sizeof(j->by), "%s", who && who->name[0] ? who->name : "operator");
	if (!j->n) {
		j->req = NULL;
		job_free(j);
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no subnet was swept since loomd started: "
			      "try again after `loomctl discover --wait`");
		return;
	}
	if ((rc = work_submit(m->work, &job_ops, j)) < 0) {
		j->req = NULL;
		job_free(j);
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start it: %s", strerror(-rc));
	}
}

static void cmd_isolate(struct ctl_req *req, json_t *args, void *arg)
{
	cmd_change(req, args, arg, ISO_JOB_ISOLATE);
}

static void cmd_restore(struct ctl_req *req, json_t *args, void *arg)
{
	cmd_change(req, args, arg, ISO_JOB_RESTORE);
}

/* ---- the module ------------------------------------------------------------------ */

struct isolation_mod *isolation_new(struct event_base *base, const struct isolation_conf *conf,
				    const char *db_path, struct store *store, char *err,
				    size_t errlen)
{
	struct isolation_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	m->store = store;
	m->conf = *conf;
	m->file_version = -1;
	m->etcd_version = -1;
	snprintf(m->db_path, sizeof(m->db_path), "%s", db_path);
	if (!(m->win = iso_windows_new(ISO_WINDOW_PORTS)) ||
	    !(m->timer = event_new(base, -1, EV_PERSIST, on_timer, m))) {
		snprintf(err, errlen, "out of memory");
		isolation_free(m);
		return NULL;
	}
	if (!(m->work = work_queue_new(base, "isolation", 1, WORK_FIFO, err, errlen))) {
		isolation_free(m);
		return NULL;
	}
	timer_arm(m);
	return m;
}

void isolation_free(struct isolation_mod *m)
{
	if (!m)
		return;
	work_queue_free(m->work);   /* the job under way ends first */
	if (m->timer)
		event_free(m->timer);
	swept_fabs_clear(&m->fabs);
	pending_free(m->pending, m->n_pending);
	iso_windows_free(m->win);
	iso_bases_clear(m);
	nodename_map_free(m->site_names);
	free(m->told);
	free(m);
}

void isolation_reconfigure(struct isolation_mod *m, const struct isolation_conf *conf)
{
	int was = m->conf.iso_mode;

	m->conf = *conf;
	timer_arm(m);
	if (was != conf->iso_mode)
		log_notice("isolation: mode %s (was %s)", iso_mode_name(conf->iso_mode),
			   iso_mode_name(was));
	m->file_version = -1;   /* a new file path: written at the next evaluation */
	iso_evaluate(m);
}

int isolation_register(struct isolation_mod *m, struct ctl *ctl)
{
	m->ctl = ctl;
	if (ctl_handle(ctl, "link-isolated", cmd_isolated, m) < 0 ||
	    ctl_handle(ctl, "link-isolate", cmd_isolate, m) < 0 ||
	    ctl_handle(ctl, "link-restore", cmd_restore, m) < 0)
		return -1;
	return 0;
}

void isolation_set_slurm(struct isolation_mod *m, struct slurm_mod *slurm,
			 const struct hostmap_rule *hosts)
{
	m->slurm = slurm;
	if (hosts)
		m->hosts = *hosts;
}

void isolation_set_names(struct isolation_mod *m, struct nodename_map *names)
{
	nodename_map_free(m->site_names);
	m->site_names = nodename_map_hold(names);
}

void isolation_set_intent(struct isolation_mod *m, const struct intent_writer *w)
{
	m->intent = *w;
}

void isolation_set_job_index(struct isolation_mod *m, struct job_index *ix)
{
	m->jobs = ix;
}

void isolation_set_opensm(struct isolation_mod *m, struct osm_report *rep, const char *pid_file)
{
	m->osm = rep;
	snprintf(m->osm_pid_file, sizeof(m->osm_pid_file), "%s", pid_file ? pid_file : "");
}
