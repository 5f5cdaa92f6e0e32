/* daemon/qos/qos_ib.c: "qos-ib-apply" and "qos-ib-status" (see qos_ib.h).
 *
 * Applying is OpenSM's job: loom writes OpenSM's own qos_* options (lib/
 * ib_qos.c) into a marked block of OpenSM's options file and signals it;
 * OpenSM re-reads them on SIGHUP and its QoS manager sends SL2VL and
 * VLArbitration Sets to every port (docs/testbed-notes.md has the evidence).
 * Reading back is loom's: a status request runs one thread that reads every
 * swept IB subnet through `loomd --read-qos` children (qos_ib_read.c), a job
 * of daemon/core/work.h; back on the loop, the changes of each port's state
 * are recorded as events and the request answered. One read at a time: a
 * second status while one runs is told to retry. */
#include "autoconf.h"
#include "lib/qos/options_block.h"
#include "daemon/qos/qos_ib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <jansson.h>

#include "lib/util/clock.h"
#include "daemon/core/config.h"
#include "daemon/core/ctl.h"
#include "lib/util/log.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "daemon/qos/qos_ib_read.h"
#include "daemon/qos/qos_intent.h"
#include "daemon/core/store.h"
#include "daemon/core/file_atomic.h"
#include "daemon/routing/opensm_pid.h"
#include "daemon/routing/store_routing.h"
#include "daemon/ib/swept_subnets.h"

#define BEGIN_MARK IBQOS_BLOCK_BEGIN
#define END_MARK IBQOS_BLOCK_END

struct qos_ib_mod {
	struct event_base *base;
	struct store *store;
	struct loom_config *conf;
	struct work_queue *work;  /* one read-back at a time */
	/* The read under way (req != NULL): the job's inputs and output. */
	struct ctl_req *req;
	struct ibqos_policy policy;
	struct swept_subnets sub;
	unsigned routing_vls;
	json_t *ports;
	/* "guid/port" -> first difference ("" in policy), as last read. */
	json_t *known;
	/* HA: the options replicated before the file is written. */
	struct intent_writer w;
	char node[64];
	struct work_queue *iwork;
};

char *qos_ib_options_file(const char *old_text, const char *options)
{
	return options_block_set(old_text, BEGIN_MARK, END_MARK, options);
}

/* How classes and VL layers share the SLs and VLs (lib/qos/ib_qos.h), for the
 * answers: null on one layer or when they cannot combine. */
static json_t *layering_json(const struct ibqos_policy *p, unsigned vls)
{
	struct ibqos_policy eff;
	char why[512];
	json_t *sl2vl;

	if (vls <= 1 || ibqos_layered(p, vls, &eff, why, sizeof(why)) < 0)
		return json_null();
	sl2vl = json_array();
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		json_array_append_new(sl2vl, json_integer(eff.sl2vl[sl]));
	return json_pack("{s:i, s:i, s:i, s:o}", "layers", (int)vls, "sls_per_layer",
			 (int)ibqos_layer_sls(vls), "class_vls",
			 (int)ibqos_class_vls(p->sl2vl, ibqos_layer_sls(vls)), "sl2vl", sl2vl);
}

/* ---- apply ------------------------------------------------------------------- */

/* The VL layers of the last successful routing run: 1 when none is known
 * (OpenSM's own engines do not report), -1 when the store cannot say (an
 * apply then refuses rather than risk a layered routing). */
static int routing_vls(struct qos_ib_mod *m)
{
	return store_routing_vls(m->store);
}

static void apply_write(struct qos_ib_mod *m, struct ctl_req *req, const char *opts, int vls);

struct apply_ctx {
	struct qos_ib_mod *m;
	struct ctl_req *req;
	int vls;
	char opts[IBQOS_OPTIONS_MAX];
};

static void apply_replicated(void *arg, int rc, const char *err)
{
	struct apply_ctx *c = arg;

	if (rc < 0) {
		log_warn("ib_qos: apply refused: the options could not be replicated in etcd: %s",
			 err);
		ctl_reply_err(c->req, PROTO_ERR_FAILED, "the ib_qos options could not be "
			      "replicated in etcd, nothing was written: %s", err);
	} else {
		apply_write(c->m, c->req, c->opts, c->vls);
	}
	free(c);
}

static void cmd_apply(struct ctl_req *req, json_t *args, void *arg)
{
	struct qos_ib_mod *m = arg;
	const struct ibqos_policy *p = &m->conf->ib_qos;
	const char *path = m->conf->ib_qos_opensm_config;
	char opts[IBQOS_OPTIONS_MAX], err[512];
	int vls;

	(void)args;
	if (!p->set || !path[0]) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "%s", !p->set ?
			      "no ib_qos section in loom.yaml: loom does not manage InfiniBand QoS" :
			      "ib_qos.opensm_config is not set: loom has no OpenSM options file to "
			      "write");
		return;
	}
	if ((vls = routing_vls(m)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot read the routing runs from the "
			      "database: the VL layers the routing needs are unknown");
		return;
	}
	if (ibqos_combine(p, (unsigned)vls, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "%s", err);
		return;
	}
	if (ibqos_opensm_options(p, opts, sizeof(opts)) >= (int)sizeof(opts)) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "ib_qos: the OpenSM options do not fit %zu "
			      "bytes", sizeof(opts));
		return;
	}
	if (m->w.put) {
		/* HA: etcd holds the options before OpenSM's file does. */
		struct apply_ctx *c = calloc(1, sizeof(*c));
		char version[17];
		int rc;

		qos_intent_hash(opts, version);
		if (!c) {
			ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
			return;
		}
		c->m = m;
		c->req = req;
		c->vls = vls;
		snprintf(c->opts, sizeof(c->opts), "%s", opts);
		rc = qos_intent_put_async(m->iwork, m->w.put, m->w.arg, "policy/ib_qos",
					  json_pack("{s:s, s:s, s:s, s:s, s:f}", "file", path,
						    "options", opts, "version", version,
						    "by", m->node, "at", clock_wall()),
					  apply_replicated, c);
		if (rc < 0) {
			free(c);
			ctl_reply_err(req, PROTO_ERR_INTERNAL, "ib_qos: cannot replicate the "
				      "options: %s", strerror(-rc));
		}
		return;
	}
	apply_write(m, req, opts, vls);
}

static void apply_write(struct qos_ib_mod *m, struct ctl_req *req, const char *opts, int vls)
{
	const struct ibqos_policy *p = &m->conf->ib_qos;
	const char *path = m->conf->ib_qos_opensm_config;
	char err[512];
	char *old, *text;
	int pid;

	old = file_read_text(path, err, sizeof(err));  /* none yet: a new file */
	text = qos_ib_options_file(old, opts);
	free(old);
	if (!text || file_write_atomic(path, text, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "%s", text ? err : "out of memory");
		free(text);
		return;
	}
	free(text);
	pid = opensm_pid_find(m->conf->tenant_opensm_pid_file, m->store, err, sizeof(err));
	if (pid < 0 || kill(pid, SIGHUP) < 0)
		pid = 0;
	log_notice("ib_qos: options written to %s%s", path, pid ? ", OpenSM signalled" : "");
	if (m->store &&
	    store_record_event(m->store, clock_wall(), 0, "info", "ib_qos_applied", path, NULL,
			       opts) < 0)
		log_warn("ib_qos: cannot record the apply event");
	ctl_reply_ok(req, json_pack("{s:s, s:s, s:i, s:o}", "file", path, "options", opts,
				    "opensm_pid", pid, "layering",
				    layering_json(p, (unsigned)vls)));
}

/* ---- status -------------------------------------------------------------------- */

static int read_run(void *job, char *err, size_t errlen)
{
	struct qos_ib_mod *m = job;
	int rc = 0;

	m->ports = json_array();
	for (size_t i = 0; i < m->sub.n && rc == 0; i++) {
		json_t *ports = NULL;
		size_t k;
		json_t *port;

		rc = qos_ib_read_run(&m->sub.p[i], &m->policy, &ports, err, errlen);
		json_array_foreach(ports, k, port) {
			json_object_set_new(port, "subnet", json_string(m->sub.p[i].subnet));
			json_array_append(m->ports, port);
		}
		json_decref(ports);
	}
	return rc;
}

/* Events for ports whose state changed since the last read. */
static void note_drift(struct qos_ib_mod *m)
{
	size_t i;
	json_t *port;

	json_array_foreach(m->ports, i, port) {
		const char *diff = json_string_value(json_object_get(port, "first_diff"));
		const char *was;
		char key[64], subject[160];

		snprintf(key, sizeof(key), "%s/%lld",
			 json_string_value(json_object_get(port, "guid")),
			 (long long)json_integer_value(json_object_get(port, "port")));
		was = json_string_value(json_object_get(m->known, key));
		diff = diff ? diff : "";
		if (was ? !strcmp(was, diff) : !diff[0])
			continue;  /* unchanged, or first seen in policy */
		snprintf(subject, sizeof(subject), "port %s (%s)", key,
			 json_string_value(json_object_get(port, "node")));
		if (diff[0])
			log_warn("ib_qos: %s drifted: %s", subject, diff);
		if (m->store &&
		    store_record_event(m->store, clock_wall(), 0, diff[0] ? "warning" : "info",
				       diff[0] ? "ib_qos_drift" : "ib_qos_in_policy", subject,
				       was && was[0] ? was : NULL, diff[0] ? diff : NULL) < 0)
			log_warn("ib_qos: cannot record an event for %s", subject);
		json_object_set_new(m->known, key, json_string(diff));
	}
}

static void read_done(void *job, int rc, const char *err)
{
	struct qos_ib_mod *m = job;
	struct ctl_req *req = m->req;
	size_t i, in = 0;
	json_t *port;
	char why[512] = "";

	m->req = NULL;
	if (rc < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "%s", err);
		json_decref(m->ports);
		m->ports = NULL;
		return;
	}
	note_drift(m);
	json_array_foreach(m->ports, i, port)
		in += json_is_true(json_object_get(port, "in_policy"));
	ibqos_combine(&m->conf->ib_qos, m->routing_vls, why, sizeof(why));
	ctl_reply_ok(req, json_pack("{s:o, s:i, s:i, s:i, s:s, s:o}", "ports", m->ports,
				    "in_policy", (int)in, "ports_total", (int)json_array_size(m->ports),
				    "routing_vls", (int)m->routing_vls, "not_applicable", why,
				    "layering", layering_json(&m->conf->ib_qos, m->routing_vls)));
	m->ports = NULL;
}

/* The module is the job: one read at a time, its inputs and output in m. */
static const struct work_ops read_ops = { .run = read_run, .done = read_done };

static void cmd_status(struct ctl_req *req, json_t *args, void *arg)
{
	struct qos_ib_mod *m = arg;

	(void)args;
	if (!m->conf->ib_qos.set) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "no ib_qos section in loom.yaml: loom does "
			      "not manage InfiniBand QoS");
		return;
	}
	if (work_full(m->work)) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "a QoS read-back is under way; try again");
		return;
	}
	if (swept_subnets_get(m->store, m->conf, &m->sub) < 0 || !m->sub.n) {
		ctl_reply_err(req, PROTO_ERR_NOTFOUND, "no InfiniBand subnet has been swept yet "
			      "(loomctl discover --wait)");
		return;
	}
	{
		int vls = routing_vls(m);
		char why[512];

		m->routing_vls = vls > 1 ? (unsigned)vls : 1;
		/* What the ports hold under a layered routing: the policy
		 * expanded per layer by libloomosm (lib/qos/ib_qos.h). When the two
		 * cannot combine, the policy as written; the answer says why. */
		if (ibqos_layered(&m->conf->ib_qos, m->routing_vls, &m->policy, why,
				  sizeof(why)) < 0)
			m->policy = m->conf->ib_qos;
	}
	m->req = req;
	if (work_submit(m->work, &read_ops, m) < 0) {
		m->req = NULL;
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a thread");
	}
}

/* ---- module ---------------------------------------------------------------------- */

int qos_ib_reconfigure(struct qos_ib_mod *m, const struct loom_config *conf)
{
	struct loom_config *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	memcpy(c, conf, sizeof(*c));
	free(m->conf);
	m->conf = c;
	return 0;
}

struct qos_ib_mod *qos_ib_new(struct event_base *base, const struct loom_config *conf,
			      struct store *store, char *err, size_t errlen)
{
	struct qos_ib_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	m->store = store;
	if (!(m->known = json_object()) || qos_ib_reconfigure(m, conf) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (!(m->work = work_queue_new(base, "ib_qos request", 1, WORK_REFUSE, err, errlen)) ||
	    !(m->iwork = work_queue_new(base, "ib_qos intent", 1, WORK_FIFO, err, errlen)))
		goto fail;
	return m;
fail:
	qos_ib_free(m);
	return NULL;
}

void qos_ib_free(struct qos_ib_mod *m)
{
	if (!m)
		return;
	work_queue_free(m->work);  /* waits for a read under way, answers */
	work_queue_free(m->iwork);
	json_decref(m->known);
	free(m->conf);
	free(m);
}

int qos_ib_register(struct qos_ib_mod *m, struct ctl *ctl)
{
	int rc;

	static const struct ctl_arg none[] = { CTL_ARG_END };

	if ((rc = ctl_register_args(ctl, "qos-ib-status", CTL_READ, cmd_status, m, none)) < 0)
		return rc;
	return ctl_register_args(ctl, "qos-ib-apply", CTL_WRITE, cmd_apply, m, none);
}

void qos_ib_set_intent(struct qos_ib_mod *m, const struct intent_writer *w)
{
	m->w = *w;
	snprintf(m->node, sizeof(m->node), "%s", w->node ? w->node : "");
	m->w.node = m->node;
}

void qos_ib_watch(void *arg, const json_t *records, int leading)
{
	struct qos_ib_mod *m = arg;
	const json_t *rec = json_object_get(records, "ib_qos");
	const char *opts = json_string_value(json_object_get(rec, "options"));
	const char *version = json_string_value(json_object_get(rec, "version"));
	const char *path = m->conf->ib_qos_opensm_config;
	char mine[IBQOS_OPTIONS_MAX], err[512], what[768];
	int vls;

	if (!opts)
		return;  /* nothing replicated (or etcd unread): nothing to do */
	if (!leading) {
		if (!path[0]) {
			log_warn("ib_qos: the leader replicated OpenSM options but this node has no "
				 "ib_qos.opensm_config to write them to");
			return;
		}
		if (qos_intent_mirror_block(path, BEGIN_MARK, END_MARK, opts,
					    m->conf->tenant_opensm_pid_file, m->store, err,
					    sizeof(err)) < 0)
			log_warn("ib_qos: the leader's options not written to %s: %s", path, err);
		return;
	}
	/* Takeover: the replicated options are what OpenSM holds (every node
	 * mirrored them); say whether this node's loom.yaml agrees. */
	if (!m->conf->ib_qos.set || (vls = routing_vls(m)) < 0 ||
	    ibqos_combine(&m->conf->ib_qos, (unsigned)vls, err, sizeof(err)) < 0 ||
	    ibqos_opensm_options(&m->conf->ib_qos, mine, sizeof(mine)) >= (int)sizeof(mine))
		mine[0] = '\0';
	if (!strcmp(mine, opts))
		snprintf(what, sizeof(what), "ib_qos: the replicated options (version %s, by %s) "
			 "are this node's loom.yaml's", version ? version : "?",
			 json_string_value(json_object_get(rec, "by")) ?: "?");
	else
		snprintf(what, sizeof(what), "ib_qos: the replicated options (version %s, by %s) "
			 "differ from this node's loom.yaml; OpenSM keeps the replicated ones until "
			 "qos-ib-apply is run on this node", version ? version : "?",
			 json_string_value(json_object_get(rec, "by")) ?: "?");
	log_msg(strcmp(mine, opts) ? LOG_LVL_WARNING : LOG_LVL_NOTICE, "%s", what);
	if (m->store && store_record_event(m->store, clock_wall(), 0,
					   strcmp(mine, opts) ? "warning" : "info",
					   "ha_takeover_policy", "ib_qos", NULL, what) < 0)
		log_warn("ib_qos: cannot record the takeover event");
}
