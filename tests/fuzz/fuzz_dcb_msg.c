/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_dcb_msg.c: arbitrary bytes as the kernel's replies to the
 * linuxdcb plugin's DCB requests (plugins/linuxdcb/dcb_msg.c): the buffer is
 * split into netlink messages by libmnl's mnl_cb_run, exactly as the
 * plugin's talk() does with what recv() returned (but see fuzz_nl.h: a
 * message announcing 2 GiB or more is cut off first), and each goes to
 * dcbm_parse_get (the reply to DCB_CMD_IEEE_GET) and dcbm_parse_set_reply
 * (to a SET or DEL). What a GET decodes then goes where dcb_apply.c takes
 * it: dcbm_to_qos, dcbm_from_qos, dcbm_diff and dcbm_app_plan against a
 * fixed policy. dcb_msg.c is compiled in, as for tests/unit/plugins/linuxdcb/test_dcb_msg.
 *
 * Invariants: the parsers return 0 or -EPROTO (a SET reply also the
 * driver's -errno); a decoded state holds at most DCBM_MAX_APP entries, and
 * building a GET-shaped message of it (dcbm_build) and parsing that gives
 * the same state; a diff reports each part at most once per field, with the
 * parts it names.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include -I plugins/linuxdcb tests/fuzz/fuzz_dcb_msg.c \
 *       plugins/linuxdcb/dcb_msg.c -lmnl -o fuzz_dcb_msg
 *   cp -r tests/fuzz/corpus/dcb_msg work && ./fuzz_dcb_msg work */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_nl.h"
#include "dcb_msg.h"

const char fuzz_name[] = "fuzz_dcb_msg";

/* The netlink buffer, aligned as recv() into the plugin's buffer would be. */
static union {
	struct nlmsghdr align;
	unsigned char b[1 << 16];
} rx;
static unsigned char tx[DCBM_BUF_SIZE];

struct diff_count {
	unsigned n, parts;
};

static int count_change(void *ctx, const struct dcbm_change *c)
{
	struct diff_count *d = ctx;

	if (c->part != DCBM_ETS && c->part != DCBM_PFC && c->part != DCBM_APP)
		fuzz_bug("a change of part %d", (int)c->part);
	if (!memchr(c->key, '\0', sizeof(c->key)) || !memchr(c->field, '\0', sizeof(c->field)) ||
	    !memchr(c->before, '\0', sizeof(c->before)) || !memchr(c->after, '\0', sizeof(c->after)))
		fuzz_bug("a change's strings are not terminated");
	d->n++;
	d->parts |= c->part;
	return 0;
}

static void same_state(const struct dcbm_state *a, const struct dcbm_state *b)
{
	if (a->has_pfc != b->has_pfc || a->has_ets != b->has_ets || a->n_app != b->n_app)
		fuzz_bug("state after a round trip: pfc %d/%d ets %d/%d apps %zu/%zu", a->has_pfc,
			 b->has_pfc, a->has_ets, b->has_ets, a->n_app, b->n_app);
	if ((a->has_pfc && memcmp(&a->pfc, &b->pfc, sizeof(a->pfc))) ||
	    (a->has_ets && memcmp(&a->ets, &b->ets, sizeof(a->ets))) ||
	    memcmp(a->app, b->app, a->n_app * sizeof(a->app[0])))
		fuzz_bug("state after a round trip differs");
}

static void use_state(const struct dcbm_state *st)
{
	static struct dcbm_state back, want;
	static struct dcb_app add[64], del[DCBM_MAX_APP];
	struct lp_qos q, policy;
	struct diff_count d = { 0, 0 };
	struct nlmsghdr *nlh;
	size_t n_add = 0, n_del = 0;
	unsigned parts = 0;

	if (st->n_app > DCBM_MAX_APP)
		fuzz_bug("%zu APP entries", st->n_app);
	nlh = dcbm_build(tx, sizeof(tx), RTM_GETDCB, DCB_CMD_IEEE_GET, 1, "eth0",
			 st->has_pfc ? &st->pfc : NULL, st->has_ets ? &st->ets : NULL, st->app,
			 st->n_app);
	if (!nlh)
		fuzz_bug("a decoded state does not fit in a message");
	if (dcbm_parse_get(nlh, &back) != 0)
		fuzz_bug("a built message does not parse");
	same_state(st, &back);

	/* What dcb_apply.c does with it: read as a policy, and diffed and
	 * planned against one. */
	memset(&q, 0, sizeof(q));
	(void)dcbm_to_qos(st, &q);
	memset(&policy, 0, sizeof(policy));
	policy.pfc_mask = 1u << 3;
	policy.strict_mask = 1u << 6;
	policy.ets_weight[0] = 50;
	policy.ets_weight[3] = 50;
	for (unsigned i = 0; i < 64; i++)
		policy.dscp_to_tc[i] = i == 26 ? 3 : i == 48 ? 6 : 0;
	for (unsigned pass = 0; pass < 2; pass++) {
		dcbm_from_qos(pass ? &q : &policy, st, &want);
		d.n = d.parts = 0;
		if (dcbm_diff("eth0", st, &want, count_change, &d, &parts) != 0)
			fuzz_bug("diff stopped without being asked to");
		if (parts != d.parts)
			fuzz_bug("diff names parts %#x, reported %#x", parts, d.parts);
		dcbm_app_plan(st, &want, add, &n_add, del, &n_del);
		if (n_add > 64 || n_del > DCBM_MAX_APP)
			fuzz_bug("plan: %zu to add, %zu to delete", n_add, n_del);
	}
}

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	static struct dcbm_state st;
	int rc = dcbm_parse_get(nlh, &st);

	(void)data;
	if (rc != 0 && rc != -EPROTO)
		fuzz_bug("parse_get returned %d", rc);
	if (rc == 0)
		use_state(&st);
	rc = dcbm_parse_set_reply(nlh);
	if (rc > 0 || rc < -255)
		fuzz_bug("parse_set_reply returned %d", rc);
	return MNL_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > sizeof(rx.b))
		return 0;
	memcpy(rx.b, data, size);
	/* seq and portid 0: no filtering, every message reaches the callback. */
	(void)mnl_cb_run(rx.b, fuzz_nl_whole(rx.b, size), 0, 0, reply_cb, NULL);
	return 0;
}
