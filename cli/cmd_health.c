/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_health.c: `loomctl health [--subnet NAME] [--top N] [--window S]`:
 * the fabric's health from loomd's last counters reads (issue 19): the
 * alarms the counters raised (link_errors, link_congested, link_flapped,
 * counters_unreadable) with what raised them, the worst links by errors (in
 * the last read, then those whose errors moved within telemetry.window_s or
 * --window, with the error counters' values; issue 39) and by congestion (PortXmitWait per second), and the ports whose counters are
 * stale, each with the port at the other end and the jobs (tenants) whose
 * routes cross that link (lib/db/job_db.h). Exit 1 when an alarm is
 * raised, as `qos status` does when a switch drifted; --db answers the same
 * without loomd. */
#include "autoconf.h"
#include "loomctl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The jobs (tenants) whose paths cross the port's link (lib/db/job_db.h). */
static const char *jobs_cell(const json_t *row, char *buf, size_t len)
{
	output_words(json_object_get(row, "jobs"), 0, buf, len);
	return buf;
}

static void port_cell(const json_t *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%lld", output_str(p, "node"), output_int(p, "port"));
}

static const char *peer_cell(const json_t *p)
{
	const char *s = json_string_value(json_object_get(p, "peer"));

	return s ? s : "-";
}

/* One section: its title, then a table of its rows or "none". */
static int section(const char *title, const json_t *rows, int ncols, const char *const *hdr,
		   void (*cells)(const json_t *row, char bufs[][256], const char **out))
{
	struct output_table *t;
	const json_t *r;
	size_t i;

	printf("\n%s\n", title);
	if (!json_array_size(rows)) {
		printf("  none\n");
		return 0;
	}
	t = output_table_new(ncols, hdr);
	json_array_foreach(rows, i, r) {
		char bufs[8][256];
		const char *row[8];

		cells(r, bufs, row);
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

static void alarm_cells(const json_t *a, char b[][256], const char **row)
{
	port_cell(a, b[0], sizeof(b[0]));
	row[0] = output_str(a, "kind");
	row[1] = b[0];
	row[2] = peer_cell(a);
	row[3] = output_str(a, "since");
	if (output_int(a, "clearing"))
		snprintf(b[1], sizeof(b[1]), "%s (calm %lld reads)", output_str(a, "why"),
			 output_int(a, "clearing"));
	else
		snprintf(b[1], sizeof(b[1]), "%s", output_str(a, "why"));
	row[4] = b[1];
	row[5] = jobs_cell(a, b[2], sizeof(b[2]));
}

static void error_cells(const json_t *e, char b[][256], const char **row)
{
	const json_t *moved = json_object_get(e, "moved"), *v;
	const int lower = json_is_true(json_object_get(e, "lower_bound"));
	const char *name;
	size_t at = 0;

	port_cell(e, b[0], sizeof(b[0]));
	if (output_int(e, "errors") || !json_is_string(json_object_get(e, "last_error")))
		snprintf(b[1], sizeof(b[1]), "%s%lld", lower ? ">=" : "", output_int(e, "errors"));
	else    /* quiet in the last read, not within the window */
		snprintf(b[1], sizeof(b[1]), "0 (%lld at %s)", output_int(e, "last_errors"),
			 output_str(e, "last_error"));
	b[2][0] = '\0';
	json_object_foreach((json_t *)moved, name, v) {
		int w = snprintf(b[2] + at, sizeof(b[2]) - at, "%s%s+%lld", at ? " " : "", name,
				 (long long)json_integer_value(v));

		if (w < 0 || (size_t)w >= sizeof(b[2]) - at)
			break;
		at += (size_t)w;
	}
	output_counts(json_object_get(e, "counts"), b[3], sizeof(b[3]));
	row[0] = b[0];
	row[1] = peer_cell(e);
	row[2] = b[1];
	row[3] = b[2];
	row[4] = b[3];
	row[5] = jobs_cell(e, b[4], sizeof(b[4]));
}

static void congestion_cells(const json_t *c, char b[][256], const char **row)
{
	const json_t *mb = json_object_get(c, "xmit_mb_s");

	port_cell(c, b[0], sizeof(b[0]));
	snprintf(b[1], sizeof(b[1]), "%.0f", json_number_value(json_object_get(c, "xmit_wait_per_s")));
	if (json_is_number(mb))
		snprintf(b[2], sizeof(b[2]), "%.2f", json_number_value(mb));
	else
		snprintf(b[2], sizeof(b[2]), "-");
	row[0] = b[0];
	row[1] = peer_cell(c);
	row[2] = b[1];
	row[3] = b[2];
	row[4] = jobs_cell(c, b[3], sizeof(b[3]));
}

static void stale_cells(const json_t *s, char b[][256], const char **row)
{
	const char *sampled = json_string_value(json_object_get(s, "sampled"));

	port_cell(s, b[0], sizeof(b[0]));
	row[0] = b[0];
	row[1] = peer_cell(s);
	row[2] = output_str(s, "reason");
	row[3] = sampled ? sampled : "never";
}

static void root_cells(const json_t *r, char b[][256], const char **row)
{
	port_cell(r, b[0], sizeof(b[0]));
	output_words(json_object_get(r, "victims"), 0, b[1], sizeof(b[1]));
	output_words(json_object_get(r, "hosts"), output_int(r, "n_hosts"), b[2], sizeof(b[2]));
	row[0] = b[0];
	row[1] = peer_cell(r);
	row[2] = b[1];
	row[3] = b[2];
	row[4] = json_is_true(json_object_get(r, "routes")) ? "tables" : "cabling only";
}

/* The roots of the congestion, per subnet with congested ports. */
static int print_trees(const json_t *trees)
{
	static const char *const hdr[] = { "ROOT", "PEER", "WAITING ON IT (nearest first)",
					   "HOSTS BEHIND IT", "FOLLOWED BY" };
	const json_t *t;
	size_t i;
	int rc = 0;

	json_array_foreach(trees, i, t) {
		char title[512], buf[1024];
		const char *when = json_string_value(json_object_get(t, "tables"));

		snprintf(title, sizeof(title), "CONGESTION ROOTS, subnet %s (%s%s)",
			 output_str(t, "subnet"), when ? "forwarding tables read " : "",
			 when ? when : output_str(t, "tables_missing"));
		rc |= section(title, json_object_get(t, "roots"), 5, hdr, root_cells);
		if (json_array_size(json_object_get(t, "loops"))) {
			output_words(json_object_get(t, "loops"), 0, buf, sizeof(buf));
			printf("  waiting on each other in a loop (a credit loop, or routes that go "
			       "round): %s\n", buf);
		}
	}
	return rc;
}

static void switch_alarm_cells(const json_t *a, char b[][256], const char **row)
{
	snprintf(b[0], sizeof(b[0]), "%s:%s", output_str(a, "switch"), output_str(a, "port"));
	if (output_int(a, "clearing"))
		snprintf(b[1], sizeof(b[1]), "%s (calm %lld reads)", output_str(a, "why"),
			 output_int(a, "clearing"));
	else
		snprintf(b[1], sizeof(b[1]), "%s", output_str(a, "why"));
	row[0] = output_str(a, "kind");
	row[1] = b[0];
	row[2] = peer_cell(a);
	row[3] = output_str(a, "since");
	row[4] = b[1];
}

static void pause_root_cells(const json_t *r, char b[][256], const char **row)
{
	snprintf(b[0], sizeof(b[0]), "%s:%s", output_str(r, "node"), output_str(r, "port"));
	output_words(json_object_get(r, "paused"), 0, b[1], sizeof(b[1]));
	row[0] = b[0];
	row[1] = json_is_true(json_object_get(r, "managed")) ? "switch (its egress is full)"
							       : "host NIC (does not drain)";
	row[2] = b[1];
}

/* The Ethernet side: the switch ports' alarms, and who pauses whom. */
static int print_switches(const json_t *res)
{
	static const char *const alarm_hdr[] = { "ALARM", "PORT", "PEER", "SINCE", "WHY" };
	static const char *const root_hdr[] = { "PAUSES WITHOUT BEING PAUSED", "WHAT",
						"PORTS IT PAUSES (nearest first)" };
	const json_t *trees = json_object_get(res, "pause_trees");
	char buf[1024];
	int rc = 0;

	if (!json_object_get(res, "switch_alarms"))
		return 0;
	rc |= section("ETHERNET SWITCH ALARMS", json_object_get(res, "switch_alarms"), 5,
		      alarm_hdr, switch_alarm_cells);
	if (!json_array_size(json_object_get(trees, "roots")) &&
	    !json_array_size(json_object_get(trees, "loops")))
		return rc;
	rc |= section("PFC PAUSES, followed back to where they start", json_object_get(trees, "roots"),
		      3, root_hdr, pause_root_cells);
	if (json_array_size(json_object_get(trees, "loops"))) {
		output_words(json_object_get(trees, "loops"), 0, buf, sizeof(buf));
		printf("  pausing each other in a loop (a PFC deadlock): %s\n", buf);
	}
	return rc;
}

static int print_health(const json_t *res)
{
	static const char *const alarm_hdr[] = { "ALARM", "PORT", "PEER", "SINCE", "WHY",
						 "JOBS" };
	static const char *const error_hdr[] = { "PORT", "PEER", "ERRORS", "COUNTERS", "TOTALS",
						 "JOBS" };
	static const char *const cong_hdr[] = { "PORT", "PEER", "XMIT-WAIT/S", "XMIT-MB/S",
						"JOBS" };
	static const char *const stale_hdr[] = { "PORT", "PEER", "REASON", "LAST-SAMPLE" };
	const json_t *r;
	size_t i;
	int rc = 0;

	json_array_foreach(json_object_get(res, "reads"), i, r)
		printf("subnet %s: counters read %s, %lld ports, %lld answered\n",
		       output_str(r, "subnet"), output_str(r, "finished"), output_int(r, "ports"),
		       output_int(r, "answered"));
	rc |= section("ALARMS", json_object_get(res, "alarms"), 6, alarm_hdr, alarm_cells);
	rc |= section("WORST LINKS BY ERRORS (last read, then the last telemetry.window_s)",
		      json_object_get(res, "errors"), 6,
		      error_hdr, error_cells);
	rc |= section("WORST LINKS BY CONGESTION (last read)", json_object_get(res, "congestion"),
		      5, cong_hdr, congestion_cells);
	rc |= section("STALE PORTS (counters not answered)", json_object_get(res, "stale"), 4,
		      stale_hdr, stale_cells);
	rc |= print_trees(json_object_get(res, "congestion_trees"));
	rc |= print_switches(res);
	return rc;
}

int cmd_health(struct loomctl *lc, int argc, char **argv)
{
	const struct option opts[] = {
		{ "subnet", required_argument, NULL, 'n' },
		{ "top", required_argument, NULL, 't' },
		{ "window", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args = json_object(), *result = NULL;
	unsigned long top;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'n') {
			json_object_set_new(args, "subnet", json_string(optarg));
		} else if (c == 't' && loomctl_parse_count(optarg, 10000, &top) == 0 && top > 0) {
			json_object_set_new(args, "top", json_integer((json_int_t)top));
		} else if (c == 'w' && loomctl_parse_count(optarg, 31 * 86400, &top) == 0 && top > 0) {
			json_object_set_new(args, "window_s", json_integer((json_int_t)top));
		} else {
			json_decref(args);
			return c == 't' ? loomctl_usage_error(lc, "health", "--top %s is not 1..10000",
							      optarg)
			       : c == 'w' ? loomctl_usage_error(lc, "health", "--window %s is not "
								"1..2678400 seconds", optarg)
					: loomctl_usage_hint();
		}
	}
	if (optind < argc) {
		json_decref(args);
		return loomctl_usage_error(lc, "health", "unexpected argument \"%s\"", argv[optind]);
	}
	if (loomctl_call(lc, "health", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_health(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		json_decref(result);
		return LOOMCTL_EXIT_FAILED;
	}
	rc = json_array_size(json_object_get(result, "alarms")) ||
	     json_array_size(json_object_get(result, "switch_alarms")) ? LOOMCTL_EXIT_FAILED
								       : LOOMCTL_EXIT_OK;
	json_decref(result);
	return rc;
}
