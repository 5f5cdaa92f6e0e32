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
 * gain one flow on link li: a difference array along the rows (uint16
 * arithmetic wraps, the sums come out right). */
static void range_add(uint16_t *cells, size_t nl, size_t k0, size_t nrows, size_t lo,
		      size_t hi, const int32_t *path, int len)
{
	if (hi < k0 || lo >= k0 + nrows)
		return;
	lo = lo < k0 ? 0 : lo - k0;
	hi = hi - k0 + 1;
	for (int j = 0; j < len; j++) {
		cells[lo * nl + (size_t)path[j]]++;
		if (hi < nrows)
			cells[hi * nl + (size_t)path[j]]--;
	}
}

struct count_task {
	struct refine *r;
	size_t k0, nrows;      /* the window's first shift and its length */
	uint16_t *cells;       /* [nrows][nl] */
};

/* Count shifts k0 + [begin, end) * COUNT_ROWS...: every switch's runs of
 * CAs share one path to each destination, and the shifts of a run's
 * sources toward one destination are consecutive, so one walk adds a
 * range of rows. Writes only its own rows: the same counts whatever the
 * worker. */
static void count_chunks(void *ctx, unsigned worker, size_t begin, size_t end)
{
	struct count_task *t = ctx;
	struct refine *r = t->r;
	const struct rt_graph *g = r->g;
	size_t n = r->n, nl = r->nl;
	int32_t path[MAX_HOPS + 1];

	for (size_t c = begin; c < end; c++) {
		size_t r0 = c * COUNT_ROWS, nr = t->nrows - r0 < COUNT_ROWS ? t->nrows - r0 :
			    COUNT_ROWS, k0 = t->k0 + r0;
		uint16_t *cells = t->cells + r0 * nl;

		memset(cells, 0, nr * nl * sizeof(*cells));
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
					range_add(cells, nl, k0, nr, klo, khi, path, len);
				} else {
					range_add(cells, nl, k0, nr, klo, n - 1, path, len);
					range_add(cells, nl, k0, nr, 0, khi, path, len);
				}
			}
		}
		for (size_t row = 0; row < nr; row++) {
			uint32_t *rh = r->row_hist + (r0 + row) * ROW_LOADS;
			uint16_t *a = cells + row * nl;
			const uint16_t *b = a - nl;

			size_t shared = 0;

			memset(rh, 0, ROW_LOADS * sizeof(*rh));
			if (row)
				for (size_t i = 0; i < nl; i++)
					a[i] = (uint16_t)(a[i] + b[i]);
			for (size_t i = 0; i < nl; i++)
				if (a[i] > 1) {
					rh[rf_load_bucket(a[i])]++;
					shared++;
				}
			rh[1] = (uint32_t)(nl - shared);
		}
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
		struct count_task t = { .r = r, .k0 = r->k0, .nrows = r->rows, .cells = r->cell };

		par_pool_for(g->pool, (r->rows + COUNT_ROWS - 1) / COUNT_ROWS, 1, count_chunks,
			     &t);
		/* The loads from the shifts' histograms; the rare cells of
		 * ROW_LOADS - 1 flows or more one by one. */
		for (size_t row = 0; row < r->rows; row++) {
			const uint32_t *rh = r->row_hist + row * ROW_LOADS;
			const uint16_t *c = r->cell + row * r->nl;

			for (size_t v = 1; v + 1 < ROW_LOADS; v++)
				r->hist[v] += rh[v];
			if (rh[ROW_LOADS - 1])
				for (size_t i = 0; i < r->nl; i++)
					r->hist[c[i]] += c[i] >= ROW_LOADS - 1;
		}
	} else {
		int32_t path[MAX_HOPS + 1];

		memset(r->cell, 0, r->rows * r->nl * sizeof(*r->cell));
		for (size_t row = 0; row < r->rows; row++) {
			size_t k = r->k0 + row * r->stride;
			uint16_t *c = r->cell + row * r->nl;
			uint32_t *rh = r->row_hist + row * ROW_LOADS;

			for (size_t a = 0; a < r->n; a++) {
				size_t d = (a + k) % r->n;
				int len;

				if (g->ca[a].sw < 0 || g->ca[d].sw < 0)
					continue;
				len = rf_walk(r, (size_t)g->ca[a].sw, d, path);
				for (int j = 0; j < len; j++)
					c[path[j]]++;
			}
			memset(rh, 0, ROW_LOADS * sizeof(*rh));
			for (size_t i = 0; i < r->nl; i++) {
				r->hist[c[i] > 1 ? c[i] : 1]++;
				rh[rf_load_bucket(c[i])]++;
			}
		}
	}
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
			if (r->cell[row * r->nl + i] > m)
				m = r->cell[row * r->nl + i];
		return m;
	}
	for (size_t v = 0; v < ROW_LOADS - 1; v++)
		if (rh[v])
			m = v;
	return m;
}

