/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/switch_counters.c: see switch_counters.h. */
#include "autoconf.h"
#include "daemon/telemetry/switch_counters.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/roce/config_roce.h"
#include "lib/telemetry/port_alarms.h"
#include "daemon/core/ctl.h"
#include "daemon/core/plugin.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/roce/switch_open.h"
#include "daemon/telemetry/store_switch_counters.h"
#include "lib/db/switch_counters_db.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

/* What the loop last logged of a switch, so a read every interval logs a
 * change of state once, not every time. */
struct sw_seen {
	char name[LOOM_NAME_LEN];
	char reason[256];
	int known;
};

/* What it keeps of loom.yaml: the switches, plugins.dir, the alarms. */
struct sc_settings {
	struct switches_conf sw;
	char plugin_dir[PATH_MAX];
	struct port_thresholds thresholds;
};

struct switch_counters {
	struct event_base *base;
	struct store *store;            /* the loop's */
	struct sc_settings *conf;      /* a copy: the loop's */
	struct plugin_cache *plugins;   /* loaded once, kept: ops stay valid for jobs */
	struct work_queue *work;        /* one read at a time */
	struct sw_seen seen[LOOM_MAX_SWITCHES];
	switch_counters_fn observer;
	void *observer_ctx;
};

/* One switch's part of a read: its worker thread's. */
struct sw_read {
	struct loom_switch_conf sw;
	const struct loom_plugin_v1 *ops;    /* NULL: plugin_err */
	char plugin_err[512];
	pthread_t thread;
	int started;
	json_t *result;                       /* the read's member (store_switch_counters.h) */
	json_t *ports;                        /* result's "ports" */
	int oom;
};

struct sc_job {
	struct switch_counters *sc;
	struct ctl_req *req;                  /* NULL: the interval's read */
	char db_path[PATH_MAX];
	char only_switch[LOOM_NAME_LEN], only_port[LOOM_NAME_LEN];
	int has_switch, has_port;
	struct sw_read *reads;
	size_t n;
	json_t *observed;                     /* ports as recorded, for the observer */
	struct port_thresholds thresholds;    /* telemetry.thresholds, for the alarms */
	json_t *answer;                       /* for req */
	int recorded;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- worker threads ---------------------------------------------------------- */

/* The port's member of r->ports, made on first use. */
static json_t *port_of(struct sw_read *r, const char *port)
{
	json_t *p = json_object_get(r->ports, port);

	if (p)
		return p;
	p = json_pack("{s:{}, s:{}, s:{}}", "counters", "bits", "gauges");
	if (!p || json_object_set_new(r->ports, port, p) < 0)
		return NULL;
	return p;
}

static int on_counter(void *ctx, const struct lp_counter *c)
{
	struct sw_read *r = ctx;
	char name[LP_NAME_LEN + 8];
	json_t *p;

	if (!c->port || !c->name || !c->port[0] || strlen(c->port) >= LP_NAME_LEN ||
	    strlen(c->name) >= LP_NAME_LEN || c->index > 7 || c->bits < 1 || c->bits > 64)
		return 0;       /* not a counter loom can name: left out */
	if (c->scope == LP_COUNTER_PRIORITY)
		snprintf(name, sizeof(name), "%s.p%u", c->name, c->index);
	else if (c->scope == LP_COUNTER_QUEUE)
		snprintf(name, sizeof(name), "%s.q%u", c->name, c->index);
	else
		snprintf(name, sizeof(name), "%s", c->name);
	if (!(p = port_of(r, c->port))) {
		r->oom = 1;
		return -ENOMEM;
	}
	if (json_object_get(p, "error"))
		return 0;       /* the plugin said the port is unreadable */
	if (c->gauge)
		json_object_set_new(json_object_get(p, "gauges"), name,
				    json_integer((json_int_t)c->value));
	else {
		json_object_set_new(json_object_get(p, "counters"), name,
				    json_integer((json_int_t)c->value));
		json_object_set_new(json_object_get(p, "bits"), name, json_integer(c->bits));
	}
	return 0;
}

static int on_port_error(void *ctx, const char *port, const char *reason)
{
	struct sw_read *r = ctx;

	if (!port || !port[0] || strlen(port) >= LP_NAME_LEN)
		return 0;
	/* Whatever came before for it goes: a port is read whole or not. */
	if (json_object_set_new(r->ports, port, json_pack("{s:s}", "error",
							  reason && reason[0] ? reason :
							  "the plugin could not read it")) < 0) {
		r->oom = 1;
		return -ENOMEM;
	}
	return 0;
}

static void *read_switch(void *arg)
{
	struct sw_read *r = arg;
	struct lp_counter_sink sink = { r, on_counter, on_port_error };
	lp_counters_read_fn fn = plugin_counters_op(r->ops);
	struct lp_switch *h = NULL;
	char err[1024] = "";
	double started = now_s();
	int rc;

	r->ports = json_object();
	if (!r->ops) {
		rc = -ENOENT;
		snprintf(err, sizeof(err), "%s", r->plugin_err);
	} else if (!fn) {
		rc = -ENOTSUP;
		snprintf(err, sizeof(err), "plugin %s (ABI %u) has no counters operation",
			 r->sw.plugin, r->ops->abi);
	} else if ((rc = switch_open(r->ops, &r->sw, &h, err, sizeof(err))) == 0) {
		rc = fn(h, &sink, err, sizeof(err));
		if (rc == 0 && r->oom) {
			rc = -ENOMEM;
			snprintf(err, sizeof(err), "out of memory");
		}
		if (rc && !err[0])
			snprintf(err, sizeof(err), "the plugin's counters read failed: %s",
				 strerror(rc < 0 ? -rc : EIO));
		r->ops->close(h);
	}
	if (rc) {
		json_decref(r->ports);
		r->ports = json_object();
	}
	r->result = json_pack("{s:s, s:s, s:f, s:f, s:b, s:s, s:O}", "switch", r->sw.name,
			      "plugin", r->sw.plugin, "started", started, "finished", now_s(),
			      "answered", rc == 0, "reason", rc ? err : "", "ports", r->ports);
	return NULL;
}

static int job_run(void *arg, char *err, size_t errlen)
{
	struct sc_job *j = arg;
	json_t *reads = json_array();
	struct store *st;
	int rc = 0;

	for (size_t first = 0; first < j->n; first += SWITCH_COUNTERS_PARALLEL) {
		size_t last = first + SWITCH_COUNTERS_PARALLEL < j->n ? first +
			SWITCH_COUNTERS_PARALLEL : j->n;

		for (size_t i = first; i < last; i++)
			j->reads[i].started = pthread_create(&j->reads[i].thread, NULL,
							     read_switch, &j->reads[i]) == 0;
		for (size_t i = first; i < last; i++) {
			if (j->reads[i].started)
				pthread_join(j->reads[i].thread, NULL);
			else /* no thread: read it here */
				read_switch(&j->reads[i]);
		}
	}
	for (size_t i = 0; i < j->n && reads; i++)
		if (!j->reads[i].result || json_array_append(reads, j->reads[i].result) < 0) {
			json_decref(reads);
			reads = NULL;
		}
	if (!reads) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	j->observed = json_array();
	if (!(st = store_open(j->db_path, err, errlen))) {
		json_decref(reads);
		return -EIO;
	}
	if ((rc = store_record_switch_counters(st, &j->thresholds, reads, now_s(),
					       j->observed)) < 0)
		snprintf(err, errlen, "the switch counters were read but not recorded: %s",
			 strerror(-rc));
	else
		j->recorded = 1;
	if (rc == 0 && j->req)
		rc = switch_counters_db_read(store_db(st), j->has_switch ? j->only_switch : NULL,
					     j->has_port ? j->only_port : NULL, &j->answer, err,
					     errlen);
	store_close(st);
	json_decref(reads);
	return rc;
}

/* ---- the loop -------------------------------------------------------------- */

static struct sw_seen *seen_of(struct switch_counters *sc, const char *name)
{
	struct sw_seen *free_slot = NULL;

	for (int i = 0; i < LOOM_MAX_SWITCHES; i++) {
		if (sc->seen[i].known && !strcmp(sc->seen[i].name, name))
			return &sc->seen[i];
		if (!sc->seen[i].known && !free_slot)
			free_slot = &sc->seen[i];
	}
	if (free_slot) {
		memset(free_slot, 0, sizeof(*free_slot));
		snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
		free_slot->known = 1;
		free_slot->reason[0] = '\1';    /* nothing logged yet */
	}
	return free_slot;
}

/* Log each switch's state when it changes. */
static void log_states(struct switch_counters *sc, const struct sc_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		const json_t *r = j->reads[i].result;
		const char *reason = json_string_value(json_object_get(r, "reason"));
		struct sw_seen *s = seen_of(sc, j->reads[i].sw.name);
		size_t bad = 0, n = 0;
		const char *port;
		json_t *p;

		if (!r || !reason)
			continue;
		json_object_foreach(json_object_get(r, "ports"), port, p) {
			n++;
			bad += json_object_get(p, "error") != NULL;
		}
		if (reason[0] && (!s || strncmp(s->reason, reason, sizeof(s->reason) - 1)))
			log_warn("switch %s: counters not read: %s", j->reads[i].sw.name, reason);
		else if (!reason[0] && (!s || s->reason[0]))
			log_info("switch %s: counters of %zu ports read (%zu unreadable)",
				 j->reads[i].sw.name, n - bad, bad);
		if (s)
			snprintf(s->reason, sizeof(s->reason), "%s", reason);
	}
}

static void job_done(void *arg, int rc, const char *err)
{
	struct sc_job *j = arg;
	struct switch_counters *sc = j->sc;

	if (rc != -ECANCELED)
		log_states(sc, j);
	if (j->recorded && sc->observer) {
		size_t i;
		json_t *p;

		json_array_foreach(j->observed, i, p)
			sc->observer(sc->observer_ctx, p);
	}
	if (j->req) {
		ctl_reply_errno(j->req, rc, j->answer, PROTO_ERR_INTERNAL, err);
		j->answer = NULL;
	} else if (rc < 0) {
		log_warn("switch counters: %s", err);
	}
}

static void job_free(void *arg)
{
	struct sc_job *j = arg;

	for (size_t i = 0; i < j->n; i++) {
		json_decref(j->reads[i].result);
		json_decref(j->reads[i].ports);
	}
	free(j->reads);
	json_decref(j->observed);
	json_decref(j->answer);
	free(j);
}

static const struct work_ops job_ops = { .run = job_run, .done = job_done, .free = job_free };

static struct sc_job *sc_job_new(struct switch_counters *sc)
{
	const struct sc_settings *c = sc->conf;
	struct sc_job *j = calloc(1, sizeof(*j));

	if (!j || !(j->reads = calloc((size_t)c->sw.n_switches + 1, sizeof(*j->reads)))) {
		free(j);
		return NULL;
	}
	j->sc = sc;
	snprintf(j->db_path, sizeof(j->db_path), "%s", store_path(sc->store));
	j->thresholds = c->thresholds;
	for (int i = 0; i < c->sw.n_switches; i++) {
		struct sw_read *r = &j->reads[j->n++];

		r->sw = c->sw.switches[i];
		r->ops = plugin_cache_get(sc->plugins, c->plugin_dir, r->sw.plugin, r->plugin_err,
					  sizeof(r->plugin_err));
	}
	return j;
}

void switch_counters_tick(struct switch_counters *sc)
{
	struct sc_job *j;

	if (!sc || !sc->conf->sw.n_switches || work_full(sc->work))
		return;         /* none, or a read still under way: this interval is skipped */
	if (!(j = sc_job_new(sc))) {
		log_err("switch counters: out of memory");
		return;
	}
	if (work_submit(sc->work, &job_ops, j) < 0)
		job_free(j);
}

static void cmd_switch_counters(struct ctl_req *req, json_t *args, void *arg)
{
	struct switch_counters *sc = arg;
	char sw[LOOM_NAME_LEN], port[LOOM_NAME_LEN], err[512] = "";
	int now = 0, has_sw, has_port, rc;
	json_t *result = NULL;
	struct sc_job *j;

	if (ctl_arg_bool(req, args, "now", &now) < 0 ||
	    (has_sw = ctl_arg_string(req, args, "switch", sw, sizeof(sw), 0)) < 0 ||
	    (has_port = ctl_arg_string(req, args, "port", port, sizeof(port), 0)) < 0)
		return;
	if (!now) {
		rc = switch_counters_db_read(store_db(sc->store), has_sw ? sw : NULL,
					     has_port ? port : NULL, &result, err, sizeof(err));
		ctl_reply_errno(req, rc, result, PROTO_ERR_INTERNAL, err);
		return;
	}
	if (!sc->conf->sw.n_switches) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no switches are configured (loom.yaml "
			      "switches:, see loom.yaml(5))");
		return;
	}
	if (!(j = sc_job_new(sc))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	j->req = req;
	if ((j->has_switch = has_sw))
		memcpy(j->only_switch, sw, sizeof(sw));
	if ((j->has_port = has_port))
		memcpy(j->only_port, port, sizeof(port));
	if ((rc = work_submit(sc->work, &job_ops, j)) < 0) {
		if (rc == -EBUSY)
			ctl_reply_err(req, PROTO_ERR_BUSY, "a switch counters read is under way; try "
				      "again when it is done (or leave out --now)");
		else
			ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a thread: %s",
				      strerror(-rc));
		j->req = NULL;
		job_free(j);
	}
}

/* ---- life cycle ------------------------------------------------------------ */

/* A copy of what it reads, or NULL. */
static struct sc_settings *settings_new(const struct switches_conf *switches,
					const char *plugin_dir, const struct port_thresholds *th)
{
	struct sc_settings *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	c->sw = *switches;
	snprintf(c->plugin_dir, sizeof(c->plugin_dir), "%s", plugin_dir);
	c->thresholds = *th;
	return c;
}

void switch_counters_reconfigure(struct switch_counters *sc, const struct switches_conf *switches,
				 const char *plugin_dir, const struct port_thresholds *th)
{
	struct sc_settings *c;

	if (!sc)
		return;
	if (!(c = settings_new(switches, plugin_dir, th))) {
		log_err("reload: out of memory for the switch counters; the previous switches stay");
		return;
	}
	free(sc->conf);
	sc->conf = c;
}

struct switch_counters *switch_counters_new(struct event_base *base,
					    const struct switches_conf *switches,
					    const char *plugin_dir, const struct port_thresholds *th,
					    struct store *store, char *err, size_t errlen)
{
	struct switch_counters *sc = calloc(1, sizeof(*sc));

	if (!sc || !(sc->conf = settings_new(switches, plugin_dir, th)) ||
	    !(sc->plugins = plugin_cache_new())) {
		if (sc)
			free(sc->conf);
		free(sc);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sc->base = base;
	sc->store = store;
	if (!(sc->work = work_queue_new(base, "switch counters read", 1, WORK_REFUSE, err,
					errlen))) {
		switch_counters_free(sc);
		return NULL;
	}
	return sc;
}

void switch_counters_free(struct switch_counters *sc)
{
	if (!sc)
		return;
	work_queue_free(sc->work);   /* first: jobs use the plugins */
	plugin_cache_free(sc->plugins);
	free(sc->conf);
	free(sc);
}

void switch_counters_observe(struct switch_counters *sc, switch_counters_fn fn, void *ctx)
{
	sc->observer = fn;
	sc->observer_ctx = ctx;
}

int switch_counters_register(struct switch_counters *sc, struct ctl *ctl)
{
	return ctl_handle(ctl, "switch_counters", cmd_switch_counters, sc);
}
