/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_cache.h: the REST API's rendered answers, and the ones it
 * keeps (issue 20's benchmark: the node and link lists of a 10k-host
 * fabric for 1000 clients).
 *
 * A render is one answer's JSON text, made once and shared, by reference,
 * by every response that sends it or a page of it: a list is rendered item
 * by item, so a page is a slice of the same bytes. Renders of read
 * commands whose answers ctl may keep (ctl_version) are kept under their
 * command and arguments with the data version they were made at, until the
 * version moves or the least recently used go over the byte budget. While
 * one is being made, the requests that want the same one wait for it (a
 * flight) instead of asking again: after each sweep a thousand pollers
 * cost one query. Loop thread only. */
#ifndef LOOMD_API_CACHE_H
#define LOOMD_API_CACHE_H

#include <stddef.h>
#include <jansson.h>

struct evhttp_request;
struct api_cache;
struct api_render;

/* ---- renders --------------------------------------------------------------------------- */

/* Render v (borrowed): a list (an array whose items pages may slice) when
 * `list`, else one value. NULL: out of memory, or over PROTO_MAX_RESPONSE
 * (*too_large set). */
struct api_render *api_render_new(const json_t *v, int list, int *too_large);
struct api_render *api_render_ref(struct api_render *r);
void api_render_unref(struct api_render *r);
/* Items of a list render (0 for a value). */
size_t api_render_count(const struct api_render *r);

/* The body of r into b, by reference: a value whole, a list's items
 * [offset, offset + limit) (limit < 0: to the end) as an array. *next: the
 * offset of the next page, 0 when none follows. 0 or -ENOMEM. */
struct evbuffer;
int api_render_page(struct api_render *r, long long limit, long long offset,
		    struct evbuffer *b, size_t *next);

/* Answer req 200 with r: a value whole; a list's items [offset, offset +
 * limit) (limit < 0: to the end) with X-Total-Count and, when more follow,
 * Link: <link&limit=..&offset=..>; rel="next" (link: the path and query
 * without the page; NULL: no Link). etag: the ETag header, or NULL. */
void api_render_send(struct evhttp_request *req, struct api_render *r, long long limit,
		     long long offset, const char *link, const char *etag);

/* ---- the cache --------------------------------------------------------------------------- */

/* Keep at most max_bytes of renders. NULL: out of memory. */
struct api_cache *api_cache_new(size_t max_bytes);
/* Waiting requests get no answer (their connections die with http). */
void api_cache_free(struct api_cache *c);

/* The render kept for key at version: a new reference, or NULL. */
struct api_render *api_cache_get(struct api_cache *c, const char *key, unsigned version);

/* A request that waits for a render. done(waiter, r, error) is called once:
 * with the render (borrowed: take a reference to keep it), or with r NULL
 * and `error`, the protocol's answer that failed (borrowed; NULL when out
 * of memory or at api_cache_free, which calls nothing). */
typedef void (*api_cache_done_fn)(void *waiter, struct api_render *r, json_t *error);

/* Wait for key at version. 1: a flight for it is under way and waiter
 * joined it; 0: none was, one now is and the caller must make the render
 * and end it with api_cache_land (waiter is its first); -ENOMEM. */
int api_cache_wait(struct api_cache *c, const char *key, unsigned version, void *waiter,
		   api_cache_done_fn done);
/* The flight of key at version is over: with r (kept, unless it is over the
 * budget alone) or with error. Every waiter's done() is called. */
void api_cache_land(struct api_cache *c, const char *key, unsigned version,
		    struct api_render *r, json_t *error);

/* What is kept (for status and tests). */
struct api_cache_usage {
	size_t renders, bytes, flights, waiters;
	unsigned long long hits, misses;
};
void api_cache_usage(const struct api_cache *c, struct api_cache_usage *u);

#endif
