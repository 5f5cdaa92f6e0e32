/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/slurm_drain.c: see slurm_drain.h. */
#include "autoconf.h"
#include "daemon/slurm/slurm_drain.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/work.h"
#include "daemon/slurm/slurm_impl.h"
#include "daemon/slurm/slurm_scontrol.h"
#include "lib/slurm/slurm_node.h"

#define SLURM_DRAIN_MAX_PENDING 256
#define SLURM_DRAIN_WHY_MAX 200
#define SLURM_SHOW_OUT 16384

struct slurm_drains {
	struct work_queue *work;
	atomic_int cancel;             /* set at shutdown: a running scontrol is killed */
};

enum drain_op { OP_DRAIN, OP_RESUME };

/* One request: what the worker needs is copied in. */
struct djob {
	enum drain_op op;
	char host[SLURM_NODE_NAME_LEN];
	char reason[SLURM_DRAIN_WHY_MAX + 8];   /* "loom: WHY" */
	char scontrol[PATH_MAX];
	const atomic_int *cancel;
	slurm_node_done_fn done;
	void *arg;
	/* results */
	struct slurm_node node;        /* as read last (node.state "" unknown) */
	char msg[2048];
};

/* `scontrol show node -o HOST` into j->node: 0, or -errno with j->msg. */
static int show(struct djob *j, const char *when)
{
	const char *const args[] = { "show", "node", "-o", j->host, NULL };
	char *out = malloc(SLURM_SHOW_OUT), why[1024], perr[512];
	int rc, prc;

	memset(&j->node, 0, sizeof(j->node));
	if (!out) {
		snprintf(j->msg, sizeof(j->msg), "out of memory");
		return -ENOMEM;
	}
	rc = slurm_scontrol_run(j->scontrol, args, SLURM_SCONTROL_TIMEOUT_MS, j->cancel, out,
				SLURM_SHOW_OUT, why, sizeof(why));
	if (rc == 0 || rc == -EIO) {
		/* "Node X not found" is an exit 1 */
		prc = slurm_node_parse(out, j->host, &j->node, perr, sizeof(perr));
		if (prc == -ENOENT) {
			snprintf(j->msg, sizeof(j->msg), "no node %s in Slurm (scontrol: %s)", j->host,
				 perr);
			rc = -ENOENT;
		} else if (rc == 0 && prc < 0) {
			snprintf(j->msg, sizeof(j->msg), "%s: %s", when, perr);
			rc = -EIO;
		} else if (rc < 0) {
			snprintf(j->msg, sizeof(j->msg), "%s: %s", when, why);
			memset(&j->node, 0, sizeof(j->node));
		}
	} else {
		snprintf(j->msg, sizeof(j->msg), "%s: %s", when, why);
	}
	free(out);
	return rc;
}

/* `scontrol update nodename=HOST state=STATE [reason=...]`: 0, or -errno with j->msg. */
static int update(struct djob *j, const char *state)
{
	char node[SLURM_NODE_NAME_LEN + 16], st[32], reason[sizeof(j->reason) + 8];
	char out[1024], why[1024];
	const char *const args[] = { "update", node, st, j->op == OP_DRAIN ? reason : NULL, NULL };
	int rc;

	snprintf(node, sizeof(node), "nodename=%s", j->host);
	snprintf(st, sizeof(st), "state=%s", state);
	snprintf(reason, sizeof(reason), "reason=%s", j->reason);
	rc = slurm_scontrol_run(j->scontrol, args, SLURM_SCONTROL_TIMEOUT_MS, j->cancel, out,
				sizeof(out), why, sizeof(why));
	if (rc < 0)
		snprintf(j->msg, sizeof(j->msg), "%s", why);
	return rc;
}

/* "STATE, Reason=REASON" or "STATE" */
static void seen(const struct slurm_node *n, char *out, size_t len)
{
	if (n->reason[0])
		snprintf(out, len, "%s, Reason=%s", n->state, n->reason);
	else
		snprintf(out, len, "%s", n->state);
}

/* The update, then the node read back; what Slurm shows decides (scontrol
 * 22.05 may say "Invalid node state specified" for an undrain it did). */
static int change(struct djob *j, int drain)
{
	char was[800], said[1024] = "";
	int urc, rc;

	if ((urc = update(j, drain ? "drain" : "undrain")) == -ECANCELED)
		return urc;
	if (urc < 0)
		snprintf(said, sizeof(said), "%.1000s", j->msg);
	if ((rc = show(j, drain ? "drained; reading its state back" :
			   "resumed; reading its state back")) < 0) {
		if (rc == -ECANCELED)
			return rc;
		if (urc < 0)
			snprintf(j->msg, sizeof(j->msg), "%.1000s", said);
		return urc;   /* 0: done, msg says it could not be read back */
	}
	seen(&j->node, was, sizeof(was));
	if (j->node.drained == drain && (!drain || slurm_node_reason_is_loom(j->node.reason))) {
		snprintf(j->msg, sizeof(j->msg), "%s %s (%s)%s%.700s", drain ? "drained" : "resumed",
			 j->host, was, said[0] ? "; scontrol said: " : "", said);
		return 0;
	}
	if (j->node.drained && !slurm_node_reason_is_loom(j->node.reason)) {
		snprintf(j->msg, sizeof(j->msg), "%s was drained %sby someone else meanwhile (%s)",
			 j->host, drain ? "" : "again ", was);
		return -EPERM;
	}
	snprintf(j->msg, sizeof(j->msg), "%.700s%sSlurm shows %s %s", said,
		 said[0] ? "; " : "", j->host, was);
	return urc < 0 ? urc : -EIO;
}

/* Before the update, from the node as read: 1 go on, else the answer. */
static int check_drain(struct djob *j, const char *was)
{
	if (j->node.drained && slurm_node_reason_is_loom(j->node.reason)) {
		snprintf(j->msg, sizeof(j->msg), "%s is already drained by loom (%s)", j->host, was);
		return 0;
	}
	if (j->node.drained || j->node.down) {
		snprintf(j->msg, sizeof(j->msg), "%s is %s by someone else (%s): left as it is",
			 j->host, j->node.drained ? "drained" : "down", was);
		return -EPERM;
	}
	return 1;
}

static int check_resume(struct djob *j, const char *was)
{
	if (!j->node.drained) {
		snprintf(j->msg, sizeof(j->msg), "%s is not drained (%s): nothing to do", j->host, was);
		return 0;
	}
	if (!slurm_node_reason_is_loom(j->node.reason)) {
		snprintf(j->msg, sizeof(j->msg), "%s is drained by someone else (%s): not resumed",
			 j->host, was);
		return -EPERM;
	}
	return 1;
}

static int job_run(void *arg, char *err, size_t errlen)
{
	struct djob *j = arg;
	int drain = j->op == OP_DRAIN, rc;
	char was[800];

	if ((rc = show(j, "reading its state")) == 0) {
		seen(&j->node, was, sizeof(was));
		rc = drain ? check_drain(j, was) : check_resume(j, was);
		if (rc == 1)
			rc = change(j, drain);
	}
	snprintf(err, errlen, "%s", j->msg);
	return rc;
}

static void job_done(void *arg, int rc, const char *err)
{
	struct djob *j = arg;
	struct slurm_node_result res = {
		.rc = rc, .state = j->node.state, .reason = j->node.reason, .msg = j->msg,
	};

	if (rc == -ECANCELED && !j->msg[0])
		snprintf(j->msg, sizeof(j->msg), "%s of %s canceled: %s",
			 j->op == OP_DRAIN ? "drain" : "resume", j->host,
			 err && err[0] ? err : "loomd is shutting down");
	/* not logged here: the caller makes the event (logged once there) */
	j->done(j->arg, &res);
}

static const struct work_ops drain_ops = { .run = job_run, .done = job_done, .free = free };

static int submit(struct slurm_mod *m, enum drain_op op, const char *host, const char *why,
		  slurm_node_done_fn done, void *arg)
{
	struct slurm_drains *d = m->drains;
	struct djob *j;
	size_t n = 0;
	int rc;

	if (!d || !m->set.scontrol[0])
		return -ENOTSUP;
	if (!done || !host || !slurm_node_name_ok(host))
		return -EINVAL;
	if (work_running(d->work) + work_waiting(d->work) >= SLURM_DRAIN_MAX_PENDING)
		return -EBUSY;
	if (!(j = calloc(1, sizeof(*j))))
		return -ENOMEM;
	j->op = op;
	snprintf(j->host, sizeof(j->host), "%s", host);
	snprintf(j->scontrol, sizeof(j->scontrol), "%s", m->set.scontrol);
	n = (size_t)snprintf(j->reason, sizeof(j->reason), "loom: ");
	for (const char *p = why ? why : ""; *p && n < 6 + SLURM_DRAIN_WHY_MAX; p++)
		j->reason[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
	j->reason[n] = '\0';
	j->cancel = &d->cancel;
	j->done = done;
	j->arg = arg;
	if ((rc = work_submit(d->work, &drain_ops, j)) < 0) {
		free(j);
		return rc;
	}
	return 0;
}

int slurm_drain(struct slurm_mod *s, const char *host, const char *why, slurm_node_done_fn done,
		void *arg)
{
	return submit(s, OP_DRAIN, host, why, done, arg);
}

int slurm_resume(struct slurm_mod *s, const char *host, slurm_node_done_fn done, void *arg)
{
	return submit(s, OP_RESUME, host, NULL, done, arg);
}

int slurm_drains_start(struct slurm_mod *m, char *err, size_t errlen)
{
	struct slurm_drains *d = calloc(1, sizeof(*d));

	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	atomic_init(&d->cancel, 0);
	if (!(d->work = work_queue_new(m->base, "slurm drain", 1, WORK_FIFO, err, errlen))) {
		free(d);
		return -ENOMEM;
	}
	m->drains = d;
	return 0;
}

void slurm_drains_stop(struct slurm_mod *m)
{
	struct slurm_drains *d = m->drains;

	if (!d)
		return;
	atomic_store(&d->cancel, 1);
	work_queue_free(d->work);
	m->drains = NULL;
	free(d);
}
