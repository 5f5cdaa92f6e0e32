/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/vl_judge_bench.c: issue 43's credit loops per VL, timed the way route
 * check judges tables read back (lib/route/route_live_vl.c): on one fabric
 * routed by loom's engine, (a) the SL-to-VL tables laid out for the graph
 * from one record per usable switch port pair (in any cabled port, out to a
 * switch: what the read-lfts child reads, so their number is its SMPs),
 * (b) the SL file written and read back (one hex digit per entry switch and
 * LID), then ROUNDS times the pairs' metrics (no permutations: the part the
 * judge adds to) without the tables (SL s on VL s) and with them (each hop
 * looked up). The tables map SL s to VL s and the SLs are all 0, so both
 * must judge the same graph (exit 3 if not). Prints median and worst of
 * each, the judge's share, and the peak RSS. Not installed;
 * bench/vl_judge.sh runs it.
 *
 *   vl_judge_bench NETFILE [ROUNDS [THREADS]]   (THREADS 0: every core)
 */
#include "autoconf.h"
#include "bench/bench_rounds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/topo_file.h"
#include "lib/route/route.h"
#include "lib/route/route_metrics.h"
#include "lib/route/route_sl2vl.h"
#include "lib/util/par.h"

#define MAX_ROUNDS 99

/* The read's records, as rl_read holds them, for every usable pair. */
struct pair {
	size_t sw;
	uint8_t in, out;
	uint8_t vl[RT_SLS];
};

static size_t usable_pairs(const struct rt_graph *g, struct pair **out)
{
	size_t n = 0, cap = 0;
	struct pair *p = NULL;

	for (size_t s = 0; s < g->n_sw; s++)
		for (unsigned o = 1; o <= g->sw[s].nports; o++) {
			if (rt_graph_port(g, s, o)->kind != RT_PEER_SWITCH)
				continue;
			for (unsigned i = 1; i <= g->sw[s].nports; i++) {
				if (i == o || rt_graph_port(g, s, i)->kind == RT_PEER_NONE)
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 4096;
					if (!(p = realloc(p, cap * sizeof(*p))))
						return 0;
				}
				p[n] = (struct pair){ .sw = s, .in = (uint8_t)i, .out = (uint8_t)o };
				for (unsigned sl = 0; sl < RT_SLS; sl++)
					p[n].vl[sl] = (uint8_t)sl;
				n++;
			}
		}
	*out = p;
	return n;
}

int main(int argc, char **argv)
{
	double t_plain[MAX_ROUNDS], t_vl[MAX_ROUNDS], w_plain = 0, w_vl = 0, t0, t_tables, t_sls;
	int rounds = argc > 2 ? atoi(argv[2]) : 3, threads = argc > 3 ? atoi(argv[3]) : 0;
	struct rt_metrics_opts o = { .no_permutations = 1 };
	struct rt_metrics plain, vl;
	struct par_pool *pool = NULL;
	struct rt_sl2vl *t;
	struct rt_graph *g;
	struct rt_lfts *l, *back;
	struct pair *pairs = NULL;
	struct rusage ru;
	struct fab *f;
	char err[512] = "", *buf = NULL;
	size_t n_pairs, len = 0, n_sls = 0;
	FILE *mem;

	if (argc < 2 || argc > 4 || rounds < 1 || rounds > MAX_ROUNDS || threads < 0) {
		fprintf(stderr, "usage: vl_judge_bench NETFILE [ROUNDS 1..%d [THREADS]]\n",
			MAX_ROUNDS);
		return 2;
	}
	if (!(f = topo_file_read(argv[1], "ib0", err, sizeof(err))) ||
	    !(g = rt_graph_new(f, err, sizeof(err)))) {
		fprintf(stderr, "vl_judge_bench: %s\n", err);
		return 1;
	}
	if ((threads ? (unsigned)threads : par_cores()) > 1 && !(pool = par_pool_new((unsigned)threads)))
		return 1;
	g->pool = pool;
	t0 = clock_mono();
	if (!(l = rt_lfts_new(g)) || rt_route_loom(g, l, err, sizeof(err)) < 0) {
		fprintf(stderr, "vl_judge_bench: loom: %s\n", err);
		return 1;
	}
	printf("fabric: %zu switches, %zu CA ports; threads %u; rt_route_loom %.3f s\n", g->n_sw,
	       g->n_ca, par_pool_threads(pool), clock_mono() - t0);

	/* (a) the tables from the read's records */
	if (!(n_pairs = usable_pairs(g, &pairs)))
		return 1;
	t0 = clock_mono();
	if (!(t = rt_sl2vl_new(g)))
		return 1;
	for (size_t i = 0; i < n_pairs; i++)
		rt_sl2vl_set(t, pairs[i].sw, pairs[i].in, pairs[i].out, pairs[i].vl);
	t_tables = clock_mono() - t0;

	/* (b) the SL file, out and in */
	t0 = clock_mono();
	if (!(mem = open_memstream(&buf, &len)) || rt_sls_write(g, l, NULL, NULL, mem) < 0 ||
	    fclose(mem) != 0 || !(back = rt_lfts_new(g)) ||
	    !(mem = fmemopen(buf, len, "r")) ||
	    rt_sls_read(g, back, mem, "sls", &n_sls, err, sizeof(err)) < 0) {
		fprintf(stderr, "vl_judge_bench: the SL file: %s\n", err);
		return 1;
	}
	fclose(mem);
	t_sls = clock_mono() - t0;
	printf("SL2VL: %zu usable switch port pairs (the read's SMPs), laid out in %.3f s\n",
	       n_pairs, t_tables);
	printf("SL file: %zu switches, %.1f MiB, written and read in %.3f s\n", n_sls,
	       (double)len / (1 << 20), t_sls);

	for (int k = 0; k < rounds; k++) {
		double a = clock_mono(), b, c;

		o.sl2vl = NULL;
		if (rt_metrics_compute(g, l, &o, &plain) < 0)
			return 1;
		b = clock_mono();
		o.sl2vl = t;
		if (rt_metrics_compute(g, l, &o, &vl) < 0)
			return 1;
		c = clock_mono();
		t_plain[k] = b - a;
		t_vl[k] = c - b;
		w_plain = t_plain[k] > w_plain ? t_plain[k] : w_plain;
		w_vl = t_vl[k] > w_vl ? t_vl[k] : w_vl;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("pairs: %zu delivered of %zu; dependencies %zu on %zu VL(s), %s\n", vl.delivered,
	       vl.pairs, vl.cdg_edges, vl.cdg_vls, vl.cdg_acyclic ? "acyclic" : "CYCLIC");
	printf("step                         median-s  worst-s\n");
	printf("pairs, SL s on VL s          %8.3f  %7.3f\n", bench_median(t_plain, rounds), w_plain);
	printf("pairs, per VL from SL2VL     %8.3f  %7.3f\n", bench_median(t_vl, rounds), w_vl);
	printf("the judge adds               %8.3f\n",
	       bench_median(t_vl, rounds) - bench_median(t_plain, rounds));
	printf("peak RSS: %ld MiB\n", ru.ru_maxrss / 1024);
	if (plain.cdg_edges != vl.cdg_edges || plain.cdg_acyclic != vl.cdg_acyclic ||
	    plain.delivered != vl.delivered || vl.cdg_vl_changes) {
		fprintf(stderr, "vl_judge_bench: identity tables judged differently\n");
		return 3;
	}
	free(buf);
	free(pairs);
	rt_sl2vl_free(t);
	rt_lfts_free(back);
	rt_lfts_free(l);
	rt_graph_free(g);
	par_pool_free(pool);
	fab_free(f);
	return 0;
}
