/* tests/unit/fixture_route.c: see fixture_route.h. */
#include "autoconf.h"
#include "fixture_route.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabgen.h"
#include "lib/fabric/topo_file.h"

struct fab *fixture_fabgen(struct fg_fabric *fg, int cut)
{
	return fixture_fabgen_seed(fg, cut, 1);
}

struct fab *fixture_fabgen_seed(struct fg_fabric *fg, int cut, uint64_t seed)
{
	struct fg_rng rng;
	struct fab *fab;
	char *text = NULL, err[512] = "";
	size_t len = 0;
	FILE *out;

	fg_rng_seed(&rng, seed);
	if (cut)
		ck_assert_int_eq(fg_cut_links(fg, cut, &rng), 0);
	out = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(fg_write(fg, out), 0);
	fclose(out);
	fg_free(fg);
	fab = topo_file_parse("generated.net", text, len, "ib0", err, sizeof(err));
	ck_assert_msg(fab != NULL, "%s", err);
	free(text);
	return fab;
}

struct routed fixture_route(struct fab *f, rt_route_fn engine,
			    const struct rt_metrics_opts *opts)
{
	struct routed r;

	memset(&r, 0, sizeof(r));
	r.g = rt_graph_new(f, r.err, sizeof(r.err));
	ck_assert_msg(r.g != NULL, "rt_graph_new: %s", r.err);
	fab_free(f);
	r.l = rt_lfts_new(r.g);
	ck_assert_ptr_nonnull(r.l);
	r.rc = engine(r.g, r.l, r.err, sizeof(r.err));
	if (r.rc == 0)
		ck_assert_int_eq(rt_metrics_compute(r.g, r.l, opts, &r.m), 0);
	return r;
}

void fixture_routed_free(struct routed *r)
{
	rt_lfts_free(r->l);
	rt_graph_free(r->g);
}

void fixture_assert_all_delivered(const struct rt_metrics *m, size_t n_ca)
{
	ck_assert_uint_eq(m->pairs, n_ca * (n_ca - 1));
	ck_assert_uint_eq(m->delivered, m->pairs);
	ck_assert_uint_eq(m->unreachable, 0);
	ck_assert_uint_eq(m->loops, 0);
}

double fixture_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
