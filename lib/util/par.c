/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/par.c: see par.h.
 *
 * One loop at a time. The caller publishes it (fn, ctx, n, grain) while no
 * worker is inside, opens it and bumps `gen`, then takes chunks itself. A
 * worker that sees a new `gen` counts itself into `active`, and takes
 * chunks only if the loop it saw is still open; every finished chunk adds
 * its items to `done`. The caller waits for `done` to reach n (every fn
 * call returned: their writes are visible to it), closes the loop and waits
 * for `active` to drop to 0 before it returns, so no worker can read the
 * next loop's fields while they are written. A worker that was not
 * scheduled in time (more threads than cores) is simply not waited for:
 * the caller and the others did its share.
 *
 * Waking: an idle worker spins on `gen` for SPINS rounds (a loop per tree
 * level per destination is tens of microseconds: a futex wake per loop
 * would cost as much as the work), then sleeps on `cv`. A worker going to
 * sleep raises `sleeping` before it looks at `gen` a last time under the
 * mutex, and the caller looks at `sleeping` after it bumps `gen`; both are
 * sequentially consistent, so either the caller sees the sleeper and
 * broadcasts under the mutex (after the sleeper is waiting), or the
 * sleeper sees the new `gen` and does not wait. The same pairing (a worker
 * raises `active` then reads `open`; the caller clears `open` then reads
 * `active`) keeps a late worker out of a closed loop. */
#include "autoconf.h"
#include "lib/util/par.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define SPINS 2000

struct par_pool;

struct par_worker {
	struct par_pool *pool;
	unsigned id;
};

struct par_pool {
	unsigned n;                /* workers, the caller included */
	pthread_t th[PAR_MAX_THREADS];
	struct par_worker w[PAR_MAX_THREADS];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_uint gen;
	atomic_uint sleeping;
	atomic_int stop;
	/* The loop under way (written before gen is bumped). */
	par_fn fn;
	void *ctx;
	size_t n_items, grain;
	atomic_size_t next;        /* the next chunk's first item */
	atomic_size_t done;        /* items whose chunk has returned */
	atomic_int open;           /* workers may take chunks */
	atomic_uint active;        /* workers (not the caller) inside the loop */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

unsigned par_cores(void)
{
	long n = 0;
#ifdef CPU_COUNT
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
#endif
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (unsigned)n;
}

static void run_chunks(struct par_pool *p, unsigned id)
{
	size_t n = p->n_items, grain = p->grain;

	for (;;) {
		size_t b = atomic_fetch_add_explicit(&p->next, grain, memory_order_relaxed);

		if (b >= n)
			return;
		size_t e = n - b < grain ? n : b + grain;

		p->fn(p->ctx, id, b, e);
		atomic_fetch_add_explicit(&p->done, e - b, memory_order_release);
	}
}

static void *worker_main(void *arg)
{
	struct par_worker *w = arg;
	struct par_pool *p = w->pool;
	unsigned seen = 0;

	for (;;) {
		unsigned g;
		unsigned spins = 0;

		while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen &&
		       !atomic_load_explicit(&p->stop, memory_order_acquire)) {
			if (++spins < SPINS) {
				cpu_relax();
				continue;
			}
			pthread_mutex_lock(&p->mu);
			atomic_fetch_add(&p->sleeping, 1);
			while (atomic_load(&p->gen) == seen && !atomic_load(&p->stop))
				pthread_cond_wait(&p->cv, &p->mu);
			atomic_fetch_sub(&p->sleeping, 1);
			pthread_mutex_unlock(&p->mu);
			spins = 0;
		}
		if (atomic_load_explicit(&p->stop, memory_order_acquire))
			return NULL;
		seen = g;
		atomic_fetch_add(&p->active, 1);
		if (atomic_load(&p->open) && atomic_load(&p->gen) == g)
			run_chunks(p, w->id);
		atomic_fetch_sub_explicit(&p->active, 1, memory_order_release);
	}
}

struct par_pool *par_pool_new(unsigned threads)
{
	struct par_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (threads == 0)
		threads = par_cores();
	if (threads > PAR_MAX_THREADS)
		threads = PAR_MAX_THREADS;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->n = 1;
	for (unsigned i = 1; i < threads; i++) {
		p->w[i].pool = p;
		p->w[i].id = i;
		if (pthread_create(&p->th[i], NULL, worker_main, &p->w[i]) != 0)
			break;  /* keep the workers we have */
		p->n = i + 1;
	}
	return p;
}

void par_pool_free(struct par_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->stop, 1);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 1; i < p->n; i++)
		pthread_join(p->th[i], NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

unsigned par_pool_threads(const struct par_pool *p)
{
	return p ? p->n : 1;
}

/* The caller's wait for the workers: spin, then let them have the core. */
static void wait_a_little(unsigned *spins)
{
	if (++*spins < SPINS)
		cpu_relax();
	else
		sched_yield();
}

void par_pool_for(struct par_pool *p, size_t n, size_t grain, par_fn fn, void *ctx)
{
	unsigned spins = 0;

	if (grain == 0)
		grain = 1;
	if (n == 0)
		return;
	if (!p || p->n == 1 || n <= grain) {
		for (size_t b = 0; b < n; b += grain)
			fn(ctx, 0, b, n - b < grain ? n : b + grain);
		return;
	}
	p->fn = fn;
	p->ctx = ctx;
	p->n_items = n;
	p->grain = grain;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	atomic_store_explicit(&p->done, 0, memory_order_relaxed);
	atomic_store(&p->open, 1);
	atomic_fetch_add(&p->gen, 1);   /* seq_cst: see the header comment */
	if (atomic_load(&p->sleeping)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	run_chunks(p, 0);
	while (atomic_load_explicit(&p->done, memory_order_acquire) < n)
		wait_a_little(&spins);
	atomic_store(&p->open, 0);
	while (atomic_load_explicit(&p->active, memory_order_acquire))
		wait_a_little(&spins);
}
