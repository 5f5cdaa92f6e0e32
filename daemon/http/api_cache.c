/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_cache.c: renders shared by reference, kept by data
 * version, and the flights that make them once (see api_cache.h). */
#include "autoconf.h"
#include "daemon/http/api_cache.h"
#include "daemon/http/api_impl.h"
#include "daemon/http/http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "lib/util/log.h"
#include "lib/util/proto.h"

struct api_render {
	size_t refs;
	char *body;          /* the JSON text */
	size_t len;
	int list;
	size_t n;            /* list: items; item i is body[off[i], off[i + 1] - 1) */
	size_t *off;         /* list: n + 1 offsets */
};

#define CACHE_BUCKETS 4096      /* kept renders hashed by key */

struct kept {
	struct kept *prev, *next;   /* most recently used first */
	struct kept *hnext;         /* its bucket's chain */
	unsigned hash;
	char *key;
	unsigned version;
	struct api_render *r;
};

struct waiter {
	struct waiter *next;
	void *arg;
	api_cache_done_fn done;
};

struct flight {
	struct flight *next;
	char *key;
	unsigned version;
	struct waiter *waiters;   /* in arrival order */
	struct waiter **tail;
	size_t n_waiters;
};

struct api_cache {
	size_t max_bytes, bytes, n_kept;
	struct kept *head, *tail;
	struct kept *buckets[CACHE_BUCKETS];
	struct flight *flights;
	size_t n_flights, n_waiters;
	unsigned long long hits, misses;
};

/* ---- renders ------------------------------------------------------------------------------ */

struct text {
	char *p;
	size_t len, cap;
	int over;
};

static int text_add(const char *buf, size_t size, void *data)
{
	struct text *t = data;

	if (t->len + size > PROTO_MAX_RESPONSE) {
		t->over = 1;
		return -1;
	}
	if (t->len + size > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *p;

		while (cap < t->len + size)
			cap *= 2;
		if (!(p = realloc(t->p, cap)))
			return -1;
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, buf, size);
	t->len += size;
	return 0;
}

struct api_render *api_render_new(const json_t *v, int list, int *too_large)
{
	struct api_render *r = calloc(1, sizeof(*r));
	struct text t = { 0 };
	size_t i;
	json_t *item;

	*too_large = 0;
	if (!r)
		return NULL;
	r->refs = 1;
	if (list && json_is_array(v)) {
		r->list = 1;
		r->n = json_array_size(v);
		if (!(r->off = malloc((r->n + 1) * sizeof(*r->off))) || text_add("[", 1, &t) < 0)
			goto fail;
		json_array_foreach(v, i, item) {
			if ((i && text_add(",", 1, &t) < 0))
				goto fail;
			r->off[i] = t.len;
			if (json_dump_callback(item, text_add, &t, JSON_COMPACT | JSON_ENCODE_ANY) < 0)
				goto fail;
		}
		/* the last item ends before "]" as the others before their "," */
		r->off[r->n] = t.len + 1;
		if (text_add("]", 1, &t) < 0)
			goto fail;
	} else if (json_dump_callback(v, text_add, &t, JSON_COMPACT | JSON_ENCODE_ANY) < 0) {
		goto fail;
	}
	r->body = t.p;
	r->len = t.len;
	return r;
fail:
	*too_large = t.over;
	free(t.p);
	free(r->off);
	free(r);
	return NULL;
}

struct api_render *api_render_ref(struct api_render *r)
{
	r->refs++;
	return r;
}

void api_render_unref(struct api_render *r)
{
	if (!r || --r->refs)
		return;
	free(r->body);
	free(r->off);
	free(r);
}

size_t api_render_count(const struct api_render *r)
{
	return r->list ? r->n : 0;
}

static void body_unref(const void *data, size_t len, void *extra)
{
	(void)data;
	(void)len;
	api_render_unref(extra);
}

/* Add r->body[from, to) to b by reference. */
static int add_slice(struct evbuffer *b, struct api_render *r, size_t from, size_t to)
{
	if (to <= from)
		return 0;
	api_render_ref(r);
	if (evbuffer_add_reference(b, r->body + from, to - from, body_unref, r) < 0) {
		api_render_unref(r);
		return -ENOMEM;
	}
	return 0;
}

int api_render_page(struct api_render *r, long long limit, long long offset,
		    struct evbuffer *b, size_t *next)
{
	size_t from, n;
	int rc;

	*next = 0;
	if (!r->list)
		return add_slice(b, r, 0, r->len);
	from = offset < 0 || (size_t)offset > r->n ? r->n : (size_t)offset;
	n = limit < 0 || (size_t)limit > r->n - from ? r->n - from : (size_t)limit;
	if (from + n < r->n)
		*next = from + n;
	if (from == 0 && n == r->n)
		return add_slice(b, r, 0, r->len);
	if ((rc = evbuffer_add(b, "[", 1)) == 0 && n)
		rc = add_slice(b, r, r->off[from], r->off[from + n] - 1);
	return rc == 0 ? evbuffer_add(b, "]", 1) : rc;
}

void api_render_send(struct evhttp_request *req, struct api_render *r, long long limit,
		     long long offset, const char *link, const char *etag)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	struct evbuffer *b = evbuffer_new();
	size_t next = 0;
	int rc = b ? api_render_page(r, limit, offset, b, &next) : -ENOMEM;

	if (rc == 0)
		rc = evbuffer_add(b, "\n", 1);
	if (rc < 0) {
		if (b)
			evbuffer_free(b);
		evhttp_send_error(req, 500, NULL);
		return;
	}
	if (r->list) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%zu", r->n);
		evhttp_add_header(h, "X-Total-Count", buf);
	}
	if (next && link) {
		char *l = NULL;

		if (asprintf(&l, "<%s%slimit=%lld&offset=%zu>; rel=\"next\"", link,
			     strchr(link, '?') ? "&" : "?", limit, next) > 0) {
			evhttp_add_header(h, "Link", l);
			free(l);
		}
	}
	evhttp_add_header(h, "Content-Type", "application/json");
	if (etag)
		evhttp_add_header(h, "ETag", etag);
	api_send_headers(req);
	http_send(req, 200, "OK", b);   /* HEAD: headers only */
	evbuffer_free(b);
}

/* ---- kept renders ------------------------------------------------------------------------- */

static size_t kept_bytes(const struct kept *k)
{
	return k->r->len + (k->r->list ? (k->r->n + 1) * sizeof(size_t) : 0) + strlen(k->key) +
	       sizeof(*k) + sizeof(*k->r);
}

static void kept_unlink(struct api_cache *c, struct kept *k)
{
	if (k->prev)
		k->prev->next = k->next;
	else
		c->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	else
		c->tail = k->prev;
	k->prev = k->next = NULL;
}

static void kept_push(struct api_cache *c, struct kept *k)
{
	k->prev = NULL;
	k->next = c->head;
	if (c->head)
		c->head->prev = k;
	c->head = k;
	if (!c->tail)
		c->tail = k;
}

static unsigned key_hash(const char *key)
{
	unsigned h = 2166136261u;   /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static void kept_drop(struct api_cache *c, struct kept *k)
{
	struct kept **b = &c->buckets[k->hash % CACHE_BUCKETS];

	while (*b != k)
		b = &(*b)->hnext;
	*b = k->hnext;
	kept_unlink(c, k);
	c->bytes -= kept_bytes(k);
	c->n_kept--;
	api_render_unref(k->r);   /* responses still sending it keep theirs */
	free(k->key);
	free(k);
}

static struct kept *kept_find(struct api_cache *c, const char *key)
{
	unsigned h = key_hash(key);

	for (struct kept *k = c->buckets[h % CACHE_BUCKETS]; k; k = k->hnext)
		if (k->hash == h && !strcmp(k->key, key))
			return k;
	return NULL;
}

static void keep(struct api_cache *c, const char *key, unsigned version, struct api_render *r)
{
	struct kept *k = kept_find(c, key);

	if (k)
		kept_drop(c, k);
	if (!(k = calloc(1, sizeof(*k))) || !(k->key = strdup(key))) {
		free(k);
		return;
	}
	k->version = version;
	k->hash = key_hash(key);
	k->r = api_render_ref(r);
	if (kept_bytes(k) > c->max_bytes) {
		api_render_unref(k->r);
		free(k->key);
		free(k);
		return;
	}
	kept_push(c, k);
	k->hnext = c->buckets[k->hash % CACHE_BUCKETS];
	c->buckets[k->hash % CACHE_BUCKETS] = k;
	c->bytes += kept_bytes(k);
	c->n_kept++;
	while (c->bytes > c->max_bytes && c->tail != k)
		kept_drop(c, c->tail);
}

struct api_cache *api_cache_new(size_t max_bytes)
{
	struct api_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->max_bytes = max_bytes;
	return c;
}

static void flight_free(struct flight *f)
{
	for (struct waiter *w = f->waiters, *next; w; w = next) {
		next = w->next;
		free(w);
	}
	free(f->key);
	free(f);
}

void api_cache_free(struct api_cache *c)
{
	if (!c)
		return;
	while (c->head)
		kept_drop(c, c->head);
	for (struct flight *f = c->flights, *next; f; f = next) {
		next = f->next;
		flight_free(f);
	}
	free(c);
}

struct api_render *api_cache_get(struct api_cache *c, const char *key, unsigned version)
{
	struct kept *k = kept_find(c, key);

	if (!k || k->version != version) {
		c->misses++;
		return NULL;
	}
	c->hits++;
	kept_unlink(c, k);
	kept_push(c, k);
	return api_render_ref(k->r);
}

/* ---- flights ------------------------------------------------------------------------------ */

static struct flight **flight_find(struct api_cache *c, const char *key, unsigned version)
{
	struct flight **f;

	for (f = &c->flights; *f; f = &(*f)->next)
		if ((*f)->version == version && !strcmp((*f)->key, key))
			break;
	return f;
}

int api_cache_wait(struct api_cache *c, const char *key, unsigned version, void *arg,
		   api_cache_done_fn done)
{
	struct flight **fp = flight_find(c, key, version), *f = *fp;
	struct waiter *w = calloc(1, sizeof(*w));
	int joined = f != NULL;

	if (!w)
		return -ENOMEM;
	if (!f) {
		if (!(f = calloc(1, sizeof(*f))) || !(f->key = strdup(key))) {
			free(f);
			free(w);
			return -ENOMEM;
		}
		f->version = version;
		f->tail = &f->waiters;
		f->next = c->flights;
		c->flights = f;
		c->n_flights++;
	}
	w->arg = arg;
	w->done = done;
	*f->tail = w;
	f->tail = &w->next;
	f->n_waiters++;
	c->n_waiters++;
	return joined;
}

void api_cache_land(struct api_cache *c, const char *key, unsigned version,
		    struct api_render *r, json_t *error)
{
	struct flight **fp = flight_find(c, key, version), *f = *fp;

	if (r)
		keep(c, key, version, r);
	if (!f)
		return;
	*fp = f->next;       /* off the list first: a done() may start another */
	c->n_flights--;
	c->n_waiters -= f->n_waiters;
	for (struct waiter *w = f->waiters; w; w = w->next)
		w->done(w->arg, r, error);
	flight_free(f);
}

void api_cache_usage(const struct api_cache *c, struct api_cache_usage *u)
{
	memset(u, 0, sizeof(*u));
	if (!c)
		return;
	u->renders = c->n_kept;
	u->bytes = c->bytes;
	u->flights = c->n_flights;
	u->waiters = c->n_waiters;
	u->hits = c->hits;
	u->misses = c->misses;
}
