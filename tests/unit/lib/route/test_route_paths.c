/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/route/test_route_paths.c: the links a job's pairs cross
 * (lib/route/route_paths.c) on fabrics from loom-fabgen's builders routed
 * by lib/route's engines, against a reference that walks every pair on its
 * own, one entry at a time, without grouping by source switch. */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "fabgen.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/route/route.h"
#include "lib/route/route_paths.h"

/* ---- the reference: every pair walked alone ------------------------------------- */

struct ref {
	uint64_t *use;          /* 2 * n_ports: out links, then in links */
	uint64_t delivered, dropped, loops;
};

static void ref_walk(const struct rt_graph *g, const struct rt_lfts *l, size_t a, size_t b,
		     struct ref *r)
{
	int32_t s = g->ca[a].sw;
	unsigned lid = g->ca[b].lid;
	size_t visited = 0;

	if (s < 0) {
		r->dropped++;
		return;
	}
	r->use[g->n_ports + g->sw[s].first_port + g->ca[a].sw_port]++;
	for (;;) {
		uint8_t p = l->port[(size_t)s * (l->max_lid + 1u) + lid];
		const struct rt_port *rp;

		if (p == RT_NO_PORT || p == 0 || p > g->sw[s].nports) {
			r->dropped++;
			return;
		}
		if (++visited > g->n_sw) {
			r->loops++;
			return;
		}
		r->use[g->sw[s].first_port + p]++;
		rp = &g->ports[g->sw[s].first_port + p];
		if (rp->kind == RT_PEER_CA) {
			if (rp->peer == (int32_t)b)
				r->delivered++;
			else
				r->dropped++;
			return;
		}
		if (rp->kind != RT_PEER_SWITCH) {
			r->dropped++;
			return;
		}
		s = rp->peer;
	}
}

/* The reference over sources src[0..ns) to every other CA of set[0..m). */
static struct ref reference(const struct rt_graph *g, const struct rt_lfts *l,
			    const size_t *src, size_t ns, const size_t *set, size_t m)
{
	struct ref r = { .use = calloc(2 * g->n_ports, sizeof(uint64_t)) };

	ck_assert_ptr_nonnull(r.use);
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < m; k++)
			if (src[i] != set[k])
				ref_walk(g, l, src[i], set[k], &r);
	return r;
}

/* The computed links equal the reference's, link for link. */
static void assert_same(const struct rt_graph *g, const struct rt_paths *p, const struct ref *r)
{
	size_t n = 0;

	for (size_t i = 0; i < 2 * g->n_ports; i++) {
		uint32_t link = i < g->n_ports ? RT_PATHS_OUT(i) : RT_PATHS_IN(i - g->n_ports);

		ck_assert_uint_eq(rt_paths_pairs_on(p, link), r->use[i]);
		n += r->use[i] != 0;
	}
	ck_assert_uint_eq(p->n_links, n);
	ck_assert_uint_eq(p->delivered, r->delivered);
	ck_assert_uint_eq(p->dropped, r->dropped);
	ck_assert_uint_eq(p->loops, r->loops);
	for (size_t i = 1; i < p->n_links; i++)
		ck_assert_uint_lt(p->links[i - 1].link, p->links[i].link);
}

static struct routed fat_tree(int levels, int radix, int hosts, int cut)
{
	struct fg_fabric fg;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = levels,
		.radix = radix, .hosts = hosts, .rails = 1 }), 0);
	return fixture_route(fixture_fabgen(&fg, cut), rt_route_ftree, NULL);
}

/* Every third CA, from the second on: a job spread over the leaves. */
static size_t every_third(const struct rt_graph *g, size_t *set)
{
	size_t m = 0;

	for (size_t i = 1; i < g->n_ca; i += 3)
		set[m++] = i;
	return m;
}

START_TEST(job_links_on_a_fat_tree_equal_every_pair_walked_alone)
{
	struct routed r = fat_tree(3, 8, 128, 0);
	size_t *set = malloc(r.g->n_ca * sizeof(*set)), m;
	struct rt_paths p;
	struct ref ref;

	ck_assert_int_eq(r.rc, 0);
	m = every_third(r.g, set);
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, set, m, NULL, &p), 0);
	ref = reference(r.g, r.l, set, m, set, m);
	ck_assert_uint_eq(p.n_ca, m);
	ck_assert_uint_eq(p.pairs_total, (uint64_t)m * (m - 1));
	ck_assert_uint_eq(p.pairs, p.pairs_total);
	ck_assert_int_eq(p.sampled, 0);
	ck_assert_uint_eq(p.delivered, p.pairs_total);  /* ftree delivers every pair */
	assert_same(r.g, &p, &ref);
	/* A job's links are fewer than the fabric's: it is not everything. */
	ck_assert_uint_lt(p.n_links, 2 * r.g->n_ports);
	rt_paths_clear(&p);
	free(ref.use);
	free(set);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(job_links_on_a_cut_tree_routed_by_minhop_equal_the_reference)
{
	struct fg_fabric fg;
	struct routed r;
	size_t *set, m;
	struct rt_paths p;
	struct ref ref;

	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 2,
		.radix = 12, .hosts = 60, .rails = 1 }), 0);
	r = fixture_route(fixture_fabgen(&fg, 3), rt_route_minhop, NULL);
	ck_assert_int_eq(r.rc, 0);
	set = malloc(r.g->n_ca * sizeof(*set));
	m = every_third(r.g, set);
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, set, m, NULL, &p), 0);
	ref = reference(r.g, r.l, set, m, set, m);
	assert_same(r.g, &p, &ref);
	rt_paths_clear(&p);
	free(ref.use);
	free(set);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(two_jobs_on_disjoint_leaves_share_no_host_link)
{
	struct routed r = fat_tree(2, 8, 32, 0);
	size_t a[] = { 0, 1 }, b[] = { 30, 31 };
	struct rt_paths pa, pb;

	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_ne(r.g->ca[0].sw, r.g->ca[31].sw);
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, a, 2, NULL, &pa), 0);
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, b, 2, NULL, &pb), 0);
	/* Two hosts on one leaf: their pairs stay on it (in, out, for each). */
	if (r.g->ca[0].sw == r.g->ca[1].sw)
		ck_assert_uint_eq(pa.n_links, 4);
	for (size_t i = 0; i < pa.n_links; i++)
		ck_assert_uint_eq(rt_paths_pairs_on(&pb, pa.links[i].link), 0);
	rt_paths_clear(&pa);
	rt_paths_clear(&pb);
	fixture_routed_free(&r);
}
END_TEST

static int same_paths(const struct rt_paths *x, const struct rt_paths *y)
{
	if (x->n_links != y->n_links || x->pairs != y->pairs || x->sources != y->sources)
		return 0;
	for (size_t i = 0; i < x->n_links; i++)
		if (x->links[i].link != y->links[i].link || x->links[i].pairs != y->links[i].pairs)
			return 0;
	return 1;
}

START_TEST(sampling_above_the_bound_is_stated_and_the_same_for_a_seed)
{
	struct routed r = fat_tree(3, 8, 128, 0);
	size_t n = r.g->n_ca, *set = malloc(n * sizeof(*set)), *rev = malloc(n * sizeof(*rev));
	struct rt_paths_opts o = { .max_pairs = 10 * (n - 1), .seed = 7 };
	struct rt_paths p1, p2, p3, full;
	uint64_t in_pairs = 0;

	ck_assert_int_eq(r.rc, 0);
	for (size_t i = 0; i < n; i++) {
		set[i] = i;
		rev[i] = n - 1 - i;
	}
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, set, n, &o, &p1), 0);
	ck_assert_int_eq(p1.sampled, 1);
	ck_assert_uint_eq(p1.sources, 10);
	ck_assert_uint_eq(p1.pairs, 10 * (uint64_t)(n - 1));
	ck_assert_uint_eq(p1.pairs_total, (uint64_t)n * (n - 1));
	ck_assert_uint_eq(p1.delivered, p1.pairs);
	/* The same seed: the same sources, whatever the order of the hosts. */
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, rev, n, &o, &p2), 0);
	ck_assert(same_paths(&p1, &p2));
	/* Each sampled source sends to every other CA over its own cable. */
	for (size_t i = 0; i < p1.n_links; i++)
		if (RT_PATHS_IS_IN(p1.links[i].link)) {
			ck_assert_uint_eq(p1.links[i].pairs, n - 1);
			in_pairs += p1.links[i].pairs;
		}
	ck_assert_uint_eq(in_pairs, p1.pairs);
	/* A sample is part of the whole: no link carries more than in it. */
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, set, n, NULL, &full), 0);
	ck_assert_int_eq(full.sampled, 0);
	for (size_t i = 0; i < p1.n_links; i++)
		ck_assert_uint_le(p1.links[i].pairs, rt_paths_pairs_on(&full, p1.links[i].link));
	/* Another seed draws other sources. */
	o.seed = 8;
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, set, n, &o, &p3), 0);
	ck_assert(!same_paths(&p1, &p3));
	rt_paths_clear(&p1);
	rt_paths_clear(&p2);
	rt_paths_clear(&p3);
	rt_paths_clear(&full);
	free(set);
	free(rev);
	fixture_routed_free(&r);
}
END_TEST

/* The port of switch s cabled to switch t, or 0. */
static unsigned port_to(const struct rt_graph *g, size_t s, size_t t)
{
	for (unsigned p = 1; p <= g->sw[s].nports; p++) {
		const struct rt_port *rp = rt_graph_port(g, s, p);

		if (rp->kind == RT_PEER_SWITCH && rp->peer == (int32_t)t)
			return p;
	}
	return 0;
}

START_TEST(loops_and_drops_in_the_tables_are_counted_and_named)
{
	struct routed r = fat_tree(2, 8, 32, 0);
	size_t set[] = { 0, 5, 12, 31 }, m = 4;
	int32_t leaf, dleaf;
	unsigned up, down;
	uint8_t spine_port;
	size_t spine;
	struct rt_paths p;
	struct ref ref;
	int saw_loop = 0, saw_drop = 0;

	ck_assert_int_eq(r.rc, 0);
	leaf = r.g->ca[0].sw;
	dleaf = r.g->ca[31].sw;
	ck_assert_int_ne(leaf, dleaf);
	/* The loop: CA 0's leaf sends CA 31's LID up, and that spine sends it
	 * straight back down to the leaf. */
	up = rt_lfts_get(r.l, (size_t)leaf, r.g->ca[31].lid);
	spine = (size_t)rt_graph_port(r.g, (size_t)leaf, up)->peer;
	down = port_to(r.g, spine, (size_t)leaf);
	ck_assert_uint_ne(down, 0);
	rt_lfts_set(r.l, spine, r.g->ca[31].lid, (uint8_t)down);
	/* The drop: CA 31's leaf has no entry for CA 12. */
	spine_port = rt_lfts_get(r.l, (size_t)dleaf, r.g->ca[12].lid);
	ck_assert_uint_ne(spine_port, RT_NO_PORT);
	rt_lfts_set(r.l, (size_t)dleaf, r.g->ca[12].lid, RT_NO_PORT);
	ck_assert_int_eq(rt_paths_compute(r.g, r.l, set, m, NULL, &p), 0);
	ref = reference(r.g, r.l, set, m, set, m);
	assert_same(r.g, &p, &ref);
	ck_assert_uint_gt(p.loops, 0);
	ck_assert_uint_gt(p.dropped, 0);
	ck_assert_uint_eq(p.delivered + p.loops + p.dropped, p.pairs);
	ck_assert_uint_gt(p.n_broken, 0);
	for (size_t i = 0; i < p.n_broken; i++) {
		if (p.broken[i].loop)
			saw_loop |= p.broken[i].dst == 31;
		else
			saw_drop |= p.broken[i].dst == 12 && r.g->ca[p.broken[i].src].sw == dleaf;
	}
	ck_assert(saw_loop);
	ck_assert(saw_drop);
	rt_paths_clear(&p);
	free(ref.use);
	fixture_routed_free(&r);
}
END_TEST

START_TEST(a_ca_index_out_of_range_is_refused)
{
	struct routed r = fat_tree(2, 8, 32, 0);
	size_t set[] = { 0, 9999 };
	struct rt_paths p;

	ck_assert_int_eq(rt_paths_compute(r.g, r.l, set, 2, NULL, &p), -EINVAL);
	ck_assert_uint_eq(p.n_links, 0);
	fixture_routed_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("route_paths");
	TCase *tc = tcase_create("route_paths");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, job_links_on_a_fat_tree_equal_every_pair_walked_alone);
	tcase_add_test(tc, job_links_on_a_cut_tree_routed_by_minhop_equal_the_reference);
	tcase_add_test(tc, two_jobs_on_disjoint_leaves_share_no_host_link);
	tcase_add_test(tc, sampling_above_the_bound_is_stated_and_the_same_for_a_seed);
	tcase_add_test(tc, loops_and_drops_in_the_tables_are_counted_and_named);
	tcase_add_test(tc, a_ca_index_out_of_range_is_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
