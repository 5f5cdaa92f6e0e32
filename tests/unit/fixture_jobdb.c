/* tests/unit/fixture_jobdb.c: see fixture_jobdb.h. */
#include "autoconf.h"
#include "fixture_jobdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/store.h"
#include "daemon/ib/store_sweep.h"
#include "lib/fabric/fabric.h"
#include "lib/route/route_graph.h"
#include "lib/route/route_lft.h"
#include "lib/route/route_live.h"

/* The LIDs rt_graph_new gave the graph, into the fabric. */
static void give_lids(struct fab *fab, const struct rt_graph *g)
{
	for (size_t s = 0; s < g->n_sw; s++) {
		struct fab_node *n = fab_find(fab, g->sw[s].guid);

		for (unsigned p = 0; n && p <= n->nports; p++)
			n->ports[p].lid = g->sw[s].lid;
	}
	for (size_t c = 0; c < g->n_ca; c++) {
		struct fab_node *n = fab_find(fab, g->ca[c].node_guid);

		if (n)
			n->ports[g->ca[c].port].lid = g->ca[c].lid;
	}
}

int jobdb_store_tables(struct jobdb *j, char *err, size_t errlen)
{
	struct rl_read *r = rl_read_new();
	int64_t id;
	int rc = r ? 0 : -ENOMEM;

	for (size_t s = 0; rc == 0 && s < j->g->n_sw; s++)
		rc = rl_read_add(r, j->g->sw[s].guid, j->g->sw[s].lid, j->l->max_lid,
				 rt_lfts_row(j->l, s));
	if (rc == 0) {
		rl_read_sort(r);
		r->started = 1e9;
		r->finished = 1e9 + 1;
		rc = store_record_lfts(j->st, j->fab->subnet, 0, r, &id);
	}
	rl_read_free(r);
	if (rc < 0)
		snprintf(err, errlen, "cannot store the tables: %s", strerror(-rc));
	return rc;
}

int jobdb_build(struct jobdb *j, const char *path, struct fab *fab, rt_route_fn engine,
		char *err, size_t errlen)
{
	struct store_sweep_info info = { .subnet = fab->subnet, .ca = "mlx5_0", .port = 1,
					 .started = 1e9, .finished = 1e9 };
	struct store_sweep_result res;
	struct rt_graph *g0;
	int rc;

	memset(j, 0, sizeof(*j));
	j->fab = fab;
	if (!(g0 = rt_graph_new(fab, err, errlen)))
		return -EINVAL;
	give_lids(fab, g0);
	rt_graph_free(g0);
	if (!(j->g = rt_graph_new(fab, err, errlen)) || !(j->l = rt_lfts_new(j->g)))
		return -ENOMEM;
	if ((rc = engine(j->g, j->l, err, errlen)) < 0)
		return rc;
	if (!(j->st = store_open(path, err, errlen)))
		return -EIO;
	if ((rc = store_record_sweep(j->st, &info, fab, &res)) < 0) {
		snprintf(err, errlen, "cannot store the sweep: %s", strerror(-rc));
		return rc;
	}
	return jobdb_store_tables(j, err, errlen);
}

static int exec(struct jobdb *j, const char *sql)
{
	return store_exec(j->st, sql);
}

int jobdb_tenant(struct jobdb *j, const char *name, int pkey, const size_t *ca, size_t n)
{
	char sql[512];
	int rc;

	snprintf(sql, sizeof(sql), "INSERT INTO tenants (name, pkey, membership, state, created, "
		 "updated, created_by) VALUES ('%s', %d, 'full', 'active', 1e9, 1e9, 0)", name,
		 pkey);
	if ((rc = exec(j, sql)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		const struct rt_ca *c = &j->g->ca[ca[i]];
		char host[64];

		snprintf(host, sizeof(host), "%.*s", (int)strcspn(c->desc, " "), c->desc);
		snprintf(sql, sizeof(sql), "INSERT INTO tenant_ports (tenant, host, port_guid) "
			 "VALUES ('%s', '%s', '0x%016llx')", name, host,
			 (unsigned long long)c->guid);
		if ((rc = exec(j, sql)) < 0)
			return rc;
	}
	return 0;
}

static const char *desc_of(struct jobdb *j, uint64_t guid)
{
	const struct fab_node *n = fab_find(j->fab, guid);

	return n ? n->desc : "?";
}

int jobdb_counters(struct jobdb *j, uint64_t guid, unsigned port, long long errors,
		   double xmit_wait_per_s)
{
	char sql[768];
	int rc;

	/* The subnet's read row, for health. */
	snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO counter_reads (subnet_id, started, "
		 "finished, ports, answered, mads, timeout_ms, retries, in_flight) SELECT id, 1e9, "
		 "1e9, 1, 1, 1, 200, 0, 1 FROM subnets WHERE name = '%s'", j->fab->subnet);
	if ((rc = store_exec(j->st, sql)) < 0)
		return rc;
	snprintf(sql, sizeof(sql), "INSERT INTO port_counters (subnet_id, guid, port, description, "
		 "type, lid, read, answered, reason, sampled, interval_s, errors, "
		 "xmit_wait_per_s) SELECT id, '0x%016llx', %u, '%s', 'switch', 1, 1e9, 1, '', "
		 "1e9, 10, %lld, %f FROM subnets WHERE name = '%s'", (unsigned long long)guid,
		 port, desc_of(j, guid), errors, xmit_wait_per_s, j->fab->subnet);
	return exec(j, sql);
}

int jobdb_alarm(struct jobdb *j, uint64_t guid, unsigned port, const char *kind)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "INSERT INTO port_alarms (subnet_id, guid, port, kind, since, "
		 "last, why) SELECT id, '0x%016llx', %u, '%s', 1e9, 1e9, 'injected' FROM "
		 "subnets WHERE name = '%s'", (unsigned long long)guid, port, kind, j->fab->subnet);
	return exec(j, sql);
}

void jobdb_free(struct jobdb *j)
{
	store_close(j->st);
	rt_lfts_free(j->l);
	rt_graph_free(j->g);
	fab_free(j->fab);
	memset(j, 0, sizeof(*j));
}
