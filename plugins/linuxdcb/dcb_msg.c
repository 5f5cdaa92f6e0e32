/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/dcb_msg.c: DCB netlink messages built and parsed on
 * buffers, and the lp_qos <-> DCB translation and diff (see dcb_msg.h).
 * Pure: no socket, no I/O. */
#include "autoconf.h"
#include "dcb_msg.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

int dcbm_u8_errno(uint8_t v)
{
	/* the kernel puts a negative int into a u8: -95 arrives as 161 */
	return v >= 128 ? 256 - v : v;
}

struct nlmsghdr *dcbm_build(void *buf, size_t len, uint16_t type, uint8_t cmd, uint32_t seq,
			    const char *ifname, const struct ieee_pfc *pfc,
			    const struct ieee_ets *ets, const struct dcb_app *app, size_t n_app)
{
	size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct dcbmsg));
	struct nlmsghdr *nlh;
	struct dcbmsg *dm;
	struct nlattr *ieee, *table;

	if (!ifname || !*ifname || strlen(ifname) >= 16)
		return NULL;
	need += MNL_ATTR_HDRLEN + MNL_ALIGN(strlen(ifname) + 1);
	if (pfc || ets || n_app) {
		need += MNL_ATTR_HDRLEN;
		if (ets)
			need += MNL_ATTR_HDRLEN + MNL_ALIGN(sizeof(*ets));
		if (pfc)
			need += MNL_ATTR_HDRLEN + MNL_ALIGN(sizeof(*pfc));
		if (n_app)
			need += MNL_ATTR_HDRLEN + n_app * (MNL_ATTR_HDRLEN + MNL_ALIGN(sizeof(*app)));
	}
	if (need > len || need > UINT16_MAX)
		return NULL;
	memset(buf, 0, need);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	dm = mnl_nlmsg_put_extra_header(nlh, sizeof(*dm));
	dm->dcb_family = AF_UNSPEC;
	dm->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	if (!(pfc || ets || n_app))
		return nlh;
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	if (ets)
		mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(*ets), ets);
	if (pfc)
		mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(*pfc), pfc);
	if (n_app) {
		table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
		for (size_t i = 0; i < n_app; i++)
			mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(app[i]), &app[i]);
		mnl_attr_nest_end(nlh, table);
	}
	mnl_attr_nest_end(nlh, ieee);
	return nlh;
}

/* ---- parsing ------------------------------------------------------------ */

struct parse {
	struct dcbm_state *st;
	int bad;
	int set_err;              /* SET reply: -EPROTO until found */
};

static int app_cb(const struct nlattr *a, void *data)
{
	struct parse *p = data;

	if (mnl_attr_get_type(a) != DCB_ATTR_IEEE_APP)
		return MNL_CB_OK;
	if (mnl_attr_get_payload_len(a) < sizeof(struct dcb_app)) {
		p->bad = 1;
		return MNL_CB_OK;
	}
	if (p->st->n_app == DCBM_MAX_APP) {
		p->st->app_truncated = 1;
		return MNL_CB_OK;
	}
	memcpy(&p->st->app[p->st->n_app++], mnl_attr_get_payload(a), sizeof(struct dcb_app));
	return MNL_CB_OK;
}

static int ieee_cb(const struct nlattr *a, void *data)
{
	struct parse *p = data;
	size_t len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case DCB_ATTR_IEEE_PFC:
		if (len < sizeof(p->st->pfc)) {
			p->bad = 1;
			break;
		}
		memcpy(&p->st->pfc, mnl_attr_get_payload(a), sizeof(p->st->pfc));
		p->st->has_pfc = 1;
		break;
	case DCB_ATTR_IEEE_ETS:
		if (len < sizeof(p->st->ets)) {
			p->bad = 1;
			break;
		}
		memcpy(&p->st->ets, mnl_attr_get_payload(a), sizeof(p->st->ets));
		p->st->has_ets = 1;
		break;
	case DCB_ATTR_IEEE_APP_TABLE:
		if (mnl_attr_parse_nested(a, app_cb, p) < 0)
			p->bad = 1;
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int top_cb(const struct nlattr *a, void *data)
{
	struct parse *p = data;

	if (mnl_attr_get_type(a) != DCB_ATTR_IEEE)
		return MNL_CB_OK;
	if (p->st) {
		if (mnl_attr_parse_nested(a, ieee_cb, p) < 0)
			p->bad = 1;
	} else {
		if (mnl_attr_get_payload_len(a) != 1)
			p->bad = 1;
		else
			p->set_err = -dcbm_u8_errno(mnl_attr_get_u8(a));
	}
	return MNL_CB_OK;
}

static int is_dcb(const struct nlmsghdr *nlh)
{
	return (nlh->nlmsg_type == RTM_GETDCB || nlh->nlmsg_type == RTM_SETDCB) &&
	       nlh->nlmsg_len >= MNL_NLMSG_HDRLEN + sizeof(struct dcbmsg);
}

int dcbm_parse_get(const struct nlmsghdr *nlh, struct dcbm_state *st)
{
	struct parse p = { st, 0, 0 };

	memset(st, 0, sizeof(*st));
	if (!is_dcb(nlh))
		return -EPROTO;
	if (mnl_attr_parse(nlh, sizeof(struct dcbmsg), top_cb, &p) < 0 || p.bad)
		return -EPROTO;
	return 0;
}

int dcbm_parse_set_reply(const struct nlmsghdr *nlh)
{
	struct parse p = { NULL, 0, -EPROTO };

	if (!is_dcb(nlh))
		return -EPROTO;
	if (mnl_attr_parse(nlh, sizeof(struct dcbmsg), top_cb, &p) < 0 || p.bad)
		return -EPROTO;
	return p.set_err;
}

/* ---- lp_qos <-> DCB ------------------------------------------------------ */

/* ETS classes at 0 % get 1 %; the weighted ones give it up in proportion
 * and still sum to 100 (see dcb_msg.h). All ETS classes at 0: 100 shared. */
static void ets_no_zero(struct ieee_ets *e)
{
	unsigned zero = 0, sum = 0, used = 0, left, rem[LP_TCS] = { 0 };

	for (unsigned t = 0; t < LP_TCS; t++)
		if (e->tc_tsa[t] == IEEE_8021QAZ_TSA_ETS) {
			zero += !e->tc_tx_bw[t];
			used += !!e->tc_tx_bw[t];
			sum += e->tc_tx_bw[t];
		}
	if (!zero)
		return;
	if (!used || sum <= zero) {  /* nothing to take from: share 100 */
		unsigned n = zero + used, k = 0;

		for (unsigned t = 0; t < LP_TCS; t++)
			if (e->tc_tsa[t] == IEEE_8021QAZ_TSA_ETS)
				e->tc_tx_bw[t] = (uint8_t)(100 / n + (k++ < 100 % n));
		return;
	}
	left = 100 - zero;  /* for the weighted classes */
	for (unsigned t = 0; t < LP_TCS; t++) {
		if (e->tc_tsa[t] != IEEE_8021QAZ_TSA_ETS)
			continue;
		if (!e->tc_tx_bw[t]) {
			e->tc_tx_bw[t] = 1;
			continue;
		}
		rem[t] = e->tc_tx_bw[t] * left % sum;
		e->tc_tx_bw[t] = (uint8_t)(e->tc_tx_bw[t] * left / sum);
		if (!e->tc_tx_bw[t])
			e->tc_tx_bw[t] = 1;
	}
	for (;;) {  /* hand out what rounding left, largest remainder first */
		unsigned total = 0, best = LP_TCS;

		for (unsigned t = 0; t < LP_TCS; t++)
			if (e->tc_tsa[t] == IEEE_8021QAZ_TSA_ETS)
				total += e->tc_tx_bw[t];
		if (total >= 100)
			break;
		for (unsigned t = 0; t < LP_TCS; t++)
			if (e->tc_tsa[t] == IEEE_8021QAZ_TSA_ETS && e->tc_tx_bw[t] > 1 &&
			    (best == LP_TCS || rem[t] > rem[best]))
				best = t;
		if (best == LP_TCS)
			break;
		e->tc_tx_bw[best]++;
		rem[best] = 0;
	}
}

void dcbm_from_qos(const struct lp_qos *want, const struct dcbm_state *cur,
		   struct dcbm_state *out)
{
	memset(out, 0, sizeof(*out));
	if (cur) {
		out->pfc = cur->pfc;
		out->ets = cur->ets;
	}
	out->has_pfc = out->has_ets = 1;
	out->pfc.pfc_en = want->pfc_mask;
	for (unsigned t = 0; t < LP_TCS; t++) {
		int strict = want->strict_mask >> t & 1;

		out->ets.tc_tsa[t] = strict ? IEEE_8021QAZ_TSA_STRICT : IEEE_8021QAZ_TSA_ETS;
		out->ets.tc_tx_bw[t] = strict ? 0 : want->ets_weight[t];
		out->ets.prio_tc[t] = (uint8_t)t;
	}
	ets_no_zero(&out->ets);
	for (unsigned d = 0; d < 64; d++)
		out->app[out->n_app++] = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
							   .priority = want->dscp_to_tc[d] & 7,
							   .protocol = (uint16_t)d };
}

int dcbm_to_qos(const struct dcbm_state *st, struct lp_qos *q)
{
	size_t n = q->n_ports;

	memset(q, 0, offsetof(struct lp_qos, n_ports));
	q->n_ports = n;
	for (unsigned t = 0; t < LP_TCS; t++)
		q->tc_to_queue[t] = (uint8_t)t;
	if (st->has_pfc)
		q->pfc_mask = st->pfc.pfc_en;
	for (unsigned t = 0; t < LP_TCS; t++)
		q->tc_to_pg[t] = (q->pfc_mask >> t & 1) ? (uint8_t)t : 0;
	if (st->has_ets)
		for (unsigned t = 0; t < LP_TCS; t++) {
			if (st->ets.tc_tsa[t] == IEEE_8021QAZ_TSA_STRICT)
				q->strict_mask |= (uint8_t)(1u << t);
			else
				q->ets_weight[t] = st->ets.tc_tx_bw[t];
		}
	for (size_t i = 0; i < st->n_app; i++) {
		const struct dcb_app *a = &st->app[i];

		/* several priorities for one DSCP: the highest wins, as in
		 * the kernel's dcb_ieee_getapp_prio_dscp_mask_map users */
		if (a->selector == IEEE_8021QAZ_APP_SEL_DSCP && a->protocol < 64 &&
		    a->priority > q->dscp_to_tc[a->protocol])
			q->dscp_to_tc[a->protocol] = a->priority & 7;
	}
	return q->pfc_mask ? 0 : -ENOENT;
}

/* ---- diff ------------------------------------------------------------------ */

static const char *tsa_name(uint8_t tsa)
{
	switch (tsa) {
	case IEEE_8021QAZ_TSA_STRICT: return "strict";
	case IEEE_8021QAZ_TSA_CB_SHAPER: return "cbs";
	case IEEE_8021QAZ_TSA_ETS: return "ets";
	case IEEE_8021QAZ_TSA_VENDOR: return "vendor";
	default: return "???";
	}
}

/* The priorities cur holds for DSCP d, space-separated, "" none. */
static void app_prios(const struct dcbm_state *st, unsigned d, char *out, size_t outlen)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < st->n_app && o + 4 < outlen; i++)
		if (st->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && st->app[i].protocol == d)
			o += (size_t)snprintf(out + o, outlen - o, "%s%u", o ? " " : "",
					      st->app[i].priority);
}

static int has_app(const struct dcbm_state *st, const struct dcb_app *a)
{
	for (size_t i = 0; i < st->n_app; i++)
		if (st->app[i].selector == a->selector && st->app[i].protocol == a->protocol &&
		    st->app[i].priority == a->priority)
			return 1;
	return 0;
}

#define EMIT() do {								\
		if ((rc = fn(ctx, &c)))						\
			return rc;						\
	} while (0)

int dcbm_diff(const char *ifname, const struct dcbm_state *cur, const struct dcbm_state *want,
	      dcbm_change_fn fn, void *ctx, unsigned *parts)
{
	struct dcbm_change c;
	unsigned p = 0;
	int rc;

	if (parts)
		*parts = 0;
	memset(&c, 0, sizeof(c));
	c.part = DCBM_ETS;
	snprintf(c.key, sizeof(c.key), "dcb ets %s", ifname);
	for (unsigned t = 0; t < LP_TCS; t++) {
		if (!cur->has_ets || cur->ets.tc_tx_bw[t] != want->ets.tc_tx_bw[t]) {
			snprintf(c.field, sizeof(c.field), "ets tc-bw %u", t);
			if (cur->has_ets)
				snprintf(c.before, sizeof(c.before), "%u", cur->ets.tc_tx_bw[t]);
			else
				c.before[0] = '\0';
			snprintf(c.after, sizeof(c.after), "%u", want->ets.tc_tx_bw[t]);
			p |= DCBM_ETS;
			EMIT();
		}
	}
	for (unsigned t = 0; t < LP_TCS; t++) {
		if (!cur->has_ets || cur->ets.tc_tsa[t] != want->ets.tc_tsa[t]) {
			snprintf(c.field, sizeof(c.field), "ets tc-tsa %u", t);
			snprintf(c.before, sizeof(c.before), "%s",
				 cur->has_ets ? tsa_name(cur->ets.tc_tsa[t]) : "");
			snprintf(c.after, sizeof(c.after), "%s", tsa_name(want->ets.tc_tsa[t]));
			p |= DCBM_ETS;
			EMIT();
		}
	}
	for (unsigned pr = 0; pr < LP_TCS; pr++) {
		if (!cur->has_ets || cur->ets.prio_tc[pr] != want->ets.prio_tc[pr]) {
			snprintf(c.field, sizeof(c.field), "ets prio-tc %u", pr);
			if (cur->has_ets)
				snprintf(c.before, sizeof(c.before), "%u", cur->ets.prio_tc[pr]);
			else
				c.before[0] = '\0';
			snprintf(c.after, sizeof(c.after), "%u", want->ets.prio_tc[pr]);
			p |= DCBM_ETS;
			EMIT();
		}
	}

	c.part = DCBM_PFC;
	snprintf(c.key, sizeof(c.key), "dcb pfc %s", ifname);
	for (unsigned pr = 0; pr < LP_TCS; pr++) {
		int was = cur->pfc.pfc_en >> pr & 1, is = want->pfc.pfc_en >> pr & 1;

		if (!cur->has_pfc || was != is) {
			snprintf(c.field, sizeof(c.field), "prio-pfc %u", pr);
			snprintf(c.before, sizeof(c.before), "%s",
				 cur->has_pfc ? (was ? "on" : "off") : "");
			snprintf(c.after, sizeof(c.after), "%s", is ? "on" : "off");
			p |= DCBM_PFC;
			EMIT();
		}
	}

	c.part = DCBM_APP;
	snprintf(c.key, sizeof(c.key), "dcb app %s", ifname);
	for (unsigned d = 0; d < 64; d++) {
		char before[32], after[32];

		app_prios(cur, d, before, sizeof(before));
		app_prios(want, d, after, sizeof(after));
		if (!strcmp(before, after))
			continue;
		snprintf(c.field, sizeof(c.field), "app dscp %u", d);
		memcpy(c.before, before, sizeof(c.before));
		memcpy(c.after, after, sizeof(c.after));
		p |= DCBM_APP;
		EMIT();
	}
	if (parts)
		*parts = p;
	return 0;
}

void dcbm_app_plan(const struct dcbm_state *cur, const struct dcbm_state *want,
		   struct dcb_app *add, size_t *n_add, struct dcb_app *del, size_t *n_del)
{
	*n_add = *n_del = 0;
	for (size_t i = 0; i < want->n_app && *n_add < 64; i++)
		if (want->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && !has_app(cur, &want->app[i]))
			add[(*n_add)++] = want->app[i];
	for (size_t i = 0; i < cur->n_app && *n_del < DCBM_MAX_APP; i++)
		if (cur->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && cur->app[i].protocol < 64 &&
		    !has_app(want, &cur->app[i]))
			del[(*n_del)++] = cur->app[i];
}

int dcbm_nl_lengths_ok(const void *buf, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		uint32_t n;

		memcpy(&n, (const char *)buf + off, sizeof(n));
		if (n < sizeof(struct nlmsghdr) || n > len - off)
			return 0;
		off += NLMSG_ALIGN(n) < len - off ? NLMSG_ALIGN(n) : len - off;
	}
	return 1;
}
