/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/job_history.c: see job_history.h. */
#include "autoconf.h"
#include "daemon/telemetry/job_history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/telemetry/history_prom.h"
#include "lib/db/job_history_db.h"
#include "lib/fabric/ibtypes.h"
#include "lib/telemetry/port_history.h"
#include "lib/util/clock.h"

#define PROM_TIMEOUT_MS 5000

/* One port's samples within [from, to] summed: the error deltas by
 * counter, the busiest rates; NULL when no sample falls in the window. */
static json_t *summary(const json_t *port, const json_t *samples, double from, double to)
{
	json_t *errors = json_object(), *s, *out;
	double max_wait = -1, max_rx = -1, max_tx = -1, first = 0, last = 0;
	json_int_t total = 0;
	size_t i, n = 0;

	if (!errors)
		return NULL;
	json_array_foreach(samples, i, s) {
		double ts = json_number_value(json_object_get(s, "ts"));
		const char *k;
		json_t *v;

		if (ts < from || ts > to)
			continue;
		if (!n++)
			first = ts;
		last = ts;
		if (json_is_number(json_object_get(s, "xmit_wait_per_s")) &&
		    json_number_value(json_object_get(s, "xmit_wait_per_s")) > max_wait)
			max_wait = json_number_value(json_object_get(s, "xmit_wait_per_s"));
		if (json_number_value(json_object_get(s, "rx_bytes_s")) > max_rx)
			max_rx = json_number_value(json_object_get(s, "rx_bytes_s"));
		if (json_number_value(json_object_get(s, "tx_bytes_s")) > max_tx)
			max_tx = json_number_value(json_object_get(s, "tx_bytes_s"));
		json_object_foreach(json_object_get(s, "errors"), k, v) {
			json_int_t d = json_integer_value(v);

			if (d <= 0)
				continue;
			json_object_set_new(errors, k, json_integer(
				json_integer_value(json_object_get(errors, k)) + d));
			total += d;
		}
	}
	if (!n) {
		json_decref(errors);
		return NULL;
	}
	out = json_pack("{s:O, s:O, s:O, s:I, s:f, s:f, s:I, s:o}", "name",
			json_object_get(port, "name"), "guid", json_object_get(port, "guid"),
			"port", json_object_get(port, "port"), "samples", (json_int_t)n, "first_ts",
			first, "last_ts", last, "errors_total", total, "errors", errors);
	if (out && max_wait >= 0)
		json_object_set_new(out, "max_xmit_wait_per_s", json_real(max_wait));
	if (out && max_rx >= 0)
		json_object_set_new(out, "max_rx_bytes_s", json_real(max_rx));
	if (out && max_tx >= 0)
		json_object_set_new(out, "max_tx_bytes_s", json_real(max_tx));
	return out;
}

static int cmp_errors(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "errors_total"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "errors_total"));

	return x < y ? 1 : x > y ? -1 : 0;
}

/* "counters": {"source", "note", "ports": [summary], "asked", "covered"} */
static json_t *counters(const json_t *ans, const char *prom, struct port_history *ph,
			char *why, size_t whylen)
{
	const char *subnet = json_string_value(json_object_get(ans, "subnet"));
	double from = json_number_value(json_object_get(ans, "from_ts"));
	double to = json_number_value(json_object_get(ans, "to_ts"));
	double started = clock_wall(), oldest = 0;
	json_t *ports = json_object_get(ans, "ports"), *p, **rows;
	size_t i, n = 0, asked = 0, unanswered = 0;
	json_t *out, *list;

	if (!(rows = calloc(json_array_size(ports) + 1, sizeof(*rows))))
		return NULL;
	json_array_foreach(ports, i, p) {
		const char *guid = json_string_value(json_object_get(p, "guid"));
		unsigned port = (unsigned)json_integer_value(json_object_get(p, "port"));
		json_t *samples = NULL, *s;
		uint64_t g;

		if (asked >= JOB_HISTORY_COUNTER_PORTS)
			break;
		asked++;
		if (prom[0]) {
			char err[512] = "Prometheus took longer than the answer's budget";

			if ((clock_wall() - started) * 1000 > JOB_HISTORY_PROM_BUDGET_MS ||
			    history_prom_query(prom, PROM_TIMEOUT_MS, subnet, guid, port, from, to,
					       &samples, err, sizeof(err)) < 0) {
				if (!unanswered++)
					snprintf(why, whylen, "%s", err);
				continue;
			}
		} else if (ibt_guid_parse(guid, &g) < 0 ||
			   !(samples = port_history_json(ph, subnet, g, port, 0))) {
			continue;
		}
		if (json_array_size(samples)) {
			double t0 = json_number_value(json_object_get(json_array_get(samples, 0),
								      "ts"));

			if (!oldest || t0 < oldest)
				oldest = t0;
		}
		if ((s = summary(p, samples, from, to)))
			rows[n++] = s;
		json_decref(samples);
	}
	qsort(rows, n, sizeof(*rows), cmp_errors);
	list = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(list, rows[i]);
	free(rows);
	out = json_pack("{s:s, s:o, s:I, s:I, s:I}", "source", prom[0] ? "prometheus" : "memory",
			"ports", list, "asked", (json_int_t)asked, "of",
			(json_int_t)json_array_size(ports), "unanswered", (json_int_t)unanswered);
	if (!out)
		return NULL;
	if (!n)
		json_object_set_new(out, "note", json_string("no counter history for the window"));
	else if (!prom[0] && oldest > from)
		json_object_set_new(out, "note", json_sprintf(
			"loomd's memory holds reads from %.0f s after the window's start on "
			"(telemetry.history_reads; http.prometheus_url keeps more)", oldest - from));
	if (unanswered)
		json_object_set_new(out, "error", json_string(why));
	return out;
}

int job_history_answer(sqlite3 *db, const json_t *args, const char *prom,
		       struct port_history *ph, json_t **out, char *err, size_t errlen)
{
	const json_t *from = json_object_get(args, "from"), *to = json_object_get(args, "to");
	double now = clock_wall();
	struct job_history_query q = {
		.job = json_string_value(json_object_get(args, "job")),
		.subnet = json_string_value(json_object_get(args, "subnet")),
		.from = json_is_number(from) ? json_number_value(from) : now - 3600,
		.to = json_is_number(to) ? json_number_value(to) : now,
	};
	char why[512] = "";
	json_t *c;
	int rc;

	if ((rc = job_history_db(db, &q, out, err, errlen)) < 0)
		return rc;
	if (!(c = counters(*out, prom, ph, why, sizeof(why)))) {
		json_decref(*out);
		*out = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_object_set_new(*out, "counters", c);
	return 0;
}
