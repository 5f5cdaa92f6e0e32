/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/isolation_loss.c: issue 42's offline loss computation, timed the way
 * loomd's isolation worker does it (daemon/isolation/isolation_loss.c) on
 * one fabric: (a) the routes now: loom's engine's tables and their judgement
 * (rt_route_loom, rt_loss_judge); (b) for each candidate switch cable, as
 * many leaf-to-middle (level 0-1) as middle-to-top (level 1-2) cables,
 * spread over the tree: the graph without it (rt_graph_without; with
 * --fab, the old way: fab_dup + fab_unlink + rt_graph_new), the tables the
 * plugin will make (rt_loss_reroute: the incremental reroute) and their
 * judgement, both ways: rt_loss_judge (every pair walked) and
 * rt_loss_judge_after (only the destinations the reroute moved walked,
 * what loomd does), which must agree on every figure (exit 3 if not).
 * Prints the min / median / max of each step over the candidates, the
 * thread count, a checksum of every candidate's verdict (the same for any
 * thread count and either graph path: the results never depend on them),
 * and the peak RSS. Not installed; bench/isolation_loss.sh runs it.
 *
 *   isolation_loss NETFILE [CANDIDATES [THREADS [--fab]]]
 *   (THREADS 0: every core; 1: the calling thread alone, no pool)
 */
#include "autoconf.h"
#include "bench/bench_rounds.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/topo_file.h"
#include "lib/route/route.h"
#include "lib/route/route_loss.h"
#include "lib/util/par.h"

#define MAX_CAND 200

struct step {
	const char *name;
	double t[MAX_CAND];
};

static void print_step(struct step *s, int n)
{
	double med = bench_median(s->t, n);

	printf("%-28s %8.3f %8.3f %8.3f\n", s->name, s->t[0], med, s->t[n - 1]);
}

/* Spread picks of the cables from level lo to lo + 1, each once. */
static size_t pick(const struct rt_graph *g, const uint16_t *level, uint16_t lo, size_t want,
		   const struct rt_link **out)
{
	size_t n = 0, got = 0;

	for (size_t i = 0; i < g->n_links; i++)
		n += level[g->links[i].sw] == lo && level[g->links[i].peer] == lo + 1;
	for (size_t i = 0, k = 0; i < g->n_links && got < want; i++) {
		const struct rt_link *l = &g->links[i];

		if (level[l->sw] != lo || level[l->peer] != lo + 1)
			continue;
		/* the k-th of n, when k crosses the next of want even steps */
		if (k++ == got * n / want)
			out[got++] = l;
	}
	return got;
}

/* The candidate's graph: without the cable, from the base graph or (fab) the
 * old way, from a copy of the fabric. */
static struct rt_graph *without(const struct fab *f, const struct rt_graph *g,
				const struct rt_link *c, int fab, char *err, size_t errlen)
{
	struct rt_graph *g2;
	struct fab *cut;
	struct rt_cut one = { c->sw, c->port };

	if (!fab)
		return rt_graph_without(g, &one, 1, err, errlen);
	if (!(cut = fab_dup(f))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	fab_unlink(cut, g->sw[c->sw].guid, c->port);
	g2 = rt_graph_new(cut, err, errlen);
	fab_free(cut);
	return g2;
}

int main(int argc, char **argv)
{
	static struct step s_graph = { .name = "graph without the cable" }, s_rr = { .name = "rt_loss_reroute" },
			   s_judge = { .name = "rt_loss_judge (all pairs)" },
			   s_after = { .name = "rt_loss_judge_after" }, s_all = { .name = "candidate: graph+reroute+after" };
	const struct rt_link *cand[MAX_CAND];
	struct rt_metrics_opts o;
	struct rt_judged base, jd, full;
	struct par_pool *pool = NULL;
	struct rt_graph *g;
	struct rt_lfts *l;
	struct rusage ru;
	struct fab *f;
	uint16_t *level;
	int32_t *order;
	char err[512] = "";
	int want = argc > 2 ? atoi(argv[2]) : 20, threads = argc > 3 ? atoi(argv[3]) : 0;
	int fab = argc > 4 && !strcmp(argv[4], "--fab"), n, incr_n = 0, differ = 0;
	uint64_t sum = 0;
	double t0, t_route, t_judge;

	if (argc < 2 || argc > 5 || want < 2 || want > MAX_CAND || threads < 0 ||
	    (argc > 4 && !fab)) {
		fprintf(stderr, "usage: isolation_loss NETFILE [CANDIDATES 2..%d [THREADS "
			"[--fab]]]\n", MAX_CAND);
		return 2;
	}
	if (!(f = topo_file_read(argv[1], "ib0", err, sizeof(err))) ||
	    !(g = rt_graph_new(f, err, sizeof(err)))) {
		fprintf(stderr, "isolation_loss: %s\n", err);
		return 1;
	}
	if ((threads ? (unsigned)threads : par_cores()) > 1 && !(pool = par_pool_new((unsigned)threads)))
		return 1;
	g->pool = pool;
	printf("fabric: %zu switches, %zu CA ports, %zu switch cables; threads: %u; graphs: %s\n",
	       g->n_sw, g->n_ca, g->n_links / 2, par_pool_threads(pool),
	       fab ? "fab_dup + fab_unlink + rt_graph_new" : "rt_graph_without");
	level = malloc(g->n_sw * sizeof(*level));
	order = malloc(g->n_sw * sizeof(*order));
	if (!level || !order || rt_graph_tree_levels(g, level, order) < 0) {
		fprintf(stderr, "isolation_loss: %s: not a tree\n", argv[1]);
		return 1;
	}
	n = (int)pick(g, level, 0, (size_t)want / 2, cand);
	n += (int)pick(g, level, 1, (size_t)(want - n), cand + n);
	if (n < 2) {
		fprintf(stderr, "isolation_loss: %s: fewer than 2 cables between levels\n",
			argv[1]);
		return 1;
	}

	/* (a) the routes now */
	t0 = clock_mono();
	if (!(l = rt_lfts_new(g)) || rt_route_loom(g, l, err, sizeof(err)) < 0) {
		fprintf(stderr, "isolation_loss: loom: %s\n", err);
		return 1;
	}
	t_route = clock_mono() - t0;
	rt_loss_opts(g, &o);
	t0 = clock_mono();
	if (rt_loss_judge(g, l, &o, &base) < 0)
		return 1;
	t_judge = clock_mono() - t0;
	printf("base: rt_route_loom %.3f s, rt_loss_judge %.3f s (%zu pairs, %zu unreachable, "
	       "EBB %.3f, worst shift load %zu, paths floor %zu)\n", t_route, t_judge, base.pairs,
	       base.unreachable, base.ebb, base.shift_max_load, base.min_paths);

	/* (b) every candidate */
	for (int i = 0; i < n; i++) {
		struct rt_graph *g2;
		struct rt_lfts *l2;
		double a = clock_mono(), b, c, d, e;
		int incr;

		if (!(g2 = without(f, g, cand[i], fab, err, sizeof(err)))) {
			fprintf(stderr, "isolation_loss: candidate %d: %s\n", i, err);
			return 1;
		}
		g2->pool = pool;
		b = clock_mono();
		if (!(l2 = rt_loss_reroute(g, l, g2, rt_engine_find("loom"), &incr, err, sizeof(err)))) {
			fprintf(stderr, "isolation_loss: candidate %d: %s\n", i, err);
			return 1;
		}
		c = clock_mono();
		rt_loss_opts(g2, &o);
		if (rt_loss_judge_after(g, l, base.unreachable, g2, l2, &o, &jd) < 0)
			return 1;
		d = clock_mono();
		if (rt_loss_judge(g2, l2, &o, &full) < 0)
			return 1;
		e = clock_mono();
		s_graph.t[i] = b - a;
		s_rr.t[i] = c - b;
		s_after.t[i] = d - c;
		s_judge.t[i] = e - d;
		s_all.t[i] = d - a;
		if (memcmp(&jd, &full, sizeof(jd))) {
			differ++;
			fprintf(stderr, "candidate %d: the judgements differ: unreachable %zu/%zu, "
				"shift %zu/%zu, EBB %f/%f, paths %zu/%zu\n", i, jd.unreachable,
				full.unreachable, jd.shift_max_load, full.shift_max_load, jd.ebb, full.ebb,
				jd.min_paths, full.min_paths);
		}
		incr_n += incr;
		sum = sum * 1000003 + jd.unreachable * 7919 + jd.shift_max_load * 31 + jd.min_paths +
		      (uint64_t)(jd.ebb * 1e6) + (uint64_t)incr;
		if (i < 2 || i == n - 1)
			printf("candidate %d: %s[%u] (level %u-%u): EBB %.3f, worst shift load %zu, "
			       "paths floor %zu, unreachable %zu (%s)\n", i, g->sw[cand[i]->sw].desc,
			       cand[i]->port, level[cand[i]->sw], level[cand[i]->peer], jd.ebb,
			       jd.shift_max_load, jd.min_paths, jd.unreachable,
			       incr ? "incremental reroute" : "full run");
		rt_lfts_free(l2);
		rt_graph_free(g2);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("candidates: %d (%d rerouted incrementally); verdicts checksum %016" PRIx64 "\n", n,
	       incr_n, sum);
	printf("%-28s %8s %8s %8s\n", "step (seconds)", "min", "median", "max");
	print_step(&s_graph, n);
	print_step(&s_rr, n);
	print_step(&s_after, n);
	print_step(&s_all, n);
	print_step(&s_judge, n);
	printf("rt_loss_judge_after and rt_loss_judge: %s\n", differ ? "DIFFER" : "the same on every candidate");
	printf("peak RSS: %ld MiB\n", ru.ru_maxrss / 1024);
	free(level);
	free(order);
	rt_lfts_free(l);
	g->pool = NULL;
	rt_graph_free(g);
	par_pool_free(pool);
	fab_free(f);
	return differ ? 3 : 0;
}
