/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/metrics_http.c: GET /metrics, the port counters in
 * Prometheus' text format (lib/db/metrics_db.h, docs/metrics.md).
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
 * With http.metrics_auth (issue 37: the fabric's layout is for the
 * scraper, not for whoever reaches the listener) a scrape needs a bearer
 * token of http.tokens_file: of any role, or of role metrics, which opens
 * /metrics and nothing of the API. The file is read here too (at start
 * and reload; a refused file keeps the tokens in force), and wrong tokens
 * count against the same per-address budget as the API's (api.h). Every
 * answer ends with loom_http_auth_failures_total, the wrong credentials
 * of the API and /metrics since loomd started.
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
 * /readyz (beside http.c's /healthz, "ok" while the loop runs) answers 200
 * once loomd.c's ready hook says so (the first sweep done; with ha, etcd
 * answering), else 503 with the reason. It is open: it says nothing of
 * the fabric. */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <zlib.h>

#include "daemon/http/config_http.h"
#include "daemon/core/event_count.h"
#include "daemon/core/store.h"
#include "daemon/core/work.h"
#include "daemon/http/api_auth.h"
#include "daemon/http/api_tokens.h"
#include "daemon/http/http.h"
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
	int auth;                     /* http.metrics_auth */
	struct api_tokens *tokens;    /* ... its tokens (NULL without it) */
	struct http_metrics_hooks hooks;
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
	struct evhttp_request **waiters;
	size_t n_waiters, cap_waiters;
};

/* One render's text, shared by its answers. */
struct body {
	char *p;
	size_t len;
	size_t refs;
};

static void body_unref(const void *data, size_t len, void *arg)
{
	struct body *b = arg;

	(void)data;
	(void)len;
	if (--b->refs == 0) {
		free(b->p);
		free(b);
	}
}

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
static void make_tail(struct http_metrics *x, struct mt_buf *out)
{
	char line[320];

	snprintf(line, sizeof(line), "# HELP loom_http_auth_failures_total Wrong credentials "
		 "sent to the HTTP API and /metrics since loomd started.\n"
		 "# TYPE loom_http_auth_failures_total counter\n"
		 "loom_http_auth_failures_total %llu\n", api_auth_failures());
	mt_puts(out, line);
	if (x->hooks.families)
		x->hooks.families(x->hooks.arg, out);
	event_count_render(out);
	metrics_self_render(out);
}

/* Whether the request's Accept-Encoding takes gzip (a "gzip;q=0" refuses). */
static int accepts_gzip(struct evhttp_request *req)
{
	const char *a = evhttp_find_header(evhttp_request_get_input_headers(req),
					   "Accept-Encoding");

	for (const char *p = a; p && (p = strcasestr(p, "gzip")); p += 4) {
		const char *q = p + 4;

		if ((p != a && !strchr(" ,", p[-1])) || (*q && !strchr(" ,;", *q)))
			continue;
		while (*q == ' ')
			q++;
		if (*q != ';')
			return 1;
		q = strchr(q, '=');
		return !(q && strtod(q + 1, NULL) == 0.0);
	}
	return 0;
}

/* The answer's headers. */
static void add_headers(struct evhttp_request *req, int auth, int gzip)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(h, "Vary", "Accept-Encoding");
	if (gzip)
		evhttp_add_header(h, "Content-Encoding", "gzip");
	if (auth)
		evhttp_add_header(h, "Cache-Control", "private, no-store");
}

static struct body *body_new(void *p, size_t len)
{
	struct body *b = calloc(1, sizeof(*b));

	if (b) {
		b->p = p;
		b->len = len;
	}
	return b;
}

static void render_done(void *job, int rc, const char *err)
{
	struct render_job *j = job;
	struct body *b = NULL, *gz = NULL;

	if (j->x->cur == j)
		j->x->cur = NULL;
	if (rc == 0 && j->n_waiters && (b = body_new(j->text.p, j->text.len))) {
		b->refs = 1;   /* this function's, dropped at its end */
		memset(&j->text, 0, sizeof(j->text));
		if (j->gz && (gz = body_new(j->gz, j->gz_len))) {
			gz->refs = 1;
			j->gz = NULL;
		}
	}
	if (rc == 0)
		log_debug("http: /metrics rendered in %.3f s, %zu bytes (gzip: %zu in %.3f s), "
			  "for %zu scrapes", j->secs, b ? b->len : j->text.len,
			  gz ? gz->len : 0, j->gz_secs, j->n_waiters);
	else
		log_warn("http: /metrics: %s", err);
	for (size_t i = 0; i < j->n_waiters; i++) {
		struct evhttp_request *req = j->waiters[i];
		int zipped = gz && accepts_gzip(req);
		struct body *send = zipped ? gz : b;
		struct evbuffer *out;

		if (!b) {
			http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable",
					"metrics not available: %s", rc < 0 ? err : "out of memory");
			continue;
		}
		send->refs++;
		if (!(out = evbuffer_new()) ||
		    evbuffer_add_reference(out, send->p, send->len, body_unref, send) < 0) {
			if (out)
				evbuffer_free(out);
			body_unref(NULL, 0, send);
			http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable",
					"out of memory");
			continue;
		}
		add_headers(req, j->x->auth, zipped);
		http_send(req, HTTP_OK, "OK", out);
		evbuffer_free(out);   /* the reference moved to the answer */
	}
	j->n_waiters = 0;
	if (b)
		body_unref(NULL, 0, b);
	if (gz)
		body_unref(NULL, 0, gz);
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

static int add_waiter(struct render_job *j, struct evhttp_request *req)
{
	if (j->n_waiters == j->cap_waiters) {
		size_t cap = j->cap_waiters ? 2 * j->cap_waiters : 4;
		struct evhttp_request **w;

		if (cap > MAX_WAITERS || !(w = realloc(j->waiters, cap * sizeof(*w))))
			return -ENOMEM;
		j->waiters = w;
		j->cap_waiters = cap;
	}
	j->waiters[j->n_waiters++] = req;
	return 0;
}

/* With http.metrics_auth: 1 when req carries a token (or, without one, a
 * verified client certificate) that opens /metrics; 0 after answering
 * 401 (or 429: the address's budget). */
static int scrape_allowed(struct http_metrics *x, struct evhttp_request *req)
{
	const char *auth = evhttp_find_header(evhttp_request_get_input_headers(req),
					      "Authorization");
	const char *secret = auth && !strncasecmp(auth, "Bearer ", 7) ? auth + 7 : NULL;
	char cn[AUTHZ_NAME_LEN];

	if (!x->auth)
		return 1;
	if (api_auth_throttled(req))
		return 0;
	while (secret && *secret == ' ')
		secret++;
	if (secret && api_tokens_for_metrics(x->tokens, secret, strlen(secret)))
		return 1;
	if (!auth && http_tls_peer_name(req, cn, sizeof(cn)) == 0 &&
	    api_tokens_cert_for_metrics(x->tokens, cn))
		return 1;
	if (auth)
		api_auth_failed(req, "a wrong /metrics token");
	evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
			  "Bearer realm=\"loom\"");
	http_reply_text(req, 401, "Unauthorized", "/metrics needs a token (http.metrics_auth): "
			"Authorization: Bearer TOKEN");
	return 0;
}

static void on_metrics(struct evhttp_request *req, void *arg)
{
	struct http_metrics *x = arg;
	struct render_job *j = x->cur;
	int rc;

	if (!scrape_allowed(x, req))
		return;
	if (j) {
		/* A render is under way: this scrape gets its text. */
		if (add_waiter(j, req) < 0)
			http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable",
					"too many scrapes waiting");
		return;
	}
	if (!(j = calloc(1, sizeof(*j))) || add_waiter(j, req) < 0) {
		free(j);
		http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable", "out of memory");
		return;
	}
	j->x = x;
	memcpy(j->db_path, x->db_path, sizeof(j->db_path));
	j->opt = x->opt;
	j->want_gzip = accepts_gzip(req);
	make_tail(x, &j->tail);
	if ((rc = work_submit(x->q, &render_ops, j)) < 0) {
		render_free(j);
		http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable",
				"cannot render the metrics now: %s", strerror(-rc));
		return;
	}
	x->cur = j;
}

static void on_readyz(struct evhttp_request *req, void *arg)
{
	struct http_metrics *x = arg;
	char why[256] = "";

	if (!x->hooks.ready || x->hooks.ready(x->hooks.arg, why, sizeof(why)))
		http_reply_text(req, HTTP_OK, "OK", "ready");
	else
		http_reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable", "not ready: %s", why);
}

void http_metrics_set_hooks(struct http_metrics *x, const struct http_metrics_hooks *h)
{
	if (x)
		x->hooks = *h;
}

/* ---- life cycle ---------------------------------------------------------------------- */

/* http.metrics_auth and its tokens: 0, or -errno with err when the file
 * is refused (the tokens in force stay; none when there were none: a
 * metrics_auth turned on by a refused reload lets no scrape in, it does
 * not leave /metrics open). */
static int load_tokens(struct http_metrics *x, const struct http_conf *conf, char *err,
		       size_t errlen)
{
	struct api_tokens *t = NULL;
	int rc;

	x->auth = conf->http_metrics_auth;
	if (x->auth && (rc = api_tokens_load(conf->http_tokens_file, &t, err, errlen)) < 0)
		return rc;
	api_tokens_free(x->tokens);
	x->tokens = t;
	return 0;
}

void http_metrics_reconfigure(struct http_metrics *x, const struct http_conf *conf)
{
	char err[PATH_MAX + 256];

	if (!x)
		return;
	if (x->q && load_tokens(x, conf, err, sizeof(err)) < 0)
		log_err("reload: http.metrics_auth: http.tokens_file %s; the /metrics tokens in "
			"force stay", err);
	x->opt.mode = conf->http_metrics_ports == 1 ? MT_PORTS_ERRORS : MT_PORTS_ALL;
	x->opt.min_xmit_wait_per_s = conf->http_metrics_min_xmit_wait;
}

struct http_metrics *http_metrics_new(struct http_mod *m, struct event_base *base,
				      const struct http_conf *conf, const char *db_path, char *err,
				      size_t errlen)
{
	struct http_metrics *x = calloc(1, sizeof(*x));

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* The database is opened once by loomd: its path does not change. */
	snprintf(x->db_path, sizeof(x->db_path), "%s", db_path);
	http_metrics_reconfigure(x, conf);
	if (load_tokens(x, conf, err, errlen) < 0) {
		free(x);
		return NULL;
	}
	if (!(x->q = work_queue_new(base, "metrics render", 1, WORK_REFUSE, err, errlen))) {
		api_tokens_free(x->tokens);
		free(x);
		return NULL;
	}
	if (http_route(m, "/metrics", HTTP_M_GET | HTTP_M_HEAD, on_metrics, x) < 0 ||
	    http_route(m, "/readyz", HTTP_M_GET | HTTP_M_HEAD, on_readyz, x) < 0) {
		snprintf(err, errlen, "cannot add the /metrics and /readyz routes");
		http_metrics_free(x);
		return NULL;
	}
	return x;
}

void http_metrics_free(struct http_metrics *x)
{
	if (!x)
		return;
	work_queue_free(x->q);  /* a render under way finishes and answers */
	api_tokens_free(x->tokens);
	free(x);
}
