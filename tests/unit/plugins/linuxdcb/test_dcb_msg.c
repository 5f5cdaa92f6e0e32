/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/linuxdcb/test_dcb_msg.c: the DCB netlink messages of the linuxdcb
 * plugin (plugins/linuxdcb/dcb_msg.c), pure: no socket, no kernel. Each
 * request built for loom's default policy is compared byte for byte with a
 * message this test lays out by hand (its own attribute writer, not
 * libmnl), and replies the test lays out are parsed back into lp_qos.
 * Then dcb_apply.c's read-diff-write runs against a fake kernel (the
 * netlink conversation, answered as dcbnl answers): what is written, in
 * which order, what is reported done, partial failure, read-back. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/rtnetlink.h>

#include "dcb_msg.h"
#include "tests/unit/fixtures/fixture_nl.h"
#include "lib/qos/qos_policy.h"
#include "tests/unit/fixtures/check_run.h"

/* ---- the test's own message writer ------------------------------------- */


static void w_hdr(struct nlw *w, uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd)
{
	struct dcbmsg d = { AF_UNSPEC, cmd, 0 };

	nlw_start(w, type, flags, seq, &d, sizeof(d));
}

static unsigned char buf[DCBM_BUF_SIZE];
static struct dcbm_state st, st2;

#define NEST(t) ((uint16_t)((t) | NLA_F_NESTED))

/* ---- requests --------------------------------------------------------------- */

START_TEST(dcb_msg_get_request_is_rtm_getdcb_ieee_get_with_the_ifname_only)
{
	struct nlmsghdr *nlh = dcbm_build(buf, sizeof(buf), RTM_GETDCB, DCB_CMD_IEEE_GET, 7,
					  "eth2", NULL, NULL, NULL, 0);
	struct nlw w;

	w_hdr(&w, RTM_GETDCB, NLM_F_REQUEST | NLM_F_ACK, 7, DCB_CMD_IEEE_GET);
	nlw_attr(&w, DCB_ATTR_IFNAME, "eth2", 5);
	nlw_end(&w);
	nlw_assert_same(nlh, &w);
	ck_assert_uint_eq(w.len, 32);       /* 16 + 4 + 4 + "eth2\0" padded to 8 */
}
END_TEST

START_TEST(dcb_msg_pfc_set_for_the_default_policy_enables_priority_3_only)
{
	struct nlw w;
	struct ieee_pfc pfc = { 0 };
	struct nlmsghdr *nlh;
	size_t ieee;

	memset(&st, 0, sizeof(st));
	dcbm_from_qos(fixture_default_qos(), NULL, &st2);
	ck_assert_uint_eq(st2.pfc.pfc_en, 0x08);
	nlh = dcbm_build(buf, sizeof(buf), RTM_SETDCB, DCB_CMD_IEEE_SET, 8, "eth2", &st2.pfc, NULL,
			 NULL, 0);
	pfc.pfc_en = 1u << 3;
	w_hdr(&w, RTM_SETDCB, NLM_F_REQUEST | NLM_F_ACK, 8, DCB_CMD_IEEE_SET);
	nlw_attr(&w, DCB_ATTR_IFNAME, "eth2", 5);
	ieee = nlw_attr(&w, NEST(DCB_ATTR_IEEE), NULL, 0);
	nlw_attr(&w, DCB_ATTR_IEEE_PFC, &pfc, sizeof(pfc));
	nlw_nest_end(&w, ieee);
	nlw_end(&w);
	nlw_assert_same(nlh, &w);
	/* and where the bits are: pfc_en is byte 1 of struct ieee_pfc */
	ck_assert_uint_eq(((unsigned char *)nlh)[32 + 4 + 4 + 1], 0x08);
	ck_assert_uint_eq(((unsigned char *)nlh)[32 + 4 + 4 + 0], 0);   /* pfc_cap kept (0) */
}
END_TEST

START_TEST(dcb_msg_pfc_set_keeps_the_netdevs_pfc_cap_mbc_and_delay)
{
	memset(&st, 0, sizeof(st));
	st.has_pfc = 1;
	st.pfc.pfc_cap = 8;
	st.pfc.mbc = 1;
	st.pfc.delay = 0x1234;
	st.pfc.pfc_en = 0x81;
	dcbm_from_qos(fixture_default_qos(), &st, &st2);
	ck_assert_uint_eq(st2.pfc.pfc_cap, 8);
	ck_assert_uint_eq(st2.pfc.mbc, 1);
	ck_assert_uint_eq(st2.pfc.delay, 0x1234);
	ck_assert_uint_eq(st2.pfc.pfc_en, 0x08);
}
END_TEST

START_TEST(dcb_msg_ets_set_carries_the_weights_strict_class_and_identity_prio_tc)
{
	struct ieee_ets ets = { 0 };
	struct nlmsghdr *nlh;
	struct nlw w;
	size_t ieee;

	dcbm_from_qos(fixture_default_qos(), NULL, &st2);
	nlh = dcbm_build(buf, sizeof(buf), RTM_SETDCB, DCB_CMD_IEEE_SET, 9, "eth2", NULL, &st2.ets,
			 NULL, 0);
	for (unsigned t = 0; t < 8; t++) {
		ets.tc_tsa[t] = t == 6 ? IEEE_8021QAZ_TSA_STRICT : IEEE_8021QAZ_TSA_ETS;
		ets.prio_tc[t] = (uint8_t)t;
	}
	/* 50/50 on classes 0 and 3; the five classes without traffic get 1 %
	 * each (older mlx5 refuses 0 %), taken from 0 and 3 in proportion */
	for (unsigned t = 0; t < 8; t++)
		ets.tc_tx_bw[t] = t == 6 ? 0 : 1;
	ets.tc_tx_bw[0] = 48;
	ets.tc_tx_bw[3] = 47;
	w_hdr(&w, RTM_SETDCB, NLM_F_REQUEST | NLM_F_ACK, 9, DCB_CMD_IEEE_SET);
	nlw_attr(&w, DCB_ATTR_IFNAME, "eth2", 5);
	ieee = nlw_attr(&w, NEST(DCB_ATTR_IEEE), NULL, 0);
	nlw_attr(&w, DCB_ATTR_IEEE_ETS, &ets, sizeof(ets));
	nlw_nest_end(&w, ieee);
	nlw_end(&w);
	nlw_assert_same(nlh, &w);
	/* struct ieee_ets: willing, ets_cap, cbs, tc_tx_bw[8] at 3, tc_rx_bw at
	 * 11, tc_tsa at 19, prio_tc at 27 */
	{
		const unsigned char *e = (const unsigned char *)nlh + 32 + 4 + 4;

		ck_assert_uint_eq(e[3 + 0], 48);
		ck_assert_uint_eq(e[3 + 3], 47);
		ck_assert_uint_eq(e[3 + 1], 1);
		ck_assert_uint_eq(e[3 + 6], 0);
		ck_assert_uint_eq(e[19 + 6], IEEE_8021QAZ_TSA_STRICT);
		ck_assert_uint_eq(e[19 + 3], IEEE_8021QAZ_TSA_ETS);
		ck_assert_uint_eq(e[27 + 5], 5);
	}
}
END_TEST

START_TEST(dcb_msg_app_set_nests_dscp_entries_in_the_app_table)
{
	struct dcb_app app[2] = { { IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 },
				  { IEEE_8021QAZ_APP_SEL_DSCP, 6, 48 } };
	struct nlmsghdr *nlh;
	struct nlw w;
	size_t ieee, table;
	int found26 = 0;

	dcbm_from_qos(fixture_default_qos(), NULL, &st2);
	ck_assert_uint_eq(st2.n_app, 64);
	for (size_t i = 0; i < st2.n_app; i++) {
		ck_assert_uint_eq(st2.app[i].selector, 5);
		ck_assert_uint_eq(st2.app[i].protocol, i);
		ck_assert_uint_eq(st2.app[i].priority, i == 26 ? 3 : i == 48 ? 6 : 0);
		found26 |= st2.app[i].protocol == 26 && st2.app[i].priority == 3;
	}
	ck_assert(found26);
	nlh = dcbm_build(buf, sizeof(buf), RTM_SETDCB, DCB_CMD_IEEE_SET, 10, "eth2", NULL, NULL,
			 app, 2);
	w_hdr(&w, RTM_SETDCB, NLM_F_REQUEST | NLM_F_ACK, 10, DCB_CMD_IEEE_SET);
	nlw_attr(&w, DCB_ATTR_IFNAME, "eth2", 5);
	ieee = nlw_attr(&w, NEST(DCB_ATTR_IEEE), NULL, 0);
	table = nlw_attr(&w, NEST(DCB_ATTR_IEEE_APP_TABLE), NULL, 0);
	nlw_attr(&w, DCB_ATTR_IEEE_APP, &app[0], sizeof(app[0]));
	nlw_attr(&w, DCB_ATTR_IEEE_APP, &app[1], sizeof(app[1]));
	nlw_nest_end(&w, table);
	nlw_nest_end(&w, ieee);
	nlw_end(&w);
	nlw_assert_same(nlh, &w);
	/* first entry: selector 5 (DSCP), priority 3, protocol 26 */
	{
		const unsigned char *a = (const unsigned char *)nlh + 32 + 4 + 4 + 4;

		ck_assert_uint_eq(a[0], 5);
		ck_assert_uint_eq(a[1], 3);
		ck_assert_uint_eq(a[2] | a[3] << 8, 26);
	}
}
END_TEST

START_TEST(dcb_msg_app_delete_is_dcb_cmd_ieee_del)
{
	struct dcb_app app = { IEEE_8021QAZ_APP_SEL_DSCP, 0, 26 };
	struct nlmsghdr *nlh = dcbm_build(buf, sizeof(buf), RTM_SETDCB, DCB_CMD_IEEE_DEL, 11,
					  "eth3", NULL, NULL, &app, 1);

	ck_assert_ptr_nonnull(nlh);
	ck_assert_uint_eq(nlh->nlmsg_type, RTM_SETDCB);
	ck_assert_uint_eq(((struct dcbmsg *)((char *)nlh + 16))->cmd, DCB_CMD_IEEE_DEL);
}
END_TEST

START_TEST(dcb_msg_build_refuses_small_buffers_and_bad_names)
{
	struct dcb_app app[64] = { { 0 } };

	ck_assert_ptr_null(dcbm_build(buf, 31, RTM_GETDCB, DCB_CMD_IEEE_GET, 1, "eth2", NULL, NULL,
				      NULL, 0));
	ck_assert_ptr_nonnull(dcbm_build(buf, 32, RTM_GETDCB, DCB_CMD_IEEE_GET, 1, "eth2", NULL,
					 NULL, NULL, 0));
	ck_assert_ptr_null(dcbm_build(buf, sizeof(buf), RTM_GETDCB, DCB_CMD_IEEE_GET, 1,
				      "a-name-of-16-chr", NULL, NULL, NULL, 0));
	ck_assert_ptr_null(dcbm_build(buf, sizeof(buf), RTM_GETDCB, DCB_CMD_IEEE_GET, 1, "", NULL,
				      NULL, NULL, 0));
	ck_assert_ptr_null(dcbm_build(buf, 200, RTM_SETDCB, DCB_CMD_IEEE_SET, 1, "eth2", NULL,
				      NULL, app, 64));
}
END_TEST

/* ---- replies ---------------------------------------------------------------- */

/* A GET reply as the kernel lays it out (dcbnl_ieee_fill): ifname, the
 * IEEE nest with ETS, PFC and the APP table, then DCBX. */
static void reply_default(struct nlw *w, int with_pfc)
{
	struct ieee_ets ets = { 0 };
	struct ieee_pfc pfc = { 0 };
	struct dcb_app a26 = { IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 };
	struct dcb_app a48 = { IEEE_8021QAZ_APP_SEL_DSCP, 6, 48 };
	struct dcb_app eth = { IEEE_8021QAZ_APP_SEL_ETHERTYPE, 4, 0x8915 };
	uint8_t dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	size_t ieee, table;

	for (unsigned t = 0; t < 8; t++) {
		ets.tc_tsa[t] = t == 6 ? IEEE_8021QAZ_TSA_STRICT : IEEE_8021QAZ_TSA_ETS;
		ets.prio_tc[t] = (uint8_t)t;
	}
	ets.ets_cap = 8;
	ets.tc_tx_bw[0] = 50;
	ets.tc_tx_bw[3] = 50;
	pfc.pfc_cap = 8;
	pfc.pfc_en = 0x08;
	w_hdr(w, RTM_GETDCB, 0, 42, DCB_CMD_IEEE_GET);
	nlw_attr(w, DCB_ATTR_IFNAME, "eth2", 5);
	ieee = nlw_attr(w, NEST(DCB_ATTR_IEEE), NULL, 0);
	nlw_attr(w, DCB_ATTR_IEEE_ETS, &ets, sizeof(ets));
	if (with_pfc)
		nlw_attr(w, DCB_ATTR_IEEE_PFC, &pfc, sizeof(pfc));
	table = nlw_attr(w, NEST(DCB_ATTR_IEEE_APP_TABLE), NULL, 0);
	nlw_attr(w, DCB_ATTR_IEEE_APP, &a26, sizeof(a26));
	nlw_attr(w, DCB_ATTR_IEEE_APP, &a48, sizeof(a48));
	nlw_attr(w, DCB_ATTR_IEEE_APP, &eth, sizeof(eth));
	nlw_nest_end(w, table);
	nlw_nest_end(w, ieee);
	nlw_attr(w, DCB_ATTR_DCBX, &dcbx, 1);
	nlw_end(w);
}

START_TEST(dcb_msg_get_reply_parses_back_into_the_default_policys_lp_qos)
{
	static struct nlw w;
	static struct lp_qos q;
	const struct lp_qos *want = fixture_default_qos();

	reply_default(&w, 1);
	ck_assert_int_eq(dcbm_parse_get((struct nlmsghdr *)w.b, &st), 0);
	ck_assert(st.has_pfc && st.has_ets);
	ck_assert_uint_eq(st.n_app, 3);
	ck_assert_uint_eq(st.ets.ets_cap, 8);
	memset(&q, 0, sizeof(q));
	ck_assert_int_eq(dcbm_to_qos(&st, &q), 0);
	ck_assert_uint_eq(q.pfc_mask, 0x08);
	ck_assert_uint_eq(q.strict_mask, 1u << 6);
	ck_assert_mem_eq(q.ets_weight, want->ets_weight, sizeof(q.ets_weight));
	ck_assert_mem_eq(q.dscp_to_tc, want->dscp_to_tc, sizeof(q.dscp_to_tc));
	ck_assert_mem_eq(q.tc_to_queue, want->tc_to_queue, sizeof(q.tc_to_queue));
	ck_assert_mem_eq(q.tc_to_pg, want->tc_to_pg, sizeof(q.tc_to_pg));
	ck_assert_uint_eq(q.ecn[3].enabled, 0);          /* ECN is not read (not managed) */
}
END_TEST

START_TEST(dcb_msg_reply_without_pfc_reads_as_no_lossless_config)
{
	static struct nlw w;
	static struct lp_qos q;

	reply_default(&w, 0);
	ck_assert_int_eq(dcbm_parse_get((struct nlmsghdr *)w.b, &st), 0);
	ck_assert(!st.has_pfc);
	memset(&q, 0, sizeof(q));
	ck_assert_int_eq(dcbm_to_qos(&st, &q), -ENOENT);
}
END_TEST

START_TEST(dcb_msg_truncated_attribute_is_eproto)
{
	static struct nlw w;
	struct ieee_pfc pfc = { 0 };
	size_t ieee;

	w_hdr(&w, RTM_GETDCB, 0, 1, DCB_CMD_IEEE_GET);
	ieee = nlw_attr(&w, NEST(DCB_ATTR_IEEE), NULL, 0);
	nlw_attr(&w, DCB_ATTR_IEEE_PFC, &pfc, sizeof(pfc) - 8);
	nlw_nest_end(&w, ieee);
	nlw_end(&w);
	ck_assert_int_eq(dcbm_parse_get((struct nlmsghdr *)w.b, &st), -EPROTO);
	w_hdr(&w, RTM_NEWLINK, 0, 1, 0);
	nlw_end(&w);
	ck_assert_int_eq(dcbm_parse_get((struct nlmsghdr *)w.b, &st), -EPROTO);
}
END_TEST

START_TEST(dcb_msg_set_reply_u8_is_the_drivers_errno)
{
	static struct nlw w;
	uint8_t v = 0;

	w_hdr(&w, RTM_SETDCB, 0, 1, DCB_CMD_IEEE_SET);
	nlw_attr(&w, DCB_ATTR_IEEE, &v, 1);
	nlw_end(&w);
	ck_assert_int_eq(dcbm_parse_set_reply((struct nlmsghdr *)w.b), 0);
	v = (uint8_t)-EOPNOTSUPP;       /* what nla_put_u8(skb, DCB_ATTR_IEEE, err) sends */
	w_hdr(&w, RTM_SETDCB, 0, 1, DCB_CMD_IEEE_SET);
	nlw_attr(&w, DCB_ATTR_IEEE, &v, 1);
	nlw_end(&w);
	ck_assert_int_eq(dcbm_parse_set_reply((struct nlmsghdr *)w.b), -EOPNOTSUPP);
	v = (uint8_t)-EINVAL;
	w_hdr(&w, RTM_SETDCB, 0, 1, DCB_CMD_IEEE_SET);
	nlw_attr(&w, DCB_ATTR_IEEE, &v, 1);
	nlw_end(&w);
	ck_assert_int_eq(dcbm_parse_set_reply((struct nlmsghdr *)w.b), -EINVAL);
	w_hdr(&w, RTM_SETDCB, 0, 1, DCB_CMD_IEEE_SET);
	nlw_attr(&w, DCB_ATTR_IFNAME, "eth2", 5);
	nlw_end(&w);
	ck_assert_int_eq(dcbm_parse_set_reply((struct nlmsghdr *)w.b), -EPROTO);
}
END_TEST

/* ---- diff --------------------------------------------------------------------- */

struct seen {
	size_t n;
	struct dcbm_change c[128];
};

static int seen_cb(void *ctx, const struct dcbm_change *c)
{
	struct seen *s = ctx;

	if (s->n < 128)
		s->c[s->n] = *c;
	s->n++;
	return 0;
}

static const struct dcbm_change *find(const struct seen *s, const char *field)
{
	for (size_t i = 0; i < s->n && i < 128; i++)
		if (!strcmp(s->c[i].field, field))
			return &s->c[i];
	return NULL;
}

START_TEST(dcb_msg_diff_against_an_unreadable_netdev_lists_every_item)
{
	static struct seen s;
	unsigned parts;
	const struct dcbm_change *c;

	memset(&s, 0, sizeof(s));
	memset(&st, 0, sizeof(st));
	dcbm_from_qos(fixture_default_qos(), &st, &st2);
	ck_assert_int_eq(dcbm_diff("eth2", &st, &st2, seen_cb, &s, &parts), 0);
	ck_assert_uint_eq(s.n, 8 + 8 + 8 + 8 + 64);
	ck_assert_uint_eq(parts, DCBM_ETS | DCBM_PFC | DCBM_APP);
	ck_assert_ptr_nonnull(c = find(&s, "prio-pfc 3"));
	ck_assert_str_eq(c->key, "dcb pfc eth2");
	ck_assert_str_eq(c->before, "");
	ck_assert_str_eq(c->after, "on");
	ck_assert_ptr_nonnull(c = find(&s, "app dscp 26"));
	ck_assert_str_eq(c->key, "dcb app eth2");
	ck_assert_str_eq(c->after, "3");
	ck_assert_ptr_nonnull(c = find(&s, "ets tc-tsa 6"));
	ck_assert_str_eq(c->key, "dcb ets eth2");
	ck_assert_str_eq(c->after, "strict");
}
END_TEST

START_TEST(dcb_msg_diff_reports_only_what_differs_and_nothing_when_in_policy)
{
	static struct seen s;
	static struct dcbm_state want;
	const struct dcbm_change *c;
	unsigned parts;

	dcbm_from_qos(fixture_default_qos(), NULL, &want);
	st = want;
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(dcbm_diff("eth2", &st, &want, seen_cb, &s, &parts), 0);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_eq(parts, 0);

	st.ets.tc_tx_bw[3] = 40;
	st.ets.tc_tx_bw[0] = 60;
	st.pfc.pfc_en = 0;
	st.app[26].priority = 0;
	st.app[st.n_app++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 5, 26 };
	ck_assert_int_eq(dcbm_diff("eth2", &st, &want, seen_cb, &s, &parts), 0);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_ptr_nonnull(c = find(&s, "ets tc-bw 3"));
	ck_assert_str_eq(c->before, "40");
	ck_assert_str_eq(c->after, "47");
	ck_assert_ptr_nonnull(c = find(&s, "prio-pfc 3"));
	ck_assert_str_eq(c->before, "off");
	ck_assert_str_eq(c->after, "on");
	ck_assert_ptr_nonnull(c = find(&s, "app dscp 26"));
	ck_assert_str_eq(c->before, "0 5");
	ck_assert_str_eq(c->after, "3");
}
END_TEST

START_TEST(dcb_msg_app_plan_adds_the_new_priority_and_deletes_the_stale_ones)
{
	static struct dcbm_state want;
	struct dcb_app add[64], del[DCBM_MAX_APP];
	size_t n_add, n_del;

	dcbm_from_qos(fixture_default_qos(), NULL, &want);
	st = want;
	st.app[26].priority = 0;
	st.app[st.n_app++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 5, 26 };
	st.app[st.n_app++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_ETHERTYPE, 4, 0x8915 };
	dcbm_app_plan(&st, &want, add, &n_add, del, &n_del);
	ck_assert_uint_eq(n_add, 1);
	ck_assert_uint_eq(add[0].protocol, 26);
	ck_assert_uint_eq(add[0].priority, 3);
	ck_assert_uint_eq(n_del, 2);            /* 26:0 and 26:5; the ethertype entry stays */
	ck_assert_uint_eq(del[0].protocol, 26);
	ck_assert_uint_eq(del[1].protocol, 26);
	ck_assert_uint_eq(del[0].priority + del[1].priority, 5);
}
END_TEST

/* ---- dcb_apply.c against a fake kernel ----------------------------------------
 * It holds one netdev's IEEE DCB state and answers like dcbnl does: GET
 * with the state; SET taking ETS and PFC whole and adding APP entries
 * (dcb_ieee_setapp), DEL removing them, each answered with the u8
 * DCB_ATTR_IEEE; EOPNOTSUPP as the ack's error without dcbnl_ops. Like
 * mlx5's mlx5e_dbcnl_validate_ets it refuses (EINVAL) an ETS whose ETS
 * classes do not sum to 100 %, and in old_mlx5 mode one with an ETS class
 * at 0 %, as drivers before 0 % was allowed did; either fails the write. */

struct fake {
	int has_dcb;
	struct dcbm_state st;
	int sets, dels, gets;
	int fail_at, fail_errno;  /* the fail_at-th SET/DEL answers -fail_errno */
	int ignore_pfc;           /* take PFC writes and keep the old value */
	int old_mlx5;             /* refuse an ETS class at 0 % ("BW 0 is illegal") */
	struct nlw reply;
};

static struct fake fk;
static struct dcbm_io io;
static struct dcbm_work work;

static int has(const struct dcbm_state *s, const struct dcb_app *a)
{
	for (size_t i = 0; i < s->n_app; i++)
		if (!memcmp(&s->app[i], a, sizeof(*a)))
			return (int)i + 1;
	return 0;
}

static int ets_valid(const struct fake *f, const struct ieee_ets *e)
{
	unsigned sum = 0, any = 0;

	for (unsigned t = 0; t < 8; t++)
		if (e->tc_tsa[t] == IEEE_8021QAZ_TSA_ETS) {
			if (f->old_mlx5 && !e->tc_tx_bw[t])
				return 0;
			sum += e->tc_tx_bw[t];
			any = 1;
		}
	return !any || sum == 100;
}

static int fake_talk(void *ctx, struct nlmsghdr *req, dcbm_reply_fn cb, void *cbctx)
{
	struct fake *f = ctx;
	const struct dcbmsg *dm = (const struct dcbmsg *)((const char *)req + 16);
	static struct dcbm_state in;
	uint8_t v = 0;

	if (!f->has_dcb)
		return -EOPNOTSUPP;
	ck_assert_uint_eq(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	if (dm->cmd == DCB_CMD_IEEE_GET) {
		size_t ieee, table;

		ck_assert_uint_eq(req->nlmsg_type, RTM_GETDCB);
		f->gets++;
		w_hdr(&f->reply, RTM_GETDCB, 0, req->nlmsg_seq, DCB_CMD_IEEE_GET);
		nlw_attr(&f->reply, DCB_ATTR_IFNAME, "eth2", 5);
		ieee = nlw_attr(&f->reply, NEST(DCB_ATTR_IEEE), NULL, 0);
		nlw_attr(&f->reply, DCB_ATTR_IEEE_ETS, &f->st.ets, sizeof(f->st.ets));
		nlw_attr(&f->reply, DCB_ATTR_IEEE_PFC, &f->st.pfc, sizeof(f->st.pfc));
		table = nlw_attr(&f->reply, NEST(DCB_ATTR_IEEE_APP_TABLE), NULL, 0);
		for (size_t i = 0; i < f->st.n_app; i++)
			nlw_attr(&f->reply, DCB_ATTR_IEEE_APP, &f->st.app[i], sizeof(f->st.app[i]));
		nlw_nest_end(&f->reply, table);
		nlw_nest_end(&f->reply, ieee);
		nlw_end(&f->reply);
		return cb((struct nlmsghdr *)f->reply.b, cbctx);
	}
	ck_assert_uint_eq(req->nlmsg_type, RTM_SETDCB);
	ck_assert(dm->cmd == DCB_CMD_IEEE_SET || dm->cmd == DCB_CMD_IEEE_DEL);
	/* a SET's IEEE nest has the layout of a GET reply's */
	ck_assert_int_eq(dcbm_parse_get(req, &in), 0);
	if (dm->cmd == DCB_CMD_IEEE_SET)
		f->sets++;
	else
		f->dels++;
	if (f->sets + f->dels == f->fail_at) {
		v = (uint8_t)-f->fail_errno;
	} else if (dm->cmd == DCB_CMD_IEEE_SET && in.has_ets && !ets_valid(f, &in.ets)) {
		v = (uint8_t)-EINVAL;
	} else if (dm->cmd == DCB_CMD_IEEE_SET) {
		if (in.has_ets)
			f->st.ets = in.ets;
		if (in.has_pfc && !f->ignore_pfc)
			f->st.pfc = in.pfc;
		for (size_t i = 0; i < in.n_app; i++)
			if (!has(&f->st, &in.app[i]))
				f->st.app[f->st.n_app++] = in.app[i];
	} else {
		for (size_t i = 0; i < in.n_app; i++) {
			int at = has(&f->st, &in.app[i]);

			if (at) {
				memmove(&f->st.app[at - 1], &f->st.app[at],
					(f->st.n_app - (size_t)at) * sizeof(f->st.app[0]));
				f->st.n_app--;
			}
		}
	}
	w_hdr(&f->reply, RTM_SETDCB, 0, req->nlmsg_seq, dm->cmd);
	nlw_attr(&f->reply, DCB_ATTR_IEEE, &v, 1);
	nlw_end(&f->reply);
	return cb((struct nlmsghdr *)f->reply.b, cbctx);
}

/* A NIC as it comes: PFC capable on 8, off; one ETS class; no APP entry. */
static void fake_reset(void)
{
	memset(&fk, 0, sizeof(fk));
	fk.has_dcb = 1;
	fk.st.has_pfc = fk.st.has_ets = 1;
	fk.st.pfc.pfc_cap = 8;
	fk.st.pfc.delay = 32;
	fk.st.ets.ets_cap = 8;
	for (unsigned t = 0; t < 8; t++)
		fk.st.ets.tc_tsa[t] = IEEE_8021QAZ_TSA_ETS;
	fk.st.ets.tc_tx_bw[0] = 100;
	memset(&io, 0, sizeof(io));
	io.talk = fake_talk;
	io.ctx = &fk;
}

struct rec {
	size_t n, done;
	char first_key[96], last_key[96];
	size_t done_by_part[3], undone_by_part[3];
};

static int rec_cb(void *ctx, const struct lp_change *c)
{
	struct rec *r = ctx;
	int part = !strncmp(c->key, "dcb ets", 7) ? 0 : !strncmp(c->key, "dcb pfc", 7) ? 1 : 2;

	if (!r->n)
		snprintf(r->first_key, sizeof(r->first_key), "%s", c->key);
	snprintf(r->last_key, sizeof(r->last_key), "%s", c->key);
	r->n++;
	r->done += c->done != 0;
	if (c->done)
		r->done_by_part[part]++;
	else
		r->undone_by_part[part]++;
	return 0;
}

static char aerr[512];

START_TEST(dcb_apply_writes_ets_pfc_app_reports_each_done_and_keeps_the_nics_caps)
{
	struct rec r = { 0 };
	struct lp_change_sink sink = { &r, rec_cb };
	static struct lp_qos q;

	fake_reset();
	ck_assert_msg(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, &sink, &work, aerr,
				     sizeof(aerr)) == 0, "%s", aerr);
	/* ETS: tc-bw 0 and 3, 1 % for the five classes without traffic, tsa 6,
	 * prio-tc none (all 0 -> identity: 7); PFC 3; 64 DSCPs */
	ck_assert_uint_eq(r.n, 2 + 5 + 1 + 7 + 1 + 64);
	ck_assert_uint_eq(r.done, r.n);
	ck_assert_str_eq(r.first_key, "dcb ets eth2");
	ck_assert_str_eq(r.last_key, "dcb app eth2");
	ck_assert_int_eq(fk.sets, 3);       /* ETS, PFC, the APP additions */
	ck_assert_int_eq(fk.dels, 0);
	ck_assert_uint_eq(fk.st.pfc.pfc_en, 0x08);
	ck_assert_uint_eq(fk.st.pfc.pfc_cap, 8);
	ck_assert_uint_eq(fk.st.pfc.delay, 32);
	ck_assert_uint_eq(fk.st.ets.ets_cap, 8);
	ck_assert_uint_eq(fk.st.n_app, 64);
	memset(&q, 0, sizeof(q));
	ck_assert_int_eq(dcbm_to_qos(&fk.st, &q), 0);
	ck_assert_mem_eq(q.dscp_to_tc, fixture_default_qos()->dscp_to_tc, 64);
	/* the weights as the NIC holds them: 1 % on the classes without traffic */
	ck_assert_mem_eq(q.ets_weight, ((uint8_t[8]){ 48, 1, 1, 47, 1, 1, 0, 1 }), 8);
	ck_assert_uint_eq(q.strict_mask, fixture_default_qos()->strict_mask);
}
END_TEST

START_TEST(dcb_apply_second_time_reports_and_writes_nothing)
{
	struct rec r = { 0 };
	struct lp_change_sink sink = { &r, rec_cb };

	fake_reset();
	ck_assert_int_eq(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, NULL, &work, aerr,
					sizeof(aerr)), 0);
	fk.sets = fk.dels = 0;
	ck_assert_int_eq(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, &sink, &work, aerr,
					sizeof(aerr)), 0);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(fk.sets + fk.dels, 0);
}
END_TEST

/* An older mlx5 refuses any ETS class at 0 %: loom's ETS, whose classes
 * without traffic would be 0 %, still lands whole, 100 % in all. */
START_TEST(dcb_apply_ets_is_taken_by_a_driver_that_refuses_zero_percent_classes)
{
	unsigned sum = 0;

	fake_reset();
	fk.old_mlx5 = 1;
	ck_assert_msg(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, NULL, &work, aerr,
				     sizeof(aerr)) == 0, "%s", aerr);
	for (unsigned t = 0; t < 8; t++) {
		if (fk.st.ets.tc_tsa[t] != IEEE_8021QAZ_TSA_ETS)
			continue;
		ck_assert_uint_ge(fk.st.ets.tc_tx_bw[t], 1);
		sum += fk.st.ets.tc_tx_bw[t];
	}
	ck_assert_uint_eq(sum, 100);
	ck_assert_uint_eq(fk.st.ets.tc_tsa[6], IEEE_8021QAZ_TSA_STRICT);
	ck_assert_uint_gt(fk.st.ets.tc_tx_bw[0], 40);
	ck_assert_uint_gt(fk.st.ets.tc_tx_bw[3], 40);
}
END_TEST

START_TEST(dcb_apply_dry_run_reports_everything_undone_and_writes_nothing)
{
	struct rec r = { 0 };
	struct lp_change_sink sink = { &r, rec_cb };

	fake_reset();
	ck_assert_int_eq(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 0, &sink, &work, aerr,
					sizeof(aerr)), 0);
	ck_assert_uint_eq(r.n, 80);
	ck_assert_uint_eq(r.done, 0);
	ck_assert_int_eq(fk.sets + fk.dels, 0);
	ck_assert_uint_eq(fk.st.pfc.pfc_en, 0);
}
END_TEST

START_TEST(dcb_apply_moves_a_dscp_by_adding_the_new_entry_then_deleting_the_old)
{
	fake_reset();
	ck_assert_int_eq(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, NULL, &work, aerr,
					sizeof(aerr)), 0);
	/* someone moved DSCP 26 to priority 1 (dcb app replace) */
	for (size_t i = 0; i < fk.st.n_app; i++)
		if (fk.st.app[i].protocol == 26)
			fk.st.app[i].priority = 1;
	fk.st.app[fk.st.n_app++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_ETHERTYPE, 4, 0x8915 };
	fk.sets = fk.dels = 0;
	ck_assert_msg(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, NULL, &work, aerr,
				     sizeof(aerr)) == 0, "%s", aerr);
	ck_assert_int_eq(fk.sets, 1);
	ck_assert_int_eq(fk.dels, 1);
	ck_assert_uint_eq(fk.st.n_app, 65);  /* 64 DSCPs and the RoCE ethertype entry kept */
	ck_assert(has(&fk.st, &(struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 }));
	ck_assert(!has(&fk.st, &(struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 1, 26 }));
}
END_TEST

START_TEST(dcb_apply_stopped_by_the_driver_reports_what_landed_and_what_did_not)
{
	struct rec r = { 0 };
	struct lp_change_sink sink = { &r, rec_cb };

	fake_reset();
	fk.fail_at = 2;                     /* the PFC write */
	fk.fail_errno = EINVAL;
	ck_assert_int_eq(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, &sink, &work, aerr,
					sizeof(aerr)), -EINVAL);
	ck_assert_msg(strstr(aerr, "eth2") && strstr(aerr, "DCB_ATTR_IEEE_PFC") &&
		      strstr(aerr, "EINVAL"), "err: %s", aerr);
	ck_assert_uint_eq(r.done_by_part[0], 15);    /* ETS landed */
	ck_assert_uint_eq(r.undone_by_part[0], 0);
	ck_assert_uint_eq(r.done_by_part[1], 0);     /* PFC refused */
	ck_assert_uint_eq(r.undone_by_part[1], 1);
	ck_assert_uint_eq(r.done_by_part[2], 0);     /* APP never sent */
	ck_assert_uint_eq(r.undone_by_part[2], 64);
	ck_assert_int_eq(fk.sets, 2);
	ck_assert_uint_eq(fk.st.ets.tc_tx_bw[3], 47);
	ck_assert_uint_eq(fk.st.pfc.pfc_en, 0);
	ck_assert_uint_eq(fk.st.n_app, 0);
}
END_TEST

START_TEST(dcb_apply_fails_when_the_netdev_reads_back_something_else)
{
	fake_reset();
	fk.ignore_pfc = 1;
	ck_assert_int_eq(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, NULL, &work, aerr,
					sizeof(aerr)), -EIO);
	ck_assert_msg(strstr(aerr, "eth2: the driver accepted the DCB write but reads back") &&
		      strstr(aerr, "prio-pfc 3"), "err: %s", aerr);
}
END_TEST

START_TEST(dcb_apply_without_dcbnl_ops_names_the_netdev_and_reports_all_undone)
{
	struct rec r = { 0 };
	struct lp_change_sink sink = { &r, rec_cb };

	fake_reset();
	fk.has_dcb = 0;
	ck_assert_int_eq(dcbm_apply_dev(&io, "eth2", fixture_default_qos(), 1, &sink, &work, aerr,
					sizeof(aerr)), -EOPNOTSUPP);
	ck_assert_msg(strstr(aerr, "eth2: the driver has no DCB support (EOPNOTSUPP)"), "%s",
		      aerr);
	ck_assert_uint_eq(r.n, 96);
	ck_assert_uint_eq(r.done, 0);
}
END_TEST

/* A reply whose nlmsg_len announces 2 GiB or more (libmnl 1.0.4 reads it
 * as a negative int and walks past the buffer) is refused before libmnl
 * sees it; whole messages, and a short tail, pass. */
START_TEST(dcb_msg_a_reply_announcing_more_than_it_holds_is_refused)
{
	struct nlmsghdr h[4];

	memset(h, 0, sizeof(h));
	h[0].nlmsg_len = sizeof(h[0]);
	h[1].nlmsg_len = sizeof(h[1]);
	ck_assert_int_eq(dcbm_nl_lengths_ok(h, 2 * sizeof(h[0])), 1);
	ck_assert_int_eq(dcbm_nl_lengths_ok(h, 2 * sizeof(h[0]) + 4), 1);
	h[1].nlmsg_len = 0xe42c3400u;
	ck_assert_int_eq(dcbm_nl_lengths_ok(h, 2 * sizeof(h[0])), 0);
	h[1].nlmsg_len = 3 * sizeof(h[0]);
	ck_assert_int_eq(dcbm_nl_lengths_ok(h, 2 * sizeof(h[0])), 0);
	h[1].nlmsg_len = 4;
	ck_assert_int_eq(dcbm_nl_lengths_ok(h, 2 * sizeof(h[0])), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dcb_msg");
	TCase *tc = tcase_create("dcb_msg");

	tcase_add_test(tc, dcb_msg_get_request_is_rtm_getdcb_ieee_get_with_the_ifname_only);
	tcase_add_test(tc, dcb_msg_pfc_set_for_the_default_policy_enables_priority_3_only);
	tcase_add_test(tc, dcb_msg_pfc_set_keeps_the_netdevs_pfc_cap_mbc_and_delay);
	tcase_add_test(tc, dcb_msg_ets_set_carries_the_weights_strict_class_and_identity_prio_tc);
	tcase_add_test(tc, dcb_msg_app_set_nests_dscp_entries_in_the_app_table);
	tcase_add_test(tc, dcb_msg_app_delete_is_dcb_cmd_ieee_del);
	tcase_add_test(tc, dcb_msg_build_refuses_small_buffers_and_bad_names);
	tcase_add_test(tc, dcb_msg_get_reply_parses_back_into_the_default_policys_lp_qos);
	tcase_add_test(tc, dcb_msg_reply_without_pfc_reads_as_no_lossless_config);
	tcase_add_test(tc, dcb_msg_truncated_attribute_is_eproto);
	tcase_add_test(tc, dcb_msg_set_reply_u8_is_the_drivers_errno);
	tcase_add_test(tc, dcb_msg_diff_against_an_unreadable_netdev_lists_every_item);
	tcase_add_test(tc, dcb_msg_diff_reports_only_what_differs_and_nothing_when_in_policy);
	tcase_add_test(tc, dcb_msg_app_plan_adds_the_new_priority_and_deletes_the_stale_ones);
	tcase_add_test(tc, dcb_apply_writes_ets_pfc_app_reports_each_done_and_keeps_the_nics_caps);
	tcase_add_test(tc, dcb_apply_second_time_reports_and_writes_nothing);
	tcase_add_test(tc, dcb_apply_ets_is_taken_by_a_driver_that_refuses_zero_percent_classes);
	tcase_add_test(tc, dcb_apply_dry_run_reports_everything_undone_and_writes_nothing);
	tcase_add_test(tc, dcb_apply_moves_a_dscp_by_adding_the_new_entry_then_deleting_the_old);
	tcase_add_test(tc, dcb_apply_stopped_by_the_driver_reports_what_landed_and_what_did_not);
	tcase_add_test(tc, dcb_apply_fails_when_the_netdev_reads_back_something_else);
	tcase_add_test(tc, dcb_apply_without_dcbnl_ops_names_the_netdev_and_reports_all_undone);
	tcase_add_test(tc, dcb_msg_a_reply_announcing_more_than_it_holds_is_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
