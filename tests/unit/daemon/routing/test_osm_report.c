/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/routing/test_osm_report.c: loomd's end of the OpenSM plugin's reports
 * (daemon/routing/osm_report.c): a run or an event sent as a datagram to the report
 * socket is stored and listed (lib/db/db_query.h), malformed reports are
 * refused without storing anything, and the socket is replaced when stale,
 * refused when live, and removed at the end. A plugin that reports from an
 * address of its own is where loomd's heavy_sweep request goes, sent from
 * the report socket itself (the plugin checks that); an unbound sender or a
 * refused report is never asked. Every stored run, failed ones too, reaches
 * the run hook with the isolated set's version the plugin routed with (0
 * from an older plugin that does not say it). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/db/db_query.h"
#include "lib/util/log.h"
#include "daemon/routing/osm_report.h"
#include "daemon/core/store.h"
#include "tests/unit/fixtures/check_run.h"

static char dir[64], db_path[128], sock_path[128];
static struct event_base *base;
static struct store *st;
static struct osm_report *rep;

#define HEAD "{\"v\":1,\"time\":1700000000.5,\"pid\":42,\"sm_guid\":\"0x0000000000100001\"," \
	     "\"seq\":1,\"dropped\":0,"

static const char run_ok[] = HEAD "\"type\":\"routing_run\",\"engine\":\"loom\","
	"\"routed_by\":\"ftree\",\"result\":\"ok\",\"reason\":null,\"note\":\"loom chose ftree\","
	"\"started\":1700000000.25,\"duration_ms\":1.5,\"vls\":1,\"switches\":12,\"ca_ports\":32,"
	"\"entries_routed\":528,\"entries_unreachable\":0,\"metrics\":{\"pairs\":992,"
	"\"delivered\":992,\"loops\":0,\"shift_max_load\":1,\"random_max_load\":4}}";

static void setup(void)
{
	char err[512] = "";

	snprintf(dir, sizeof(dir), "/tmp/loom-test-osm.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/loom.db", dir);
	snprintf(sock_path, sizeof(sock_path), "%s/osm.sock", dir);
	log_init("test_osm_report", LOG_LVL_ERR, LOG_TARGET_STDERR);
	ck_assert_ptr_nonnull(base = event_base_new());
	st = store_open(db_path, err, sizeof(err));
	ck_assert_msg(st != NULL, "store_open: %s", err);
	rep = osm_report_new(base, sock_path, st, err, sizeof(err));
	ck_assert_msg(rep != NULL, "osm_report_new: %s", err);
}

static void teardown(void)
{
	char cmd[128];

	osm_report_free(rep);
	store_close(st);
	event_base_free(base);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static json_t *runs(void)
{
	char err[256] = "";
	json_t *out = NULL;

	ck_assert_msg(dbq_routing_runs(store_db(st), 0, &out, err, sizeof(err)) == 0, "%s", err);
	return out;
}

/* The events of one kind. */
static json_t *events(const char *kind)
{
	char err[256] = "";
	json_t *all = NULL, *out = json_array(), *e;
	size_t i;

	ck_assert_msg(dbq_events(store_db(st), 0, NULL, 0, &all, err, sizeof(err)) == 0, "%s", err);
	json_array_foreach(all, i, e)
		if (strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0)
			json_array_append(out, e);
	json_decref(all);
	return out;
}

static int handle(const char *msg)
{
	return osm_report_handle(rep, msg, strlen(msg), 1700000001.0);
}

START_TEST(run_sent_to_the_socket_is_stored_and_listed)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct stat sb;
	json_t *r, *list;

	ck_assert_int_eq(stat(sock_path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0660);
	memcpy(sa.sun_path, sock_path, strlen(sock_path));
	ck_assert_int_eq(sendto(fd, run_ok, strlen(run_ok), 0, (struct sockaddr *)&sa, sizeof(sa)),
			 (ssize_t)strlen(run_ok));
	close(fd);
	event_base_loop(base, EVLOOP_ONCE);
	list = runs();
	ck_assert_uint_eq(json_array_size(list), 1);
	r = json_array_get(list, 0);
	ck_assert_str_eq(json_string_value(json_object_get(r, "engine")), "loom");
	ck_assert_str_eq(json_string_value(json_object_get(r, "routed_by")), "ftree");
	ck_assert_str_eq(json_string_value(json_object_get(r, "result")), "ok");
	ck_assert_str_eq(json_string_value(json_object_get(r, "sm_guid")), "0x0000000000100001");
	ck_assert(json_is_null(json_object_get(r, "subnet")));   /* never swept */
	ck_assert(json_real_value(json_object_get(r, "ts")) == 1700000000.25);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "ca_ports")), 32);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "metrics"),
							    "delivered")), 992);
	json_decref(list);
}
END_TEST

START_TEST(failed_run_is_stored_with_a_warning_event)
{
	json_t *list, *ev;

	ck_assert_int_eq(handle(HEAD "\"type\":\"routing_run\",\"engine\":\"loom-ftree\","
				"\"routed_by\":null,\"result\":\"failed\",\"reason\":\"not a fat tree\","
				"\"note\":\"\",\"duration_ms\":0.5,\"vls\":0,\"switches\":4,"
				"\"ca_ports\":8,\"entries_routed\":0,\"entries_unreachable\":0,"
				"\"metrics\":null}"), 0);
	list = runs();
	ck_assert_uint_eq(json_array_size(list), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "reason")),
			 "not a fat tree");
	ck_assert(json_is_null(json_object_get(json_array_get(list, 0), "metrics")));
	json_decref(list);
	ev = events("osm_routing_failed");
	ck_assert_uint_eq(json_array_size(ev), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "severity")),
			 "warning");
	json_decref(ev);
}
END_TEST

START_TEST(events_are_stored_by_kind)
{
	json_t *ev;

	ck_assert_int_eq(handle(HEAD "\"type\":\"subnet_up\",\"nodes\":44,\"switches\":12,"
				"\"ports\":44,\"gids_in\":32,\"gids_out\":0}"), 0);
	ck_assert_int_eq(handle(HEAD "\"type\":\"trap\",\"generic\":true,\"trap\":128,"
				"\"name\":\"link state change\",\"issuer_lid\":3,\"lid\":3}"), 0);
	ck_assert_int_eq(handle(HEAD "\"type\":\"lft_change\",\"switches\":9,\"blocks\":9,"
				"\"top_changes\":0,\"after\":\"heavy sweep\"}"), 0);
	ck_assert_int_eq(handle(HEAD "\"type\":\"sm_state\",\"state\":\"master\","
				"\"old\":\"discovering\"}"), 0);
	/* Logged only, and types of a newer plugin: nothing stored. */
	ck_assert_int_eq(handle(HEAD "\"type\":\"heavy_sweep\",\"discovery_ms\":3}"), 0);
	ck_assert_int_eq(handle(HEAD "\"type\":\"something_new\"}"), 0);

	ev = events("osm_subnet_up");
	ck_assert_uint_eq(json_array_size(ev), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "new")),
			 "up: 44 nodes, 12 switches, 44 ports");
	json_decref(ev);
	ev = events("osm_trap");
	ck_assert_uint_eq(json_array_size(ev), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "severity")),
			 "warning");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "subject")),
			 "lid 3");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "new")),
			 "trap 128: link state change");
	json_decref(ev);
	ev = events("osm_lft_change");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "new")),
			 "9 switches, 9 LFT blocks");
	json_decref(ev);
	ev = events("osm_sm_state");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "old")),
			 "discovering");
	json_decref(ev);
	ev = events("something_new");
	ck_assert_uint_eq(json_array_size(ev), 0);
	json_decref(ev);
}
END_TEST

/* The LFT change hook (daemon/ar/ar_apply.c programs AR again on it): called
 * with the reporting OpenSM's GUID for a change of some blocks, not for a
 * change of none, nor for other reports. */
static unsigned hook_calls;
static uint64_t hook_guid;

static void hook(void *arg, uint64_t sm_guid)
{
	ck_assert_ptr_eq(arg, &hook_calls);
	hook_calls++;
	hook_guid = sm_guid;
}

START_TEST(an_lft_change_of_some_blocks_calls_the_hook_with_the_sm)
{
	osm_report_on_lft_change(rep, hook, &hook_calls);
	ck_assert_int_eq(handle(HEAD "\"type\":\"lft_change\",\"switches\":3,\"blocks\":0,"
				"\"top_changes\":0,\"after\":\"heavy sweep\"}"), 0);
	ck_assert_int_eq(handle(HEAD "\"type\":\"subnet_up\",\"nodes\":4,\"switches\":1,"
				"\"ports\":4,\"gids_in\":0,\"gids_out\":0}"), 0);
	ck_assert_int_eq(handle(run_ok), 0);
	ck_assert_uint_eq(hook_calls, 0);
	ck_assert_int_eq(handle(HEAD "\"type\":\"lft_change\",\"switches\":2,\"blocks\":5,"
				"\"top_changes\":0,\"after\":\"heavy sweep\"}"), 0);
	ck_assert_uint_eq(hook_calls, 1);
	ck_assert_uint_eq(hook_guid, 0x100001);
}
END_TEST

/* osm_report_on_run's listener: the runs it heard. */
static struct osm_run_info heard[4];
static char heard_engine[4][32];
static unsigned n_heard;

static void run_hook(void *arg, const struct osm_run_info *run)
{
	ck_assert_ptr_eq(arg, &n_heard);
	ck_assert_uint_lt(n_heard, 4);
	heard[n_heard] = *run;
	snprintf(heard_engine[n_heard], sizeof(heard_engine[0]), "%s", run->engine);
	n_heard++;
}

START_TEST(every_run_reaches_the_run_hook_with_its_isolated_set)
{
	static const char run_iso[] = HEAD "\"type\":\"routing_run\",\"engine\":\"loom-ftree\","
		"\"routed_by\":\"reroute\",\"result\":\"ok\",\"reason\":null,\"note\":\"\","
		"\"started\":1700000000.25,\"duration_ms\":250,\"vls\":1,\"switches\":12,"
		"\"ca_ports\":32,\"entries_routed\":528,\"entries_unreachable\":0,"
		"\"isolated_version\":9223372036854775807,\"isolated\":2,\"metrics\":null}";
	static const char run_failed[] = HEAD "\"type\":\"routing_run\",\"engine\":\"loom\","
		"\"routed_by\":null,\"result\":\"failed\",\"reason\":\"no memory\",\"note\":\"\","
		"\"started\":1700000000.25,\"duration_ms\":1,\"vls\":1,\"switches\":0,"
		"\"ca_ports\":0,\"entries_routed\":0,\"entries_unreachable\":0,"
		"\"isolated_version\":7,\"isolated\":0,\"metrics\":null}";
	static const char *const bad[] = {
		HEAD "\"type\":\"routing_run\",\"engine\":\"loom\",\"result\":\"ok\","
		"\"duration_ms\":1,\"vls\":1,\"switches\":1,\"ca_ports\":1,\"entries_routed\":1,"
		"\"entries_unreachable\":0,\"isolated_version\":\"7\",\"isolated\":1}",
		HEAD "\"type\":\"routing_run\",\"engine\":\"loom\",\"result\":\"ok\","
		"\"duration_ms\":1,\"vls\":1,\"switches\":1,\"ca_ports\":1,\"entries_routed\":1,"
		"\"entries_unreachable\":0,\"isolated_version\":7}",
		HEAD "\"type\":\"routing_run\",\"engine\":\"loom\",\"result\":\"ok\","
		"\"duration_ms\":1,\"vls\":1,\"switches\":1,\"ca_ports\":1,\"entries_routed\":1,"
		"\"entries_unreachable\":0,\"isolated_version\":7,\"isolated\":-1}",
	};

	n_heard = 0;
	osm_report_on_run(rep, run_hook, &n_heard);
	/* An older plugin: no isolated fields, version 0. */
	ck_assert_int_eq(handle(run_ok), 0);
	ck_assert_int_eq(handle(run_iso), 0);
	ck_assert_int_eq(handle(run_failed), 0);
	/* Other reports, and refused runs, are not runs. */
	ck_assert_int_eq(handle(HEAD "\"type\":\"subnet_up\",\"nodes\":4,\"switches\":1,"
				"\"ports\":4,\"gids_in\":0,\"gids_out\":0}"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(handle(bad[i]) == -EINVAL, "accepted: %s", bad[i]);
	ck_assert_uint_eq(n_heard, 3);
	ck_assert_str_eq(heard_engine[0], "loom");
	ck_assert_int_eq(heard[0].ok, 1);
	ck_assert_uint_eq(heard[0].isolated_version, 0);
	ck_assert_uint_eq(heard[0].isolated, 0);
	ck_assert_str_eq(heard_engine[1], "loom-ftree");
	ck_assert_uint_eq(heard[1].isolated_version, INT64_MAX);  /* jansson: int64 */
	ck_assert_uint_eq(heard[1].isolated, 2);
	ck_assert_double_eq_tol(heard[1].secs, 0.25, 1e-9);
	ck_assert_int_eq(heard[2].ok, 0);
	ck_assert_uint_eq(heard[2].isolated_version, 7);
}
END_TEST

START_TEST(malformed_reports_are_refused_and_not_stored)
{
	static const char *const bad[] = {
		"not json",
		"[1,2]",
		/* another version */
		"{\"v\":2,\"type\":\"subnet_up\",\"time\":1,\"pid\":1,\"sm_guid\":\"0x1\"}",
		/* no SM GUID */
		"{\"v\":1,\"type\":\"subnet_up\",\"time\":1,\"pid\":1}",
		/* a run without its result */
		HEAD "\"type\":\"routing_run\",\"engine\":\"loom\",\"duration_ms\":1,\"vls\":1,"
		"\"switches\":1,\"ca_ports\":1,\"entries_routed\":1,\"entries_unreachable\":0}",
		/* a run with a negative count */
		HEAD "\"type\":\"routing_run\",\"engine\":\"loom\",\"result\":\"ok\","
		"\"duration_ms\":1,\"vls\":1,\"switches\":-1,\"ca_ports\":1,\"entries_routed\":1,"
		"\"entries_unreachable\":0}",
		/* a trap without its number */
		HEAD "\"type\":\"trap\",\"generic\":true,\"issuer_lid\":3}",
	};
	json_t *list, *ev;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(handle(bad[i]) == -EINVAL, "accepted: %s", bad[i]);
	list = runs();
	ck_assert_uint_eq(json_array_size(list), 0);
	json_decref(list);
	ck_assert_int_eq(dbq_events(store_db(st), 0, NULL, 0, &ev, err, sizeof(err)), 0);
	ck_assert_uint_eq(json_array_size(ev), 0);
	json_decref(ev);
}
END_TEST

START_TEST(stale_socket_is_replaced_live_one_refused_removed_at_free)
{
	char err[256] = "";
	struct osm_report *other;

	/* Live: ours is bound there. */
	other = osm_report_new(base, sock_path, st, err, sizeof(err));
	ck_assert_ptr_null(other);
	ck_assert_msg(strstr(err, "another loomd"), "%s", err);
	/* Stale: a socket file nobody is bound to (our fd closed, file left). */
	osm_report_free(rep);
	rep = NULL;
	ck_assert_int_ne(access(sock_path, F_OK), 0);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

		memcpy(sa.sun_path, sock_path, strlen(sock_path));
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		close(fd);
	}
	rep = osm_report_new(base, sock_path, st, err, sizeof(err));
	ck_assert_msg(rep != NULL, "%s", err);
}
END_TEST

/* A report sent from fd (bound or not), handled on the loop. */
static void report_from(int fd, const char *msg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memcpy(sa.sun_path, sock_path, strlen(sock_path));
	ck_assert_int_eq(sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa, sizeof(sa)),
			 (ssize_t)strlen(msg));
	event_base_loop(base, EVLOOP_ONCE);
}

START_TEST(a_plugin_reporting_from_its_own_address_gets_the_sweep_request)
{
	int plain = socket(AF_UNIX, SOCK_DGRAM, 0), plugin = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct sockaddr_un from;
	socklen_t from_len = sizeof(from);
	struct osm_report_peer peer;
	char buf[512];
	ssize_t n;

	/* an unbound sender (an older plugin) cannot be answered */
	report_from(plain, run_ok);
	ck_assert_int_eq(osm_report_peer(rep, &peer), -ENOENT);
	ck_assert_int_eq(osm_report_peer(NULL, &peer), -ENOENT);
	/* autobound (an abstract name), as libloomosm.so's socket; a refused
	 * report does not make it the one asked */
	ck_assert_int_eq(bind(plugin, (struct sockaddr *)&(struct sockaddr_un){ .sun_family =
			      AF_UNIX }, sizeof(sa_family_t)), 0);
	report_from(plugin, "{\"v\":2}");
	ck_assert_int_eq(osm_report_peer(rep, &peer), -ENOENT);
	report_from(plugin, run_ok);
	ck_assert_int_eq(osm_report_peer(rep, &peer), 0);
	ck_assert_int_eq(peer.pid, 42);
	ck_assert_int_eq(osm_report_ask_heavy_sweep(&peer, "tenants"), 0);
	n = recvfrom(plugin, buf, sizeof(buf) - 1, MSG_DONTWAIT, (struct sockaddr *)&from,
		     &from_len);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "{\"v\":1,\"type\":\"heavy_sweep\",\"why\":\"tenants\"}");
	/* from the report socket itself: what the plugin accepts */
	ck_assert_str_eq(from.sun_path, sock_path);
	/* the isolated links changed: a reroute, the same way */
	ck_assert_int_eq(osm_report_ask_reroute(&peer, "isolated links version 3"), 0);
	n = recv(plugin, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "{\"v\":1,\"type\":\"reroute\",\"why\":\"isolated links version 3\"}");
	/* that plugin gone: the request says so */
	close(plugin);
	ck_assert_int_eq(osm_report_ask_heavy_sweep(&peer, "tenants"), -ECONNREFUSED);
	close(plain);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("osm_report");
	TCase *tc = tcase_create("osm_report");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, run_sent_to_the_socket_is_stored_and_listed);
	tcase_add_test(tc, failed_run_is_stored_with_a_warning_event);
	tcase_add_test(tc, events_are_stored_by_kind);
	tcase_add_test(tc, an_lft_change_of_some_blocks_calls_the_hook_with_the_sm);
	tcase_add_test(tc, every_run_reaches_the_run_hook_with_its_isolated_set);
	tcase_add_test(tc, malformed_reports_are_refused_and_not_stored);
	tcase_add_test(tc, stale_socket_is_replaced_live_one_refused_removed_at_free);
	tcase_add_test(tc, a_plugin_reporting_from_its_own_address_gets_the_sweep_request);
	suite_add_tcase(s, tc);
	return check_run(s);
}
