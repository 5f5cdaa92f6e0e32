/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos.c: "qos-plan", "qos-status" and "qos-apply" (see qos.h).
 *
 * A request is a job of daemon/core/work.h, which runs one thread per switch
 * and joins them; back on the loop it is answered (as daemon/routing/routes.c
 * does). Every switch thread opens
 * its own plugin handle, so no handle is ever used by two threads. Plugins
 * are loaded by the loop, once per name, and stay loaded until qos_free():
 * a request never sees one unloaded under it.
 *
 * The loop also keeps each switch's last known state. A change of state
 * (in policy, drifted, unreachable, partial) is an event in the store
 * (kind qos_state), and so is every apply that changed keys (qos_applied).
 * Every roce.interval seconds all switches are read back (status), or,
 * with roce.reapply, the policy is applied again (a drifted switch is put
 * back, the keys that drifted named in the event). A switch whose apply
 * failed (partial or unreachable) is tried again after 5 s, then 10, 20,
 * ... up to 5 minutes, until it is in policy. */
#include "autoconf.h"
#include "daemon/qos/qos.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <jansson.h>

#include "lib/util/clock.h"
#include "daemon/roce/config_roce.h"
#include "daemon/core/ctl.h"
#include "daemon/core/intent.h"
#include "lib/util/log.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "lib/qos/qos_policy.h"
#include "daemon/core/store.h"
#include "daemon/qos/qos_intent.h"
#include "daemon/roce/store_switches.h"
#include "daemon/roce/switch_open.h"

#define QOS_RETRY_FIRST_S 5
#define QOS_RETRY_MAX_S 300

enum qos_mode { QOS_PLAN, QOS_STATUS, QOS_APPLY };

/* Requests under way at once; more wait their turn (loomd's own periodic
 * ones and a retry per switch are among them). */
#define QOS_MAX_REQUESTS 64

static const char *const mode_names[] = { "plan", "status", "apply" };

/* One switch of a request. */
struct qjob {
	enum qos_mode mode;
	struct loom_switch_conf sw;
	struct qos_policy policy;          /* the fabric's, with the switch's overrides */
	const struct loom_plugin_v1 *ops;  /* NULL: the plugin did not load */
	char plugin_err[512];
	pthread_t thread;
	int started;
	json_t *result;                    /* built by the switch's thread */
	json_t *changes;
	size_t n_changes, n_done;
};

struct qreq {
	struct qos_mod *m;
	struct ctl_req *req;               /* NULL: loomd's own (interval, retry) */
	int periodic;
	enum qos_mode mode;
	size_t n;
	struct qjob *jobs;
	/* HA: the policy record (qos_intent.h) put before any switch is
	 * touched, and again with the outcomes; NULL: nothing replicated. */
	json_t *record;
	intent_put_fn intent;
	void *intent_arg;
};

/* What the loop knows of one configured switch between requests. */
struct sw_state {
	char name[LOOM_NAME_LEN];
	char state[16];           /* "" until a request has seen it */
	int backoff_s;            /* of the next retry; 0: none pending */
	struct event *retry_ev;
	struct qos_mod *m;
};

/* What the module keeps of loom.yaml: roce:, switches: and plugins.dir. */
struct qos_settings {
	struct roce_conf r;
	struct switches_conf sw;
	char plugin_dir[PATH_MAX];
};

struct qos_mod {
	struct event_base *base;
	struct store *store;               /* the loop's connection, for events */
	struct sw_state *sw;               /* one per configured switch */
	int n_sw;
	struct event *interval_ev;
	int periodic_running;
	struct qos_settings *conf;         /* a copy: the loop's, never a thread's */
	struct plugin_cache *plugins;
	struct work_queue *work;           /* the requests under way */
	struct ctl *ctl;                   /* its gate (HA: only the leader pushes) */
	intent_put_fn intent;              /* HA: the policy replicated first (NULL: none) */
	void *intent_arg;
	char node[64];                     /* this node, in the records */
	const char *by;                    /* the next record's "by" (NULL: the kind) */
	json_t *outcomes;                  /* {switch: its last apply's outcome} */
	void (*on_recorded)(void *arg);    /* issue 43: after reads are recorded */
	void *on_recorded_arg;
};

/* ---- the switch threads ------------------------------------------------ */


struct port_list {
	struct lp_port *v;
	size_t n;
};

static int add_port(void *ctx, const struct lp_port *p)
{
	struct port_list *l = ctx;

	if (l->n >= LP_MAX_PORTS)
		return -E2BIG;
	l->v[l->n++] = *p;
	return 0;
}

static int add_change(void *ctx, const struct lp_change *c)
{
	struct qjob *j = ctx;

	json_array_append_new(j->changes, json_pack("{s:s, s:s, s:s, s:s, s:b}", "key", c->key,
						    "field", c->field, "before", c->before,
						    "after", c->after, "done", c->done));
	j->n_changes++;
	j->n_done += c->done != 0;
	return 0;
}

static int add_neighbor(void *ctx, const struct lp_neighbor *n)
{
	json_array_append_new(ctx, json_pack("{s:s, s:s, s:s, s:s}", "local_port", n->local_port,
					     "sys_name", n->sys_name, "port_id", n->port_id,
					     "chassis_id", n->chassis_id));
	return 0;
}

/* The ports of an inventory, for the store. */
static json_t *port_list(const struct port_list *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:b, s:b}", "name",
						   l->v[i].name, "alias", l->v[i].alias,
						   "speed_mbps", (json_int_t)l->v[i].speed_mbps,
						   "mtu", (json_int_t)l->v[i].mtu,
						   "admin_up", l->v[i].admin_up,
						   "oper_up", l->v[i].oper_up));
	return a;
}

static const char *const action_names[] = {
	[LP_OBJECT_CREATE] = "create", [LP_OBJECT_CHANGE] = "change", [LP_OBJECT_DELETE] = "delete",
};

static int add_object(void *ctx, const struct lp_object *o)
{
	if ((unsigned)o->action > LP_OBJECT_DELETE)
		return -EINVAL;
	return json_array_append_new(ctx, json_pack("{s:s, s:s, s:s}", "key", o->key, "action",
						     action_names[o->action], "shared_with",
						     o->shared_with ? o->shared_with : ""));
}

/* The objects of a plan, from the plugin's qos_objects (NULL: the plugin
 * has no such op; err set and NULL on failure too). */
static json_t *plan_objects(struct qjob *j, struct lp_switch *sw, const struct lp_qos *want,
			    char *err, size_t errlen)
{
	struct lp_object_sink sink;
	json_t *objs;

	if (!j->ops->qos_objects)
		return NULL;
	if (!(objs = json_array())) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sink.ctx = objs;
	sink.object = add_object;
	if (j->ops->qos_objects(sw, want, &sink, err, errlen) < 0) {
		json_decref(objs);
		return NULL;
	}
	return objs;
}

static int count_change(void *ctx, const struct lp_change *c)
{
	(void)c;
	(*(size_t *)ctx)++;
	return 0;
}

static const char *job_state(struct qjob *j, int rc, size_t verify_left)
{
	if (rc < 0)
		return j->mode == QOS_APPLY && j->n_done ? "partial" : "unreachable";
	if (j->mode == QOS_APPLY)
		return verify_left ? "drifted" : "in policy";
	return j->n_changes ? "drifted" : "in policy";
}

static void *job_thread(void *arg)
{
	struct qjob *j = arg;
	struct port_list ports = { calloc(LP_MAX_PORTS, sizeof(struct lp_port)), 0 };
	struct lp_port_sink port_sink = { &ports, add_port };
	struct lp_change_sink sink = { j, add_change };
	struct lp_inventory inv;
	struct lp_qos *want = malloc(sizeof(*want));
	struct lp_switch *sw = NULL;
	char err[1024] = "", lldp_err[256];
	json_t *neighbors = json_array(), *objects = NULL;
	size_t left = 0;
	int rc, reached = 0;

	memset(&inv, 0, sizeof(inv));
	j->changes = json_array();
	if (!ports.v || !want || !j->changes) {
		rc = -ENOMEM;
		snprintf(err, sizeof(err), "out of memory");
		goto out;
	}
	if (!j->ops) {
		rc = -ENOENT;
		snprintf(err, sizeof(err), "%s", j->plugin_err);
		goto out;
	}
	if ((rc = switch_open(j->ops, &j->sw, &sw, err, sizeof(err))) < 0 ||
	    (rc = j->ops->inventory(sw, &inv, &port_sink, err, sizeof(err))) < 0)
		goto out;
	reached = 1;
	{
		struct lp_neighbor_sink ns = { neighbors, add_neighbor };

		/* LLDP is for the store: a switch without it is still managed. */
		if (j->ops->lldp_neighbors(sw, &ns, lldp_err, sizeof(lldp_err)) < 0)
			log_info("switch %s: no LLDP neighbours: %s", j->sw.name, lldp_err);
	}
	if ((rc = qos_policy_resolve(&j->policy, ports.v, ports.n, want)) < 0) {
		snprintf(err, sizeof(err), "%zu ports: more than loom handles (%d)", ports.n,
			 LP_MAX_PORTS);
		goto out;
	}
	rc = j->ops->qos_apply(sw, want, j->mode != QOS_APPLY, &sink, err, sizeof(err));
	if (rc == 0 && j->mode == QOS_APPLY) {
		/* Read back: applied is in policy only if nothing is left to change. */
		struct lp_change_sink verify = { &left, count_change };

		rc = j->ops->qos_apply(sw, want, 1, &verify, err, sizeof(err));
		if (rc == 0 && left)
			snprintf(err, sizeof(err), "%zu keys still differ after the apply", left);
	}
	if (rc == 0 && j->mode == QOS_PLAN && !(objects = plan_objects(j, sw, want, err,
								     sizeof(err))) && err[0])
		rc = -EIO;
out:
	if (sw)
		j->ops->close(sw);
	j->result = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:o}", "name", j->sw.name,
			      "plugin", j->sw.plugin, "state", job_state(j, rc, left),
			      "model", inv.model, "os_version", inv.os_version,
			      "ports", (int)ports.n, "changes", (json_int_t)j->n_changes,
			      "landed", (json_int_t)j->n_done,
			      "keys", j->changes ? j->changes : json_array());
	j->changes = NULL;
	if (j->result && err[0])
		json_object_set_new(j->result, "error", json_string(err));
	if (j->result && objects)
		json_object_set_new(j->result, "objects", json_incref(objects));
	json_decref(objects);
	if (j->result) {
		json_object_set_new(j->result, "address", json_string(j->sw.address));
		if (reached) {
			json_object_set_new(j->result, "hostname", json_string(inv.hostname));
			json_object_set_new(j->result, "mac", json_string(inv.mac));
			json_object_set_new(j->result, "port_list", port_list(&ports));
			json_object_set_new(j->result, "neighbors", json_incref(neighbors));
		}
	}
	json_decref(neighbors);
	if (rc < 0 || left)
		log_warn("switch %s: qos %s: %s", j->sw.name, mode_names[j->mode], err);
	else if (j->mode == QOS_APPLY)
		log_notice("switch %s: policy applied, %zu keys changed, read back in policy",
			   j->sw.name, j->n_done);
	free(ports.v);
	free(want);
	return NULL;
}

/* The record into etcd (intent.h): 0, or -errno with err. */
static int record_put(struct qreq *q, char *err, size_t errlen)
{
	char version[17], *text;
	int rc;

	qos_intent_version(json_object_get(q->record, "switches"), version);
	json_object_set_new(q->record, "version", json_string(version));
	json_object_set_new(q->record, "at", json_real(clock_wall()));
	if (!(text = json_dumps(q->record, JSON_SORT_KEYS | JSON_COMPACT))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = q->intent(q->intent_arg, "policy/roce", text, err, errlen);
	free(text);
	return rc;
}

/* The outcomes of this request's switches into the record. */
static void record_outcomes(struct qreq *q)
{
	json_t *sws = json_object_get(q->record, "switches");

	for (size_t i = 0; i < q->n; i++) {
		json_t *sw = json_object_get(sws, q->jobs[i].sw.name);
		const json_t *r = q->jobs[i].result;

		if (!sw)
			continue;
		json_object_set_new(sw, "state", json_string(r ? json_string_value(
			json_object_get(r, "state")) : "unreachable"));
		json_object_set_new(sw, "landed", json_integer(json_integer_value(
			json_object_get(r, "landed"))));
		if (json_object_get(r, "error"))
			json_object_set(sw, "error", json_object_get(r, "error"));
		else
			json_object_del(sw, "error");
		json_object_set_new(sw, "at", json_real(clock_wall()));
	}
}

static int req_run(void *arg, char *err, size_t errlen)
{
	struct qreq *q = arg;
	int rc;

	/* HA: nothing reaches a switch before etcd holds what is applied
	 * (and holds it only while this node leads). */
	if (q->record && (rc = record_put(q, err, errlen)) < 0)
		return rc;

	for (size_t first = 0; first < q->n; first += QOS_MAX_PARALLEL) {
		size_t last = first + QOS_MAX_PARALLEL < q->n ? first + QOS_MAX_PARALLEL : q->n;

		for (size_t i = first; i < last; i++)
			q->jobs[i].started = pthread_create(&q->jobs[i].thread, NULL, job_thread,
							    &q->jobs[i]) == 0;
		for (size_t i = first; i < last; i++) {
			if (q->jobs[i].started)
				pthread_join(q->jobs[i].thread, NULL);
			else /* no thread: do it here */
				job_thread(&q->jobs[i]);
		}
	}
	if (q->record) {
		char werr[512];

		record_outcomes(q);
		if (record_put(q, werr, sizeof(werr)) < 0)
			log_warn("qos apply: the outcomes could not be replicated: %s", werr);
	}
	return 0;  /* each switch's outcome is in its job's result */
}

/* ---- the loop -------------------------------------------------------------- */

static void req_answer(struct qreq *q)
{
	json_t *list = json_array();
	size_t in_policy = 0;

	for (size_t i = 0; i < q->n; i++) {
		const char *state = json_string_value(json_object_get(q->jobs[i].result, "state"));

		in_policy += state && !strcmp(state, "in policy");
		json_t *r = q->jobs[i].result ? json_copy(q->jobs[i].result) :
			json_pack("{s:s, s:s}", "name", q->jobs[i].sw.name, "state", "unreachable");

		/* The inventory is for the store (`loomctl switches`), not this answer. */
		json_object_del(r, "port_list");
		json_object_del(r, "neighbors");
		json_array_append_new(list, r);
	}
	ctl_reply_ok(q->req, json_pack("{s:s, s:I, s:I, s:o}", "mode", mode_names[q->mode],
				       "switches_total", (json_int_t)q->n, "in_policy",
				       (json_int_t)in_policy, "switches", list));
}

int qos_switches_in_state(const struct qos_mod *m, const char *state)
{
	int n = 0;

	for (int i = 0; m && i < m->n_sw; i++)
		n += !strcmp(m->sw[i].state, state);
	return n;
}

static struct sw_state *sw_find(struct qos_mod *m, const char *name)
{
	for (int i = 0; i < m->n_sw; i++)
		if (!strcmp(m->sw[i].name, name))
			return &m->sw[i];
	return NULL;
}

/* "PORT_QOS_MAP|Ethernet4 pfc_enable, ..." of a switch's changed keys: all
 * of them (done < 0), the ones that landed (1) or the ones that did not
 * (0). */
static void keys_text(const json_t *keys, int done, char *buf, size_t len)
{
	size_t i, n = 0, shown = 0, all = 0;
	json_t *k;

	buf[0] = '\0';
	json_array_foreach(keys, i, k) {
		if (done >= 0 && json_is_true(json_object_get(k, "done")) != done)
			continue;
		if (all++ >= 8 || n >= len)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s", shown++ ? ", " : "",
				      json_string_value(json_object_get(k, "key")),
				      json_string_value(json_object_get(k, "field")));
	}
	if (all > shown && n < len)
		snprintf(buf + n, len - n, ", ... (%zu in all)", all);
}

static void retry_cb(evutil_socket_t fd, short what, void *arg);
static int start_request(struct qos_mod *m, struct ctl_req *req, enum qos_mode mode,
			 const char *only, int periodic, char *err, size_t errlen);

static void event_now(struct qos_mod *m, const char *severity, const char *kind,
		      const char *name, const char *old_value, const char *new_value)
{
	char subject[LOOM_NAME_LEN + 8];

	snprintf(subject, sizeof(subject), "switch %s", name);
	if (m->store && store_record_event(m->store, clock_wall(), 0, severity, kind, subject,
					   old_value, new_value) < 0)
		log_warn("switch %s: cannot record a %s event", name, kind);
}

/* The loop's view after a request: events for changes of state and for
 * applies, retries for failed applies. */
static void note_results(struct qos_mod *m, struct qreq *q)
{
	for (size_t i = 0; i < q->n; i++) {
		const json_t *r = q->jobs[i].result;
		const char *state = json_string_value(json_object_get(r, "state"));
		const char *error = json_string_value(json_object_get(r, "error"));
		json_int_t landed = json_integer_value(json_object_get(r, "landed"));
		struct sw_state *st = sw_find(m, q->jobs[i].sw.name);
		char keys[512], what[1400];

		if (!st || !state)
			continue;
		if (m->store && store_record_switch(m->store, clock_wall(), r) < 0)
			log_warn("switch %s: its read could not be recorded", st->name);
		keys_text(json_object_get(r, "keys"), -1, keys, sizeof(keys));
		if (strcmp(st->state, state) && (st->state[0] || strcmp(state, "in policy"))) {
			snprintf(what, sizeof(what), "%s%s%s", state,
				 error ? ": " : !strcmp(state, "drifted") ? ": " : "",
				 error ? error : !strcmp(state, "drifted") ? keys : "");
			event_now(m, strcmp(state, "in policy") ? "warning" : "notice", "qos_state",
				  st->name, st->state[0] ? st->state : "unknown", what);
			log_msg(strcmp(state, "in policy") ? LOG_LVL_WARNING : LOG_LVL_NOTICE,
				"switch %s: %s -> %s", st->name, st->state[0] ? st->state : "unknown",
				what);
		}
		if (q->periodic && q->mode == QOS_APPLY && landed > 0 && !strcmp(st->state, state)) {
			/* Re-applied by the interval: the state did not change,
			 * but the switch had drifted. */
			snprintf(what, sizeof(what), "drifted (re-applied): %s", keys);
			event_now(m, "warning", "qos_state", st->name, st->state, what);
			log_warn("switch %s: %s", st->name, what);
		}
		if (q->mode == QOS_APPLY && landed > 0 && !strcmp(state, "partial")) {
			/* Say what landed, what did not, and why: the switch holds
			 * part of the policy until the retry. */
			char landed_keys[512], left_keys[512];
			json_int_t all = json_integer_value(json_object_get(r, "changes"));

			keys_text(json_object_get(r, "keys"), 1, landed_keys, sizeof(landed_keys));
			keys_text(json_object_get(r, "keys"), 0, left_keys, sizeof(left_keys));
			snprintf(what, sizeof(what), "partial: %lld of %lld keys landed (%s); not "
				 "applied: %s; error: %s", (long long)landed, (long long)all,
				 landed_keys, left_keys, error ? error : "?");
			event_now(m, "warning", "qos_applied", st->name, "", what);
		} else if (q->mode == QOS_APPLY && landed > 0) {
			snprintf(what, sizeof(what), "%lld keys: %s", (long long)landed, keys);
			event_now(m, "notice", "qos_applied", st->name, "", what);
		}
		snprintf(st->state, sizeof(st->state), "%s", state);
		if (q->mode != QOS_APPLY)
			continue;
		if (!strcmp(state, "in policy")) {
			st->backoff_s = 0;
			if (st->retry_ev)
				evtimer_del(st->retry_ev);
		} else if (st->retry_ev && !evtimer_pending(st->retry_ev, NULL)) {
			struct timeval tv;

			st->backoff_s = st->backoff_s ? st->backoff_s * 2 : QOS_RETRY_FIRST_S;
			if (st->backoff_s > QOS_RETRY_MAX_S)
				st->backoff_s = QOS_RETRY_MAX_S;
			tv = (struct timeval){ st->backoff_s, 0 };
			evtimer_add(st->retry_ev, &tv);
			log_notice("switch %s: apply %s; trying again in %d s", st->name, state,
				   st->backoff_s);
		}
	}
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sw_state *st = arg;
	char err[256];

	(void)fd;
	(void)what;
	/* HA: a follower or a node without quorum leaves the switches to the
	 * leader (which retries by itself; a new leader reconciles). */
	if (ctl_gate_check(st->m->ctl, "the RoCE retry", err, sizeof(err)) < 0) {
		log_debug("switch %s: retry skipped: %s", st->name, err);
		st->backoff_s = 0;
		return;
	}
	if (start_request(st->m, NULL, QOS_APPLY, st->name, 0, err, sizeof(err)) < 0)
		log_warn("switch %s: cannot retry the apply: %s", st->name, err);
}

static void interval_cb(evutil_socket_t fd, short what, void *arg)
{
	struct qos_mod *m = arg;
	enum qos_mode mode = m->conf->r.roce_reapply ? QOS_APPLY : QOS_STATUS;
	char err[256];

	(void)fd;
	(void)what;
	if (m->periodic_running)
		return;   /* the last read-back is still under way: skip this one */
	/* HA: only the leader re-applies; the others read back only. */
	if (mode == QOS_APPLY && ctl_gate_check(m->ctl, "the RoCE re-apply", err,
						sizeof(err)) < 0) {
		log_debug("switches: re-apply skipped, read back only: %s", err);
		mode = QOS_STATUS;
	}
	if (start_request(m, NULL, mode, NULL, 1, err, sizeof(err)) < 0)
		log_warn("switches: cannot start the periodic read-back: %s", err);
}

static void req_done(void *arg, int rc, const char *err)
{
	struct qreq *q = arg;

	q->m->periodic_running -= q->periodic;
	if (rc < 0) {
		/* The intent was not replicated: no switch was touched. */
		log_warn("qos apply refused: the policy could not be replicated in etcd: %s", err);
		if (q->req)
			ctl_reply_err(q->req, PROTO_ERR_FAILED, "the policy could not be "
				      "replicated in etcd, nothing was applied: %s", err);
		return;
	}
	if (q->req)
		req_answer(q);
	note_results(q->m, q);
	if (q->n && q->m->store && q->m->on_recorded)
		q->m->on_recorded(q->m->on_recorded_arg);
	if (q->record && q->m->outcomes)
		json_object_update(q->m->outcomes, json_object_get(q->record, "switches"));
}

static void req_free(void *arg)
{
	struct qreq *q = arg;

	for (size_t i = 0; i < q->n; i++)
		json_decref(q->jobs[i].result);
	json_decref(q->record);
	free(q->jobs);
	free(q);
}

static const struct work_ops req_ops = { .run = req_run, .done = req_done, .free = req_free };

/* The record of an apply (qos_intent.h): every configured switch's policy,
 * its last outcome as this node knows it, "applying" for the request's. */
static json_t *record_new(struct qos_mod *m, const struct qreq *q, const char *by)
{
	const struct qos_settings *c = m->conf;
	json_t *sws = json_object(), *rec;

	if (!sws)
		return NULL;
	for (int i = 0; i < c->sw.n_switches; i++) {
		struct qos_policy p = c->r.roce;
		json_t *was = json_object_get(m->outcomes, c->sw.switches[i].name);
		json_t *sw = was ? json_deep_copy(was) : json_object();

		qos_policy_merge(&p, &c->sw.switches[i].roce);
		if (!sw || json_object_set_new(sw, "policy", qos_intent_policy(&p)) < 0) {
			json_decref(sw);
			json_decref(sws);
			return NULL;
		}
		for (size_t j = 0; j < q->n; j++)
			if (!strcmp(q->jobs[j].sw.name, c->sw.switches[i].name))
				json_object_set_new(sw, "state", json_string("applying"));
		if (!json_object_get(sw, "state"))
			json_object_set_new(sw, "state", json_string("unknown"));
		json_object_set_new(sws, c->sw.switches[i].name, sw);
	}
	rec = json_pack("{s:s, s:s, s:o}", "by", by, "node", m->node, "switches", sws);
	return rec;
}

/* A request on every switch, or on `only`. req NULL: loomd's own. 0, or
 * -errno with err (-ENOENT: no such switch). */
static int start_request(struct qos_mod *m, struct ctl_req *req, enum qos_mode mode,
			 const char *only, int periodic, char *err, size_t errlen)
{
	const struct qos_settings *c = m->conf;
	struct qreq *q;
	int rc;

	if (!c->sw.n_switches) {
		snprintf(err, errlen, "no switches are configured (loom.yaml switches:, see "
			 "loom.yaml(5))");
		return -ENOENT;
	}
	if (!(q = calloc(1, sizeof(*q))) ||
	    !(q->jobs = calloc((size_t)c->sw.n_switches, sizeof(*q->jobs)))) {
		free(q);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < c->sw.n_switches; i++) {
		struct qjob *j = &q->jobs[q->n];

		if (only && strcmp(only, c->sw.switches[i].name))
			continue;
		j->mode = mode;
		j->sw = c->sw.switches[i];
		j->policy = c->r.roce;
		qos_policy_merge(&j->policy, &c->sw.switches[i].roce);
		j->ops = plugin_cache_get(m->plugins, m->conf->plugin_dir, j->sw.plugin,
					  j->plugin_err, sizeof(j->plugin_err));
		q->n++;
	}
	if (!q->n) {
		snprintf(err, errlen, "no switch \"%s\" in the configuration", only);
		free(q->jobs);
		free(q);
		return -ENOENT;
	}
	q->m = m;
	q->req = req;
	q->mode = mode;
	q->periodic = periodic;
	if (mode == QOS_APPLY && m->intent &&
	    !(q->record = record_new(m, q, m->by ? m->by : req ? "qos-apply" :
				     periodic ? "reapply" : "retry"))) {
		snprintf(err, errlen, "out of memory");
		free(q->jobs);
		free(q);
		return -ENOMEM;
	}
	q->intent = m->intent;
	q->intent_arg = m->intent_arg;
	if ((rc = work_submit(m->work, &req_ops, q)) < 0) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(-rc));
		json_decref(q->record);
		free(q->jobs);
		free(q);
		return rc;
	}
	m->periodic_running += periodic;
	return 0;
}

static void start(struct ctl_req *req, json_t *args, struct qos_mod *m, enum qos_mode mode)
{
	json_t *one = json_object_get(args, "switch");
	char err[256];
	int rc;

	if (one && !json_is_string(one)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"switch\" must be a switch's name");
		return;
	}
	rc = start_request(m, req, mode, one ? json_string_value(one) : NULL, 0, err, sizeof(err));
	if (rc < 0)
		ctl_reply_err(req, rc == -ENOENT ? PROTO_ERR_NOTFOUND : PROTO_ERR_INTERNAL, "%s",
			      err);
}

static void cmd_plan(struct ctl_req *req, json_t *args, void *arg)
{
	start(req, args, arg, QOS_PLAN);
}

static void cmd_status(struct ctl_req *req, json_t *args, void *arg)
{
	start(req, args, arg, QOS_STATUS);
}

static void cmd_apply(struct ctl_req *req, json_t *args, void *arg)
{
	start(req, args, arg, QOS_APPLY);
}

/* ---- life cycle ----------------------------------------------------------- */

static void sw_states_free(struct sw_state *sw, int n)
{
	for (int i = 0; i < n; i++)
		if (sw[i].retry_ev)
			event_free(sw[i].retry_ev);
	free(sw);
}

int qos_reconfigure(struct qos_mod *m, const struct roce_conf *roce,
		    const struct switches_conf *switches, const char *plugin_dir)
{
	struct qos_settings *c = malloc(sizeof(*c));
	struct sw_state *sw = calloc((size_t)switches->n_switches + 1, sizeof(*sw));
	const struct switches_conf *conf = switches;

	if (!c || !sw) {
		free(c);
		free(sw);
		return -ENOMEM;
	}
	c->r = *roce;
	c->sw = *switches;
	snprintf(c->plugin_dir, sizeof(c->plugin_dir), "%s", plugin_dir);
	/* Known states carry over by name; pending retries do not (the
	 * switch's settings may have changed: the next interval decides). */
	for (int i = 0; i < conf->n_switches; i++) {
		const struct sw_state *old = sw_find(m, conf->switches[i].name);

		snprintf(sw[i].name, sizeof(sw[i].name), "%s", conf->switches[i].name);
		if (m->store)
			(void)store_declare_switch(m->store, clock_wall(), conf->switches[i].name,
						   conf->switches[i].plugin,
						   conf->switches[i].address);
		if (old)
			memcpy(sw[i].state, old->state, sizeof(sw[i].state));
		sw[i].m = m;
		sw[i].retry_ev = evtimer_new(m->base, retry_cb, &sw[i]);
	}
	sw_states_free(m->sw, m->n_sw);
	m->sw = sw;
	m->n_sw = conf->n_switches;
	free(m->conf);
	m->conf = c;
	if (m->interval_ev) {
		evtimer_del(m->interval_ev);
		if (c->r.roce_interval > 0 && c->sw.n_switches > 0) {
			struct timeval tv = { c->r.roce_interval, 0 };

			event_add(m->interval_ev, &tv);
		}
	}
	return 0;
}

struct qos_mod *qos_new(struct event_base *base, const struct roce_conf *roce,
			const struct switches_conf *switches, const char *plugin_dir,
			struct store *store, char *err, size_t errlen)
{
	struct qos_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	m->store = store;
	m->interval_ev = event_new(base, -1, EV_PERSIST, interval_cb, m);
	m->plugins = plugin_cache_new();
	m->outcomes = json_object();
	if (!m->interval_ev || !m->plugins || !m->outcomes || qos_reconfigure(m, roce, switches, plugin_dir) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (!(m->work = work_queue_new(base, "qos request", QOS_MAX_REQUESTS, WORK_FIFO, err,
				       errlen)))
		goto fail;
	return m;
fail:
	qos_free(m);
	return NULL;
}

void qos_free(struct qos_mod *m)
{
	if (!m)
		return;
	work_queue_free(m->work);  /* answers the requests under way */
	if (m->interval_ev)
		event_free(m->interval_ev);
	sw_states_free(m->sw, m->n_sw);
	plugin_cache_free(m->plugins);
	json_decref(m->outcomes);
	free(m->conf);
	free(m);
}

int qos_register(struct qos_mod *m, struct ctl *ctl)
{
	int rc;

	m->ctl = ctl;
	if ((rc = ctl_handle(ctl, "qos-plan", cmd_plan, m)) < 0 ||
	    (rc = ctl_handle(ctl, "qos-status", cmd_status, m)) < 0)
		return rc;
	return ctl_handle(ctl, "qos-apply", cmd_apply, m);
}

void qos_set_intent(struct qos_mod *m, const struct intent_writer *w)
{
	m->intent = w->put;
	m->intent_arg = w->arg;
	snprintf(m->node, sizeof(m->node), "%s", w->node ? w->node : "");
}

void qos_on_recorded(struct qos_mod *m, void (*fn)(void *arg), void *arg)
{
	m->on_recorded = fn;
	m->on_recorded_arg = arg;
}

void qos_watch(void *arg, const json_t *records, int leading)
{
	struct qos_mod *m = arg;
	const json_t *rec = json_object_get(records, "roce"), *sw;
	const char *theirs = json_string_value(json_object_get(rec, "version"));
	const char *by = json_string_value(json_object_get(rec, "node"));
	const char *name;
	struct qreq none = { 0 };
	char mine[17] = "", what[768], err[256];
	size_t not_in = 0, all = 0;
	json_t *own;
	int same, rc;

	/* A follower keeps nothing of the RoCE policy: the switches are the
	 * leader's; only a takeover looks at the record. */
	if (!leading || !theirs || !m->conf->sw.n_switches)
		return;
	json_object_foreach((json_t *)json_object_get(rec, "switches"), name, sw) {
		all++;
		not_in += strcmp(json_string_value(json_object_get(sw, "state")) ?: "", "in policy") != 0;
	}
	if ((own = record_new(m, &none, "takeover")))
		qos_intent_version(json_object_get(own, "switches"), mine);
	json_decref(own);
	same = !strcmp(mine, theirs);
	/* Same policy: apply it again (only drifted keys change; a switch left
	 * partial or unreachable is finished). Another one: read back only. */
	m->by = "takeover";
	rc = start_request(m, NULL, same ? QOS_APPLY : QOS_STATUS, NULL, 0, err, sizeof(err));
	m->by = NULL;
	snprintf(what, sizeof(what), "RoCE: the replicated policy (version %s, by %s; %zu of %zu "
		 "switches not in policy at its last apply) %s%s%s", theirs, by ? by : "?",
		 not_in, all, same ? "is this node's loom.yaml's: applied again to every switch "
		 "(only what drifted changes)" : "differs from this node's loom.yaml (version ",
		 same ? "" : mine, same ? "" : "): the switches are read back only and keep the "
		 "replicated policy until qos-apply is run on this node");
	if (rc < 0)
		log_warn("RoCE takeover: %s", err);
	log_msg(same ? LOG_LVL_NOTICE : LOG_LVL_WARNING, "%s", what);
	if (m->store && store_record_event(m->store, clock_wall(), 0, same ? "info" : "warning",
					   "ha_takeover_policy", "roce", NULL, what) < 0)
		log_warn("RoCE: cannot record the takeover event");
}
