/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api.c: the REST API (see api.h, docs/api.md).
 *
 * One table (api_routes.h, built from the commands' declarations in
 * lib/util/commands.c) maps a method and a path under /api/v1/ to a
 * control command and says how the path's segment, the query and the body
 * become the command's arguments. A request is authenticated, matched,
 * turned into arguments, then run through the core's ctl_call() over the
 * front end's channel (front_link.h; issue 40); the answer comes
 * back through a callback (now or later: handlers never block the loop)
 * and is encoded once, with jansson, as the socket's is.
 *
 * A call waiting for its answer is a struct call on the module's list.
 * When the client goes away first, evhttp keeps the request for us and
 * frees it when we answer (the same as /metrics does); at api_free the
 * calls still running are orphaned, their answers dropped.
 *
 * Issue 37: a request's credential is api_auth.c's (wrong ones counted per
 * client address, 429 over the budget). A query key may be given once. Every answer says nosniff and
 * Cache-Control: private, no-store (api_send_headers). */
#include "autoconf.h"
#include "daemon/http/api.h"
#include "daemon/http/api_auth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "daemon/core/authz.h"
#include "daemon/http/config_http.h"
#include "daemon/http/front_link.h"
#include "daemon/core/work.h"
#include "daemon/http/api_body.h"
#include "daemon/http/api_cache.h"
#include "daemon/http/api_impl.h"
#include "daemon/http/api_rate.h"
#include "daemon/http/api_routes.h"
#include "daemon/http/api_tokens.h"
#include "daemon/http/http.h"
#include "daemon/http/http_impl.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"
#include "lib/util/token.h"

#define API_PREFIX "/api/v1/"
#define API_MAX_CALLS 4096     /* answers awaited at once: more is 503 */
#define API_MAX_JOBS 64        /* jobs kept: running, then the newest done */
#define API_SEG_LEN 256
#define API_MAX_QUERY 32       /* query parameters: no resource takes 10 */
#define API_RENDER_OFF_LOOP 2000     /* items: a list this long renders off the loop */
#define API_CACHE_BYTES (96u << 20)   /* renders kept: a 10k-host fabric's
				       * node and link lists take 11 MB */

#define M_GET EVHTTP_REQ_GET
#define M_POST EVHTTP_REQ_POST
#define M_PUT EVHTTP_REQ_PUT
#define M_DELETE EVHTTP_REQ_DELETE

/* The routes (api_routes.h), built from the commands' declarations by the
 * first api_new: the table outlives every api, so that an orphaned call's
 * route stays. */
static struct api_route api_routes[API_MAX_ROUTES];
static size_t n_routes;
#define N_ROUTES n_routes

struct job {
	unsigned id;                /* 0: a free slot */
	char cmd[API_CMD_LEN];
	struct authz_principal who;
	int done;
	json_t *answer;             /* the protocol's answer once done */
	time_t started, ended;
};

struct call {
	struct api *api;            /* NULL once orphaned (api_free) */
	struct call *prev, *next;
	struct evhttp_request *req; /* NULL once orphaned */
	const struct api_route *route;
	unsigned job;               /* API_R_JOB: its id */
	json_int_t limit, offset;   /* API_R_LIST: the page (limit -1: all) */
	char *link;                 /* API_R_LIST: the path and query, without the page */
	char *key;                  /* kept answers: the command and arguments */
	unsigned version;           /* ... at this data version */
	int joined;                 /* waits on another call's flight (no call of its own) */
	struct evhttp_request *r202; /* API_R_JOB: its 202 is not sent yet */
};

struct api {
	struct front_link *link;    /* to the core: calls and data versions */
	struct api_tokens *tokens;
	char tokens_path[PATH_MAX];
	struct call *calls;
	size_t n_calls;
	struct job jobs[API_MAX_JOBS];
	unsigned next_job;
	struct api_rate rate;       /* what read principals spend on the fabric */
	struct api_cache *cache;    /* renders of the answers ctl lets us keep */
	struct work_queue *render;  /* long lists rendered off the loop */
	unsigned long long nonce;   /* this run's: ETags of an earlier one never match */
};

/* ---- calls --------------------------------------------------------------------------- */

/* A list answer not kept: its page, cut as a kept one's is. */
static void send_page(struct call *c, json_t *list)
{
	int too_large;
	struct api_render *r = api_render_new(list, 1, &too_large);

	if (!r) {
		api_send_error(c->req, too_large ? PROTO_ERR_TOO_LARGE : PROTO_ERR_INTERNAL, "%s",
			       too_large ? "the answer is over the control protocol's limit" :
			       "out of memory");
		return;
	}
	api_render_send(c->req, r, c->limit, c->offset, c->link, NULL);
	api_render_unref(r);
}

static void call_free(struct call *c)
{
	if (c->api) {
		if (c->prev)
			c->prev->next = c->next;
		else
			c->api->calls = c->next;
		if (c->next)
			c->next->prev = c->prev;
		c->api->n_calls--;
	}
	free(c->link);
	free(c->key);
	free(c);
}

static struct job *job_find(struct api *a, unsigned id)
{
	for (size_t i = 0; id && i < API_MAX_JOBS; i++)
		if (a->jobs[i].id == id)
			return &a->jobs[i];
	return NULL;
}

static void job_started(void *arg);

static void on_answer(json_t *answer, void *arg)
{
	struct call *c = arg;
	struct job *j;

	if (c->r202 && c->api && (j = job_find(c->api, c->job)) &&
	    (!answer || !json_is_true(json_object_get(answer, "ok")))) {
		/* Refused before it began (role, busy, the HA gate): an
		 * error, no job. */
		if (answer)
			api_send_answer_error(c->r202, answer);
		else
			api_send_error(c->r202, PROTO_ERR_INTERNAL, "out of memory");
		memset(j, 0, sizeof(*j));
		c->r202 = NULL;
		json_decref(answer);
		call_free(c);
		return;
	}
	if (c->api && (c->route->flags & API_R_JOB) && (j = job_find(c->api, c->job))) {
		j->done = 1;
		j->ended = time(NULL);
		j->answer = json_incref(answer);
		log_info("http: job %u (\"%s\" for %s) done: %s", j->id, j->cmd, j->who.how,
			 json_is_true(json_object_get(answer, "ok")) ? "ok" : "failed");
	}
	if (c->r202)   /* answered at once, and well: the job is done already */
		job_started(c);
	if (!c->req) {
		/* orphaned, or a job whose 202 has been sent */
	} else if (!answer) {
		api_send_error(c->req, PROTO_ERR_INTERNAL, "out of memory");
	} else if (c->route->flags & API_R_CALL) {
		const char *code = json_string_value(json_object_get(json_object_get(answer, "error"),
								     "code"));

		api_send_json(c->req, json_is_true(json_object_get(answer, "ok")) ? 200 :
			  api_status(code), answer);
	} else if (!json_is_true(json_object_get(answer, "ok"))) {
		api_send_answer_error(c->req, answer);
	} else if ((c->route->flags & API_R_LIST) && json_is_array(json_object_get(answer, "result"))) {
		send_page(c, json_object_get(answer, "result"));
	} else {
		json_t *r = json_object_get(answer, "result");

		api_send_json(c->req, 200, r ? r : json_null());
	}
	json_decref(answer);
	call_free(c);
}

static struct call *call_new(struct api *a, struct evhttp_request *req,
			     const struct api_route *r)
{
	struct call *c;

	if (a->n_calls >= API_MAX_CALLS || !(c = calloc(1, sizeof(*c)))) {
		api_send_error(req, PROTO_ERR_BUSY, "too many API requests under way; try again");
		return NULL;
	}
	c->api = a;
	c->req = req;
	c->route = r;
	c->limit = -1;
	c->next = a->calls;
	if (a->calls)
		a->calls->prev = c;
	a->calls = c;
	a->n_calls++;
	return c;
}

/* ---- kept answers ------------------------------------------------------------------------ */

static void etag_of(const struct api *a, unsigned version, char *out, size_t len)
{
	snprintf(out, len, "\"%llx-%x\"", a->nonce, version);
}

/* A render for call c, kept or not: answer its request and free it. */
static void on_render(void *waiter, struct api_render *r, json_t *error)
{
	struct call *c = waiter;
	char etag[64];

	if (c->req && r) {
		etag_of(c->api, c->version, etag, sizeof(etag));
		api_render_send(c->req, r, c->limit, c->offset, c->link, etag);
	} else if (c->req && error) {
		api_send_answer_error(c->req, error);
	} else if (c->req) {
		api_send_error(c->req, PROTO_ERR_INTERNAL, "out of memory");
	}
	call_free(c);
}

/* The flight of key lands: every waiter, the call that asked among them,
 * is answered and freed (key may be that call's: api_cache_land reads it
 * before it calls them). No render and no error: the render failed. */
static void land(struct api *a, const char *cmd, const char *key, unsigned version,
		 struct api_render *r, int too_large, json_t *error)
{
	json_t *e = error;

	if (!r && !e)
		e = json_pack("{s:b, s:{s:s, s:s}}", "ok", 0, "error", "code",
			      too_large ? PROTO_ERR_TOO_LARGE : PROTO_ERR_INTERNAL, "message",
			      too_large ? "the answer is over the control protocol's limit: ask "
			      "for less" : "out of memory");
	if (r)
		log_debug("http: %s rendered at data version %u: %zu items", cmd, version,
			  api_render_count(r));
	api_cache_land(a->cache, key, version, r, e);
	if (e != error)
		json_decref(e);
}

/* A long list is rendered off the loop (tens of milliseconds at 10k hosts
 * that sweeps and other clients would wait). The answer is ours alone, so
 * the worker may read it; the call that asked stays (a waiter) until the
 * flight lands, so its key does too. */
struct render_job {
	struct api *a;
	const char *cmd, *key;
	unsigned version;
	json_t *answer;
	int too_large;
	struct api_render *r;
};

static int render_run(void *arg, char *err, size_t errlen)
{
	struct render_job *j = arg;

	(void)err;
	(void)errlen;
	j->r = api_render_new(json_object_get(j->answer, "result"), 1, &j->too_large);
	return 0;
}

static void render_done(void *arg, int rc, const char *err)
{
	struct render_job *j = arg;

	(void)err;
	if (rc < 0) {   /* never ran (shutdown) */
		api_render_unref(j->r);
		j->r = NULL;
	}
	land(j->a, j->cmd, j->key, j->version, j->r, j->too_large, NULL);
}

static void render_free(void *arg)
{
	struct render_job *j = arg;

	api_render_unref(j->r);
	json_decref(j->answer);
	free(j);
}

static const struct work_ops render_ops = { render_run, render_done, render_free };

/* The answer of a flight's first call: rendered once for all its waiters. */
static void on_answer_kept(json_t *answer, void *arg)
{
	struct call *c = arg;
	struct api *a = c->api;
	struct api_render *r = NULL;
	json_t *res = json_object_get(answer, "result");
	int too_large = 0, list = (c->route->flags & API_R_LIST) && json_is_array(res);

	if (!a) {             /* api_free: its flight is gone with the cache */
		json_decref(answer);
		call_free(c);
		return;
	}
	if (!answer || !json_is_true(json_object_get(answer, "ok"))) {
		land(a, c->route->cmd, c->key, c->version, NULL, 0, answer);
		json_decref(answer);
		return;
	}
	if (list && json_array_size(res) >= API_RENDER_OFF_LOOP) {
		struct render_job *j = calloc(1, sizeof(*j));

		if (j) {
			*j = (struct render_job){ .a = a, .cmd = c->route->cmd, .key = c->key,
						  .version = c->version, .answer = answer };
			if (work_submit(a->render, &render_ops, j) == 0)
				return;
			free(j);
		}
	}
	r = api_render_new(res ? res : json_null(), list, &too_large);
	land(a, c->route->cmd, c->key, c->version, r, too_large, NULL);
	api_render_unref(r);
	json_decref(answer);
}

/* Run a read whose answers ctl lets us keep: the kept render, 304 when
 * the client has it, a flight under way to join, or a new one. */
static void run_kept(struct api *a, struct call *c, const char *name, json_t *args,
		     const struct authz_principal *who, unsigned version)
{
	const char *inm = evhttp_find_header(evhttp_request_get_input_headers(c->req),
					     "If-None-Match");
	char etag[64], *dump = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
	struct api_render *r;
	int rc;

	etag_of(a, version, etag, sizeof(etag));
	if (!dump || asprintf(&c->key, "%s %s", name, dump) < 0) {
		c->key = NULL;
		free(dump);
		api_send_error(c->req, PROTO_ERR_INTERNAL, "out of memory");
		call_free(c);
		return;
	}
	free(dump);
	c->version = version;
	if (inm && (strstr(inm, etag) || !strcmp(inm, "*"))) {
		evhttp_add_header(evhttp_request_get_output_headers(c->req), "ETag", etag);
		api_send_headers(c->req);
		evhttp_send_reply(c->req, 304, "Not Modified", NULL);
		call_free(c);
		return;
	}
	if ((r = api_cache_get(a->cache, c->key, version))) {
		api_render_send(c->req, r, c->limit, c->offset, c->link, etag);
		api_render_unref(r);
		call_free(c);
		return;
	}
	if ((rc = api_cache_wait(a->cache, c->key, version, c, on_render)) < 0) {
		api_send_error(c->req, PROTO_ERR_INTERNAL, "out of memory");
		call_free(c);
		return;
	}
	c->joined = rc == 1;
	if (!c->joined)
		front_link_call(a->link, name, args, who, on_answer_kept, NULL, c);
}

/* ---- jobs ------------------------------------------------------------------------------ */

/* A slot for a new job: a free one, else the one done longest ago; NULL
 * when every slot holds a running job. */
static struct job *api_job_new(struct api *a, const char *cmd, const struct authz_principal *who)
{
	struct job *j = NULL;

	for (size_t i = 0; i < API_MAX_JOBS; i++) {
		struct job *k = &a->jobs[i];

		if (!k->id) {
			j = k;
			break;
		}
		if (k->done && (!j || k->ended < j->ended))
			j = k;
	}
	if (!j)
		return NULL;
	json_decref(j->answer);
	memset(j, 0, sizeof(*j));
	if (++a->next_job == 0)
		a->next_job = 1;
	j->id = a->next_job;
	snprintf(j->cmd, sizeof(j->cmd), "%s", cmd);
	j->who = *who;
	j->started = time(NULL);
	return j;
}

static json_t *job_json(const struct job *j)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:I}", "id", (json_int_t)j->id, "cmd", j->cmd,
			      "state", !j->done ? "running" :
			      json_is_true(json_object_get(j->answer, "ok")) ? "succeeded" : "failed",
			      "started", (json_int_t)j->started);

	if (o && j->done) {
		json_object_set_new(o, "ended", json_integer(j->ended));
		if (json_object_get(j->answer, "result"))
			json_object_set(o, "result", json_object_get(j->answer, "result"));
		if (json_object_get(j->answer, "error"))
			json_object_set(o, "error", json_object_get(j->answer, "error"));
	}
	return o;
}

/* GET jobs/{id}: its owner's, or any admin's. */
static void get_job(struct api *a, struct evhttp_request *req, const char *seg,
		    const struct authz_principal *who)
{
	char *end;
	unsigned long id = strtoul(seg, &end, 10);
	struct job *j = *end || !*seg ? NULL : job_find(a, (unsigned)id);
	json_t *o;

	if (!j || (who->role != AUTHZ_ADMIN && strcmp(j->who.how, who->how))) {
		api_send_error(req, PROTO_ERR_NOTFOUND, "no job %s (jobs are kept until %d newer ones "
			   "are done)", seg, API_MAX_JOBS);
		return;
	}
	if (!(o = job_json(j))) {
		api_send_error(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	api_send_json(req, 200, o);
	json_decref(o);
}

/* ---- routing --------------------------------------------------------------------------- */

static int parse_int(const char *s, json_int_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

static size_t query_count(const struct evkeyvalq *kv)
{
	const struct evkeyval *e;
	size_t n = 0;

	TAILQ_FOREACH(e, kv, next)
		n++;
	return n;
}

/* A key of the query given twice (whatever it is: limit, a filter, one
 * the resource does not take), or NULL. Quadratic: for at most
 * API_MAX_QUERY keys (query_args refuses more first). */
static const char *query_twice(const struct evkeyvalq *kv)
{
	const struct evkeyval *e, *o;

	TAILQ_FOREACH(e, kv, next)
		for (o = TAILQ_NEXT(e, next); o; o = TAILQ_NEXT(o, next))
			if (!strcmp(e->key, o->key))
				return e->key;
	return NULL;
}

/* The query of a GET into args (and the page into c); 0, or -EINVAL after
 * answering 400 naming the parameter. */
static int query_args(struct evhttp_request *req, const struct api_route *r, const char *path,
		      json_t *args, struct call *c)
{
	const char *q = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	struct evkeyvalq kv;
	struct evkeyval *e;
	struct evbuffer *link = (r->flags & API_R_LIST) ? evbuffer_new() : NULL;
	int rc = 0;

	TAILQ_INIT(&kv);
	if (q && evhttp_parse_query_str(q, &kv) < 0) {
		api_send_error(req, PROTO_ERR_BADREQ, "the query string is malformed");
		if (link)
			evbuffer_free(link);
		return -EINVAL;
	}
	if (link)
		evbuffer_add_printf(link, "%s", path);
	if (query_count(&kv) > API_MAX_QUERY) {
		api_send_error(req, PROTO_ERR_BADREQ, "more than %d query parameters", API_MAX_QUERY);
		rc = -EINVAL;
		goto out;
	}
	if (query_twice(&kv)) {
		api_send_error(req, PROTO_ERR_BADREQ, "query parameter \"%.64s\" is given twice",
			       query_twice(&kv));
		rc = -EINVAL;
		goto out;
	}
	TAILQ_FOREACH(e, &kv, next) {
		char t = api_routes_param_type(r->params, e->key);
		json_int_t n;
		json_t *v = NULL;

		if (json_object_get(args, e->key)) {
			api_send_error(req, PROTO_ERR_BADREQ, "query parameter \"%.64s\" is given twice",
				   e->key);
			rc = -EINVAL;
			break;
		}
		if ((r->flags & API_R_LIST) && (!strcmp(e->key, "limit") || !strcmp(e->key, "offset"))) {
			if (parse_int(e->value, &n) < 0 || n > 1000000000) {
				api_send_error(req, PROTO_ERR_BADREQ, "query parameter \"%s\" must be an "
					   "integer from 0 to 1000000000", e->key);
				rc = -EINVAL;
				break;
			}
			*(!strcmp(e->key, "limit") ? &c->limit : &c->offset) = n;
			continue;
		}
		switch (t) {
		case 's':
			v = json_string(e->value);
			break;
		case 'i':
			if (parse_int(e->value, &n) == 0)
				v = json_integer(n);
			break;
		case 'n': {
			char *end;
			double d = strtod(e->value, &end);

			if (*e->value && !*end)
				v = json_real(d);
			break;
		}
		case 'b':
			v = !strcmp(e->value, "true") ? json_true() :
			    !strcmp(e->value, "false") ? json_false() : NULL;
			break;
		default:
			api_send_error(req, PROTO_ERR_BADREQ, "unknown query parameter \"%.64s\"%s%s%s",
				   e->key, r->params || (r->flags & API_R_LIST) ? " (takes: " : "",
				   r->params ? r->params : "",
				   (r->flags & API_R_LIST) ? (r->params ? " limit:i offset:i)" :
							  "limit:i offset:i)") :
				   r->params ? ")" : "");
			rc = -EINVAL;
			goto out;
		}
		if (!v) {
			api_send_error(req, PROTO_ERR_BADREQ, "query parameter \"%.64s\" must be %s",
				   e->key, t == 'i' ? "an integer >= 0" : t == 'n' ? "a number" :
				   t == 'b' ? "true or false" : "a string");
			rc = -EINVAL;
			goto out;
		}
		json_object_set_new(args, e->key, v);
		if (link) {
			char *enc = evhttp_encode_uri(e->value);

			evbuffer_add_printf(link, "%s%s=%s", evbuffer_get_length(link) >
					    strlen(path) ? "&" : "?", e->key, enc ? enc : "");
			free(enc);
		}
	}
out:
	evhttp_clear_headers(&kv);
	if (rc == 0 && link && c) {
		size_t n = evbuffer_get_length(link);

		if ((c->link = malloc(n + 1))) {
			evbuffer_remove(link, c->link, n);
			c->link[n] = '\0';
		}
	}
	if (link)
		evbuffer_free(link);
	return rc;
}

/* The JSON body (API_R_BODY, API_R_CALL): its bytes, NUL-terminated in a copy. */
static char *body_copy(struct evhttp_request *req, size_t *len)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	char *p;

	*len = evbuffer_get_length(in);
	if (!(p = malloc(*len + 1)))
		return NULL;
	evbuffer_copyout(in, p, *len);
	p[*len] = '\0';
	return p;
}

/* The core has begun a job's command: its 202. */
static void job_started(void *arg)
{
	struct call *c = arg;
	struct evhttp_request *req = c->r202;
	struct job *j = c->api ? job_find(c->api, c->job) : NULL;
	char loc[64];
	json_t *o;

	c->r202 = NULL;
	if (!req)
		return;
	if (!j || !(o = job_json(j))) {
		api_send_error(req, PROTO_ERR_INTERNAL, "out of memory");
		return;
	}
	snprintf(loc, sizeof(loc), API_PREFIX "jobs/%u", j->id);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Location", loc);
	api_send_json(req, 202, o);
	json_decref(o);
}

/* A read waiting for the core to say whether its answer may be kept. */
struct kept_ask {
	struct call *c;
	json_t *args;
	struct authz_principal who;
	char name[API_CMD_LEN];
};

static void on_version(void *arg, int keep, unsigned version)
{
	struct kept_ask *k = arg;
	struct call *c = k->c;

	if (!c->api || !c->req)          /* api_free meanwhile */
		call_free(c);
	else if (keep)
		run_kept(c->api, c, k->name, k->args, &k->who, version);
	else
		front_link_call(c->api->link, k->name, k->args, &k->who, on_answer, NULL, c);
	json_decref(k->args);
	free(k);
}

static void run_route(struct api *a, struct evhttp_request *req, const struct api_route *r,
		      const char *seg, const char *path, const struct authz_principal *who)
{
	char err[512], cmd[API_CMD_LEN];
	const char *name = r->cmd;
	json_t *args = NULL;
	struct call *c;
	struct job *j = NULL;

	if (r->flags & API_R_JOBS) {
		get_job(a, req, seg, who);
		return;
	}
	if (!(c = call_new(a, req, r)))
		return;
	if (r->flags & (API_R_CALL | API_R_BODY)) {
		size_t len;
		char *body = body_copy(req, &len);
		int rc = !body ? -ENOMEM : (r->flags & API_R_CALL) ?
			 api_body_call(body, len, cmd, &args, err, sizeof(err)) :
			 api_body_args(body, len, &args, err, sizeof(err));

		free(body);
		if (rc < 0) {
			api_send_error(req, rc == -ENOMEM ? PROTO_ERR_INTERNAL : PROTO_ERR_BADREQ, "%s",
				   rc == -ENOMEM ? "out of memory" : err);
			goto fail;
		}
		if (r->flags & API_R_CALL)
			name = cmd;
	} else if (r->fixed) {
		args = json_loads(r->fixed, 0, NULL);
	} else {
		args = json_object();
	}
	if (!args) {
		api_send_error(req, PROTO_ERR_INTERNAL, "out of memory");
		goto fail;
	}
	if (r->seg_arg) {
		json_t *given = json_object_get(args, r->seg_arg);

		if (given && (!json_is_string(given) || strcmp(json_string_value(given), seg))) {
			api_send_error(req, PROTO_ERR_BADREQ, "field \"%s\" of the body is not the "
				   "path's \"%s\"", r->seg_arg, seg);
			goto fail;
		}
		json_object_set_new(args, r->seg_arg, json_string(seg));
	}
	if (r->method == M_GET && query_args(req, r, path, args, c) < 0)
		goto fail;
	if (who->role == AUTHZ_READ && api_rate_spends(name, args)) {
		int wait = api_rate_take(&a->rate, who->name, time(NULL));

		if (wait > 0) {
			char after[16];

			snprintf(after, sizeof(after), "%d", wait);
			evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", after);
			api_send_error(req, "rate-limited", "%s sends MADs or switch requests: role read "
				   "may run such a command once every %d s; try again in %d s", name,
				   API_RATE_INTERVAL_S, wait);
			goto fail;
		}
	}
	if (r->flags & API_R_JOB) {
		if (!(j = api_job_new(a, name, who))) {
			api_send_error(req, PROTO_ERR_BUSY, "%d jobs are running: try again later",
				   API_MAX_JOBS);
			goto fail;
		}
		c->job = j->id;
	}
	if (j) {
		/* 202 and where to poll once the core has begun it (job_started);
		 * the call carries on without a client. A command refused at once
		 * (role, HA gate) is an error and no job (on_answer). */
		c->r202 = req;
		c->req = NULL;
		front_link_call(a->link, name, args, who, on_answer, job_started, c);
		json_decref(args);
		return;
	}
	if (r->method == M_GET && !(r->flags & API_R_JOB)) {
		struct kept_ask *k = calloc(1, sizeof(*k));

		if (!k) {
			api_send_error(req, PROTO_ERR_INTERNAL, "out of memory");
			goto fail;
		}
		k->c = c;
		k->args = args;   /* the ask's reference */
		k->who = *who;
		snprintf(k->name, sizeof(k->name), "%s", name);
		front_link_version(a->link, name, who, on_version, k);
		return;
	}
	front_link_call(a->link, name, args, who, on_answer, NULL, c);
	json_decref(args);
	return;
fail:
	json_decref(args);
	c->req = NULL;
	call_free(c);
}

static void on_api(struct evhttp_request *req, void *arg)
{
	struct api *a = arg;
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	unsigned method = (unsigned)evhttp_request_get_command(req);
	struct authz_principal who;
	char seg[API_SEG_LEN], *dec = NULL;
	const char *rel;
	int path_known = 0;

	if (!path || strncmp(path, API_PREFIX, strlen(API_PREFIX))) {
		api_send_error(req, PROTO_ERR_NOTFOUND, "not found");
		return;
	}
	if (!api_authenticate(a->tokens, req, &who))
		return;
	rel = path + strlen(API_PREFIX);
	for (size_t i = 0; i < N_ROUTES; i++) {
		const struct api_route *r = &api_routes[i];

		if (!api_routes_match(r->path, rel, seg, sizeof(seg)))
			continue;
		path_known = 1;
		if (r->method != method && !(r->method == M_GET && method == EVHTTP_REQ_HEAD))
			continue;
		if (strchr(r->path, '{') && !(dec = evhttp_uridecode(seg, 0, NULL))) {
			api_send_error(req, PROTO_ERR_INTERNAL, "out of memory");
			return;
		}
		if (dec && (strlen(dec) >= sizeof(seg) || strchr(dec, '/'))) {
			api_send_error(req, PROTO_ERR_BADREQ, "bad path segment \"%.64s\"", seg);
			free(dec);
			return;
		}
		if (dec)
			snprintf(seg, sizeof(seg), "%s", dec);
		free(dec);
		run_route(a, req, r, seg, path, &who);
		return;
	}
	if (path_known) {
		char allow[64] = "";

		for (size_t i = 0; i < N_ROUTES; i++)
			if (api_routes_match(api_routes[i].path, rel, seg, sizeof(seg)))
				snprintf(allow + strlen(allow), sizeof(allow) - strlen(allow), "%s%s",
					 allow[0] ? ", " : "",
					 api_routes[i].method == M_GET ? "GET, HEAD" :
					 api_routes[i].method == M_POST ? "POST" :
					 api_routes[i].method == M_PUT ? "PUT" : "DELETE");
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", allow);
		api_send_error(req, "method-not-allowed", "method not allowed on %s (allowed: %s)", path,
			   allow);
		return;
	}
	api_send_error(req, PROTO_ERR_NOTFOUND, "no resource %s (docs/api.md)", path);
}

/* ---- life cycle ------------------------------------------------------------------------ */

static int load_tokens(struct api *a, const struct http_conf *conf, char *err, size_t errlen)
{
	struct api_tokens *t = NULL;
	int rc = api_tokens_load(conf->http_tokens_file, &t, err, errlen);

	if (rc < 0)
		return rc;
	api_tokens_free(a->tokens);
	a->tokens = t;
	snprintf(a->tokens_path, sizeof(a->tokens_path), "%s", conf->http_tokens_file);
	log_info("http: %zu API credentials from %s", api_tokens_count(t),
		 conf->http_tokens_file);
	return 0;
}

struct api *api_new(struct event_base *base, struct http_mod *m, struct front_link *link,
		    const struct http_conf *conf, char *err, size_t errlen)
{
	struct api *a = calloc(1, sizeof(*a));

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!n_routes && api_routes_build(cmds_table(), api_routes, API_MAX_ROUTES, &n_routes, err,
					  errlen) < 0) {
		n_routes = 0;
		free(a);
		return NULL;
	}
	a->link = link;
	a->nonce = ((unsigned long long)time(NULL) << 20) ^ (unsigned long long)getpid();
	if (!(a->cache = api_cache_new(API_CACHE_BYTES)) ||
	    !(a->render = work_queue_new(base, "API render", 1, WORK_FIFO, err, errlen))) {
		if (!a->cache)
			snprintf(err, errlen, "out of memory");
		api_cache_free(a->cache);
		free(a);
		return NULL;
	}
	if (load_tokens(a, conf, err, errlen) < 0) {
		work_queue_free(a->render);
		api_cache_free(a->cache);
		free(a);
		return NULL;
	}
	if (http_route(m, API_PREFIX, HTTP_M_GET | HTTP_M_HEAD | EVHTTP_REQ_POST | EVHTTP_REQ_PUT |
		       EVHTTP_REQ_DELETE, on_api, a) < 0) {
		snprintf(err, errlen, "cannot add the " API_PREFIX " route");
		api_free(a);
		return NULL;
	}
	return a;
}

int api_reconfigure(struct api *a, const struct http_conf *conf)
{
	char err[512];

	if (!a)
		return 0;
	if (load_tokens(a, conf, err, sizeof(err)) < 0) {
		log_err("reload: http.tokens_file %s; the API tokens in force stay", err);
		return -1;
	}
	return 0;
}

void api_free(struct api *a)
{
	if (!a)
		return;
	/* Renders under way land first, to the clients still there. */
	work_queue_free(a->render);
	/* Their answers come later (front_link_free answers what is left) and go
	 * nowhere: the requests die with the connections. */
	for (struct call *c = a->calls, *next; c; c = next) {
		next = c->next;
		c->api = NULL;
		c->req = NULL;
		c->r202 = NULL;
		c->prev = c->next = NULL;
		if (c->joined)   /* no answer of its own will come */
			call_free(c);
	}
	api_cache_free(a->cache);
	for (size_t i = 0; i < API_MAX_JOBS; i++)
		json_decref(a->jobs[i].answer);
	api_tokens_free(a->tokens);
	free(a);
}
