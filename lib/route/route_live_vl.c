/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_live_vl.c: route check's credit loops per virtual lane
 * (route_live_int.h): the SL-to-VL tables read back with the forwarding
 * tables, the SLs from the file loom's OpenSM plugin writes, and the cycle
 * the judge found, named as an operator reads it.
 *
 * The SLs a path carries are handed out by the SA (PathRecord) and are on
 * no switch: the plugin's file is what its engine answers PathRecords with.
 * Everything else judged, forwarding and SL-to-VL tables, is the fabric's
 * own state as read. Without the file every path is judged on SL 0, and
 * the answer says so. */
#include "autoconf.h"
#include "lib/route/route_live_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_read_add_sl2vl(struct rl_read *r, uint64_t guid, unsigned in, unsigned out,
		      const uint8_t vl[16])
{
	if (r->n_sl2vl == r->cap_sl2vl) {
		size_t cap = r->cap_sl2vl ? 2 * r->cap_sl2vl : 64;
		struct rl_sl2vl *bigger = realloc(r->sl2vl, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		r->sl2vl = bigger;
		r->cap_sl2vl = cap;
	}
	r->sl2vl[r->n_sl2vl] = (struct rl_sl2vl){ .guid = guid, .in = (uint8_t)in,
						  .out = (uint8_t)out };
	memcpy(r->sl2vl[r->n_sl2vl++].vl, vl, 16);
	return 0;
}

/* The read's tables laid out for g (pairs of switches g lacks are skipped). */
static struct rt_sl2vl *tables_of(const struct rt_graph *g, const struct rl_read *r)
{
	struct rt_sl2vl *t = rt_sl2vl_new(g);

	for (size_t i = 0; t && i < r->n_sl2vl; i++) {
		const struct rl_sl2vl *p = &r->sl2vl[i];
		int32_t s = rt_graph_switch(g, p->guid);

		if (s >= 0)
			(void)rt_sl2vl_set(t, (size_t)s, p->in, p->out, p->vl);
	}
	return t;
}

/* l->sl from the SL file; what happened in vls. */
static int sls_of(const struct rt_graph *g, struct rt_lfts *l, const char *path, json_t *vls)
{
	char err[512] = "";
	size_t n = 0;
	FILE *f = fopen(path, "re");
	int rc;

	if (!f) {
		rc = -errno;
		snprintf(err, sizeof(err), "%s: %s", path, strerror(-rc));
	} else {
		rc = rt_sls_read(g, l, f, path, &n, err, sizeof(err));
		fclose(f);
	}
	if (rc == -ENOMEM)
		return rc;
	if (rc == -ENOENT)  /* none written: no loom engine on layers */
		return 0;
	if (rc < 0) {
		free(l->sl);
		l->sl = NULL;
		l->n_vls = 0;
		return json_object_set_new(vls, "sls_error", json_string(err));
	}
	return json_object_set_new(vls, "sls", json_string("file")) |
	       json_object_set_new(vls, "sls_switches", json_integer((json_int_t)n));
}

int rl_vl_prepare(const struct rt_graph *g, struct rt_lfts *l, const struct rl_vl_input *vl,
		  struct rt_sl2vl **t, json_t **vls)
{
	const struct rl_read *r = vl ? vl->sl2vl : NULL;

	*t = NULL;
	if (!(*vls = json_pack("{s:s, s:I, s:s, s:s?}", "sl2vl", r ? "read" : "not read",
			       "sl2vl_pairs", (json_int_t)(r ? r->n_sl2vl : 0), "sls", "unknown",
			       "sls_file", vl ? vl->sls_file : NULL)))
		return -ENOMEM;
	if (r && !(*t = tables_of(g, r)))
		return -ENOMEM;
	if (vl && vl->sls_file && vl->sls_file[0] && sls_of(g, l, vl->sls_file, *vls) < 0)
		return -ENOMEM;
	return 0;
}

/* "name[port]" of channel c (a global port index) at the end of buf. */
static void name_channel(const struct rt_graph *g, const struct nodename_map *names, uint32_t c,
			 char *buf, size_t len)
{
	size_t used = strlen(buf), s = 0;

	while (s + 1 < g->n_sw && g->sw[s + 1].first_port <= c)
		s++;
	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s[%u]",
			 nodename_of(names, g->sw[s].guid, g->sw[s].desc),
			 (unsigned)(c - g->sw[s].first_port));
}

int rl_vl_judged(const struct rt_graph *g, const struct nodename_map *names,
		 const struct rt_metrics *m, json_t *vls)
{
	json_t *loop = json_null();

	if (m->cdg_cycle_vl >= 0) {
		char cycle[2048] = "";
		size_t n = m->cdg_cycle_len < RT_METRICS_CYCLE_MAX ? m->cdg_cycle_len :
			   RT_METRICS_CYCLE_MAX;

		for (size_t i = 0; i < n; i++) {
			name_channel(g, names, m->cdg_cycle[i], cycle, sizeof(cycle));
			strncat(cycle, " -> ", sizeof(cycle) - strlen(cycle) - 1);
		}
		if (n < m->cdg_cycle_len)
			strncat(cycle, "... -> ", sizeof(cycle) - strlen(cycle) - 1);
		name_channel(g, names, m->cdg_cycle[0], cycle, sizeof(cycle));
		loop = json_pack("{s:i, s:I, s:s}", "vl", m->cdg_cycle_vl, "channels",
				 (json_int_t)m->cdg_cycle_len, "cycle", cycle);
	}
	if (!loop || json_object_set_new(vls, "credit_loop", loop) < 0 ||
	    json_object_set_new(vls, "vl_changes", json_integer((json_int_t)m->cdg_vl_changes)) < 0 ||
	    json_object_set_new(vls, "vl_loop", json_boolean(m->cdg_vl_loop)) < 0)
		return -ENOMEM;
	return 0;
}
