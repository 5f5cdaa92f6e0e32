/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/slurm/slurm_topo.c: see slurm_topo.h. */
#include "autoconf.h"
#include "lib/slurm/slurm_topo.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"
#include "lib/route/route_graph.h"
#include "lib/util/hostlist.h"
#include "lib/util/log.h"

#define NAME_BASE_MAX 40

/* ---- names -------------------------------------------------------------------------- */

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* The description made a Slurm name (see the header); "" when nothing is left. */
static void sanitize(const char *desc, char *out, size_t len)
{
	size_t n = 0;
	int gap = 0;

	for (const char *p = desc; *p && n + 1 < len && n < NAME_BASE_MAX; p++) {
		if (name_char(*p) && *p != '_') {
			if (gap && n)
				out[n++] = '_';
			gap = 0;
			if (n + 1 < len && n < NAME_BASE_MAX)
				out[n++] = *p;
		} else {
			gap = 1;
		}
	}
	out[n] = '\0';
}

/* What makes `host` no Slurm node name, or NULL. (A name over 63 bytes
 * never gets here: the host rule maps its port to no host.) */
static const char *bad_node_name(const char *host)
{
	for (const char *p = host; *p; p++)
		if ((unsigned char)*p <= ' ' || strchr(",[]=#\"'", *p) || *p == 0x7f)
			return "a character Slurm's parser or hostlist syntax takes as syntax "
			       "(whitespace , [ ] = # \" ')";
	return NULL;
}

/* ---- build -------------------------------------------------------------------------- */

struct placed {
	char host[HOSTMAP_NAME_LEN];
	int32_t sw;                 /* rt switch */
	size_t seq;                 /* rt CA index: (node GUID, port) order */
};

static int by_host_seq(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct namer {
	const char *name;
	size_t at;                  /* index in t->sw */
	int dup;
};

static int by_namer(const void *a, const void *b)
{
	const struct namer *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

static unsigned port_gbps(const struct fab_port *p)
{
	if (!p || !p->width_active || !p->speed_active)
		return 0;
	return (unsigned)lround(ibt_width_lanes(p->width_active) * ibt_lane_gbps(p->speed_active));
}

/* The cable that makes the levels no tree, for the error. */
static void not_a_tree(const struct rt_graph *g, const uint16_t *level, char *err, size_t errlen)
{
	for (size_t i = 0; i < g->n_links; i++) {
		const struct rt_link *l = &g->links[i];
		uint16_t a = level[l->sw], b = level[l->peer];

		if (a == RT_NO_LEVEL || b == RT_NO_LEVEL || a == b + 1 || b == a + 1)
			continue;
		snprintf(err, errlen, "the fabric is not a tree: the cable %s[%u] - %s[%u] joins "
			 "switches %s (levels %u and %u, by hops from the switches with hosts); "
			 "Slurm's topology/tree describes trees of switches with nodes under the "
			 "leaves, topology/block groups of nodes: neither can say a torus, a "
			 "dragonfly or hosts on an upper switch (use topology/flat, no "
			 "topology.conf, for this fabric)", g->sw[l->sw].desc, l->port,
			 g->sw[l->peer].desc, l->peer_port, a == b ? "of one level" :
			 "more than one level apart", a, b);
		return;
	}
	snprintf(err, errlen, "the fabric is not a tree");
}

struct build {
	const struct fab *fab;
	const struct nodename_map *names;  /* the site's switch names, or NULL */
	struct rt_graph *g;
	uint16_t *level;
	int32_t *order;
	int32_t *idx;               /* rt switch -> index in t->sw, or -1 */
	size_t *n_nodes;            /* per rt switch */
	uint8_t *kept;
	uint8_t *deciding;          /* per rt CA: the port that placed its node */
	struct placed *pl;
	size_t n_pl;
};

static void build_free(struct build *b)
{
	rt_graph_free(b->g);
	free(b->level);
	free(b->order);
	free(b->idx);
	free(b->n_nodes);
	free(b->kept);
	free(b->deciding);
	free(b->pl);
}

/* Every mapped CA port, its node placed by its first port. */
static int place(struct build *b, const struct hostmap *hm, struct slurm_topo *t, char *err,
		 size_t errlen)
{
	const struct rt_graph *g = b->g;

	for (size_t c = 0; c < g->n_ca; c++) {
		const struct fab_node *n = fab_find(b->fab, g->ca[c].node_guid);
		const struct fab_port *p = n ? fab_port(n, g->ca[c].port) : NULL;
		struct placed *x = &b->pl[b->n_pl];
		const char *why;

		if (!p || n->type != IBT_NODE_CA)
			continue;
		if (g->ca[c].sw < 0 || !hostmap_port_host(hm, n, p, x->host, sizeof(x->host))) {
			if (t->unmapped_ports < SLURM_UNMAPPED_SHOWN)
				snprintf(t->unmapped[t->unmapped_ports], sizeof(t->unmapped[0]),
					 "%s[%u]", n->desc, p->num);
			t->unmapped_ports++;
			continue;
		}
		if ((why = bad_node_name(x->host))) {
			char gs[20];

			/* one host that cannot be named keeps no other out */
			if (t->bad_name_ports < SLURM_UNMAPPED_SHOWN)
				snprintf(t->bad_names[t->bad_name_ports], sizeof(t->bad_names[0]),
					 "\"%s\" (port %s, \"%s\" port %u)", x->host,
					 ibt_guid_str(p->guid, gs, sizeof(gs)), n->desc, p->num);
			t->bad_name_ports++;
			continue;
		}
		x->sw = g->ca[c].sw;
		x->seq = c;
		b->n_pl++;
	}
	qsort(b->pl, b->n_pl, sizeof(*b->pl), by_host_seq);
	for (size_t i = 0; i < b->n_pl; i++) {
		if (i && !strcmp(b->pl[i].host, b->pl[i - 1].host)) {
			t->other_rail_ports++;
			b->pl[i].sw = -1;
			continue;
		}
		b->deciding[b->pl[i].seq] = 1;
		b->n_nodes[b->pl[i].sw]++;
		t->n_nodes++;
	}
	return 0;
}

/* Kept switches: leaves with nodes, then level by level those above a kept one. */
static void keep(struct build *b, size_t reached)
{
	const struct rt_graph *g = b->g;

	for (size_t k = 0; k < reached; k++) {
		size_t s = (size_t)b->order[k];
		const struct rt_link *l = &g->links[g->sw[s].first_link];

		if (b->level[s] == 0) {
			b->kept[s] = b->n_nodes[s] > 0;
			continue;
		}
		for (uint32_t i = 0; i < g->sw[s].n_links && !b->kept[s]; i++)
			if (b->level[l[i].peer] + 1 == b->level[s] && b->kept[l[i].peer])
				b->kept[s] = 1;
	}
}

/* Names, order, nodes and children of the kept switches into t. */
static int fill(struct build *b, struct slurm_topo *t)
{
	const struct rt_graph *g = b->g;
	struct namer *nm;
	size_t n = 0;

	for (size_t s = 0; s < g->n_sw; s++)
		n += b->kept[s];
	if (!(t->sw = calloc(n ? n : 1, sizeof(*t->sw))) || !(nm = calloc(n ? n : 1, sizeof(*nm))))
		return -ENOMEM;
	t->n_sw = n;
	n = 0;
	for (size_t s = 0; s < g->n_sw; s++) {
		struct slurm_switch *w;

		if (!b->kept[s])
			continue;
		w = &t->sw[n];
		w->guid = g->sw[s].guid;
		snprintf(w->desc, sizeof(w->desc), "%s", g->sw[s].desc);
		w->level = b->level[s];
		/* the site's name for the switch (node-name-map), else its description */
		sanitize(nodename_of(b->names, w->guid, w->desc), w->name, sizeof(w->name));
		if (!w->name[0])
			snprintf(w->name, sizeof(w->name), "ibsw-%016llx", (unsigned long long)w->guid);
		nm[n] = (struct namer){ w->name, n, 0 };
		n++;
	}
	/* one name, two switches: each gets its GUID (marked first: the names
	 * change) */
	qsort(nm, n, sizeof(*nm), by_namer);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(nm[j].name, nm[i].name); j++)
			;
		for (size_t k = i; j - i > 1 && k < j; k++)
			nm[k].dup = 1;
	}
	for (size_t k = 0; k < n; k++)
		if (nm[k].dup) {
			struct slurm_switch *w = &t->sw[nm[k].at];
			size_t l = strlen(w->name);

			snprintf(w->name + l, sizeof(w->name) - l, "-%016llx",
				 (unsigned long long)w->guid);
		}
	free(nm);
	return 0;
}

static int by_level_name(const void *a, const void *b)
{
	const struct slurm_switch *x = a, *y = b;

	if (x->level != y->level)
		return (x->level > y->level) - (x->level < y->level);
	return strcmp(x->name, y->name);
}

static int by_guid_sw(const void *a, const void *b)
{
	const struct slurm_switch *const *x = a, *const *y = b;

	return ((*x)->guid > (*y)->guid) - ((*x)->guid < (*y)->guid);
}

/* Nodes, children and link speeds, once t->sw is in its final order. */
static int link_up(struct build *b, struct slurm_topo *t)
{
	const struct rt_graph *g = b->g;
	struct slurm_switch **byg = malloc((t->n_sw ? t->n_sw : 1) * sizeof(*byg));

	if (!byg)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_sw; i++)
		byg[i] = &t->sw[i];
	qsort(byg, t->n_sw, sizeof(*byg), by_guid_sw);
	/* rt switches are in GUID order too: one merge */
	for (size_t s = 0, k = 0; s < g->n_sw; s++) {
		b->idx[s] = -1;
		while (k < t->n_sw && byg[k]->guid < g->sw[s].guid)
			k++;
		if (k < t->n_sw && byg[k]->guid == g->sw[s].guid && b->kept[s])
			b->idx[s] = (int32_t)(byg[k] - t->sw);
	}
	free(byg);
	for (size_t s = 0; s < g->n_sw; s++) {
		struct slurm_switch *w;
		const struct fab_node *fn;

		if (b->idx[s] < 0)
			continue;
		w = &t->sw[b->idx[s]];
		fn = fab_find(b->fab, g->sw[s].guid);
		if (w->level == 0) {
			if (!(w->nodes = calloc(b->n_nodes[s], sizeof(*w->nodes))))
				return -ENOMEM;
			t->n_leaves++;
		} else {
			const struct rt_link *l = &g->links[g->sw[s].first_link];

			if (!(w->children = calloc(g->sw[s].n_links ? g->sw[s].n_links : 1,
						   sizeof(*w->children))))
				return -ENOMEM;
			for (uint32_t i = 0; i < g->sw[s].n_links; i++) {
				int32_t c = b->idx[l[i].peer];
				unsigned v;
				size_t k;

				if (c < 0 || t->sw[c].level + 1 != w->level)
					continue;
				v = port_gbps(fn ? fab_port(fn, l[i].port) : NULL);
				if (v > w->link_speed)
					w->link_speed = v;
				for (k = 0; k < w->n_children && w->children[k] != (size_t)c; k++)
					;
				if (k == w->n_children)
					w->children[w->n_children++] = (size_t)c;
			}
		}
		if (w->level + 1 > t->levels)
			t->levels = w->level + 1;
	}
	for (size_t i = 0; i < b->n_pl; i++) {
		struct slurm_switch *w;

		if (b->pl[i].sw < 0)
			continue;
		w = &t->sw[b->idx[b->pl[i].sw]];
		if (!(w->nodes[w->n_nodes] = strdup(b->pl[i].host)))
			return -ENOMEM;
		w->n_nodes++;
	}
	/* LinkSpeed of a leaf: its cables to the ports that placed its nodes */
	for (size_t c = 0; c < g->n_ca; c++) {
		const struct fab_node *fn;
		struct slurm_switch *w;
		unsigned v;

		if (!b->deciding[c] || b->idx[g->ca[c].sw] < 0)
			continue;
		w = &t->sw[b->idx[g->ca[c].sw]];
		fn = fab_find(b->fab, g->sw[g->ca[c].sw].guid);
		v = port_gbps(fn ? fab_port(fn, g->ca[c].sw_port) : NULL);
		if (v > w->link_speed)
			w->link_speed = v;
	}
	for (size_t i = 0; i < t->n_sw; i++) {
		struct slurm_switch *w = &t->sw[i];

		if (w->n_nodes > 1)   /* an upper switch has none (NULL) */
			qsort(w->nodes, w->n_nodes, sizeof(*w->nodes), by_str);
	}
	return 0;
}

int slurm_topo_build(const struct fab *fab, const struct hostmap *hm,
		     const struct nodename_map *names, struct slurm_topo *t, char *err, size_t errlen)
{
	struct build b = { .fab = fab, .names = names };
	size_t reached;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!(b.g = rt_graph_new(fab, err, errlen)))
		return -EINVAL;
	b.level = calloc(b.g->n_sw + 1, sizeof(*b.level));
	b.order = calloc(b.g->n_sw + 1, sizeof(*b.order));
	b.idx = calloc(b.g->n_sw + 1, sizeof(*b.idx));
	b.n_nodes = calloc(b.g->n_sw + 1, sizeof(*b.n_nodes));
	b.kept = calloc(b.g->n_sw + 1, 1);
	b.deciding = calloc(b.g->n_ca + 1, 1);
	b.pl = calloc(b.g->n_ca + 1, sizeof(*b.pl));
	if (!b.level || !b.order || !b.idx || !b.n_nodes || !b.kept || !b.deciding || !b.pl) {
		rc = err_fmt(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = rt_graph_tree_levels(b.g, b.level, b.order)) < 0) {
		if (rc == -EINVAL)
			not_a_tree(b.g, b.level, err, errlen);
		else
			snprintf(err, errlen, "out of memory");
		goto out;
	}
	reached = 0;
	for (size_t s = 0; s < b.g->n_sw; s++)
		reached += b.level[s] != RT_NO_LEVEL;
	if ((rc = place(&b, hm, t, err, errlen)) < 0)
		goto out;
	if (!t->n_nodes) {
		rc = err_fmt(err, errlen, -EINVAL, "no CA port of the fabric maps to a Slurm node "
			     "(%zu CA ports, none matched by the host pattern or the host map; "
			     "%zu not Slurm node names%s%s)", t->unmapped_ports + t->bad_name_ports,
			     t->bad_name_ports, t->bad_name_ports ? ": " : "", t->bad_names[0]);
		goto out;
	}
	keep(&b, reached);
	if ((rc = fill(&b, t)) < 0)
		goto oom;
	qsort(t->sw, t->n_sw, sizeof(*t->sw), by_level_name);
	if ((rc = link_up(&b, t)) < 0)
		goto oom;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	build_free(&b);
	if (rc < 0)
		slurm_topo_clear(t);
	return rc;
}

void slurm_topo_clear(struct slurm_topo *t)
{
	for (size_t i = 0; i < t->n_sw; i++) {
		for (size_t k = 0; k < t->sw[i].n_nodes; k++)
			free(t->sw[i].nodes[k]);
		free(t->sw[i].nodes);
		free(t->sw[i].children);
	}
	free(t->sw);
	memset(t, 0, sizeof(*t));
}

/* ---- output ------------------------------------------------------------------------- */

/* A switch's children's names as a host list (NULL: out of memory). */
static char *children_list(const struct slurm_topo *t, const struct slurm_switch *w)
{
	char **names = malloc((w->n_children ? w->n_children : 1) * sizeof(*names));
	char *s;

	if (!names)
		return NULL;
	for (size_t k = 0; k < w->n_children; k++)
		names[k] = (char *)t->sw[w->children[k]].name;
	s = hostlist_compress(names, w->n_children);
	free(names);
	return s;
}

char *slurm_topo_text(const struct slurm_topo *t, int format)
{
	char *out = NULL;
	size_t len = 0, min_block = 0;
	FILE *f = open_memstream(&out, &len);
	int bad = !f;

	for (size_t i = 0; f && !bad && i < t->n_sw; i++) {
		const struct slurm_switch *w = &t->sw[i];
		char *list;

		if (format == SLURM_TOPO_BLOCK && w->level > 0)
			break;
		list = w->level == 0 ? hostlist_compress(w->nodes, w->n_nodes) : children_list(t, w);
		if (!list) {
			bad = 1;
			break;
		}
		if (format == SLURM_TOPO_BLOCK) {
			fprintf(f, "BlockName=%s Nodes=%s\n", w->name, list);
			if (!min_block || w->n_nodes < min_block)
				min_block = w->n_nodes;
		} else {
			fprintf(f, "SwitchName=%s %s=%s", w->name, w->level ? "Switches" : "Nodes",
				list);
			if (w->link_speed)
				fprintf(f, " LinkSpeed=%u", w->link_speed);
			fputc('\n', f);
		}
		free(list);
	}
	if (f && format == SLURM_TOPO_BLOCK && min_block)
		fprintf(f, "BlockSizes=%zu\n", min_block);
	if (f && fclose(f) != 0)
		bad = 1;
	if (bad) {
		free(out);
		return NULL;
	}
	return out;
}

const char *slurm_topo_format_name(int format)
{
	return format == SLURM_TOPO_BLOCK ? "block" : "tree";
}

int slurm_topo_format_parse(const char *s, int *format)
{
	if (!strcmp(s, "tree"))
		*format = SLURM_TOPO_TREE;
	else if (!strcmp(s, "block"))
		*format = SLURM_TOPO_BLOCK;
	else
		return -EINVAL;
	return 0;
}

char *slurm_topo_header(const struct slurm_topo *t, int format, const char *subnet)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	fprintf(f, "# Slurm topology.conf for TopologyPlugin=topology/%s, made by loom from "
		"the fabric of subnet %s.\n# %zu nodes under %zu leaf switches, %zu level%s; "
		"%zu CA ports map to no Slurm node; %zu ports of multi-rail nodes are left "
		"to their first rail.\n", slurm_topo_format_name(format), subnet ? subnet : "?",
		t->n_nodes, t->n_leaves, t->levels, t->levels == 1 ? "" : "s",
		t->unmapped_ports, t->other_rail_ports);
	for (size_t i = 0; i < t->unmapped_ports && i < SLURM_UNMAPPED_SHOWN; i++)
		fprintf(f, "%s%s", i ? ", " : "# No Slurm node: ", t->unmapped[i]);
	if (t->unmapped_ports > SLURM_UNMAPPED_SHOWN)
		fprintf(f, " and %zu more", t->unmapped_ports - SLURM_UNMAPPED_SHOWN);
	if (t->unmapped_ports)
		fputc('\n', f);
	for (size_t i = 0; i < t->bad_name_ports && i < SLURM_UNMAPPED_SHOWN; i++)
		fprintf(f, "%s%s", i ? ", " : "# Not a Slurm node name (left out): ", t->bad_names[i]);
	if (t->bad_name_ports > SLURM_UNMAPPED_SHOWN)
		fprintf(f, " and %zu more", t->bad_name_ports - SLURM_UNMAPPED_SHOWN);
	if (t->bad_name_ports)
		fputc('\n', f);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

json_t *slurm_topo_json(const struct slurm_topo *t, int format)
{
	json_t *sw = json_array(), *o, *un, *bad;

	for (size_t i = 0; i < t->n_sw; i++) {
		const struct slurm_switch *w = &t->sw[i];
		char g[20], *list;
		json_t *x;

		if (format == SLURM_TOPO_BLOCK && w->level > 0)
			break;
		list = w->level == 0 ? hostlist_compress(w->nodes, w->n_nodes) : children_list(t, w);
		x = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s?}", "name", w->name, "guid",
			      ibt_guid_str(w->guid, g, sizeof(g)), "desc", w->desc, "level",
			      (json_int_t)w->level, "link_speed", (json_int_t)w->link_speed,
			      w->level ? "switches" : "nodes", list);
		free(list);
		if (!x) {
			json_decref(sw);
			return NULL;
		}
		json_array_append_new(sw, x);
	}
	un = json_array();
	for (size_t i = 0; i < t->unmapped_ports && i < SLURM_UNMAPPED_SHOWN; i++)
		json_array_append_new(un, json_string(t->unmapped[i]));
	bad = json_array();
	for (size_t i = 0; i < t->bad_name_ports && i < SLURM_UNMAPPED_SHOWN; i++)
		json_array_append_new(bad, json_string(t->bad_names[i]));
	o = json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:o}", "format",
		      slurm_topo_format_name(format), "switches", sw, "leaves",
		      (json_int_t)t->n_leaves, "levels", (json_int_t)t->levels, "nodes",
		      (json_int_t)t->n_nodes, "unmapped_ports", (json_int_t)t->unmapped_ports,
		      "other_rail_ports", (json_int_t)t->other_rail_ports, "unmapped", un,
		      "bad_name_ports", (json_int_t)t->bad_name_ports, "bad_names", bad);
	return o;
}

/* ---- diff --------------------------------------------------------------------------- */

struct hl { const char *host, *leaf; };

static int by_hl(const void *a, const void *b)
{
	return strcmp(((const struct hl *)a)->host, ((const struct hl *)b)->host);
}

static struct hl *hosts_of(const struct slurm_topo *t)
{
	struct hl *h = malloc((t->n_nodes ? t->n_nodes : 1) * sizeof(*h));
	size_t n = 0;

	if (!h)
		return NULL;
	for (size_t i = 0; i < t->n_sw; i++)
		for (size_t k = 0; k < t->sw[i].n_nodes && n < t->n_nodes; k++)
			h[n++] = (struct hl){ t->sw[i].nodes[k], t->sw[i].name };
	qsort(h, n, sizeof(*h), by_hl);
	return h;
}

static const struct slurm_switch *named(const struct slurm_topo *t, const char *name)
{
	for (size_t i = 0; i < t->n_sw; i++)
		if (!strcmp(t->sw[i].name, name))
			return &t->sw[i];
	return NULL;
}

struct said {
	char *buf;
	size_t len, used, n;
};

static void say(struct said *s, const char *fmt, ...)
{
	char one[512];
	va_list ap;

	s->n++;
	va_start(ap, fmt);
	vsnprintf(one, sizeof(one), fmt, ap);
	va_end(ap);
	if (s->used + strlen(one) + 2 + 4 > s->len) {
		if (s->len > 4 && s->used + 4 <= s->len && !strstr(s->buf, "..."))
			snprintf(s->buf + s->used, s->len - s->used, "%s...", s->used ? "; " : "");
		return;
	}
	s->used += (size_t)snprintf(s->buf + s->used, s->len - s->used, "%s%s",
				    s->used ? "; " : "", one);
}

size_t slurm_topo_diff(const struct slurm_topo *old, const struct slurm_topo *cur, char *buf,
		       size_t len)
{
	struct said s = { buf, len, 0, 0 };
	struct hl *a, *b;
	size_t i = 0, j = 0;

	if (len)
		buf[0] = '\0';
	for (size_t k = 0; k < old->n_sw; k++) {
		const struct slurm_switch *w = &old->sw[k];
		char *list;

		if (named(cur, w->name))
			continue;
		if (w->level) {
			say(&s, "switch %s gone", w->name);
			continue;
		}
		list = hostlist_compress(w->nodes, w->n_nodes);
		say(&s, "leaf %s gone (%s)", w->name, list ? list : "its nodes");
		free(list);
	}
	for (size_t k = 0; k < cur->n_sw; k++) {
		const struct slurm_switch *w = &cur->sw[k], *o = named(old, w->name);

		if (!o && w->level) {
			say(&s, "switch %s added", w->name);
			continue;
		}
		if (!o) {
			char *list = hostlist_compress(w->nodes, w->n_nodes);

			say(&s, "leaf %s added (%s)", w->name, list ? list : "its nodes");
			free(list);
			continue;
		}
		if (o->level != w->level)
			say(&s, "switch %s now at level %u (was %u)", w->name, w->level, o->level);
		if (w->level && o->level) {
			char *x = children_list(cur, w), *y = children_list(old, o);

			if (x && y && strcmp(x, y))
				say(&s, "switch %s: Switches=%s (was %s)", w->name, x, y);
			free(x);
			free(y);
		}
		if (o->link_speed != w->link_speed)
			say(&s, "switch %s: LinkSpeed %u (was %u)", w->name, w->link_speed,
			    o->link_speed);
	}
	a = hosts_of(old);
	b = hosts_of(cur);
	if (!a || !b) {
		free(a);
		free(b);
		if (!s.n && (old->n_nodes || cur->n_nodes))
			say(&s, "nodes changed");
		return s.n;
	}
	while (i < old->n_nodes || j < cur->n_nodes) {
		int c = i == old->n_nodes ? 1 : j == cur->n_nodes ? -1 : strcmp(a[i].host, b[j].host);

		if (c < 0) {
			if (named(cur, a[i].leaf))   /* a leaf gone was said */
				say(&s, "host %s gone from %s", a[i].host, a[i].leaf);
			i++;
		} else if (c > 0) {
			if (named(old, b[j].leaf))
				say(&s, "host %s added under %s", b[j].host, b[j].leaf);
			j++;
		} else {
			if (strcmp(a[i].leaf, b[j].leaf))
				say(&s, "host %s moved from %s to %s", a[i].host, a[i].leaf, b[j].leaf);
			i++;
			j++;
		}
	}
	free(a);
	free(b);
	return s.n;
}
