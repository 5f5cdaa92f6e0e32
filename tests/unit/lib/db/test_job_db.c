/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/db/test_job_db.c: which jobs a bad or congested link hurts
 * (lib/db/job_db.c) on a generated fat tree stored as loomd stores it:
 * two jobs whose routes differ, errors and congestion on a spine port
 * that only one of them crosses (the port found from the routes, never
 * named in the test), `job` and `health` naming that one only, and the
 * index following a tenant's change and newer tables. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "fabgen.h"
#include "tests/unit/fixtures/fixture_jobdb.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/db/db_query.h"
#include "lib/db/health_db.h"
#include "lib/db/job_db.h"
#include "lib/fabric/hostmap.h"
#include "lib/route/route_paths.h"
#include "daemon/core/store.h"

static char dir[64], path[128];
static struct jobdb J;
static size_t job_a[8], job_b[8], n_a, n_b;
static int32_t leaf_a1, leaf_a2;

/* Two jobs: A on two leaves (all hosts of the first, one of the second),
 * B on two other leaves. */
static void setup(void)
{
	struct fg_fabric fg;
	char err[512] = "";
	int32_t leaves[4];
	size_t nl = 0;

	snprintf(dir, sizeof(dir), "/tmp/loom-test-jobdb.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/loom.db", dir);
	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 2,
		.radix = 8, .hosts = 32, .rails = 1 }), 0);
	ck_assert_msg(jobdb_build(&J, path, fixture_fabgen(&fg, 0), rt_route_ftree, err,
				  sizeof(err)) == 0, "%s", err);
	for (size_t c = 0; c < J.g->n_ca && nl < 4; c++)
		if (!nl || J.g->ca[c].sw != leaves[nl - 1])
			leaves[nl++] = J.g->ca[c].sw;
	ck_assert_uint_eq(nl, 4);
	leaf_a1 = leaves[0];
	leaf_a2 = leaves[1];
	n_a = n_b = 0;
	for (size_t c = 0; c < J.g->n_ca; c++) {
		int32_t sw = J.g->ca[c].sw;

		if (sw == leaves[0] || (sw == leaves[1] && J.g->ca[job_a[n_a - 1]].sw != sw))
			job_a[n_a++] = c;
		else if ((sw == leaves[2] || sw == leaves[3]) && n_b < 8)
			job_b[n_b++] = c;
	}
	ck_assert_uint_ge(n_a, 3);
	ck_assert_uint_ge(n_b, 4);
	ck_assert_int_eq(jobdb_tenant(&J, "101", 10, job_a, n_a), 0);
	ck_assert_int_eq(jobdb_tenant(&J, "102", 11, job_b, n_b), 0);
}

static void teardown(void)
{
	char cmd[160];

	jobdb_free(&J);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A spine port that sends job A's traffic down to its leaf, on a cable
 * that job B crosses in neither direction: found from the routes. */
static void pick_port(uint64_t *guid, unsigned *port, uint32_t *link)
{
	struct rt_paths pa, pb;
	int found = 0;

	ck_assert_int_eq(rt_paths_compute(J.g, J.l, job_a, n_a, NULL, &pa), 0);
	ck_assert_int_eq(rt_paths_compute(J.g, J.l, job_b, n_b, NULL, &pb), 0);
	for (size_t i = 0; i < pa.n_links && !found; i++) {
		uint32_t l = pa.links[i].link, idx = RT_PATHS_PORT(l);
		size_t sw = 0;
		const struct rt_port *rp = &J.g->ports[idx];

		while (sw + 1 < J.g->n_sw && J.g->sw[sw + 1].first_port <= idx)
			sw++;
		if (RT_PATHS_IS_IN(l) || rp->kind != RT_PEER_SWITCH ||
		    (rp->peer != leaf_a1 && rp->peer != leaf_a2) ||
		    rt_paths_pairs_on(&pb, l) ||
		    rt_paths_pairs_on(&pb, RT_PATHS_OUT(rt_graph_port_index(J.g, (size_t)rp->peer,
									    rp->peer_port))))
			continue;
		*guid = J.g->sw[sw].guid;
		*port = idx - J.g->sw[sw].first_port;
		*link = l;
		found = 1;
	}
	ck_assert_msg(found, "no spine port carries job A only");
	rt_paths_clear(&pa);
	rt_paths_clear(&pb);
}

/* The other direction of a switch-to-switch link. */
static uint32_t reverse_of(uint32_t link)
{
	const struct rt_port *rp = &J.g->ports[RT_PATHS_PORT(link)];

	return RT_PATHS_OUT(rt_graph_port_index(J.g, (size_t)rp->peer, rp->peer_port));
}

/* The switch index of node guid. */
static int32_t switch_index(uint64_t guid)
{
	for (size_t k = 0; k < J.g->n_sw; k++)
		if (J.g->sw[k].guid == guid)
			return (int32_t)k;
	return -1;
}

/* Job A's pairs on a link, from the routes. */
static uint64_t pairs_of_a(uint32_t link)
{
	struct rt_paths p;
	uint64_t n;

	ck_assert_int_eq(rt_paths_compute(J.g, J.l, job_a, n_a, NULL, &p), 0);
	n = rt_paths_pairs_on(&p, link);
	rt_paths_clear(&p);
	return n;
}

static json_t *impact(struct job_index *ix, const char *job, const char *hosts, int expect)
{
	char err[512] = "";
	struct job_query q = { .job = job, .hosts = hosts };
	sqlite3 *db = dbq_open_readonly(path, err, sizeof(err));
	json_t *out = NULL;
	int rc;

	ck_assert_msg(db != NULL, "%s", err);
	rc = job_db_impact(db, ix, &q, &out, err, sizeof(err));
	sqlite3_close(db);
	ck_assert_msg(rc == expect, "job_db_impact: %d (%s)", rc, err);
	return out;
}

static int names(const json_t *arr, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v), name))
			return 1;
	return 0;
}

START_TEST(errors_on_a_spine_port_name_the_job_that_crosses_it_and_not_the_other)
{
	uint64_t guid;
	unsigned port;
	uint32_t link;
	json_t *a, *b, *w;
	char sw_port[96];

	pick_port(&guid, &port, &link);
	ck_assert_int_eq(jobdb_counters(&J, guid, port, 12, 0), 0);
	a = impact(NULL, "101", NULL, 0);
	b = impact(NULL, "102", NULL, 0);
	/* Errors are the cable's: both of its directions that A uses are bad. */
	ck_assert_int_eq(json_integer_value(json_object_get(a, "bad_links")),
			 1 + (pairs_of_a(reverse_of(link)) > 0));
	snprintf(sw_port, sizeof(sw_port), "%s:%u", fab_find(J.fab, guid)->desc, port);
	w = json_array_get(json_object_get(a, "worst"), 0);
	if (strcmp(json_string_value(json_object_get(w, "from")), sw_port))
		w = json_array_get(json_object_get(a, "worst"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(w, "from")), sw_port);
	ck_assert_int_eq(json_integer_value(json_object_get(w, "errors")), 12);
	ck_assert_int_eq(json_integer_value(json_object_get(w, "pairs")),
			 (json_int_t)pairs_of_a(link));
	ck_assert_uint_eq(json_array_size(json_object_get(w, "jobs")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(b, "bad_links")), 0);
	/* A's paths are every pair, none lost. */
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(a, "paths"),
							    "delivered")),
			 (json_int_t)(n_a * (n_a - 1)));
	ck_assert(!json_is_true(json_object_get(json_object_get(a, "paths"), "sampled")));
	json_decref(a);
	json_decref(b);
}
END_TEST

START_TEST(health_names_the_job_behind_an_error_and_a_congested_port)
{
	uint64_t guid;
	unsigned port;
	uint32_t link;
	char err[512] = "";
	sqlite3 *db;
	json_t *h = NULL, *row;
	size_t i;
	int seen = 0;

	pick_port(&guid, &port, &link);
	ck_assert_int_eq(jobdb_counters(&J, guid, port, 5, 2000), 0);
	ck_assert_int_eq(jobdb_alarm(&J, guid, port, "link_congested"), 0);
	db = dbq_open_readonly(path, err, sizeof(err));
	ck_assert_int_eq(health_db_read(db, NULL, 10, 3600, &h, err, sizeof(err)), 0);
	ck_assert_int_eq(job_db_health_jobs(db, NULL, h, err, sizeof(err)), 0);
	sqlite3_close(db);
	for (int l = 0; l < 3; l++) {
		const char *list = l == 0 ? "alarms" : l == 1 ? "errors" : "congestion";

		json_array_foreach(json_object_get(h, list), i, row) {
			ck_assert_msg(names(json_object_get(row, "jobs"), "101"), "%s",
				      json_dumps(h, JSON_COMPACT));
			ck_assert(!names(json_object_get(row, "jobs"), "102"));
			seen++;
		}
	}
	ck_assert_int_eq(seen, 3);
	json_decref(h);
	/* The job's view of the same port: congested, and its congestion's root
	 * (no congested port further on). */
	h = impact(NULL, "101", NULL, 0);
	json_array_foreach(json_object_get(h, "worst"), i, row)
		if (json_object_get(row, "xmit_wait_per_s") &&
		    json_real_value(json_object_get(row, "xmit_wait_per_s")) > 0) {
			ck_assert(json_is_true(json_object_get(json_object_get(row, "congestion"),
							      "is_root")));
			seen++;
		}
	ck_assert_int_eq(seen, 4);
	json_decref(h);
}
END_TEST

START_TEST(a_congested_uplink_names_the_spine_port_it_waits_on_as_root)
{
	uint64_t guid;
	unsigned port, up = 0;
	uint32_t link;
	int32_t spine = -1, other;
	json_t *a, *row;
	char root[96], victim[96];
	size_t i;
	int seen = 0;

	pick_port(&guid, &port, &link);
	/* The uplink to that spine of job A's other leaf (not the one the port
	 * leads to): A's traffic on the port can only come in over it. */
	spine = switch_index(guid);
	other = rt_graph_port(J.g, (size_t)spine, port)->peer == leaf_a1 ? leaf_a2 : leaf_a1;
	for (unsigned p = 1; p <= J.g->sw[other].nports; p++) {
		const struct rt_port *rp = rt_graph_port(J.g, (size_t)other, p);

		if (rp->kind == RT_PEER_SWITCH && rp->peer == spine)
			up = p;
	}
	ck_assert_uint_ne(up, 0);
	ck_assert_uint_gt(pairs_of_a(RT_PATHS_OUT(rt_graph_port_index(J.g, (size_t)other, up))), 0);
	ck_assert_int_eq(jobdb_counters(&J, guid, port, 0, 3000), 0);
	ck_assert_int_eq(jobdb_alarm(&J, guid, port, "link_congested"), 0);
	ck_assert_int_eq(jobdb_counters(&J, J.g->sw[other].guid, up, 0, 2000), 0);
	ck_assert_int_eq(jobdb_alarm(&J, J.g->sw[other].guid, up, "link_congested"), 0);
	snprintf(root, sizeof(root), "%s:%u", fab_find(J.fab, guid)->desc, port);
	snprintf(victim, sizeof(victim), "%s:%u", J.g->sw[other].desc, up);
	a = impact(NULL, "101", NULL, 0);
	json_array_foreach(json_object_get(a, "worst"), i, row) {
		const char *from = json_string_value(json_object_get(row, "from"));
		json_t *c = json_object_get(row, "congestion");

		if (!strcmp(from, root) || !strcmp(from, victim)) {
			ck_assert_str_eq(json_string_value(json_object_get(c, "root")), root);
			ck_assert_int_eq(json_is_true(json_object_get(c, "is_root")),
					 !strcmp(from, root));
			seen++;
		}
	}
	ck_assert_int_eq(seen, 2);
	json_decref(a);
}
END_TEST

START_TEST(hosts_give_the_same_links_as_the_tenant)
{
	json_t *a = impact(NULL, "101", NULL, 0), *h, *v;
	char list[512] = "";
	size_t i, at = 0;

	json_array_foreach(json_object_get(a, "hosts"), i, v)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? "," : "",
				       json_string_value(json_object_get(v, "host")));
	h = impact(NULL, NULL, list, 0);
	ck_assert(json_equal(json_object_get(a, "paths"), json_object_get(h, "paths")));
	ck_assert(json_equal(json_object_get(a, "switches"), json_object_get(h, "switches")));
	/* The other job is named as sharing links only when it does. */
	ck_assert(!json_is_null(json_object_get(h, "other_jobs")));
	json_decref(a);
	json_decref(h);
	impact(NULL, NULL, "nosuchhost[1-2]", -EINVAL);
	impact(NULL, "999", NULL, -ENOENT);
}
END_TEST

/* --hosts takes the tenants' rule whole: a host the map names has exactly
 * the map's ports, whatever the descriptions say. */
START_TEST(hosts_follow_the_host_map_as_tenants_do)
{
	const struct rt_ca *b0 = &J.g->ca[job_b[0]], *a0 = &J.g->ca[job_a[0]];
	char map[600], host[HOSTMAP_NAME_LEN], guid[24], err[512] = "";
	struct job_query q = { .hosts = host, .host_map = map };
	sqlite3 *db = dbq_open_readonly(path, err, sizeof(err));
	json_t *out = NULL, *hosts;
	FILE *f;

	ck_assert_msg(db != NULL, "%s", err);
	/* The host of job A's first port, by its description, is mapped to
	 * job B's first port instead. */
	ck_assert_int_eq(sscanf(a0->desc, "%63s", host), 1);
	snprintf(map, sizeof(map), "%s/hosts.map", dir);
	ck_assert_ptr_nonnull(f = fopen(map, "w"));
	fprintf(f, "# test\n%s 0x%016llx\n", host, (unsigned long long)b0->guid);
	fclose(f);
	ck_assert_msg(job_db_impact(db, NULL, &q, &out, err, sizeof(err)) == 0, "%s", err);
	hosts = json_object_get(out, "hosts");
	ck_assert_uint_eq(json_array_size(hosts), 1);
	snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)b0->guid);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(hosts, 0), "port_guid")),
			 guid);
	json_decref(out);
	out = NULL;
	/* Without the map: the description's port. */
	q.host_map = NULL;
	ck_assert_msg(job_db_impact(db, NULL, &q, &out, err, sizeof(err)) == 0, "%s", err);
	snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)a0->guid);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(out, "hosts"), 0), "port_guid")), guid);
	json_decref(out);
	/* A map that cannot be read is an error naming it. */
	q.host_map = "/nonexistent/hosts.map";
	out = NULL;
	ck_assert_int_lt(job_db_impact(db, NULL, &q, &out, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/hosts.map"));
	json_decref(out);
	sqlite3_close(db);
	unlink(map);
}
END_TEST

/* The events' list of the jobs on a link holds whole names only: one that
 * does not fit is counted ("and 1 more"), never cut to another job's id
 * ("1010" cut to "101"). */
START_TEST(the_jobs_named_at_a_port_are_whole_names_or_counted)
{
	const struct rt_ca *a0 = &J.g->ca[job_a[0]];
	struct job_index *ix = job_index_new();
	char err[512] = "", buf[64];
	sqlite3 *db;

	/* three jobs on job A's hosts, so on the cable of its first port */
	ck_assert_int_eq(jobdb_tenant(&J, "1010", 12, job_a, n_a), 0);
	ck_assert_int_eq(jobdb_tenant(&J, "zz-a-long-job-name", 13, job_a, n_a), 0);
	ck_assert_ptr_nonnull(db = dbq_open_readonly(path, err, sizeof(err)));
	ck_assert_msg(job_index_refresh(db, ix, err, sizeof(err)) == 0, "%s", err);
#define NAMES_AT(len) job_index_names_at(ix, J.fab->subnet, a0->node_guid, a0->port, 0, buf, len)
	ck_assert_str_eq(NAMES_AT(sizeof(buf)), "101, 1010, zz-a-long-job-name");
	/* room for "101, 1010, zz-a-lo": the last counted */
	ck_assert_str_eq(NAMES_AT(20), "101 and 2 more");
	ck_assert_str_eq(NAMES_AT(26), "101, 1010 and 1 more");
	/* room for "101, 101" and no more: no name cut to another's */
	ck_assert_str_eq(NAMES_AT(9), "3 jobs");
	ck_assert_str_eq(NAMES_AT(3), "");
#undef NAMES_AT
	sqlite3_close(db);
	job_index_free(ix);
}
END_TEST

/* A host list the client got wrong (one that expands past HOSTLIST_MAX, a
 * bracket left open) is the client's error, -EINVAL as job_db.h says: a
 * bad request, never an internal error of loomd's or a 500 of the API. */
START_TEST(a_host_list_too_large_or_malformed_is_the_clients_error)
{
	impact(NULL, NULL, "n[0-99999999]", -EINVAL);
	impact(NULL, NULL, "n[1-", -EINVAL);
}
END_TEST

START_TEST(the_index_follows_a_tenant_change_and_newer_tables)
{
	struct job_index *ix = job_index_new();
	uint64_t guid;
	unsigned port;
	uint32_t link;
	json_t *b, *a, *o;
	char sql[256], err[512] = "";
	size_t moved = job_a[0];
	uint8_t up;

	pick_port(&guid, &port, &link);
	ck_assert_int_eq(jobdb_counters(&J, guid, port, 7, 0), 0);
	b = impact(ix, "102", NULL, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(b, "bad_links")), 0);
	json_decref(b);
	/* B gains all of A's hosts: now it crosses the bad port too. */
	for (size_t i = 0; i < n_a; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO tenant_ports (tenant, host, port_guid) VALUES "
			 "('102', 'h%zu', '0x%016llx')", i,
			 (unsigned long long)J.g->ca[job_a[i]].guid);
		ck_assert_int_eq(store_exec(J.st, sql), 0);
	}
	b = impact(ix, "102", NULL, 0);
	ck_assert_int_ge(json_integer_value(json_object_get(b, "bad_links")), 1);
	json_decref(b);
	/* A's pairs are B's now too: B shares every link of A's. */
	a = impact(ix, "101", NULL, 0);
	o = json_array_get(json_object_get(a, "other_jobs"), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(a, "other_jobs")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(o, "job")), "102");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "shared_links")),
			 json_integer_value(json_object_get(json_object_get(a, "paths"), "links")));
	ck_assert(names(json_object_get(json_array_get(json_object_get(a, "worst"), 0), "jobs"),
			"102"));
	json_decref(a);
	/* Newer tables that drop a pair of A: the index reloads them. */
	up = rt_lfts_get(J.l, (size_t)J.g->ca[job_a[n_a - 1]].sw, J.g->ca[moved].lid);
	ck_assert_uint_ne(up, RT_NO_PORT);
	rt_lfts_set(J.l, (size_t)J.g->ca[job_a[n_a - 1]].sw, J.g->ca[moved].lid, RT_NO_PORT);
	ck_assert_msg(jobdb_store_tables(&J, err, sizeof(err)) == 0, "%s", err);
	a = impact(ix, "101", NULL, 0);
	ck_assert_int_gt(json_integer_value(json_object_get(json_object_get(a, "paths"),
							    "dropped")), 0);
	json_decref(a);
	job_index_free(ix);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("job_db");
	TCase *tc = tcase_create("job_db");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, errors_on_a_spine_port_name_the_job_that_crosses_it_and_not_the_other);
	tcase_add_test(tc, health_names_the_job_behind_an_error_and_a_congested_port);
	tcase_add_test(tc, a_congested_uplink_names_the_spine_port_it_waits_on_as_root);
	tcase_add_test(tc, hosts_give_the_same_links_as_the_tenant);
	tcase_add_test(tc, hosts_follow_the_host_map_as_tenants_do);
	tcase_add_test(tc, a_host_list_too_large_or_malformed_is_the_clients_error);
	tcase_add_test(tc, the_jobs_named_at_a_port_are_whole_names_or_counted);
	tcase_add_test(tc, the_index_follows_a_tenant_change_and_newer_tables);
	suite_add_tcase(s, tc);
	return check_run(s);
}
