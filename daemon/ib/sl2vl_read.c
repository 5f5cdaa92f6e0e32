/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/sl2vl_read.c: see sl2vl_read.h.
 *
 * SubnGet(SLtoVLMappingTable), attribute 0x17, modifier in << 8 | out, by
 * directed route, on an umad agent of our own through mad_window.h: a
 * switch port pair costs one SMP and there are r x k of them a switch (r
 * ports, k toward switches: 36 x 18 for a leaf of a 2:1 tree), five times
 * the forwarding tables' SMPs on a fat tree, so they go out up to
 * max_smps at once rather than one after the other (ibsim: 45360 pairs of
 * a 648-host tree in 1 s one at a time). The pairs go in batches, so the
 * window's bookkeeping stays bounded on the largest fabrics, and in the
 * order every switch's first pair, then every switch's second, ...: a
 * switch's management processor answers one SMP at a time (issue 44's
 * latency model: 100 us), so a window filled with one switch's pairs would
 * wait on that switch while the others idle.
 *
 * The hop into a CA is followed by nothing and closes no credit loop: no
 * table toward a CA is read, nor a CA port's own (the injection link). */
#include "autoconf.h"
#include "daemon/ib/sl2vl_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "daemon/ib/mad_window.h"

#define PORT_ACTIVE 4          /* PortInfo:PortState */
#define BATCH 65536            /* pairs a window run */

struct pair {
	uint32_t sw;           /* index into the routes */
	uint16_t rank;         /* its place among its switch's pairs */
	uint8_t in, out;
	uint8_t answered;
	uint8_t vl[16];
};

struct reader {
	const struct dr_routes *d;
	struct pair *pairs;    /* the batch */
};

static int build_get(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	struct reader *rd = ctx;
	const struct pair *pr = &rd->pairs[i];
	int len = dr_smp_build(buf, blen, IB_MAD_METHOD_GET, IB_ATTR_SLVL_TABLE,
			       (uint32_t)pr->in << 8 | pr->out, &rd->d->r[pr->sw].path, tid, NULL);

	if (len < 0)
		snprintf(err, errlen, "cannot build the SLtoVLMappingTable Get for switch "
			 "0x%016llx", (unsigned long long)rd->d->r[pr->sw].n->guid);
	return len;
}

static int take_answer(void *ctx, size_t i, uint8_t *mad)
{
	struct reader *rd = ctx;
	struct pair *pr = &rd->pairs[i];
	const uint8_t *data = mad + IB_SMP_DATA_OFFS;

	if (!mad_window_is_get_resp(mad, IB_SMI_DIRECT_CLASS, IB_ATTR_SLVL_TABLE))
		return 0;
	/* Bit 15 of a directed-route SMP's status is its D bit, not an error. */
	if ((mad_get_field(mad, 0, IB_MAD_STATUS_F) & 0x7fff) == 0) {
		for (unsigned k = 0; k < 8; k++) {  /* SL 2k: the high nibble */
			pr->vl[2 * k] = data[k] >> 4;
			pr->vl[2 * k + 1] = data[k] & 15;
		}
		pr->answered = 1;
	}
	return 1;
}

/* The usable pairs of switch d->r[i], appended from *n (cap grown). */
static int pairs_of(const struct fab *fab, const struct dr_routes *d, size_t i,
		    struct pair **all, size_t *n, size_t *cap)
{
	const struct fab_node *sw = d->r[i].n;
	uint16_t rank = 0;

	for (unsigned out = 1; out <= sw->nports; out++) {
		const struct fab_port *po = &sw->ports[out];
		const struct fab_node *peer = po->has_peer ? fab_find(fab, po->peer_guid) : NULL;

		if (!peer || peer->type != IBT_NODE_SWITCH)
			continue;
		for (unsigned in = 1; in <= sw->nports; in++) {
			if (in == out || (!sw->ports[in].has_peer &&
					   sw->ports[in].state != PORT_ACTIVE))
				continue;
			if (*n == *cap) {
				size_t c = *cap ? 2 * *cap : 1024;
				struct pair *bigger = realloc(*all, c * sizeof(*bigger));

				if (!bigger)
					return -ENOMEM;
				*all = bigger;
				*cap = c;
			}
			(*all)[(*n)++] = (struct pair){ .sw = (uint32_t)i, .rank = rank++,
							.in = (uint8_t)in, .out = (uint8_t)out };
		}
	}
	return 0;
}

/* Spread over the switches: by rank, then switch. */
static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

int sl2vl_read(const struct disc_ib_params *p, const struct fab *fab, const struct dr_routes *d,
	       struct rl_read *r, char *err, size_t errlen)
{
	struct mad_window_params wp = { .fd = -1, .agent = -1 };
	struct mad_window_req *req = NULL;
	struct reader rd = { .d = d };
	struct pair *all = NULL;
	size_t n = 0, cap = 0;
	int fd = -1, agent = -1, rc = 0;

	for (size_t i = 0; i < d->n && rc == 0; i++)
		rc = pairs_of(fab, d, i, &all, &n, &cap);
	if (rc == 0 && n)
		qsort(all, n, sizeof(*all), pair_cmp);
	if (rc == 0 && n && !(req = calloc(n < BATCH ? n : BATCH, sizeof(*req))))
		rc = -ENOMEM;
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!n || (rc = dr_umad_open(p, &fd, &agent, err, errlen)) < 0)
		goto out;
	wp.fd = fd;
	wp.agent = agent;
	dr_window_params(p, &wp);
	for (size_t at = 0; at < n && rc == 0; at += BATCH) {
		size_t k = n - at < BATCH ? n - at : BATCH;
		struct mad_window_stats st = { 0 };

		rd.pairs = all + at;
		rc = mad_window_run(&wp, k, req, build_get, take_answer, &rd, &st, err, errlen);
		r->smps += st.sent;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		if (all[i].answered && rl_read_add_sl2vl(r, d->r[all[i].sw].n->guid, all[i].in,
							 all[i].out, all[i].vl) < 0) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
out:
	dr_umad_close(fd, agent);
	free(req);
	free(all);
	return rc;
}
