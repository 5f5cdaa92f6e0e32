/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/pause_trees.c: see pause_trees.h. */
#include "autoconf.h"
#include "lib/telemetry/pause_trees.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	const struct paused_port *p;
	size_t *down;        /* paused ports of the peer switch: where it waits */
	size_t n_down;
	int root_of;         /* index of the node whose peer is its root; -1 new, -2 loop */
	int state;           /* 0 new, 1 on the path, 2 done */
};

static json_t *name(const char *a, const char *b)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s:%s", a, b);
	return json_string(buf);
}

static int root_of(struct node *v, size_t i)
{
	int r = -2;

	if (v[i].state == 2)
		return v[i].root_of;
	if (v[i].state == 1)
		return -2;
	if (!v[i].n_down) {
		v[i].state = 2;
		return v[i].root_of = (int)i;
	}
	v[i].state = 1;
	for (size_t k = 0; k < v[i].n_down && r == -2; k++)
		r = root_of(v, v[i].down[k]);
	v[i].state = 2;
	return v[i].root_of = r;
}

json_t *pause_trees(const struct paused_port *p, size_t n)
{
	json_t *out = json_pack("{s:[], s:[], s:[], s:i, s:i}", "roots", "loops", "unknown",
				"followed", 0, "ignored", 0);
	size_t nv = n < PAUSE_MAX_PORTS ? n : PAUSE_MAX_PORTS;
	struct node *v = calloc(nv ? nv : 1, sizeof(*v));
	unsigned char *mark = calloc(nv ? nv : 1, 1);
	size_t *queue = calloc(nv ? nv : 1, sizeof(*queue));

	if (!out || !v || !mark || !queue)
		goto oom;
	for (size_t i = 0; i < nv; i++) {
		v[i].p = &p[i];
		v[i].root_of = -1;
	}
	/* Edges: a paused port waits on the paused ports of its peer switch,
	 * other than the one that faces it. */
	for (size_t i = 0; i < nv; i++) {
		const struct paused_port *a = v[i].p;

		if (!a->peer_node || !a->peer_managed)
			continue;
		for (size_t k = 0; k < nv; k++) {
			size_t *d;

			if (strcmp(v[k].p->sw, a->peer_node) ||
			    (a->peer_port && !strcmp(v[k].p->port, a->peer_port)))
				continue;
			if (!(d = realloc(v[i].down, (v[i].n_down + 1) * sizeof(*d))))
				goto oom;
			v[i].down = d;
			v[i].down[v[i].n_down++] = k;
		}
	}
	for (size_t i = 0; i < nv; i++)
		root_of(v, i);
	/* One root per pausing port: paused ports whose own peer is the root
	 * share it, so group them by their end's peer. */
	for (size_t r = 0; r < nv; r++) {
		const struct paused_port *a = v[r].p;
		json_t *root, *paused;
		size_t head = 0, tail = 0;
		int dup = 0;

		if (v[r].root_of != (int)r)
			continue;
		if (!a->peer_node) {
			json_array_append_new(json_object_get(out, "unknown"), name(a->sw, a->port));
			continue;
		}
		for (size_t q = 0; q < r && !dup; q++)
			dup = v[q].root_of == (int)q && v[q].p->peer_node &&
			      !strcmp(v[q].p->peer_node, a->peer_node) &&
			      !strcmp(v[q].p->peer_port ? v[q].p->peer_port : "",
				      a->peer_port ? a->peer_port : "");
		if (dup)
			continue;
		/* Everything that waits, through any chain, on a port paused by
		 * this root's pauser: nearest first. */
		paused = json_array();
		memset(mark, 0, nv);
		for (size_t q = 0; q < nv; q++)
			if (v[q].root_of == (int)q && v[q].p->peer_node &&
			    !strcmp(v[q].p->peer_node, a->peer_node) &&
			    !strcmp(v[q].p->peer_port ? v[q].p->peer_port : "",
				    a->peer_port ? a->peer_port : "")) {
				mark[q] = 1;
				queue[tail++] = q;
				json_array_append_new(paused, name(v[q].p->sw, v[q].p->port));
			}
		while (head < tail) {
			size_t at = queue[head++];

			for (size_t w = 0; w < nv; w++) {
				if (mark[w])
					continue;
				for (size_t k = 0; k < v[w].n_down; k++)
					if (v[w].down[k] == at) {
						mark[w] = 1;
						queue[tail++] = w;
						json_array_append_new(paused, name(v[w].p->sw, v[w].p->port));
						break;
					}
			}
		}
		root = json_pack("{s:s, s:s, s:b, s:o}", "node", a->peer_node, "port",
				 a->peer_port ? a->peer_port : "", "managed", a->peer_managed,
				 "paused", paused ? paused : json_array());
		if (!root || json_array_append_new(json_object_get(out, "roots"), root) < 0)
			goto oom;
	}
	for (size_t i = 0; i < nv; i++)
		if (v[i].root_of == -2)
			json_array_append_new(json_object_get(out, "loops"),
					      name(v[i].p->sw, v[i].p->port));
	json_object_set_new(out, "followed", json_integer((json_int_t)nv));
	json_object_set_new(out, "ignored", json_integer((json_int_t)(n - nv)));
	for (size_t i = 0; i < nv; i++)
		free(v[i].down);
	free(v);
	free(mark);
	free(queue);
	return out;
oom:
	for (size_t i = 0; v && i < nv; i++)
		free(v[i].down);
	free(v);
	free(mark);
	free(queue);
	json_decref(out);
	return NULL;
}
