/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_refine_delta.c: what a move of the refinement
 * (route_refine.c) does to the shift permutations' loads: the change in
 * their potential, in the cells at the worst load, and whether it pushes a
 * cell above it (a move every caller refuses).
 *
 * A switch x that routes d up is asked about each of its other up links in
 * turn, and every answer takes the same flows (x's sources) off the same
 * old path, of which only the first co links differ per link asked. So the
 * old path's part is summed once per (x, d), as prefix sums over its links,
 * and each link asked adds its new links' part, stopping at the first cell
 * pushed above the worst load or once the sum reaches the caller's cut
 * (phase 1 wants a sum below 0 and below the best so far; the new links'
 * terms are never negative, so the sum can only grow).
 *
 * The same numbers as summing source by source: the potential's terms are
 * differences of powers of SHIFT_BASE (64, a power of two), integers, so
 * their sums are exact in any order while they stay below 2^53; when the
 * bound (terms x the largest term) says they might not, or an old cell is
 * above the worst load, the sum goes source by source as before. Hence the
 * same moves and the same tables, only fewer reads of the counters. */
#include "autoconf.h"

#include "lib/route/route_refine_int.h"

/* Sums below this are exact integers in a double. */
#define EXACT_SUM 9007199254740992.0 /* 2^53 */

int rf_delta_direct;

/* Source i's counters, or NULL when its shift is outside the window: its
 * loads are not at hand, so the move is not one this window may make. */
static inline const uint16_t *src_cells(const struct refine *r, const struct at *at, size_t i)
{
	size_t row = rf_row_of(r, (size_t)r->src[i], at->d);

	return row == (size_t)-1 ? NULL : r->cell + rf_cell(r, row, 0);
}

/* One source's flow onto the new links c (its counters): into *ds and
 * *at_top; -1 at a cell pushed above the worst load (refused by every
 * caller, so the rest of the sum is not needed). */
static inline int add_new(const struct refine *r, const uint16_t *c, const int32_t *newp, int cn,
			  double *ds, long *at_top)
{
	size_t top = r->top;

	for (int j = 0; j < cn; j++) {
		uint16_t v = c[(size_t)newp[j] * COUNT_ROWS];

		if ((size_t)v + 1 > top)
			return -1;
		*ds += r->f[v + 1] - r->f[v];
		*at_top += (long)((size_t)v + 1 == top) - (long)(v == top);
	}
	return 0;
}

/* Source by source, old links then new ones: the order the prefix sums
 * must agree with. */
static void delta_direct(const struct refine *r, const struct at *at, const int32_t *newp,
			 int co, int cn, struct delta *dl)
{
	size_t top = r->top;

	for (size_t i = 0; i < r->n_src; i++) {
		const uint16_t *c = src_cells(r, at, i);

		if (!c) {
			dl->over++;
			return;
		}
		for (int j = 0; j < co; j++) {
			uint16_t v = c[(size_t)at->oldp[j] * COUNT_ROWS];

			if (!v)
				continue;
			dl->ds += r->f[v - 1] - r->f[v];
			dl->at_top -= v == top;
			dl->at_top += (size_t)v - 1 == top;
		}
		if (add_new(r, c, newp, cn, &dl->ds, &dl->at_top) < 0) {
			dl->over++;
			return;
		}
	}
}

/* Whether sums of the potential's terms for at are exact: terms x the
 * largest term (a cell at most at the worst load) below 2^53. */
static int sums_exact(const struct refine *r, const struct at *at)
{
	size_t top = r->top + 1 <= r->n + 1 ? r->top + 1 : r->n + 1;

	return r->f[top] * (double)r->n_src * (double)(2 * at->lo + 1) < EXACT_SUM;
}

/* at->old_ds/old_top over the whole old path (prefix sums); have_old 1,
 * or -1 when a cell is above the worst load or out of the window. */
static void old_part(const struct refine *r, struct at *at)
{
	size_t top = r->top;

	for (int j = 0; j <= at->lo; j++) {
		at->old_ds[j] = 0;
		at->old_top[j] = 0;
	}
	at->have_old = -1;
	for (size_t i = 0; i < r->n_src; i++) {
		const uint16_t *c = src_cells(r, at, i);

		if (!c)
			return;

		for (int j = 0; j < at->lo; j++) {
			uint16_t v = c[(size_t)at->oldp[j] * COUNT_ROWS];

			if (!v)
				continue;
			if (v > top)
				return;
			at->old_ds[j + 1] += r->f[v - 1] - r->f[v];
			at->old_top[j + 1] += (long)((size_t)v - 1 == top) - (long)(v == top);
		}
	}
	for (int j = 0; j < at->lo; j++) {
		at->old_ds[j + 1] += at->old_ds[j];
		at->old_top[j + 1] += at->old_top[j];
	}
	at->have_old = 1;
}

/* The old path's part from its prefix sums (made once for all of x's up
 * links), then the new links, source by source, stopping at a cell pushed
 * above the worst load or at the cut. */
void rf_shift_delta(const struct refine *r, struct at *at, const int32_t *newp, int co, int cn,
		    double cut, struct delta *dl)
{
	double ds;
	long at_top = 0;

	dl->ds = 0;
	dl->at_top = dl->over = 0;
	if (!at->have_old && (rf_delta_direct || !sums_exact(r, at)))
		at->have_old = -1;
	if (!at->have_old)
		old_part(r, at);
	if (at->have_old < 0) {
		delta_direct(r, at, newp, co, cn, dl);
		return;
	}
	/* The new links' terms are never negative: once the sum reaches the
	 * cut it only grows, and the caller refuses it. */
	ds = at->old_ds[co];
	if (ds >= cut) {
		dl->over++;
		return;
	}
	for (size_t i = 0; i < r->n_src; i++) {
		const uint16_t *c = src_cells(r, at, i);

		if (!c || add_new(r, c, newp, cn, &ds, &at_top) < 0 || ds >= cut) {
			dl->over++;
			return;
		}
	}
	dl->ds = ds;
	dl->at_top = at->old_top[co] + at_top;
}
