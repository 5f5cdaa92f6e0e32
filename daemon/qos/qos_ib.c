/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_ib.c: "qos-ib-apply" and "qos-ib-status" (see qos_ib.h).
 *
 * Applying is OpenSM's job: loom writes OpenSM's own qos_* options (lib/
 * ib_qos.c) into a marked block of OpenSM's options file and signals it
 * (osm_block.c, with the HA record and mirror; this file says what the
 * options are and when they may be written); OpenSM re-reads them on SIGHUP
 * and its QoS manager sends SL2VL and VLArbitration Sets to every port
 * (docs/testbed-notes.md has the evidence).
 * Reading back is loom's: a status request runs one thread that reads every
 * swept IB subnet through `loomd --read-qos` children (qos_ib_read.c), a job
 * of daemon/core/work.h; back on the loop, the changes of each port's state
 * are recorded as events and the request answered. One read at a time: a
 * second status while one runs is told to retry. */
#include "autoconf.h"
#include "lib/qos/options_block.h"
#include "daemon/qos/qos_ib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/qos/config_qos_ib.h"
#include "daemon/core/ctl.h"
#include "daemon/core/work.h"
#include "lib/util/proto.h"
#include "daemon/qos/qos_ib_read.h"
#include "daemon/qos/osm_block.h"
#include "daemon/routing/store_routing.h"
#include "daemon/ib/swept_subnets.h"

#define BEGIN_MARK IBQOS_BLOCK_BEGIN
#define END_MARK IBQOS_BLOCK_END

struct qos_ib_mod {
	struct event_base *base;
	struct store *store;
	struct ib_qos_conf conf;       /* its section */
	struct swept_mad mad;          /* discovery's MAD limits */
	struct work_queue *work;  /* one read-back at a time */
	/* The read under way (req != NULL): the job's inputs and output. */
	struct ctl_req *req;
	struct ibqos_policy policy;
	struct swept_subnets sub;
	unsigned routing_vls;
	json_t *ports;
	/* "guid/port" -> first difference ("" in policy), as last read. */
	json_t *known;
	struct osm_block *block;  /* loom's block of ib_qos.opensm_config */
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

/* ---- apply (osm_block.c) ------------------------------------------------------ */

/* The VL layers of the last successful routing run: 1 when none is known
 * (OpenSM's own engines do not report), -1 when the store cannot say (an
 * apply then refuses rather than risk a layered routing). */
static int routing_vls(struct qos_ib_mod *m)
{
	return store_routing_vls(m->store);
}

/* The options of an apply, refused unless the classes and the routing's VL
 * layers fit together; *vls carried to the answer's "layering". */
static int apply_options(void *mod, struct ctl_req *req, char *opts, size_t len, int *vls)
{
	struct qos_ib_mod *m = mod;
	const struct ibqos_policy *p = &m->conf.ib_qos;
	char err[512];

	if (!p->set || !m->conf.ib_qos_opensm_config[0]) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "%s", !p->set ?
			      "no ib_qos section in loom.yaml: loom does not manage InfiniBand QoS" :
			      "ib_qos.opensm_config is not set: loom has no OpenSM options file to "
			      "write");
		return -1;
	}
	if ((*vls = routing_vls(m)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot read the routing runs from the "
			      "database: the VL layers the routing needs are unknown");
		return -1;
	}
	if (ibqos_combine(p, (unsigned)*vls, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_FAILED, "%s", err);
		return -1;
	}
	if (ibqos_opensm_options(p, opts, len) >= (int)len) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "ib_qos: the OpenSM options do not fit %zu "
			      "bytes", len);
		return -1;
	}
	return 0;
}

/* A new leader's own options: none unless an apply here would write them. */
static int own_options(void *mod, char *opts, size_t len)
{
	struct qos_ib_mod *m = mod;
	char err[512];
	int vls;

	if (!m->conf.ib_qos.set || (vls = routing_vls(m)) < 0 ||
	    ibqos_combine(&m->conf.ib_qos, (unsigned)vls, err, sizeof(err)) < 0 ||
	    ibqos_opensm_options(&m->conf.ib_qos, opts, len) >= (int)len)
		return -1;
	return 0;
}

static void apply_answer(void *mod, json_t *ans, const char *why, int vls)
{
	struct qos_ib_mod *m = mod;

	(void)why;
	json_object_set_new(ans, "layering", layering_json(&m->conf.ib_qos, (unsigned)vls));
}

static const struct osm_block_ops block_ops = {
	.name = "ib_qos", .apply_cmd = "qos-ib-apply",
	.begin = BEGIN_MARK, .end = END_MARK, .max = IBQOS_OPTIONS_MAX,
	.options = apply_options, .mine = own_options, .answer = apply_answer,
};

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
		snprintf(subject, sizeof(subject), "port %s (%s)", key,
			 json_string_value(json_object_get(port, "node")));
		if (osm_block_note(m->store, "ib_qos", subject, was, diff ? diff : ""))
			json_object_set_new(m->known, key, json_string(diff ? diff : ""));
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
	ibqos_combine(&m->conf.ib_qos, m->routing_vls, why, sizeof(why));
	ctl_reply_ok(req, json_pack("{s:o, s:i, s:i, s:i, s:s, s:o}", "ports", m->ports,
				    "in_policy", (int)in, "ports_total", (int)json_array_size(m->ports),
				    "routing_vls", (int)m->routing_vls, "not_applicable", why,
				    "layering", layering_json(&m->conf.ib_qos, m->routing_vls)));
	m->ports = NULL;
}

/* The module is the job: one read at a time, its inputs and output in m. */
static const struct work_ops read_ops = { .run = read_run, .done = read_done };

static void cmd_status(struct ctl_req *req, json_t *args, void *arg)
{
	struct qos_ib_mod *m = arg;

	(void)args;
	if (!m->conf.ib_qos.set) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "no ib_qos section in loom.yaml: loom does "
			      "not manage InfiniBand QoS");
		return;
	}
	if (work_full(m->work)) {
		ctl_reply_err(req, PROTO_ERR_BUSY, "a QoS read-back is under way; try again");
		return;
	}
	if (swept_subnets_get(m->store, &m->mad, &m->sub) < 0 || !m->sub.n) {
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
		if (ibqos_layered(&m->conf.ib_qos, m->routing_vls, &m->policy, why,
				  sizeof(why)) < 0)
			m->policy = m->conf.ib_qos;
	}
	m->req = req;
	if (work_submit(m->work, &read_ops, m) < 0) {
		m->req = NULL;
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "cannot start a thread");
	}
}

/* ---- module ---------------------------------------------------------------------- */

int qos_ib_reconfigure(struct qos_ib_mod *m, const struct ib_qos_conf *conf,
		       const struct swept_mad *mad, const char *osm_pid_file)
{
	m->conf = *conf;
	m->mad = *mad;
	osm_block_reconfigure(m->block, conf->ib_qos_opensm_config, osm_pid_file);
	return 0;
}

struct qos_ib_mod *qos_ib_new(struct event_base *base, const struct ib_qos_conf *conf,
			      const struct swept_mad *mad, const char *osm_pid_file,
			      struct store *store, char *err, size_t errlen)
{
	struct qos_ib_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->base = base;
	m->store = store;
	if (!(m->block = osm_block_new(base, &block_ops, m, store, err, errlen)))
		goto fail;
	if (!(m->known = json_object()) || qos_ib_reconfigure(m, conf, mad, osm_pid_file) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (!(m->work = work_queue_new(base, "ib_qos request", 1, WORK_REFUSE, err, errlen)))
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
	osm_block_free(m->block);
	json_decref(m->known);
	free(m);
}

int qos_ib_register(struct qos_ib_mod *m, struct ctl *ctl)
{
	int rc;

	if ((rc = ctl_handle(ctl, "qos-ib-status", cmd_status, m)) < 0)
		return rc;
	return osm_block_register(m->block, ctl);  /* qos-ib-apply */
}

void qos_ib_set_opensm(struct qos_ib_mod *m, struct osm_report *osm)
{
	osm_block_set_opensm(m->block, osm);
}

void qos_ib_set_intent(struct qos_ib_mod *m, const struct intent_writer *w)
{
	osm_block_set_intent(m->block, w);
}

void qos_ib_watch(void *arg, const json_t *records, int leading)
{
	struct qos_ib_mod *m = arg;

	osm_block_watch(m->block, records, leading);
}
