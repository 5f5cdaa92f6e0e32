/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tools/fabgen_fattree.c: k-ary fat trees of radix-K switches, 2 or 3
 * levels, optionally as R rails (R identical planes joined at the hosts).
 *
 * 2 levels: K leaves with K/2 hosts down and one cable up to each of the
 * K/2 spines; a spine's port l+1 goes to leaf l.
 * 3 levels (Al-Fares et al.): K pods of K/2 leaves and K/2 aggregation
 * switches, complete bipartite inside the pod; aggregation switch j of every
 * pod has one cable up to each core of group j (cores j*K/2 .. j*K/2+K/2-1),
 * and a core's port p+1 goes to pod p.
 *
 * Fewer hosts fill leaves (and pods) in order and only the leaves (pods)
 * needed exist; the spine, aggregation and core layers above them stay
 * complete so that the tree stays non-blocking. Every host has one port
 * per rail; port r+1 goes to plane r, whose switches are named "rR/...". */
#include "autoconf.h"
#include "fabgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Build one plane; host h's port `rail + 1` is cabled into it. The hosts
 * are nodes 0..hosts-1. */
static int build_plane2(struct fg_fabric *f, const struct fg_fattree_opts *o,
			int rail, const char *pfx)
{
	int half = o->radix / 2;
	int nleaves = (o->hosts + half - 1) / half;
	int leaf0 = f->nnodes, spine0;
	int r;

	for (int l = 0; l < nleaves; l++)
		if ((r = fg_add_node(f, FG_SWITCH, o->radix, rail, "%sleaf-%d",
				     pfx, l)) < 0)
			return r;
	spine0 = f->nnodes;
	for (int s = 0; s < half; s++)
		if ((r = fg_add_node(f, FG_SWITCH, o->radix, rail, "%sspine-%d",
				     pfx, s)) < 0)
			return r;
	for (int h = 0; h < o->hosts; h++)
		if ((r = fg_connect(f, h, rail + 1, leaf0 + h / half,
				    h % half + 1)) < 0)
			return r;
	for (int l = 0; l < nleaves; l++)
		for (int s = 0; s < half; s++)
			if ((r = fg_connect(f, leaf0 + l, half + 1 + s,
					    spine0 + s, l + 1)) < 0)
				return r;
	return 0;
}

static int build_plane3(struct fg_fabric *f, const struct fg_fattree_opts *o,
			int rail, const char *pfx)
{
	int half = o->radix / 2;
	int per_pod = half * half;
	int npods = (o->hosts + per_pod - 1) / per_pod;
	int *leaf0 = calloc((size_t)npods, sizeof(*leaf0));
	int *agg0 = calloc((size_t)npods, sizeof(*agg0));
	int *nleaves = calloc((size_t)npods, sizeof(*nleaves));
	int core0, r = -ENOMEM;

	if (!leaf0 || !agg0 || !nleaves)
		goto out;
	for (int p = 0; p < npods; p++) {
		int in_pod = o->hosts - p * per_pod;
		if (in_pod > per_pod)
			in_pod = per_pod;
		nleaves[p] = (in_pod + half - 1) / half;
		leaf0[p] = f->nnodes;
		for (int e = 0; e < nleaves[p]; e++)
			if ((r = fg_add_node(f, FG_SWITCH, o->radix, rail,
					     "%spod%d-leaf-%d", pfx, p, e)) < 0)
				goto out;
		agg0[p] = f->nnodes;
		for (int a = 0; a < half; a++)
			if ((r = fg_add_node(f, FG_SWITCH, o->radix, rail,
					     "%spod%d-agg-%d", pfx, p, a)) < 0)
				goto out;
	}
	core0 = f->nnodes;
	for (int c = 0; c < per_pod; c++)
		if ((r = fg_add_node(f, FG_SWITCH, o->radix, rail, "%score-%d",
				     pfx, c)) < 0)
			goto out;
	for (int h = 0; h < o->hosts; h++) {
		int p = h / per_pod, e = (h % per_pod) / half;
		if ((r = fg_connect(f, h, rail + 1, leaf0[p] + e,
				    h % half + 1)) < 0)
			goto out;
	}
	for (int p = 0; p < npods; p++) {
		for (int e = 0; e < nleaves[p]; e++)
			for (int a = 0; a < half; a++)
				if ((r = fg_connect(f, leaf0[p] + e, half + 1 + a,
						    agg0[p] + a, e + 1)) < 0)
					goto out;
		for (int a = 0; a < half; a++)
			for (int i = 0; i < half; i++)
				if ((r = fg_connect(f, agg0[p] + a, half + 1 + i,
						    core0 + a * half + i,
						    p + 1)) < 0)
					goto out;
	}
	r = 0;
out:
	free(leaf0);
	free(agg0);
	free(nleaves);
	return r;
}

int fg_build_fattree(struct fg_fabric *f, const struct fg_fattree_opts *o)
{
	int digits = fg_host_digits(o->hosts);
	int r;

	f->planes = o->rails;
	snprintf(f->kind, sizeof(f->kind),
		 "%d-level fat tree of %d-port switches, %d rail%s",
		 o->levels, o->radix, o->rails, o->rails > 1 ? "s" : "");
	/* Hosts first: ibsim attaches its clients to the first node, and that
	 * must be an HCA for OpenSM and the diagnostics to run from it. */
	for (int h = 0; h < o->hosts; h++)
		if ((r = fg_add_node(f, FG_HCA, o->rails, -1, "host-%0*d",
				     digits, h)) < 0)
			return r;
	for (int rail = 0; rail < o->rails; rail++) {
		char pfx[16] = "";
		if (o->rails > 1)
			snprintf(pfx, sizeof(pfx), "r%d/", rail);
		r = o->levels == 2 ? build_plane2(f, o, rail, pfx)
				   : build_plane3(f, o, rail, pfx);
		if (r < 0)
			return r;
	}
	return 0;
}
