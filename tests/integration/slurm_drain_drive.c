/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/integration/slurm_drain_drive.c: slurm_drain.sh's driver. Until the
 * isolation module calls them, nothing in loomd drains a host: this program
 * runs an event loop with the slurm module (daemon/slurm/slurm.h, no
 * topology file) and calls daemon/slurm/slurm_drain.h as that module will,
 * printing each result on one line for the test to check against
 * `scontrol show node`.
 *
 *   slurm_drain_drive [--scontrol PATH] STEP...
 *     drain:HOST:WHY   resume:HOST   one after another, each after the
 *                      previous one's result:
 *                      "OP HOST rc=NAME state=S reason=R msg=M" (tab between fields),
 *                      or "OP HOST refused rc=NAME" when refused at once
 *     burst:N:HOST     (last) N resumes of HOST asked at once; after the
 *                      first result the module is freed (as at loomd's
 *                      shutdown):
 *                      "burst queued=Q refused_busy=B" then
 *                      "burst results=R canceled=C other=O"
 * Exit 0 when every step ran (whatever its rc), 2 on bad usage. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/slurm/config_slurm.h"
#include "daemon/slurm/slurm.h"
#include "daemon/slurm/slurm_drain.h"
#include "lib/fabric/hostmap.h"

static struct event_base *base;
static struct slurm_mod *mod;
static char **steps;
static int n_steps, next_step;
static unsigned burst_results, burst_canceled, burst_other;
static int burst_freeing, finished;

static const char *rc_name(int rc)
{
	static char other[32];

	switch (rc) {
	case 0: return "0";
	case -EPERM: return "EPERM";
	case -ENOENT: return "ENOENT";
	case -EIO: return "EIO";
	case -ETIMEDOUT: return "ETIMEDOUT";
	case -ECANCELED: return "ECANCELED";
	case -EBUSY: return "EBUSY";
	case -ENOTSUP: return "ENOTSUP";
	case -EINVAL: return "EINVAL";
	}
	snprintf(other, sizeof(other), "%d", rc);
	return other;
}

static void run_next(void);

static void step_done(void *arg, const struct slurm_node_result *r)
{
	char *step = arg;

	printf("%.*s\trc=%s\tstate=%s\treason=%s\tmsg=%s\n", (int)strcspn(step, "\n"), step,
	       rc_name(r->rc), r->state, r->reason, r->msg);
	fflush(stdout);
	free(step);
	run_next();
}

static void burst_done(void *arg, const struct slurm_node_result *r)
{
	(void)arg;
	if (r->rc == -ECANCELED)
		burst_canceled++;
	else if (r->rc == 0 || r->rc == -EPERM)
		burst_results++;
	else
		burst_other++;
	if (!burst_freeing) {
		/* loomd shutting down (main frees the module): the waiting
		 * requests are canceled */
		burst_freeing = 1;
		event_base_loopbreak(base);
	}
}

/* "OP HOST" from "op:host:why", for the printed lines. */
static char *label(const char *op, const char *host)
{
	char *s = NULL;

	if (asprintf(&s, "%s %s", op, host) < 0)
		exit(1);
	return s;
}

static void run_next(void)
{
	char *s, *op, *host, *why, *lab;
	int rc;

	if (next_step >= n_steps) {
		finished = 1;
		event_base_loopbreak(base);
		return;
	}
	s = steps[next_step++];
	op = strtok(s, ":");
	host = strtok(NULL, ":");
	why = strtok(NULL, "");
	if (!op || !host) {
		fprintf(stderr, "bad step\n");
		exit(2);
	}
	if (!strcmp(op, "burst")) {
		unsigned n = (unsigned)atoi(host), queued = 0, busy = 0;

		host = why;
		for (unsigned i = 0; i < n; i++) {
			rc = slurm_resume(mod, host, burst_done, NULL);
			if (rc == 0)
				queued++;
			else if (rc == -EBUSY)
				busy++;
		}
		printf("burst queued=%u refused_busy=%u\n", queued, busy);
		fflush(stdout);
		return;
	}
	lab = label(op, host);
	if (!strcmp(op, "drain"))
		rc = slurm_drain(mod, host, why ? why : "", step_done, lab);
	else if (!strcmp(op, "resume"))
		rc = slurm_resume(mod, host, step_done, lab);
	else {
		fprintf(stderr, "bad step %s\n", op);
		exit(2);
	}
	if (rc < 0) {
		free(lab);
		printf("%s %s\trefused\trc=%s\n", op, host, rc_name(rc));
		fflush(stdout);
		run_next();
	}
}

int main(int argc, char **argv)
{
	struct slurm_conf conf;
	struct hostmap_rule hosts;
	char err[512];
	int i = 1;

	memset(&conf, 0, sizeof(conf));
	memset(&hosts, 0, sizeof(hosts));
	snprintf(conf.slurm_scontrol, sizeof(conf.slurm_scontrol), "/usr/bin/scontrol");
	if (argc > 2 && !strcmp(argv[1], "--scontrol")) {
		snprintf(conf.slurm_scontrol, sizeof(conf.slurm_scontrol), "%s", argv[2]);
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [--scontrol PATH] drain:HOST:WHY|resume:HOST|burst:N:HOST...\n",
			argv[0]);
		return 2;
	}
	steps = argv + i;
	n_steps = argc - i;
	if (!(base = event_base_new()) ||
	    !(mod = slurm_new(base, &conf, &hosts, "/nonexistent/loom.db", err, sizeof(err)))) {
		fprintf(stderr, "slurm_new: %s\n", err);
		return 1;
	}
	run_next();
	if (!finished)
		event_base_dispatch(base);
	slurm_free(mod);
	if (burst_freeing)
		printf("burst results=%u canceled=%u other=%u\n", burst_results, burst_canceled,
		       burst_other);
	event_base_free(base);
	return 0;
}
