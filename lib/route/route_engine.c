/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_engine.c: loom's routing engines by name, and `loom`, the one
 * operators select, which picks an engine for the topology it is given. */
#include "autoconf.h"
#include "lib/route/route.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct rt_engine engines[] = {
	{ "loom", "picks ftree for fat trees, dfsssp for anything else", rt_route_loom },
	{ "ftree", "fat trees: levels found alone, non-blocking shifts, degraded trees kept",
	  rt_route_ftree },
	{ "dfsssp", "any topology: balanced shortest paths, deadlock-free with VL layers",
	  rt_route_dfsssp },
	{ "minhop", "balanced minimum-hop paths, no deadlock avoidance", rt_route_minhop },
};

const struct rt_engine *rt_engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (strcmp(engines[i].name, name) == 0)
			return &engines[i];
	return NULL;
}

const struct rt_engine *rt_engine_list(size_t *n)
{
	*n = sizeof(engines) / sizeof(engines[0]);
	return engines;
}

/* Put "PREFIX: " before the engine's note, cutting the end if too long. */
static void note_prefix(struct rt_lfts *out, const char *prefix)
{
	char note[sizeof(out->note)];
	size_t n = strlen(prefix), m = strlen(out->note);

	if (n >= sizeof(note))
		n = sizeof(note) - 1;
	if (n + m >= sizeof(note))
		m = sizeof(note) - 1 - n;
	memcpy(note, prefix, n);
	memcpy(note + n, out->note, m);
	note[n + m] = '\0';
	memcpy(out->note, note, sizeof(note));
}

int rt_route_loom(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen)
{
	char why[200];
	int rc;

	rc = rt_route_ftree(g, out, why, sizeof(why));
	if (rc == 0) {
		struct rt_refine_stats st;
		char *tail;
		size_t room;

		note_prefix(out, "loom chose ftree: ");
		tail = out->note + strlen(out->note);
		room = sizeof(out->note) - (size_t)(tail - out->note);
		/* The ftree tables stand if the refinement cannot run. */
		if (rt_refine_tree(g, out, &st, why, sizeof(why)) < 0)
			snprintf(tail, room, "; not refined (%s)", why);
		else if (st.moves && st.windows > 1)
			snprintf(tail, room, "; refined %zu entries (shift worst %zu -> %zu, "
				 "%zu windows of shifts)", st.moves, st.shift_before,
				 st.shift_after, st.windows);
		else if (st.moves)
			snprintf(tail, room, "; refined %zu entries (shift worst %zu -> %zu)",
				 st.moves, st.shift_before, st.shift_after);
		return 0;
	}
	if (rc != -EINVAL) {
		snprintf(err, errlen, "ftree: %s", why);
		return rc;
	}
	/* Not a fat tree: start from clean tables. */
	memset(out->port, RT_NO_PORT, out->n_sw * ((size_t)out->max_lid + 1));
	out->n_routed = out->n_unreachable = 0;
	rc = rt_route_dfsssp(g, out, err, errlen);
	if (rc == 0) {
		char prefix[sizeof(why) + 64];

		snprintf(prefix, sizeof(prefix), "loom chose dfsssp (ftree: %s): ", why);
		note_prefix(out, prefix);
	}
	return rc;
}
