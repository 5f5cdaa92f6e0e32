/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tools/fabgen_torus.c: 2- or 3-dimensional tori with wraparound links.
 *
 * Switch (x,y[,z]) is "sw-x-y[-z]"; its ports 1..H hold its hosts, and for
 * dimension d port H+2d+1 goes to the next switch along d ("+") and port
 * H+2d+2 to the previous one ("-"). Each switch cables its "+" port to the
 * "-" port of its successor, which closes every ring. A dimension of size
 * 2 gets a single cable between its two switches: a ring of two would
 * otherwise cable the same pair twice (0+ to 1- and 1+ to 0-). */
#include "autoconf.h"
#include "fabgen.h"

#include <stdio.h>

static int switch_index(const struct fg_torus_opts *o, const int *c)
{
	int idx = 0;
	for (int d = o->ndims - 1; d >= 0; d--)
		idx = idx * o->dims[d] + c[d];
	return idx;
}

static void coords(const struct fg_torus_opts *o, int idx, int *c)
{
	for (int d = 0; d < o->ndims; d++) {
		c[d] = idx % o->dims[d];
		idx /= o->dims[d];
	}
}

int fg_build_torus(struct fg_fabric *f, const struct fg_torus_opts *o)
{
	int nsw = 1, hps = o->hosts_per_switch;
	int nports = hps + 2 * o->ndims;
	int c[3], r;

	for (int d = 0; d < o->ndims; d++)
		nsw *= o->dims[d];
	int digits = fg_host_digits((long)nsw * hps);

	if (o->ndims == 2)
		snprintf(f->kind, sizeof(f->kind), "%dx%d torus, %d host%s per switch",
			 o->dims[0], o->dims[1], hps, hps > 1 ? "s" : "");
	else
		snprintf(f->kind, sizeof(f->kind), "%dx%dx%d torus, %d host%s per switch",
			 o->dims[0], o->dims[1], o->dims[2], hps, hps > 1 ? "s" : "");
	for (int h = 0; h < nsw * hps; h++)
		if ((r = fg_add_node(f, FG_HCA, 1, -1, "host-%0*d", digits, h)) < 0)
			return r;
	int sw0 = f->nnodes;
	for (int s = 0; s < nsw; s++) {
		coords(o, s, c);
		if (o->ndims == 2)
			r = fg_add_node(f, FG_SWITCH, nports, 0, "sw-%d-%d", c[0], c[1]);
		else
			r = fg_add_node(f, FG_SWITCH, nports, 0, "sw-%d-%d-%d",
					c[0], c[1], c[2]);
		if (r < 0)
			return r;
	}
	for (int h = 0; h < nsw * hps; h++)
		if ((r = fg_connect(f, h, 1, sw0 + h / hps, h % hps + 1)) < 0)
			return r;
	for (int s = 0; s < nsw; s++) {
		for (int d = 0; d < o->ndims; d++) {
			coords(o, s, c);
			if (o->dims[d] == 2 && c[d] == 1)
				continue;	/* the pair is already cabled */
			c[d] = (c[d] + 1) % o->dims[d];
			int next = switch_index(o, c);
			if ((r = fg_connect(f, sw0 + s, hps + 2 * d + 1,
					    sw0 + next, hps + 2 * d + 2)) < 0)
				return r;
		}
	}
	return 0;
}
