/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/db/test_lft_history.c: the job post-mortem's storage and
 * query (issue 42): the window's times parsed (lib/db/job_history_db.h);
 * the forwarding tables' history (lib/db/lft_history.h, schema 021) on a
 * generated fat tree stored as loomd stores it: identical reads add no
 * version, a changed read keeps only the changed switch, each version
 * rebuilt equals the tables it was read from (a changed table kept as
 * the entries that changed), the version in force at a
 * time, a switch gone, pruning that keeps the one in force at the cutoff
 * (also when stopped half way); and the
 * job's window (job_history_db): a route of the job moved by the test
 * (the port chosen from the routes, never named), its links before and
 * after, the events on its links kept and the others not, an ended job
 * still answered. */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "tests/unit/fixtures/check_run.h"
#include "fabgen.h"
#include "tests/unit/fixtures/fixture_jobdb.h"
#include "tests/unit/fixtures/fixture_route.h"
#include "lib/db/db_query.h"
#include "lib/db/job_history_db.h"
#include "lib/db/lft_history.h"
#include "lib/route/route_live.h"
#include "lib/route/route_paths.h"
#include "daemon/core/store.h"
#include "daemon/ib/store_sweep.h"

#define T0 1e9   /* the fixture's first read */

static char dir[64], path[128];
static struct jobdb J;
static size_t job[8], n_job;
static int64_t sid;

static void setup(void)
{
	struct fg_fabric fg;
	char err[512] = "";
	sqlite3_stmt *s;

	snprintf(dir, sizeof(dir), "/tmp/loom-test-lfth.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/loom.db", dir);
	fg_init(&fg);
	ck_assert_int_eq(fg_build_fattree(&fg, &(struct fg_fattree_opts){ .levels = 2,
		.radix = 8, .hosts = 32, .rails = 1 }), 0);
	ck_assert_msg(jobdb_build(&J, path, fixture_fabgen(&fg, 0), rt_route_ftree, err,
				  sizeof(err)) == 0, "%s", err);
	/* The job: every host of the first leaf, and one of the second. */
	n_job = 0;
	for (size_t c = 0; c < J.g->n_ca && n_job < 8; c++)
		if (J.g->ca[c].sw == J.g->ca[0].sw ||
		    (J.g->ca[job[n_job - 1]].sw == J.g->ca[0].sw && J.g->ca[c].sw != J.g->ca[0].sw))
			job[n_job++] = c;
	ck_assert_uint_ge(n_job, 3);
	ck_assert_int_eq(jobdb_tenant(&J, "4242", 10, job, n_job), 0);
	ck_assert_int_eq(sqlite3_prepare_v2(store_db(J.st), "SELECT id FROM subnets WHERE name = ?",
					    -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, J.fab->subnet, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	sid = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
}

static void teardown(void)
{
	char cmd[160];

	jobdb_free(&J);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* J.l stored as a read started at t. */
static void store_at(double t)
{
	struct rl_read *r = rl_read_new();
	int64_t id;

	ck_assert_ptr_nonnull(r);
	for (size_t s = 0; s < J.g->n_sw; s++)
		ck_assert_int_eq(rl_read_add(r, J.g->sw[s].guid, J.g->sw[s].lid, J.l->max_lid,
					     rt_lfts_row(J.l, s)), 0);
	rl_read_sort(r);
	r->started = t;
	r->finished = t + 1;
	ck_assert_int_eq(store_record_lfts(J.st, J.fab->subnet, 0, r, &id), 0);
	rl_read_free(r);
}

static int64_t count(const char *sql)
{
	sqlite3_stmt *s;
	int64_t n = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(store_db(J.st), sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* The version rebuilt holds exactly `want` (a copy of J.l's rows). */
static void assert_version_is(int64_t id, const uint8_t *want)
{
	char err[512] = "";
	int rc;
	struct rl_read *r = lfth_load(store_db(J.st), id, &rc, err, sizeof(err));

	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(r->n, J.g->n_sw);
	for (size_t s = 0; s < J.g->n_sw; s++) {
		const struct rl_table *t = rl_read_find(r, J.g->sw[s].guid);

		ck_assert_ptr_nonnull(t);
		ck_assert_uint_eq(t->top, J.l->max_lid);
		ck_assert_msg(!memcmp(t->port, want + s * (J.l->max_lid + 1u), J.l->max_lid + 1u),
			      "version %lld: switch %zu's table differs", (long long)id, s);
	}
	rl_read_free(r);
}

static uint8_t *tables_copy(void)
{
	size_t n = J.g->n_sw * (J.l->max_lid + 1u);
	uint8_t *c = malloc(n);

	ck_assert_ptr_nonnull(c);
	for (size_t s = 0; s < J.g->n_sw; s++)
		memcpy(c + s * (J.l->max_lid + 1u), rt_lfts_row(J.l, s), J.l->max_lid + 1u);
	return c;
}

/* Move the job's one route off its leaf (first leaf -> the host on the
 * second) to an up port the job does not use: *old_port, *new_port. */
static void move_route(unsigned *old_port, unsigned *new_port)
{
	struct rt_paths p;
	size_t leaf = (size_t)J.g->ca[job[0]].sw, dst = job[n_job - 1];
	uint8_t *row = rt_lfts_row(J.l, leaf);

	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(rt_paths_compute(J.g, J.l, job, n_job, NULL, &p), 0);
	*old_port = row[J.g->ca[dst].lid];
	*new_port = 0;
	for (unsigned q = 1; q <= J.g->sw[leaf].nports && !*new_port; q++)
		if (rt_graph_port(J.g, leaf, q)->kind == RT_PEER_SWITCH && q != *old_port &&
		    !rt_paths_pairs_on(&p, RT_PATHS_OUT(rt_graph_port_index(J.g, leaf, q))))
			*new_port = q;
	rt_paths_clear(&p);
	ck_assert_uint_ne(*new_port, 0);
	row[J.g->ca[dst].lid] = (uint8_t)*new_port;
}

START_TEST(window_times_parse_as_documented)
{
	double t, now = 1764425100;   /* 2025-11-29T14:05:00Z */

	ck_assert_int_eq(job_history_time_parse("now", now, &t), 0);
	ck_assert(t == now);
	ck_assert_int_eq(job_history_time_parse("-2h", now, &t), 0);
	ck_assert(t == now - 7200);
	ck_assert_int_eq(job_history_time_parse("-90s", now, &t), 0);
	ck_assert(t == now - 90);
	ck_assert_int_eq(job_history_time_parse("2025-11-29T14:05:00Z", now, &t), 0);
	ck_assert(t == now);
	ck_assert_int_eq(job_history_time_parse("1764425100", now, &t), 0);
	ck_assert(t == now);
	/* local time: the asker's zone */
	setenv("TZ", "UTC0", 1);
	tzset();
	ck_assert_int_eq(job_history_time_parse("2025-11-29 14:05", now, &t), 0);
	ck_assert(t == now);
	setenv("TZ", "XXX-2", 1);   /* two hours east of UTC */
	tzset();
	ck_assert_int_eq(job_history_time_parse("2025-11-29 16:05:00", now, &t), 0);
	ck_assert(t == now);
	unsetenv("TZ");
	tzset();
	ck_assert_int_eq(job_history_time_parse("-5", now, &t), -EINVAL);
	ck_assert_int_eq(job_history_time_parse("yesterday", now, &t), -EINVAL);
	ck_assert_int_eq(job_history_time_parse("2025-11-29 25:99", now, &t), -EINVAL);
	ck_assert_int_eq(job_history_time_parse("", now, &t), -EINVAL);
}
END_TEST

START_TEST(identical_reads_add_no_version_a_change_keeps_only_its_switch)
{
	char err[512] = "";
	unsigned a, b;
	uint8_t *v1 = tables_copy(), *v2;

	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_version_tables"), (int64_t)J.g->n_sw);
	store_at(T0 + 100);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 1);
	ck_assert_int_eq(count("SELECT last_seen FROM lft_versions"), (int64_t)(T0 + 100));
	move_route(&a, &b);
	v2 = tables_copy();
	store_at(T0 + 200);
	store_at(T0 + 300);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 2);
	/* the second holds the one switch changed, over the first */
	ck_assert_int_eq(count("SELECT changed FROM lft_versions ORDER BY time DESC LIMIT 1"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_version_tables"), (int64_t)J.g->n_sw + 1);
	/* and of that switch only the entry that changed: a 3-byte patch */
	ck_assert_int_eq(count("SELECT full FROM lft_version_tables WHERE version_id = (SELECT "
			       "max(id) FROM lft_versions)"), 0);
	ck_assert_int_eq(count("SELECT length(lft) FROM lft_version_tables WHERE version_id = "
			       "(SELECT max(id) FROM lft_versions)"), 3);
	assert_version_is(lfth_in_force(store_db(J.st), sid, T0 + 150, err, sizeof(err)), v1);
	assert_version_is(lfth_in_force(store_db(J.st), sid, T0 + 250, err, sizeof(err)), v2);
	ck_assert_int_eq(lfth_in_force(store_db(J.st), sid, T0 - 1, err, sizeof(err)), 0);
	free(v1);
	free(v2);
}
END_TEST

START_TEST(versions_in_a_window_with_their_bounds)
{
	struct lfth_version *v = NULL;
	char err[512] = "";
	unsigned a, b;
	size_t n;

	store_at(T0 + 100);
	move_route(&a, &b);
	store_at(T0 + 200);
	ck_assert_int_eq(lfth_versions(store_db(J.st), sid, T0 + 50, T0 + 250, &v, &n, err,
				       sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert(v[0].time == T0 && v[0].until == T0 + 200);
	ck_assert(v[1].time == T0 + 200 && v[1].until == 0);
	ck_assert(v[1].after == T0 + 100);   /* changed between the last same read and it */
	free(v);
	/* a window after the change: only the one in force */
	ck_assert_int_eq(lfth_versions(store_db(J.st), sid, T0 + 210, T0 + 250, &v, &n, err,
				       sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert(v[0].time == T0 + 200);
	free(v);
}
END_TEST

START_TEST(pruning_keeps_the_version_in_force_at_the_cutoff)
{
	char err[512] = "";
	unsigned a, b;
	uint8_t *v2, *v3;
	int64_t keep;

	move_route(&a, &b);
	store_at(T0 + 200);
	v2 = tables_copy();
	rt_lfts_row(J.l, J.g->ca[job[0]].sw)[J.g->ca[job[n_job - 1]].lid] = (uint8_t)a;
	store_at(T0 + 400);
	v3 = tables_copy();
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 3);
	keep = lfth_in_force(store_db(J.st), sid, T0 + 250, err, sizeof(err));
	ck_assert_int_eq(lfth_prune(store_db(J.st), T0 + 250, 3, NULL, NULL, err, sizeof(err)), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 2);
	ck_assert_int_eq(lfth_in_force(store_db(J.st), sid, T0 + 250, err, sizeof(err)), keep);
	ck_assert_int_eq(lfth_in_force(store_db(J.st), sid, T0 + 100, err, sizeof(err)), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions WHERE prev_id IS NULL"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_version_tables WHERE full = 1"),
			 (int64_t)J.g->n_sw);
	assert_version_is(keep, v2);
	assert_version_is(lfth_in_force(store_db(J.st), sid, T0 + 500, err, sizeof(err)), v3);
	/* again: nothing older left */
	ck_assert_int_eq(lfth_prune(store_db(J.st), T0 + 250, 3, NULL, NULL, err, sizeof(err)), 0);
	/* the newest is kept whatever its age */
	ck_assert_int_eq(lfth_prune(store_db(J.st), T0 + 1e6, 3, NULL, NULL, err, sizeof(err)), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 1);
	assert_version_is(lfth_in_force(store_db(J.st), sid, T0 + 500, err, sizeof(err)), v3);
	free(v2);
	free(v3);
}
END_TEST

static int stops;

/* lfth_prune's pause: stop at the first. */
static int stop_now(void *arg)
{
	(void)arg;
	stops++;
	return 1;
}

/* J.l without switch `gone` stored as a read started at t. */
static void store_without(double t, size_t gone)
{
	struct rl_read *r = rl_read_new();
	int64_t id;

	ck_assert_ptr_nonnull(r);
	for (size_t s = 0; s < J.g->n_sw; s++)
		if (s != gone)
			ck_assert_int_eq(rl_read_add(r, J.g->sw[s].guid, J.g->sw[s].lid,
						     J.l->max_lid, rt_lfts_row(J.l, s)), 0);
	rl_read_sort(r);
	r->started = t;
	r->finished = t + 1;
	ck_assert_int_eq(store_record_lfts(J.st, J.fab->subnet, 0, r, &id), 0);
	rl_read_free(r);
}

START_TEST(a_switch_gone_leaves_the_tables_and_a_stopped_prune_loses_nothing)
{
	char err[512] = "";
	struct rl_read *r;
	unsigned a, b;
	uint8_t *v2;
	int64_t keep;
	int rc;

	move_route(&a, &b);
	store_at(T0 + 200);
	v2 = tables_copy();
	store_without(T0 + 300, 1);   /* switch 1 gone */
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 3);
	r = lfth_load(store_db(J.st), lfth_in_force(store_db(J.st), sid, T0 + 300, err,
						    sizeof(err)), &rc, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(r->n, J.g->n_sw - 1);
	ck_assert_ptr_null(rl_read_find(r, J.g->sw[1].guid));
	ck_assert_ptr_nonnull(rl_read_find(r, J.g->sw[0].guid));
	rl_read_free(r);
	/* Stopped after its first statement: the version in force at the
	 * cutoff half written whole, still the same tables; then to the end. */
	keep = lfth_in_force(store_db(J.st), sid, T0 + 250, err, sizeof(err));
	stops = 0;
	ck_assert_int_eq(lfth_prune(store_db(J.st), T0 + 250, 2, stop_now, NULL, err,
				    sizeof(err)), 0);
	ck_assert_int_eq(stops, 1);
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), 3);
	assert_version_is(keep, v2);
	ck_assert_int_eq(lfth_prune(store_db(J.st), T0 + 250, 2, NULL, NULL, err, sizeof(err)), 1);
	assert_version_is(keep, v2);
	r = lfth_load(store_db(J.st), lfth_in_force(store_db(J.st), sid, T0 + 300, err,
						    sizeof(err)), &rc, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(r->n, J.g->n_sw - 1);
	rl_read_free(r);
	free(v2);
}
END_TEST

/* The port (guid, num) of switch sw's port p as events name it. */
static void port_subject(char *buf, size_t len, size_t sw, unsigned p)
{
	snprintf(buf, len, "port 0x%016" PRIx64 "/%u (%s)", J.g->sw[sw].guid, p, J.g->sw[sw].desc);
}

/* Does one of the links begin with `prefix`? */
static int names(const json_t *links, const char *prefix)
{
	const json_t *l;
	size_t i;

	json_array_foreach(links, i, l)
		if (!strncmp(json_string_value(l), prefix, strlen(prefix)))
			return 1;
	return 0;
}

START_TEST(a_jobs_window_shows_both_versions_what_moved_and_its_events_only)
{
	size_t leaf = (size_t)J.g->ca[job[0]].sw, other = SIZE_MAX;
	char err[512] = "", subj[256], name[256];
	struct job_history_query q = { .job = "4242", .from = T0 - 10, .to = T0 + 300 };
	unsigned a, b;
	json_t *out = NULL, *v, *ev;

	for (size_t c = 0; c < J.g->n_ca && other == SIZE_MAX; c++)
		if (J.g->ca[c].sw != J.g->ca[job[0]].sw &&
		    J.g->ca[c].sw != J.g->ca[job[n_job - 1]].sw)
			other = (size_t)J.g->ca[c].sw;   /* a leaf the job does not touch */
	move_route(&a, &b);
	store_at(T0 + 200);
	port_subject(subj, sizeof(subj), leaf, b);
	ck_assert_int_eq(store_record_event(J.st, T0 + 250, sid, "warning", "link_errors", subj,
					    NULL, "SymbolErrorCounter +40"), 0);
	port_subject(subj, sizeof(subj), other, 1);
	ck_assert_int_eq(store_record_event(J.st, T0 + 251, sid, "warning", "link_errors", subj,
					    NULL, "SymbolErrorCounter +40"), 0);
	ck_assert_int_eq(store_record_event(J.st, T0 + 400, sid, "warning", "link_errors", subj,
					    NULL, "after the window"), 0);
	ck_assert_msg(job_history_db(store_db(J.st), &q, &out, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "versions")), 2);
	v = json_array_get(json_object_get(out, "versions"), 1);
	/* leaf -> a spine -> the other leaf: two links in, two out */
	snprintf(name, sizeof(name), "%s[%u] -> ", J.g->sw[leaf].desc, b);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(v, "moved"), "added")), 2);
	ck_assert(names(json_object_get(json_object_get(v, "moved"), "added"), name));
	ck_assert(!names(json_object_get(json_object_get(v, "moved"), "removed"), name));
	snprintf(name, sizeof(name), "%s[%u] -> ", J.g->sw[leaf].desc, a);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(v, "moved"),
							  "removed")), 2);
	ck_assert(names(json_object_get(json_object_get(v, "moved"), "removed"), name));
	ck_assert(!names(json_object_get(json_object_get(v, "moved"), "added"), name));
	ev = json_object_get(out, "events");
	ck_assert_uint_eq(json_array_size(ev), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "kind")),
			 "link_errors");
	ck_assert_int_gt(json_integer_value(json_object_get(json_array_get(ev, 0), "pairs")), 0);
	json_decref(out);

	/* The job ends (its tenant deleted): still answered, with its end. */
	ck_assert_int_eq(sqlite3_exec(store_db(J.st), "DELETE FROM tenants WHERE name = '4242'",
				      NULL, NULL, NULL), SQLITE_OK);
	ck_assert_msg(job_history_db(store_db(J.st), &q, &out, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "hosts")), n_job);
	ck_assert(json_is_string(json_object_get(out, "ended")));
	json_decref(out);
	q.job = "no-such-job";
	ck_assert_int_eq(job_history_db(store_db(J.st), &q, &out, err, sizeof(err)), -ENOENT);
}
END_TEST

/* A window of more versions than an answer holds stops at the first left
 * out, saying so: no request makes loomd walk months of reroutes. */
START_TEST(a_window_of_too_many_versions_is_cut_and_says_where)
{
	struct job_history_query q = { .job = "4242", .from = T0 - 10, .to = T0 + 1e6 };
	size_t leaf = (size_t)J.g->ca[job[0]].sw, dst = job[n_job - 1];
	uint8_t *row = rt_lfts_row(J.l, leaf);
	char err[512] = "", t[32];
	unsigned a, b;
	json_t *out = NULL;

	move_route(&a, &b);
	for (int i = 1; i <= JOB_HISTORY_MAX_VERSIONS + 5; i++) {
		row[J.g->ca[dst].lid] = (uint8_t)(i % 2 ? b : a);
		store_at(T0 + 10.0 * i);
	}
	ck_assert_int_eq(count("SELECT count(*) FROM lft_versions"), JOB_HISTORY_MAX_VERSIONS + 6);
	ck_assert_msg(job_history_db(store_db(J.st), &q, &out, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(json_array_size(json_object_get(out, "versions")),
			  JOB_HISTORY_MAX_VERSIONS);
	ck_assert_int_eq(json_integer_value(json_object_get(out, "versions_more")), 6);
	ck_assert_str_eq(json_string_value(json_object_get(out, "cut_at")),
			 dbq_time_str(T0 + 10.0 * JOB_HISTORY_MAX_VERSIONS, t, sizeof(t)));
	json_decref(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lft_history");
	TCase *tc = tcase_create("lft_history");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, window_times_parse_as_documented);
	tcase_add_test(tc, identical_reads_add_no_version_a_change_keeps_only_its_switch);
	tcase_add_test(tc, versions_in_a_window_with_their_bounds);
	tcase_add_test(tc, pruning_keeps_the_version_in_force_at_the_cutoff);
	tcase_add_test(tc, a_switch_gone_leaves_the_tables_and_a_stopped_prune_loses_nothing);
	tcase_add_test(tc, a_jobs_window_shows_both_versions_what_moved_and_its_events_only);
	tcase_add_test(tc, a_window_of_too_many_versions_is_cut_and_says_where);
	suite_add_tcase(s, tc);
	return check_run(s);
}
