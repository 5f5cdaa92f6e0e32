/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/ar/test_ar_plan.c: the SMPs that would program a switch's
 * adaptive routing (lib/ar/ar_plan.h), on fat trees made by loom-fabgen's
 * builders, routed by the ftree engine, with TREE groups (lib/ar/route_ar.h).
 *
 * Every plan is decoded here again with the ar_mad decoders and compared
 * with the engine's own tables (struct rt_lfts, not the copy rt_ar keeps)
 * and with rt_ar_members, so the tests do not lean on ar_plan_check alone;
 * and ar_plan_check is shown to catch plans corrupted by one bit. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ar/ar_mad.h"
#include "lib/ar/ar_plan.h"
#include "fabgen.h"
#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/ar/route_ar.h"
#include "lib/route/route_metrics.h"
#include "tests/unit/fixtures/check_run.h"

static const struct rt_metrics_opts opts = { .max_shifts = 4, .n_random = 1, .seed = 7,
					     .n_bisect = 0 };

/* ---- fabrics and helpers ------------------------------------------------------- */

static struct fab *fattree(int levels, int radix, int hosts, int cut)
{
	struct fg_fabric fg;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = levels,
		.radix = radix, .hosts = hosts, .rails = 1 }), 0);
	return fixture_fabgen(&fg, cut);
}

static struct routed route_ftree(struct fab *f)
{
	struct routed r = fixture_route(f, rt_route_ftree, &opts);

	ck_assert_msg(r.rc == 0, "ftree: %s", r.err);
	fixture_assert_all_delivered(&r.m, r.g->n_ca);
	return r;
}

static struct rt_ar *tree_groups(const struct routed *r, uint32_t capacity)
{
	char err[256] = "";
	struct rt_ar *ar = rt_ar_new(r->g, r->l, RT_AR_TREE, capacity, err, sizeof(err));

	ck_assert_msg(ar != NULL, "rt_ar_new: %s", err);
	return ar;
}

/* What a switch's ARInfo GetCap could say: AR with group_cap groups. */
static struct ar_mad_info caps(unsigned group_cap, int by_sl_cap)
{
	struct ar_mad_info c;

	memset(&c, 0, sizeof(c));
	c.group_cap = (uint16_t)group_cap;
	c.by_sl_cap = (uint8_t)by_sl_cap;
	c.group_table_cap = 1;
	return c;
}

static struct ar_plan *plan_of(const struct rt_ar *ar, size_t s, const struct ar_mad_info *cap,
			       uint16_t sl_mask)
{
	char err[256] = "";
	struct ar_plan *p = ar_plan_new(&ar->sw[s], ar->max_lid, cap, sl_mask, 0, err, sizeof(err));

	ck_assert_msg(p != NULL, "switch %zu: ar_plan_new: %s", s, err);
	return p;
}

static size_t ceil_div(size_t a, size_t b)
{
	return (a + b - 1) / b;
}

/* Decodes plan p of switch s independently of ar_plan_check and compares
 * it with the engine's table and with rt_ar_members: MAD count and order,
 * every LID's default port = the static LFT entry, FREE in a group whose
 * decoded mask is the LID's member set, STATIC to the static port
 * otherwise; the last ARInfo enables AR iff the switch has groups. */
static void assert_plan_programs(const struct routed *r, const struct rt_ar *ar, size_t s,
				 const struct ar_plan *p, unsigned group_cap)
{
	const struct rt_ar_switch *sw = &ar->sw[s];
	size_t n_gb = ceil_div(sw->n_groups, 2), n_lb = ceil_div((size_t)r->g->max_lid + 1, 16);
	struct ar_mad_group_block *gb = calloc(n_gb + 1, sizeof(*gb));
	struct ar_mad_info first, last;
	char err[256] = "";

	ck_assert_ptr_nonnull(gb);
	ck_assert_uint_le(sw->n_groups, group_cap);
	ck_assert_uint_eq(p->n, n_lb + n_gb + 2);
	ck_assert_uint_eq(p->n_groups, sw->n_groups);
	ck_assert_uint_eq(p->mad[0].attr, AR_MAD_ATTR_INFO);
	ck_assert_uint_eq(p->mad[p->n - 1].attr, AR_MAD_ATTR_INFO);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[0].data, 64, &first, err, sizeof(err)), 0);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[p->n - 1].data, 64, &last, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(first.e, 0);
	ck_assert_uint_eq(last.e, sw->n_groups > 0);
	if (sw->n_groups)
		ck_assert_uint_eq(last.group_top, sw->n_groups - 1);
	ck_assert_uint_eq(last.group_cap, group_cap);
	for (size_t b = 0; b < n_gb; b++) {
		uint32_t am;

		ck_assert_uint_eq(p->mad[1 + b].attr, AR_MAD_ATTR_GROUP_TABLE);
		ck_assert_int_eq(ar_mad_group_am((unsigned)b, 0, 0, &am, err, sizeof(err)), 0);
		ck_assert_uint_eq(p->mad[1 + b].am, am);
		ck_assert_int_eq(ar_mad_group_decode(p->mad[1 + b].data, 64, &gb[b], err,
						     sizeof(err)), 0);
	}
	for (size_t b = 0; b < n_lb; b++) {
		const struct ar_plan_mad *m = &p->mad[1 + n_gb + b];
		struct ar_mad_lft_sx_block blk;
		uint32_t am;

		ck_assert_uint_eq(m->attr, AR_MAD_ATTR_LFT_SX);
		ck_assert_int_eq(ar_mad_lft_am((unsigned)b, 0, &am, err, sizeof(err)), 0);
		ck_assert_uint_eq(m->am, am);
		ck_assert_int_eq(ar_mad_lft_sx_decode(m->data, 64, &blk, err, sizeof(err)), 0);
		for (unsigned i = 0; i < 16; i++) {
			unsigned lid = (unsigned)b * 16 + i;
			const struct ar_mad_lft_sx_entry *e = &blk.e[i];
			uint8_t want = lid <= r->g->max_lid ? rt_lfts_get(r->l, s, lid) : RT_NO_PORT;
			struct rt_ar_ports members;
			unsigned k = lid <= r->g->max_lid ? rt_ar_members(ar, s, lid, &members) : 0;

			ck_assert_msg(e->default_port == want, "switch %zu LID %u: default port "
				      "%u, static LFT %u", s, lid, e->default_port, want);
			ck_assert_uint_eq(e->table_number, 0);
			if (k < 2) {
				ck_assert_uint_eq(e->lid_state, AR_MAD_LID_STATIC);
				ck_assert_uint_eq(e->group_number, want);
				continue;
			}
			ck_assert_uint_eq(e->lid_state, AR_MAD_LID_FREE);
			ck_assert_uint_lt(e->group_number, sw->n_groups);
			for (unsigned port = 0; port < 256; port++)
				ck_assert_int_eq(ar_mad_group_has_port(&gb[e->group_number / 2],
								       e->group_number % 2, port),
						 rt_ar_ports_has(&members, port));
		}
	}
	ck_assert_msg(ar_plan_check(p, sw, r->g->max_lid, err, sizeof(err)) == 0, "switch %zu: "
		      "%s", s, err);
	free(gb);
}

/* Every switch of r: a plan that programs it; returns the most groups. */
static unsigned assert_every_switch(const struct routed *r, const struct rt_ar *ar,
				    unsigned group_cap, size_t *dropped_seen)
{
	struct ar_mad_info cap = caps(group_cap, 1);
	unsigned most = 0;

	for (size_t s = 0; s < r->g->n_sw; s++) {
		struct ar_plan *p = plan_of(ar, s, &cap, AR_PLAN_ALL_SLS);

		assert_plan_programs(r, ar, s, p, group_cap);
		if (ar->sw[s].n_groups > most)
			most = ar->sw[s].n_groups;
		if (dropped_seen)
			*dropped_seen += ar->sw[s].n_dropped;
		ar_plan_free(p);
	}
	return most;
}

/* ---- plans that program the switch ------------------------------------------------ */

START_TEST(every_switch_of_a_full_2_level_tree_gets_a_plan_that_programs_it)
{
	struct routed r = route_ftree(fattree(2, 8, 32, 0));
	struct rt_ar *ar = tree_groups(&r, RT_AR_DEFAULT_CAPACITY);

	/* Leaves have one group (their up ports), spines none: both kinds. */
	ck_assert_uint_eq(assert_every_switch(&r, ar, RT_AR_DEFAULT_CAPACITY, NULL), 1);
	ck_assert_uint_gt(ar->n_alt, 0);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(every_switch_of_degraded_trees_gets_a_plan_that_programs_it)
{
	struct routed two = route_ftree(fattree(2, 8, 32, 5));
	struct routed three = route_ftree(fattree(3, 8, 128, 12));
	struct rt_ar *a = tree_groups(&two, RT_AR_DEFAULT_CAPACITY);
	struct rt_ar *b = tree_groups(&three, RT_AR_DEFAULT_CAPACITY);
	unsigned most2 = assert_every_switch(&two, a, RT_AR_DEFAULT_CAPACITY, NULL);
	unsigned most3 = assert_every_switch(&three, b, RT_AR_DEFAULT_CAPACITY, NULL);

	printf("degraded trees: at most %u groups per switch (2 levels, 5 cuts), %u (3 "
	       "levels, 12 cuts)\n", most2, most3);
	/* The cuts give some switch several groups: blocks of 2 are used. */
	ck_assert_uint_gt(most2 > most3 ? most2 : most3, 1);
	rt_ar_free(a);
	rt_ar_free(b);
	fixture_routed_free(&two);
	fixture_routed_free(&three);
}
END_TEST

/* With capacity 1 LIDs are dropped (rt_ar marks them RT_AR_NO_GROUP): the
 * plan forwards them statically, to their static port. */
START_TEST(lids_dropped_for_capacity_are_static_entries_to_their_static_port)
{
	struct routed r = route_ftree(fattree(3, 8, 128, 12));
	struct rt_ar *ar = tree_groups(&r, 1);
	size_t dropped = 0;

	ck_assert_uint_eq(assert_every_switch(&r, ar, 1, &dropped), 1);
	ck_assert_uint_gt(dropped, 0);
	ck_assert_uint_eq(dropped, ar->n_dropped);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(the_arinfo_sets_keep_what_loom_does_not_manage_and_set_the_sl_mask)
{
	struct routed r = route_ftree(fattree(2, 8, 32, 0));
	struct rt_ar *ar = tree_groups(&r, RT_AR_DEFAULT_CAPACITY);
	struct ar_mad_info cap = caps(64, 1), got;
	struct ar_plan *p;
	char err[256] = "";
	size_t leaf = 0;

	while (ar->sw[leaf].n_groups == 0)
		leaf++;
	cap.rn_xmit_enabled = 1;
	cap.ageing_time_value = 12345;
	cap.by_transport_disable = 0x5;
	cap.enable_by_sl_mask_hbf = 0x00F0;
	cap.sub_grps_active = 3;   /* what the switch had: the plan resets it */
	cap.e = 1;
	p = plan_of(ar, leaf, &cap, 0x0003);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[p->n - 1].data, 64, &got, err, sizeof(err)), 0);
	ck_assert_uint_eq(got.e, 1);
	ck_assert_uint_eq(got.by_sl_en, 1);
	ck_assert_uint_eq(got.enable_by_sl_mask, 0x0003);
	ck_assert_uint_eq(got.sub_grps_active, 0);
	ck_assert_uint_eq(got.rn_xmit_enabled, 1);
	ck_assert_uint_eq(got.ageing_time_value, 12345);
	ck_assert_uint_eq(got.by_transport_disable, 0x5);
	ck_assert_uint_eq(got.enable_by_sl_mask_hbf, 0x00F0);
	ck_assert_uint_eq(got.group_cap, 64);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[0].data, 64, &got, err, sizeof(err)), 0);
	ck_assert_uint_eq(got.e, 0);  /* off first, even though the switch had it on */
	ck_assert_uint_eq(got.enable_by_sl_mask, 0x0003);
	ck_assert_msg(ar_plan_check(p, &ar->sw[leaf], ar->max_lid, err, sizeof(err)) == 0, "%s",
		      err);
	ar_plan_free(p);
	/* Every SL: by_sl_en off. */
	p = plan_of(ar, leaf, &cap, AR_PLAN_ALL_SLS);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[p->n - 1].data, 64, &got, err, sizeof(err)), 0);
	ck_assert_uint_eq(got.by_sl_en, 0);
	ck_assert_uint_eq(p->sl_mask, AR_PLAN_ALL_SLS);
	ar_plan_free(p);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

/* SHIELD (fast link fault recovery): fr_enabled 1 in the ARInfo Set that
 * enables AR only when asked for and the switch reports is_fr_sup, and 0 in
 * the first one, while the groups are rewritten; asked for on a switch
 * without it, the plan is made without it (not refused); not asked for, it
 * is turned off even where the switch had it on. ar_plan_check holds the
 * read-back to p->fr_enabled. */
START_TEST(shield_sets_fr_enabled_only_where_the_switch_supports_it)
{
	struct routed r = route_ftree(fattree(2, 8, 32, 0));
	struct rt_ar *ar = tree_groups(&r, RT_AR_DEFAULT_CAPACITY);
	struct ar_mad_info cap = caps(64, 1), first, last;
	struct ar_plan *p;
	char err[256] = "";
	size_t leaf = 0;

	while (ar->sw[leaf].n_groups == 0)
		leaf++;
	cap.is_fr_sup = 1;
	p = ar_plan_new(&ar->sw[leaf], ar->max_lid, &cap, AR_PLAN_ALL_SLS, AR_PLAN_SHIELD, err,
			sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->fr_enabled, 1);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[0].data, 64, &first, err, sizeof(err)), 0);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[p->n - 1].data, 64, &last, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(first.fr_enabled, 0);
	ck_assert_uint_eq(last.fr_enabled, 1);
	ck_assert_msg(ar_plan_check(p, &ar->sw[leaf], ar->max_lid, err, sizeof(err)) == 0, "%s",
		      err);
	/* A first Set with it on is caught. */
	first.fr_enabled = 1;
	ck_assert_int_eq(ar_mad_info_encode(&first, p->mad[0].data, 64, err, sizeof(err)), 0);
	ck_assert_int_eq(ar_plan_check(p, &ar->sw[leaf], ar->max_lid, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "first ARInfo: fr_enabled is 1"), "%s", err);
	first.fr_enabled = 0;
	ck_assert_int_eq(ar_mad_info_encode(&first, p->mad[0].data, 64, err, sizeof(err)), 0);
	/* A read-back where the switch dropped it is caught. */
	last.fr_enabled = 0;
	ck_assert_int_eq(ar_mad_info_encode(&last, p->mad[p->n - 1].data, 64, err, sizeof(err)),
			 0);
	ck_assert_int_eq(ar_plan_check(p, &ar->sw[leaf], ar->max_lid, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "fr_enabled 0, expected 1"), "%s", err);
	ar_plan_free(p);
	/* Asked for, not supported: made without it. */
	cap.is_fr_sup = 0;
	p = ar_plan_new(&ar->sw[leaf], ar->max_lid, &cap, AR_PLAN_ALL_SLS, AR_PLAN_SHIELD, err,
			sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->fr_enabled, 0);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[p->n - 1].data, 64, &last, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(last.fr_enabled, 0);
	ar_plan_free(p);
	/* Not asked for: off, even where the switch had it on. */
	cap.is_fr_sup = 1;
	cap.fr_enabled = 1;
	p = plan_of(ar, leaf, &cap, AR_PLAN_ALL_SLS);
	ck_assert_uint_eq(p->fr_enabled, 0);
	ck_assert_int_eq(ar_mad_info_decode(p->mad[p->n - 1].data, 64, &last, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(last.fr_enabled, 0);
	ck_assert_msg(ar_plan_check(p, &ar->sw[leaf], ar->max_lid, err, sizeof(err)) == 0, "%s",
		      err);
	ar_plan_free(p);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

/* ---- refusals ---------------------------------------------------------------------- */

START_TEST(plans_are_refused_with_both_numbers_when_the_switch_cannot_take_them)
{
	struct routed r = route_ftree(fattree(3, 8, 128, 12));
	struct rt_ar *ar = tree_groups(&r, RT_AR_DEFAULT_CAPACITY);
	struct ar_mad_info cap;
	char err[256] = "", num[32];
	size_t s = 0;
	unsigned n;

	while (ar->sw[s].n_groups < 2)
		s++;
	n = ar->sw[s].n_groups;
	/* One group too few. */
	cap = caps(n - 1, 1);
	ck_assert_ptr_null(ar_plan_new(&ar->sw[s], ar->max_lid, &cap, AR_PLAN_ALL_SLS, 0, err,
				       sizeof(err)));
	snprintf(num, sizeof(num), "%u AR groups", n);
	ck_assert_msg(strstr(err, num) && strstr(err, "group_cap"), "%s", err);
	snprintf(num, sizeof(num), "is %u", n - 1);
	ck_assert_msg(strstr(err, num), "%s", err);
	/* Exactly enough is fine. */
	cap = caps(n, 1);
	ar_plan_free(plan_of(ar, s, &cap, AR_PLAN_ALL_SLS));
	/* No AR at all. */
	cap = caps(0, 1);
	ck_assert_ptr_null(ar_plan_new(&ar->sw[s], ar->max_lid, &cap, AR_PLAN_ALL_SLS, 0, err,
				       sizeof(err)));
	ck_assert_msg(strstr(err, "no adaptive routing") && strstr(err, "group_cap is 0"), "%s",
		      err);
	/* AR on some SLs only, but the switch can only do all. */
	cap = caps(RT_AR_DEFAULT_CAPACITY, 0);
	ck_assert_ptr_null(ar_plan_new(&ar->sw[s], ar->max_lid, &cap, 0x0001, 0, err, sizeof(err)));
	ck_assert_msg(strstr(err, "by_sl_cap") && strstr(err, "0x0001"), "%s", err);
	ar_plan_free(plan_of(ar, s, &cap, AR_PLAN_ALL_SLS));
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

/* A switch made by hand: LIDs 0..max_lid, 'groups' groups of ports 1, 2. */
struct hand {
	struct rt_ar_switch sw;
	struct rt_ar_ports set[3];
};

static void hand_init(struct hand *h, uint32_t max_lid)
{
	memset(h, 0, sizeof(*h));
	h->sw.groups = h->set;
	h->sw.group = malloc(((size_t)max_lid + 1) * sizeof(*h->sw.group));
	h->sw.port = malloc((size_t)max_lid + 1);
	ck_assert_ptr_nonnull(h->sw.group);
	ck_assert_ptr_nonnull(h->sw.port);
	memset(h->sw.group, 0xFF, ((size_t)max_lid + 1) * sizeof(*h->sw.group));
	memset(h->sw.port, RT_NO_PORT, (size_t)max_lid + 1);
	rt_ar_ports_add(&h->set[0], 1);
	rt_ar_ports_add(&h->set[0], 2);
	h->sw.n_groups = 1;
	h->sw.group[1] = 0;
	h->sw.port[1] = 2;
	h->sw.port[2] = 0;  /* the switch's own LID */
	h->sw.port[3] = 1;  /* routed, no group */
}

static void hand_free(struct hand *h)
{
	free(h->sw.group);
	free(h->sw.port);
}

START_TEST(lids_beyond_the_ar_lft_and_non_ports_in_groups_are_refused)
{
	struct ar_mad_info cap = caps(16, 1);
	struct hand h;
	struct ar_plan *p;
	char err[256] = "";

	/* The SX LFT ends at LID 49151 (3072 blocks of 16). */
	hand_init(&h, 49152);
	ck_assert_ptr_null(ar_plan_new(&h.sw, 49152, &cap, AR_PLAN_ALL_SLS, 0, err, sizeof(err)));
	ck_assert_msg(strstr(err, "49152") && strstr(err, "3073") && strstr(err, "3072"), "%s",
		      err);
	ck_assert_ptr_nonnull(p = ar_plan_new(&h.sw, 49151, &cap, AR_PLAN_ALL_SLS, 0, err,
					      sizeof(err)));
	ck_assert_uint_eq(p->n, 3072 + 1 + 2);
	ck_assert_msg(ar_plan_check(p, &h.sw, 49151, err, sizeof(err)) == 0, "%s", err);
	ar_plan_free(p);
	/* Port 255 is the LFT's "unreachable", port 0 the switch: no member. */
	rt_ar_ports_add(&h.set[0], 255);
	ck_assert_ptr_null(ar_plan_new(&h.sw, 15, &cap, AR_PLAN_ALL_SLS, 0, err, sizeof(err)));
	ck_assert_msg(strstr(err, "port 255"), "%s", err);
	hand_free(&h);
	/* A LID whose static port is not in its group. */
	hand_init(&h, 15);
	h.sw.port[1] = 3;
	ck_assert_ptr_null(ar_plan_new(&h.sw, 15, &cap, AR_PLAN_ALL_SLS, 0, err, sizeof(err)));
	ck_assert_msg(strstr(err, "LID 1") && strstr(err, "port 3"), "%s", err);
	hand_free(&h);
}
END_TEST

/* The hand-made switch, entry by entry: FREE in group 0 with default 2,
 * STATIC to 0 (itself), STATIC to 1, and unrouted LIDs STATIC to 255. */
START_TEST(a_hand_made_switch_gives_the_entries_the_static_lft_implies)
{
	struct ar_mad_info cap = caps(16, 1);
	struct ar_mad_lft_sx_block blk;
	struct ar_mad_group_block gb;
	struct hand h;
	struct ar_plan *p;
	char err[256] = "";

	hand_init(&h, 20);
	p = ar_plan_new(&h.sw, 20, &cap, AR_PLAN_ALL_SLS, 0, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->n, 1 + 1 + 2 + 1);  /* LIDs 0..20: 2 blocks */
	ck_assert_int_eq(ar_mad_group_decode(p->mad[1].data, 64, &gb, err, sizeof(err)), 0);
	ck_assert_uint_eq(gb.ports[0][0], 0x6);  /* ports 1 and 2 */
	ck_assert_uint_eq(gb.ports[1][0] | gb.ports[1][1] | gb.ports[1][2] | gb.ports[1][3], 0);
	ck_assert_int_eq(ar_mad_lft_sx_decode(p->mad[2].data, 64, &blk, err, sizeof(err)), 0);
	ck_assert_uint_eq(blk.e[1].lid_state, AR_MAD_LID_FREE);
	ck_assert_uint_eq(blk.e[1].group_number, 0);
	ck_assert_uint_eq(blk.e[1].default_port, 2);
	ck_assert_uint_eq(blk.e[2].lid_state, AR_MAD_LID_STATIC);
	ck_assert_uint_eq(blk.e[2].group_number, 0);
	ck_assert_uint_eq(blk.e[2].default_port, 0);
	ck_assert_uint_eq(blk.e[3].lid_state, AR_MAD_LID_STATIC);
	ck_assert_uint_eq(blk.e[3].group_number, 1);
	ck_assert_uint_eq(blk.e[3].default_port, 1);
	ck_assert_uint_eq(blk.e[0].lid_state, AR_MAD_LID_STATIC);
	ck_assert_uint_eq(blk.e[0].group_number, RT_NO_PORT);
	ck_assert_uint_eq(blk.e[0].default_port, RT_NO_PORT);
	/* Past max_lid in the last block: unrouted too. */
	ck_assert_int_eq(ar_mad_lft_sx_decode(p->mad[3].data, 64, &blk, err, sizeof(err)), 0);
	ck_assert_uint_eq(blk.e[15].lid_state, AR_MAD_LID_STATIC);
	ck_assert_uint_eq(blk.e[15].default_port, RT_NO_PORT);
	ck_assert_msg(ar_plan_check(p, &h.sw, 20, err, sizeof(err)) == 0, "%s", err);
	ar_plan_free(p);
	/* No group at all: the tables are written static and AR stays off. */
	h.sw.n_groups = 0;
	h.sw.group[1] = RT_AR_NO_GROUP;
	p = ar_plan_new(&h.sw, 20, &cap, AR_PLAN_ALL_SLS, 0, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->n, 2 + 2);
	ck_assert_msg(ar_plan_check(p, &h.sw, 20, err, sizeof(err)) == 0, "%s", err);
	{
		struct ar_mad_info last;

		ck_assert_int_eq(ar_mad_info_decode(p->mad[3].data, 64, &last, err, sizeof(err)),
				 0);
		ck_assert_uint_eq(last.e, 0);
	}
	ar_plan_free(p);
	hand_free(&h);
}
END_TEST

/* ---- the check catches corruption ----------------------------------------------------- */

/* Flip bit b (0 = least significant) of the big-endian 32-bit word at byte
 * off of MAD i: the layout's own addressing, written here once more. */
static void flip(struct ar_plan *p, size_t i, unsigned off, unsigned b)
{
	p->mad[i].data[off + 3 - b / 8] ^= (uint8_t)(1u << (b % 8));
}

START_TEST(the_check_catches_a_flipped_default_port_group_bit_enable_or_order)
{
	struct routed r = route_ftree(fattree(2, 8, 32, 0));
	struct rt_ar *ar = tree_groups(&r, RT_AR_DEFAULT_CAPACITY);
	struct ar_mad_info cap = caps(RT_AR_DEFAULT_CAPACITY, 1);
	const struct rt_ar_switch *sw;
	struct ar_plan *p;
	struct ar_plan_mad tmp;
	char err[256] = "", want[64];
	size_t leaf = 0;
	unsigned lid = 0, stat = 1, port = 0, lft0;

	while (ar->sw[leaf].n_groups == 0)
		leaf++;
	sw = &ar->sw[leaf];
	/* A LID with a group, and a port of group 0. */
	while (sw->group[lid] == RT_AR_NO_GROUP)
		lid++;
	while (!rt_ar_ports_has(&sw->groups[0], port))
		port++;
	/* And a routed LID without one (a host on this leaf). */
	while (sw->group[stat] != RT_AR_NO_GROUP || sw->port[stat] == RT_NO_PORT ||
	       sw->port[stat] == 0)
		stat++;
	p = plan_of(ar, leaf, &cap, AR_PLAN_ALL_SLS);
	lft0 = 1 + (unsigned)ceil_div(sw->n_groups, 2);
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), 0);

	/* DefaultPort: bits 16-23 of the LID's word. Lowest bit flipped, in
	 * a LID with a group and in one forwarded statically. */
	for (int k = 0; k < 2; k++) {
		unsigned l = k == 0 ? lid : stat;

		flip(p, lft0 + l / 16, 4 * (l % 16), 16);
		ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want), "LID %u: default port %u, the static LFT has %u", l,
			 rt_lfts_get(r.l, leaf, l) ^ 1u, rt_lfts_get(r.l, leaf, l));
		ck_assert_msg(strstr(err, want), "%s", err);
		flip(p, lft0 + l / 16, 4 * (l % 16), 16);
		ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), 0);
	}

	/* Group 0 is entry 0 of block 0: its ports 0-63 are the 64-bit word
	 * at byte 24 ("SubGroup_0"), the low half at byte 28. */
	flip(p, 1, port < 32 ? 28 : 24, port % 32);
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "group 0: port %u missing", port);
	ck_assert_msg(strstr(err, want), "%s", err);
	flip(p, 1, port < 32 ? 28 : 24, port % 32);
	/* A port added to an unused entry (group 1 does not exist). */
	flip(p, 1, 32 + 28, 9);
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "past the last group"), "%s", err);
	flip(p, 1, 32 + 28, 9);

	/* The LID's state: FREE (1) to STATIC (2) is bits 30-31 going 01 -> 10. */
	flip(p, lft0 + lid / 16, 4 * (lid % 16), 30);
	flip(p, lft0 + lid / 16, 4 * (lid % 16), 31);
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "LID %u: lid_state 2", lid);
	ck_assert_msg(strstr(err, want), "%s", err);
	flip(p, lft0 + lid / 16, 4 * (lid % 16), 30);
	flip(p, lft0 + lid / 16, 4 * (lid % 16), 31);

	/* The final enable (e: bit 0 of word 0), and AR left on at the start. */
	flip(p, p->n - 1, 0, 0);
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "last ARInfo: e is 0"), "%s", err);
	flip(p, p->n - 1, 0, 0);
	flip(p, 0, 0, 0);
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "first ARInfo: e is 1"), "%s", err);
	flip(p, 0, 0, 0);
	/* group_top (bits 12-23 of word 4) one higher. */
	flip(p, p->n - 1, 4, 12);
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "group_top"), "%s", err);
	flip(p, p->n - 1, 4, 12);

	/* The group table written after the LFT. */
	tmp = p->mad[1];
	p->mad[1] = p->mad[lft0];
	p->mad[lft0] = tmp;
	ck_assert_int_eq(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "attribute 0xFF23, expected 0xFF21"), "%s", err);
	tmp = p->mad[1];
	p->mad[1] = p->mad[lft0];
	p->mad[lft0] = tmp;
	ck_assert_msg(ar_plan_check(p, sw, ar->max_lid, err, sizeof(err)) == 0, "%s", err);
	/* A plan of another switch (a spine: no group) is not this one's. */
	{
		size_t spine = 0;
		struct ar_plan *q;

		while (ar->sw[spine].n_groups != 0)
			spine++;
		q = plan_of(ar, spine, &cap, AR_PLAN_ALL_SLS);
		ck_assert_int_eq(ar_plan_check(q, sw, ar->max_lid, err, sizeof(err)), -EINVAL);
		ar_plan_free(q);
	}
	ar_plan_free(p);
	rt_ar_free(ar);
	fixture_routed_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ar_plan");
	TCase *tc = tcase_create("ar_plan");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_switch_of_a_full_2_level_tree_gets_a_plan_that_programs_it);
	tcase_add_test(tc, every_switch_of_degraded_trees_gets_a_plan_that_programs_it);
	tcase_add_test(tc, lids_dropped_for_capacity_are_static_entries_to_their_static_port);
	tcase_add_test(tc, the_arinfo_sets_keep_what_loom_does_not_manage_and_set_the_sl_mask);
	tcase_add_test(tc, shield_sets_fr_enabled_only_where_the_switch_supports_it);
	tcase_add_test(tc, plans_are_refused_with_both_numbers_when_the_switch_cannot_take_them);
	tcase_add_test(tc, lids_beyond_the_ar_lft_and_non_ports_in_groups_are_refused);
	tcase_add_test(tc, a_hand_made_switch_gives_the_entries_the_static_lft_implies);
	tcase_add_test(tc, the_check_catches_a_flipped_default_port_group_bit_enable_or_order);
	suite_add_tcase(s, tc);
	return check_run(s);
}
