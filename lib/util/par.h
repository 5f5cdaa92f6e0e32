/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/par.h: a pool of worker threads for loops whose items can run in
 * any order: the routing engines, their refinement and the metrics split
 * their work over it (issue 23).
 *
 * Determinism is the caller's part, and the pool makes it easy: an item
 * writes only what belongs to it (a table row, a destination's column), or
 * adds into the per-worker accumulator `worker` names, and the caller
 * merges those in worker order or by a rule that does not depend on which
 * worker saw what (integer sums, maxima, the lowest index). Then the same
 * input gives the same result for any thread count, which the tests check.
 *
 * A pool keeps its threads between loops: an engine may run many small
 * loops (one per destination and tree level), so an idle worker spins for
 * a short while before it sleeps on a condition variable. The calling
 * thread works too, as worker 0; a pool of one thread (or NULL) runs the
 * loop inline, with no locking at all. One loop at a time per pool: the
 * pool is not for sharing between threads that call it at once. */
#ifndef LOOM_PAR_H
#define LOOM_PAR_H

#include <stddef.h>

#define PAR_MAX_THREADS 64

/* Online processors, clamped to 1..PAR_MAX_THREADS. */
unsigned par_cores(void);

struct par_pool;

/* A pool of `threads` workers in all, the caller included (0: par_cores();
 * above PAR_MAX_THREADS: that many). When a thread cannot be started the
 * pool keeps the ones it has (at worst the caller alone). NULL only when
 * out of memory; every function takes NULL as a pool of one. */
struct par_pool *par_pool_new(unsigned threads);
void par_pool_free(struct par_pool *p);
unsigned par_pool_threads(const struct par_pool *p);

/* fn(ctx, worker, begin, end) over [0, n) in chunks of `grain` items (the
 * last one shorter; grain 0 counts as 1), handed out in ascending order to
 * whichever worker is free; worker is 0..threads-1, 0 being the caller.
 * Returns when every chunk is done. */
typedef void (*par_fn)(void *ctx, unsigned worker, size_t begin, size_t end);
void par_pool_for(struct par_pool *p, size_t n, size_t grain, par_fn fn, void *ctx);

#endif
