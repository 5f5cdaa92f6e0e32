/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/tc_msg.c: the qdisc messages of the linuxdcb plugin
 * built and parsed on buffers, the RED parameter arithmetic, and the
 * lp_qos <-> qdisc translation and diff (see tc_msg.h for the recipe and
 * its sources). Pure: no socket, no I/O. */
#include "autoconf.h"
#include "tc_msg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#define TCM_MSG_MIN 1024          /* every message built here fits */
#define TICKS_PER_USEC (1000.0 / 64.0)  /* /proc/net/psched: t2us / us2t */

/* ---- RED arithmetic, as iproute2's tc_red.c ------------------------------ */

/* burst + 1 - qmin/avpkt <= (1 - (1-W)^burst) / W, W = 2^-Wlog */
static int eval_ewma(uint32_t qmin, uint32_t burst, uint32_t avpkt)
{
	double W = 0.5, a = (double)burst + 1 - (double)qmin / avpkt;

	if (a < 1.0)
		return -1;
	for (int wlog = 1; wlog < 32; wlog++, W /= 2)
		if (a <= (1 - pow(1 - W, burst)) / W)
			return wlog;
	return -1;
}

/* Plog = log2((qmax - qmin) / prob), rounded up */
static int eval_P(uint32_t qmin, uint32_t qmax, double prob)
{
	int i;

	if (qmax <= qmin || qmax - qmin > INT32_MAX)
		return -1;
	prob /= (double)(qmax - qmin);
	for (i = 0; i < 32; i++) {
		if (prob > 1.0)
			break;
		prob *= 2;
	}
	return i >= 32 ? -1 : i;
}

/* stab[t >> Scell_log] = -log(1-W) * t / xmit_time, capped at 31 */
static int eval_idle_damping(int wlog, uint32_t avpkt, uint64_t rate_Bps, uint8_t *sbuf)
{
	/* tc_calc_xmittime: whole microseconds, then whole ticks; at least
	 * one tick (tc divides by zero beyond ~1 Gbyte/s) */
	unsigned us = (unsigned)(1e6 * ((double)avpkt / (double)rate_Bps));
	unsigned ticks = (unsigned)(us * TICKS_PER_USEC);
	double xmit_time = ticks ? ticks : 1;
	double lW = -log(1.0 - 1.0 / (double)(1u << wlog)) / xmit_time;
	double maxtime = 31 / lW;
	int clog;

	for (clog = 0; clog < 32; clog++)
		if (maxtime / (double)(1ull << clog) < 512)
			break;
	if (clog >= 32)
		return -1;
	sbuf[0] = 0;
	for (int i = 1; i < 255; i++) {
		double v = (double)((uint64_t)i << clog) * lW;

		sbuf[i] = v > 31 ? 31 : (uint8_t)v;
	}
	sbuf[255] = 31;
	return clog;
}

static int fls32(uint32_t x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

int tcm_red_eval(uint32_t limit, uint32_t min, uint32_t max, uint32_t avpkt, uint32_t burst,
		 unsigned percent, uint64_t rate_Bps, int ecn, struct tcm_red *out, char *err,
		 size_t errlen)
{
	int wlog, plog, clog;

	memset(out, 0, sizeof(*out));
	if (!min || min >= max || !avpkt || !percent || percent > 100 || !rate_Bps) {
		snprintf(err, errlen, "RED min %u max %u probability %u%%: needs 0 < min < max "
			 "and 1..100%%", min, max, percent);
		return -EINVAL;
	}
	if ((wlog = eval_ewma(min, burst, avpkt)) < 0 ||
	    (plog = eval_P(min, max, percent / 100.0)) < 0 ||
	    (clog = eval_idle_damping(wlog, avpkt, rate_Bps, out->stab)) < 0) {
		snprintf(err, errlen, "RED min %u max %u probability %u%%: no EWMA, probability or "
			 "idle-damping constant fits", min, max, percent);
		return -EINVAL;
	}
	/* the kernel's red_check_params */
	if (fls32(max) + wlog >= 32) {
		snprintf(err, errlen, "RED max %u with Wlog %d: the kernel refuses thresholds this "
			 "large", max, wlog);
		return -EINVAL;
	}
	out->qopt.limit = limit;
	out->qopt.qth_min = min;
	out->qopt.qth_max = max;
	out->qopt.Wlog = (uint8_t)wlog;
	out->qopt.Plog = (uint8_t)plog;
	out->qopt.Scell_log = (uint8_t)clog;
	out->qopt.flags = ecn ? TC_RED_ECN : 0;
	out->max_P = percent >= 100 ? UINT32_MAX : (uint32_t)(((uint64_t)percent << 32) / 100);
	return 0;
}

unsigned tcm_red_percent(const struct tcm_red *r)
{
	if (r->max_P)
		return (unsigned)(((uint64_t)r->max_P * 100 + (1ull << 31)) >> 32);
	if (r->qopt.Plog >= 32 || r->qopt.qth_max <= r->qopt.qth_min)
		return 0;
	/* the kernel's red_maxp(Plog) * (qth_max - qth_min) */
	return (unsigned)lround(100.0 * (double)(r->qopt.qth_max - r->qopt.qth_min) /
				(double)(1ull << r->qopt.Plog));
}

/* ---- requests ------------------------------------------------------------ */

static struct nlmsghdr *put_tc(void *buf, size_t len, uint16_t type, uint16_t flags,
			       uint32_t seq, int ifindex, uint32_t parent, uint32_t handle)
{
	struct nlmsghdr *nlh;
	struct tcmsg *tcm;

	if (len < TCM_MSG_MIN || ifindex <= 0)
		return NULL;
	memset(buf, 0, TCM_MSG_MIN);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = handle;
	return nlh;
}

#define NEW_FLAGS (NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE)

struct nlmsghdr *tcm_build_ets(void *buf, size_t len, uint32_t seq, int ifindex,
			       uint32_t handle, const struct tcm_ets *ets)
{
	struct nlmsghdr *nlh;
	struct nlattr *opt, *nest;

	if (!ets->nbands || ets->nbands > TCM_MAX_BANDS || ets->nstrict > ets->nbands ||
	    !(nlh = put_tc(buf, len, RTM_NEWQDISC, NEW_FLAGS, seq, ifindex, TC_H_ROOT, handle)))
		return NULL;
	mnl_attr_put_strz(nlh, TCA_KIND, "ets");
	opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u8(nlh, TCA_ETS_NBANDS, ets->nbands);
	if (ets->nstrict)
		mnl_attr_put_u8(nlh, TCA_ETS_NSTRICT, ets->nstrict);
	if (ets->nstrict < ets->nbands) {
		nest = mnl_attr_nest_start(nlh, TCA_ETS_QUANTA);
		for (unsigned b = ets->nstrict; b < ets->nbands; b++)
			mnl_attr_put_u32(nlh, TCA_ETS_QUANTA_BAND, ets->quanta[b]);
		mnl_attr_nest_end(nlh, nest);
	}
	nest = mnl_attr_nest_start(nlh, TCA_ETS_PRIOMAP);
	for (unsigned p = 0; p < 8; p++)
		mnl_attr_put_u8(nlh, TCA_ETS_PRIOMAP_BAND, ets->priomap[p]);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_nest_end(nlh, opt);
	return nlh;
}

struct nlmsghdr *tcm_build_red(void *buf, size_t len, uint32_t seq, int ifindex,
			       uint32_t parent, uint32_t handle, const struct tcm_red *red)
{
	struct nlmsghdr *nlh = put_tc(buf, len, RTM_NEWQDISC, NEW_FLAGS, seq, ifindex, parent,
				      handle);
	struct nlattr *opt;

	if (!nlh)
		return NULL;
	mnl_attr_put_strz(nlh, TCA_KIND, "red");
	opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_RED_PARMS, sizeof(red->qopt), &red->qopt);
	mnl_attr_put(nlh, TCA_RED_STAB, sizeof(red->stab), red->stab);
	mnl_attr_put_u32(nlh, TCA_RED_MAX_P, red->max_P);
	mnl_attr_nest_end(nlh, opt);
	return nlh;
}

struct nlmsghdr *tcm_build_del(void *buf, size_t len, uint32_t seq, int ifindex,
			       uint32_t parent, uint32_t handle)
{
	return put_tc(buf, len, RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, seq, ifindex, parent,
		      handle);
}

struct nlmsghdr *tcm_build_dump(void *buf, size_t len, uint32_t seq, int ifindex)
{
	return put_tc(buf, len, RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, seq, ifindex, 0, 0);
}

struct nlmsghdr *tcm_build_getlink(void *buf, size_t len, uint32_t seq, int ifindex)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	if (len < TCM_MSG_MIN || ifindex <= 0)
		return NULL;
	memset(buf, 0, TCM_MSG_MIN);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nlh;
}

/* ---- parsing -------------------------------------------------------------- */

static int parse_ets(const struct nlattr *opt, struct tcm_ets *e)
{
	const struct nlattr *a, *b;
	uint32_t quanta[TCM_MAX_BANDS];
	unsigned nq = 0, np = 0;

	memset(e, 0, sizeof(*e));
	mnl_attr_for_each_nested(a, opt) {
		switch (mnl_attr_get_type(a)) {
		case TCA_ETS_NBANDS:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EPROTO;
			e->nbands = mnl_attr_get_u8(a);
			break;
		case TCA_ETS_NSTRICT:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EPROTO;
			e->nstrict = mnl_attr_get_u8(a);
			break;
		case TCA_ETS_QUANTA:
			mnl_attr_for_each_nested(b, a) {
				if (mnl_attr_validate(b, MNL_TYPE_U32) < 0)
					return -EPROTO;
				if (nq < TCM_MAX_BANDS)
					quanta[nq++] = mnl_attr_get_u32(b);
			}
			break;
		case TCA_ETS_PRIOMAP:
			mnl_attr_for_each_nested(b, a) {
				if (mnl_attr_validate(b, MNL_TYPE_U8) < 0)
					return -EPROTO;
				if (np < TCM_MAX_BANDS)
					e->priomap[np++] = mnl_attr_get_u8(b);
			}
			break;
		}
	}
	if (e->nbands > TCM_MAX_BANDS || e->nstrict > e->nbands)
		return -EPROTO;
	for (unsigned i = 0; i < nq && e->nstrict + i < TCM_MAX_BANDS; i++)
		e->quanta[e->nstrict + i] = quanta[i];
	return 0;
}

static int parse_red(const struct nlattr *opt, struct tcm_red *r)
{
	const struct nlattr *a;
	int has_parms = 0;

	memset(r, 0, sizeof(*r));
	mnl_attr_for_each_nested(a, opt) {
		size_t len = mnl_attr_get_payload_len(a);

		switch (mnl_attr_get_type(a)) {
		case TCA_RED_PARMS:
			if (len < sizeof(r->qopt))
				return -EPROTO;
			memcpy(&r->qopt, mnl_attr_get_payload(a), sizeof(r->qopt));
			has_parms = 1;
			break;
		case TCA_RED_STAB:
			if (len < sizeof(r->stab))
				return -EPROTO;
			memcpy(r->stab, mnl_attr_get_payload(a), sizeof(r->stab));
			break;
		case TCA_RED_MAX_P:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EPROTO;
			r->max_P = mnl_attr_get_u32(a);
			break;
		case TCA_RED_FLAGS:   /* struct nla_bitfield32 { value, selector } */
			if (len < 8)
				return -EPROTO;
			memcpy(&r->flags_bf, mnl_attr_get_payload(a), 4);
			break;
		}
	}
	return has_parms ? 0 : -EPROTO;
}

int tcm_parse_qdisc(const struct nlmsghdr *nlh, int ifindex, struct tcm_state *st)
{
	const struct tcmsg *tcm;
	const struct nlattr *a, *opt = NULL;
	struct tcm_qdisc q;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return 0;
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*tcm))
		return -EPROTO;
	tcm = mnl_nlmsg_get_payload(nlh);
	if (tcm->tcm_ifindex != ifindex)
		return 0;
	memset(&q, 0, sizeof(q));
	q.handle = tcm->tcm_handle;
	q.parent = tcm->tcm_parent;
	mnl_attr_for_each(a, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(a) == TCA_KIND) {
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
				return -EPROTO;
			snprintf(q.kind, sizeof(q.kind), "%s", mnl_attr_get_str(a));
		} else if (mnl_attr_get_type(a) == TCA_OPTIONS) {
			opt = a;
		}
	}
	if (opt && !strcmp(q.kind, "ets")) {
		if (parse_ets(opt, &q.ets))
			return -EPROTO;
		q.has_ets = 1;
	} else if (opt && !strcmp(q.kind, "red")) {
		if (parse_red(opt, &q.red))
			return -EPROTO;
		q.has_red = 1;
	}
	if (st->n == TCM_MAX_QDISC) {
		st->truncated = 1;
		return 0;
	}
	st->q[st->n++] = q;
	return 0;
}

int tcm_parse_link(const struct nlmsghdr *nlh, int *switchdev)
{
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(struct ifinfomsg))
		return -EPROTO;
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(a) == IFLA_PHYS_SWITCH_ID && mnl_attr_get_payload_len(a))
			*switchdev = 1;
	return 0;
}

const struct tcm_qdisc *tcm_root(const struct tcm_state *st)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->q[i].parent == TC_H_ROOT)
			return &st->q[i];
	return NULL;
}

const struct tcm_qdisc *tcm_child(const struct tcm_state *st, uint32_t parent)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->q[i].parent == parent)
			return &st->q[i];
	return NULL;
}

/* ---- lp_qos <-> qdiscs ------------------------------------------------------ */

int tcm_from_qos(const struct lp_qos *want, uint64_t rate_Bps, struct tcm_want *out,
		 char *err, size_t errlen)
{
	unsigned nstrict = 0;

	memset(out, 0, sizeof(*out));
	if (want->strict_mask)
		nstrict = 8u - (unsigned)__builtin_ctz(want->strict_mask);
	for (unsigned t = 8 - nstrict; t < 8; t++)
		if (!(want->strict_mask >> t & 1) && want->ets_weight[t]) {
			snprintf(err, errlen, "traffic class %u has ETS weight %u but sits above "
				 "strict class %u: an ets qdisc's strict bands come first (class t "
				 "is band 7-t), so tc cannot express this", t, want->ets_weight[t],
				 8 - nstrict);
			return -EINVAL;
		}
	out->ets.nbands = 8;
	out->ets.nstrict = (uint8_t)nstrict;
	for (unsigned b = nstrict; b < 8; b++) {
		unsigned w = want->ets_weight[7 - b];

		out->ets.quanta[b] = w ? w * TCM_QUANTUM_PER_PERCENT : 1;
	}
	for (unsigned p = 0; p < 8; p++)
		out->ets.priomap[p] = (uint8_t)(7 - p);
	if (!rate_Bps)
		rate_Bps = 10000000 / 8;      /* tc's default "10Mbit" */
	for (unsigned t = 0; t < 8; t++) {
		const struct lp_ecn *e = &want->ecn[t];
		uint32_t limit = e->max_bytes > UINT32_MAX / 4 ? UINT32_MAX : e->max_bytes * 4;
		char e2[200];

		if (!e->enabled)
			continue;
		if (tcm_red_eval(limit, e->min_bytes, e->max_bytes, TCM_AVPKT,
				 e->min_bytes / TCM_AVPKT + 1, e->mark_percent, rate_Bps, 1,
				 &out->tc[t].red, e2, sizeof(e2))) {
			snprintf(err, errlen, "traffic class %u: %s", t, e2);
			return -EINVAL;
		}
		out->tc[t].on = 1;
	}
	return 0;
}

static int red_ecn(const struct tcm_red *r)
{
	return ((r->qopt.flags | r->flags_bf) & TC_RED_ECN) != 0;
}

static int red_harddrop(const struct tcm_red *r)
{
	return ((r->qopt.flags | r->flags_bf) & TC_RED_HARDDROP) != 0;
}

void tcm_to_qos(const struct tcm_state *st, struct lp_qos *q)
{
	const struct tcm_qdisc *root = tcm_root(st), *ch;

	memset(q->ecn, 0, sizeof(q->ecn));
	if (!root || !root->has_ets)
		return;
	for (unsigned t = 0; t < 8; t++) {
		ch = tcm_child(st, TCM_HANDLE(root->handle >> 16, 8 - t));
		if (ch && ch->has_red && red_ecn(&ch->red))
			q->ecn[t] = (struct lp_ecn){ 1, ch->red.qopt.qth_min, ch->red.qopt.qth_max,
						     (uint8_t)tcm_red_percent(&ch->red) };
	}
}

/* ---- diff --------------------------------------------------------------------- */

/* The root qdisc in `tc` words, without its handle ("" none). */
static void root_desc(const struct tcm_qdisc *q, const struct tcm_ets *e, char *out, size_t len)
{
	size_t o;

	out[0] = '\0';
	if (q && !q->has_ets) {
		snprintf(out, len, "%s", q->kind);
		return;
	}
	if (!e)
		return;
	o = (size_t)snprintf(out, len, "ets bands %u", e->nbands);
	if (e->nstrict)
		o += (size_t)snprintf(out + o, len - o, " strict %u", e->nstrict);
	if (e->nstrict < e->nbands)
		o += (size_t)snprintf(out + o, len - o, " quanta");
	for (unsigned b = e->nstrict; b < e->nbands && o < len; b++)
		o += (size_t)snprintf(out + o, len - o, " %u", e->quanta[b]);
	if (o < len)
		o += (size_t)snprintf(out + o, len - o, " priomap");
	for (unsigned p = 0; p < 8 && o < len; p++)
		o += (size_t)snprintf(out + o, len - o, " %u", e->priomap[p]);
}

static const char *const red_field[4] = { "min", "max", "probability", "ecn" };

static void red_values(const struct tcm_red *r, char v[4][160])
{
	if (!r) {
		for (int i = 0; i < 4; i++)
			v[i][0] = '\0';
		return;
	}
	snprintf(v[0], 160, "%u", r->qopt.qth_min);
	snprintf(v[1], 160, "%u", r->qopt.qth_max);
	snprintf(v[2], 160, "%u%%", tcm_red_percent(r));
	snprintf(v[3], 160, "%s%s", red_ecn(r) ? "on" : "off", red_harddrop(r) ? " harddrop" : "");
}

void tcm_plan(const struct tcm_state *cur, const struct tcm_want *want, struct tcm_plan *p)
{
	const struct tcm_qdisc *root = tcm_root(cur);
	char a[160], b[160];
	int keep;

	memset(p, 0, sizeof(*p));
	root_desc(root, root && root->has_ets ? &root->ets : NULL, a, sizeof(a));
	root_desc(NULL, &want->ets, b, sizeof(b));
	if (root && root->has_ets && !strcmp(a, b)) {
		p->major = root->handle >> 16;
		keep = 1;
	} else {
		p->root_write = 1;
		p->major = TCM_ROOT_MAJOR;
		/* an ets of loom's handle is changed in place, its children kept */
		keep = root && root->has_ets && root->handle == TCM_ROOT_HANDLE;
		p->root_del_first = root && !root->has_ets && root->handle == TCM_ROOT_HANDLE;
	}
	for (unsigned t = 0; t < 8; t++) {
		const struct tcm_qdisc *ch = keep ? tcm_child(cur, TCM_HANDLE(p->major, 8 - t)) : NULL;
		char v[4][160], w[4][160];

		p->tc[t].parent = TCM_HANDLE(p->major, 8 - t);
		p->tc[t].handle = TCM_HANDLE(p->major * 16 + 8 - t, 0);
		p->tc[t].cur = ch && ch->has_red ? &ch->red : NULL;
		red_values(p->tc[t].cur, v);
		red_values(want->tc[t].on ? &want->tc[t].red : NULL, w);
		if (want->tc[t].on) {
			if (p->tc[t].cur && !memcmp(v, w, sizeof(v)))
				continue;
			p->tc[t].write = 1;
			if (ch && ch->handle) {
				if (ch->has_red)
					p->tc[t].handle = ch->handle;   /* changed in place */
				else
					p->tc[t].del_first = ch->handle;
			}
		} else if (p->tc[t].cur) {
			p->tc[t].del = ch->handle;
		}
	}
}

int tcm_diff(const char *ifname, const struct tcm_state *cur, const struct tcm_want *want,
	     tcm_change_fn fn, void *ctx, unsigned *parts)
{
	const struct tcm_qdisc *root = tcm_root(cur);
	struct tcm_plan p;
	struct tcm_change c;
	unsigned got = 0;
	int rc;

	if (parts)
		*parts = 0;
	tcm_plan(cur, want, &p);
	memset(&c, 0, sizeof(c));
	if (p.root_write) {
		c.part = TCM_PART_ROOT;
		snprintf(c.key, sizeof(c.key), "tc ets %s", ifname);
		snprintf(c.field, sizeof(c.field), "root");
		root_desc(root, root && root->has_ets ? &root->ets : NULL, c.before,
			  sizeof(c.before));
		root_desc(NULL, &want->ets, c.after, sizeof(c.after));
		got |= c.part;
		if ((rc = fn(ctx, &c)))
			return rc;
	}
	for (int t = 7; t >= 0; t--) {
		char v[4][160], w[4][160];

		if (!p.tc[t].write && !p.tc[t].del)
			continue;
		red_values(p.tc[t].cur, v);
		red_values(want->tc[t].on ? &want->tc[t].red : NULL, w);
		c.part = 1u << t;
		snprintf(c.key, sizeof(c.key), "tc red %s tc%d", ifname, t);
		for (int f = 0; f < 4; f++) {
			if (!strcmp(v[f], w[f]))
				continue;
			snprintf(c.field, sizeof(c.field), "%s", red_field[f]);
			memcpy(c.before, v[f], sizeof(c.before));
			memcpy(c.after, w[f], sizeof(c.after));
			got |= c.part;
			if ((rc = fn(ctx, &c)))
				return rc;
		}
	}
	if (parts)
		*parts = got;
	return 0;
}
