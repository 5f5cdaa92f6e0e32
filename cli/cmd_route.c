/* cli/cmd_route.c: `loomctl route compute`: route a topology file offline
 * with one of loom's engines and print how good the tables are. No daemon
 * is involved: this is the library (lib/route*.h) on a file. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "route.h"
#include "route_metrics.h"
#include "route_live.h"
#include "topo_file.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_human(const char *topo, const struct rt_graph *g, const char *engine,
			const struct rt_lfts *l, const struct rt_metrics *m, double t_graph,
			double t_route, double t_metrics)
{
	printf("topology:  %s: %zu switches, %zu CA ports, LIDs %s\n", topo, g->n_sw, g->n_ca,
	       g->lids_assigned ? "assigned by loom (the file has none)" : "from the file");
	printf("engine:    %s: %.3f s (graph %.3f s), %zu table entries, %zu unroutable, "
	       "%u VL%s\n", engine, t_route, t_graph, l->n_routed, l->n_unreachable, l->n_vls,
	       l->n_vls == 1 ? "" : "s");
	if (l->note[0])
		printf("           %s\n", l->note);
	{
		json_t *j = rl_metrics_json(m);

		route_print_metrics(stdout, j);
		json_decref(j);
	}
	printf("metrics:   %.3f s\n", t_metrics);
}

static json_t *to_json(const char *topo, const struct rt_graph *g, const char *engine,
		       const struct rt_lfts *l, const struct rt_metrics *m, double t_graph,
		       double t_route, double t_metrics)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:b, s:f, s:f, s:f, s:I, s:I, s:o}",
			 "topology", topo, "engine", engine, "note", l->note,
			 "vls", (int)l->n_vls,
			 "switches", (json_int_t)g->n_sw, "ca_ports", (json_int_t)g->n_ca,
			 "lids_assigned", g->lids_assigned,
			 "graph_s", t_graph, "route_s", t_route, "metrics_s", t_metrics,
			 "routed_entries", (json_int_t)l->n_routed,
			 "unroutable_entries", (json_int_t)l->n_unreachable,
			 "metrics", rl_metrics_json(m));
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
		{ NULL, 0, NULL, 0 },
	};
	struct rt_metrics_opts mopts = { .max_shifts = 0, .n_random = 8, .seed = 1,
					 .n_bisect = 16 };
	const char *topo = NULL, *dump = NULL, *lfts = NULL;
	const struct rt_engine *engine = rt_engine_find("loom");
	struct rt_graph *g = NULL;
	struct rt_lfts *l = NULL;
	struct fab *fab = NULL;
	struct rt_metrics m;
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
		default:
			return loomctl_usage_hint();
		}
	}
	if (!topo || optind < argc)
		return loomctl_usage_error(lc, "route compute", optind < argc ?
					   "unexpected argument \"%s\"" : "--topology FILE is required%s",
					   optind < argc ? argv[optind] : "");

	if (!(fab = topo_file_read(topo, "offline", err, sizeof(err)))) {
		loomctl_error(lc, "%s", err);
		return LOOMCTL_EXIT_FAILED;
	}
	t0 = now();
	if (!(g = rt_graph_new(fab, err, sizeof(err)))) {
		loomctl_error(lc, "%s: %s", topo, err);
		goto out;
	}
	t1 = now();
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
	t2 = now();
	if (rt_metrics_compute(g, l, &mopts, &m) < 0) {
		loomctl_error(lc, "%s: metrics: out of memory", topo);
		goto out;
	}
	t3 = now();
	if (dump) {
		FILE *f = fopen(dump, "w");

		if (!f || rt_lfts_write_dump(g, l, f) < 0 || fclose(f) != 0) {
			loomctl_error(lc, "cannot write %s: %s", dump, strerror(errno));
			goto out;
		}
	}
	if (lc->json) {
		json_t *j = to_json(topo, g, lfts ? "tables read" : engine->name, l, &m, t1 - t0, t2 - t1, t3 - t2);

		output_json(j, stdout);
		json_decref(j);
	} else {
		print_human(topo, g, lfts ? "tables read" : engine->name, l, &m, t1 - t0, t2 - t1, t3 - t2);
	}
	/* Tables that lose pairs or loop are a failed routing, for scripts too. */
	status = m.delivered == m.pairs ? LOOMCTL_EXIT_OK : LOOMCTL_EXIT_FAILED;
out:
	rt_lfts_free(l);
	rt_graph_free(g);
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
