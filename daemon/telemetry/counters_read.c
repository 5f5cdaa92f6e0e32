/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/counters_read.c: see counters_read.h. */
#include "autoconf.h"
#include "daemon/telemetry/counters_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "daemon/ib/mad_build.h"
#include "daemon/ib/mad_window.h"
#include "daemon/ib/walker.h"
#include "daemon/telemetry/counters_wire.h"
#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"
#include "lib/telemetry/pma_details.h"
#include "lib/util/clock.h"

#define COUNTERS_DEFAULT_TIMEOUT_MS 200  /* discovery.timeout_ms's default */

/* One PMA: a switch (its port 0 LID) or one CA port (its own LID). */
struct agent {
	const struct fab_node *n;
	uint16_t lid;
	int answered;
	unsigned status;             /* MAD status of ClassPortInfo */
	struct pma_caps caps;        /* zero unless answered with status 0 */
	size_t first, n_targets;     /* its ports: targets[first .. first + n_targets) */
	/* A switch's PortCounters sum (AllPortSelect), and the last read's. */
	const struct counters_sum *before;
	int sum_answered;
	unsigned sum_status;
	int sum_decoded;
	struct pma_sample sum;
	int quiet;                   /* the sum did not move: PortCountersExtended only */
	unsigned no_details;         /* detail attributes it answered with a MAD status */
};

/* One port to read. */
struct target {
	size_t agent;
	unsigned port;
	int answered;                /* PortCounters came back */
	unsigned status;             /* its MAD status */
	int decoded;                 /* 0, or the decoder's -errno */
	int ext_answered;
	unsigned ext_status;
	int ext_decoded;
	unsigned tries;
	int same;                    /* read with PortCountersExtended only (agent quiet) */
	struct pma_sample s;
	uint32_t clear;              /* counters to clear (bit per enum pma_counter) */
	int cleared;                 /* the PortCountersSet came back with status 0 */
	struct pma_details ds;       /* the detail attributes that came back */
};

struct reader {
	struct agent *agents;
	size_t n_agents;
	size_t *cpi;                 /* agents that get a ClassPortInfo Get */
	size_t n_cpi;
	const struct counters_pma *known;  /* capabilities an earlier read found, sorted */
	size_t n_known;
	const struct counters_sum *sums;   /* switches' sums of the last read, sorted */
	size_t n_sums;
	size_t *sum;                 /* agents that get a PortCounters sum */
	size_t n_sum;
	struct target *targets;
	size_t n_targets;
	size_t *pc;                  /* targets that get PortCounters (or ext_all's Get) */
	size_t n_pc;
	size_t *ext;                 /* targets that also get PortCountersExtended */
	size_t n_ext;
	size_t *clr;                 /* targets that get a PortCountersSet */
	size_t n_clr;
	unsigned details;            /* detail attributes to read (enum pma_detail_attr bits) */
	enum pma_detail_attr det;    /* the one being read: targets in det_t */
	size_t *det_t;
	size_t n_det_t;
	uint64_t detail_mads;
	int clear_near_full;         /* clear counters at three quarters of their range */
	struct mad_window_req *req;  /* the phase's requests */
	struct mad_window_stats total;
	unsigned timeout_ms, retries;
	struct mad_window_rtt rtt;   /* the Gets' round trips, from phase to phase */
};

/* ---- building and taking MADs ------------------------------------------------ */

/* A PerfMgt MAD (method, attr) to the PMA at lid, with its data field. */
static int build_pma(uint16_t lid, int method, uint16_t attr, uint8_t *data, uint32_t tid,
		     uint8_t *buf, size_t blen)
{
	const struct madb_req r = { .mgmt_class = IB_PERFORMANCE_CLASS, .method = method,
				    .attr = attr, .tid = tid, .lid = lid, .data = data };

	return madb_build(buf, blen, &r);
}

static int build_pma_get(uint16_t lid, uint16_t attr, unsigned port, uint32_t tid, uint8_t *buf,
			 size_t blen)
{
	uint8_t data[IB_PC_DATA_SZ];

	memset(data, 0, sizeof(data));
	if (attr != PMA_ATTR_CLASS_PORT_INFO)
		mad_set_field(data, 0, IB_PC_PORT_SELECT_F, port);
	return build_pma(lid, IB_MAD_METHOD_GET, attr, data, tid, buf, blen);
}

/* PortCountersSet clearing the counters of `mask` (bit c: enum
 * pma_counter c; IBA 16.1.3.5's CounterSelect bits 0..15 are the same
 * order, and PortXmitWait is CounterSelect2's bit 0) of `port`. */
static int build_pma_clear(uint16_t lid, unsigned port, uint32_t mask, uint32_t tid,
			   uint8_t *buf, size_t blen)
{
	uint8_t data[IB_PC_DATA_SZ];

	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_PORT_SELECT_F, port);
	mad_set_field(data, 0, IB_PC_COUNTER_SELECT_F, mask & 0xffff);
	mad_set_field(data, 0, IB_PC_COUNTER_SELECT2_F, (mask >> PMA_XMIT_WAIT) & 1);
	return build_pma(lid, IB_MAD_METHOD_SET, PMA_ATTR_PORT_COUNTERS, data, tid, buf, blen);
}

/* The answer's status, or -1 when mad is not a GetResp of attr. */
static int response_status(uint8_t *mad, uint16_t attr)
{
	if (!mad_window_is_get_resp(mad, IB_PERFORMANCE_CLASS, attr))
		return -1;
	return (int)mad_get_field(mad, 0, IB_MAD_STATUS_F);
}

/* The Get of attr (port: PortSelect) to the PMA of agent a, or -EINVAL
 * with err. */
static int build_get(const struct reader *r, size_t a, uint16_t attr, unsigned port,
		     uint32_t tid, uint8_t *buf, size_t blen, char *err, size_t errlen)
{
	int len = build_pma_get(r->agents[a].lid, attr, port, tid, buf, blen);

	if (len < 0)
		snprintf(err, errlen, "cannot build a PMA Get of attribute 0x%04x for LID %u",
			 attr, r->agents[a].lid);
	return len;
}

static int build_cpi(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	const struct reader *r = ctx;

	return build_get(r, r->cpi[i], PMA_ATTR_CLASS_PORT_INFO, 0, tid, buf, blen, err, errlen);
}

static int take_cpi(void *ctx, size_t i, uint8_t *mad)
{
	struct reader *r = ctx;
	struct agent *a = &r->agents[r->cpi[i]];
	int st = response_status(mad, PMA_ATTR_CLASS_PORT_INFO);

	if (st < 0)
		return 0;
	a->answered = 1;
	a->status = (unsigned)st;
	if (st == 0)
		pma_decode_class_port_info(mad + IB_PC_DATA_OFFS, PMA_DATA_LEN, &a->caps);
	return 1;
}

/* The attribute that reads a port of agent a: PortCounters, or
 * PortCountersExtended alone where it has every counter. */
static uint16_t pc_attr(const struct agent *a)
{
	return a->caps.ext_all ? PMA_ATTR_PORT_COUNTERS_EXT : PMA_ATTR_PORT_COUNTERS;
}

/* Does agent a's sum (AllPortSelect) tell whether its ports' PortCounters
 * moved? On switches whose ports need PortCounters besides
 * PortCountersExtended (ext_all PMAs need one Get a port anyway). */
static int sums_help(const struct agent *a)
{
	return a->n->type == IBT_NODE_SWITCH && a->answered && !a->status && a->n_targets &&
	       a->caps.all_ports && a->caps.ext && !a->caps.ext_all;
}

static int build_sum(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	const struct reader *r = ctx;

	return build_get(r, r->sum[i], PMA_ATTR_PORT_COUNTERS, PMA_PORT_ALL, tid, buf, blen, err,
			 errlen);
}

static int take_sum(void *ctx, size_t i, uint8_t *mad)
{
	struct reader *r = ctx;
	struct agent *a = &r->agents[r->sum[i]];
	int st = response_status(mad, PMA_ATTR_PORT_COUNTERS);

	if (st < 0)
		return 0;
	a->sum_answered = 1;
	a->sum_status = (unsigned)st;
	if (st == 0)
		a->sum_decoded = pma_decode_port_counters(mad + IB_PC_DATA_OFFS, PMA_DATA_LEN,
							  PMA_PORT_ALL, &a->caps, &a->sum);
	return 1;
}

static int build_pc(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		    size_t errlen)
{
	const struct reader *r = ctx;
	const struct target *t = &r->targets[r->pc[i]];

	return build_get(r, t->agent, pc_attr(&r->agents[t->agent]), t->port, tid, buf, blen, err,
			 errlen);
}

static int take_pc(void *ctx, size_t i, uint8_t *mad)
{
	struct reader *r = ctx;
	struct target *t = &r->targets[r->pc[i]];
	const struct agent *a = &r->agents[t->agent];
	int st = response_status(mad, pc_attr(a));

	if (st < 0)
		return 0;
	t->answered = 1;
	t->status = (unsigned)st;
	if (st == 0 && a->caps.ext_all)
		t->decoded = pma_decode_port_counters_ext_all(mad + IB_PC_DATA_OFFS, PMA_DATA_LEN,
							      t->port, &a->caps, &t->s);
	else if (st == 0)
		t->decoded = pma_decode_port_counters(mad + IB_PC_DATA_OFFS, PMA_DATA_LEN, t->port,
						      &a->caps, &t->s);
	return 1;
}

static int build_ext(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	const struct reader *r = ctx;
	const struct target *t = &r->targets[r->ext[i]];

	return build_get(r, t->agent, PMA_ATTR_PORT_COUNTERS_EXT, t->port, tid, buf, blen, err,
			 errlen);
}

static int take_ext(void *ctx, size_t i, uint8_t *mad)
{
	struct reader *r = ctx;
	struct target *t = &r->targets[r->ext[i]];
	int st = response_status(mad, PMA_ATTR_PORT_COUNTERS_EXT);

	if (st < 0)
		return 0;
	t->ext_answered = 1;
	t->ext_status = (unsigned)st;
	if (st == 0)
		t->ext_decoded = pma_decode_port_counters_ext(mad + IB_PC_DATA_OFFS, PMA_DATA_LEN,
							      t->port, &t->s);
	return 1;
}

static int build_clr(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	const struct reader *r = ctx;
	const struct target *t = &r->targets[r->clr[i]];
	int len = build_pma_clear(r->agents[t->agent].lid, t->port, t->clear, tid, buf, blen);

	if (len < 0)
		snprintf(err, errlen, "cannot build a PortCountersSet for LID %u",
			 r->agents[t->agent].lid);
	return len;
}

static int take_clr(void *ctx, size_t i, uint8_t *mad)
{
	struct reader *r = ctx;
	struct target *t = &r->targets[r->clr[i]];
	int st = response_status(mad, PMA_ATTR_PORT_COUNTERS);

	if (st < 0)
		return 0;
	t->cleared = st == 0;
	return 1;
}

/* The counters of t to clear: those of 32 bits or less at three quarters
 * of their range (OpenSM's PerfMgr's rule), before they stop at all ones.
 * 64-bit extended counters never need it. */
static uint32_t near_full(const struct target *t)
{
	uint32_t mask = 0;

	for (int c = 0; c < PMA_N_COUNTERS; c++)
		if (t->s.bits[c] && t->s.bits[c] <= 32 && cdelta_near_full(t->s.v[c], t->s.bits[c]))
			mask |= 1u << c;
	return mask;
}

/* ---- the plan: which PMAs and ports ------------------------------------------ */

static int add_agent(struct reader *r, const struct fab_node *n, uint16_t lid)
{
	struct agent *a = &r->agents[r->n_agents++];

	memset(a, 0, sizeof(*a));
	a->n = n;
	a->lid = lid;
	a->first = r->n_targets;
	return 0;
}

static void add_target(struct reader *r, unsigned port)
{
	struct target *t = &r->targets[r->n_targets++];

	memset(t, 0, sizeof(*t));
	t->agent = r->n_agents - 1;
	t->port = port;
	r->agents[t->agent].n_targets++;
}

static int build_det(void *ctx, size_t i, uint32_t tid, uint8_t *buf, size_t blen, char *err,
		     size_t errlen)
{
	const struct reader *r = ctx;
	const struct target *t = &r->targets[r->det_t[i]];

	return build_get(r, t->agent, pma_detail_attr_id(r->det), t->port, tid, buf, blen, err,
			 errlen);
}

/* A MAD status: the PMA has no such attribute (IBA: unsupported attribute
 * or method), and is not asked it again until its capabilities are. */
static int take_det(void *ctx, size_t i, uint8_t *mad)
{
	struct reader *r = ctx;
	struct target *t = &r->targets[r->det_t[i]];
	int st = response_status(mad, pma_detail_attr_id(r->det));

	if (st < 0)
		return 0;
	if (st)
		r->agents[t->agent].no_details |= 1u << r->det;
	else
		pma_decode_details(r->det, mad + IB_PC_DATA_OFFS, PMA_DATA_LEN, t->port, &t->ds);
	return 1;
}

/* Every cabled port with a LID to address its PMA by. */
static int plan_targets(const struct fab *fab, struct reader *r, char *err, size_t errlen)
{
	size_t ports = fab_count_ports(fab) + 1, nodes = fab->n_nodes + 1;

	r->agents = calloc(ports + nodes, sizeof(*r->agents));
	r->targets = calloc(ports, sizeof(*r->targets));
	r->pc = calloc(ports, sizeof(*r->pc));
	r->ext = calloc(ports, sizeof(*r->ext));
	r->sum = calloc(nodes, sizeof(*r->sum));
	r->clr = calloc(ports, sizeof(*r->clr));
	r->det_t = calloc(ports, sizeof(*r->det_t));
	r->cpi = calloc(ports + nodes, sizeof(*r->cpi));
	r->req = calloc(ports + nodes, sizeof(*r->req));
	if (!r->agents || !r->targets || !r->pc || !r->ext || !r->sum || !r->clr || !r->det_t ||
	    !r->cpi || !r->req) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];

		if (n->type == IBT_NODE_SWITCH) {
			const struct fab_port *p0 = fab_port(n, 0);

			if (!p0 || !p0->lid)
				continue;
			add_agent(r, n, p0->lid);
			for (unsigned port = 1; port <= n->nports; port++) {
				const struct fab_port *fp = fab_port(n, port);

				if (fp && fp->has_peer)
					add_target(r, port);
			}
			continue;
		}
		for (unsigned port = 1; port <= n->nports; port++) {
			const struct fab_port *fp = fab_port(n, port);

			if (!fp || !fp->has_peer || !fp->lid)
				continue;
			add_agent(r, n, fp->lid);
			add_target(r, port);
		}
	}
	return 0;
}

static int cmp_pma(const void *x, const void *y)
{
	const struct counters_pma *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return (int)a->lid - (int)b->lid;
}

static int cmp_sum(const void *x, const void *y)
{
	const struct counters_sum *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return (int)a->lid - (int)b->lid;
}

/* The mark of agent a's ports (counters_wire_ports_mark). */
static uint32_t ports_mark(const struct reader *r, const struct agent *a)
{
	unsigned ports[256];
	size_t n = a->n_targets < 256 ? a->n_targets : 256;

	for (size_t i = 0; i < n; i++)
		ports[i] = r->targets[a->first + i].port;
	return counters_wire_ports_mark(ports, n);
}

/* Switches whose sum did not move since the last read (same node, LID
 * and ports) are quiet: their ports' PortCounters are as then. */
static void find_quiet(struct reader *r)
{
	for (size_t i = 0; i < r->n_sum; i++) {
		struct agent *a = &r->agents[r->sum[i]];
		struct counters_sum key = { .guid = a->n->guid, .lid = a->lid };

		if (!a->sum_answered || a->sum_status || a->sum_decoded || !r->n_sums)
			continue;
		a->before = bsearch(&key, r->sums, r->n_sums, sizeof(key), cmp_sum);
		a->quiet = a->before && a->before->ports_mark == ports_mark(r, a) &&
			   pma_sums_unchanged(&a->before->s, &a->sum);
	}
}

/* Agents whose capabilities an earlier read found (same node, same LID)
 * take them; the others get a ClassPortInfo Get. */
static void use_known(struct reader *r)
{
	for (size_t i = 0; i < r->n_agents; i++) {
		struct agent *a = &r->agents[i];
		struct counters_pma key = { .guid = a->n->guid, .lid = a->lid };
		const struct counters_pma *k = r->n_known ? bsearch(&key, r->known, r->n_known,
								     sizeof(key), cmp_pma) : NULL;

		if (!k) {
			r->cpi[r->n_cpi++] = i;
			continue;
		}
		a->answered = 1;
		a->status = 0;
		a->no_details = k->no_details & PMA_DA_ALL;
		pma_caps_of(&a->caps, k->cap_mask, k->cap_mask2);
	}
}

/* The PMA a target (a port) is read through: its switch, or its CA port. */
static size_t target_pma(const void *ctx, size_t t)
{
	const struct reader *r = ctx;

	return r->targets[t].agent;
}

static int run_phase(struct reader *r, const struct mad_window_params *wp, size_t n,
		     mad_window_build_fn build, mad_window_answer_fn take, char *err,
		     size_t errlen)
{
	struct mad_window_stats st = { 0 };
	int rc = mad_window_run(wp, n, r->req, build, take, r, &st, err, errlen);

	r->total.sent += st.sent;
	if (st.peak > r->total.peak)
		r->total.peak = st.peak;
	return rc;
}

/* A phase over ports (list: target indices, ordered a switch's ports after
 * one another) asks them round robin over the PMAs (mad_window_spread): a
 * switch's PMA answers one MAD at a time, and a window of one switch's
 * ports would wait on it alone. */
static int run_phase_spread(struct reader *r, const struct mad_window_params *wp, size_t *list,
			    size_t n, mad_window_build_fn build, mad_window_answer_fn take,
			    char *err, size_t errlen)
{
	if (mad_window_spread(list, n, target_pma, r) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return run_phase(r, wp, n, build, take, err, errlen);
}

static int read_all(const struct disc_ib_params *p, const struct fab *fab, struct reader *r,
		    char *err, size_t errlen)
{
	struct mad_window_params wp = { .fd = -1, .agent = -1 };  /* io NULL: umad */
	const char *ca = p->ca && *p->ca ? p->ca : NULL;
	int fd, agent, rc;

	if ((rc = plan_targets(fab, r, err, errlen)) < 0)
		return rc;
	wp.timeout_ms = r->timeout_ms;
	wp.retries = r->retries;
	wp.max_flight = p->max_smps > 0 ? (size_t)p->max_smps : 1;
	/* Gets may be asked twice: a try but the last is sent again after the
	 * round trips seen, not after a whole timeout (mad_window.h). */
	wp.rtt = &r->rtt;
	if (umad_init() < 0 || (fd = umad_open_port(ca, p->port)) < 0) {
		snprintf(err, errlen, "cannot open local port %s/%d for PMA queries",
			 ca ? ca : "(first HCA)", p->port);
		return -ENODEV;
	}
	if ((agent = umad_register(fd, IB_PERFORMANCE_CLASS, 1, 0, NULL)) < 0) {
		umad_close_port(fd);
		snprintf(err, errlen, "cannot register for Performance Management MADs");
		return -EIO;
	}
	wp.fd = fd;
	wp.agent = agent;
	use_known(r);
	rc = run_phase(r, &wp, r->n_cpi, build_cpi, take_cpi, err, errlen);
	/* The switches' sums come before their ports' counters: a sum then
	 * never counts more than the port counters read after it, and the
	 * next read's comparison is sound. */
	for (size_t i = 0; rc == 0 && i < r->n_agents; i++)
		if (sums_help(&r->agents[i]))
			r->sum[r->n_sum++] = i;
	if (rc == 0)
		rc = run_phase(r, &wp, r->n_sum, build_sum, take_sum, err, errlen);
	if (rc == 0)
		find_quiet(r);
	for (size_t i = 0; rc == 0 && i < r->n_targets; i++) {
		if (r->agents[r->targets[i].agent].quiet)
			r->targets[i].same = 1;
		else
			r->pc[r->n_pc++] = i;
	}
	if (rc == 0)
		rc = run_phase_spread(r, &wp, r->pc, r->n_pc, build_pc, take_pc, err, errlen);
	for (size_t i = 0; rc == 0 && i < r->n_pc; i++)
		r->targets[r->pc[i]].tries = r->req[i].tries;
	for (size_t i = 0; rc == 0 && i < r->n_targets; i++) {
		const struct target *t = &r->targets[i];
		const struct agent *a = &r->agents[t->agent];

		if (t->same || (t->answered && !t->status && !t->decoded && a->caps.ext &&
				!a->caps.ext_all))
			r->ext[r->n_ext++] = i;
	}
	if (rc == 0)
		rc = run_phase_spread(r, &wp, r->ext, r->n_ext, build_ext, take_ext, err, errlen);
	/* A port read with PortCountersExtended only answered when that did. */
	for (size_t i = 0; rc == 0 && i < r->n_ext; i++) {
		struct target *t = &r->targets[r->ext[i]];

		if (!t->same)
			continue;
		t->tries = r->req[i].tries;
		t->answered = t->ext_answered;
		t->status = t->ext_status;
		t->decoded = t->ext_decoded;
	}
	/* The detail attributes asked (telemetry.details_every), one Get per
	 * port each, of the ports whose counters came back, where the PMA did
	 * not refuse them before. */
	for (int d = 0; rc == 0 && d < PMA_N_DETAIL_ATTRS; d++) {
		if (!(r->details & (1u << d)))
			continue;
		r->det = (enum pma_detail_attr)d;
		r->n_det_t = 0;
		for (size_t i = 0; i < r->n_targets; i++) {
			const struct target *t = &r->targets[i];

			if (t->answered && !t->status && !t->decoded &&
			    !(r->agents[t->agent].no_details & (1u << d)))
				r->det_t[r->n_det_t++] = i;
		}
		r->detail_mads += r->n_det_t;
		rc = run_phase_spread(r, &wp, r->det_t, r->n_det_t, build_det, take_det, err,
				      errlen);
	}
	/* Last, and only when configured: clear what is about to stop. The
	 * answer says which were cleared after this sample, so that the next
	 * read counts from zero, exactly. */
	for (size_t i = 0; rc == 0 && r->clear_near_full && i < r->n_targets; i++) {
		struct target *t = &r->targets[i];

		if (t->answered && !t->status && !t->decoded && (t->clear = near_full(t)))
			r->clr[r->n_clr++] = i;
	}
	/* A clear asked twice could clear what came between: full timeouts. */
	wp.rtt = NULL;
	if (rc == 0 && r->n_clr)
		rc = run_phase_spread(r, &wp, r->clr, r->n_clr, build_clr, take_clr, err, errlen);
	mad_window_drain(fd);
	umad_unregister(fd, agent);
	umad_close_port(fd);
	return rc;
}

/* ---- the child's answer --------------------------------------------------------- */

/* Why a port has no counters, or NULL when it has them. */
static const char *no_counters(const struct reader *r, const struct target *t, char *buf,
			       size_t len)
{
	const struct agent *a = &r->agents[t->agent];
	const char *attr = a->caps.ext_all || t->same ? "PortCountersExtended" : "PortCounters";

	if (a->answered && a->status) {
		snprintf(buf, len, "ClassPortInfo answered with MAD status 0x%04x", a->status);
		return buf;
	}
	if (!t->answered) {
		snprintf(buf, len, "no answer to %s after %u tries of %u ms", attr, t->tries,
			 r->timeout_ms);
		return buf;
	}
	if (t->status) {
		snprintf(buf, len, "%s answered with MAD status 0x%04x", attr, t->status);
		return buf;
	}
	if (t->decoded == -EPROTO) {
		snprintf(buf, len, "%s answered for another port", attr);
		return buf;
	}
	if (t->decoded) {
		snprintf(buf, len, "%s could not be read: %s", attr, strerror(-t->decoded));
		return buf;
	}
	return NULL;
}

/* Target t as the wire's port (counters_wire.h). */
static void wire_port(const struct reader *r, const struct target *t, struct counters_port *o)
{
	const struct agent *a = &r->agents[t->agent];

	memset(o, 0, sizeof(*o));
	o->guid = a->n->guid;
	o->port = t->port;
	o->lid = a->lid;
	o->is_switch = a->n->type == IBT_NODE_SWITCH;
	o->tries = t->tries;
	snprintf(o->node, sizeof(o->node), "%s", a->n->desc);
	if (no_counters(r, t, o->reason, sizeof(o->reason)))
		return;
	o->answered = 1;
	o->same = t->same;
	/* A 32-bit value stands when PortCountersExtended did not come back. */
	if (t->ext_answered && (t->ext_status || t->ext_decoded))
		o->ext_error = t->ext_status ? COUNTERS_EXT_REFUSED : COUNTERS_EXT_UNREADABLE;
	o->s = t->s;
	o->ds = t->ds;
	/* Asked and confirmed, or asked and not (the counters then go on from
	 * where they were: the next delta says so). */
	if (t->cleared)
		o->cleared = t->clear;
	else
		o->clear_failed = t->clear;
}

/* Agent a's sum, for the next read: when every port of it answered in
 * full and none was cleared (what the stored samples then hold is what
 * the sum counted). Its error counters and PortXmitWait only. */
static int sum_stands(const struct reader *r, const struct agent *a, struct counters_sum *m)
{
	char why[128];

	if (!a->sum_answered || a->sum_status || a->sum_decoded)
		return 0;
	for (size_t i = a->first; i < a->first + a->n_targets; i++) {
		const struct target *t = &r->targets[i];

		if (no_counters(r, t, why, sizeof(why)) || t->clear ||
		    (t->ext_answered && (t->ext_status || t->ext_decoded)))
			return 0;
	}
	memset(m, 0, sizeof(*m));
	m->guid = a->n->guid;
	m->lid = a->lid;
	m->ports_mark = ports_mark(r, a);
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (!pma_counter_is_error((enum pma_counter)c) && c != PMA_XMIT_WAIT)
			continue;
		m->s.v[c] = a->sum.v[c];
		m->s.bits[c] = a->sum.bits[c];
	}
	return 1;
}

static int answer(const struct disc_ib_params *p, const struct fab *fab, int clear, FILE *out,
		  char *err, size_t errlen)
{
	struct reader r;
	struct counters_answer known;
	const char *more;
	size_t more_len = 0;
	double started, finished;
	size_t answered = 0;
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&known, 0, sizeof(known));
	if ((more = walker_child_more(&more_len)) &&
	    counters_wire_read_known(more, more_len, &known, err, errlen) < 0) {
		counters_answer_free(&known);
		return -EPROTO;
	}
	if (known.n_pmas)
		qsort(known.pmas, known.n_pmas, sizeof(*known.pmas), cmp_pma);
	if (known.n_sums)
		qsort(known.sums, known.n_sums, sizeof(*known.sums), cmp_sum);
	r.known = known.pmas;
	r.n_known = known.n_pmas;
	r.sums = known.sums;
	r.n_sums = known.n_sums;
	r.clear_near_full = clear;
	r.details = known.details & PMA_DA_ALL;
	r.timeout_ms = p->timeout_ms > 0 ? (unsigned)p->timeout_ms : COUNTERS_DEFAULT_TIMEOUT_MS;
	r.retries = p->retries > 0 ? (unsigned)p->retries : 0;
	started = clock_wall();
	rc = read_all(p, fab, &r, err, errlen);
	finished = clock_wall();
	if (rc < 0)
		goto out;
	/* The capabilities, for the next read. */
	for (size_t i = 0; rc == 0 && i < r.n_agents; i++) {
		const struct agent *a = &r.agents[i];
		struct counters_pma m = { a->n->guid, a->lid, a->caps.cap_mask, a->caps.cap_mask2,
					  a->no_details };

		if (a->answered && !a->status)
			rc = counters_wire_put_pma(out, &m);
	}
	/* The sums, for the next read. */
	for (size_t i = 0; rc == 0 && i < r.n_sum; i++) {
		struct counters_sum m;

		if (sum_stands(&r, &r.agents[r.sum[i]], &m))
			rc = counters_wire_put_sum(out, &m);
	}
	for (size_t i = 0; rc == 0 && i < r.n_targets; i++) {
		struct counters_port o;

		wire_port(&r, &r.targets[i], &o);
		answered += o.answered;
		rc = counters_wire_put_port(out, &o);
	}
	if (rc == 0) {
		struct counters_done d = {
			.started = started, .finished = finished, .ports = r.n_targets,
			.answered = answered, .mads = r.total.sent, .in_flight = r.total.peak,
			.timeout_ms = r.timeout_ms, .retries = r.retries,
			.detail_mads = r.detail_mads,
		};

		rc = counters_wire_put_done(out, &d);
	}
	if (rc < 0)
		snprintf(err, errlen, "cannot write the counters: %s", strerror(-rc));
out:
	counters_answer_free(&known);
	free(r.cpi);
	free(r.agents);
	free(r.targets);
	free(r.pc);
	free(r.sum);
	free(r.ext);
	free(r.clr);
	free(r.det_t);
	free(r.req);
	return rc;
}

int counters_read_answer(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			 char *err, size_t errlen)
{
	return answer(p, fab, 0, out, err, errlen);
}

static int clear_answer(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			char *err, size_t errlen)
{
	return answer(p, fab, 1, out, err, errlen);
}

int counters_read_main(int argc, char **argv)
{
	int clear = argc > 0 && !strcmp(argv[0], COUNTERS_READ_CLEAR_MODE);

	return walker_child_main(argc, argv, "loomd-read-counters",
				 clear ? clear_answer : counters_read_answer);
}

/* ---- the parent -------------------------------------------------------------- */

int counters_read_run(const struct disc_ib_params *p, const struct fab *fab, int clear,
		      const struct counters_answer *known, struct counters_answer *a, char *err,
		      size_t errlen)
{
	const char *mode = clear ? COUNTERS_READ_CLEAR_MODE : COUNTERS_READ_MODE;
	char *out = NULL, *more = NULL;
	size_t len = 0, more_len = 0;
	FILE *mem = NULL;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	if (fab && known && (known->n_pmas || known->n_sums || known->details)) {
		if (!(mem = open_memstream(&more, &more_len)))
			rc = -ENOMEM;
		if (rc == 0 && known->details)
			rc = counters_wire_put_details(mem, known->details);
		for (size_t i = 0; rc == 0 && i < known->n_pmas; i++)
			rc = counters_wire_put_pma(mem, &known->pmas[i]);
		for (size_t i = 0; rc == 0 && i < known->n_sums; i++)
			rc = counters_wire_put_sum(mem, &known->sums[i]);
		if (mem && fclose(mem) != 0 && rc == 0)
			rc = -ENOMEM;
		if (rc < 0) {
			free(more);
			snprintf(err, errlen, "out of memory");
			return rc;
		}
	}
	rc = fab ? walker_run_fabric_more(mode, p, fab, more, more_len, &out, &len, err, errlen)
		 : walker_run(mode, p, &out, &len, NULL, err, errlen);
	free(more);
	if (rc == 0 && (rc = counters_wire_read(out, len, a, err, errlen)) < 0)
		counters_answer_free(a);
	else if (rc == 0 && fab && known)
		a->details = known->details & PMA_DA_ALL;  /* what it was asked */
	free(out);
	return rc;
}
