/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/linuxdcb/test_tc_msg.c: the qdisc (tc) messages of the linuxdcb
 * plugin (plugins/linuxdcb/tc_msg.c), pure: no socket, no kernel. The
 * requests are compared byte for byte with what iproute2's `tc` (6.1)
 * sends for the same qdisc, captured with strace (the TCA_OPTIONS below),
 * and with messages this test lays out by hand. Then tc_apply.c's
 * read-diff-write runs against a fake kernel that keeps the qdiscs it is
 * sent and dumps them back: what is written, in which order, what is
 * reported done, idempotence, drift, refusal, read-back. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "tests/unit/fixtures/fixture_nl.h"
#include "lib/qos/qos_policy.h"
#include "tc_msg.h"
#include "tests/unit/fixtures/check_run.h"

/* `tc qdisc replace dev d0 parent 10:5 handle 105: red limit 6000000 min
 * 150000 max 1500000 avpkt 1000 burst 151 probability 0.1 ecn` (bandwidth
 * defaulted to 10Mbit): TCA_OPTIONS' payload, as strace -xx showed it.
 * The last 12 bytes are TCA_RED_FLAGS {TC_RED_ECN, selector 0xf}. */
static const uint8_t tc_red_options[300] = {
	0x14, 0x00, 0x01, 0x00, 0x80, 0x8d, 0x5b, 0x00, 0xf0, 0x49, 0x02, 0x00,
	0x60, 0xe3, 0x16, 0x00, 0x01, 0x18, 0x0b, 0x00, 0x04, 0x01, 0x02, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01,
	0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02,
	0x02, 0x02, 0x02, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03,
	0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x05, 0x05, 0x05,
	0x05, 0x05, 0x05, 0x05, 0x05, 0x06, 0x06, 0x06, 0x06, 0x06, 0x06, 0x06,
	0x06, 0x06, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x08,
	0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x09, 0x09, 0x09, 0x09,
	0x09, 0x09, 0x09, 0x09, 0x09, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a,
	0x0a, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0c, 0x0c,
	0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d,
	0x0d, 0x0d, 0x0d, 0x0d, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e,
	0x0e, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x10, 0x10, 0x10,
	0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
	0x11, 0x11, 0x11, 0x12, 0x12, 0x12, 0x12, 0x12, 0x12, 0x12, 0x12, 0x12,
	0x13, 0x13, 0x13, 0x13, 0x13, 0x13, 0x13, 0x13, 0x13, 0x14, 0x14, 0x14,
	0x14, 0x14, 0x14, 0x14, 0x14, 0x15, 0x15, 0x15, 0x15, 0x15, 0x15, 0x15,
	0x15, 0x15, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x17,
	0x17, 0x17, 0x17, 0x17, 0x17, 0x17, 0x17, 0x17, 0x18, 0x18, 0x18, 0x18,
	0x18, 0x18, 0x18, 0x18, 0x18, 0x19, 0x19, 0x19, 0x19, 0x19, 0x19, 0x19,
	0x19, 0x1a, 0x1a, 0x1a, 0x1a, 0x1a, 0x1a, 0x1a, 0x1a, 0x1a, 0x1b, 0x1b,
	0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 0x1b, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c,
	0x1c, 0x1c, 0x1c, 0x1f, 0x08, 0x00, 0x03, 0x00, 0x99, 0x99, 0x99, 0x19,
	0x0c, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00,
};
/* `tc qdisc replace dev d0 root handle 10: ets bands 8 strict 2 quanta 1
 * 1 50000 1 1 50000 priomap 7 6 5 4 3 2 1 0`: TCA_OPTIONS' payload. */
static const uint8_t tc_ets_options[136] = {
	0x05, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00, 0x05, 0x00, 0x02, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x34, 0x00, 0x03, 0x80, 0x08, 0x00, 0x04, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x08, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x04, 0x00, 0x50, 0xc3, 0x00, 0x00, 0x08, 0x00, 0x04, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x08, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x04, 0x00, 0x50, 0xc3, 0x00, 0x00, 0x44, 0x00, 0x05, 0x80,
	0x05, 0x00, 0x06, 0x00, 0x07, 0x00, 0x00, 0x00, 0x05, 0x00, 0x06, 0x00,
	0x06, 0x00, 0x00, 0x00, 0x05, 0x00, 0x06, 0x00, 0x05, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x06, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x06, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x05, 0x00, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x06, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x06, 0x00,
	0x00, 0x00, 0x00, 0x00,
};

/* ---- the test's own message writer ------------------------------------- */

#define NEST(t) ((uint16_t)((t) | NLA_F_NESTED))

static void w_hdr(struct nlw *w, uint16_t type, uint16_t flags, uint32_t seq, int ifindex,
		  uint32_t parent, uint32_t handle)
{
	struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			   .tcm_handle = handle, .tcm_parent = parent };

	nlw_start(w, type, flags, seq, &t, sizeof(t));
}

static unsigned char buf[4096];
static char err[512];
static struct tcm_want want;
static struct tcm_state st;

#define NEWF (NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE)

/* ---- RED arithmetic and requests ------------------------------------------ */

START_TEST(tc_msg_red_parameters_are_the_ones_iproute2_computes)
{
	struct tcm_red r;
	struct tc_red_qopt tcq;

	ck_assert_int_eq(tcm_red_eval(6000000, 150000, 1500000, 1000, 151, 10, 10000000 / 8, 1, &r,
				      err, sizeof(err)), 0);
	memcpy(&tcq, tc_red_options + 4, sizeof(tcq));
	ck_assert_uint_eq(r.qopt.limit, 6000000);
	ck_assert_uint_eq(r.qopt.Wlog, tcq.Wlog);           /* 1 */
	ck_assert_uint_eq(r.qopt.Plog, tcq.Plog);           /* 24 */
	ck_assert_uint_eq(r.qopt.Scell_log, tcq.Scell_log); /* 11 */
	ck_assert_uint_eq(r.qopt.Wlog, 1);
	ck_assert_uint_eq(r.qopt.Plog, 24);
	ck_assert_uint_eq(r.qopt.Scell_log, 11);
	ck_assert_int_eq(memcmp(r.stab, tc_red_options + 24, 256), 0);
	ck_assert_uint_eq(r.max_P, 0x19999999u);            /* 0.1 * 2^32 */
	ck_assert_uint_eq(r.qopt.flags, TC_RED_ECN);
	ck_assert_uint_eq(tcm_red_percent(&r), 10);
	r.max_P = 0;                                        /* from Plog: 1350000 / 2^24 */
	ck_assert_uint_eq(tcm_red_percent(&r), 8);
}
END_TEST

START_TEST(tc_msg_red_eval_refuses_what_tc_or_the_kernel_would)
{
	struct tcm_red r;

	ck_assert_int_eq(tcm_red_eval(4000, 1000, 1000, 1000, 2, 10, 125000, 1, &r, err,
				      sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "min 1000 max 1000"), "%s", err);
	ck_assert_int_eq(tcm_red_eval(4000, 1000, 2000, 1000, 2, 0, 125000, 1, &r, err,
				      sizeof(err)), -EINVAL);
	/* fls(max) + Wlog >= 32: red_check_params refuses it */
	ck_assert_int_eq(tcm_red_eval(6000000, 150000, 1500000, 1000, 5000, 10, 125000, 1, &r,
				      err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "kernel refuses"), "%s", err);
	/* a 400G port: no division by zero, a table capped at 31 */
	ck_assert_int_eq(tcm_red_eval(6000000, 150000, 1500000, 1000, 151, 10,
				      400000ull * 125000, 1, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.stab[255], 31);
	ck_assert_uint_eq(r.stab[254], 31);
}
END_TEST

START_TEST(tc_msg_red_request_is_tcs_with_the_ecn_flag_in_the_qopt)
{
	struct tcm_red r;
	struct nlmsghdr *nlh;
	struct nlw w;
	size_t opt;
	uint16_t l;

	ck_assert_int_eq(tcm_red_eval(6000000, 150000, 1500000, 1000, 151, 10, 10000000 / 8, 1, &r,
				      err, sizeof(err)), 0);
	nlh = tcm_build_red(buf, sizeof(buf), 9, 3, TCM_HANDLE(0x10, 5), TCM_HANDLE(0x105, 0), &r);
	w_hdr(&w, RTM_NEWQDISC, NEWF, 9, 3, 0x100005, 0x1050000);
	nlw_attr(&w, TCA_KIND, "red", 4);
	opt = nlw_attr(&w, NEST(TCA_OPTIONS), tc_red_options, 288);  /* without TCA_RED_FLAGS */
	w.b[opt + 4 + 4 + 15] = TC_RED_ECN;                          /* qopt.flags */
	l = 4 + 288;
	memcpy(w.b + opt, &l, 2);
	nlw_end(&w);
	nlw_assert_same(nlh, &w);
	ck_assert_uint_eq(w.len, 16 + 20 + 8 + 4 + 288);
	/* tc's own qopt had flags 0 and the ECN bit in TCA_RED_FLAGS */
	ck_assert_uint_eq(tc_red_options[19], 0);
	ck_assert_uint_eq(tc_red_options[288 + 2], TCA_RED_FLAGS);
	ck_assert_uint_eq(tc_red_options[288 + 4], TC_RED_ECN);
}
END_TEST

START_TEST(tc_msg_ets_request_for_the_default_policy_is_what_tc_sends)
{
	struct nlmsghdr *nlh;
	struct nlw w;

	ck_assert_int_eq(tcm_from_qos(fixture_default_qos(), 0, &want, err, sizeof(err)), 0);
	ck_assert_uint_eq(want.ets.nbands, 8);
	ck_assert_uint_eq(want.ets.nstrict, 2);        /* class 6 strict: bands 0 (tc7), 1 (tc6) */
	ck_assert_uint_eq(want.ets.quanta[4], 50000);  /* band 4 = class 3, weight 50 */
	ck_assert_uint_eq(want.ets.quanta[7], 50000);  /* band 7 = class 0, weight 50 */
	ck_assert_uint_eq(want.ets.quanta[2], 1);      /* band 2 = class 5, weight 0 */
	nlh = tcm_build_ets(buf, sizeof(buf), 4, 3, TCM_ROOT_HANDLE, &want.ets);
	w_hdr(&w, RTM_NEWQDISC, NEWF, 4, 3, TC_H_ROOT, 0x100000);
	nlw_attr(&w, TCA_KIND, "ets", 4);
	nlw_attr(&w, NEST(TCA_OPTIONS), tc_ets_options, sizeof(tc_ets_options));
	nlw_end(&w);
	nlw_assert_same(nlh, &w);
}
END_TEST

START_TEST(tc_msg_default_policy_marks_class_3_at_band_4_with_its_thresholds)
{
	const struct lp_qos *q = fixture_default_qos();

	ck_assert_int_eq(tcm_from_qos(q, 100000ull * 125000, &want, err, sizeof(err)), 0);
	for (unsigned t = 0; t < 8; t++)
		ck_assert_int_eq(want.tc[t].on, t == 3);
	ck_assert_uint_eq(want.tc[3].red.qopt.qth_min, q->ecn[3].min_bytes);
	ck_assert_uint_eq(want.tc[3].red.qopt.qth_max, q->ecn[3].max_bytes);
	ck_assert_uint_eq(want.tc[3].red.qopt.limit, 4 * q->ecn[3].max_bytes);
	ck_assert_uint_eq(tcm_red_percent(&want.tc[3].red), q->ecn[3].mark_percent);
	ck_assert_uint_eq(want.tc[3].red.qopt.flags, TC_RED_ECN);
	ck_assert_uint_eq(TCM_CLASS_OF_TC(3), 0x100005);  /* parent 10:5 = band 4 */
	ck_assert_uint_eq(TCM_RED_HANDLE(3), 0x1050000);  /* handle 105: */
	ck_assert_uint_eq(TCM_CLASS_OF_TC(0), 0x100008);  /* the selftests' 10:8 for TC0 */
}
END_TEST

START_TEST(tc_msg_from_qos_refuses_a_weighted_class_above_a_strict_one)
{
	struct lp_qos q = *fixture_default_qos();

	q.strict_mask = 1u << 5;
	q.ets_weight[6] = 10;
	q.ets_weight[0] = 40;
	ck_assert_int_eq(tcm_from_qos(&q, 0, &want, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "traffic class 6") && strstr(err, "strict class 5"), "%s", err);
}
END_TEST

START_TEST(tc_msg_del_and_dump_requests_are_tcs)
{
	struct nlw w;

	w_hdr(&w, RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, 5, 3, 0x100005, 0x1050000);
	nlw_end(&w);
	nlw_assert_same(tcm_build_del(buf, sizeof(buf), 5, 3, 0x100005, 0x1050000), &w);
	w_hdr(&w, RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, 6, 3, 0, 0);
	nlw_end(&w);
	nlw_assert_same(tcm_build_dump(buf, sizeof(buf), 6, 3), &w);
	ck_assert_uint_eq(w.len, 36);
	ck_assert_ptr_null(tcm_build_dump(buf, 100, 6, 3));
	ck_assert_ptr_null(tcm_build_dump(buf, sizeof(buf), 6, 0));
}
END_TEST

static int count_change(void *ctx, const struct tcm_change *c)
{
	(void)c;
	(*(int *)ctx)++;
	return 0;
}

/* A dump reply the way the kernel lays it out. */
static void reply(struct nlw *w, int ifindex, uint32_t parent, uint32_t handle,
		  const char *kind, const void *opt, size_t optlen)
{
	w_hdr(w, RTM_NEWQDISC, NLM_F_MULTI, 1, ifindex, parent, handle);
	nlw_attr(w, TCA_KIND, kind, strlen(kind) + 1);
	if (opt)
		nlw_attr(w, TCA_OPTIONS, opt, optlen);
	nlw_end(w);
}

START_TEST(tc_msg_dump_parses_back_into_the_classes_ecn)
{
	struct lp_qos q;
	struct nlw w;

	memset(&st, 0, sizeof(st));
	memset(&q, 0, sizeof(q));
	reply(&w, 3, TC_H_ROOT, 0x100000, "ets", tc_ets_options, sizeof(tc_ets_options));
	ck_assert_int_eq(tcm_parse_qdisc((struct nlmsghdr *)w.b, 3, &st), 0);
	reply(&w, 3, 0x100005, 0x1050000, "red", tc_red_options, sizeof(tc_red_options));
	ck_assert_int_eq(tcm_parse_qdisc((struct nlmsghdr *)w.b, 3, &st), 0);
	reply(&w, 4, TC_H_ROOT, 0, "noqueue", NULL, 0);        /* another netdev's */
	ck_assert_int_eq(tcm_parse_qdisc((struct nlmsghdr *)w.b, 3, &st), 0);
	ck_assert_uint_eq(st.n, 2);
	ck_assert_uint_eq(st.q[0].ets.nstrict, 2);
	ck_assert_uint_eq(st.q[0].ets.quanta[4], 50000);
	ck_assert_uint_eq(st.q[0].ets.priomap[3], 4);
	tcm_to_qos(&st, &q);
	ck_assert_uint_eq(q.ecn[3].enabled, 1);               /* ECN via TCA_RED_FLAGS */
	ck_assert_uint_eq(q.ecn[3].min_bytes, 150000);
	ck_assert_uint_eq(q.ecn[3].max_bytes, 1500000);
	ck_assert_uint_eq(q.ecn[3].mark_percent, 10);
	for (unsigned t = 0; t < 8; t++)
		if (t != 3)
			ck_assert_uint_eq(q.ecn[t].enabled, 0);
	/* and a default policy diffs against it as nothing to do */
	ck_assert_int_eq(tcm_from_qos(fixture_default_qos(), 0, &want, err, sizeof(err)), 0);
	ck_assert_uint_eq(want.tc[3].red.qopt.qth_min, 150000);
	{
		unsigned parts = 7;

		int n = 0;

		ck_assert_int_eq(tcm_diff("eth2", &st, &want, count_change, &n, &parts), 0);
		ck_assert_int_eq(n, 0);
		ck_assert_uint_eq(parts, 0);
	}
	/* truncated attribute */
	reply(&w, 3, 0x100005, 0x1050000, "red", tc_red_options, 10);
	ck_assert_int_eq(tcm_parse_qdisc((struct nlmsghdr *)w.b, 3, &st), -EPROTO);
}
END_TEST

/* ---- tc_apply.c against a fake kernel ---------------------------------------
 * It keeps each RTM_NEWQDISC it accepts (as sent) and dumps them back as
 * RTM_NEWQDISC; a new root with another handle drops the children, as
 * qdisc_graft does; an ets of the same handle is changed in place. */

#define FK_MAX 16

static struct fake {
	unsigned char q[FK_MAX][1024];
	int n;
	int writes, dels, dumps;
	const char *refuse_kind;      /* answer NEWQDISC of this kind with refuse_rc */
	int refuse_rc;
	int drop_red;                 /* accept red writes, keep nothing */
	char order[256];              /* "ets red5 del5 ..." */
} fk;

static const struct tcmsg *fk_tcm(int i)
{
	return mnl_nlmsg_get_payload((const struct nlmsghdr *)fk.q[i]);
}

static void fk_remove(int i)
{
	memmove(fk.q[i], fk.q[i + 1], (size_t)(fk.n - i - 1) * sizeof(fk.q[0]));
	fk.n--;
}

static void fk_store(const struct nlmsghdr *req)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(req);
	int i;

	for (i = 0; i < fk.n; i++)
		if (fk_tcm(i)->tcm_parent == t->tcm_parent)
			break;
	if (i == fk.n)
		fk.n++;
	memcpy(fk.q[i], req, req->nlmsg_len);
}

static void fk_add_root(uint32_t handle, const char *kind)
{
	struct nlw w;

	reply(&w, 3, TC_H_ROOT, handle, kind, NULL, 0);
	memcpy(fk.q[fk.n++], w.b, w.len);
}

static int fk_talk(void *ctx, struct nlmsghdr *req, dcbm_reply_fn cb, void *cbctx)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(req);
	size_t o = strlen(fk.order);
	char kind[16] = "";
	struct tcm_state one;
	int rc;

	(void)ctx;
	if (req->nlmsg_type == RTM_GETQDISC) {
		fk.dumps++;
		for (int i = 0; i < fk.n; i++) {
			struct nlmsghdr *m = (struct nlmsghdr *)fk.q[i];

			m->nlmsg_type = RTM_NEWQDISC;
			if ((rc = cb(m, cbctx)))
				return rc;
		}
		return 0;
	}
	if (req->nlmsg_type == RTM_DELQDISC) {
		fk.dels++;
		snprintf(fk.order + o, sizeof(fk.order) - o, "del%x ",
			 t->tcm_parent == TC_H_ROOT ? 0 : t->tcm_parent & 0xffff);
		for (int i = 0; i < fk.n; i++)
			if (fk_tcm(i)->tcm_parent == t->tcm_parent) {
				fk_remove(i);
				return 0;
			}
		return -ENOENT;
	}
	ck_assert_uint_eq(req->nlmsg_type, RTM_NEWQDISC);
	memset(&one, 0, sizeof(one));
	ck_assert_int_eq(tcm_parse_qdisc(req, t->tcm_ifindex, &one), 0);
	ck_assert_uint_eq(one.n, 1);
	snprintf(kind, sizeof(kind), "%s", one.q[0].kind);
	if (fk.refuse_kind && !strcmp(kind, fk.refuse_kind))
		return fk.refuse_rc;
	fk.writes++;
	snprintf(fk.order + o, sizeof(fk.order) - o, "%s%x ", kind,
		 t->tcm_parent == TC_H_ROOT ? 0 : t->tcm_parent & 0xffff);
	if (!strcmp(kind, "red") && fk.drop_red)
		return 0;
	if (t->tcm_parent == TC_H_ROOT) {
		/* a new root of another handle takes the children with it */
		uint32_t old = 0;

		for (int i = 0; i < fk.n; i++)
			if (fk_tcm(i)->tcm_parent == TC_H_ROOT)
				old = fk_tcm(i)->tcm_handle;
		if (old != t->tcm_handle)
			fk.n = 0;
	}
	fk_store(req);
	return 0;
}

static struct dcbm_io io = { .talk = fk_talk };
static struct tcm_work work;

struct seen {
	size_t n, done, root, min3, ecn3_on, ecn3_off;
	char last[256];
};

static int on_change(void *ctx, const struct lp_change *c)
{
	struct seen *s = ctx;

	s->n++;
	s->done += c->done != 0;
	s->root += !strcmp(c->key, "tc ets eth2") && !strcmp(c->field, "root");
	s->min3 += !strcmp(c->key, "tc red eth2 tc3") && !strcmp(c->field, "min");
	s->ecn3_on += !strcmp(c->key, "tc red eth2 tc3") && !strcmp(c->field, "ecn") &&
		      !strcmp(c->after, "on");
	s->ecn3_off += !strcmp(c->key, "tc red eth2 tc3") && !strcmp(c->before, "on") &&
		       !strcmp(c->after, "");
	snprintf(s->last, sizeof(s->last), "%s %s \"%s\" -> \"%s\"", c->key, c->field, c->before,
		 c->after);
	return 0;
}

static void fk_reset(void)
{
	memset(&fk, 0, sizeof(fk));
	fk_add_root(0, "noqueue");
	io.seq = 100;
}

static int apply(const struct lp_qos *q, int write, struct seen *s)
{
	struct lp_change_sink sink = { s, on_change };

	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	return tcm_apply_dev(&io, "eth2", 3, q, 0, write, &sink, &work, err, sizeof(err));
}

START_TEST(tc_apply_writes_the_root_then_the_red_and_reports_each_done)
{
	struct seen s;

	fk_reset();
	ck_assert_msg(apply(fixture_default_qos(), 1, &s) == 0, "%s", err);
	ck_assert_str_eq(fk.order, "ets0 red5 ");
	ck_assert_uint_eq(s.n, 1 + 4);                   /* root; min max probability ecn */
	ck_assert_uint_eq(s.done, s.n);
	ck_assert_uint_eq(s.root, 1);
	ck_assert_uint_eq(s.min3, 1);
	ck_assert_uint_eq(s.ecn3_on, 1);
	ck_assert_uint_eq(fk.dumps, 2);                  /* read, read back */
	ck_assert_int_eq(fk.n, 2);
}
END_TEST

START_TEST(tc_apply_second_time_reports_and_writes_nothing)
{
	struct seen s;

	fk_reset();
	ck_assert_msg(apply(fixture_default_qos(), 1, &s) == 0, "%s", err);
	fk.writes = fk.dels = 0;
	ck_assert_msg(apply(fixture_default_qos(), 1, &s) == 0, "%s", err);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_int_eq(fk.writes + fk.dels, 0);
}
END_TEST

START_TEST(tc_apply_dry_run_reports_everything_undone_and_writes_nothing)
{
	struct seen s;

	fk_reset();
	ck_assert_int_eq(apply(fixture_default_qos(), 0, &s), 0);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_eq(s.done, 0);
	ck_assert_int_eq(fk.writes + fk.dels, 0);
}
END_TEST

START_TEST(tc_apply_a_changed_threshold_is_drift_changed_in_place)
{
	struct lp_qos q = *fixture_default_qos();
	struct seen s;

	fk_reset();
	ck_assert_msg(apply(&q, 1, &s) == 0, "%s", err);
	q.ecn[3].min_bytes = 200000;       /* the policy moved: same as an operator's edit */
	ck_assert_int_eq(apply(&q, 0, &s), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_str_eq(s.last, "tc red eth2 tc3 min \"150000\" -> \"200000\"");
	fk.order[0] = '\0';
	ck_assert_msg(apply(&q, 1, &s) == 0, "%s", err);
	ck_assert_str_eq(fk.order, "red5 ");            /* the root stays */
	ck_assert_uint_eq(s.done, 1);
}
END_TEST

START_TEST(tc_apply_removes_the_red_of_a_class_without_ecn)
{
	struct lp_qos q = *fixture_default_qos();
	struct seen s;

	fk_reset();
	ck_assert_msg(apply(&q, 1, &s) == 0, "%s", err);
	q.ecn[3].enabled = 0;
	fk.order[0] = '\0';
	ck_assert_msg(apply(&q, 1, &s) == 0, "%s", err);
	ck_assert_str_eq(fk.order, "del5 ");
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(s.ecn3_off, 1);
	ck_assert_int_eq(fk.n, 1);
}
END_TEST

START_TEST(tc_apply_replaces_an_operators_root_and_rewrites_the_red)
{
	struct seen s;

	fk_reset();
	ck_assert_msg(apply(fixture_default_qos(), 1, &s) == 0, "%s", err);
	/* someone replaced the root: the ets and its red are gone */
	fk.n = 0;
	fk_add_root(0x10000, "htb");
	fk.order[0] = '\0';
	ck_assert_msg(apply(fixture_default_qos(), 1, &s) == 0, "%s", err);
	ck_assert_str_eq(fk.order, "ets0 red5 ");
	ck_assert_uint_eq(s.root, 1);
	ck_assert_msg(strstr(s.last, "tc red eth2 tc3"), "%s", s.last);
	/* a root of another kind with loom's handle is deleted first */
	fk.n = 0;
	fk_add_root(TCM_ROOT_HANDLE, "htb");
	fk.order[0] = '\0';
	ck_assert_msg(apply(fixture_default_qos(), 1, &s) == 0, "%s", err);
	ck_assert_str_eq(fk.order, "del0 ets0 red5 ");
}
END_TEST

START_TEST(tc_apply_kernel_without_sch_ets_names_the_netdev_and_reports_all_undone)
{
	struct seen s;

	fk_reset();
	fk.refuse_kind = "ets";
	fk.refuse_rc = -ENOENT;
	ck_assert_int_eq(apply(fixture_default_qos(), 1, &s), -ENOENT);
	ck_assert_msg(strstr(err, "eth2: RTM_NEWQDISC root 10: ets") && strstr(err, "ENOENT") &&
		      strstr(err, "no `ets` qdisc"), "%s", err);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_eq(s.done, 0);
	/* red refused: the root landed (done), the red did not */
	fk_reset();
	fk.refuse_kind = "red";
	fk.refuse_rc = -EOPNOTSUPP;
	ck_assert_int_eq(apply(fixture_default_qos(), 1, &s), -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "eth2: RTM_NEWQDISC parent 10:5 red ecn (class 3)") &&
		      strstr(err, "EOPNOTSUPP"), "%s", err);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_eq(s.done, 1);
}
END_TEST

START_TEST(tc_apply_fails_when_the_kernel_reads_back_something_else)
{
	struct seen s;

	fk_reset();
	fk.drop_red = 1;
	ck_assert_int_eq(apply(fixture_default_qos(), 1, &s), -EIO);
	ck_assert_msg(strstr(err, "eth2: the kernel accepted the qdisc writes but reads back "
			      "tc red eth2 tc3"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tc_msg");
	TCase *tc = tcase_create("tc_msg");

	tcase_add_test(tc, tc_msg_red_parameters_are_the_ones_iproute2_computes);
	tcase_add_test(tc, tc_msg_red_eval_refuses_what_tc_or_the_kernel_would);
	tcase_add_test(tc, tc_msg_red_request_is_tcs_with_the_ecn_flag_in_the_qopt);
	tcase_add_test(tc, tc_msg_ets_request_for_the_default_policy_is_what_tc_sends);
	tcase_add_test(tc, tc_msg_default_policy_marks_class_3_at_band_4_with_its_thresholds);
	tcase_add_test(tc, tc_msg_from_qos_refuses_a_weighted_class_above_a_strict_one);
	tcase_add_test(tc, tc_msg_del_and_dump_requests_are_tcs);
	tcase_add_test(tc, tc_msg_dump_parses_back_into_the_classes_ecn);
	tcase_add_test(tc, tc_apply_writes_the_root_then_the_red_and_reports_each_done);
	tcase_add_test(tc, tc_apply_second_time_reports_and_writes_nothing);
	tcase_add_test(tc, tc_apply_dry_run_reports_everything_undone_and_writes_nothing);
	tcase_add_test(tc, tc_apply_a_changed_threshold_is_drift_changed_in_place);
	tcase_add_test(tc, tc_apply_removes_the_red_of_a_class_without_ecn);
	tcase_add_test(tc, tc_apply_replaces_an_operators_root_and_rewrites_the_red);
	tcase_add_test(tc, tc_apply_kernel_without_sch_ets_names_the_netdev_and_reports_all_undone);
	tcase_add_test(tc, tc_apply_fails_when_the_kernel_reads_back_something_else);
	suite_add_tcase(s, tc);
	return check_run(s);
}
