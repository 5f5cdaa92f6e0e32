/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/metrics_http.c: the text of GET /metrics, the port counters
 * in Prometheus' text format (lib/db/metrics_db.h, docs/metrics.md),
 * rendered in the core for the HTTP front end, which serves it
 * (metrics_route.c; issue 40: the front end holds no database handle).
 *
 * The text is rendered from SQLite on a worker (daemon/core/work.h, a
 * queue of one: WORK_REFUSE), never on the loop. A scrape that comes while
 * a render is under way does not start another: it waits for that one and
 * gets the same text (so any number of scrapers cost one render at a
 * time; their answer is at most one render old, and the counters change
 * only every telemetry.interval_s anyway). The text is shared by the
 * answers of one render (evbuffer references, freed with the last of
 * them), so memory is one text per render still being written; a client
 * that does not read is closed by http.timeout_s.
 *
 * With http.metrics_auth a scrape needs a token (metrics_route.c, in the
 * front end, checks it); the front end's count of wrong credentials comes
 * with each scrape and becomes loom_http_auth_failures_total.
 *
 * Besides the database's families (lib/db/metrics_db.h), each render ends
 * with the daemon's own, made on the loop when the render is submitted
 * (they are as old as the text): loom_http_auth_failures_total, what
 * loomd.c's hooks add of the modules this folder does not know (HA role,
 * etcd, RoCE drift), loom_events_total (daemon/core/event_count.h) and the
 * process' (metrics_self.h). A scrape that accepts gzip (Prometheus
 * always does) gets the text compressed on the worker, once per render
 * (zlib's fastest level: an 11664-host fabric's text shrinks about 20
 * times); the others get it plain.
 *
 * http_metrics_ready answers the front end's /readyz from loomd.c's ready
 * hook (the first sweep done; with ha, etcd answering). */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <zlib.h>

#include "daemon/http/config_http.h"
#include "daemon/core/event_count.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/http/http_impl.h"
#include "daemon/http/metrics_http.h"
#include "daemon/http/metrics_self.h"
#include "lib/db/db_row.h"
#include "lib/db/metrics_db.h"
#include "lib/util/log.h"

/* Scrapes waiting for one render: more than connections can hold. */
#define MAX_WAITERS 2048

struct http_metrics {
	struct work_queue *q;
	struct render_job *cur;       /* the render under way, and who waits for it */
	char db_path[PATH_MAX];
	struct mt_options opt;
	struct http_metrics_hooks hooks;
};

struct waiter {
	http_metrics_fn fn;
	void *arg;
	int gzip;                     /* it takes the text gzip-compressed */
};

struct render_job {
	struct http_metrics *x;
	char db_path[PATH_MAX];
	struct mt_options opt;
	struct mt_buf text;
	struct mt_buf tail;           /* the daemon's families, made on the loop */
	int want_gzip;                /* a waiter at submit accepts gzip */
	unsigned char *gz;            /* the text gzip-compressed (NULL: not made) */
	size_t gz_len;
	double secs, gz_secs;
	unsigned long long auth_failures; /* the front end's, at submit */
	struct waiter *waiters;
	size_t n_waiters, cap_waiters;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the worker ------------------------------------------------------------------- */

/* j->text as one gzip member into j->gz (level 1: the fastest; a scrape
 * pays the compression once per render). -ENOMEM. */
static int compress_text(struct render_job *j)
{
	z_stream z;
	uLong bound;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	bound = deflateBound(&z, (uLong)j->text.len);
	if (!(j->gz = malloc(bound))) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)j->text.p;
	z.avail_in = (uInt)j->text.len;
	z.next_out = j->gz;
	z.avail_out = (uInt)bound;
	rc = deflate(&z, Z_FINISH);
	j->gz_len = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(j->gz);
		j->gz = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int render_run(void *job, char *err, size_t errlen)
{
	struct render_job *j = job;
	double t0 = now_s();
	struct store *st = store_open(j->db_path, err, errlen);
	int rc;

	if (!st)
		return -EIO;
	rc = metrics_db_render(store_db(st), &j->opt, &j->text, err, errlen);
	store_close(st);
	if (rc == 0) {
		mt_put(&j->text, j->tail.p ? j->tail.p : "", j->tail.len);
		if (j->text.oom)
			rc = dbq_fail(err, errlen, -ENOMEM, "out of memory for the metrics text");
	}
	j->secs = now_s() - t0;
	/* Without memory for it the text goes plain: not an error. The text
	 * is below 4 GiB (zlib's avail_in), even at 11664 hosts' 140 MB. */
	if (rc == 0 && j->want_gzip && j->text.len < UINT32_MAX && compress_text(j) == 0)
		j->gz_secs = now_s() - t0 - j->secs;
	return rc;
}

/* ---- the loop ------------------------------------------------------------------------ */

/* The daemon's families, appended to the render's text (on the loop, at
 * submit). */
static void make_tail(struct http_metrics *x, unsigned long long auth_failures,
		      struct mt_buf *out)
{
	char line[320];

	snprintf(line, sizeof(line), "# HELP loom_http_auth_failures_total Wrong credentials "
		 "sent to the HTTP API and /metrics since loomd started.\n"
		 "# TYPE loom_http_auth_failures_total counter\n"
		 "loom_http_auth_failures_total %llu\n", auth_failures);
	mt_puts(out, line);
	if (x->hooks.families)
		x->hooks.families(x->hooks.arg, out);
	event_count_render(out);
	metrics_self_render(out);
}

static void render_done(void *job, int rc, const char *err)
{
	struct render_job *j = job;

	if (j->x->cur == j)
		j->x->cur = NULL;
	if (rc == 0)
		log_debug("http: /metrics rendered in %.3f s, %zu bytes (gzip: %zu in %.3f s), "
			  "for %zu scrapes", j->secs, j->text.len, j->gz ? j->gz_len : 0,
			  j->gz_secs, j->n_waiters);
	else
		log_warn("http: /metrics: %s", err);
	for (size_t i = 0; i < j->n_waiters; i++) {
		struct waiter *w = &j->waiters[i];

		if (rc < 0)
			w->fn(w->arg, NULL, 0, 0, err);
		else if (j->text.oom)
			w->fn(w->arg, NULL, 0, 0, "out of memory");
		else if (j->gz && w->gzip)
			w->fn(w->arg, (const char *)j->gz, j->gz_len, 1, NULL);
		else
			w->fn(w->arg, j->text.p ? j->text.p : "", j->text.len, 0, NULL);
	}
	j->n_waiters = 0;
}

static void render_free(void *job)
{
	struct render_job *j = job;

	mt_buf_free(&j->text);
	mt_buf_free(&j->tail);
	free(j->gz);
	free(j->waiters);
	free(j);
}

static const struct work_ops render_ops = {
	.run = render_run, .done = render_done, .free = render_free,
};

static int add_waiter(struct render_job *j, http_metrics_fn fn, void *arg, int gzip)
{
	if (j->n_waiters == j->cap_waiters) {
		size_t cap = j->cap_waiters ? 2 * j->cap_waiters : 4;
		struct waiter *w;

		if (cap > MAX_WAITERS || !(w = realloc(j->waiters, cap * sizeof(*w))))
			return -ENOMEM;
		j->waiters = w;
		j->cap_waiters = cap;
	}
	j->waiters[j->n_waiters++] = (struct waiter){ fn, arg, gzip };
	return 0;
}

void http_metrics_render(struct http_metrics *x, int want_gzip, unsigned long long auth_failures,
			 http_metrics_fn fn, void *arg)
{
	struct render_job *j = x->cur;
	int rc;

	if (j) {
		/* A render is under way: this scrape gets its text. */
		if (add_waiter(j, fn, arg, want_gzip) < 0)
			fn(arg, NULL, 0, 0, "too many scrapes waiting");
		return;
	}
	if (!(j = calloc(1, sizeof(*j))) || add_waiter(j, fn, arg, want_gzip) < 0) {
		free(j);
		fn(arg, NULL, 0, 0, "out of memory");
		return;
	}
	j->x = x;
	memcpy(j->db_path, x->db_path, sizeof(j->db_path));
	j->opt = x->opt;
	j->want_gzip = want_gzip;
	j->auth_failures = auth_failures;
	make_tail(x, auth_failures, &j->tail);
	if ((rc = work_submit(x->q, &render_ops, j)) < 0) {
		char why[128];

		snprintf(why, sizeof(why), "cannot render the metrics now: %s", strerror(-rc));
		j->n_waiters = 0;
		render_free(j);
		fn(arg, NULL, 0, 0, why);
		return;
	}
	x->cur = j;
}

int http_metrics_ready(struct http_metrics *x, char *why, size_t len)
{
	if (why && len)
		why[0] = '\0';
	return !x || !x->hooks.ready || x->hooks.ready(x->hooks.arg, why, len);
}

void http_metrics_set_hooks(struct http_metrics *x, const struct http_metrics_hooks *h)
{
	if (x)
		x->hooks = *h;
}

/* ---- life cycle ---------------------------------------------------------------------- */

void http_metrics_reconfigure(struct http_metrics *x, const struct http_conf *conf)
{
	if (!x)
		return;
	x->opt.mode = conf->http_metrics_ports == 1 ? MT_PORTS_ERRORS : MT_PORTS_ALL;
	x->opt.min_xmit_wait_per_s = conf->http_metrics_min_xmit_wait;
}

struct http_metrics *http_metrics_new(struct event_base *base, const struct http_conf *conf,
				      const char *db_path, char *err, size_t errlen)
{
	struct http_metrics *x = calloc(1, sizeof(*x));

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* The database is opened once by loomd: its path does not change. */
	snprintf(x->db_path, sizeof(x->db_path), "%s", db_path);
	http_metrics_reconfigure(x, conf);
	if (!(x->q = work_queue_new(base, "metrics render", 1, WORK_REFUSE, err, errlen))) {
		free(x);
		return NULL;
	}
	return x;
}

void http_metrics_free(struct http_metrics *x)
{
	if (!x)
		return;
	work_queue_free(x->q);  /* a render under way finishes and answers */
	free(x);
}
