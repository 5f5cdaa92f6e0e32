/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_counters.c: `loomctl counters [NODE[:PORT]] [--subnet NAME]
 * [--now] [--top N] [--sort data|wait|errors] [--since-reset|--delta]`: the
 * port counters of the fabric as loomd's last read found them (issue 19),
 * like perfquery for every port at once: per port its data rates both ways,
 * PortXmitWait per second (InfiniBand's congestion signal), the error
 * counters that moved since the read before, and (TOTALS, issue 39) the
 * error counters' values as the PMA holds them, as ibqueryerrors shows them
 * (--since-reset: only those, and only ports where one is not 0; --delta:
 * without them). --now reads them first; --top/--sort only the
 * busiest ports (loomd's "counters" with "sort", as `loomctl top`); --db
 * answers from a database. A port that did not answer shows why, and its
 * last counters are marked stale, never shown as zeros. When the whole
 * fabric's counters cannot come back (too large an answer), it says how to
 * ask for less.
 * `loomctl counters --eth [SWITCH[:PORT]] [--now]`: the same for the
 * Ethernet switches (loomd's "switch_counters"): octet rates, PFC pause
 * frames per priority, ECN marks and drops per queue, the PFC watchdog's
 * storms, errors and discards, as they moved since the read before. */
#include "autoconf.h"
#include "loomctl.h"
#include "lib/telemetry/pma.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* What the table shows: the deltas and rates with the counters' values
 * (default), the deltas and rates alone (--delta, the table before issue
 * 39), or only the values of error counters not 0 (--since-reset). */
enum { VIEW_BOTH, VIEW_DELTAS, VIEW_TOTALS };

/* A rate member as text ("" when there is none): data counters count
 * 4-octet words, shown in MB/s; others per second. */
static const char *rate(const json_t *p, const char *name, int words, char *buf, size_t len)
{
	const json_t *v = json_object_get(json_object_get(p, "rates"), name);

	if (!json_is_number(v))
		return "";
	if (words)
		snprintf(buf, len, "%.2f", json_number_value(v) * 4.0 / 1e6);
	else
		snprintf(buf, len, "%.0f", json_number_value(v));
	return buf;
}

/* The error counters that moved: "PortRcvErrors+3 SymbolErrorCounter>=5",
 * ">=" for a lower bound (reset or saturated). */
static const char *errors(const json_t *p, char *buf, size_t len)
{
	const json_t *deltas = json_object_get(p, "deltas");
	size_t at = 0;

	buf[0] = '\0';
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		const char *name = pma_counter_name(c);
		const json_t *d = json_object_get(deltas, name);
		const char *state = json_string_value(json_object_get(d, "state"));
		json_int_t n = json_integer_value(json_object_get(d, "delta"));
		int w;

		if (!pma_counter_is_error(c) || !state || !n)
			continue;
		w = snprintf(buf + at, len - at, "%s%s%s%lld", at ? " " : "", name,
			     strcmp(state, "ok") ? ">=" : "+", (long long)n);
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
	return buf;
}

/* "ok", "first read", "counters reset", "saturated", or why not answered. */
static const char *state(const json_t *p, char *buf, size_t len)
{
	const json_t *deltas = json_object_get(p, "deltas"), *d;
	const char *name;
	int first = 0, reset = 0, sat = 0;

	if (!json_is_true(json_object_get(p, "answered"))) {
		snprintf(buf, len, "%s: %s", json_is_true(json_object_get(p, "stale")) ? "stale" :
			 "no counters", output_str(p, "reason"));
		return buf;
	}
	json_object_foreach((json_t *)deltas, name, d) {
		const char *s = json_string_value(json_object_get(d, "state"));

		first |= s && !strcmp(s, "first");
		reset |= s && !strcmp(s, "reset");
		sat |= s && !strcmp(s, "saturated");
	}
	snprintf(buf, len, "%s", reset ? "counters reset" : sat ? "saturated" :
		 first ? "first read" : "ok");
	return buf;
}

/* The error counters that are not 0, as the PMA holds them (since they
 * were last reset or cleared), as ibqueryerrors shows them:
 * "SymbolErrorCounter=18500 PortRcvErrors=3"; "-" when none. */
static const char *totals(const json_t *p, char *buf, size_t len)
{
	const json_t *counters = json_object_get(p, "counters");
	json_t *errs = json_object();

	for (int c = 0; errs && c < PMA_N_COUNTERS; c++) {
		const json_t *v = json_object_get(counters, pma_counter_name(c));

		if (pma_counter_is_error(c) && json_integer_value(v))
			json_object_set(errs, pma_counter_name(c), (json_t *)v);
	}
	output_counts(errs, buf, len);
	json_decref(errs);
	return buf;
}

static int print_counters(const json_t *res, int view)
{
	static const char *const hdr[] = { "NODE", "PORT", "STATE", "XMIT-MB/S", "RCV-MB/S",
					   "XMIT-WAIT/S", "ERRORS", "TOTALS" };
	static const char *const hdr_totals[] = { "NODE", "PORT", "STATE", "TOTALS" };
	const json_t *r = json_object_get(res, "read"), *p;
	struct output_table *t;
	size_t i;

	printf("subnet:    %s: %lld ports, %lld answered\n", output_str(res, "subnet"),
	       output_int(r, "ports"), output_int(r, "answered"));
	printf("read:      %s, %lld PMA Gets (%lld ms a try, %lld retries, up to %lld in "
	       "flight)\n", output_str(r, "finished"), output_int(r, "mads"),
	       output_int(r, "timeout_ms"), output_int(r, "retries"), output_int(r, "in_flight"));
	t = view == VIEW_TOTALS ? output_table_new(4, hdr_totals)
				: output_table_new(view == VIEW_DELTAS ? 7 : 8, hdr);
	json_array_foreach(json_object_get(res, "ports"), i, p) {
		char port[8], st[200], x[32], rv[32], w[32], e[512], tot[512];
		const char *row[8];

		snprintf(port, sizeof(port), "%lld", output_int(p, "port"));
		row[0] = output_str(p, "node");
		row[1] = port;
		row[2] = state(p, st, sizeof(st));
		totals(p, tot, sizeof(tot));
		if (view == VIEW_TOTALS) {
			/* ibqueryerrors' list: only the ports with errors counted */
			row[3] = tot;
			if (strcmp(tot, "-"))
				output_table_add(t, row);
			continue;
		}
		row[3] = rate(p, "PortXmitData", 1, x, sizeof(x));
		row[4] = rate(p, "PortRcvData", 1, rv, sizeof(rv));
		row[5] = rate(p, "PortXmitWait", 0, w, sizeof(w));
		row[6] = errors(p, e, sizeof(e));
		row[7] = tot;
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

/* ---- --eth ---------------------------------------------------------------- */

/* The counters of deltas whose names start with prefix that moved, as
 * "<rest>+n" (">=n" for a lower bound: reset or saturated), space-separated:
 * "p3+120 p4+2" for "pfc_rx_pause.", "in_errors+3" for "" over names. */
static const char *moved(const json_t *p, const char *const *names, const char *prefix,
			 char *buf, size_t len)
{
	const json_t *deltas = json_object_get(p, "deltas"), *d;
	const char *name;
	size_t at = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)deltas, name, d) {
		const char *state = json_string_value(json_object_get(d, "state"));
		json_int_t n = json_integer_value(json_object_get(d, "delta"));
		const char *shown = name;
		int w, want = 0;

		if (prefix) {
			want = !strncmp(name, prefix, strlen(prefix));
			shown = name + strlen(prefix);
		}
		for (size_t i = 0; names && names[i]; i++)
			want |= !strcmp(name, names[i]);
		if (!want || !state || !n || (strcmp(state, "ok") && strcmp(state, "reset") &&
					     strcmp(state, "saturated")))
			continue;
		w = snprintf(buf + at, len - at, "%s%s%s%lld", at ? " " : "", shown,
			     strcmp(state, "ok") ? ">=" : "+", (long long)n);
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
	return buf;
}

/* The watchdog: "q3 storms+1 STORMED" */
static const char *watchdog(const json_t *p, char *buf, size_t len)
{
	const json_t *g = json_object_get(p, "gauges"), *v;
	const char *name;
	size_t at;

	moved(p, NULL, "pfcwd_storm_detected.", buf, len);
	at = strlen(buf);
	json_object_foreach((json_t *)g, name, v) {
		int w;

		if (strncmp(name, "pfcwd_stormed.", 14) || json_integer_value(v) != 1)
			continue;
		w = snprintf(buf + at, len - at, "%s%s stormed", at ? " " : "", name + 14);
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
	return buf;
}

static const char *octets_rate(const json_t *p, const char *name, char *buf, size_t len)
{
	const json_t *v = json_object_get(json_object_get(p, "rates"), name);

	if (!json_is_number(v))
		return "";
	snprintf(buf, len, "%.2f", json_number_value(v) / 1e6);
	return buf;
}

static int print_eth(const json_t *res)
{
	static const char *const hdr[] = { "SWITCH", "PORT", "STATE", "RX-MB/S", "TX-MB/S",
					   "PFC-RX", "PFC-TX", "ECN", "DROPS", "WATCHDOG",
					   "ERRORS" };
	static const char *const errs[] = { "in_errors", "out_errors", "in_discards",
					    "out_discards", NULL };
	const json_t *sw, *p;
	struct output_table *t;
	size_t i;

	json_array_foreach(json_object_get(res, "switches"), i, sw) {
		if (json_is_true(json_object_get(sw, "answered")))
			printf("switch:    %s (%s): read %s, %lld ports, %lld unreadable\n",
			       output_str(sw, "switch"), output_str(sw, "plugin"),
			       output_str(sw, "finished"), output_int(sw, "ports"),
			       output_int(sw, "port_errors"));
		else
			printf("switch:    %s (%s): not read at %s: %s\n", output_str(sw, "switch"),
			       output_str(sw, "plugin"), output_str(sw, "finished"),
			       output_str(sw, "reason"));
	}
	t = output_table_new(11, hdr);
	json_array_foreach(json_object_get(res, "ports"), i, p) {
		char st[300], rx[32], tx[32], prx[160], ptx[160], ecn[160], dr[160], wd[160],
			e[200];
		const char *row[11];

		row[0] = output_str(p, "switch");
		row[1] = output_str(p, "port");
		row[2] = state(p, st, sizeof(st));
		row[3] = octets_rate(p, "in_octets", rx, sizeof(rx));
		row[4] = octets_rate(p, "out_octets", tx, sizeof(tx));
		row[5] = moved(p, NULL, "pfc_rx_pause.", prx, sizeof(prx));
		row[6] = moved(p, NULL, "pfc_tx_pause.", ptx, sizeof(ptx));
		row[7] = moved(p, NULL, "ecn_marked.", ecn, sizeof(ecn));
		row[8] = moved(p, NULL, "queue_drops.", dr, sizeof(dr));
		row[9] = watchdog(p, wd, sizeof(wd));
		row[10] = moved(p, errs, NULL, e, sizeof(e));
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

/* `loomctl counters` of a whole large fabric failed in a way its size
 * explains (an answer over the protocol's limit, or one loomd gave up
 * sending: control.stall_timeout_s, control.max_output_bytes): say how to
 * ask for less. */
static void too_large_hint(const struct loomctl *lc, int rc)
{
	loomctl_error(lc, "%s; ask for less: one node or port (loomctl counters NODE[:PORT]), "
		      "one subnet (--subnet NAME), the busiest ports (loomctl counters --top 100 "
		      "[--sort data|wait|errors], or loomctl top), or every port read from the "
		      "database itself, without loomd (loomctl --db %s counters, or loom.yaml's "
		      "database.path)",
		      rc == -EMSGSIZE ? "the counters of every port are too large an answer "
		      "for loomd's control socket" : "loomd may have given up sending the "
		      "counters of every port (its log says why: control.stall_timeout_s)",
		      LOOMCTL_DEFAULT_DB);
}

/* SWITCH[:PORT] into args (SWITCH is loom.yaml's name, which has no ':'). */
static void switch_port(const char *arg, json_t *args)
{
	const char *colon = strchr(arg, ':');

	if (colon && colon[1]) {
		json_object_set_new(args, "switch", json_stringn(arg, (size_t)(colon - arg)));
		json_object_set_new(args, "port", json_string(colon + 1));
	} else {
		json_object_set_new(args, "switch", colon ? json_stringn(arg, (size_t)(colon - arg))
				    : json_string(arg));
	}
}

/* NODE[:PORT] into args: a trailing ":N" is the port. */
static int node_port(struct loomctl *lc, const char *arg, json_t *args)
{
	const char *colon = strrchr(arg, ':');
	unsigned long port;
	char *end;

	if (colon && colon[1]) {
		port = strtoul(colon + 1, &end, 10);
		if (!*end && port >= 1 && port <= 254) {
			json_object_set_new(args, "node", json_stringn(arg, (size_t)(colon - arg)));
			json_object_set_new(args, "port", json_integer((json_int_t)port));
			return 0;
		}
		if (!*end)
			return loomctl_usage_error(lc, "counters", "port %s is not 1..254",
						   colon + 1);
	}
	json_object_set_new(args, "node", json_string(arg));
	return 0;
}

int cmd_counters(struct loomctl *lc, int argc, char **argv)
{
	const struct option opts[] = {
		{ "subnet", required_argument, NULL, 'n' },
		{ "now", no_argument, NULL, 'w' },
		{ "eth", no_argument, NULL, 'e' },
		{ "top", required_argument, NULL, 't' },
		{ "sort", required_argument, NULL, 's' },
		{ "since-reset", no_argument, NULL, 'r' },
		{ "delta", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args = json_object(), *result = NULL;
	const char *sort = NULL;
	unsigned long top = 0;
	int c, rc, eth = 0, has_top = 0, whole, view = VIEW_BOTH;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'n') {
			json_object_set_new(args, "subnet", json_string(optarg));
		} else if (c == 'w') {
			json_object_set_new(args, "now", json_true());
		} else if (c == 'e') {
			eth = 1;
		} else if (c == 'r' || c == 'd') {
			if (view != VIEW_BOTH && view != (c == 'r' ? VIEW_TOTALS : VIEW_DELTAS)) {
				json_decref(args);
				return loomctl_usage_error(lc, "counters", "--since-reset or --delta, "
							   "not both");
			}
			view = c == 'r' ? VIEW_TOTALS : VIEW_DELTAS;
		} else if (c == 't') {
			if (loomctl_parse_count(optarg, 1000000, &top) < 0 || top == 0) {
				json_decref(args);
				return loomctl_usage_error(lc, "counters", "--top %s is not 1..1000000",
							   optarg);
			}
			has_top = 1;
		} else if (c == 's') {
			if (strcmp(optarg, "data") && strcmp(optarg, "wait") &&
			    strcmp(optarg, "errors")) {
				json_decref(args);
				return loomctl_usage_error(lc, "counters", "--sort %s is not data, "
							   "wait or errors", optarg);
			}
			sort = optarg;
		} else {
			json_decref(args);
			return loomctl_usage_hint();
		}
	}
	if (eth && view != VIEW_BOTH) {
		json_decref(args);
		return loomctl_usage_error(lc, "counters", "--since-reset and --delta are for "
					   "InfiniBand, not --eth");
	}
	if (eth && json_object_get(args, "subnet")) {
		json_decref(args);
		return loomctl_usage_error(lc, "counters", "--subnet is for InfiniBand, not --eth");
	}
	if ((has_top || sort) && (eth || json_object_get(args, "now"))) {
		json_decref(args);
		return loomctl_usage_error(lc, "counters", "--top and --sort choose among the "
					   "stored InfiniBand counters: not with %s",
					   eth ? "--eth" : "--now");
	}
	if (has_top || sort) {
		/* the busiest ports, sorted and cut by loomd's query (as top) */
		json_object_set_new(args, "sort", json_string(sort ? sort : "data"));
		if (has_top)
			json_object_set_new(args, "top", json_integer((json_int_t)top));
	}
	if (eth && optind < argc)
		switch_port(argv[optind++], args);
	else if (optind < argc && (rc = node_port(lc, argv[optind++], args)) != 0) {
		json_decref(args);
		return rc;
	}
	if (optind < argc) {
		json_decref(args);
		return loomctl_usage_error(lc, "counters", "unexpected argument \"%s\"",
					   argv[optind]);
	}
	if ((has_top || sort) && json_object_get(args, "node")) {
		json_decref(args);
		return loomctl_usage_error(lc, "counters", "--top and --sort are for the whole "
					   "subnet, not one node");
	}
	if (lc->db_path && json_is_true(json_object_get(args, "now"))) {
		json_decref(args);
		return loomctl_usage_error(lc, "counters", "--now needs a running loomd, not --db");
	}
	/* every port through loomd's socket: what may be too large an answer */
	whole = !eth && !lc->db_path && !json_object_get(args, "node") &&
		!json_object_get(args, "sort");
	if ((rc = loomctl_call(lc, eth ? "switch_counters" : "counters", args, &result)) < 0) {
		if (whole && (rc == -EMSGSIZE || rc == -ECONNRESET))
			too_large_hint(lc, rc);
		return LOOMCTL_EXIT_FAILED;
	}
	rc = lc->json ? output_json(result, stdout) : eth ? print_eth(result) :
		print_counters(result, view);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}
