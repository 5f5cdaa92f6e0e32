/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/cabling.c: a fabric against its cabling plan (cabling.h). A
 * plan's node is found by GUID, else by the site's name (names), else by
 * description; findings name a found node by the site's name where the map
 * has one, else as the plan (or, for what the fabric has, the description)
 * does: without a map, as before. */
#include "autoconf.h"
#include "lib/validate/cabling.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"

/* ---- the fabric's nodes by name and description, and its ports' marks -------------- */

struct by_desc {
	const char *desc;
	size_t idx;          /* into fab->nodes */
};

static int desc_cmp(const void *x, const void *y)
{
	return strcmp(((const struct by_desc *)x)->desc, ((const struct by_desc *)y)->desc);
}

struct ctx {
	const struct plan *p;
	const struct fab *fab;
	struct val_report *r;
	const struct nodename_map *nm;  /* the site's names, or NULL */
	struct by_desc *mapped;     /* the nodes the map names, by that name, sorted */
	size_t n_mapped;
	struct by_desc *names;      /* every node by description, sorted */
	uint64_t *guids;            /* fab->nodes' GUIDs sorted, with ... */
	size_t *guid_idx;           /* ... their index */
	uint8_t **mark;             /* per node, per port: 1 the plan names it, 2 explained */
	size_t **end_of;            /* per node, per port: the plan's cable + 1 (0 none) */
	uint8_t *state;             /* per cable: 0 unchecked, 1 ok, 2 wrong, 3 done */
	const struct cabling_ports *ports; /* how findings write ports (NULL: numbers) */
	char lab[8][PLAN_PORT_LEN]; /* the last labels port_text made, in turn */
	unsigned n_lab;
};

/* How findings write port `port` of node idx: its number, or the name
 * c->ports gives it (issue 43: an Ethernet fabric's ports). Valid for the
 * next seven calls. */
static const char *port_text(struct ctx *c, size_t idx, unsigned port)
{
	char *b = c->lab[c->n_lab++ % 8];
	const char *name = c->ports ? c->ports->name(c->ports->arg, c->fab->nodes[idx], port) : NULL;

	if (name)
		snprintf(b, PLAN_PORT_LEN, "%s", name);
	else
		snprintf(b, PLAN_PORT_LEN, "%u", port);
	return b;
}

/* desc in v[0..n) (sorted): 1 with *idx, 0 none, -1 several. */
static int find_in(const struct by_desc *v, size_t n, const char *desc, size_t *idx)
{
	struct by_desc k = { desc, 0 };
	const struct by_desc *hit = n ? bsearch(&k, v, n, sizeof(k), desc_cmp) : NULL;

	if (!hit)
		return 0;
	if ((hit > v && !strcmp(hit[-1].desc, desc)) ||
	    (hit + 1 < v + n && !strcmp(hit[1].desc, desc)))
		return -1;
	*idx = hit->idx;
	return 1;
}

/* The node a plan's name names: the site's name first, then the
 * description. NULL when none or several (*dup). */
static const struct fab_node *node_named(const struct ctx *c, const char *desc, size_t *idx,
					 int *dup)
{
	int found = find_in(c->mapped, c->n_mapped, desc, idx);

	if (!found)
		found = find_in(c->names, c->fab->n_nodes, desc, idx);
	*dup = found < 0;
	return found > 0 ? c->fab->nodes[*idx] : NULL;
}

static size_t idx_of(const struct ctx *c, uint64_t guid)
{
	size_t lo = 0, hi = c->fab->n_nodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->guids[mid] < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->fab->n_nodes && c->guids[lo] == guid ? c->guid_idx[lo] : (size_t)-1;
}

static int guid_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The node a plan's end names: by its GUID when the plan has one and the
 * fabric holds it (*renamed when its description is another), else by
 * description. NULL when none or several (*dup). */
static const struct fab_node *node_of(const struct ctx *c, const char *desc, uint64_t guid,
				      size_t *idx, int *dup, int *renamed);

/* The port at the other end of node idx's port num: its node's index and
 * port, or -1. */
static int peer_of(const struct ctx *c, size_t idx, unsigned num, size_t *pidx, unsigned *pport)
{
	const struct fab_port *pt = fab_port(c->fab->nodes[idx], num);

	if (!pt || !pt->has_peer || (*pidx = idx_of(c, pt->peer_guid)) == (size_t)-1)
		return -1;
	*pport = pt->peer_port;
	return 0;
}

static const char *desc_of(const struct ctx *c, size_t idx)
{
	return c->fab->nodes[idx]->desc;
}

/* How findings name node idx of the fabric: the site's name, else its
 * description. */
static const char *name_of(const struct ctx *c, size_t idx)
{
	return nodename_of(c->nm, c->fab->nodes[idx]->guid, c->fab->nodes[idx]->desc);
}

/* How findings name node idx where the plan's text names it: the site's
 * name, else the plan's own words (a plan by GUID may describe a node
 * otherwise than the fabric does). */
static const char *planned(const struct ctx *c, size_t idx, const char *text)
{
	const char *name = nodename_get(c->nm, c->fab->nodes[idx]->guid);

	return name ? name : text;
}

static void explain(struct ctx *c, size_t idx, unsigned port)
{
	size_t pidx;
	unsigned pport;

	if (port <= c->fab->nodes[idx]->nports)
		c->mark[idx][port] = 2;
	if (peer_of(c, idx, port, &pidx, &pport) == 0 && pport <= c->fab->nodes[pidx]->nports)
		c->mark[pidx][pport] = 2;
}

/* ---- the checks ------------------------------------------------------------------------- */

struct ends {
	size_t a, b;         /* node indexes */
	int ok;              /* both nodes found */
};

static struct ends ends_of(const struct ctx *c, const struct plan_cable *pc)
{
	struct ends e = { 0, 0, 0 };
	int dup, ren;

	e.ok = node_of(c, pc->a, pc->a_guid, &e.a, &dup, &ren) &&
	       node_of(c, pc->b, pc->b_guid, &e.b, &dup, &ren) &&
	       pc->a_port <= c->fab->nodes[e.a]->nports && pc->b_port <= c->fab->nodes[e.b]->nports;
	return e;
}

/* A cable with an unknown node at one end: the known end's port is
 * explained by the unknown-node finding (no "extra" for the cable that is
 * there, to a node by another name). */
static void mark_known_end(struct ctx *c, const struct plan_cable *pc)
{
	size_t idx;
	int dup, ren;

	if (node_of(c, pc->a, pc->a_guid, &idx, &dup, &ren) &&
	    pc->a_port <= c->fab->nodes[idx]->nports)
		explain(c, idx, pc->a_port);
	if (node_of(c, pc->b, pc->b_guid, &idx, &dup, &ren) &&
	    pc->b_port <= c->fab->nodes[idx]->nports)
		explain(c, idx, pc->b_port);
}

static int check_speed(struct ctx *c, const struct plan_cable *pc, size_t a, size_t b)
{
	const struct fab_port *pt = fab_port(c->fab->nodes[a], pc->a_port);
	char want[64] = "", got[64];

	if (!pt)
		return 0;
	if ((!pc->width || ibt_width_lanes(pt->width_active) >= ibt_width_lanes(pc->width)) &&
	    (!pc->speed || pt->speed_active >= pc->speed))
		return 0;
	snprintf(want, sizeof(want), "%s %s", pc->width ? ibt_width_name(pc->width) : "",
		 pc->speed ? ibt_speed_name(pc->speed) : "");
	snprintf(got, sizeof(got), "%s %s", ibt_width_name(pt->width_active),
		 ibt_speed_name(pt->speed_active));
	return val_add(c->r, VAL_SLOW, pc->line, want, got, "%s[%s] - %s[%s]",
		       planned(c, a, pc->a), port_text(c, a, pc->a_port), planned(c, b, pc->b),
		       port_text(c, b, pc->b_port));
}

/* Cable i is wrong and its A end is cabled to the B end of cable j, whose
 * A end is cabled to i's B end: one swap. */
static int find_swap(struct ctx *c, size_t i, size_t a, unsigned a_port, size_t b, unsigned b_port)
{
	const struct plan_cable *pi = &c->p->cables[i], *pj;
	size_t x, y, j;
	unsigned xp, yp;

	if (peer_of(c, a, a_port, &x, &xp) < 0 || !c->end_of[x][xp])
		return 0;
	j = c->end_of[x][xp] - 1;
	if (j == i || c->state[j] != 2)
		return 0;
	pj = &c->p->cables[j];
	/* the other end of j, (y, yp), must be cabled to (b, b_port) */
	struct ends ei = ends_of(c, pi), ej = ends_of(c, pj);

	{
		if (!ej.ok)
			return 0;
		if (ej.a == x && pj->a_port == xp) {
			y = ej.b;
			yp = pj->b_port;
		} else {
			y = ej.a;
			yp = pj->a_port;
		}
	}
	{
		size_t z;
		unsigned zp;

		if (peer_of(c, y, yp, &z, &zp) < 0 || z != b || zp != b_port)
			return 0;
	}
	c->state[i] = c->state[j] = 3;
	explain(c, a, a_port);
	explain(c, b, b_port);
	{
		char want[4 * NODENAME_LEN + 64], got[4 * NODENAME_LEN + 64];

		snprintf(want, sizeof(want), "%s[%s] - %s[%s], %s[%s] - %s[%s]", pi->a,
			 port_text(c, ei.a, pi->a_port), pi->b, port_text(c, ei.b, pi->b_port), pj->a,
			 port_text(c, ej.a, pj->a_port), pj->b, port_text(c, ej.b, pj->b_port));
		snprintf(got, sizeof(got), "%s[%s] - %s[%s], %s[%s] - %s[%s]", name_of(c, a),
			 port_text(c, a, a_port), name_of(c, x), port_text(c, x, xp), name_of(c, y),
			 port_text(c, y, yp), name_of(c, b), port_text(c, b, b_port));
		/* the two ends whose cables went into each other's place */
		return val_add(c->r, VAL_SWAPPED, pi->line, want, got, "%s[%s] and %s[%s]",
			   name_of(c, a), port_text(c, a, a_port), name_of(c, y), port_text(c, y, yp));
	}
}

static int one_wrong(struct ctx *c, size_t i)
{
	const struct plan_cable *pc = &c->p->cables[i];
	struct ends e = ends_of(c, pc);
	char want[2 * NODENAME_LEN + 32], got[2 * NODENAME_LEN + 32];
	size_t x;
	unsigned xp;
	int la, lb;

	snprintf(want, sizeof(want), "%s[%s] - %s[%s]", pc->a, port_text(c, e.a, pc->a_port), pc->b,
		 port_text(c, e.b, pc->b_port));
	/* the end that is not as planned (an Ethernet fabric's two ends may
	 * say different things: LLDP is each switch's own view) */
	la = peer_of(c, e.a, pc->a_port, &x, &xp) == 0 && !(x == e.b && xp == pc->b_port);
	if (!la) {
		size_t y;
		unsigned yp;

		lb = peer_of(c, e.b, pc->b_port, &y, &yp) == 0;
		if (!lb)
			return val_add(c->r, VAL_MISSING, pc->line, want, "", "%s[%s] - %s[%s]",
				       planned(c, e.a, pc->a), port_text(c, e.a, pc->a_port),
				       planned(c, e.b, pc->b), port_text(c, e.b, pc->b_port));
		explain(c, e.b, pc->b_port);
		snprintf(got, sizeof(got), "%s[%s] - %s[%s]", planned(c, e.b, pc->b),
			 port_text(c, e.b, pc->b_port), name_of(c, y), port_text(c, y, yp));
		return val_add(c->r, y == e.a ? VAL_MISWIRED : VAL_WRONG_PEER, pc->line, want, got,
			   "%s[%s]", planned(c, e.b, pc->b), port_text(c, e.b, pc->b_port));
	}
	explain(c, e.a, pc->a_port);
	snprintf(got, sizeof(got), "%s[%s] - %s[%s]", planned(c, e.a, pc->a),
		 port_text(c, e.a, pc->a_port), name_of(c, x), port_text(c, x, xp));
	return val_add(c->r, x == e.b ? VAL_MISWIRED : VAL_WRONG_PEER, pc->line, want, got, "%s[%s]",
		   planned(c, e.a, pc->a), port_text(c, e.a, pc->a_port));
}

static int extra_link(const struct fab_link *l, void *arg)
{
	struct ctx *c = arg;
	size_t a = idx_of(c, l->a_node->guid), b = idx_of(c, l->b_node->guid);

	if (c->mark[a][l->a->num] || c->mark[b][l->b->num])
		return 0;   /* planned, or explained by a finding */
	if (!c->mark[a][0] && !c->mark[b][0])
		return 0;   /* neither node is in the plan */
	return val_add(c->r, VAL_EXTRA, 0, "", "", "%s[%s] - %s[%s]", name_of(c, a),
		   port_text(c, a, l->a->num), name_of(c, b), port_text(c, b, l->b->num)) < 0 ? -1 : 0;
}

/* One end of a plan's cable, for listing the plan's nodes once each. */
struct plan_end {
	const char *desc;
	uint64_t guid;
	size_t cable;
};

/* By GUID, then description: the GUIDless ends of one name together. */
static int plan_end_cmp(const void *x, const void *y)
{
	const struct plan_end *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->guid ? 0 : strcmp(a->desc, b->desc);
}

static const struct fab_node *node_of(const struct ctx *c, const char *desc, uint64_t guid,
				      size_t *idx, int *dup, int *renamed)
{
	*renamed = 0;
	if (guid && (*idx = idx_of(c, guid)) != (size_t)-1) {
		*dup = 0;
		*renamed = strcmp(desc_of(c, *idx), desc) != 0 && strcmp(name_of(c, *idx), desc) != 0;
		return c->fab->nodes[*idx];
	}
	return node_named(c, desc, idx, dup);
}

static int check_plan(struct ctx *c, char *err, size_t errlen)
{
	const struct plan *p = c->p;
	struct val_report *r = c->r;
	size_t i, unmatched = 0;
	const char *first = NULL;
	int mapped = nodename_map_count(c->nm) > 0;   /* an empty map is none */
	int rc = 0;

	/* The plan's nodes, each once (by GUID where the plan has one, else by
	 * description): matched or not. */
	{
		struct plan_end *pn = calloc(2 * p->n + 1, sizeof(*pn));

		if (!pn)
			return -ENOMEM;
		for (i = 0; i < p->n; i++) {
			pn[2 * i] = (struct plan_end){ p->cables[i].a, p->cables[i].a_guid, i };
			pn[2 * i + 1] = (struct plan_end){ p->cables[i].b, p->cables[i].b_guid, i };
		}
		qsort(pn, 2 * p->n, sizeof(*pn), plan_end_cmp);
		for (i = 0; i < 2 * p->n; i++) {
			unsigned line = p->cables[pn[i].cable].line;
			size_t idx;
			int dup, ren;

			if (i && !plan_end_cmp(&pn[i], &pn[i - 1]))
				continue;
			r->plan_nodes++;
			if (node_of(c, pn[i].desc, pn[i].guid, &idx, &dup, &ren)) {
				r->nodes_matched++;
				c->mark[idx][0] = 1;   /* port 0: the node is the plan's */
				if (ren && val_add(r, VAL_RENAMED, line, pn[i].desc, desc_of(c, idx),
						   "%s (GUID 0x%016llx)", pn[i].desc,
						   (unsigned long long)pn[i].guid) < 0) {
					free(pn);
					return -ENOMEM;
				}
				continue;
			}
			unmatched++;
			first = first ? first : pn[i].desc;
			if (!pn[i].desc[0] ?   /* an undescribed node of a plan with GUIDs */
			    val_add(r, VAL_UNKNOWN_NODE, line, "", "no node has this GUID",
				    "GUID 0x%016llx", (unsigned long long)pn[i].guid) < 0 :
			    val_add(r, VAL_UNKNOWN_NODE, line, "", dup ? (mapped ?
				    "several nodes have this name or description" :
				    "several nodes have this description") : mapped ?
				    "no node has this name or description" :
				    "no node has this description", "%s", pn[i].desc) < 0) {
				free(pn);
				return -ENOMEM;
			}
		}
		free(pn);
	}
	if (r->plan_nodes >= 4 && 2 * r->nodes_matched < r->plan_nodes) {
		snprintf(err, errlen, "%s: %zu of the plan's %zu nodes are not in the fabric (first: "
			 "\"%s\"): a plan for another fabric?", p->source, unmatched, r->plan_nodes,
			 first);
		return -EINVAL;
	}
	/* Every planned port, marked; then each cable as it is. */
	for (i = 0; i < p->n; i++) {
		struct ends e = ends_of(c, &p->cables[i]);

		if (!e.ok) {
			mark_known_end(c, &p->cables[i]);
			continue;
		}
		c->mark[e.a][p->cables[i].a_port] = 1;
		c->mark[e.b][p->cables[i].b_port] = 1;
		c->end_of[e.a][p->cables[i].a_port] = i + 1;
		c->end_of[e.b][p->cables[i].b_port] = i + 1;
	}
	for (i = 0; i < p->n && rc == 0; i++) {
		const struct plan_cable *pc = &p->cables[i];
		struct ends e = ends_of(c, pc);
		size_t x, y;
		unsigned xp, yp;

		if (!e.ok)
			continue;
		/* as planned from A, and from B when B says anything (always the
		 * same in an IB graph; LLDP's two views may differ) */
		if (peer_of(c, e.a, pc->a_port, &x, &xp) == 0 && x == e.b && xp == pc->b_port &&
		    (peer_of(c, e.b, pc->b_port, &y, &yp) < 0 || (y == e.a && yp == pc->a_port))) {
			c->state[i] = 1;
			r->cables_ok++;
			rc = check_speed(c, pc, e.a, e.b);
		} else {
			c->state[i] = 2;
		}
	}
	for (i = 0; i < p->n && rc == 0; i++) {
		const struct plan_cable *pc = &p->cables[i];
		struct ends e;

		if (c->state[i] != 2)
			continue;
		e = ends_of(c, pc);
		if ((rc = find_swap(c, i, e.a, pc->a_port, e.b, pc->b_port)) < 0 || c->state[i] == 3)
			continue;
		rc = find_swap(c, i, e.b, pc->b_port, e.a, pc->a_port);
	}
	for (i = 0; i < p->n && rc == 0; i++)
		if (c->state[i] == 2) {
			c->state[i] = 3;
			rc = one_wrong(c, i);
		}
	if (rc == 0)
		rc = fab_foreach_link(c->fab, extra_link, c) ? -ENOMEM : 0;
	return rc;
}

int cabling_check(const struct plan *p, const struct fab *fab, const struct nodename_map *names,
		  struct val_report *r, char *err, size_t errlen)
{
	struct plan *ib;
	int rc;

	if (!p->n_eth)
		return cabling_check_ports(p, fab, names, NULL, r, err, errlen);
	/* a plan with Ethernet rows (issue 43): its InfiniBand ones here */
	if (!(ib = plan_only(p, 0))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = cabling_check_ports(ib, fab, names, NULL, r, err, errlen);
	r->cables = ib->n;
	plan_free(ib);
	return rc;
}

int cabling_check_ports(const struct plan *p, const struct fab *fab,
			const struct nodename_map *names, const struct cabling_ports *ports,
			struct val_report *r, char *err, size_t errlen)
{
	struct ctx c = { .p = p, .fab = fab, .r = r, .nm = names, .ports = ports };
	size_t n = fab->n_nodes, i, n0 = r->n;
	int rc = -ENOMEM;

	r->cables_ok = r->plan_nodes = r->nodes_matched = 0;
	if (errlen)
		err[0] = '\0';
	r->cables = p->n;
	c.names = calloc(n + 1, sizeof(*c.names));
	c.mapped = calloc(n + 1, sizeof(*c.mapped));
	c.guids = calloc(n + 1, sizeof(*c.guids));
	c.guid_idx = calloc(n + 1, sizeof(*c.guid_idx));
	c.mark = calloc(n + 1, sizeof(*c.mark));
	c.end_of = calloc(n + 1, sizeof(*c.end_of));
	c.state = calloc(p->n + 1, 1);
	if (!c.names || !c.mapped || !c.guids || !c.guid_idx || !c.mark || !c.end_of || !c.state)
		goto out;
	{
		uint64_t (*pairs)[2] = calloc(n + 1, sizeof(*pairs));

		if (!pairs)
			goto out;
		for (i = 0; i < n; i++) {
			pairs[i][0] = fab->nodes[i]->guid;
			pairs[i][1] = i;
		}
		qsort(pairs, n, sizeof(*pairs), guid_cmp);  /* by the first word: the GUID */
		for (i = 0; i < n; i++) {
			c.guids[i] = pairs[i][0];
			c.guid_idx[i] = (size_t)pairs[i][1];
		}
		free(pairs);
	}
	for (i = 0; i < n; i++) {
		const char *name = nodename_get(names, fab->nodes[i]->guid);

		c.names[i] = (struct by_desc){ fab->nodes[i]->desc, i };
		if (name)
			c.mapped[c.n_mapped++] = (struct by_desc){ name, i };
		if (!(c.mark[i] = calloc((size_t)fab->nodes[i]->nports + 1, 1)) ||
		    !(c.end_of[i] = calloc((size_t)fab->nodes[i]->nports + 1, sizeof(size_t))))
			goto out;
	}
	qsort(c.names, n, sizeof(*c.names), desc_cmp);
	qsort(c.mapped, c.n_mapped, sizeof(*c.mapped), desc_cmp);
	if ((rc = check_plan(&c, err, errlen)) == -ENOMEM)
		snprintf(err, errlen, "out of memory");
out:
	if (rc == -ENOMEM && errlen && !err[0])
		snprintf(err, errlen, "out of memory");
	for (i = 0; c.mark && i < n; i++)
		free(c.mark[i]);
	for (i = 0; c.end_of && i < n; i++)
		free(c.end_of[i]);
	free(c.names);
	free(c.mapped);
	free(c.guids);
	free(c.guid_idx);
	free(c.mark);
	free(c.end_of);
	free(c.state);
	if (rc < 0) {
		r->n = n0;   /* nothing of a refused plan */
		if (!n0) {   /* and no memory of it either */
			free(r->f);
			r->f = NULL;
			r->cap = 0;
		}
	}
	return rc;
}
