/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* bench/job_impact_bench.c: `loomctl job` on a large fabric (issue 24's
 * benchmark), timed through the library loomd and loomctl --db call
 * (lib/db/job_db.h) on a database made as loomd makes it: the net file's
 * fabric stored as a sweep, routed by loom's fat-tree engine and its
 * tables stored as a read, the fabric's hosts in tenants (the job of HOSTS
 * hosts, host-0000 on, as Slurm would place it, then the rest of the
 * fabric in jobs of 512), errors, congestion and their alarms on a spine
 * port of the job's paths (the answer follows the congestion to its root).
 * Then ROUNDS times each:
 *   cold   a fresh connection and a one-off index: the fabric, the tables
 *          and every tenant's paths loaded and computed (loomctl --db)
 *   warm   loomd's index, kept between requests: nothing changed, nothing
 *          reloaded (loomctl job on a running loomd)
 *   hosts  --hosts of the same HOSTS hosts on the warm index: their paths
 *          walked afresh (every pair below 2^20 pairs)
 *   health health_db_read (its congestion trees load the stored fabric and
 *          tables themselves) and the jobs named on its rows, warm
 *   all    --hosts of every host of the fabric: the sampled case
 * Prints the median and worst of each, the paths' counts (pairs, sampled)
 * and the peak RSS. Not installed; bench/job_impact.sh runs it.
 *
 *   job_impact_bench NETFILE DBPATH [HOSTS [ROUNDS]]
 */
#include "autoconf.h"
#include "bench/bench_rounds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "daemon/core/store.h"
#include "lib/db/db_query.h"
#include "lib/db/health_db.h"
#include "lib/db/job_db.h"
#include "lib/fabric/topo_file.h"
#include "lib/route/route_paths.h"
#include "tests/unit/fixtures/fixture_jobdb.h"

#define MAX_ROUNDS 99
#define OTHER_JOB 512

static void report(const char *what, double *t, int n)
{
	bench_median(t, n);
	printf("%-8s median %.3f s  worst %.3f s  (%d rounds)\n", what, t[n / 2], t[n - 1], n);
}

static int fail(const char *what, const char *err)
{
	fprintf(stderr, "job_impact_bench: %s: %s\n", what, err);
	return 1;
}

/* One job_db_impact, timed; the answer kept in *keep when asked. */
static int timed(const char *path, struct job_index *ix, const struct job_query *q,
		 double *t, json_t **keep)
{
	char err[512] = "";
	double t0 = clock_mono();
	sqlite3 *db = dbq_open_readonly(path, err, sizeof(err));
	json_t *out = NULL;
	int rc;

	if (!db)
		return fail("open", err);
	rc = job_db_impact(db, ix, q, &out, err, sizeof(err));
	sqlite3_close(db);
	*t = clock_mono() - t0;
	if (rc < 0)
		return fail("job", err);
	if (keep)
		*keep = out;
	else
		json_decref(out);
	return 0;
}

static void print_paths(const char *what, const json_t *o)
{
	const json_t *p = json_object_get(o, "paths");

	printf("%-8s hosts %zu, switches %zu: %lld of %lld pairs walked (%s, %lld sources), "
	       "%lld delivered, %lld links, %lld bad, %zu other jobs\n", what,
	       json_array_size(json_object_get(o, "hosts")),
	       json_array_size(json_object_get(o, "switches")),
	       (long long)json_integer_value(json_object_get(p, "pairs")),
	       (long long)json_integer_value(json_object_get(p, "pairs_total")),
	       json_is_true(json_object_get(p, "sampled")) ? "sampled" : "every pair",
	       (long long)json_integer_value(json_object_get(p, "sources")),
	       (long long)json_integer_value(json_object_get(p, "delivered")),
	       (long long)json_integer_value(json_object_get(p, "links")),
	       (long long)json_integer_value(json_object_get(o, "bad_links")),
	       json_array_size(json_object_get(o, "other_jobs")));
}

int main(int argc, char **argv)
{
	double cold[MAX_ROUNDS], warm[MAX_ROUNDS], hosts_t[MAX_ROUNDS], health_t[MAX_ROUNDS];
	double all_t[MAX_ROUNDS], t0;
	int hosts = argc > 3 ? atoi(argv[3]) : 1024, rounds = argc > 4 ? atoi(argv[4]) : 5;
	char err[512] = "", list[64], all[64], name[32];
	struct job_index *ix = job_index_new();
	struct jobdb J;
	struct fab *fab;
	struct rt_paths p;
	struct rusage ru;
	json_t *keep = NULL;
	size_t *ca, n_ca;
	int pkey = 1, digits = 1;

	if (argc < 3 || hosts < 2 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: job_impact_bench NETFILE DBPATH [HOSTS [ROUNDS 1..%d]]\n",
			MAX_ROUNDS);
		return 2;
	}
	t0 = clock_mono();
	if (!(fab = topo_file_read(argv[1], "ib0", err, sizeof(err))))
		return fail(argv[1], err);
	if (jobdb_build(&J, argv[2], fab, rt_route_ftree, err, sizeof(err)) < 0)
		return fail("build the database", err);
	n_ca = J.g->n_ca;
	if ((size_t)hosts > n_ca)
		return fail("hosts", "more than the fabric has");
	if (!(ca = malloc(n_ca * sizeof(*ca))))
		return fail("memory", "out of memory");
	for (size_t i = 0; i < n_ca; i++)
		ca[i] = i;
	/* The job, then the rest of the fabric in jobs of OTHER_JOB. */
	store_exec(J.st, "BEGIN");
	if (jobdb_tenant(&J, "1001", pkey++, ca, (size_t)hosts) < 0)
		return fail("tenant", "cannot write it");
	for (size_t at = (size_t)hosts, k = 2; at < n_ca; at += OTHER_JOB, k++) {
		snprintf(name, sizeof(name), "%zu", 1000 + k);
		if (jobdb_tenant(&J, name, pkey++, ca + at,
				 n_ca - at < OTHER_JOB ? n_ca - at : OTHER_JOB) < 0)
			return fail("tenant", "cannot write it");
	}
	store_exec(J.st, "COMMIT");
	/* Errors and congestion on the job's first spine link. */
	if (rt_paths_compute(J.g, J.l, ca, (size_t)hosts, NULL, &p) < 0)
		return fail("paths", "out of memory");
	for (size_t i = 0; i < p.n_links; i++) {
		uint32_t idx = RT_PATHS_PORT(p.links[i].link);
		const struct rt_port *rp = &J.g->ports[idx];
		size_t sw = 0;

		if (RT_PATHS_IS_IN(p.links[i].link) || rp->kind != RT_PEER_SWITCH)
			continue;
		while (sw + 1 < J.g->n_sw && J.g->sw[sw + 1].first_port <= idx)
			sw++;
		jobdb_counters(&J, J.g->sw[sw].guid, idx - J.g->sw[sw].first_port, 42, 5000);
		jobdb_alarm(&J, J.g->sw[sw].guid, idx - J.g->sw[sw].first_port, "link_errors");
		/* ... and congested: the job's answer follows it to its root. */
		jobdb_alarm(&J, J.g->sw[sw].guid, idx - J.g->sw[sw].first_port,
			    "link_congested");
		break;
	}
	rt_paths_clear(&p);
	printf("fabric %zu hosts, %zu switches; database built in %.1f s\n", n_ca, J.g->n_sw,
	       clock_mono() - t0);
	store_close(J.st);
	J.st = NULL;
	/* loom-fabgen's names: host-0000, at least 4 digits (fg_host_digits). */
	for (size_t v = n_ca - 1; v >= 10; v /= 10)
		digits++;
	if (digits < 4)
		digits = 4;
	snprintf(list, sizeof(list), "host-[%0*d-%0*d]", digits & 15, 0, digits & 15, hosts - 1);
	snprintf(all, sizeof(all), "host-[%0*d-%0*zu]", digits & 15, 0, digits & 15, n_ca - 1);
	for (int r = 0; r < rounds; r++) {
		struct job_query qj = { .job = "1001" }, qh = { .hosts = list },
				 qa = { .hosts = all, .seed = 1 };
		char e2[512] = "";
		sqlite3 *db;
		json_t *h = NULL;

		if (timed(argv[2], NULL, &qj, &cold[r], r == 0 ? &keep : NULL))
			return 1;
		if (r == 0) {
			print_paths("job", keep);
			json_decref(keep);
			timed(argv[2], ix, &qj, &warm[r], NULL);  /* fills the index */
		}
		if (timed(argv[2], ix, &qj, &warm[r], NULL) ||
		    timed(argv[2], ix, &qh, &hosts_t[r], r == 0 ? &keep : NULL))
			return 1;
		if (r == 0) {
			print_paths("hosts", keep);
			json_decref(keep);
		}
		if (timed(argv[2], ix, &qa, &all_t[r], r == 0 ? &keep : NULL))
			return 1;
		if (r == 0) {
			print_paths("all", keep);
			json_decref(keep);
		}
		t0 = clock_mono();
		db = dbq_open_readonly(argv[2], e2, sizeof(e2));
		if (!db || health_db_read(db, NULL, 10, 3600, &h, e2, sizeof(e2)) < 0 ||
		    job_db_health_jobs(db, ix, h, e2, sizeof(e2)) < 0)
			return fail("health", e2);
		health_t[r] = clock_mono() - t0;
		if (r == 0)
			printf("health   first alarm's jobs: %s\n", json_dumps(json_object_get(
				json_array_get(json_object_get(h, "alarms"), 0), "jobs"), JSON_COMPACT));
		json_decref(h);
		sqlite3_close(db);
	}
	report("cold", cold, rounds);
	report("warm", warm, rounds);
	report("hosts", hosts_t, rounds);
	report("health", health_t, rounds);
	report("all", all_t, rounds);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %.0f MB\n", ru.ru_maxrss / 1024.0);
	free(ca);
	job_index_free(ix);
	jobdb_free(&J);
	return 0;
}
