/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_top.c: `loomctl top [--interval S] [--count N] [--sort KEY]
 * [--top N] [--subnet NAME]`: the busiest ports of the fabric from loomd's
 * last counters read, refreshed every S seconds like top(1) (issue 19).
 * On a terminal the screen is redrawn until interrupted (or N times); when
 * the output is not a terminal, N plain snapshots (default 1) follow each
 * other, so the command fits a pipe or a log. Sorted by data both ways
 * (data), PortXmitWait per second (wait) or error-counter increments
 * (errors). It only reads what loomd stored: reads happen on loomd's
 * telemetry.interval_s, and the header says when the shown one was. */
#include "autoconf.h"
#include "loomctl.h"
#include "lib/telemetry/pma.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum sort_key { SORT_DATA, SORT_WAIT, SORT_ERRORS };

struct row {
	const json_t *p;
	double data, wait, errors;
};

static double rate_of(const json_t *p, const char *name)
{
	const json_t *v = json_object_get(json_object_get(p, "rates"), name);

	return json_is_number(v) ? json_number_value(v) : -1.0;
}

static double errors_of(const json_t *p)
{
	const json_t *deltas = json_object_get(p, "deltas");
	double n = 0;

	for (int c = 0; c < PMA_N_COUNTERS; c++)
		if (pma_counter_is_error(c))
			n += (double)json_integer_value(json_object_get(
				json_object_get(deltas, pma_counter_name(c)), "delta"));
	return n;
}

static enum sort_key sort_by;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double kx = sort_by == SORT_WAIT ? x->wait : sort_by == SORT_ERRORS ? x->errors : x->data;
	double ky = sort_by == SORT_WAIT ? y->wait : sort_by == SORT_ERRORS ? y->errors : y->data;

	return (kx < ky) - (kx > ky);
}

/* A rate (v < 0: none) times scale, with `decimals` decimals, or "-". */
static void cell(char *buf, size_t len, double v, double scale, int decimals)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", decimals, v * scale);
}

static int print_top(const json_t *res, unsigned top, double interval)
{
	static const char *const hdr[] = { "NODE", "PORT", "XMIT-MB/S", "RCV-MB/S",
					   "XMIT-WAIT/S", "ERRORS", "STATE" };
	const json_t *ports = json_object_get(res, "ports"), *r = json_object_get(res, "read");
	size_t n = json_array_size(ports), shown = 0;
	struct row *rows = calloc(n ? n : 1, sizeof(*rows));
	struct output_table *t;

	if (!rows)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const json_t *p = json_array_get(ports, i);
		double x = rate_of(p, "PortXmitData"), rv = rate_of(p, "PortRcvData");

		rows[i].p = p;
		rows[i].data = x < 0 && rv < 0 ? -1.0 : (x > 0 ? x : 0) + (rv > 0 ? rv : 0);
		rows[i].wait = rate_of(p, "PortXmitWait");
		rows[i].errors = errors_of(p);
	}
	qsort(rows, n, sizeof(*rows), cmp_rows);
	printf("loomctl top: subnet %s, read %s, %lld ports (%lld stale), every %.0f s, sorted "
	       "by %s\n\n", output_str(res, "subnet"), output_str(r, "finished"),
	       output_int(r, "ports"), output_int(r, "stale"), interval,
	       sort_by == SORT_WAIT ? "xmit wait" : sort_by == SORT_ERRORS ? "errors" : "data");
	t = output_table_new(7, hdr);
	for (size_t i = 0; i < n && shown < top; i++, shown++) {
		const json_t *p = rows[i].p;
		char port[8], x[32], rv[32], w[32], e[32];
		const char *row[7];

		snprintf(port, sizeof(port), "%lld", output_int(p, "port"));
		cell(x, sizeof(x), rate_of(p, "PortXmitData"), 4.0 / 1e6, 2);
		cell(rv, sizeof(rv), rate_of(p, "PortRcvData"), 4.0 / 1e6, 2);
		cell(w, sizeof(w), rows[i].wait, 1.0, 0);
		snprintf(e, sizeof(e), "%.0f", rows[i].errors);
		row[0] = output_str(p, "node");
		row[1] = port;
		row[2] = x;
		row[3] = rv;
		row[4] = w;
		row[5] = e;
		row[6] = json_is_true(json_object_get(p, "answered")) ? "ok" : "stale";
		output_table_add(t, row);
	}
	free(rows);
	return output_table_flush(t, stdout);
}

int cmd_top(struct loomctl *lc, int argc, char **argv)
{
	const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 't' },
		{ "subnet", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long interval = 2, count = 0, top = 20;
	const char *subnet = NULL;
	int tty = isatty(STDOUT_FILENO), c;

	sort_by = SORT_DATA;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (loomctl_parse_count(optarg, 3600, &interval) < 0 || !interval)
				return loomctl_usage_error(lc, "top", "--interval %s is not 1..3600 "
							   "seconds", optarg);
			break;
		case 'c':
			if (loomctl_parse_count(optarg, 1000000, &count) < 0 || !count)
				return loomctl_usage_error(lc, "top", "--count %s is not 1..1000000",
							   optarg);
			break;
		case 't':
			if (loomctl_parse_count(optarg, 100000, &top) < 0 || !top)
				return loomctl_usage_error(lc, "top", "--top %s is not 1..100000", optarg);
			break;
		case 's':
			if (!strcmp(optarg, "data"))
				sort_by = SORT_DATA;
			else if (!strcmp(optarg, "wait"))
				sort_by = SORT_WAIT;
			else if (!strcmp(optarg, "errors"))
				sort_by = SORT_ERRORS;
			else
				return loomctl_usage_error(lc, "top", "--sort %s is not data, wait or "
							   "errors", optarg);
			break;
		case 'n':
			subnet = optarg;
			break;
		default:
			return loomctl_usage_hint();
		}
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "top", "unexpected argument \"%s\"", argv[optind]);
	if (!count && !tty)
		count = 1;  /* a pipe gets one snapshot unless it asks for more */
	for (unsigned long i = 0; !count || i < count; i++) {
		json_t *args = json_object(), *result = NULL;
		int rc;

		if (subnet)
			json_object_set_new(args, "subnet", json_string(subnet));
		/* loomd sorts and cuts: a large fabric's ports are not all sent. */
		json_object_set_new(args, "sort", json_string(sort_by == SORT_WAIT ? "wait" :
							     sort_by == SORT_ERRORS ? "errors" :
							     "data"));
		json_object_set_new(args, "top", json_integer((json_int_t)top));
		if (i)
			sleep((unsigned)interval);
		if (loomctl_call(lc, "counters", args, &result) < 0)
			return LOOMCTL_EXIT_FAILED;
		if (tty)
			fputs("\033[H\033[2J", stdout);  /* home, clear */
		else if (i)
			fputc('\n', stdout);
		rc = lc->json ? output_json(result, stdout) : print_top(result, (unsigned)top,
								      (double)interval);
		json_decref(result);
		fflush(stdout);
		if (rc < 0) {
			loomctl_error(lc, "cannot print the result");
			return LOOMCTL_EXIT_FAILED;
		}
	}
	return LOOMCTL_EXIT_OK;
}
