/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_route.c: `loomctl route compute`: route a topology file offline
 * with one of loom's engines and print how good the tables are; with --ar,
 * also the adaptive routing groups of those tables and how good they are;
 * with --ar-plan, the SMPs that would program them (route_ar_plan.c).
 * No daemon is involved: this is the library (lib/route/, lib/ar/) on a file. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util/clock.h"
#include "lib/route/route.h"
#include "lib/ar/route_ar.h"
#include "lib/route/route_metrics.h"
#include "lib/route/route_live.h"
#include "lib/fabric/topo_file.h"
#include "lib/util/par.h"
#include "cli/route_reroute.h"

static void print_human(FILE *out, const char *topo, const struct rt_graph *g,
			const char *engine, const struct rt_lfts *l, const struct rt_metrics *m,
			double t_graph, double t_route, double t_metrics)
{
	fprintf(out, "topology:  %s: %zu switches, %zu CA ports, LIDs %s\n", topo, g->n_sw,
		g->n_ca, g->lids_assigned ? "assigned by loom (the file has none)" :
		"from the file");
	fprintf(out, "engine:    %s: %.3f s (graph %.3f s, %u thread%s), %zu table entries, "
		"%zu unroutable, %u VL%s\n", engine, t_route, t_graph, par_pool_threads(g->pool),
		par_pool_threads(g->pool) == 1 ? "" : "s", l->n_routed, l->n_unreachable,
		l->n_vls, l->n_vls == 1 ? "" : "s");
	if (l->note[0])
		fprintf(out, "           %s\n", l->note);
	{
		json_t *j = rl_metrics_json(m);

		route_print_metrics(out, j);
		json_decref(j);
	}
	fprintf(out, "metrics:   %.3f s\n", t_metrics);
}

/* The adaptive routing groups of the tables and their judgement, as the
 * "adaptive_routing" object of --json (route_print_ar prints it). */
struct ar_result {
	struct rt_ar *ar;
	int cdg_rc;            /* rt_ar_cdg_check: 0 acyclic, -EDEADLK */
	size_t cdg_edges, cdg_vls;
	char cycle[512];       /* the first cycle, when -EDEADLK */
	double ebb, ebb_static;
	unsigned bisections;
	double t_groups, t_cdg, t_ebb;
};

static json_t *ar_json(const struct ar_result *a)
{
	const struct rt_ar *ar = a->ar;

	return json_pack("{s:s, s:i, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:I, "
			 "s:s?, s:i, s:f, s:f, s:f, s:f, s:f, s:f}",
			 "mode", rt_ar_mode_name(ar->mode), "capacity", (int)ar->capacity,
			 "switches", (json_int_t)ar->n_sw,
			 "groups_max", (json_int_t)ar->max_groups,
			 "groups_mean", ar->n_sw ? (double)ar->n_groups / (double)ar->n_sw : 0.0,
			 "groups", (json_int_t)ar->n_groups,
			 "entries", (json_int_t)ar->n_entries,
			 "entries_ar", (json_int_t)ar->n_alt,
			 "entries_dropped", (json_int_t)ar->n_dropped,
			 "entries_longer", (json_int_t)ar->n_longer,
			 "cdg_acyclic", a->cdg_rc == 0, "cdg_vls", (json_int_t)a->cdg_vls,
			 "cdg_edges", (json_int_t)a->cdg_edges,
			 "cdg_cycle", a->cdg_rc == 0 ? NULL : a->cycle,
			 "bisections", (int)a->bisections, "ebb_static", a->ebb_static,
			 "ebb", a->ebb, "ebb_gain", a->ebb_static > 0 ? a->ebb / a->ebb_static : 0.0,
			 "groups_s", a->t_groups, "cdg_s", a->t_cdg, "ebb_s", a->t_ebb);
}

/* Groups of l in `mode` with `capacity`, judged with the bisections of
 * mopts (against the static EBB of m). 0, or -errno after saying why. */
static int adaptive_routing(struct loomctl *lc, const char *topo, const struct rt_graph *g,
			    const struct rt_lfts *l, enum rt_ar_mode mode, uint32_t capacity,
			    const struct rt_metrics_opts *mopts, const struct rt_metrics *m,
			    struct ar_result *a)
{
	char err[512] = "";
	double t0 = clock_mono(), t1, t2;
	int rc;

	if (!(a->ar = rt_ar_new(g, l, mode, capacity, err, sizeof(err)))) {
		loomctl_error(lc, "%s: adaptive routing: %s", topo, err);
		return -ENOMEM;
	}
	t1 = clock_mono();
	a->cdg_rc = rt_ar_cdg_check(g, l, a->ar, &a->cdg_edges, &a->cdg_vls, a->cycle,
				    sizeof(a->cycle));
	if (a->cdg_rc < 0 && a->cdg_rc != -EDEADLK) {
		loomctl_error(lc, "%s: adaptive routing: %s", topo, a->cycle);
		return a->cdg_rc;
	}
	t2 = clock_mono();
	if ((rc = rt_ar_ebb(g, a->ar, mopts, &a->ebb)) < 0) {
		loomctl_error(lc, "%s: adaptive routing: EBB: %s", topo, strerror(-rc));
		return rc;
	}
	a->ebb_static = m->ebb;
	a->bisections = (unsigned)m->bisections;
	a->t_groups = t1 - t0;
	a->t_cdg = t2 - t1;
	a->t_ebb = clock_mono() - t2;
	return 0;
}

static json_t *to_json(const char *topo, const struct rt_graph *g, const char *engine,
		       const struct rt_lfts *l, const struct rt_metrics *m, double t_graph,
		       double t_route, double t_metrics)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:b, s:f, s:f, s:f, s:I, s:I, s:o}",
			 "topology", topo, "engine", engine, "note", l->note,
			 "vls", (int)l->n_vls, "threads", (int)par_pool_threads(g->pool),
			 "switches", (json_int_t)g->n_sw, "ca_ports", (json_int_t)g->n_ca,
			 "lids_assigned", g->lids_assigned,
			 "graph_s", t_graph, "route_s", t_route, "metrics_s", t_metrics,
			 "routed_entries", (json_int_t)l->n_routed,
			 "unroutable_entries", (json_int_t)l->n_unreachable,
			 "metrics", rl_metrics_json(m));
}

/* The AR plan of every switch with groups into path ("-": stdout). */
static int write_ar_plan(struct loomctl *lc, const char *topo, const struct rt_graph *g,
			 const struct rt_ar *ar, uint32_t group_cap, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	char err[512] = "";
	int rc;

	if (!f) {
		rc = -errno;
		loomctl_error(lc, "cannot write %s: %s", path, strerror(-rc));
		return rc;
	}
	rc = route_ar_plan_write(f, topo, g, ar, (uint16_t)group_cap, err, sizeof(err));
	if (f == stdout ? fflush(f) != 0 : fclose(f) != 0) {
		if (rc == 0)
			snprintf(err, sizeof(err), "%s", strerror(errno));
		rc = rc ? rc : -EIO;
	}
	if (rc < 0)
		loomctl_error(lc, "%s: AR plan %s: %s", topo, path, err);
	return rc;
}

/* Tables for g from a dump file (dump_fts, ibroute, opensm-lfts.dump). */
static int read_lfts(struct loomctl *lc, const struct rt_graph *g, const char *topo,
		     const char *path, struct rt_lfts **out)
{
	FILE *f = fopen(path, "r");
	size_t missing = 0;
	char err[512];

	if (!f) {
		loomctl_error(lc, "cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	*out = rt_lfts_read_dump(g, f, path, &missing, err, sizeof(err));
	fclose(f);
	if (!*out) {
		loomctl_error(lc, "%s", err);
		return -EINVAL;
	}
	if (missing)
		snprintf((*out)->note, sizeof((*out)->note), "%s has no table for %zu of the "
			 "%zu switches of %s", path, missing, g->n_sw, topo);
	return 0;
}

static int route_compute(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "engine", required_argument, NULL, 'e' },
		{ "dump", required_argument, NULL, 'd' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "shifts", required_argument, NULL, 'k' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "bisections", required_argument, NULL, 'b' },
		{ "ar", optional_argument, NULL, 'a' },
		{ "ar-cap", required_argument, NULL, 'c' },
		{ "ar-plan", required_argument, NULL, 'P' },
		{ "threads", required_argument, NULL, 'T' },
		{ "reroute-cut", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	struct rt_metrics_opts mopts = { .max_shifts = 0, .n_random = 8, .seed = 1,
					 .n_bisect = 16 };
	const char *topo = NULL, *dump = NULL, *lfts = NULL, *ar_plan = NULL;
	const struct rt_engine *engine = rt_engine_find("loom");
	struct rt_graph *g = NULL;
	struct rt_lfts *l = NULL;
	struct fab *fab = NULL;
	struct rt_metrics m;
	struct ar_result ar = { 0 };
	enum rt_ar_mode ar_mode = RT_AR_TREE;
	uint32_t ar_cap = RT_AR_DEFAULT_CAPACITY;
	int want_ar = 0, shifts_given = 0;
	unsigned long reroute_cut = 0;
	struct route_reroute_report rr = { 0 };
	unsigned threads = 0;
	struct par_pool *pool = NULL;
	unsigned long v;
	char err[512] = "";
	double t0, t1, t2, t3;
	int c, rc, status = LOOMCTL_EXIT_FAILED;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': topo = optarg; break;
		case 'd': dump = optarg; break;
		case 'l': lfts = optarg; break;
		case 'e':
			if (!(engine = rt_engine_find(optarg)))
				return loomctl_usage_error(lc, "route compute", "unknown engine "
							   "\"%s\" (this version has: loom, "
							   "ftree, dfsssp, minhop)", optarg);
			break;
		case 'k':
			if (loomctl_parse_count(optarg, 1000000, &v) < 0)
				return loomctl_usage_error(lc, "route compute",
							   "--shifts wants a count, not \"%s\"", optarg);
			mopts.max_shifts = v;
			shifts_given = 1;
			break;
		case 'r':
			if (loomctl_parse_count(optarg, 100000, &v) < 0)
				return loomctl_usage_error(lc, "route compute",
							   "--random wants a count, not \"%s\"", optarg);
			mopts.n_random = (unsigned)v;
			break;
		case 'S':
			if (loomctl_parse_count(optarg, ~0UL, &v) < 0)
				return loomctl_usage_error(lc, "route compute",
							   "--seed wants a number, not \"%s\"", optarg);
			mopts.seed = v;
			break;
		case 'b':
			if (loomctl_parse_count(optarg, 100000, &v) < 0)
				return loomctl_usage_error(lc, "route compute",
							   "--bisections wants a count, not \"%s\"",
							   optarg);
			mopts.n_bisect = (unsigned)v;
			break;
		case 'a':
			/* "--ar lag" as well as "--ar=lag": getopt only attaches an
			 * optional argument, and route compute has no operands, so
			 * a next word that is no option is --ar's. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (optarg && rt_ar_mode_parse(optarg, &ar_mode) < 0)
				return loomctl_usage_error(lc, "route compute", "--ar wants tree or "
							   "lag, not \"%s\"", optarg);
			want_ar = 1;
			break;
		case 'c':
			if (loomctl_parse_count(optarg, RT_AR_MAX_CAPACITY, &v) < 0)
				return loomctl_usage_error(lc, "route compute", "--ar-cap wants a "
							   "count up to %u, not \"%s\"",
							   RT_AR_MAX_CAPACITY, optarg);
			ar_cap = (uint32_t)v;
			want_ar = 1;
			break;
		case 'P':
			ar_plan = optarg;
			want_ar = 1;
			break;
		case 'C':
			if (loomctl_parse_count(optarg, 100000, &reroute_cut) < 0 || !reroute_cut)
				return loomctl_usage_error(lc, "route compute", "--reroute-cut wants a "
							   "count of cables, not \"%s\"", optarg);
			break;
		case 'T':
			if (loomctl_parse_count(optarg, PAR_MAX_THREADS, &v) < 0 || v == 0)
				return loomctl_usage_error(lc, "route compute", "--threads wants a "
							   "count from 1 to %d, not \"%s\"",
							   PAR_MAX_THREADS, optarg);
			threads = (unsigned)v;
			break;
		default:
			return loomctl_usage_hint();
		}
	}
	if (!topo || optind < argc)
		return loomctl_usage_error(lc, "route compute", optind < argc ?
					   "unexpected argument \"%s\"" : "--topology FILE is required%s",
					   optind < argc ? argv[optind] : "");
	/* The plan assumes ARInfo group_cap = --ar-cap: a 12-bit field. */
	if (ar_plan && ar_cap > 0xFFF)
		return loomctl_usage_error(lc, "route compute", "--ar-plan assumes ARInfo group_cap "
					   "= --ar-cap, a 12-bit field: %u is above 4095", ar_cap);
	if (ar_plan && strcmp(ar_plan, "-") == 0 && lc->json)
		return loomctl_usage_error(lc, "route compute", "--ar-plan - and --json both want "
					   "stdout");

	if (!(fab = topo_file_read(topo, "offline", err, sizeof(err)))) {
		loomctl_error(lc, "%s", err);
		return LOOMCTL_EXIT_FAILED;
	}
	t0 = clock_mono();
	if (!(g = rt_graph_new(fab, err, sizeof(err)))) {
		loomctl_error(lc, "%s: %s", topo, err);
		goto out;
	}
	/* The engine, its refinement and the metrics share one pool (none
	 * for one thread): the tables are the same for any count. */
	if ((threads ? threads : par_cores()) > 1 && !(pool = par_pool_new(threads))) {
		loomctl_error(lc, "out of memory");
		goto out;
	}
	g->pool = pool;
	t1 = clock_mono();
	if (lfts) {
		/* Judge given tables (read back from switches, or OpenSM's). */
		if ((rc = read_lfts(lc, g, topo, lfts, &l)) < 0)
			goto out;
	} else if (!(l = rt_lfts_new(g))) {
		loomctl_error(lc, "%s: out of memory", topo);
		goto out;
	} else if (engine->route(g, l, err, sizeof(err)) < 0) {
		loomctl_error(lc, "%s: %s: %s", topo, engine->name, err);
		goto out;
	}
	t2 = clock_mono();
	if (reroute_cut && (lfts || route_reroute_after_cuts(lc, topo, fab, engine, &g, &l,
							     reroute_cut, mopts.seed, &rr) < 0)) {
		if (lfts)
			loomctl_error(lc, "--reroute-cut reroutes the engine's tables, not a dump's");
		goto out;
	}
	if (!shifts_given)
		rt_metrics_opts_auto(g, &mopts);
	if (rt_metrics_compute(g, l, &mopts, &m) < 0) {
		loomctl_error(lc, "%s: metrics: out of memory", topo);
		goto out;
	}
	t3 = clock_mono();
	if (want_ar && adaptive_routing(lc, topo, g, l, ar_mode, ar_cap, &mopts, &m, &ar) < 0)
		goto out;
	if (ar_plan && write_ar_plan(lc, topo, g, ar.ar, ar_cap, ar_plan) < 0)
		goto out;
	if (dump) {
		FILE *f = fopen(dump, "w");

		if (!f || rt_lfts_write_dump(g, l, f) < 0 || fclose(f) != 0) {
			loomctl_error(lc, "cannot write %s: %s", dump, strerror(errno));
			goto out;
		}
	}
	if (lc->json) {
		json_t *j = to_json(topo, g, lfts ? "tables read" : engine->name, l, &m, t1 - t0, t2 - t1, t3 - t2);

		if (ar.ar)
			json_object_set_new(j, "adaptive_routing", ar_json(&ar));
		if (reroute_cut)
			json_object_set_new(j, "reroute", route_reroute_json(&rr));
		output_json(j, stdout);
		json_decref(j);
	} else {
		/* With the plan on stdout, the report goes to stderr: stdout
		 * stays a plan a replay tool can read whole. */
		FILE *out = ar_plan && strcmp(ar_plan, "-") == 0 ? stderr : stdout;

		print_human(out, topo, g, lfts ? "tables read" : engine->name, l, &m, t1 - t0,
			    t2 - t1, t3 - t2);
		if (reroute_cut)
			route_reroute_print(out, &rr);
		if (ar.ar) {
			json_t *j = ar_json(&ar);

			route_print_ar(out, j);
			json_decref(j);
		}
	}
	/* Tables that lose pairs or loop are a failed routing, for scripts too. */
	status = m.delivered == m.pairs ? LOOMCTL_EXIT_OK : LOOMCTL_EXIT_FAILED;
out:
	rt_ar_free(ar.ar);
	rt_lfts_free(l);
	rt_graph_free(g);
	par_pool_free(pool);
	fab_free(fab);
	return status;
}

int cmd_route(struct loomctl *lc, int argc, char **argv)
{
	/* check and trace ask loomd about the live fabric: cmd_route_live.c */
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return cmd_route_check(lc, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "trace") == 0)
		return cmd_route_trace(lc, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "runs") == 0)
		return cmd_route_runs(lc, argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "compute") != 0)
		return loomctl_usage_error(lc, "route", argc < 2 ? "a subcommand is needed%s" :
					   "unknown subcommand \"%s\" (this version has: compute, "
					   "check, trace, runs)", argc < 2 ? "" : argv[1]);
	return route_compute(lc, argc - 1, argv + 1);
}
