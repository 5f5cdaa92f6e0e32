/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_ibcc.c: "qos-ib-cc-apply" and "qos-ib-cc-status" (see
 * qos_ibcc.h). Both touch one small file and answer on the loop: no job.
 * The block's writing, signalling, HA record and mirror are osm_block.c's;
 * this file says what the options are and what the answers add. */
#include "autoconf.h"
#include "daemon/qos/qos_ibcc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon/qos/config_qos_ib.h"
#include "daemon/core/ctl.h"
#include "daemon/qos/osm_block.h"
#include "lib/util/proto.h"

/* Read by OpenSM at its start only: a change needs OpenSM restarted. */
#define START_ONLY "cc_key and cc_max_outstanding_mads are read by OpenSM at its start only"

struct qos_ibcc_mod {
	struct store *store;
	struct ibcc_config cc;    /* loom.yaml's ib_cc */
	/* The drift last seen ("" in policy), NULL before the first status. */
	char *known;
	struct osm_block *block;  /* loom's block of ib_cc.opensm_config */
};

/* The options of an apply or a status (carry: unused). */
static int options_text(void *mod, struct ctl_req *req, char *opts, size_t len, int *carry)
{
	const struct qos_ibcc_mod *m = mod;

	(void)carry;
	if (!m->cc.set) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "no ib_cc section in loom.yaml: loom does "
			      "not manage InfiniBand congestion control");
		return -1;
	}
	if (!osm_block_path(m->block)[0]) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "ib_cc.opensm_config is not set: loom has no "
			      "OpenSM options file to write");
		return -1;
	}
	if (ibcc_opensm_options(&m->cc, opts, len) >= (int)len) {
		ctl_reply_err(req, PROTO_ERR_INTERNAL, "ib_cc: the OpenSM options do not fit %zu "
			      "bytes", len);
		return -1;
	}
	return 0;
}

static int own_options(void *mod, char *opts, size_t len)
{
	const struct ibcc_config *cc = &((struct qos_ibcc_mod *)mod)->cc;

	return cc->set && ibcc_opensm_options(cc, opts, len) < (int)len ? 0 : -1;
}

static const char *applied_detail(void *mod, const char *opts)
{
	(void)opts;
	return ((struct qos_ibcc_mod *)mod)->cc.enable ? "congestion_control TRUE" :
							 "congestion_control FALSE";
}

static void apply_answer(void *mod, json_t *ans, const char *why, int carry)
{
	(void)mod;
	(void)carry;
	json_object_set_new(ans, "note", json_string(START_ONLY));
	json_object_set_new(ans, "overridden", json_string(why));
}

static const struct osm_block_ops block_ops = {
	.name = "ib_cc", .apply_cmd = "qos-ib-cc-apply",
	.begin = IBCC_BLOCK_BEGIN, .end = IBCC_BLOCK_END, .max = IBCC_OPTIONS_MAX,
	.options = options_text, .mine = own_options, .drift = ibcc_file_drift,
	.applied_detail = applied_detail, .answer = apply_answer,
};

static void cmd_status(struct ctl_req *req, json_t *args, void *arg)
{
	struct qos_ibcc_mod *m = arg;
	const char *path = osm_block_path(m->block);
	char opts[IBCC_OPTIONS_MAX], why[512];

	(void)args;
	if (options_text(m, req, opts, sizeof(opts), NULL) < 0)
		return;
	osm_block_check(m->block, opts, why, sizeof(why));
	/* An event when the file's state changed since the last look. */
	if (osm_block_note(m->store, "ib_cc", path, m->known, why) || !m->known) {
		free(m->known);
		m->known = strdup(why);
	}
	ctl_reply_ok(req, json_pack("{s:s, s:b, s:s, s:b, s:s}", "file", path, "in_policy",
				    !why[0], "drift", why, "enable", m->cc.enable,
				    "ports", "not read back: see docs/ib-cc-notes.md"));
}

int qos_ibcc_reconfigure(struct qos_ibcc_mod *m, const struct ib_cc_conf *conf,
			 const char *osm_pid_file)
{
	m->cc = conf->ib_cc;
	osm_block_reconfigure(m->block, conf->ib_cc_opensm_config, osm_pid_file);
	return 0;
}

struct qos_ibcc_mod *qos_ibcc_new(struct event_base *base, const struct ib_cc_conf *conf,
				  const char *osm_pid_file, struct store *store, char *err,
				  size_t errlen)
{
	struct qos_ibcc_mod *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->store = store;
	if (!(m->block = osm_block_new(base, &block_ops, m, store, err, errlen))) {
		free(m);
		return NULL;
	}
	qos_ibcc_reconfigure(m, conf, osm_pid_file);
	return m;
}

void qos_ibcc_free(struct qos_ibcc_mod *m)
{
	if (!m)
		return;
	osm_block_free(m->block);
	free(m->known);
	free(m);
}

int qos_ibcc_register(struct qos_ibcc_mod *m, struct ctl *ctl)
{
	int rc;

	if ((rc = ctl_handle(ctl, "qos-ib-cc-status", cmd_status, m)) < 0)
		return rc;
	return osm_block_register(m->block, ctl);  /* qos-ib-cc-apply */
}

void qos_ibcc_set_opensm(struct qos_ibcc_mod *m, struct osm_report *osm)
{
	osm_block_set_opensm(m->block, osm);
}

void qos_ibcc_set_intent(struct qos_ibcc_mod *m, const struct intent_writer *w)
{
	osm_block_set_intent(m->block, w);
}

void qos_ibcc_watch(void *arg, const json_t *records, int leading)
{
	struct qos_ibcc_mod *m = arg;

	osm_block_watch(m->block, records, leading);
}
