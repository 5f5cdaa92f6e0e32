/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/job_history_bench.c: the job post-mortem's storage on a large
 * fabric (issue 42): what the forwarding tables' history costs and how
 * long its queries take (lib/db/lft_history.h, lib/db/job_history_db.h),
 * on a database made as loomd makes it (fixture_jobdb: the net file's
 * fabric as a sweep, loom's fat-tree tables as a read, a job of HOSTS
 * hosts from host-0000 as Slurm places it). Then REROUTES times, an hour
 * apart: one more leaf-to-spine cable cut (each on another leaf), the
 * tables rerouted as OpenSM's plugin does (rt_reroute: only the
 * destinations that crossed the cable; a full fat-tree run where it
 * cannot) and stored as a read (what
 * opensm.read_tables stores), timed. Prints the bytes of a full read,
 * each reroute's version (switches changed, bytes), the time of
 * job_history_db over the whole window (every version's paths), and
 * lfth_prune at the window's middle (the version in force made full, the
 * older ones dropped). Not installed; bench/job_history.sh runs it.
 *
 *   job_history_bench NETFILE DBPATH [HOSTS [REROUTES]]
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "daemon/core/store.h"
#include "daemon/ib/store_sweep.h"
#include "lib/db/db_query.h"
#include "lib/db/job_history_db.h"
#include "lib/db/lft_history.h"
#include "lib/fabric/topo_file.h"
#include "lib/route/route_live.h"
#include "lib/util/clock.h"
#include "tests/unit/fixtures/fixture_jobdb.h"

#define T0 1e9

static int fail(const char *what, const char *err)
{
	fprintf(stderr, "job_history_bench: %s: %s\n", what, err);
	return 1;
}

static long long one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long long n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* l (made for g) stored as a read started at t; its time in *dt. */
static int store(struct jobdb *J, const struct rt_graph *g, struct rt_lfts *l, double t,
		 double *dt)
{
	struct rl_read *r = rl_read_new();
	int64_t id;
	int rc = r ? 0 : -ENOMEM;

	for (size_t s = 0; rc == 0 && s < g->n_sw; s++)
		rc = rl_read_add(r, g->sw[s].guid, g->sw[s].lid, l->max_lid, rt_lfts_row(l, s));
	if (rc == 0) {
		double t1 = clock_mono();

		rl_read_sort(r);
		r->started = t;
		r->finished = t + 1;
		rc = store_record_lfts(J->st, J->fab->subnet, 0, r, &id);
		*dt = clock_mono() - t1;
	}
	rl_read_free(r);
	return rc;
}

/* Cut the first up cable (to a switch) of the k-th leaf (a switch with
 * CAs) still cabled: both ends lose their peer. 0, or -ENOENT. */
static int cut(struct jobdb *J, const struct rt_graph *g, size_t k, char *what, size_t len)
{
	size_t seen = 0;

	for (size_t s = 0; s < g->n_sw; s++) {
		int has_ca = 0;

		for (unsigned p = 1; p <= g->sw[s].nports; p++)
			has_ca |= rt_graph_port(g, s, p)->kind == RT_PEER_CA;
		if (!has_ca || seen++ != k)
			continue;
		for (unsigned p = 1; p <= g->sw[s].nports; p++) {
			const struct rt_port *rp = rt_graph_port(g, s, p);
			struct fab_node *a = fab_find(J->fab, g->sw[s].guid), *b;

			if (rp->kind != RT_PEER_SWITCH || !a)
				continue;
			b = fab_find(J->fab, g->sw[rp->peer].guid);
			a->ports[p].has_peer = 0;
			a->ports[p].state = 1;
			if (b) {
				b->ports[rp->peer_port].has_peer = 0;
				b->ports[rp->peer_port].state = 1;
			}
			snprintf(what, len, "%s[%u] -> %s[%u]", g->sw[s].desc, p,
				 g->sw[rp->peer].desc, rp->peer_port);
			return 0;
		}
	}
	return -ENOENT;
}

int main(int argc, char **argv)
{
	int hosts = argc > 3 ? atoi(argv[3]) : 1024, reroutes = argc > 4 ? atoi(argv[4]) : 24;
	char err[512] = "", what[256], why[512] = "";
	struct rt_graph *prev_g;
	struct rt_lfts *prev_l;
	struct jobdb J;
	struct fab *fab;
	struct rusage ru;
	size_t *ca;
	double dt = 0, t0, sum = 0, worst = 0;
	long long full, bytes = 0;
	sqlite3 *db;

	if (argc < 3 || hosts < 2 || reroutes < 1) {
		fprintf(stderr, "usage: job_history_bench NETFILE DBPATH [HOSTS [REROUTES]]\n");
		return 2;
	}
	if (!(fab = topo_file_read(argv[1], "ib0", err, sizeof(err))))
		return fail(argv[1], err);
	if (jobdb_build(&J, argv[2], fab, rt_route_ftree, err, sizeof(err)) < 0)
		return fail("build the database", err);
	if ((size_t)hosts > J.g->n_ca || !(ca = malloc((size_t)hosts * sizeof(*ca))))
		return fail("hosts", "more than the fabric has");
	for (int i = 0; i < hosts; i++)
		ca[i] = (size_t)i;
	if (jobdb_tenant(&J, "1001", 1, ca, (size_t)hosts) < 0)
		return fail("tenant", "cannot write it");
	db = store_db(J.st);
	full = one(db, "SELECT sum(length(lft)) FROM lfts WHERE read_id = (SELECT max(id) FROM "
		   "lft_reads)");
	printf("fabric: %zu switches, %zu CA ports; a full read: %lld bytes of tables "
	       "(the first version: a full copy)\n", J.g->n_sw, J.g->n_ca, full);
	prev_g = J.g;
	prev_l = J.l;
	for (int i = 1; i <= reroutes; i++) {
		struct rt_reroute_stats st = { 0 };
		struct rt_graph *g;
		struct rt_lfts *l;
		long long v;
		int full_run;

		if (cut(&J, prev_g, (size_t)i - 1, what, sizeof(what)) < 0)
			return fail("cut", "no more leaves");
		if (!(g = rt_graph_new(J.fab, err, sizeof(err))))
			return fail("graph", err);
		if (!(l = rt_lfts_new(g)))
			return fail("tables", "out of memory");
		/* As OpenSM's plugin: a full run when the reroute cannot do it. */
		full_run = rt_reroute(prev_g, prev_l, g, l, &st, why, sizeof(why)) < 0;
		if (full_run && rt_route_ftree(g, l, err, sizeof(err)) < 0)
			return fail("reroute", err);
		if (store(&J, g, l, T0 + 3600.0 * i, &dt) < 0)
			return fail("store", "cannot store the read");
		v = one(db, "SELECT sum(coalesce(length(lft), 0)) FROM lft_version_tables WHERE "
			"version_id = (SELECT max(id) FROM lft_versions)");
		bytes += v;
		sum += dt;
		worst = dt > worst ? dt : worst;
		if (full_run)
			printf("reroute %2d: cut %s: a full fat-tree run (%s)", i, what, why);
		else
			printf("reroute %2d: cut %s: %zu destinations, %zu entries", i, what,
			       st.dests, st.entries);
		printf("; version: %lld switches changed, %lld bytes; stored in %.3f s\n",
		       one(db, "SELECT changed FROM lft_versions ORDER BY id DESC LIMIT 1"), v, dt);
		if (prev_g != J.g) {
			rt_graph_free(prev_g);
			rt_lfts_free(prev_l);
		}
		prev_g = g;
		prev_l = l;
	}
	printf("%d reroutes: %lld bytes of tables kept (%.1f%% of one full read each on "
	       "average); a read stored in %.3f s on average, %.3f s worst (lfts and history)\n",
	       reroutes, bytes, 100.0 * (double)bytes / (double)reroutes / (double)full,
	       sum / reroutes, worst);
	{
		struct job_history_query q = { .job = "1001", .from = T0 - 1,
					       .to = T0 + 3600.0 * reroutes + 1 };
		json_t *out = NULL;

		t0 = clock_mono();
		if (job_history_db(db, &q, &out, err, sizeof(err)) < 0)
			return fail("job_history_db", err);
		printf("job_history_db: a %d-host job over %zu versions in %.3f s\n", hosts,
		       json_array_size(json_object_get(out, "versions")), clock_mono() - t0);
		json_decref(out);
	}
	{
		long long n;

		t0 = clock_mono();
		n = lfth_prune(db, T0 + 3600.0 * (reroutes / 2) + 10, 50, NULL, NULL, err,
			       sizeof(err));
		if (n < 0)
			return fail("prune", err);
		printf("lfth_prune at the window's middle: %lld versions dropped, the one in force "
		       "made full, in %.3f s; %lld versions left, %lld bytes of tables\n", n,
		       clock_mono() - t0, one(db, "SELECT count(*) FROM lft_versions"),
		       one(db, "SELECT sum(coalesce(length(lft), 0)) FROM lft_version_tables"));
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %ld MiB\n", ru.ru_maxrss / 1024);
	if (prev_g != J.g) {
		rt_graph_free(prev_g);
		rt_lfts_free(prev_l);
	}
	jobdb_free(&J);
	free(ca);
	return 0;
}
