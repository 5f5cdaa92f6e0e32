/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/util/test_par.c: the worker pool the engines split their work over
 * (lib/util/par.c). */
#include "autoconf.h"

#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/par.h"
#include "tests/unit/fixtures/check_run.h"

struct visit {
	atomic_uint *seen;       /* per item: times visited */
	atomic_uint bad_worker;  /* a worker index out of range */
	atomic_uint bad_range;   /* a chunk not within [0, n) or longer than grain */
	unsigned threads;
	size_t n, grain;
	uint64_t sum[PAR_MAX_THREADS];   /* per worker: a worker's own accumulator */
};

static void visit(void *ctx, unsigned worker, size_t begin, size_t end)
{
	struct visit *v = ctx;

	if (worker >= v->threads)
		atomic_fetch_add(&v->bad_worker, 1);
	if (begin >= end || end > v->n || end - begin > v->grain)
		atomic_fetch_add(&v->bad_range, 1);
	for (size_t i = begin; i < end && end <= v->n; i++) {
		atomic_fetch_add(&v->seen[i], 1);
		if (worker < PAR_MAX_THREADS)
			v->sum[worker] += i;
	}
}

/* Every item once, by a worker of the pool, within chunks of `grain`. */
static void check_loop(struct par_pool *p, size_t n, size_t grain)
{
	struct visit v = { .threads = par_pool_threads(p), .n = n, .grain = grain ? grain : 1 };
	uint64_t total = 0;

	v.seen = calloc(n + 1, sizeof(*v.seen));
	ck_assert_ptr_nonnull(v.seen);
	par_pool_for(p, n, grain, visit, &v);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(atomic_load(&v.seen[i]) == 1, "item %zu of %zu seen %u times", i, n,
			      atomic_load(&v.seen[i]));
	ck_assert_uint_eq(atomic_load(&v.bad_worker), 0);
	ck_assert_uint_eq(atomic_load(&v.bad_range), 0);
	for (unsigned w = 0; w < PAR_MAX_THREADS; w++)
		total += v.sum[w];
	ck_assert_uint_eq(total, n ? (uint64_t)n * (n - 1) / 2 : 0);
	free(v.seen);
}

START_TEST(every_item_is_visited_once_for_any_thread_count)
{
	static const unsigned threads[] = { 1, 2, 3, 8 };
	static const size_t sizes[][2] = { { 0, 1 }, { 1, 1 }, { 7, 3 }, { 1000, 1 },
					   { 1000, 64 }, { 100003, 257 }, { 5, 0 } };

	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		struct par_pool *p = par_pool_new(threads[t]);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(par_pool_threads(p), threads[t]);
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			check_loop(p, sizes[s][0], sizes[s][1]);
		par_pool_free(p);
	}
	/* No pool: the loop runs inline, as one worker. */
	check_loop(NULL, 1000, 10);
	ck_assert_uint_eq(par_pool_threads(NULL), 1);
}
END_TEST

/* Many tiny loops back to back (an engine's loop per destination and level):
 * none is lost or overlaps the next, whether the workers spin or sleep. */
struct tally {
	uint64_t *slot;
	size_t round;
};

static void bump(void *ctx, unsigned worker, size_t begin, size_t end)
{
	struct tally *t = ctx;

	(void)worker;
	for (size_t i = begin; i < end; i++)
		t->slot[i] += t->round;
}

START_TEST(back_to_back_loops_neither_overlap_nor_get_lost)
{
	struct par_pool *p = par_pool_new(3);
	uint64_t slot[16] = { 0 };
	struct tally t = { .slot = slot };
	const size_t rounds = 20000;

	ck_assert_ptr_nonnull(p);
	for (t.round = 1; t.round <= rounds; t.round++)
		par_pool_for(p, 16, 1, bump, &t);
	for (size_t i = 0; i < 16; i++)
		ck_assert_uint_eq(slot[i], (uint64_t)rounds * (rounds + 1) / 2);
	par_pool_free(p);
}
END_TEST

START_TEST(the_default_is_the_cores_and_the_cap_holds)
{
	struct par_pool *p = par_pool_new(0);

	ck_assert_uint_ge(par_cores(), 1);
	ck_assert_uint_le(par_cores(), PAR_MAX_THREADS);
	ck_assert_uint_eq(par_pool_threads(p), par_cores());
	par_pool_free(p);
	p = par_pool_new(PAR_MAX_THREADS + 10);
	ck_assert_uint_eq(par_pool_threads(p), PAR_MAX_THREADS);
	check_loop(p, 5000, 7);
	par_pool_free(p);
	par_pool_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("par");
	TCase *tc = tcase_create("par");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_item_is_visited_once_for_any_thread_count);
	tcase_add_test(tc, back_to_back_loops_neither_overlap_nor_get_lost);
	tcase_add_test(tc, the_default_is_the_cores_and_the_cap_holds);
	suite_add_tcase(s, tc);
	return check_run(s);
}
