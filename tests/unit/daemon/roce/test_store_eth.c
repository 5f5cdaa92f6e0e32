/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/roce/test_store_eth.c: the Ethernet switches' reads as a fabric
 * (daemon/roce/store_switches.c, schema 005's views, lib/db/db_query_eth.c): the
 * nodes, ports and links that loomctl shows, and the events of the IB kinds
 * that a read's changes make. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/db/db_query.h"
#include "lib/util/log.h"
#include "daemon/core/store.h"
#include "daemon/roce/store_switches.h"
#include "tests/unit/fixtures/check_run.h"

static char dir[64], db_path[128];
static struct store *st;
static double now = 1800000000;

static void setup(void)
{
	char err[512] = "";

	snprintf(dir, sizeof(dir), "/tmp/loom-test-eth.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/loom.db", dir);
	log_init("test_store_eth", LOG_LVL_WARNING, LOG_TARGET_STDERR);
	st = store_open(db_path, err, sizeof(err));
	ck_assert_msg(st != NULL, "%s", err);
}

static void teardown(void)
{
	char cmd[128];

	store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* ---- reads, as qos.c builds them --------------------------------------------- */

/* A reached switch with `ports` "NAME:ALIAS:up|down[:PEER:PEER-PORT]" separated
 * by blanks. */
static json_t *read_of(const char *name, const char *mac, const char *ports)
{
	json_t *sw = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:[], s:[]}", "name", name,
			       "plugin", "sonic", "address", "x", "hostname", name, "mac", mac,
			       "model", "ACS-MSN2700", "port_list", "neighbors");
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", ports);
	for (char *p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		char *f[5] = { 0 };
		int n = 0;

		for (char *q = p; n < 5 && q; n++) {
			f[n] = q;
			if ((q = strchr(q, ':')))
				*q++ = '\0';
		}
		json_array_append_new(json_object_get(sw, "port_list"),
				      json_pack("{s:s, s:s, s:i, s:i, s:b, s:b}", "name", f[0],
						"alias", f[1], "speed_mbps", 100000, "mtu", 9100,
						"admin_up", 1, "oper_up", !strcmp(f[2], "up")));
		if (f[3])
			json_array_append_new(json_object_get(sw, "neighbors"),
					      json_pack("{s:s, s:s, s:s, s:s}", "local_port", f[0],
							"sys_name", f[3], "port_id", f[4],
							"chassis_id", "aa:bb"));
	}
	return sw;
}

static void record(const char *name, const char *mac, const char *ports)
{
	json_t *sw = read_of(name, mac, ports);

	now += 1;
	ck_assert_int_eq(store_record_switch(st, now, sw), 0);
	json_decref(sw);
}

static json_t *query(int (*fn)(sqlite3 *, json_t **, char *, size_t))
{
	char err[512] = "";
	json_t *out = NULL;

	ck_assert_msg(fn(store_db(st), &out, err, sizeof(err)) == 0, "%s", err);
	return out;
}

static json_t *links(void)
{
	return query(dbq_links);
}

static json_t *nodes(void)
{
	char err[512] = "";
	json_t *out = NULL;

	ck_assert_msg(dbq_nodes(store_db(st), NULL, &out, err, sizeof(err)) == 0, "%s", err);
	return out;
}

static json_t *events_since(double t)
{
	char err[512] = "";
	json_t *out = NULL;

	ck_assert_msg(dbq_events(store_db(st), t, NULL, 0, &out, err, sizeof(err)) == 0, "%s", err);
	return out;
}

static const char *s_of(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* How many events of `kind` (since t) have `subject`. */
static int n_events(double t, const char *kind, const char *subject)
{
	json_t *ev = events_since(t), *e;
	size_t i;
	int n = 0;

	json_array_foreach(ev, i, e)
		if (!strcmp(s_of(e, "kind"), kind) && !strcmp(s_of(e, "subject"), subject))
			n++;
	json_decref(ev);
	return n;
}

/* ---- the fabric ---------------------------------------------------------------- */

START_TEST(link_seen_from_both_ends_is_listed_once_even_by_alias)
{
	json_t *l, *a, *b;

	/* leaf1's LLDP names spine1's port by its alias, etp2. */
	record("spine1", "00:00:00:00:00:01", "Ethernet0:etp1:up:leaf1:Ethernet4 "
	       "Ethernet4:etp2:up");
	record("leaf1", "00:00:00:00:00:02", "Ethernet4:etp2:up:spine1:etp1");
	l = links();
	ck_assert_uint_eq(json_array_size(l), 1);
	a = json_object_get(json_array_get(l, 0), "a");
	b = json_object_get(json_array_get(l, 0), "b");
	ck_assert_str_eq(s_of(json_array_get(l, 0), "fabric"), "eth");
	ck_assert_str_eq(s_of(a, "node"), "leaf1");
	ck_assert_str_eq(s_of(a, "port"), "Ethernet4");
	ck_assert_str_eq(s_of(b, "node"), "spine1");
	ck_assert_str_eq(s_of(b, "port"), "Ethernet0");
	ck_assert_str_eq(s_of(json_array_get(l, 0), "speed"), "100G");
	json_decref(l);
}
END_TEST

START_TEST(lldp_neighbours_that_are_not_switches_are_hosts_with_their_ports)
{
	char err[512] = "";
	json_t *n, *host = NULL, *e;
	size_t i;

	record("leaf1", "00:00:00:00:00:02", "Ethernet0:etp1:up:host01:mlx5_0 "
	       "Ethernet4:etp2:up:host01:mlx5_1 Ethernet8:etp3:down:host02:mlx5_0");
	n = nodes();
	json_array_foreach(n, i, e)
		ck_assert_msg(strcmp(s_of(e, "desc"), "host02"),
			      "host02 is behind a port that is down: not a node");
	json_decref(n);
	ck_assert_int_eq(dbq_node(store_db(st), "host01", &host, err, sizeof(err)), 0);
	ck_assert_str_eq(s_of(host, "type"), "host");
	ck_assert_int_eq(json_integer_value(json_object_get(host, "ports")), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(host, "port_list")), 2);
	e = json_array_get(json_object_get(host, "port_list"), 1);
	ck_assert_str_eq(s_of(e, "port"), "mlx5_1");
	ck_assert_str_eq(s_of(json_object_get(e, "peer"), "node"), "leaf1");
	ck_assert_str_eq(s_of(json_object_get(e, "peer"), "port"), "Ethernet4");
	json_decref(host);
}
END_TEST

START_TEST(a_declared_switch_is_never_taken_for_a_host)
{
	json_t *n, *e;
	size_t i;

	/* spine1 is read first; leaf1 is in loom.yaml but not read yet. */
	ck_assert_int_eq(store_declare_switch(st, now, "leaf1", "sonic", "x"), 0);
	record("spine1", "00:00:00:00:00:01", "Ethernet0:etp1:up:leaf1:Ethernet4");
	ck_assert_int_eq(n_events(0, "node_appeared", "leaf1"), 0);
	n = nodes();
	json_array_foreach(n, i, e)
		ck_assert_msg(strcmp(s_of(e, "type"), "host"), "%s is a host", s_of(e, "desc"));
	json_decref(n);
	record("leaf1", "00:00:00:00:00:02", "Ethernet4:etp2:up:spine1:Ethernet0");
	ck_assert_int_eq(n_events(0, "node_appeared", "leaf1"), 1);
}
END_TEST

START_TEST(changes_are_events_of_the_ib_kinds)
{
	double t;

	record("leaf1", "00:00:00:00:00:02", "Ethernet0:etp1:up:host01:mlx5_0 "
	       "Ethernet4:etp2:up:host01:mlx5_1 Ethernet8:etp3:up");
	ck_assert_int_eq(n_events(0, "node_appeared", "leaf1"), 1);
	ck_assert_int_eq(n_events(0, "node_appeared", "host01"), 1);
	/* A new node's links are its appearance. */
	ck_assert_int_eq(n_events(0, "link_up", "host01[mlx5_0] <-> leaf1[Ethernet0]"), 0);

	t = now + 0.5;
	record("leaf1", "00:00:00:00:00:02", "Ethernet0:etp1:down:host01:mlx5_0 "
	       "Ethernet4:etp2:up:host01:mlx5_1 Ethernet8:etp3:down");
	ck_assert_int_eq(n_events(t, "link_down", "host01[mlx5_0] <-> leaf1[Ethernet0]"), 1);
	ck_assert_int_eq(n_events(t, "port_state", "leaf1[Ethernet0]"), 0);
	ck_assert_int_eq(n_events(t, "port_state", "leaf1[Ethernet8]"), 1);

	t = now + 0.5;
	record("leaf1", "00:00:00:00:00:02", "Ethernet0:etp1:up:host01:mlx5_0 "
	       "Ethernet4:etp2:up:host01:mlx5_1");
	ck_assert_int_eq(n_events(t, "link_up", "host01[mlx5_0] <-> leaf1[Ethernet0]"), 1);
	ck_assert_int_eq(n_events(t, "port_state", "leaf1[Ethernet8]"), 1); /* absent */

	t = now + 0.5;
	record("leaf1", "00:00:00:00:00:02", "Ethernet0:etp1:up:host02:mlx5_0 "
	       "Ethernet4:etp2:up:host02:mlx5_1");
	ck_assert_int_eq(n_events(t, "node_disappeared", "host01"), 1);
	ck_assert_int_eq(n_events(t, "node_appeared", "host02"), 1);
	ck_assert_int_eq(n_events(t, "link_down", "host01[mlx5_0] <-> leaf1[Ethernet0]"), 0);

	/* The same read again changes nothing. */
	t = now + 0.5;
	record("leaf1", "00:00:00:00:00:02", "Ethernet0:etp1:up:host02:mlx5_0 "
	       "Ethernet4:etp2:up:host02:mlx5_1");
	{
		json_t *ev = events_since(t);

		ck_assert_uint_eq(json_array_size(ev), 0);
		json_decref(ev);
	}
}
END_TEST

START_TEST(an_unreached_switch_keeps_its_links)
{
	json_t *sw = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", "leaf1", "plugin", "sonic",
			       "address", "x", "state", "unreachable", "error", "gone");
	json_t *l;

	record("leaf1", "00:00:00:00:00:02", "Ethernet0:etp1:up:host01:mlx5_0");
	ck_assert_int_eq(store_record_switch(st, now + 1, sw), 0);
	json_decref(sw);
	l = links();
	ck_assert_uint_eq(json_array_size(l), 1);
	json_decref(l);
}
END_TEST

Suite *store_eth_suite(void);
Suite *store_eth_suite(void)
{
	Suite *s = suite_create("store_eth");
	TCase *tc = tcase_create("store_eth");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, link_seen_from_both_ends_is_listed_once_even_by_alias);
	tcase_add_test(tc, lldp_neighbours_that_are_not_switches_are_hosts_with_their_ports);
	tcase_add_test(tc, a_declared_switch_is_never_taken_for_a_host);
	tcase_add_test(tc, changes_are_events_of_the_ib_kinds);
	tcase_add_test(tc, an_unreached_switch_keeps_its_links);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(store_eth_suite());
}
