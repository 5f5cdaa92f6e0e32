/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_live.c: judging and tracing the forwarding tables read back from
 * a live fabric (see route_live.h).
 *
 * Two walkers look at the same tables: the metrics (lib/route/route_metrics.c)
 * count pairs on the routing graph, and the walk here follows the fabric
 * graph itself, port by port, to say *where* and *why* a path breaks (no
 * entry, a port without link, a loop, the wrong node) in terms an operator
 * can check with ibtracert. */
#include "autoconf.h"
#include "lib/route/route_live.h"
#include "lib/route/route_live_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PortInfo:PortState Active: the only state that forwards data. */
#define RL_PORT_ACTIVE 4
/* Broken pairs listed by route check; the rest are only counted. */
#define RL_MAX_BROKEN 20

struct rl_read *rl_read_new(void)
{
	return calloc(1, sizeof(struct rl_read));
}

int rl_read_add(struct rl_read *r, uint64_t guid, uint16_t lid, uint16_t top,
		const uint8_t *entries)
{
	struct rl_table *bigger = realloc(r->t, (r->n + 1) * sizeof(*r->t));
	uint8_t *port = malloc((size_t)top + 1);

	if (bigger)
		r->t = bigger;
	if (!bigger || !port) {
		free(port);
		return -ENOMEM;
	}
	memcpy(port, entries, (size_t)top + 1);
	r->t[r->n++] = (struct rl_table){ .guid = guid, .lid = lid, .top = top, .port = port };
	return 0;
}

static int table_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct rl_table *)a)->guid, y = ((const struct rl_table *)b)->guid;

	return x < y ? -1 : x > y;
}

void rl_read_sort(struct rl_read *r)
{
	if (r->n)
		qsort(r->t, r->n, sizeof(*r->t), table_cmp);
}

const struct rl_table *rl_read_find(const struct rl_read *r, uint64_t guid)
{
	struct rl_table key = { .guid = guid };

	return r->n ? bsearch(&key, r->t, r->n, sizeof(*r->t), table_cmp) : NULL;
}

void rl_read_free(struct rl_read *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->t[i].port);
	free(r->t);
	free(r->sl2vl);
	free(r);
}

struct rt_lfts *rl_lfts(const struct rt_graph *g, const struct rl_read *r, size_t *n_missing)
{
	struct rt_lfts *l = rt_lfts_new(g);

	*n_missing = 0;
	if (!l)
		return NULL;
	for (size_t s = 0; s < g->n_sw; s++) {
		const struct rl_table *t = rl_read_find(r, g->sw[s].guid);
		uint8_t *row = rt_lfts_row(l, s);

		if (!t) {
			(*n_missing)++;
			continue;
		}
		for (unsigned lid = 1; lid <= g->max_lid && lid <= t->top; lid++) {
			uint8_t p = t->port[lid];

			/* A port the switch does not have leads nowhere; the
			 * metrics must not index past the switch's ports. */
			row[lid] = p != RT_NO_PORT && p > g->sw[s].nports ? RT_NO_PORT : p;
		}
		for (unsigned lid = 1; lid <= g->max_lid; lid++) {
			if (rt_graph_lid_switch(g, lid) < 0 && rt_graph_lid_ca(g, lid) < 0)
				continue;
			if (row[lid] == RT_NO_PORT)
				l->n_unreachable++;
			else
				l->n_routed++;
		}
	}
	return l;
}

json_t *rl_metrics_json(const struct rt_metrics *m)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:b, s:f,"
			 " s:I, s:I, s:f, s:f, s:b, s:I, s:I, s:I, s:f}",
			 "pairs", (json_int_t)m->pairs, "delivered", (json_int_t)m->delivered,
			 "unreachable", (json_int_t)m->unreachable, "loops", (json_int_t)m->loops,
			 "max_hops", (json_int_t)m->max_hops, "efi_max", (json_int_t)m->efi_max,
			 "efi_mean", m->efi_mean, "efi_links", (json_int_t)m->efi_links,
			 "shifts", (json_int_t)m->shifts,
			 "shift_max_load", (json_int_t)m->shift_max_load,
			 "shift_worst_k", (json_int_t)m->shift_worst_k,
			 "shifts_total", (json_int_t)m->shifts_total,
			 "shifts_sampled", m->shifts_sampled, "shift_bound95", m->shift_bound95,
			 "randoms", (json_int_t)m->randoms,
			 "random_max_load", (json_int_t)m->random_max_load,
			 "random_mean_load", m->random_mean_load,
			 "random_mean_se", m->random_mean_se,
			 "cdg_acyclic", m->cdg_acyclic, "cdg_vls", (json_int_t)m->cdg_vls,
			 "cdg_edges", (json_int_t)m->cdg_edges,
			 "bisections", (json_int_t)m->bisections, "ebb", m->ebb);
}

/* ---- the walk -------------------------------------------------------------------- */

struct hop {
	const struct fab_node *sw;
	unsigned in_port;          /* 0: the walk starts at this switch */
	int out_port;              /* -1: none (the walk broke before leaving) */
};

struct walk {
	const struct fab *fab;
	const struct rl_read *r;
	const struct nodename_map *names;  /* the site's (NULL: none) */
	struct hop *hops;          /* room for max_hops */
	size_t max_hops, n_hops;
	char reason[256];          /* why it broke; "" when delivered */
};

static int holds_lid(const struct fab_port *p, unsigned lid)
{
	return p->lid && lid >= p->lid && lid < (unsigned)p->lid + (1u << p->lmc);
}

/* A node in a reason: the site's name, else its description. */
static const char *name_of(const struct walk *w, const struct fab_node *n)
{
	const char *name = nodename_of(w->names, n->guid, n->desc);

	return name[0] ? name : "(no description)";
}

/* Follow the tables from port `port` of node src (a switch: port 0) toward
 * dlid. 1 delivered, 0 broken (w->reason says where and why). */
static int walk(struct walk *w, const struct fab_node *src, unsigned port, unsigned dlid)
{
	const struct fab_node *cur = src;
	unsigned in_port = 0;
	char g[24];

	w->n_hops = 0;
	w->reason[0] = '\0';
	if (src->type != IBT_NODE_SWITCH) {
		const struct fab_port *p = fab_port(src, port);
		const struct fab_port *pp;

		if (p && holds_lid(p, dlid))
			return 1;
		if (!p || !p->has_peer || p->state != RL_PORT_ACTIVE) {
			snprintf(w->reason, sizeof(w->reason), "the source port %u of \"%s\" is "
				 "not active", port, name_of(w, src));
			return 0;
		}
		pp = fab_peer(w->fab, p, &cur);
		if (!pp || cur->type != IBT_NODE_SWITCH) {
			if (pp && holds_lid(pp, dlid))
				return 1;
			snprintf(w->reason, sizeof(w->reason), "the source \"%s\" is not cabled "
				 "to a switch", name_of(w, src));
			return 0;
		}
		in_port = p->peer_port;
	}
	for (;;) {
		const struct rl_table *t = rl_read_find(w->r, cur->guid);
		const struct fab_port *op, *pp;
		const struct fab_node *next;
		struct hop *h;
		unsigned out;

		for (size_t i = 0; i < w->n_hops; i++)
			if (w->hops[i].sw == cur) {
				snprintf(w->reason, sizeof(w->reason), "loop: back at switch \"%s\" "
					 "(%s), first reached at hop %zu", name_of(w, cur),
					 ibt_guid_str(cur->guid, g, sizeof(g)), i + 1);
				return 0;
			}
		if (w->n_hops == w->max_hops) {
			snprintf(w->reason, sizeof(w->reason), "loop: more hops than switches");
			return 0;
		}
		h = &w->hops[w->n_hops++];
		*h = (struct hop){ .sw = cur, .in_port = in_port, .out_port = -1 };
		if (!t) {
			snprintf(w->reason, sizeof(w->reason), "no table was read from switch "
				 "\"%s\" (%s)", name_of(w, cur), ibt_guid_str(cur->guid, g, sizeof(g)));
			return 0;
		}
		if (dlid > t->top || t->port[dlid] == RT_NO_PORT) {
			snprintf(w->reason, sizeof(w->reason), "switch \"%s\" has no entry for "
				 "LID %u%s", name_of(w, cur), dlid, dlid > t->top ?
				 " (above its LinearFDBTop)" : "");
			return 0;
		}
		out = t->port[dlid];
		h->out_port = (int)out;
		if (out == 0) {
			if (holds_lid(&cur->ports[0], dlid))
				return 1;
			snprintf(w->reason, sizeof(w->reason), "switch \"%s\" forwards LID %u to "
				 "itself (port 0) but does not hold it", name_of(w, cur), dlid);
			return 0;
		}
		op = fab_port(cur, out);
		if (out > cur->nports || !op) {
			snprintf(w->reason, sizeof(w->reason), "switch \"%s\" forwards LID %u to "
				 "port %u, which it does not have", name_of(w, cur), dlid, out);
			return 0;
		}
		if (!op->has_peer || op->state != RL_PORT_ACTIVE) {
			snprintf(w->reason, sizeof(w->reason), "switch \"%s\" forwards LID %u to "
				 "port %u, which is %s", name_of(w, cur), dlid, out,
				 op->has_peer ? ibt_port_state_name(op->state) : "down (no link)");
			return 0;
		}
		pp = fab_peer(w->fab, op, &next);
		if (!pp) {
			snprintf(w->reason, sizeof(w->reason), "port %u of switch \"%s\" leads to "
				 "a node the sweep does not know", out, name_of(w, cur));
			return 0;
		}
		if (next->type != IBT_NODE_SWITCH) {
			if (holds_lid(pp, dlid))
				return 1;
			snprintf(w->reason, sizeof(w->reason), "switch \"%s\" port %u leads to "
				 "\"%s\" port %u, which does not hold LID %u", name_of(w, cur), out,
				 name_of(w, next), pp->num, dlid);
			return 0;
		}
		cur = next;
		in_port = op->peer_port;
	}
}

static int walk_init(struct walk *w, const struct fab *fab, const struct rl_read *r,
		     const struct nodename_map *names)
{
	size_t n_sw = fab_count_type(fab, IBT_NODE_SWITCH);

	*w = (struct walk){ .fab = fab, .r = r, .names = names, .max_hops = n_sw + 1 };
	w->hops = calloc(w->max_hops, sizeof(*w->hops));
	return w->hops ? 0 : -ENOMEM;
}

/* ---- route check ---------------------------------------------------------------- */

static json_t *broken_json(const struct rt_graph *g, const struct nodename_map *names, size_t a,
			   size_t b, const char *reason)
{
	char ga[24], gb[24];

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "src", g->ca[a].desc,
			 "src_name", nodename_of(names, g->ca[a].node_guid, g->ca[a].desc),
			 "src_guid", ibt_guid_str(g->ca[a].guid, ga, sizeof(ga)),
			 "dst", g->ca[b].desc,
			 "dst_name", nodename_of(names, g->ca[b].node_guid, g->ca[b].desc),
			 "dst_guid", ibt_guid_str(g->ca[b].guid, gb, sizeof(gb)),
			 "dlid", (int)g->ca[b].lid, "reason", reason);
}

int rl_check(const struct fab *fab, const struct rl_read *r, const struct nodename_map *names,
	     const struct rt_metrics_opts *opts, const struct rl_vl_input *vl, json_t **out,
	     char *err, size_t errlen)
{
	struct rt_graph *g = rt_graph_new(fab, err, errlen);
	struct rt_lfts *l = NULL;
	struct rt_sl2vl *t = NULL;
	json_t *vls = NULL;
	struct rt_metrics_opts o = opts ? *opts : (struct rt_metrics_opts){ 0 };
	struct rt_metrics m;
	struct walk w = { 0 };
	json_t *broken = NULL;
	size_t missing = 0, n_broken = 0;
	int rc = -ENOMEM;

	*out = NULL;
	if (!g)
		return -EINVAL;
	if (g->lids_assigned) {
		snprintf(err, errlen, "the fabric has switches or CA ports without a LID (no "
			 "subnet manager has run?): forwarding tables mean nothing yet");
		rc = -EINVAL;
		goto out;
	}
	rt_metrics_opts_auto(g, &o);  /* every shift of a huge fabric is minutes */
	g->pool = o.pool;
	if (!(l = rl_lfts(g, r, &missing)) || rl_vl_prepare(g, l, vl, &t, &vls) < 0)
		goto nomem;
	o.sl2vl = t;
	if (rt_metrics_compute(g, l, &o, &m) < 0 || rl_vl_judged(g, names, &m, vls) < 0 ||
	    walk_init(&w, fab, r, names) < 0 || !(broken = json_array()))
		goto nomem;
	/* The metrics count; this walk says why, pair by pair. */
	for (size_t a = 0; a < g->n_ca; a++) {
		const struct fab_node *src = fab_find(fab, g->ca[a].node_guid);

		for (size_t b = 0; b < g->n_ca && src; b++) {
			if (a == b || walk(&w, src, g->ca[a].port, g->ca[b].lid))
				continue;
			if (n_broken++ < RL_MAX_BROKEN &&
			    json_array_append_new(broken, broken_json(g, names, a, b, w.reason)) < 0)
				goto nomem;
		}
	}
	*out = json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:O, s:O}",
			 "switches", (json_int_t)g->n_sw, "ca_ports", (json_int_t)g->n_ca,
			 "missing_tables", (json_int_t)missing,
			 "routed_entries", (json_int_t)l->n_routed,
			 "unroutable_entries", (json_int_t)l->n_unreachable,
			 "metrics", rl_metrics_json(&m), "broken_pairs", (json_int_t)n_broken,
			 "broken", broken, "vls", vls);
	if (!*out)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
	rc = -ENOMEM;
out:
	json_decref(broken);
	json_decref(vls);
	rt_sl2vl_free(t);
	free(w.hops);
	rt_lfts_free(l);
	rt_graph_free(g);
	return rc;
}

/* ---- route trace ---------------------------------------------------------------- */

/* The port of a node that stands for it as an endpoint: port 0 of a switch,
 * else the first port with a LID (then the first with a link). */
static unsigned main_port(const struct fab_node *n)
{
	if (n->type == IBT_NODE_SWITCH)
		return 0;
	for (unsigned p = 1; p <= n->nports; p++)
		if (n->ports[p].present && n->ports[p].lid)
			return p;
	for (unsigned p = 1; p <= n->nports; p++)
		if (n->ports[p].present && n->ports[p].has_peer)
			return p;
	return 1;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* The host name in a description: its first word ("node001 mlx5_0"). */
static int first_word_is(const char *desc, const char *name)
{
	size_t n = strlen(name);

	return strncmp(desc, name, n) == 0 && (desc[n] == ' ' || desc[n] == '\0');
}

static int resolve(const struct fab *fab, const struct nodename_map *names, const char *spec,
		   const struct fab_node **node, unsigned *port, char *err, size_t errlen)
{
	uint64_t guid;
	size_t found = 0;

	*node = NULL;
	if (all_digits(spec)) {
		unsigned long lid = strtoul(spec, NULL, 10);

		for (size_t i = 0; i < fab->n_nodes && !*node; i++) {
			const struct fab_node *n = fab->nodes[i];

			for (unsigned p = 0; p <= n->nports; p++)
				if (n->ports[p].present && lid <= 0xffff &&
				    holds_lid(&n->ports[p], (unsigned)lid) &&
				    (p == 0 || n->type != IBT_NODE_SWITCH)) {
					*node = n;
					*port = p;
					break;
				}
		}
		if (!*node) {
			snprintf(err, errlen, "no port holds LID %s", spec);
			return -ENOENT;
		}
		return 0;
	}
	if ((strncmp(spec, "0x", 2) == 0 || strncmp(spec, "0X", 2) == 0) &&
	    ibt_guid_parse(spec, &guid) == 0) {
		const struct fab_node *n = fab_find(fab, guid);

		if (n) {
			*node = n;
			*port = main_port(n);
			return 0;
		}
		for (size_t i = 0; i < fab->n_nodes; i++) {
			n = fab->nodes[i];
			for (unsigned p = 0; p <= n->nports; p++)
				if (n->ports[p].present && n->ports[p].guid == guid) {
					*node = n;
					*port = n->type == IBT_NODE_SWITCH ? 0 : p;
					return 0;
				}
		}
		snprintf(err, errlen, "no node or port has GUID %s", spec);
		return -ENOENT;
	}
	/* A full name or description wins over a host name that prefixes others. */
	for (int pass = 0; pass < 2 && !found; pass++)
		for (size_t i = 0; i < fab->n_nodes; i++) {
			const struct fab_node *n = fab->nodes[i];
			const char *name = nodename_get(names, n->guid);

			if (pass == 0 ? strcmp(n->desc, spec) != 0 && (!name || strcmp(name, spec)) :
			    !first_word_is(n->desc, spec))
				continue;
			if (found++) {
				snprintf(err, errlen, "\"%s\" names several nodes (\"%s\", \"%s\", "
					 "...): use a GUID or a LID", spec,
					 nodename_of(names, (*node)->guid, (*node)->desc),
					 nodename_of(names, n->guid, n->desc));
				return -EEXIST;
			}
			*node = n;
		}
	if (!found) {
		snprintf(err, errlen, "no node is called \"%s\" (a host name, node %s"
			 "description, GUID 0x... or LID)", spec,
			 nodename_map_count(names) ? "name, " : "");
		return -ENOENT;
	}
	*port = main_port(*node);
	return 0;
}

static json_t *end_json(const struct fab_node *n, unsigned port,
			const struct nodename_map *names)
{
	const struct fab_port *p = fab_port(n, port);
	char g[24], pg[24];

	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:s}", "type", ibt_node_type_name(n->type),
			 "guid", ibt_guid_str(n->guid, g, sizeof(g)),
			 "port_guid", ibt_guid_str(p ? p->guid : 0, pg, sizeof(pg)),
			 "port", (int)port, "lid", p ? (int)p->lid : 0, "desc", n->desc,
			 "name", nodename_of(names, n->guid, n->desc));
}

int rl_trace(const struct fab *fab, const struct rl_read *r, const struct nodename_map *names,
	     const char *src, const char *dst, json_t **out, char *err, size_t errlen)
{
	const struct fab_node *sn, *dn;
	unsigned sp, dp;
	const struct fab_port *dport;
	struct walk w;
	json_t *hops;
	int rc, delivered;

	*out = NULL;
	if ((rc = resolve(fab, names, src, &sn, &sp, err, errlen)) < 0 ||
	    (rc = resolve(fab, names, dst, &dn, &dp, err, errlen)) < 0)
		return rc;
	dport = fab_port(dn, dp);
	if (!dport || !dport->lid) {
		snprintf(err, errlen, "\"%s\" has no LID to route to",
			 nodename_of(names, dn->guid, dn->desc));
		return -EINVAL;
	}
	if (walk_init(&w, fab, r, names) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	delivered = walk(&w, sn, sp, dport->lid);
	hops = json_array();
	for (size_t i = 0; hops && i < w.n_hops; i++) {
		const struct hop *h = &w.hops[i];
		char g[24];

		json_array_append_new(hops, json_pack(
			"{s:s, s:s, s:s, s:i, s:i, s:o}",
			"guid", ibt_guid_str(h->sw->guid, g, sizeof(g)), "desc", h->sw->desc,
			"name", nodename_of(names, h->sw->guid, h->sw->desc),
			"lid", (int)h->sw->ports[0].lid, "in_port", (int)h->in_port, "out_port",
			h->out_port < 0 ? json_null() : json_integer(h->out_port)));
	}
	*out = json_pack("{s:o, s:o, s:i, s:b, s:o, s:s?}", "src", end_json(sn, sp, names),
			 "dst", end_json(dn, dp, names), "dlid", (int)dport->lid,
			 "delivered", delivered,
			 "hops", hops, "reason", delivered ? NULL : w.reason);
	free(w.hops);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}
