/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/history_prom.c: see history_prom.h. */
#include "autoconf.h"
#include "daemon/telemetry/history_prom.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "lib/telemetry/metrics_text.h"
#include "lib/telemetry/pma.h"

#define ANSWER_MAX (16u << 20)   /* a port's series: far less */

struct answer {
	char *buf;
	size_t len;
	int too_large;
};

static size_t take(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t add = size * n;
	char *b;

	if (a->len + add > ANSWER_MAX) {
		a->too_large = 1;
		return 0;
	}
	if (!(b = realloc(a->buf, a->len + add + 1)))
		return 0;
	memcpy(b + a->len, p, add);
	a->buf = b;
	a->len += add;
	a->buf[a->len] = '\0';
	return add;
}

/* A label value inside "...": quotes and backslashes escaped. */
static void label(char *out, size_t len, const char *v)
{
	size_t o = 0;

	for (; *v && o + 2 < len; v++) {
		if (*v == '"' || *v == '\\')
			out[o++] = '\\';
		out[o++] = *v;
	}
	out[o] = '\0';
}

/* The PMA counter a family is (loom_port_X_total), or -1. */
static int counter_of(const char *family)
{
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		if (!strcmp(mt_counter_family((enum pma_counter)c), family))
			return c;
	return -1;
}

static int ts_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The index of t in the sorted ts[n], or -1. */
static long ts_index(const double *ts, size_t n, double t)
{
	const double *hit = bsearch(&t, ts, n, sizeof(*ts), ts_cmp);

	return hit ? hit - ts : -1;
}

static json_t *sample_new(double t)
{
	char when[32];
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_pack("{s:s, s:I, s:n, s:n, s:n, s:{}}", "time", when, "ts", (json_int_t)t,
			 "rx_bytes_s", "tx_bytes_s", "xmit_wait_per_s", "errors");
}

/* The matrix's series into samples (one per point after the first of its
 * series). */
static int samples_of(const json_t *result, json_t **out, char *err, size_t errlen)
{
	size_t i, k, n = 0, cap = 0;
	double *ts = NULL;
	json_t *series, *pt;

	json_array_foreach(result, i, series)
		cap += json_array_size(json_object_get(series, "values"));
	if (cap && !(ts = malloc(cap * sizeof(*ts))))
		return -ENOMEM;
	json_array_foreach(result, i, series)
		json_array_foreach(json_object_get(series, "values"), k, pt)
			if (k > 0)
				ts[n++] = json_number_value(json_array_get(pt, 0));
	qsort(ts, n, sizeof(*ts), ts_cmp);
	k = 0;
	for (i = 0; i < n; i++)   /* unique */
		if (!k || ts[k - 1] != ts[i])
			ts[k++] = ts[i];
	n = k;
	*out = json_array();
	for (i = 0; *out && i < n; i++)
		json_array_append_new(*out, sample_new(ts[i]));
	json_array_foreach(result, i, series) {
		const char *family = json_string_value(json_object_get(
			json_object_get(series, "metric"), "__name__"));
		int c = family ? counter_of(family) : -1;
		json_t *values = json_object_get(series, "values");
		double pt0 = 0, pv = 0;

		if (c < 0)
			continue;
		json_array_foreach(values, k, pt) {
			double t = json_number_value(json_array_get(pt, 0));
			const char *s = json_string_value(json_array_get(pt, 1));
			double v = s ? strtod(s, NULL) : NAN, d = v - pv;
			long at = k > 0 ? ts_index(ts, n, t) : -1;
			json_t *smp = at >= 0 ? json_array_get(*out, (size_t)at) : NULL;

			if (d < 0)
				d = v;   /* reset: counted from zero */
			if (smp && isfinite(d) && t > pt0) {
				if (c == PMA_RCV_DATA)   /* the families are bytes already */
					json_object_set_new(smp, "rx_bytes_s", json_real(d / (t - pt0)));
				else if (c == PMA_XMIT_DATA)
					json_object_set_new(smp, "tx_bytes_s", json_real(d / (t - pt0)));
				else if (c == PMA_XMIT_WAIT)
					json_object_set_new(smp, "xmit_wait_per_s",
							    json_real(d / (t - pt0)));
				else if (pma_counter_is_error((enum pma_counter)c) && d > 0)
					json_object_set_new(json_object_get(smp, "errors"),
							    pma_counter_name((enum pma_counter)c),
							    json_integer((json_int_t)d));
			}
			pt0 = t;
			pv = v;
		}
	}
	free(ts);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int history_prom_query(const char *url, long timeout_ms, const char *subnet,
		       const char *guid, unsigned port, double since, double until,
		       json_t **out, char *err, size_t errlen)
{
	char q[512], sub[160], g[64], *eq = NULL, *full = NULL;
	double step = ceil((until - since) / HISTORY_PROM_POINTS);
	struct answer a = { NULL, 0, 0 };
	CURL *h = curl_easy_init();
	long status = 0;
	json_error_t je;
	json_t *doc = NULL;
	CURLcode cc;
	int rc = -EIO;
	size_t len;

	if (!h) {
		snprintf(err, errlen, "%s: cannot start an HTTP client", url);
		return -ENOMEM;
	}
	if (step < 1)
		step = 1;
	label(sub, sizeof(sub), subnet);
	label(g, sizeof(g), guid);
	snprintf(q, sizeof(q), "{__name__=~\"loom_port_.+_total\",subnet=\"%s\",guid=\"%s\","
		 "port=\"%u\"}", sub, g, port);
	len = strlen(url) + 3 * strlen(q) + 200;
	if (!(eq = curl_easy_escape(h, q, 0)) || !(full = malloc(len))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	snprintf(full, len, "%s%sapi/v1/query_range?query=%s&start=%.3f&end=%.3f&step=%.0f", url,
		 url[strlen(url) - 1] == '/' ? "" : "/", eq, since, until, step);
	curl_easy_setopt(h, CURLOPT_URL, full);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, take);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
	if ((cc = curl_easy_perform(h)) != CURLE_OK) {
		snprintf(err, errlen, "Prometheus at %s: %s", url,
			 a.too_large ? "an answer over 16 MiB" : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (!(doc = json_loadb(a.buf ? a.buf : "", a.len, 0, &je))) {
		snprintf(err, errlen, "Prometheus at %s: HTTP %ld, not JSON: %s", url, status,
			 je.text);
		rc = status != 200 ? -EIO : -EPROTO;
		goto out;
	}
	if (status != 200 || strcmp(json_string_value(json_object_get(doc, "status")) ?: "",
				    "success")) {
		snprintf(err, errlen, "Prometheus at %s: HTTP %ld: %s", url, status,
			 json_string_value(json_object_get(doc, "error")) ?: "no success");
		goto out;
	}
	if (!json_is_array(json_object_get(json_object_get(doc, "data"), "result"))) {
		snprintf(err, errlen, "Prometheus at %s: the answer has no data.result", url);
		rc = -EPROTO;
		goto out;
	}
	rc = samples_of(json_object_get(json_object_get(doc, "data"), "result"), out, err,
			errlen);
out:
	json_decref(doc);
	curl_free(eq);
	free(full);
	free(a.buf);
	curl_easy_cleanup(h);
	return rc;
}
