/* tests/unit/fixture_arsw.c: see fixture_arsw.h. */
#include "autoconf.h"
#include "fixture_arsw.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include "fabgen.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"

struct arsw_tree arsw_tree3(void)
{
	static const struct rt_metrics_opts opts = { .max_shifts = 4, .n_random = 1,
						     .seed = 7, .n_bisect = 0 };
	struct fg_fabric fg;
	struct arsw_tree t;
	char err[256] = "";

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 3,
		.radix = 8, .hosts = 128, .rails = 1 }), 0);
	t.r = fixture_route(fixture_fabgen(&fg, 0), rt_route_ftree, &opts);
	ck_assert_msg(t.r.rc == 0, "ftree: %s", t.r.err);
	fixture_assert_all_delivered(&t.r.m, t.r.g->n_ca);
	t.ar = rt_ar_new(t.r.g, t.r.l, RT_AR_TREE, RT_AR_DEFAULT_CAPACITY, err, sizeof(err));
	ck_assert_msg(t.ar != NULL, "rt_ar_new: %s", err);
	/* LIDs over several AR LFT blocks, so the self-check has blocks to pick. */
	ck_assert_uint_gt(t.ar->max_lid, 3 * AR_MAD_LFT_SX_ENTRIES);
	return t;
}

void arsw_tree_free(struct arsw_tree *t)
{
	rt_ar_free(t->ar);
	fixture_routed_free(&t->r);
}

struct blk *memsw_find(struct memsw *m, uint16_t attr, uint32_t am)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->b[i].attr == attr && m->b[i].am == am)
			return &m->b[i];
	return NULL;
}

struct blk *memsw_put(struct memsw *m, uint16_t attr, uint32_t am)
{
	struct blk *b = memsw_find(m, attr, am);

	if (!b) {
		ck_assert_uint_lt(m->n, sizeof(m->b) / sizeof(m->b[0]));
		b = &m->b[m->n++];
		memset(b, 0, sizeof(*b));
		b->attr = attr;
		b->am = am;
	}
	return b;
}

int memsw_get(void *ctx, uint16_t attr, uint32_t am, uint8_t data[AR_MAD_DATA_LEN],
	      unsigned *status)
{
	struct memsw *m = ctx;
	struct blk *b;
	char err[128];

	m->n_get++;
	if (m->no_answer)
		return -ETIMEDOUT;
	*status = m->status;
	if (m->status)
		return 0;
	if (attr == AR_MAD_ATTR_LFT_SX && m->n_set == 0 && m->n_lft_gets < 16)
		m->lft_gets[m->n_lft_gets++] = am;
	if (attr == AR_MAD_ATTR_LFT_SX && m->lft_status) {
		*status = m->lft_status;
		return 0;
	}
	if (attr == AR_MAD_ATTR_INFO && am == ar_mad_info_am(1)) {
		ck_assert_int_eq(ar_mad_info_encode(&m->cap, data, AR_MAD_DATA_LEN, err,
						    sizeof(err)), 0);
		return 0;
	}
	if (!(b = memsw_find(m, attr, am))) {
		/* A fresh group table reads as zeros; a block that is not there
		 * (a wrong modifier) as "invalid attribute or modifier". */
		memset(data, 0, AR_MAD_DATA_LEN);
		*status = attr == AR_MAD_ATTR_GROUP_TABLE ? 0 : 0x1c;
		return 0;
	}
	memcpy(data, b->data, AR_MAD_DATA_LEN);
	if (b->written && attr == m->corrupt_attr && am == m->corrupt_am)
		data[m->corrupt_byte] ^= m->corrupt_mask;
	return 0;
}

int memsw_set(void *ctx, uint16_t attr, uint32_t am, const uint8_t data[AR_MAD_DATA_LEN],
	      uint8_t reply[AR_MAD_DATA_LEN], unsigned *status)
{
	struct memsw *m = ctx;
	struct blk *b;

	m->n_set++;
	if (m->no_answer)
		return -ETIMEDOUT;
	if (m->fail_set && (m->n_set == m->fail_set || (m->fail_later_too &&
							 m->n_set > m->fail_set))) {
		if (m->fail_kind == FAIL_NO_ANSWER)
			return -ETIMEDOUT;
		if (m->fail_kind == FAIL_STATUS) {
			*status = 0x1c;
			memcpy(reply, data, AR_MAD_DATA_LEN);
			return 0;
		}
		/* Not taken: the answer is what the switch still holds. */
		b = memsw_find(m, attr, am);
		memset(reply, 0, AR_MAD_DATA_LEN);
		if (b)
			memcpy(reply, b->data, AR_MAD_DATA_LEN);
		else
			reply[0] ^= 0x80;
		*status = 0;
		return 0;
	}
	b = memsw_put(m, attr, am);
	memcpy(b->data, data, AR_MAD_DATA_LEN);
	b->written = 1;
	if (attr == AR_MAD_ATTR_INFO && (data[3] & 1))  /* e: bit 0 of word 0 */
		m->ever_enabled = 1;
	memcpy(reply, b->data, AR_MAD_DATA_LEN);
	*status = 0;
	return 0;
}

void memsw_init(struct memsw *m, const struct rt_ar_switch *sw, uint32_t max_lid,
		       unsigned lft_shift)
{
	char err[128];
	struct ar_mad_info cur;

	memset(m, 0, sizeof(*m));
	m->cap.group_cap = 64;
	m->cap.group_table_cap = 1;
	m->cap.by_sl_cap = 1;
	cur = m->cap;
	ck_assert_int_eq(ar_mad_info_encode(&cur, memsw_put(m, AR_MAD_ATTR_INFO, 0)->data,
					    AR_MAD_DATA_LEN, err, sizeof(err)), 0);
	for (unsigned b = 0; b <= max_lid / AR_MAD_LFT_SX_ENTRIES; b++) {
		struct ar_mad_lft_sx_block blk;
		uint32_t am;

		memset(&blk, 0, sizeof(blk));
		for (unsigned e = 0; e < AR_MAD_LFT_SX_ENTRIES; e++) {
			uint32_t lid = (b + lft_shift) * AR_MAD_LFT_SX_ENTRIES + e;
			uint8_t port = lid <= max_lid ? sw->port[lid] : RT_NO_PORT;

			blk.e[e].lid_state = AR_MAD_LID_STATIC;
			blk.e[e].group_number = port;
			blk.e[e].default_port = port;
		}
		ck_assert_int_eq(ar_mad_lft_am(b, 0, &am, err, sizeof(err)), 0);
		ck_assert_int_eq(ar_mad_lft_sx_encode(&blk, memsw_put(m, AR_MAD_ATTR_LFT_SX, am)->data,
						      AR_MAD_DATA_LEN, err, sizeof(err)), 0);
	}
}

struct ar_xport memsw_xport(struct memsw *m)
{
	return (struct ar_xport){ .get = memsw_get, .set = memsw_set, .ctx = m };
}

struct ar_mad_info memsw_info(struct memsw *m)
{
	struct ar_mad_info i;
	char err[128];

	ck_assert_int_eq(ar_mad_info_decode(memsw_find(m, AR_MAD_ATTR_INFO, 0)->data, AR_MAD_DATA_LEN,
					    &i, err, sizeof(err)), 0);
	return i;
}

