/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/route_reroute.c: `loomctl route compute --reroute-cut N`: after the
 * engine's run, N switch cables (drawn from --seed) are cut and the tables
 * rerouted incrementally (lib/route/route_reroute.c), timed against a full
 * run of the engine on the cut fabric; the metrics then judge the rerouted
 * tables. What OpenSM's plugin does after a cut, offline. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/clock.h"
#include "lib/route/route.h"
#include "cli/route_reroute.h"

static uint64_t next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int route_reroute_after_cuts(struct loomctl *lc, const char *topo, const struct fab *fab,
			     const struct rt_engine *engine, struct rt_graph **g,
			     struct rt_lfts **l, size_t cuts, uint64_t seed,
			     struct route_reroute_report *rep)
{
	struct fab *cut = fab_dup(fab);
	struct rt_graph *g2 = NULL;
	struct rt_lfts *l2 = NULL, *full = NULL;
	size_t done = 0, tries = 0;
	char err[512] = "";
	double t0;
	int rc = -ENOMEM;

	memset(rep, 0, sizeof(*rep));
	if (!cut)
		goto nomem;
	/* Switch-to-switch cables, each once (from its lower index end). */
	while (done < cuts && tries++ < 100 * (cuts + 1)) {
		const struct rt_link *k = &(*g)->links[next(&seed) % (*g)->n_links];
		const struct fab_node *n = fab_find(cut, (*g)->sw[k->sw].guid);

		if (!n || !n->ports[k->port].has_peer)
			continue;  /* drawn twice */
		fab_unlink(cut, n->guid, k->port);
		done++;
	}
	rep->cut = done;
	if (!(g2 = rt_graph_new(cut, err, sizeof(err)))) {
		loomctl_error(lc, "%s: after the cuts: %s", topo, err);
		rc = -EINVAL;
		goto out;
	}
	g2->pool = (*g)->pool;
	if (!(l2 = rt_lfts_new(g2)) || !(full = rt_lfts_new(g2)))
		goto nomem;
	t0 = clock_mono();
	rc = rt_reroute(*g, *l, g2, l2, &rep->st, err, sizeof(err));
	rep->reroute_s = clock_mono() - t0;
	if (rc == -EAGAIN) {
		snprintf(rep->why, sizeof(rep->why), "%s", err);
	} else if (rc < 0) {
		loomctl_error(lc, "%s: reroute: %s", topo, err);
		goto out;
	}
	rep->incremental = rc == 0;
	t0 = clock_mono();
	if (engine->route(g2, full, err, sizeof(err)) < 0) {
		loomctl_error(lc, "%s: %s after the cuts: %s", topo, engine->name, err);
		rc = -EINVAL;
		goto out;
	}
	rep->full_s = clock_mono() - t0;
	if (!rep->incremental) {
		rt_lfts_free(l2);
		l2 = full;
		full = NULL;
	}
	/* From here on the cut fabric and its tables are the ones judged. */
	(*g)->pool = NULL;
	rt_lfts_free(*l);
	rt_graph_free(*g);
	*g = g2;
	*l = l2;
	g2 = NULL;
	l2 = NULL;
	rc = 0;
	goto out;
nomem:
	loomctl_error(lc, "%s: out of memory", topo);
	rc = -ENOMEM;
out:
	rt_lfts_free(full);
	rt_lfts_free(l2);
	rt_graph_free(g2);
	fab_free(cut);
	return rc;
}

void route_reroute_print(FILE *out, const struct route_reroute_report *rep)
{
	if (rep->incremental)
		fprintf(out, "reroute:   %zu cable%s cut: %zu destinations (%zu entries) rerouted "
			"in %.3f s; a full run takes %.3f s\n", rep->cut, rep->cut == 1 ? "" : "s",
			rep->st.dests, rep->st.entries, rep->reroute_s, rep->full_s);
	else
		fprintf(out, "reroute:   %zu cable%s cut: a full run (%.3f s), not incremental: %s\n",
			rep->cut, rep->cut == 1 ? "" : "s", rep->full_s, rep->why);
}

json_t *route_reroute_json(const struct route_reroute_report *rep)
{
	return json_pack("{s:I, s:b, s:I, s:I, s:f, s:f, s:s?}", "cut", (json_int_t)rep->cut,
			 "incremental", rep->incremental, "destinations", (json_int_t)rep->st.dests,
			 "entries", (json_int_t)rep->st.entries, "reroute_s", rep->reroute_s,
			 "full_s", rep->full_s, "why", rep->incremental ? NULL : rep->why);
}
