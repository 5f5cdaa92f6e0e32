/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ar/ar_read.c: the ARInfo probe of every switch of a subnet, in a
 * `loomd --read-ar` child (see ar_read.h).
 *
 * The Gets go out on our own umad agent through daemon/ib/mad_window.c, up
 * to MAX_SMPS at once, each with its own deadline: the probe's common case is
 * a switch that never answers (a switch whose SMA does not know 0xFF20 may
 * not; ibsim 0.10 hands such a Get back at once with a timeout status), and
 * libibmad's smp_query_via() would wait (retries + 1) x timeout for each.
 *
 * Stream to loomd: one JSON object a line, {"switch": {...}} per switch
 * (lib/ar/ar_status.h), then {"done": {...probe...}}; a stream without the
 * "done" line was cut short. */
#include "autoconf.h"
#include "daemon/ar/ar_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "lib/util/clock.h"
#include "lib/ar/ar_mad.h"
#include "lib/ar/ar_status.h"
#include "daemon/ib/dr_route.h"
#include "daemon/ib/mad_window.h"
#include "lib/util/log.h"
#include "daemon/ib/walker.h"


/* What each switch answered (the window keeps its tries). */
struct sw_answer {
	unsigned status;
	uint8_t data[AR_MAD_DATA_LEN];
};

struct engine {
	int fd, agent;
	const struct dr_routes *d;
	struct mad_window_params wp;
	struct mad_window_req *req;
	struct sw_answer *sw;
	struct mad_window_stats st;
};

/* One try of SubnGet(ARInfo), modifier 0 (the current state), to switch i. */
static int build_get(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	struct engine *e = ctx;
	int len = dr_smp_build(buf, blen, IB_MAD_METHOD_GET, AR_MAD_ATTR_INFO, 0,
			       &e->d->r[i].path, tid, NULL);

	if (len < 0)
		snprintf(err, errlen, "cannot build the ARInfo Get for switch 0x%016llx",
			 (unsigned long long)e->d->r[i].n->guid);
	return len;
}

static int take_answer(void *ctx, size_t i, uint8_t *mad)
{
	struct engine *e = ctx;

	if (!mad_window_is_get_resp(mad, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO))
		return 0;
	/* Bit 15 of a directed-route SMP's status is its D bit, not an error. */
	e->sw[i].status = mad_get_field(mad, 0, IB_MAD_STATUS_F) & 0x7fff;
	memcpy(e->sw[i].data, mad + IB_SMP_DATA_OFFS, AR_MAD_DATA_LEN);
	return 1;
}

/* Probe every switch of routes d; the engine state in *e. */
static int probe_all(const struct disc_ib_params *p, const struct dr_routes *d,
		     struct engine *e, char *err, size_t errlen)
{
	int rc;

	e->d = d;
	dr_window_params(p, &e->wp);
	e->req = calloc(d->n + 1, sizeof(*e->req));
	e->sw = calloc(d->n + 1, sizeof(*e->sw));
	if (!e->req || !e->sw) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = dr_umad_open(p, &e->fd, &e->agent, err, errlen)) < 0)
		return rc;
	e->wp.fd = e->fd;
	e->wp.agent = e->agent;
	return mad_window_run(&e->wp, d->n, e->req, build_get, take_answer, e, &e->st, err,
			      errlen);
}

static void engine_clear(struct engine *e)
{
	dr_umad_close(e->fd, e->agent);
	free(e->req);
	free(e->sw);
}

/* ---- the child -------------------------------------------------------------- */

static int write_results(const struct dr_routes *d, const struct engine *e, double started,
			 double finished, FILE *out)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < d->n; i++) {
		const struct fab_node *n = d->r[i].n;
		struct ar_status_probe pr = {
			.guid = n->guid, .desc = n->desc, .lid = n->ports[0].lid,
			.answered = e->req[i].answered, .mad_status = e->sw[i].status,
			.data = e->sw[i].data, .tries = e->req[i].tries,
			.timeout_ms = e->wp.timeout_ms, .local_timeouts = e->req[i].local_timeouts,
		};
		json_t *o = ar_status_switch(&pr);

		rc = o ? walker_put_line("switch", o, out) : -ENOMEM;
	}
	if (rc == 0)
		rc = walker_put_line("done", json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:I}",
						"started", started, "finished", finished,
						"switches", (json_int_t)d->n,
						"smps", (json_int_t)e->st.sent,
						"timeout_ms", (json_int_t)e->wp.timeout_ms,
						"retries", (json_int_t)e->wp.retries,
						"in_flight", (json_int_t)e->st.peak), out);
	if (rc == 0 && fflush(out) != 0)
		rc = -EIO;
	return rc;
}

/* The child's answer: every switch's ARInfo, probed by directed route. */
static int probe_and_write(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			   char *err, size_t errlen)
{
	struct dr_routes d = { 0 };
	struct engine e;
	double started, finished;
	int rc;

	memset(&e, 0, sizeof(e));
	e.fd = e.agent = -1;
	if ((rc = dr_routes_build(p, fab, &d, err, errlen)) < 0)
		goto out;
	started = clock_wall();
	if ((rc = probe_all(p, &d, &e, err, errlen)) < 0)
		goto out;
	finished = clock_wall();
	if ((rc = write_results(&d, &e, started, finished, out)) < 0)
		snprintf(err, errlen, "cannot write the results: %s", strerror(-rc));
out:
	engine_clear(&e);
	dr_routes_clear(&d);
	return rc;
}

int ar_read_main(int argc, char **argv)
{
	return walker_child_main(argc, argv, "loomd-read-ar", probe_and_write);
}

/* ---- the parent ------------------------------------------------------------- */

int ar_read_parse_stream(const char *buf, size_t len, const char *what, json_t **probe,
			 json_t **switches, char *err, size_t errlen)
{
	return walker_parse_lines(buf, len, "switch", what, probe, switches, err, errlen);
}

int ar_read_run(const struct disc_ib_params *p, json_t **probe, json_t **switches,
		char *err, size_t errlen)
{
	char *out = NULL;
	size_t len = 0;
	int rc;

	*probe = *switches = NULL;
	if ((rc = walker_run("--read-ar", p, &out, &len, NULL, err, errlen)) == 0)
		rc = ar_read_parse_stream(out, len, "the AR probe's answer", probe, switches,
					  err, errlen);
	free(out);
	return rc;
}
