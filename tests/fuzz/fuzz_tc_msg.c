/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_tc_msg.c: arbitrary bytes as the kernel's replies to the
 * linuxdcb plugin's tc requests (plugins/linuxdcb/tc_msg.c): the buffer is
 * split into netlink messages by libmnl's mnl_cb_run, as the plugin's
 * talk() does (but see fuzz_nl.h: a message announcing 2 GiB or more is
 * cut off first), and each goes to tcm_parse_qdisc (a qdisc dump, for ifindex 2, as
 * tc_apply.c's tcm_get) and tcm_parse_link (RTM_NEWLINK). The qdiscs decoded
 * from the whole buffer then go where tc_apply.c takes them: tcm_to_qos,
 * tcm_root, tcm_plan and tcm_diff against a fixed policy. tc_msg.c is
 * compiled in, as for tests/unit/plugins/linuxdcb/test_tc_msg.
 *
 * Invariants: 0 or -EPROTO; at most TCM_MAX_QDISC qdiscs, each of this
 * ifindex, with a terminated kind, an ets of at most TCM_MAX_BANDS bands and
 * no more strict ones; an ets or red rebuilt (tcm_build_ets/_red) and parsed
 * again gives the same parameters; the diff reports the parts it names.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include -I plugins/linuxdcb tests/fuzz/fuzz_tc_msg.c \
 *       plugins/linuxdcb/tc_msg.c -lmnl -lm -o fuzz_tc_msg
 *   cp -r tests/fuzz/corpus/tc_msg work && ./fuzz_tc_msg work */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_nl.h"
#include "tc_msg.h"

const char fuzz_name[] = "fuzz_tc_msg";

#define IFINDEX 2

static union {
	struct nlmsghdr align;
	unsigned char b[1 << 16];
} rx;
static unsigned char tx[DCBM_BUF_SIZE];
static struct tcm_state st, back;

struct diff_count {
	unsigned parts;
};

static int count_change(void *ctx, const struct tcm_change *c)
{
	struct diff_count *d = ctx;

	if (!memchr(c->key, '\0', sizeof(c->key)) || !memchr(c->field, '\0', sizeof(c->field)) ||
	    !memchr(c->before, '\0', sizeof(c->before)) || !memchr(c->after, '\0', sizeof(c->after)))
		fuzz_bug("a change's strings are not terminated");
	d->parts |= c->part;
	return 0;
}

static void round_trip(const struct tcm_qdisc *q)
{
	struct nlmsghdr *nlh = NULL;
	const struct tcm_qdisc *b;

	if (q->has_ets) {
		const struct tcm_ets *e = &q->ets;

		if (e->nbands > TCM_MAX_BANDS || e->nstrict > e->nbands)
			fuzz_bug("ets of %u bands, %u strict", e->nbands, e->nstrict);
		if (!e->nbands)
			return;  /* tcm_build_ets refuses it: nothing to compare */
		nlh = tcm_build_ets(tx, sizeof(tx), 1, IFINDEX, q->handle, e);
	} else if (q->has_red) {
		nlh = tcm_build_red(tx, sizeof(tx), 1, IFINDEX, q->parent, q->handle, &q->red);
	} else {
		return;
	}
	if (!nlh)
		fuzz_bug("a decoded qdisc does not build");
	memset(&back, 0, sizeof(back));
	if (tcm_parse_qdisc(nlh, IFINDEX, &back) != 0 || back.n != 1)
		fuzz_bug("a built qdisc does not parse");
	b = &back.q[0];
	if (b->handle != q->handle || strcmp(b->kind, q->kind) || b->has_ets != q->has_ets ||
	    b->has_red != q->has_red)
		fuzz_bug("qdisc %#x: handle or kind changed in a round trip", q->handle);
	if (q->has_ets) {
		const struct tcm_ets *e = &q->ets, *f = &b->ets;

		if (e->nbands != f->nbands || e->nstrict != f->nstrict ||
		    memcmp(e->priomap, f->priomap, 8) ||
		    memcmp(e->quanta + e->nstrict, f->quanta + e->nstrict,
			   (e->nbands - e->nstrict) * sizeof(e->quanta[0])))
			fuzz_bug("ets changed in a round trip");
	} else if (memcmp(&q->red.qopt, &b->red.qopt, sizeof(q->red.qopt)) ||
		   memcmp(q->red.stab, b->red.stab, sizeof(q->red.stab)) ||
		   q->red.max_P != b->red.max_P) {
		fuzz_bug("red changed in a round trip");
	}
}

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	size_t n = st.n;
	int sw = 0, rc = tcm_parse_qdisc(nlh, IFINDEX, &st);

	(void)data;
	if (rc != 0 && rc != -EPROTO)
		fuzz_bug("parse_qdisc returned %d", rc);
	if (st.n > TCM_MAX_QDISC || st.n < n || st.n > n + 1)
		fuzz_bug("%zu qdiscs after %zu", st.n, n);
	if (st.n == n + 1) {
		const struct tcm_qdisc *q = &st.q[n];

		if (rc)
			fuzz_bug("a qdisc kept from a refused message");
		if (!memchr(q->kind, '\0', sizeof(q->kind)))
			fuzz_bug("kind not terminated");
		round_trip(q);
	}
	rc = tcm_parse_link(nlh, &sw);
	if (rc != 0 && rc != -EPROTO)
		fuzz_bug("parse_link returned %d", rc);
	return MNL_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tcm_want want;
	static struct tcm_plan plan;
	struct lp_qos policy, q;
	struct diff_count d = { 0 };
	unsigned parts = 0;
	char err[256];

	if (size > sizeof(rx.b))
		return 0;
	memcpy(rx.b, data, size);
	memset(&st, 0, sizeof(st));
	(void)mnl_cb_run(rx.b, fuzz_nl_whole(rx.b, size), 0, 0, reply_cb, NULL);

	/* What tc_apply.c does with the netdev's qdiscs. */
	memset(&q, 0, sizeof(q));
	tcm_to_qos(&st, &q);
	(void)tcm_root(&st);
	memset(&policy, 0, sizeof(policy));
	policy.pfc_mask = 1u << 3;
	policy.strict_mask = 1u << 6;
	policy.ets_weight[0] = 50;
	policy.ets_weight[3] = 50;
	policy.ecn[3] = (struct lp_ecn){ 1, 150000, 1500000, 5 };
	if (tcm_from_qos(&policy, 12500000000ull, &want, err, sizeof(err)) < 0)
		fuzz_bug("the fixed policy is refused: %s", err);
	tcm_plan(&st, &want, &plan);
	if (tcm_diff("eth0", &st, &want, count_change, &d, &parts) != 0)
		fuzz_bug("diff stopped without being asked to");
	if (parts != d.parts)
		fuzz_bug("diff names parts %#x, reported %#x", parts, d.parts);
	return 0;
}
