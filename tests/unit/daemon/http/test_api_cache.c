/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/http/test_api_cache.c: the REST API's renders and kept answers
 * (daemon/http/api_cache.h): pages cut from one render are the pages of
 * the answer, a kept render is handed out only at its data version, the
 * byte budget evicts the least recently used, and a flight answers every
 * request that waited for it with one render. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "daemon/http/api_cache.h"
#include "tests/unit/fixtures/check_run.h"

/* [{"i":0,"name":"node-0",...}, ...] of n items, of varied lengths. */
static json_t *list_of(size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "node-%zu%.*s", i, (int)(i % 7), "xxxxxxx");
		json_array_append_new(a, json_pack("{s:I, s:s, s:[i,i], s:{s:b}}", "i",
						   (json_int_t)i, "name", name, "ports", (int)i,
						   (int)(i * 3), "peer", "up", (int)(i & 1)));
	}
	return a;
}

/* The page's body, parsed. */
static json_t *page_of(struct api_render *r, long long limit, long long offset, size_t *next)
{
	struct evbuffer *b = evbuffer_new();
	json_t *v;
	json_error_t e;
	size_t len;
	char *text;

	ck_assert_int_eq(api_render_page(r, limit, offset, b, next), 0);
	len = evbuffer_get_length(b);
	text = malloc(len + 1);
	evbuffer_remove(b, text, len);
	text[len] = '\0';
	v = json_loads(text, 0, &e);
	ck_assert_msg(v != NULL, "page [%lld, +%lld) is no JSON: %s (%s)", offset, limit,
		      e.text, text);
	free(text);
	evbuffer_free(b);
	return v;
}

START_TEST(every_page_is_the_slice_of_the_answer)
{
	static const size_t sizes[] = { 0, 1, 2, 7, 100 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		json_t *all = list_of(sizes[k]);
		int too_large;
		struct api_render *r = api_render_new(all, 1, &too_large);

		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(api_render_count(r), sizes[k]);
		for (long long off = 0; off <= (long long)sizes[k] + 1; off++) {
			for (long long lim = -1; lim <= (long long)sizes[k] + 1; lim++) {
				size_t next, want_n, from = (size_t)off > sizes[k] ? sizes[k] :
							    (size_t)off;
				json_t *p = page_of(r, lim, off, &next);

				want_n = lim < 0 || (size_t)lim > sizes[k] - from ? sizes[k] - from :
					 (size_t)lim;
				ck_assert_uint_eq(json_array_size(p), want_n);
				for (size_t i = 0; i < want_n; i++)
					ck_assert_msg(json_equal(json_array_get(p, i),
								 json_array_get(all, from + i)),
						      "n=%zu offset %lld limit %lld: item %zu differs",
						      sizes[k], off, lim, i);
				ck_assert_uint_eq(next, from + want_n < sizes[k] ? from + want_n : 0);
				json_decref(p);
			}
		}
		api_render_unref(r);
		json_decref(all);
	}
}
END_TEST

START_TEST(a_value_is_sent_whole)
{
	json_t *v = json_pack("{s:s, s:[i,i]}", "guid", "0x1", "ports", 1, 2);
	int too_large;
	struct api_render *r = api_render_new(v, 0, &too_large);
	size_t next;
	json_t *back;

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(api_render_count(r), 0);
	back = page_of(r, 1, 5, &next);   /* a page of a value is the value */
	ck_assert(json_equal(back, v));
	ck_assert_uint_eq(next, 0);
	json_decref(back);
	api_render_unref(r);
	json_decref(v);
}
END_TEST

/* A response still sending a render keeps it after the cache let it go. */
START_TEST(a_page_outlives_its_render)
{
	json_t *all = list_of(50);
	int too_large;
	struct api_render *r = api_render_new(all, 1, &too_large);
	struct evbuffer *b = evbuffer_new();
	size_t next, len;
	char *text;
	json_t *p;

	ck_assert_int_eq(api_render_page(r, 10, 20, b, &next), 0);
	api_render_unref(r);   /* the only other reference: the buffer's */
	len = evbuffer_get_length(b);
	text = calloc(1, len + 1);
	evbuffer_remove(b, text, len);
	p = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert(json_equal(json_array_get(p, 0), json_array_get(all, 20)));
	json_decref(p);
	free(text);
	evbuffer_free(b);
	json_decref(all);
}
END_TEST

START_TEST(kept_only_at_its_version)
{
	struct api_cache *c = api_cache_new(1 << 20);
	json_t *all = list_of(10);
	int too_large;
	struct api_render *r = api_render_new(all, 1, &too_large), *got;
	struct api_cache_usage u;

	ck_assert_ptr_null(api_cache_get(c, "nodes {}", 7));
	api_cache_land(c, "nodes {}", 7, r, NULL);   /* no flight: kept all the same */
	got = api_cache_get(c, "nodes {}", 7);
	ck_assert_ptr_eq(got, r);
	api_render_unref(got);
	ck_assert_ptr_null(api_cache_get(c, "nodes {}", 8));
	ck_assert_ptr_null(api_cache_get(c, "nodes {\"type\":\"switch\"}", 7));
	api_cache_usage(c, &u);
	ck_assert_uint_eq(u.renders, 1);
	ck_assert_uint_eq(u.hits, 1);
	ck_assert_uint_eq(u.misses, 3);
	ck_assert_uint_eq(u.flights, 0);
	api_render_unref(r);
	api_cache_free(c);
	json_decref(all);
}
END_TEST

START_TEST(the_budget_evicts_the_least_recently_used)
{
	json_t *all = list_of(200);
	int too_large;
	struct api_render *r = api_render_new(all, 1, &too_large), *got;
	struct api_cache_usage u;
	size_t one;
	struct api_cache *c = api_cache_new(1 << 30);

	api_cache_land(c, "k0", 1, r, NULL);
	api_cache_usage(c, &u);
	one = u.bytes;                              /* what one entry costs */
	ck_assert_uint_gt(one, 200 * 10);
	api_cache_free(c);
	c = api_cache_new(3 * one + one / 2);       /* room for three */
	for (int i = 0; i < 3; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k%d", i);
		api_cache_land(c, key, 1, r, NULL);
	}
	got = api_cache_get(c, "k0", 1);   /* k0 used: k1 is now the oldest */
	ck_assert_ptr_nonnull(got);
	api_render_unref(got);
	api_cache_land(c, "k3", 1, r, NULL);
	api_cache_usage(c, &u);
	ck_assert_uint_eq(u.renders, 3);
	ck_assert_uint_le(u.bytes, 3 * one + one / 2);
	ck_assert_ptr_null(api_cache_get(c, "k1", 1));
	for (const char *k = "k0"; k; k = !strcmp(k, "k0") ? "k2" : !strcmp(k, "k2") ? "k3" : NULL) {
		got = api_cache_get(c, k, 1);
		ck_assert_msg(got != NULL, "%s was evicted", k);
		api_render_unref(got);
	}
	api_cache_free(c);
	/* a render over the budget alone is not kept */
	c = api_cache_new(one / 2);
	api_cache_land(c, "big", 1, r, NULL);
	ck_assert_ptr_null(api_cache_get(c, "big", 1));
	api_cache_free(c);
	api_render_unref(r);
	json_decref(all);
}
END_TEST

struct got {
	int calls;
	int order[8];
	struct api_render *r[8];
	json_t *error[8];
};

static struct got got;

static void waiter_done(void *waiter, struct api_render *r, json_t *error)
{
	int i = got.calls++;

	got.order[i] = (int)(long)waiter;
	got.r[i] = r;
	got.error[i] = error;
}

START_TEST(one_flight_answers_every_waiter_once)
{
	struct api_cache *c = api_cache_new(1 << 20);
	json_t *all = list_of(3), *err = json_pack("{s:b}", "ok", 0);
	int too_large;
	struct api_render *r = api_render_new(all, 1, &too_large);
	struct api_cache_usage u;

	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(api_cache_wait(c, "links {}", 4, (void *)1L, waiter_done), 0);
	ck_assert_int_eq(api_cache_wait(c, "links {}", 4, (void *)2L, waiter_done), 1);
	ck_assert_int_eq(api_cache_wait(c, "links {}", 4, (void *)3L, waiter_done), 1);
	/* another version is another flight */
	ck_assert_int_eq(api_cache_wait(c, "links {}", 5, (void *)4L, waiter_done), 0);
	api_cache_usage(c, &u);
	ck_assert_uint_eq(u.flights, 2);
	ck_assert_uint_eq(u.waiters, 4);
	api_cache_land(c, "links {}", 4, r, NULL);
	ck_assert_int_eq(got.calls, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(got.order[i], i + 1);
		ck_assert_ptr_eq(got.r[i], r);
	}
	api_cache_land(c, "links {}", 5, NULL, err);   /* failed: nothing kept */
	ck_assert_int_eq(got.calls, 4);
	ck_assert_ptr_null(got.r[3]);
	ck_assert_ptr_eq(got.error[3], err);
	ck_assert_ptr_null(api_cache_get(c, "links {}", 5));
	api_cache_usage(c, &u);
	ck_assert_uint_eq(u.flights, 0);
	ck_assert_uint_eq(u.waiters, 0);
	api_render_unref(r);
	api_cache_free(c);
	json_decref(all);
	json_decref(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api_cache");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_page_is_the_slice_of_the_answer);
	tcase_add_test(tc, a_value_is_sent_whole);
	tcase_add_test(tc, a_page_outlives_its_render);
	tcase_add_test(tc, kept_only_at_its_version);
	tcase_add_test(tc, the_budget_evicts_the_least_recently_used);
	tcase_add_test(tc, one_flight_answers_every_waiter_once);
	suite_add_tcase(s, tc);
	return check_run(s);
}
