/* daemon/ar/ar_read.c: the ARInfo probe of every switch of a subnet, in a
 * `loomd --read-ar` child (see ar_read.h).
 *
 * Why not libibmad's smp_query_via() per switch: it waits for each answer,
 * and the probe's common case is a switch that never answers (a switch
 * whose SMA does not know 0xFF20 may not; ibsim 0.10 hands such a Get back
 * at once with a timeout status). Sequentially that is (retries + 1) x timeout per
 * switch: 800 ms with loom's defaults, 13 minutes for 1000 switches. Here
 * the Gets go out on our own umad agent, up to MAX_SMPS at once, each with
 * its own deadline; the time is about ceil(switches / MAX_SMPS) x (retries
 * + 1) x timeout when nothing answers, and one round trip per window when
 * everything does.
 *
 * Deadlines are kept here as well as by the kernel: umad_recv() is given
 * the time to the nearest deadline and an expired Get is sent again until
 * its tries are spent. A timeout the local MAD layer reports (umad status
 * ETIMEDOUT: the kernel after the send's timeout; ibsim at once, for every
 * SMP it drops, vendor attributes included) ends a try the same way, and
 * the switch's reason says the tries ended so, not by waiting out the
 * timeout. The TID names the switch and the try: a late answer to an
 * earlier try still counts, a late timeout of an earlier try does not end
 * the current one.
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
#include "lib/util/log.h"
#include "daemon/ib/walker.h"

#define AR_READ_DEFAULT_TIMEOUT_MS 200  /* discovery.timeout_ms's default */
/* A TID's low 32 bits: tid_base + (switch index << TRY_BITS | try). */
#define TRY_BITS 5                      /* discovery.retries is at most 20 */
#define TRY_MASK ((1u << TRY_BITS) - 1)

enum { SW_WAITING, SW_IN_FLIGHT, SW_DONE };

struct sw_state {
	int state;
	unsigned tries;
	double deadline;             /* monotonic seconds, while in flight */
	int answered;
	unsigned status;
	unsigned local_timeouts;     /* tries the local port reported timed out */
	uint8_t data[AR_MAD_DATA_LEN];
};

struct engine {
	int fd, agent;
	const struct dr_routes *d;
	struct sw_state *sw;
	size_t *flight;              /* indices in flight */
	size_t n_flight, max_flight, peak;
	uint32_t tid_base;
	unsigned timeout_ms, retries;
	uint64_t smps;
	uint8_t *sbuf, *rbuf;
	size_t blen;
};

/* One try of SubnGet(ARInfo), modifier 0 (the current state), to switch i. */
static int send_get(struct engine *e, size_t i, char *err, size_t errlen)
{
	uint32_t tid = (uint32_t)(e->tid_base + ((uint32_t)i << TRY_BITS |
						 ((e->sw[i].tries + 1) & TRY_MASK)));
	int len = dr_smp_build(e->sbuf, e->blen, IB_MAD_METHOD_GET, AR_MAD_ATTR_INFO, 0,
			       &e->d->r[i].path, tid, NULL);

	if (len < 0) {
		snprintf(err, errlen, "cannot build the ARInfo Get for switch 0x%016llx",
			 (unsigned long long)e->d->r[i].n->guid);
		return -EINVAL;
	}
	if (umad_send(e->fd, e->agent, e->sbuf, len, (int)e->timeout_ms, 0) < 0) {
		snprintf(err, errlen, "cannot send SMPs on the local port");
		return -EIO;
	}
	e->smps++;
	e->sw[i].tries++;
	e->sw[i].deadline = clock_mono() + e->timeout_ms / 1000.0;
	return 0;
}

static void finish(struct engine *e, size_t slot)
{
	e->sw[e->flight[slot]].state = SW_DONE;
	e->flight[slot] = e->flight[--e->n_flight];
}

/* A try of switch i ended without an answer: again, or no answer at all. */
static int try_lost(struct engine *e, size_t slot, char *err, size_t errlen)
{
	size_t i = e->flight[slot];

	if (e->sw[i].tries <= e->retries)
		return send_get(e, i, err, errlen);
	finish(e, slot);
	return 0;
}

static long slot_of(const struct engine *e, size_t i)
{
	for (size_t s = 0; s < e->n_flight; s++)
		if (e->flight[s] == i)
			return (long)s;
	return -1;
}

/* One MAD from umad_recv(): an answer, or the kernel's timeout of a send. */
static int received(struct engine *e, char *err, size_t errlen)
{
	uint8_t *mad = umad_get_mad(e->rbuf);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) - e->tid_base;
	size_t i = (size_t)(tid >> TRY_BITS);
	long slot;

	if (i >= e->d->n || (slot = slot_of(e, i)) < 0)
		return 0;  /* not ours, or a late answer to a switch already done */
	if (umad_status(e->rbuf)) {
		/* The timeout of an earlier try, already sent again: not this one. */
		if ((tid & TRY_MASK) != (e->sw[i].tries & TRY_MASK))
			return 0;
		e->sw[i].local_timeouts++;
		return try_lost(e, (size_t)slot, err, errlen);
	}
	if (mad_get_field(mad, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_GET_RESPONSE ||
	    mad_get_field(mad, 0, IB_MAD_ATTRID_F) != AR_MAD_ATTR_INFO)
		return 0;
	e->sw[i].answered = 1;
	/* Bit 15 of a directed-route SMP's status is its D bit, not an error. */
	e->sw[i].status = mad_get_field(mad, 0, IB_MAD_STATUS_F) & 0x7fff;
	memcpy(e->sw[i].data, mad + IB_SMP_DATA_OFFS, AR_MAD_DATA_LEN);
	finish(e, (size_t)slot);
	return 0;
}

static int engine_loop(struct engine *e, char *err, size_t errlen)
{
	size_t next = 0, n = e->d->n;
	int rc;

	while (next < n || e->n_flight) {
		double now, first;
		int wait_ms, len = IB_MAD_SIZE;

		while (e->n_flight < e->max_flight && next < n) {
			e->sw[next].state = SW_IN_FLIGHT;
			e->flight[e->n_flight++] = next;
			if ((rc = send_get(e, next++, err, errlen)) < 0)
				return rc;
		}
		if (e->n_flight > e->peak)
			e->peak = e->n_flight;
		now = clock_mono();
		first = e->sw[e->flight[0]].deadline;
		for (size_t s = 1; s < e->n_flight; s++)
			if (e->sw[e->flight[s]].deadline < first)
				first = e->sw[e->flight[s]].deadline;
		/* Never 0: umad_recv() then blocks without polling. */
		wait_ms = first > now ? (int)((first - now) * 1000.0) + 1 : 1;
		rc = umad_recv(e->fd, e->rbuf, &len, wait_ms);
		if (rc >= 0 && (rc = received(e, err, errlen)) < 0)
			return rc;
		if (rc < 0 && rc != -ETIMEDOUT && rc != -EWOULDBLOCK && rc != -EINTR &&
		    rc != -ENOSPC) {
			snprintf(err, errlen, "receiving SMPs on the local port: %s", strerror(-rc));
			return rc;
		}
		now = clock_mono();
		for (size_t s = 0; s < e->n_flight;) {
			size_t before = e->n_flight;

			if (e->sw[e->flight[s]].deadline <= now &&
			    (rc = try_lost(e, s, err, errlen)) < 0)
				return rc;
			if (e->n_flight == before)
				s++;  /* still in flight (sent again, or not due) */
		}
	}
	return 0;
}

/* Probe every switch of routes d; the engine state in *e. */
static int probe_all(const struct disc_ib_params *p, const struct dr_routes *d,
		     struct engine *e, char *err, size_t errlen)
{
	int rc;

	memset(e, 0, sizeof(*e));
	e->fd = e->agent = -1;
	e->d = d;
	e->timeout_ms = p->timeout_ms > 0 ? (unsigned)p->timeout_ms : AR_READ_DEFAULT_TIMEOUT_MS;
	e->retries = p->retries > 0 ? (unsigned)p->retries : 0;
	e->max_flight = p->max_smps > 0 ? (size_t)p->max_smps : 1;
	e->tid_base = (uint32_t)mad_trid();
	e->blen = umad_size() + IB_MAD_SIZE;
	e->sw = calloc(d->n + 1, sizeof(*e->sw));
	e->flight = calloc(e->max_flight, sizeof(*e->flight));
	e->sbuf = calloc(1, e->blen);
	e->rbuf = calloc(1, e->blen);
	if (!e->sw || !e->flight || !e->sbuf || !e->rbuf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = dr_umad_open(p, &e->fd, &e->agent, err, errlen)) < 0)
		return rc;
	return engine_loop(e, err, errlen);
}

static void engine_clear(struct engine *e)
{
	dr_umad_close(e->fd, e->agent);
	free(e->sw);
	free(e->flight);
	free(e->sbuf);
	free(e->rbuf);
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
			.answered = e->sw[i].answered, .mad_status = e->sw[i].status,
			.data = e->sw[i].data, .tries = e->sw[i].tries,
			.timeout_ms = e->timeout_ms, .local_timeouts = e->sw[i].local_timeouts,
		};
		json_t *o = ar_status_switch(&pr);

		rc = o ? walker_put_line("switch", o, out) : -ENOMEM;
	}
	if (rc == 0)
		rc = walker_put_line("done", json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:I}",
						"started", started, "finished", finished,
						"switches", (json_int_t)d->n,
						"smps", (json_int_t)e->smps,
						"timeout_ms", (json_int_t)e->timeout_ms,
						"retries", (json_int_t)e->retries,
						"in_flight", (json_int_t)e->peak), out);
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
	json_t *arr = json_array(), *done = NULL;
	size_t at = 0;

	if (!arr) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (at < len && !done) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
		json_t *line = json_loadb(buf + at, n, 0, NULL), *v;

		at += n + (nl ? 1 : 0);
		if (!line)
			break;
		if ((v = json_object_get(line, "switch")) && json_is_object(v))
			json_array_append(arr, v);
		else if ((v = json_object_get(line, "done")) && json_is_object(v))
			done = json_incref(v);
		json_decref(line);
	}
	if (!done || at != len) {
		snprintf(err, errlen, "%s was cut short or malformed (%zu bytes)", what, len);
		json_decref(done);
		json_decref(arr);
		return -EPROTO;
	}
	*probe = done;
	*switches = arr;
	return 0;
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
