/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_refine_count.c: the refinement's count of shift
 * permutations' link loads (route_refine.c): exact counters per (shift,
 * directed link) for a window of consecutive shifts, counted over the
 * routing graph's pool. A switch's CAs come in runs of consecutive indices
 * (one per leaf as fabgen numbers them); the run's sources share each path
 * to a destination, and their shifts toward it are consecutive, so one walk
 * adds one to a range of rows of every link on the path (a difference
 * array along the rows, summed after). Cost: O(runs * (window + run) *
 * hops) walks and O(window * links) for the sums, against O(window * CAs *
 * hops) walking every pair. Each task of the pool writes only its own rows
 * and their histograms: the same counts for any number of threads. */
#include "autoconf.h"
#include "lib/route/route_refine_int.h"
#include "lib/util/par.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The CAs of each switch as runs of consecutive indices (fabgen numbers
 * them leaf by leaf: one run per leaf). 0 or -ENOMEM. */
int rf_ca_runs(struct refine *r)
{
	const struct rt_graph *g = r->g;

	r->run_sw = malloc((r->n + 1) * sizeof(*r->run_sw));
	r->run_lo = malloc((r->n + 1) * sizeof(*r->run_lo));
	r->run_hi = malloc((r->n + 1) * sizeof(*r->run_hi));
	if (!r->run_sw || !r->run_lo || !r->run_hi)
		return -ENOMEM;
	r->n_runs = 0;
	for (size_t c = 0; c < r->n; c++) {
		size_t k = r->n_runs;

		if (g->ca[c].sw < 0)
			continue;
		if (k && r->run_sw[k - 1] == (uint32_t)g->ca[c].sw && r->run_hi[k - 1] == c) {
			r->run_hi[k - 1]++;
			continue;
		}
		r->run_sw[k] = (uint32_t)g->ca[c].sw;
		r->run_lo[k] = (uint32_t)c;
		r->run_hi[k] = (uint32_t)c + 1;
		r->n_runs++;
	}
	return 0;
}

/* Rows [k, k + 1 + hi - lo) of the window starting at shift k0, nrows rows,
 * gain one flow on each link of path: a difference array along the rows
 * (uint16 arithmetic wraps, the sums come out right). A link's rows are
 * `rows` apart (the window's: rf_cell). */
static void range_add(uint16_t *cells, size_t rows, size_t k0, size_t nrows, size_t lo,
		      size_t hi, const int32_t *path, int len)
{
	if (hi < k0 || lo >= k0 + nrows)
		return;
	lo = lo < k0 ? 0 : lo - k0;
	hi = hi - k0 + 1;
	for (int j = 0; j < len; j++) {
		uint16_t *c = cells + (size_t)path[j] * rows;

		c[lo]++;
		if (hi < nrows)
			c[hi]--;
	}
}

struct count_task {
	struct refine *r;
	size_t k0, nrows;      /* the window's first shift and its length */
};

/* Count the blocks of COUNT_ROWS shifts [begin, end) of the window: every
 * switch's runs of CAs share one path to each destination, and the shifts
 * of a run's sources toward one destination are consecutive, so one walk
 * adds a range of rows. Writes only its own block (one run of memory),
 * its rows' histograms and its block_max: the same counts whatever the
 * worker. */
static void count_chunks(void *ctx, unsigned worker, size_t begin, size_t end)
{
	struct count_task *t = ctx;
	struct refine *r = t->r;
	const struct rt_graph *g = r->g;
	size_t n = r->n, nl = r->nl;
	int32_t path[MAX_HOPS + 1];

	(void)worker;
	for (size_t c = begin; c < end; c++) {
		size_t r0 = c * COUNT_ROWS, nr = t->nrows - r0 < COUNT_ROWS ? t->nrows - r0 :
			    COUNT_ROWS, k0 = t->k0 + r0;
		uint16_t *cells = r->cell + rf_cell(r, r0, 0), *bmax = r->block_max + c * nl;

		memset(cells, 0, nl * COUNT_ROWS * sizeof(*cells));
		for (size_t u = 0; u < r->n_runs; u++) {
			size_t s = r->run_sw[u], lo = r->run_lo[u], hi = r->run_hi[u];

			/* d - a in [k0, k0 + nr) for some a of the run */
			size_t nd = nr + hi - lo - 1 < n ? nr + hi - lo - 1 : n;

			for (size_t i = 0; i < nd; i++) {
				size_t d = (lo + k0 + i) % n, klo = (d + n - (hi - 1)) % n,
				       khi = (d + n - lo) % n;
				int len;

				if (g->ca[d].sw < 0 || (size_t)g->ca[d].sw == s)
					continue;
				len = rf_walk(r, s, d, path);
				if (len <= 0)
					continue;
				if (klo <= khi) {
					range_add(cells, COUNT_ROWS, k0, nr, klo, khi, path, len);
				} else {
					range_add(cells, COUNT_ROWS, k0, nr, klo, n - 1, path, len);
					range_add(cells, COUNT_ROWS, k0, nr, 0, khi, path, len);
				}
			}
		}
		/* The sums along each link's rows, each row's histogram of
		 * the loads two flows or more share, each link's most. */
		memset(r->row_hist + r0 * ROW_LOADS, 0, nr * ROW_LOADS * sizeof(*r->row_hist));
		for (size_t li = 0; li < nl; li++) {
			uint16_t *a = cells + li * COUNT_ROWS, m = a[0];

			for (size_t row = 1; row < nr; row++) {
				a[row] = (uint16_t)(a[row] + a[row - 1]);
				m = a[row] > m ? a[row] : m;
			}
			bmax[li] = m;
			if (m < 2)
				continue;
			for (size_t row = 0; row < nr; row++)
				if (a[row] > 1)
					r->row_hist[(r0 + row) * ROW_LOADS + rf_load_bucket(a[row])]++;
		}
		for (size_t row = 0; row < nr; row++) {
			uint32_t *rh = r->row_hist + (r0 + row) * ROW_LOADS;
			size_t shared = 0;

			for (size_t v = 2; v < ROW_LOADS; v++)
				shared += rh[v];
			rh[1] = (uint32_t)(nl - shared);
		}
	}
}

/* link_max of links [begin, end): the most of their blocks'. */
static void link_maxima(void *ctx, unsigned worker, size_t begin, size_t end)
{
	struct refine *r = ctx;
	size_t blocks = (r->rows + COUNT_ROWS - 1) / COUNT_ROWS;

	(void)worker;
	for (size_t li = begin; li < end; li++) {
		uint16_t m = 0;

		for (size_t b = 0; b < blocks; b++)
			m = r->block_max[b * r->nl + li] > m ? r->block_max[b * r->nl + li] : m;
		r->link_max[li] = m;
	}
}

/* Count the window's shifts (stride 1, over the pool) or every stride-th
 * shift from 1 (a glance, by walking every pair); hist and the worst. 0 or
 * -ENOMEM. */
int rf_count_shifts(struct refine *r)
{
	const struct rt_graph *g = r->g;

	memset(r->hist, 0, (r->n + 2) * sizeof(*r->hist));
	if (r->stride == 1) {
		struct count_task t = { .r = r, .k0 = r->k0, .nrows = r->rows };

		par_pool_for(g->pool, (r->rows + COUNT_ROWS - 1) / COUNT_ROWS, 1, count_chunks,
			     &t);
		/* The loads from the shifts' histograms; the rare cells of
		 * ROW_LOADS - 1 flows or more one by one. */
		for (size_t row = 0; row < r->rows; row++) {
			const uint32_t *rh = r->row_hist + row * ROW_LOADS;

			for (size_t v = 1; v + 1 < ROW_LOADS; v++)
				r->hist[v] += rh[v];
			if (rh[ROW_LOADS - 1])
				for (size_t i = 0; i < r->nl; i++) {
					uint16_t c = r->cell[rf_cell(r, row, i)];

					r->hist[c] += c >= ROW_LOADS - 1;
				}
		}
	} else {
		int32_t path[MAX_HOPS + 1];

		size_t blocks = (r->rows + COUNT_ROWS - 1) / COUNT_ROWS;

		memset(r->cell, 0, blocks * COUNT_ROWS * r->nl * sizeof(*r->cell));
		for (size_t row = 0; row < r->rows; row++) {
			size_t k = r->k0 + row * r->stride;
			uint16_t *c = r->cell + rf_cell(r, row, 0);   /* link i at c[i * COUNT_ROWS] */
			uint32_t *rh = r->row_hist + row * ROW_LOADS;

			for (size_t a = 0; a < r->n; a++) {
				size_t d = (a + k) % r->n;
				int len;

				if (g->ca[a].sw < 0 || g->ca[d].sw < 0)
					continue;
				len = rf_walk(r, (size_t)g->ca[a].sw, d, path);
				for (int j = 0; j < len; j++)
					c[(size_t)path[j] * COUNT_ROWS]++;
			}
			memset(rh, 0, ROW_LOADS * sizeof(*rh));
			for (size_t i = 0; i < r->nl; i++) {
				uint16_t v = c[i * COUNT_ROWS];

				r->hist[v > 1 ? v : 1]++;
				rh[rf_load_bucket(v)]++;
			}
		}
	}
	if (r->stride != 1)
		for (size_t b = 0; b * COUNT_ROWS < r->rows; b++)
			for (size_t li = 0; li < r->nl; li++) {
				const uint16_t *a = r->cell + rf_cell(r, b * COUNT_ROWS, li);
				uint16_t m = 0;

				for (size_t i = 0; i < COUNT_ROWS; i++)
					m = a[i] > m ? a[i] : m;
				r->block_max[b * r->nl + li] = m;
			}
	par_pool_for(g->pool, r->nl, 1024, link_maxima, r);
	r->top = 1;
	for (size_t v = 1; v < r->n + 2; v++)
		if (r->hist[v])
			r->top = v;
	return 0;
}

/* The worst load of one tracked shift. */
size_t rf_row_max(const struct refine *r, size_t row)
{
	const uint32_t *rh = r->row_hist + row * ROW_LOADS;
	size_t m = 0;

	if (rh[ROW_LOADS - 1]) {
		for (size_t i = 0; i < r->nl; i++)
			if (r->cell[rf_cell(r, row, i)] > m)
				m = r->cell[rf_cell(r, row, i)];
		return m;
	}
	for (size_t v = 0; v < ROW_LOADS - 1; v++)
		if (rh[v])
			m = v;
	return m;
}

