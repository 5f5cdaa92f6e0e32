/* daemon/qos/qos_ibcc.c: "qos-ib-cc-apply" and "qos-ib-cc-status" (see
 * qos_ibcc.h). Both touch one small file and answer on the loop: no job. */
#include "autoconf.h"
#include "lib/qos/options_block.h"
#include "daemon/qos/qos_ibcc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon/core/config.h"
#include "daemon/core/ctl.h"
#include "daemon/core/file_atomic.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/qos/qos_ib.h"
#include "daemon/qos/qos_intent.h"
#include "daemon/routing/opensm_pid.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

/* Read by OpenSM at its start only: a change needs OpenSM restarted. */
#define START_ONLY "cc_key and cc_max_outstanding_mads are read by OpenSM at its start only"

struct qos_ibcc_mod {
	struct store *store;
	struct loom_config *conf;
	/* The drift last seen ("" in policy), NULL before the first status. */
	char *known;
	/* HA: the options replicated before the file is written. */
	struct intent_writer w;
	char node[64];
	struct work_queue *iwork;
};

static int options_text(struct ctl_req *req, const struct loom_config *c, char *opts,
			size_t len)
{
	if (!c->ib_cc.set) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "no ib_cc section in loom.yaml: loom does "
			      "not manage InfiniBand congestion control");
		return -1;
	}
	if (!c->ib_cc_opensm_config[0]) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "ib_cc.opensm_config is not set: loom has no "
			      "OpenSM options file to write");
		return -1;
	}
	if (ibcc_opensm_options(&c->ib_cc, opts, len) >= (int)len) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "ib_cc: the OpenSM options do not fit %zu "
			      "bytes", len);
		return -1;
	}
	return 0;
}

/* An event when the file's state changed since the last look. */
static void note_state(struct qos_ibcc_mod *m, const char *path, const char *why)
{
	const char *was = m->known;

	if (was ? !strcmp(was, why) : !why[0]) {
		if (!was)
			m->known = strdup(why);
		return;
	}
	if (why[0])
		log_warn("ib_cc: %s drifted: %s", path, why);
	if (m->store &&
	    store_record_event(m->store, clock_wall(), 0, why[0] ? "warning" : "info",
			       why[0] ? "ib_cc_drift" : "ib_cc_in_policy", path,
			       was && was[0] ? was : NULL, why[0] ? why : NULL) < 0)
		log_warn("ib_cc: cannot record an event for %s", path);
	free(m->known);
	m->known = strdup(why);
}

static void apply_write(struct qos_ibcc_mod *m, struct ctl_req *req, const char *opts);

struct apply_ctx {
	struct qos_ibcc_mod *m;
	struct ctl_req *req;
	char opts[IBCC_OPTIONS_MAX];
};

static void apply_replicated(void *arg, int rc, const char *err)
{
	struct apply_ctx *c = arg;

	if (rc < 0) {
		log_warn("ib_cc: apply refused: the options could not be replicated in etcd: %s",
			 err);
		ctl_reply_err(c->req, PROTO_ERR_FAILED, "the ib_cc options could not be "
			      "replicated in etcd, nothing was written: %s", err);
	} else {
		apply_write(c->m, c->req, c->opts);
	}
	free(c);
}

static void cmd_apply(struct ctl_req *req, json_t *args, void *arg)
{
	struct qos_ibcc_mod *m = arg;
	struct apply_ctx *c;
	char version[17];
	int rc;

	(void)args;
	if (!(c = calloc(1, sizeof(*c)))) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	if (options_text(req, m->conf, c->opts, sizeof(c->opts)) < 0) {
		free(c);
		return;
	}
	if (!m->w.put) {
		apply_write(m, req, c->opts);
		free(c);
		return;
	}
	/* HA: etcd holds the options before OpenSM's file does. */
	c->m = m;
	c->req = req;
	qos_intent_hash(c->opts, version);
	rc = qos_intent_put_async(m->iwork, m->w.put, m->w.arg, "policy/ib_cc",
				  json_pack("{s:s, s:s, s:s, s:s, s:f}", "file",
					    m->conf->ib_cc_opensm_config, "options", c->opts,
					    "version", version, "by", m->node, "at", clock_wall()),
				  apply_replicated, c);
	if (rc < 0) {
		free(c);
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "ib_cc: cannot replicate the options: %s",
			      strerror(-rc));
	}
}

static void apply_write(struct qos_ibcc_mod *m, struct ctl_req *req, const char *opts)
{
	const char *path = m->conf->ib_cc_opensm_config;
	char err[512], why[512] = "";
	char *old, *text;
	int pid;

	old = file_read_text(path, err, sizeof(err));  /* none yet: a new file */
	text = options_block_set(old, IBCC_BLOCK_BEGIN, IBCC_BLOCK_END, opts);
	free(old);
	if (!text || file_write_atomic(path, text, err, sizeof(err)) < 0) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "%s", text ? err : "out of memory");
		free(text);
		return;
	}
	/* A line after loom's block that sets an option again still wins in
	 * OpenSM: said now, not only at the next status. */
	if (ibcc_file_drift(text, opts, why, sizeof(why)))
		log_warn("ib_cc: %s: %s", path, why);
	free(text);
	pid = opensm_pid_find(m->conf->tenant_opensm_pid_file, m->store, err, sizeof(err));
	if (pid < 0 || kill(pid, SIGHUP) < 0)
		pid = 0;
	log_notice("ib_cc: options written to %s%s", path, pid ? ", OpenSM signalled" : "");
	if (m->store &&
	    store_record_event(m->store, clock_wall(), 0, "info", "ib_cc_applied", path, NULL,
			       m->conf->ib_cc.enable ? "congestion_control TRUE" :
			       "congestion_control FALSE") < 0)
		log_warn("ib_cc: cannot record the apply event");
	ctl_reply_ok(req, json_pack("{s:s, s:s, s:i, s:s, s:s}", "file", path, "options", opts,
				    "opensm_pid", pid, "note", START_ONLY, "overridden", why));
}

static void cmd_status(struct ctl_req *req, json_t *args, void *arg)
{
	struct qos_ibcc_mod *m = arg;
	const char *path = m->conf->ib_cc_opensm_config;
	char opts[IBCC_OPTIONS_MAX], err[512], why[512] = "";
	char *text;

	(void)args;
	if (options_text(req, m->conf, opts, sizeof(opts)) < 0)
		return;
	if (!(text = file_read_text(path, err, sizeof(err))))
		snprintf(why, sizeof(why), "%s", err);
	else
		ibcc_file_drift(text, opts, why, sizeof(why));
	free(text);
	note_state(m, path, why);
	ctl_reply_ok(req, json_pack("{s:s, s:b, s:s, s:b, s:s}", "file", path, "in_policy",
				    !why[0], "drift", why, "enable", m->conf->ib_cc.enable,
				    "ports", "not read back: see docs/ib-cc-notes.md"));
}

int qos_ibcc_reconfigure(struct qos_ibcc_mod *m, const struct loom_config *conf)
{
	struct loom_config *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	memcpy(c, conf, sizeof(*c));
	free(m->conf);
	m->conf = c;
	return 0;
}

struct qos_ibcc_mod *qos_ibcc_new(struct event_base *base, const struct loom_config *conf,
				  struct store *store, char *err, size_t errlen)
{
	struct qos_ibcc_mod *m = calloc(1, sizeof(*m));

	if (!m || qos_ibcc_reconfigure(m, conf) < 0) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->store = store;
	if (!(m->iwork = work_queue_new(base, "ib_cc intent", 1, WORK_FIFO, err, errlen))) {
		qos_ibcc_free(m);
		return NULL;
	}
	return m;
}

void qos_ibcc_free(struct qos_ibcc_mod *m)
{
	if (!m)
		return;
	work_queue_free(m->iwork);
	free(m->known);
	free(m->conf);
	free(m);
}

int qos_ibcc_register(struct qos_ibcc_mod *m, struct ctl *ctl)
{
	int rc;

	static const struct ctl_arg none[] = { CTL_ARG_END };

	if ((rc = ctl_register_args(ctl, "qos-ib-cc-status", CTL_READ, cmd_status, m, none)) < 0)
		return rc;
	return ctl_register_args(ctl, "qos-ib-cc-apply", CTL_WRITE, cmd_apply, m, none);
}

void qos_ibcc_set_intent(struct qos_ibcc_mod *m, const struct intent_writer *w)
{
	m->w = *w;
	snprintf(m->node, sizeof(m->node), "%s", w->node ? w->node : "");
	m->w.node = m->node;
}

void qos_ibcc_watch(void *arg, const json_t *records, int leading)
{
	struct qos_ibcc_mod *m = arg;
	const json_t *rec = json_object_get(records, "ib_cc");
	const char *opts = json_string_value(json_object_get(rec, "options"));
	const char *version = json_string_value(json_object_get(rec, "version"));
	const char *by = json_string_value(json_object_get(rec, "by"));
	const char *path = m->conf->ib_cc_opensm_config;
	char mine[IBCC_OPTIONS_MAX], err[512], what[768];
	int same;

	if (!opts)
		return;  /* nothing replicated (or etcd unread): nothing to do */
	if (!leading) {
		if (!path[0]) {
			log_warn("ib_cc: the leader replicated OpenSM options but this node has no "
				 "ib_cc.opensm_config to write them to");
			return;
		}
		if (qos_intent_mirror_block(path, IBCC_BLOCK_BEGIN, IBCC_BLOCK_END, opts,
					    m->conf->tenant_opensm_pid_file, m->store, err,
					    sizeof(err)) < 0)
			log_warn("ib_cc: the leader's options not written to %s: %s", path, err);
		return;
	}
	/* Takeover: as qos_ib_watch. */
	same = m->conf->ib_cc.set &&
	       ibcc_opensm_options(&m->conf->ib_cc, mine, sizeof(mine)) < (int)sizeof(mine) &&
	       !strcmp(mine, opts);
	snprintf(what, sizeof(what), "ib_cc: the replicated options (version %s, by %s) %s",
		 version ? version : "?", by ? by : "?", same ? "are this node's loom.yaml's" :
		 "differ from this node's loom.yaml; OpenSM keeps the replicated ones until "
		 "qos-ib-cc-apply is run on this node");
	log_msg(same ? LOG_LVL_NOTICE : LOG_LVL_WARNING, "%s", what);
	if (m->store && store_record_event(m->store, clock_wall(), 0, same ? "info" : "warning",
					   "ha_takeover_policy", "ib_cc", NULL, what) < 0)
		log_warn("ib_cc: cannot record the takeover event");
}
