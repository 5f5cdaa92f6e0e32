/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_store.c: the SQLite store, crash safety and
 * the read queries (lib/db/db_query.h) on what it records; its schema's
 * migrations are test_store_schema.c's. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/db/db_query.h"
#include "lib/db/metrics_db.h"
#include "lib/telemetry/metrics_text.h"
#include "lib/fabric/fabric.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "lib/util/log.h"
#include "daemon/core/schema.h"
#include "daemon/core/store.h"
#include "daemon/ib/store_sweep.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_store.h"

#define SW1 0x0002c90000000010ULL
#define SW2 0x0002c90000000040ULL
#define CA_A 0x0002c90000000020ULL
#define CA_B 0x0002c90000000030ULL

/* ---- building fabrics ------------------------------------------------------ */

/* sw1 (8 ports) with CA A on port 1, CA B on port 2, sw2 on port 3. */
static struct fab *base(int with_sw2)
{
	struct fab *f = fab_new("ib0");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW1, 8, "sw1", 1);
	if (with_sw2)
		fixture_node(f, IBT_NODE_SWITCH, SW2, 8, "sw2", 2);
	fixture_node(f, IBT_NODE_CA, CA_A, 1, "hostA mlx5_0", 5);
	fixture_node(f, IBT_NODE_CA, CA_B, 1, "hostB mlx5_0", 6);
	fixture_link(f, SW1, 1, CA_A, 1);
	fixture_link(f, SW1, 2, CA_B, 1);
	if (with_sw2)
		fixture_link(f, SW1, 3, SW2, 1);
	return f;
}

static struct store_sweep_info info_at(double t)
{
	struct store_sweep_info info = {
		.subnet = "ib0", .ca = "mlx5_0", .port = 1, .started = t, .finished = t + 0.25,
	};
	return info;
}

/* `obj` has exactly the keys in the space-separated `keys`. */
static void assert_keys(json_t *obj, const char *keys)
{
	char tmp[512], *save = NULL;
	size_t n = 0;

	ck_assert(json_is_object(obj));
	snprintf(tmp, sizeof(tmp), "%s", keys);
	for (char *k = strtok_r(tmp, " ", &save); k; k = strtok_r(NULL, " ", &save), n++)
		ck_assert_msg(json_object_get(obj, k) != NULL, "missing key \"%s\"", k);
	ck_assert_uint_eq(json_object_size(obj), n);
}

static const char *str(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	ck_assert_msg(json_is_string(v), "\"%s\" is not a string", key);
	return json_string_value(v);
}

static json_int_t num(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	ck_assert_msg(json_is_integer(v), "\"%s\" is not an integer", key);
	return json_integer_value(v);
}

#define NODE_KEYS "fabric guid type desc name ports subnet sysimg_guid vendor_id device_id revision lid " \
	"first_seen last_seen"
#define PORT_KEYS "fabric subnet node_guid node_desc node_name port guid lid lmc state phys_state width speed " \
	"width_enabled width_supported speed_enabled speed_supported mtu vls peer"
/* A node's ports (the switch panel, issue 41) say more: the best both ends
 * can do, and the port's rates, errors and alarms. */
#define NODE_PORT_KEYS PORT_KEYS " width_max speed_max width_capable speed_capable degraded " \
	"rates errors alarms"
#define LINK_KEYS "fabric subnet a b width speed degraded width_max speed_max state reason"

/* ---- schema ------------------------------------------------------------------ */

START_TEST(migration_sets_user_version_and_reopen_works)
{
	struct store *st = store_fixture_open();

	ck_assert_int_ge(store_schema_version(), 1);
	ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA user_version"), store_schema_version());
	ck_assert_int_eq(store_fixture_count(store_db(st), "SELECT count(*) FROM sqlite_master WHERE "
			       "type = 'table' AND name IN ('subnets', 'sweeps', 'nodes', "
			       "'ports', 'links', 'events')"), 6);
	ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA foreign_keys"), 1);
	struct fab *f = base(1);
	struct store_sweep_info info = info_at(1000);
	ck_assert_int_eq(store_record_sweep(st, &info, f, NULL), 0);
	store_close(st);

	st = store_fixture_open();
	ck_assert_int_eq(store_fixture_count(store_db(st), "PRAGMA user_version"), store_schema_version());
	ck_assert_int_eq(store_fixture_count(store_db(st), "SELECT count(*) FROM nodes"), 4);
	store_close(st);
	fab_free(f);
}
END_TEST


/* ---- recording and reading back ----------------------------------------------- */

START_TEST(first_sweep_reads_back_through_every_query)
{
	struct store *st = store_fixture_open();
	struct fab *f = base(1);
	struct store_sweep_info info = info_at(1700000000);
	struct store_sweep_result res = { 0, 0 };
	char err[512] = "";
	sqlite3 *db = store_db(st);
	json_t *out, *o;

	ck_assert_int_eq(store_record_sweep(st, &info, f, &res), 0);
	ck_assert_int_gt(res.sweep_id, 0);
	ck_assert_uint_eq(res.n_events, 1);

	ck_assert_int_eq(dbq_nodes(db, NULL, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 4);
	o = json_array_get(out, 0);
	assert_keys(o, NODE_KEYS);
	ck_assert_str_eq(str(o, "guid"), "0x0002c90000000010");
	ck_assert_str_eq(str(o, "type"), "switch");
	ck_assert_str_eq(str(o, "desc"), "sw1");
	ck_assert_str_eq(str(o, "subnet"), "ib0");
	ck_assert_str_eq(str(o, "vendor_id"), "0x0002c9");
	ck_assert_str_eq(str(o, "first_seen"), "2023-11-14T22:13:20Z");
	ck_assert_int_eq(num(o, "ports"), 8);
	ck_assert_int_eq(num(o, "lid"), 1);
	ck_assert_str_eq(str(json_array_get(out, 1), "guid"), "0x0002c90000000020");
	ck_assert_str_eq(str(json_array_get(out, 3), "guid"), "0x0002c90000000040");
	json_decref(out);

	ck_assert_int_eq(dbq_nodes(db, "ca", &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 2);
	ck_assert_str_eq(str(json_array_get(out, 0), "type"), "ca");
	json_decref(out);

	ck_assert_int_eq(dbq_node(db, "hostA mlx5_0", &out, err, sizeof(err)), 0);
	ck_assert_str_eq(str(out, "guid"), "0x0002c90000000020");
	o = json_object_get(out, "port_list");
	ck_assert_uint_eq(json_array_size(o), 1);
	o = json_array_get(o, 0);
	assert_keys(o, NODE_PORT_KEYS);
	ck_assert_str_eq(str(o, "state"), "active");
	ck_assert_str_eq(str(o, "phys_state"), "linkup");
	ck_assert_str_eq(str(o, "width"), "4x");
	ck_assert_str_eq(str(o, "speed"), "QDR");
	ck_assert_str_eq(str(o, "width_supported"), "1x,4x");
	ck_assert_str_eq(str(o, "speed_enabled"), "SDR,QDR");
	ck_assert_int_eq(num(o, "mtu"), 4096);
	ck_assert_int_eq(num(o, "lid"), 5);
	ck_assert_str_eq(str(json_object_get(o, "peer"), "guid"), "0x0002c90000000010");
	ck_assert_int_eq(num(json_object_get(o, "peer"), "port"), 1);
	/* the peer's name in the answer (loomctl ports: NAME[PORT]) */
	ck_assert_str_eq(str(json_object_get(o, "peer"), "name"), "sw1");
	json_decref(out);

	ck_assert_int_eq(dbq_node(db, "0x2c90000000040", &out, err, sizeof(err)), 0);
	ck_assert_str_eq(str(out, "desc"), "sw2");
	ck_assert_uint_eq(json_array_size(json_object_get(out, "port_list")), 9);
	json_decref(out);
	ck_assert_int_eq(dbq_node(db, "no such host", &out, err, sizeof(err)), -ENOENT);

	ck_assert_int_eq(dbq_ports(db, NULL, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), fab_count_ports(f));
	ck_assert_str_eq(str(json_array_get(out, 0), "node_guid"), "0x0002c90000000010");
	ck_assert_int_eq(num(json_array_get(out, 0), "port"), 0);
	ck_assert(json_is_null(json_object_get(json_array_get(out, 0), "peer")));
	json_decref(out);
	ck_assert_int_eq(dbq_ports(db, "sw1", &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 9);
	ck_assert_str_eq(str(json_array_get(out, 4), "state"), "down");
	ck_assert_str_eq(str(json_array_get(out, 4), "width"), "");
	json_decref(out);

	ck_assert_int_eq(dbq_links(db, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 3);
	o = json_array_get(out, 0);
	assert_keys(o, LINK_KEYS);
	assert_keys(json_object_get(o, "a"), "guid port desc name");
	assert_keys(json_object_get(o, "b"), "guid port desc name");
	ck_assert_str_eq(str(json_object_get(o, "a"), "desc"), "sw1");
	ck_assert_str_eq(str(json_object_get(o, "b"), "desc"), "hostA mlx5_0");
	ck_assert_str_eq(str(o, "width"), "4x");
	ck_assert(json_is_false(json_object_get(o, "degraded")));
	ck_assert_int_eq(num(json_object_get(json_array_get(out, 2), "a"), "port"), 3);
	json_decref(out);

	ck_assert_int_eq(dbq_events(db, 0, NULL, 0, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 1);
	o = json_array_get(out, 0);
	assert_keys(o, "id time ts subnet sweep severity kind subject old new");
	ck_assert_str_eq(str(o, "kind"), "subnet_first_sweep");
	ck_assert_str_eq(str(o, "severity"), "info");
	ck_assert_str_eq(str(o, "new"), "4 nodes (2 switches, 2 CAs), 3 links");
	ck_assert_int_eq(num(o, "sweep"), res.sweep_id);
	json_decref(out);

	/* The IB subnet, then the (empty) Ethernet fabric of schema 5. */
	ck_assert_int_eq(dbq_subnets(db, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 2);
	ck_assert_str_eq(str(json_array_get(out, 1), "kind"), "eth");
	ck_assert_int_eq(num(json_array_get(out, 1), "nodes"), 0);
	o = json_array_get(out, 0);
	assert_keys(o, "name kind ca port nodes switches cas ports links last_sweep");
	ck_assert_str_eq(str(o, "name"), "ib0");
	ck_assert_str_eq(str(o, "ca"), "mlx5_0");
	ck_assert_int_eq(num(o, "nodes"), 4);
	ck_assert_int_eq(num(o, "switches"), 2);
	ck_assert_int_eq(num(o, "cas"), 2);
	ck_assert_int_eq(num(o, "ports"), (json_int_t)fab_count_ports(f));
	ck_assert_int_eq(num(o, "links"), 3);
	o = json_object_get(o, "last_sweep");
	assert_keys(o, "id status started duration_ms error smps smp_retries smps_lost");
	ck_assert_str_eq(str(o, "status"), "ok");
	ck_assert_int_eq(num(o, "duration_ms"), 250);
	ck_assert(json_is_null(json_object_get(o, "smps")));  /* no walk counted them */
	ck_assert(json_is_null(json_object_get(o, "error")));
	json_decref(out);

	store_close(st);
	fab_free(f);
}
END_TEST

START_TEST(ambiguous_description_is_eexist)
{
	struct store *st = store_fixture_open();
	struct fab *f = base(1);
	struct store_sweep_info info = info_at(1000);
	char err[512] = "";
	json_t *out = NULL;

	snprintf(fab_find(f, CA_B)->desc, FAB_DESC_LEN + 1, "%s", "hostA mlx5_0");
	ck_assert_int_eq(store_record_sweep(st, &info, f, NULL), 0);
	ck_assert_int_eq(dbq_node(store_db(st), "hostA mlx5_0", &out, err, sizeof(err)), -EEXIST);
	ck_assert_msg(strstr(err, "0x0002c90000000020") && strstr(err, "0x0002c90000000030"),
		      "error does not list the nodes: %s", err);
	store_close(st);
	fab_free(f);
}
END_TEST

START_TEST(second_sweep_records_changes)
{
	struct store *st = store_fixture_open();
	struct fab *f = base(1);
	struct store_sweep_info i1 = info_at(1000), i2 = info_at(2000);
	struct store_sweep_result r1, r2;
	char err[512] = "";
	sqlite3 *db = store_db(st);
	json_t *out, *o;

	ck_assert_int_eq(store_record_sweep(st, &i1, f, &r1), 0);
	fixture_unlink(f, SW1, 1);
	ck_assert_int_eq(store_record_sweep(st, &i2, f, &r2), 0);
	ck_assert_int_gt(r2.sweep_id, r1.sweep_id);
	ck_assert_uint_eq(r2.n_events, 1);

	ck_assert_int_eq(dbq_events(db, 0, NULL, 0, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 2);
	o = json_array_get(out, 0); /* newest first */
	ck_assert_str_eq(str(o, "kind"), "link_down");
	ck_assert_str_eq(str(o, "severity"), "warning");
	ck_assert_str_eq(str(o, "subject"),
			 "0x0002c90000000010[1] (sw1) <-> 0x0002c90000000020[1] (hostA mlx5_0)");
	ck_assert_int_eq(num(o, "sweep"), r2.sweep_id);
	ck_assert_str_eq(str(json_array_get(out, 1), "kind"), "subnet_first_sweep");
	json_decref(out);
	ck_assert_int_eq(dbq_events(db, 1500, NULL, 0, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 1);
	json_decref(out);
	ck_assert_int_eq(dbq_events(db, 0, NULL, 1, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 1);
	json_decref(out);
	/* by kind: one, a list, none; the limit counts the kept ones */
	ck_assert_int_eq(dbq_events(db, 0, "subnet_first_sweep", 0, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 1);
	ck_assert_str_eq(str(json_array_get(out, 0), "kind"), "subnet_first_sweep");
	json_decref(out);
	ck_assert_int_eq(dbq_events(db, 0, "link_up,subnet_first_sweep,link_down", 0, &out, err,
				    sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 2);
	json_decref(out);
	/* whole kinds, not prefixes: "link" is no kind loomd records */
	ck_assert_int_eq(dbq_events(db, 0, "link", 0, &out, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "unknown event kind \"link\""));
	ck_assert_ptr_nonnull(strstr(err, "link_down"));
	ck_assert_int_eq(dbq_events(db, 0, "subnet_first_sweep", 1, &out, err, sizeof(err)), 0);
	ck_assert_str_eq(str(json_array_get(out, 0), "kind"), "subnet_first_sweep");
	json_decref(out);

	/* the two cabled, and the unplugged one down (it was cabled in the
	 * sweep before: schema 019's last peer, issue 41) */
	ck_assert_int_eq(dbq_links(db, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 3);
	{
		size_t i, down = 0;
		json_t *l;

		json_array_foreach(out, i, l)
			down += !strcmp(str(l, "state"), "down");
		ck_assert_uint_eq(down, 1);
	}
	json_decref(out);
	ck_assert_int_eq(dbq_node(db, "sw1", &out, err, sizeof(err)), 0);
	ck_assert_str_eq(str(out, "first_seen"), "1970-01-01T00:16:40Z");
	ck_assert_str_eq(str(out, "last_seen"), "1970-01-01T00:33:20Z");
	json_decref(out);

	/* sw2 goes away: its node, ports and link go with it. */
	struct fab *g = base(0);
	struct store_sweep_info i3 = info_at(3000);
	fixture_unlink(g, SW1, 1);
	ck_assert_int_eq(store_record_sweep(st, &i3, g, &r2), 0);
	ck_assert_uint_eq(r2.n_events, 1);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM nodes"), 3);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM links"), 1);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM ports WHERE node_guid = "
			       "'0x0002c90000000040'"), 0);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM events WHERE kind = 'node_disappeared'"),
			 1);
	store_close(st);
	fab_free(f);
	fab_free(g);
}
END_TEST

static void assert_unchanged(sqlite3 *db, int64_t sweeps, int64_t nodes, int64_t events,
			     int64_t links)
{
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM sweeps"), sweeps);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM nodes"), nodes);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM events"), events);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM links"), links);
}

/* The listener of events (daemon/events): the kinds it was told, in order. */
static char told[256];

static void on_told(const struct store_event *ev, void *arg)
{
	(void)arg;
	snprintf(told + strlen(told), sizeof(told) - strlen(told), "%s ", ev->kind);
}

/* An event is told once it is committed: at once outside a transaction,
 * at COMMIT inside one, never when its transaction is rolled back. */
START_TEST(events_are_told_once_committed_and_never_when_rolled_back)
{
	struct store *st = store_fixture_open();
	sqlite3 *db = store_db(st);

	told[0] = '\0';
	store_on_event(on_told, NULL);
	ck_assert_int_eq(store_record_event(st, 1, 0, "warning", "now", "x", "", ""), 0);
	ck_assert_str_eq(told, "now ");
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_record_event(st, 2, 0, "warning", "kept", "x", "", ""), 0);
	ck_assert_str_eq(told, "now ");
	ck_assert_int_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_str_eq(told, "now kept ");
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_record_event(st, 3, 0, "error", "undone", "x", "", ""), 0);
	ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_record_event(st, 4, 0, "error", "after", "x", "", ""), 0);
	ck_assert_int_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_str_eq(told, "now kept after ");
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM events WHERE kind = 'undone'"), 0);
	store_on_event(NULL, NULL);
	store_close(st);
}
END_TEST

START_TEST(failed_record_leaves_nothing)
{
	struct store *st = store_fixture_open();
	struct fab *f = base(1), *g = base(0);
	struct store_sweep_info i1 = info_at(1000), i2 = info_at(2000);
	sqlite3 *db = store_db(st);

	ck_assert_int_eq(store_record_sweep(st, &i1, f, NULL), 0);
	assert_unchanged(db, 1, 4, 1, 3);

	/* A peer that does not point back is refused whole. */
	fab_find(g, CA_B)->ports[1].peer_guid = 0x0002c900000000ffULL;
	ck_assert_int_eq(store_record_sweep(st, &i2, g, NULL), -EINVAL);
	assert_unchanged(db, 1, 4, 1, 3);

	/* A failure at the very end (the event rows) undoes the nodes, ports
	 * and links already rewritten in the same transaction. */
	fab_free(g);
	g = base(0);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TEMP TRIGGER fail BEFORE INSERT ON events "
				      "BEGIN SELECT RAISE(ABORT, 'injected'); END", NULL, NULL,
				      NULL), SQLITE_OK);
	ck_assert_int_lt(store_record_sweep(st, &i2, g, NULL), 0);
	assert_unchanged(db, 1, 4, 1, 3);
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1); /* no transaction left open */
	ck_assert_int_eq(sqlite3_exec(db, "DROP TRIGGER fail", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_record_sweep(st, &i2, g, NULL), 0);
	assert_unchanged(db, 2, 3, 2, 2);
	store_close(st);
	fab_free(f);
	fab_free(g);
}
END_TEST

START_TEST(failed_sweep_is_recorded_and_keeps_fabric)
{
	struct store *st = store_fixture_open();
	struct fab *f = base(1);
	struct store_sweep_info i0 = info_at(500), i1 = info_at(1000), i2 = info_at(2000);
	struct store_sweep_result res;
	char err[512] = "";
	sqlite3 *db = store_db(st);
	json_t *out, *o;

	/* Failures before any good sweep: the first good one is still "first". */
	ck_assert_int_eq(store_record_failed_sweep(st, &i0, "no SM", &res), 0);
	ck_assert_int_eq(store_record_sweep(st, &i1, f, &res), 0);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM events WHERE kind = "
			       "'subnet_first_sweep'"), 1);
	ck_assert_int_eq(store_record_failed_sweep(st, &i2, "umad: no such device", &res), 0);
	ck_assert_uint_eq(res.n_events, 1);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM nodes"), 4);

	ck_assert_int_eq(dbq_events(db, 0, NULL, 1, &out, err, sizeof(err)), 0);
	o = json_array_get(out, 0);
	ck_assert_str_eq(str(o, "kind"), "sweep_failed");
	ck_assert_str_eq(str(o, "severity"), "warning");
	ck_assert_str_eq(str(o, "new"), "umad: no such device");
	ck_assert_int_eq(num(o, "sweep"), res.sweep_id);
	json_decref(out);
	ck_assert_int_eq(dbq_subnets(db, &out, err, sizeof(err)), 0);
	o = json_object_get(json_array_get(out, 0), "last_sweep");
	ck_assert_str_eq(str(o, "status"), "failed");
	ck_assert_str_eq(str(o, "error"), "umad: no such device");
	ck_assert_int_eq(num(json_array_get(out, 0), "nodes"), 4);
	json_decref(out);
	store_close(st);
	fab_free(f);
}
END_TEST

/* issue 44: each sweep keeps its walk's SMPs, retries and losses; what the
 * walk did not count (libibnetdisc: retries, losses; a failed sweep: all)
 * is NULL, never 0; `status` shows the last sweep's, /metrics the sums. */
START_TEST(walk_smp_counts_are_stored_per_sweep_and_unknown_stays_null)
{
	struct store *st = store_fixture_open();
	struct fab *f = base(1);
	struct store_sweep_info i1 = info_at(1000), i2 = info_at(2000), i3 = info_at(3000);
	struct store_sweep_result res;
	struct mt_buf m = { 0 };
	char err[512] = "";
	sqlite3 *db = store_db(st);
	json_t *out, *o;

	f->smps.sent = 120;
	f->smps.retries = 7;
	f->smps.lost = 1;
	ck_assert_int_eq(store_record_sweep(st, &i1, f, &res), 0);
	f->smps.retries = f->smps.lost = FAB_COUNT_UNKNOWN;  /* libibnetdisc's walk */
	f->smps.sent = 80;
	ck_assert_int_eq(store_record_sweep(st, &i2, f, &res), 0);
	ck_assert_int_eq(store_record_failed_sweep(st, &i3, "no answer", &res), 0);
	ck_assert_int_eq(store_fixture_count(db, "SELECT smps FROM sweeps WHERE started = 1000"),
			 120);
	ck_assert_int_eq(store_fixture_count(db, "SELECT smp_retries FROM sweeps WHERE "
					     "started = 1000"), 7);
	ck_assert_int_eq(store_fixture_count(db, "SELECT smps_lost FROM sweeps WHERE "
					     "started = 1000"), 1);
	ck_assert_int_eq(store_fixture_count(db, "SELECT smps FROM sweeps WHERE started = 2000"),
			 80);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM sweeps WHERE started = "
					     "2000 AND smp_retries IS NULL AND smps_lost IS NULL"), 1);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM sweeps WHERE started = "
					     "3000 AND smps IS NULL AND smp_retries IS NULL"), 1);

	ck_assert_int_eq(dbq_subnets(db, &out, err, sizeof(err)), 0);
	o = json_object_get(json_array_get(out, 0), "last_sweep");
	ck_assert(json_is_null(json_object_get(o, "smps")));  /* the failed one */
	json_decref(out);

	ck_assert_int_eq(metrics_db_render_fabric(db, &m, err, sizeof(err)), 0);
	mt_put(&m, "", 1);
	ck_assert_msg(strstr(m.p, "\nloom_sweep_smps_total{subnet=\"ib0\"} 200\n"), "%s", m.p);
	ck_assert_msg(strstr(m.p, "\nloom_sweep_smp_retries_total{subnet=\"ib0\"} 7\n"), "%s",
		      m.p);
	ck_assert_msg(strstr(m.p, "\nloom_sweep_smps_lost_total{subnet=\"ib0\"} 1\n"), "%s", m.p);
	ck_assert(strstr(m.p, "# TYPE loom_sweep_smp_retries_total counter\n"));
	mt_buf_free(&m);
	store_close(st);
	fab_free(f);
}
END_TEST

/* ---- read-only access ---------------------------------------------------------- */

START_TEST(readonly_open_refuses_bad_files_and_writes)
{
	char err[512] = "", other[160];
	sqlite3 *db;
	FILE *fp;

	ck_assert_ptr_null(dbq_open_readonly(store_db_path, err, sizeof(err)));
	ck_assert_msg(strstr(err, store_db_path) != NULL, "error names no file: %s", err);

	snprintf(other, sizeof(other), "%s/text.db", store_dir);
	fp = fopen(other, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("this is not a database, but it is long enough to look like a file\n", fp);
	fclose(fp);
	ck_assert_ptr_null(dbq_open_readonly(other, err, sizeof(err)));
	ck_assert_msg(strstr(err, "not a loom database") != NULL, "%s", err);

	snprintf(other, sizeof(other), "%s/plain.db", store_dir);
	ck_assert_int_eq(sqlite3_open(other, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_ptr_null(dbq_open_readonly(other, err, sizeof(err)));
	ck_assert_msg(strstr(err, "not a loom database") != NULL, "%s", err);

	/* Read while the daemon's connection is open (WAL in use). */
	struct store *st = store_fixture_open();
	struct fab *f = base(1);
	struct store_sweep_info info = info_at(1000);
	json_t *out;

	ck_assert_int_eq(store_record_sweep(st, &info, f, NULL), 0);
	db = dbq_open_readonly(store_db_path, err, sizeof(err));
	ck_assert_msg(db != NULL, "%s", err);
	ck_assert_int_eq(dbq_nodes(db, NULL, &out, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(out), 4);
	json_decref(out);
	ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO subnets (name, created) VALUES ('x', 0)",
				      NULL, NULL, NULL), SQLITE_READONLY);
	sqlite3_close(db);
	store_close(st);
	fab_free(f);
}
END_TEST

/* What the API's answer cache keys on: the version moves on the loop's own
 * commits and on another connection's (a worker's), and stays put when
 * nothing was written, however often it is read. */
START_TEST(data_version_moves_on_every_commit_and_only_then)
{
	char err[512] = "";
	struct store *st = store_fixture_open();
	struct store *other = store_open(store_db_path, err, sizeof(err));
	struct fab *f = base(1);
	struct store_sweep_info info = info_at(1000);
	unsigned v0, v1, v2, v3;

	ck_assert_msg(other != NULL, "%s", err);
	ck_assert_int_eq(dbq_data_version(store_db(st), &v0), 0);
	ck_assert_int_eq(dbq_data_version(store_db(st), &v1), 0);
	ck_assert_uint_eq(v0, v1);
	ck_assert_int_eq(store_record_sweep(st, &info, f, NULL), 0);
	ck_assert_int_eq(dbq_data_version(store_db(st), &v1), 0);
	ck_assert_uint_ne(v0, v1);
	ck_assert_int_eq(sqlite3_exec(store_db(other), "INSERT INTO subnets (name, created) "
				      "VALUES ('other', 0)", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(dbq_data_version(store_db(st), &v2), 0);
	ck_assert_uint_ne(v1, v2);
	ck_assert_int_eq(dbq_data_version(store_db(st), &v3), 0);
	ck_assert_uint_eq(v2, v3);
	store_close(other);
	store_close(st);
	fab_free(f);
}
END_TEST

/* ---- times --------------------------------------------------------------------- */

START_TEST(time_parse_and_format)
{
	double t = -1, now = 1700000000;
	char buf[32];

	ck_assert_int_eq(dbq_time_parse("1600000000", now, &t), 0);
	ck_assert(t == 1600000000.0);
	ck_assert_int_eq(dbq_time_parse("2023-11-14T22:13:20Z", now, &t), 0);
	ck_assert(t == 1700000000.0);
	ck_assert_int_eq(dbq_time_parse("2023-11-14 22:13:20", now, &t), 0);
	ck_assert(t == 1700000000.0);
	ck_assert_int_eq(dbq_time_parse("2023-11-14", now, &t), 0);
	ck_assert(t == 1699920000.0);
	ck_assert_int_eq(dbq_time_parse("90s", now, &t), 0);
	ck_assert(t == now - 90);
	ck_assert_int_eq(dbq_time_parse("15m", now, &t), 0);
	ck_assert(t == now - 900);
	ck_assert_int_eq(dbq_time_parse("2h", now, &t), 0);
	ck_assert(t == now - 7200);
	ck_assert_int_eq(dbq_time_parse("7d", now, &t), 0);
	ck_assert(t == now - 7 * 86400);
	ck_assert_int_eq(dbq_time_parse("", now, &t), -EINVAL);
	ck_assert_int_eq(dbq_time_parse("yesterday", now, &t), -EINVAL);
	ck_assert_int_eq(dbq_time_parse("5w", now, &t), -EINVAL);
	ck_assert_int_eq(dbq_time_parse("5hh", now, &t), -EINVAL);
	ck_assert_int_eq(dbq_time_parse("-5", now, &t), -EINVAL);
	ck_assert_int_eq(dbq_time_parse("2023-13-45", now, &t), -EINVAL);
	ck_assert_int_eq(dbq_time_parse("2023-11-14T22:13:20Zjunk", now, &t), -EINVAL);
	/* a finite count of days that is no time (-inf; --since was dropped
	 * silently; found by tests/fuzz/fuzz_time) */
	ck_assert_int_eq(dbq_time_parse("1e305d", now, &t), -EINVAL);
	ck_assert_str_eq(dbq_time_str(1700000000.7, buf, sizeof(buf)), "2023-11-14T22:13:20Z");
	ck_assert_str_eq(dbq_time_str(0, buf, sizeof(buf)), "1970-01-01T00:00:00Z");
}
END_TEST

/* ---- size and crash safety ---------------------------------------------------- */

/* `n_sw` switches of 57 ports, two CAs on each, the rest of the switch ports
 * in a circulant mesh: 3000 nodes and 60000 ports for n_sw = 1000. */
static struct fab *big_fabric(unsigned n_sw, unsigned extra_cas)
{
	struct fab *f = fab_new("ib0");
	const unsigned pairs = 27;  /* ports 3..56 */

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < n_sw; i++) {
		char desc[32];

		snprintf(desc, sizeof(desc), "sw%u", i);
		fixture_node(f, IBT_NODE_SWITCH, 0x1000000 + i, 3 + 2 * pairs, desc, (uint16_t)(1 + i));
	}
	for (unsigned i = 0; i < 2 * n_sw + extra_cas; i++) {
		char desc[32];
		uint64_t guid = 0x2000000 + i;

		snprintf(desc, sizeof(desc), "host%u mlx5_0", i);
		fixture_node(f, IBT_NODE_CA, guid, 1, desc, (uint16_t)(n_sw + 1 + i));
		if (i < 2 * n_sw)
			fixture_link(f, 0x1000000 + i / 2, 1 + i % 2, guid, 1);
	}
	for (unsigned i = 0; i < n_sw && n_sw > 2 * pairs; i++)
		for (unsigned m = 0; m < pairs; m++)
			fixture_link(f, 0x1000000 + i, 3 + 2 * m, 0x1000000 + (i + m + 1) % n_sw, 4 + 2 * m);
	return f;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

START_TEST(large_fabric_records_in_one_transaction)
{
	struct store *st = store_fixture_open();
	struct fab *f = big_fabric(1000, 0);
	struct store_sweep_info i1 = info_at(1000), i2 = info_at(2000);
	struct store_sweep_result res;
	char err[512] = "";
	json_t *out, *o;
	double t0, t1, t2;

	ck_assert_uint_eq(f->n_nodes, 3000);
	ck_assert_uint_eq(fab_count_ports(f), 60000);
	t0 = mono();
	ck_assert_int_eq(store_record_sweep(st, &i1, f, &res), 0);
	t1 = mono();
	ck_assert_int_eq(store_record_sweep(st, &i2, f, &res), 0);
	t2 = mono();
	ck_assert_uint_eq(res.n_events, 0);
	printf("record 3000 nodes / 60000 ports: first sweep %.3f s, unchanged resweep %.3f s\n",
	       t1 - t0, t2 - t1);
	ck_assert_int_eq(dbq_subnets(store_db(st), &out, err, sizeof(err)), 0);
	o = json_array_get(out, 0);
	ck_assert_int_eq(num(o, "nodes"), 3000);
	ck_assert_int_eq(num(o, "ports"), 60000);
	ck_assert_int_eq(num(o, "links"), (json_int_t)fab_count_links(f));
	json_decref(out);
	store_close(st);
	fab_free(f);
}
END_TEST

/* The stored fabric equals `f`, port by port, and every link row agrees
 * with the ports it joins. */
static void assert_stored(struct store *st, const struct fab *f)
{
	char err[512] = "";
	struct fab *got = store_load_fabric(st, f->subnet, err, sizeof(err));
	sqlite3 *db = store_db(st);

	ck_assert_msg(got != NULL, "%s", err);
	ck_assert_uint_eq(got->n_nodes, f->n_nodes);
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fab_node *n = f->nodes[i], *g = fab_find(got, n->guid);

		ck_assert_ptr_nonnull(g);
		ck_assert_str_eq(g->desc, n->desc);
		ck_assert_uint_eq(g->nports, n->nports);
		for (unsigned p = 0; p <= n->nports; p++) {
			const struct fab_port *a = &n->ports[p], *b = &g->ports[p];

			ck_assert_uint_eq(a->present, b->present);
			if (!a->present)
				continue;
			ck_assert_uint_eq(a->lid, b->lid);
			ck_assert_uint_eq(a->state, b->state);
			ck_assert_uint_eq(a->width_active, b->width_active);
			ck_assert_uint_eq(a->has_peer, b->has_peer);
			ck_assert(!a->has_peer || (a->peer_guid == b->peer_guid &&
						   a->peer_port == b->peer_port));
		}
	}
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM links"), (int64_t)fab_count_links(f));
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM links l JOIN ports a ON "
			      "a.subnet_id = l.subnet_id AND a.node_guid = l.a_guid AND a.num = l.a_port "
			      "JOIN ports b ON b.subnet_id = l.subnet_id AND b.node_guid = l.b_guid AND "
			      "b.num = l.b_port WHERE a.peer_guid = l.b_guid AND a.peer_port = l.b_port "
			      "AND b.peer_guid = l.a_guid AND b.peer_port = l.a_port AND "
			      "l.width = a.width_active"), (int64_t)fab_count_links(f));
	fab_free(got);
}

static uint64_t next_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

START_TEST(resweeps_write_only_what_changed_and_keep_the_fabric_exact)
{
	struct store *st = store_fixture_open();
	sqlite3 *db = store_db(st);
	uint64_t seed = 42;
	struct fab *f = big_fabric(60, 0);

	ck_assert_int_eq(store_record_sweep(st, &(struct store_sweep_info){ .subnet = "ib0", .ca = "mlx5_0", .port = 1,
			 .started = 1000, .finished = 1000 }, f, NULL), 0);
	assert_stored(st, f);

	/* An unchanged fabric: only last_seen moves (one row per node) and the
	 * sweep row is added. */
	int before = sqlite3_total_changes(db);

	ck_assert_int_eq(store_record_sweep(st, &(struct store_sweep_info){ .subnet = "ib0", .ca = "mlx5_0", .port = 1,
			 .started = 1001, .finished = 1001 }, f, NULL), 0);
	ck_assert_int_le(sqlite3_total_changes(db) - before, (int)f->n_nodes + 2);
	fab_free(f);

	/* Random changes: cables pulled, LIDs moved, descriptions renamed,
	 * widths dropped, hosts added and removed. */
	for (int round = 0; round < 25; round++) {
		f = big_fabric(60, (unsigned)(next_rand(&seed) % 8));
		for (int k = 0; k < 6; k++) {
			struct fab_node *n = f->nodes[next_rand(&seed) % f->n_nodes];
			unsigned p = 1 + (unsigned)(next_rand(&seed) % n->nports);
			struct fab_port *port = &n->ports[p];

			switch (next_rand(&seed) % 4) {
			case 0:
				if (port->has_peer)
					fixture_unlink(f, n->guid, p);
				break;
			case 1:
				for (unsigned q = 0; q <= n->nports; q++)
					if (n->ports[q].present)
						n->ports[q].lid = (uint16_t)(n->ports[q].lid + 5000);
				break;
			case 2:
				snprintf(n->desc, sizeof(n->desc), "renamed %d", round);
				break;
			default:
				if (port->has_peer) {
					port->width_active = IBT_WIDTH_1X;
					fab_find(f, port->peer_guid)->ports[port->peer_port].width_active =
						IBT_WIDTH_1X;
				}
			}
		}
		fab_sort(f);
		ck_assert_int_eq(store_record_sweep(st, &(struct store_sweep_info){ .subnet = "ib0",
				 .ca = "mlx5_0", .port = 1, .started = 2000 + round,
				 .finished = 2000 + round }, f, NULL), 0);
		assert_stored(st, f);
		fab_free(f);
	}
	store_close(st);
}
END_TEST

/* The child records sweeps of varying size as fast as it can; the parent
 * kills it at random moments. Every ok sweep row must then match the stored
 * fabric it left behind (the newest) and own exactly its event rows. The
 * fabrics are built before the fork: the child must not call check's
 * assertions, whose messages to the test runner a SIGKILL could cut in the
 * middle ("Bad message type arg"). */
#define KILL_FABRICS 13
START_TEST(kill_9_at_any_moment_leaves_a_consistent_database)
{
	const int rounds = getenv("LOOM_TEST_QUICK") && *getenv("LOOM_TEST_QUICK") ? 4 : 10;
	unsigned seed = 20261122;
	struct fab *fabs[KILL_FABRICS];
	struct store *st;
	sqlite3 *db;

	for (unsigned k = 0; k < KILL_FABRICS; k++)
		fabs[k] = big_fabric(60, k);
	srand(seed);
	for (int round = 0; round < rounds; round++) {
		int ready[2];
		pid_t pid;

		/* The first round's child says when its first sweep is committed,
		 * and is killed only after that: at least one ok sweep is in the
		 * database however slow the machine (or the sanitizer build) is.
		 * The other rounds are killed at any moment. */
		ck_assert_int_eq(pipe(ready), 0);
		pid = fork();
		if (pid == 0) {
			char err[512];
			struct store *cst = store_open(store_db_path, err, sizeof(err));

			close(ready[0]);
			if (round != 0) {
				close(ready[1]);
				ready[1] = -1;
			}
			if (!cst)
				_exit(2);
			for (unsigned i = 0;; i++) {
				struct store_sweep_info info = info_at(1000.0 * round + i);

				if (i % 5 == 4)
					store_record_failed_sweep(cst, &info, "injected", NULL);
				else if (store_record_sweep(cst, &info,
							    fabs[(unsigned)(round * 7 + i) % KILL_FABRICS],
							    NULL) < 0)
					_exit(3);
				else if (ready[1] >= 0) {
					if (write(ready[1], "1", 1) != 1)
						_exit(4);
					close(ready[1]);
					ready[1] = -1;
				}
			}
		}
		ck_assert_int_ge(pid, 0);
		close(ready[1]);
		if (round == 0) {
			struct pollfd pfd = { .fd = ready[0], .events = POLLIN };
			char c;

			ck_assert_msg(poll(&pfd, 1, 120000) == 1 && read(ready[0], &c, 1) == 1,
				      "the first child committed no sweep in 120 s");
		}
		close(ready[0]);
		usleep((useconds_t)(20000 + rand() % 150000));
		kill(pid, SIGKILL);
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status), "child exited early: %d", WEXITSTATUS(status));
	}

	st = store_fixture_open();
	db = store_db(st);
	sqlite3_stmt *s;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	ck_assert_int_gt(store_fixture_count(db, "SELECT count(*) FROM sweeps WHERE status = 'ok'"), 0);
	/* The newest ok sweep's counts are the stored fabric's. */
	ck_assert_int_eq(store_fixture_count(db, "SELECT nodes FROM sweeps WHERE status = 'ok' "
			       "ORDER BY id DESC LIMIT 1"),
			 store_fixture_count(db, "SELECT count(*) FROM nodes"));
	ck_assert_int_eq(store_fixture_count(db, "SELECT ports FROM sweeps WHERE status = 'ok' "
			       "ORDER BY id DESC LIMIT 1"),
			 store_fixture_count(db, "SELECT count(*) FROM ports"));
	ck_assert_int_eq(store_fixture_count(db, "SELECT links FROM sweeps WHERE status = 'ok' "
			       "ORDER BY id DESC LIMIT 1"),
			 store_fixture_count(db, "SELECT count(*) FROM links"));
	/* Every sweep has all of its events, and no event lost its sweep. */
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM sweeps w WHERE w.events <> "
			       "(SELECT count(*) FROM events e WHERE e.sweep_id = w.id)"), 0);
	ck_assert_int_eq(store_fixture_count(db, "SELECT count(*) FROM events WHERE sweep_id IS NULL"), 0);
	printf("crash test: %lld sweeps survived %d kills\n",
	       (long long)store_fixture_count(db, "SELECT count(*) FROM sweeps"), rounds);
	store_close(st);
	for (unsigned k = 0; k < KILL_FABRICS; k++)
		fab_free(fabs[k]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_add_checked_fixture(tc, store_fixture_setup, store_fixture_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, migration_sets_user_version_and_reopen_works);
	tcase_add_test(tc, first_sweep_reads_back_through_every_query);
	tcase_add_test(tc, ambiguous_description_is_eexist);
	tcase_add_test(tc, second_sweep_records_changes);
	tcase_add_test(tc, events_are_told_once_committed_and_never_when_rolled_back);
	tcase_add_test(tc, failed_record_leaves_nothing);
	tcase_add_test(tc, failed_sweep_is_recorded_and_keeps_fabric);
	tcase_add_test(tc, walk_smp_counts_are_stored_per_sweep_and_unknown_stays_null);
	tcase_add_test(tc, readonly_open_refuses_bad_files_and_writes);
	tcase_add_test(tc, data_version_moves_on_every_commit_and_only_then);
	tcase_add_test(tc, time_parse_and_format);
	tcase_add_test(tc, large_fabric_records_in_one_transaction);
	tcase_add_test(tc, resweeps_write_only_what_changed_and_keep_the_fabric_exact);
	tcase_add_test(tc, kill_9_at_any_moment_leaves_a_consistent_database);
	suite_add_tcase(s, tc);
	return check_run(s);
}
