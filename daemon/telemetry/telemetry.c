/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/telemetry.c: see telemetry.h. */
#include "autoconf.h"
#include "daemon/telemetry/telemetry.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/core/authz.h"
#include "daemon/core/config.h"
#include "daemon/telemetry/config_telemetry.h"
#include "daemon/core/ctl.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/ib/store_sweep.h"
#include "daemon/ib/swept_subnets.h"
#include "daemon/telemetry/counters_read.h"
#include "daemon/telemetry/history.h"
#include "daemon/telemetry/job_impact.h"
#include "daemon/telemetry/store_counters.h"
#include "daemon/telemetry/switch_counters.h"
#include "lib/db/counters_db.h"
#include "lib/db/health_db.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

/* What a subnet's last read found, handed to the next (counters_read_run's
 * known). Its PMAs' capabilities (ClassPortInfo), until TELEMETRY_CPI_READS
 * reads have used them: then every PMA is asked again, so that a changed
 * PMA (new firmware on the same LID) is seen within that many reads; a new
 * node or a new LID is asked at once. Its switches' PortCounters sums, from
 * one read to the next only: those whose sum did not move get no
 * PortCounters per port. They are dropped when the read could not be
 * recorded, or when a port that kept its counters had no stored sample.
 * The detail attributes (issue 42) are asked on the first read and then
 * every telemetry.details_every reads; a PMA that refused one is asked it
 * again with its capabilities. */
#define TELEMETRY_CPI_READS 30
struct cpi_cache {
	char subnet[LOOM_NAME_LEN];
	struct counters_answer known; /* pmas and sums */
	unsigned reads;               /* reads that used the pmas */
	unsigned detail_reads;        /* reads since the details were read */
};

/* What the module keeps of loom.yaml: telemetry:'s keys, the MAD limits
 * (max_smps: telemetry.max_in_flight when set) and the database a read's
 * job records into. */
struct telemetry_settings {
	int interval_s, clear, max_answer_ports, window_s, details_every;
	struct port_thresholds thresholds;
	struct swept_mad mad;
	char db_path[PATH_MAX];
};

static void settings_of(const struct telemetry_inputs *in, const struct store *st,
			struct telemetry_settings *s)
{
	const struct telemetry_conf *c = in->conf;

	s->interval_s = c->telemetry_interval_s;
	s->clear = c->telemetry_clear_counters;
	s->max_answer_ports = c->telemetry_max_answer_ports;
	s->window_s = c->telemetry_window_s;
	s->details_every = c->telemetry_details_every;
	s->thresholds = c->telemetry_thresholds;
	s->mad = *in->mad;
	if (c->telemetry_max_in_flight > 0)
		s->mad.max_smps = c->telemetry_max_in_flight;
	snprintf(s->db_path, sizeof(s->db_path), "%s", store_path(st));
}

struct telemetry_mod {
	struct event_base *base;
	struct store *store;          /* the loop's: which subnets were swept */
	struct telemetry_settings set; /* its keys of loom.yaml (no whole copy) */
	struct event *timer;
	struct work_queue *work;      /* one read at a time */
	struct switch_counters *sc;   /* the Ethernet switches' (switch_counters.h) */
	struct cpi_cache *cpi;        /* per subnet; touched by the read jobs only */
	size_t n_cpi;
	telemetry_flap_fn on_flap;    /* told of links that went down between reads */
	void *on_flap_arg;
	telemetry_read_fn on_read;    /* told of the ports whose errors moved */
	void *on_read_arg;
	struct job_impact *ji;        /* the jobs on each link (job_impact.h) */
	struct history *hist;         /* the last reads of each port (history.h) */
};

/* A read of every swept subnet, and (for "counters") the answer after it. */
struct read_job {
	struct telemetry_mod *m;
	struct ctl_req *req;          /* NULL: the interval's read */
	char db_path[PATH_MAX];
	struct port_thresholds thresholds;
	int clear;                    /* telemetry.clear_counters */
	int details_every;            /* telemetry.details_every */
	struct swept_subnets sub;
	char subnet[LOOM_NAME_LEN], node[FAB_DESC_LEN + 1];
	int has_subnet, has_node;
	unsigned port;
	json_t *result;
	struct counters_recorded rec[LOOM_MAX_SUBNETS];  /* per sub.names, for on_flap */
};

/* ---- the worker thread --------------------------------------------------- */

/* The subnet's capabilities cache, made when missing (NULL: out of memory). */
static struct cpi_cache *cpi_of(struct telemetry_mod *m, const char *subnet)
{
	struct cpi_cache *c;

	for (size_t i = 0; i < m->n_cpi; i++)
		if (!strcmp(m->cpi[i].subnet, subnet))
			return &m->cpi[i];
	if (!(c = realloc(m->cpi, (m->n_cpi + 1) * sizeof(*c))))
		return NULL;
	m->cpi = c;
	c = memset(&m->cpi[m->n_cpi++], 0, sizeof(*c));
	snprintf(c->subnet, sizeof(c->subnet), "%s", subnet);
	return c;
}

static int read_subnet(struct telemetry_mod *m, struct store *st, const struct disc_ib_params *p,
		       const struct port_thresholds *t, int clear, int details_every,
		       struct counters_recorded *out)
{
	struct counters_answer a;
	char err[512] = "";
	struct counters_recorded *rec = out;
	struct cpi_cache *cpi = cpi_of(m, p->subnet);
	/* The last sweep's fabric: the child reads the PMAs of its ports
	 * without walking the subnet again (it walks when there is none). */
	double t0 = clock_mono(), t1, t2;
	struct fab *fab = store_load_fabric(st, p->subnet, err, sizeof(err));
	int rc;

	t1 = clock_mono();
	if (fab)
		log_debug("subnet %s: counters read of the last sweep's fabric (%zu nodes, loaded "
			  "in %.0f ms)", p->subnet, fab->n_nodes, (t1 - t0) * 1000.0);
	else
		log_notice("subnet %s: no stored fabric (%s): the counters read walks it first",
			   p->subnet, err);
	if (cpi && cpi->reads >= TELEMETRY_CPI_READS)
		cpi->known.n_pmas = cpi->reads = 0;  /* ask every PMA again */
	if (cpi) {
		cpi->known.details = details_every > 0 && cpi->detail_reads % (unsigned)details_every
				     == 0 ? PMA_DA_ALL : 0;
		cpi->detail_reads = details_every > 0 ? (cpi->detail_reads + 1) %
							 (unsigned)details_every : 0;
	}
	rc = counters_read_run(p, fab, clear, cpi ? &cpi->known : NULL, &a, err, sizeof(err));
	fab_free(fab);
	t2 = clock_mono();
	if (rc < 0) {
		log_warn("subnet %s: cannot read the port counters: %s", p->subnet, err);
		return rc;
	}
	log_debug("subnet %s: the reader and its answer took %.0f ms (%zu PMAs' capabilities "
		  "and %zu switches' sums known before)", p->subnet, (t2 - t1) * 1000.0,
		  cpi ? cpi->known.n_pmas : 0, cpi ? cpi->known.n_sums : 0);
	if (cpi) {
		/* The answer's capabilities and sums replace the cache's. */
		cpi->reads = cpi->known.n_pmas ? cpi->reads + 1 : 0;
		counters_answer_free(&cpi->known);
		cpi->known.pmas = a.pmas;
		cpi->known.n_pmas = a.n_pmas;
		cpi->known.sums = a.sums;
		cpi->known.n_sums = a.n_sums;
		a.pmas = NULL;
		a.sums = NULL;
		a.n_pmas = a.n_sums = 0;
	}
	/* The alarms' events name the jobs the index knows on their links. */
	rc = store_record_counters_jobs(st, p->subnet, t, &a, rec, job_impact_index(m->ji),
					history_store(m->hist));
	if (rc == 0 && rec->history_refused)
		log_warn("subnet %s: %zu ports' reads not kept in memory: telemetry.history_mib "
			 "is full (port-history has none for them)", p->subnet,
			 rec->history_refused);
	if (cpi && (rc < 0 || rec->unsure)) {
		/* The next read reads every port's PortCounters. */
		free(cpi->known.sums);
		cpi->known.sums = NULL;
		cpi->known.n_sums = 0;
	}
	if (rc < 0)
		log_err("subnet %s: the counters were read but not recorded: %s", p->subnet,
			strerror(-rc));
	else
		log_info("subnet %s: counters of %zu ports read (%zu behind an unchanged switch "
			 "sum), %llu PMA Gets in %.0f ms (%llu of detail attributes), %zu not "
			 "answered; alarms: %zu raised, %zu cleared", p->subnet, a.n_ports, rec->same,
			 (unsigned long long)a.done.mads,
			 (a.done.finished - a.done.started) * 1000.0,
			 (unsigned long long)a.done.detail_mads, rec->stale, rec->raised,
			 rec->cleared);
	counters_answer_free(&a);
	return rc;
}

static int job_run(void *job, char *err, size_t errlen)
{
	struct read_job *j = job;
	struct store *st;
	int rc = 0, failed = 0;

	if (!(st = store_open(j->db_path, err, errlen)))
		return -EIO;
	for (size_t i = 0; i < j->sub.n; i++)
		if ((!j->has_subnet || !strcmp(j->sub.names[i], j->subnet)) &&
		    read_subnet(j->m, st, &j->sub.p[i], &j->thresholds, j->clear, j->details_every,
				&j->rec[i]) < 0)
			failed++;
	if (j->req)
		rc = counters_db_read(store_db(st), j->has_subnet ? j->subnet : NULL,
				      j->has_node ? j->node : NULL, j->port, &j->result, err,
				      errlen);
	else if (failed)
		rc = -EIO;
	store_close(st);
	if (rc == 0 && failed && j->result)
		json_object_set_new(j->result, "warning",
				    json_string("a subnet could not be read now: see loomd's log; "
						"its counters are the last read's"));
	return rc;
}

/* ---- the loop -------------------------------------------------------------- */

/* Links that went down and came back between two reads: discovery walks
 * them again (their width or speed may have changed). */
static void tell_flaps(struct read_job *j)
{
	struct telemetry_mod *m = j->m;

	if (!m->on_flap)
		return;
	for (size_t i = 0; i < j->sub.n; i++) {
		const struct counters_recorded *r = &j->rec[i];

		if (r->flapped > COUNTERS_FLAPPED_MAX) {
			log_info("subnet %s: the LinkDownedCounter of %zu ports moved since the last "
				 "read", j->sub.names[i], r->flapped);
			m->on_flap(m->on_flap_arg, j->sub.names[i], 0, 0);
			continue;
		}
		for (size_t k = 0; k < r->flapped; k++)
			m->on_flap(m->on_flap_arg, j->sub.names[i], r->flapped_port[k].guid,
				   r->flapped_port[k].port);
	}
}

/* The ports whose errors moved, subnet by subnet (the recorded ones). */
static void tell_reads(struct read_job *j)
{
	struct telemetry_mod *m = j->m;

	if (!m->on_read)
		return;
	for (size_t i = 0; i < j->sub.n; i++)
		if (j->rec[i].read_at > 0)
			m->on_read(m->on_read_arg, j->sub.names[i], j->rec[i].read_at,
				   j->rec[i].moved, j->rec[i].n_moved, j->rec[i].n_moved_over);
}

static void job_done(void *job, int rc, const char *err)
{
	struct read_job *j = job;

	tell_flaps(j);
	tell_reads(j);
	if (j->req)
		ctl_reply_errno(j->req, rc, j->result, PROTO_ERR_INTERNAL, err);
	else if (rc < 0 && rc != -EIO)
		log_warn("counters: %s", err);
	j->result = NULL;
	/* Tenants or tables may have changed since: the next read's events
	 * see the index as it is now. */
	job_impact_refresh(j->m->ji);
}

static void job_free(void *job)
{
	struct read_job *j = job;

	json_decref(j->result);
	for (size_t i = 0; i < LOOM_MAX_SUBNETS; i++)
		counters_recorded_clear(&j->rec[i]);
	free(j);
}

static const struct work_ops job_ops = { .run = job_run, .done = job_done, .free = job_free };

static struct read_job *read_job_new(struct telemetry_mod *m)
{
	struct read_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->m = m;
	snprintf(j->db_path, sizeof(j->db_path), "%s", m->set.db_path);
	j->thresholds = m->set.thresholds;
	j->clear = m->set.clear;
	j->details_every = m->set.details_every;
	if (swept_subnets_get(m->store, &m->set.mad, &j->sub) < 0) {
		free(j);
		return NULL;
	}
	return j;
}

static void arm(struct telemetry_mod *m)
{
	struct timeval tv = { m->set.interval_s, 0 };

	if (m->set.interval_s > 0)
		evtimer_add(m->timer, &tv);
	else
		evtimer_del(m->timer);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct telemetry_mod *m = arg;
	struct read_job *j;

	(void)fd;
	(void)what;
	arm(m);
	switch_counters_tick(m->sc);
	/* A read still under way (a slow subnet, or one asked for): this
	 * interval is skipped, not queued. */
	if (work_full(m->work) || !(j = read_job_new(m)))
		return;
	if (!j->sub.n || work_submit(m->work, &job_ops, j) < 0)
		free(j);
}

/* Is req's principal above role read (root, the admin group, a tenant
 * writer, an admin token)? 1 or 0. */
static int trusted(const struct ctl_req *req)
{
	const struct authz_principal *p = ctl_req_principal(req);

	return p && p->role > AUTHZ_READ;
}

/* A whole-fabric answer larger than telemetry.max_answer_ports is refused
 * before it is built: at 70k ports it would hold the loop for seconds and
 * take about 200 MB of JSON (loomctl then says how to ask for less). 1
 * when refused. */
static int too_many(struct telemetry_mod *m, struct ctl_req *req, const char *subnet)
{
	long long n = 0;
	char err[256] = "";

	if (counters_db_count(store_db(m->store), subnet, &n, err, sizeof(err)) < 0 ||
	    n <= m->set.max_answer_ports)
		return 0;
	ctl_reply_err(req, PROTO_ERR_TOO_LARGE, "the counters of %lld ports are more than one "
		      "answer gives (telemetry.max_answer_ports %d): ask for one node or port, the "
		      "busiest ports (\"top\" with \"sort\"), or read the database", n,
		      m->set.max_answer_ports);
	return 1;
}

static void cmd_counters(struct ctl_req *req, json_t *args, void *arg)
{
	struct telemetry_mod *m = arg;
	char subnet[LOOM_NAME_LEN], node[FAB_DESC_LEN + 1], sort[16], err[512] = "";
	json_int_t port = 0, top = 0;
	int now = 0, has_subnet, has_node, has_sort, rc;
	json_t *result = NULL;
	struct read_job *j;

	if (ctl_arg_bool(req, args, "now", &now) < 0 ||
	    (has_subnet = ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0)) < 0 ||
	    (has_node = ctl_arg_string(req, args, "node", node, sizeof(node), 0)) < 0 ||
	    ctl_arg_count(req, args, "port", 254, &port) < 0)
		return;
	if ((has_sort = ctl_arg_string(req, args, "sort", sort, sizeof(sort), 0)) < 0 ||
	    ctl_arg_count(req, args, "top", 1000000, &top) < 0)
		return;
	if (has_sort && (now || has_node || port)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"sort\" goes with neither \"now\", "
			      "\"node\" nor \"port\"");
		return;
	}
	if (has_sort) {
		/* The busiest ports, sorted and cut by the query. */
		rc = counters_db_top(store_db(m->store), has_subnet ? subnet : NULL, sort,
				     (unsigned)top, &result, err, sizeof(err));
		ctl_reply_errno(req, rc, result, rc == -EINVAL ? PROTO_ERR_BADREQ :
				PROTO_ERR_INTERNAL, err);
		return;
	}
	if (!has_node && !port && too_many(m, req, has_subnet ? subnet : NULL))
		return;
	if (!now) {
		/* The stored counters: a query on the loop's connection. */
		rc = counters_db_read(store_db(m->store), has_subnet ? subnet : NULL,
				      has_node ? node : NULL, (unsigned)port, &result, err,
				      sizeof(err));
		ctl_reply_errno(req, rc, result, PROTO_ERR_INTERNAL, err);
		return;
	}
	if (!(j = read_job_new(m))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot read the swept subnets");
		return;
	}
	if (!j->sub.n) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no InfiniBand subnet was swept yet");
		free(j);
		return;
	}
	j->req = req;
	j->port = (unsigned)port;
	if ((j->has_subnet = has_subnet))
		memcpy(j->subnet, subnet, sizeof(subnet));
	if ((j->has_node = has_node))
		memcpy(j->node, node, sizeof(node));
	/* A reader gets "busy" while a read is under way; root, the admin
	 * group and the tenant writers wait their turn instead: no local
	 * user's loop may starve them (issue 37). */
	if (!trusted(req) && work_full(m->work))
		rc = -EBUSY;
	else
		rc = work_submit(m->work, &job_ops, j);
	if (rc < 0) {
		if (rc == -EBUSY)
			ctl_reply_err(req, PROTO_ERR_BUSY, "a counters read is under way; try again "
				      "when it is done (or leave out --now)");
		else
			ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a thread: %s",
				      strerror(-rc));
		free(j);
	}
}

/* The fabric's health from the last reads, with the jobs on each row: on
 * job_impact's queue (the lists are bounded by "top"). */
static void cmd_health(struct ctl_req *req, json_t *args, void *arg)
{
	struct telemetry_mod *m = arg;
	char subnet[LOOM_NAME_LEN];
	json_int_t top = 10, window = 0;
	int has_subnet;

	if ((has_subnet = ctl_arg_string(req, args, "subnet", subnet, sizeof(subnet), 0)) < 0 ||
	    ctl_arg_count(req, args, "top", 10000, &top) < 0 ||
	    ctl_arg_count(req, args, "window_s", 31 * 86400, &window) < 0)
		return;
	/* the client's --window, else telemetry.window_s */
	job_impact_health(m->ji, req, has_subnet ? subnet : NULL, top > 0 ? (unsigned)top : 10,
			  window > 0 ? (unsigned)window : (unsigned)m->set.window_s);
}

/* ---- life cycle ------------------------------------------------------------ */

void telemetry_reconfigure(struct telemetry_mod *m, const struct telemetry_inputs *in)
{
	settings_of(in, m->store, &m->set);
	switch_counters_reconfigure(m->sc, in->switches, in->plugin_dir,
				    &in->conf->telemetry_thresholds);
	job_impact_reconfigure(m->ji, in->hosts);
	history_reconfigure(m->hist, (unsigned)in->conf->telemetry_history_reads,
			    (unsigned)in->conf->telemetry_history_mib, in->prometheus_url);
	arm(m);
}

void telemetry_on_read(struct telemetry_mod *m, telemetry_read_fn fn, void *arg)
{
	m->on_read = fn;
	m->on_read_arg = arg;
}

void telemetry_on_flap(struct telemetry_mod *m, telemetry_flap_fn fn, void *arg)
{
	m->on_flap = fn;
	m->on_flap_arg = arg;
}

struct telemetry_mod *telemetry_new(struct event_base *base, const struct telemetry_inputs *in,
				    struct store *store, char *err, size_t errlen)
{
	struct telemetry_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	settings_of(in, store, &m->set);
	m->base = base;
	m->store = store;
	if (!(m->timer = evtimer_new(base, on_timer, m))) {
		snprintf(err, errlen, "cannot create the counters timer");
		goto fail;
	}
	/* One read at a time; the timer and readers skip or refuse a full
	 * queue (work_full), trusted principals queue behind it. */
	if (!(m->work = work_queue_new(base, "counters read", 1, WORK_FIFO, err, errlen)) ||
	    !(m->sc = switch_counters_new(base, in->switches, in->plugin_dir,
					  &in->conf->telemetry_thresholds, store, err, errlen)) ||
	    !(m->ji = job_impact_new(base, in->hosts, store, err, errlen)) ||
	    !(m->hist = history_new(base, store, (unsigned)in->conf->telemetry_history_reads,
				    (unsigned)in->conf->telemetry_history_mib, in->prometheus_url,
				    err, errlen)))
		goto fail;
	arm(m);
	return m;
fail:
	telemetry_free(m);
	return NULL;
}

void telemetry_free(struct telemetry_mod *m)
{
	if (!m)
		return;
	work_queue_free(m->work);
	history_free(m->hist);      /* after the reads, which fill it */
	job_impact_free(m->ji);     /* after the reads: their alarms use its index */
	switch_counters_free(m->sc);
	if (m->timer)
		event_free(m->timer);
	for (size_t i = 0; i < m->n_cpi; i++)
		counters_answer_free(&m->cpi[i].known);
	free(m->cpi);
	free(m);
}

int telemetry_register(struct telemetry_mod *m, struct ctl *ctl)
{
	int rc = ctl_handle(ctl, "counters", cmd_counters, m);

	if (rc == 0)
		rc = ctl_handle(ctl, "health", cmd_health, m);
	if (rc == 0)
		rc = job_impact_register(m->ji, ctl);
	if (rc == 0)
		rc = history_register(m->hist, ctl);
	return rc < 0 ? rc : switch_counters_register(m->sc, ctl);
}

struct job_index *telemetry_job_index(struct telemetry_mod *m)
{
	return job_impact_index(m->ji);
}
