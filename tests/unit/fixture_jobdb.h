/* tests/unit/fixture_jobdb.h: a loom database for the job impact queries
 * (lib/db/job_db.h) from a fabric: LIDs given as an SM would (those
 * rt_graph_new assigns), the fabric stored as a sweep, the tables of a
 * lib/route engine stored as a read (as route check stores the switches'),
 * tenants, port counters and alarms written as loomd writes them. Used by
 * tests/unit/test_job_db.c and bench/job_impact_bench.c; no check.h. */
#ifndef LOOM_TEST_FIXTURE_JOBDB_H
#define LOOM_TEST_FIXTURE_JOBDB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/route/route.h"

struct store;

struct jobdb {
	struct store *st;
	struct fab *fab;         /* with its LIDs */
	struct rt_graph *g;      /* of fab: CA indexes as the queries see them */
	struct rt_lfts *l;       /* the stored tables */
};

/* fab (taken) stored at path as subnet fab->subnet, routed by engine. 0 or
 * -errno with err. */
int jobdb_build(struct jobdb *j, const char *path, struct fab *fab, rt_route_fn engine,
		char *err, size_t errlen);
/* Store l again as a newer read (after a test changed it). */
int jobdb_store_tables(struct jobdb *j, char *err, size_t errlen);
/* Tenant `name` (active) on the CA ports ca[0..n) of j->g, each port's
 * host the first word of its description. */
int jobdb_tenant(struct jobdb *j, const char *name, int pkey, const size_t *ca, size_t n);
/* A counters row for port (guid, port): errors and PortXmitWait/s. */
int jobdb_counters(struct jobdb *j, uint64_t guid, unsigned port, long long errors,
		   double xmit_wait_per_s);
/* An open alarm of `kind` on port (guid, port). */
int jobdb_alarm(struct jobdb *j, uint64_t guid, unsigned port, const char *kind);
void jobdb_free(struct jobdb *j);

#endif
