/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/ar/route_ar.c: adaptive routing groups; see route_ar.h.
 *
 * Destinations are taken switch by switch: every CA on the switch d shares
 * the hop counts to d (one breadth-first search from d over the switch
 * links, cables being two-way) and so, at every other switch s, the set of
 * shortest-path ports toward d. A LID's set at s then depends only on its
 * static port P: the shortest-path set when P is in it (TREE), else the
 * parallel links of P. Both are interned once (the shortest-path set once
 * per (s, d), the parallel links once per port for the whole run), so each
 * (switch, LID) entry costs a table read, a bit test and a write.
 *
 * Interning fills, per switch, a table of the distinct sets met with the
 * number of LIDs using each and the lowest of them; the per-LID array of
 * group numbers holds the set's index meanwhile (a switch meets at most one
 * set per LID, fewer than 2^16). Once every LID is done, each switch keeps
 * at most `capacity` sets, the most used, numbers them by their lowest LID
 * and rewrites its per-LID array. No LID x switch x port matrix is ever
 * made: per switch the memory is its LID row and its distinct sets. */
#include "autoconf.h"
#include "lib/ar/route_ar.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAR 0xFFFF             /* hop count: d cannot be reached */
#define NOT_INTERNED 0xFFFFFFFFu
#define SINGLE 0xFFFFFFFEu      /* a set of one port: no group needed */

/* The distinct sets one switch met. slot[] is an open-addressing hash of
 * set indices + 1 (0: empty), n_slots a power of two. */
struct set_table {
	struct rt_ar_ports *set;
	uint32_t *lids;        /* LIDs using each set */
	uint16_t *first_lid;   /* the lowest of them */
	uint32_t n, cap;
	uint32_t *slot;
	uint32_t n_slots;
};

struct builder {
	const struct rt_graph *g;
	const struct rt_lfts *l;
	struct rt_ar *ar;
	struct set_table *tab;     /* per switch */
	uint16_t *dist;            /* per switch: hops to the current d */
	uint32_t *queue;
	struct rt_ar_ports *short_set;  /* per switch: shortest-path ports to d */
	uint32_t *short_id;        /* per switch: short_set interned, or NOT_INTERNED */
	uint32_t *lag_id;          /* per switch port: its parallel links interned,
				    * NOT_INTERNED or SINGLE */
	uint32_t *ca_first, *ca_list;   /* the CAs of each switch (counting sort) */
	int oom;
};

const char *rt_ar_mode_name(enum rt_ar_mode mode)
{
	return mode == RT_AR_LAG ? "lag" : mode == RT_AR_TREE ? "tree" : "?";
}

int rt_ar_mode_parse(const char *name, enum rt_ar_mode *mode)
{
	if (strcmp(name, "tree") == 0)
		*mode = RT_AR_TREE;
	else if (strcmp(name, "lag") == 0)
		*mode = RT_AR_LAG;
	else
		return -EINVAL;
	return 0;
}

unsigned rt_ar_members(const struct rt_ar *ar, size_t sw, unsigned lid, struct rt_ar_ports *out)
{
	const struct rt_ar_switch *s = &ar->sw[sw];
	uint8_t p;

	memset(out, 0, sizeof(*out));
	if (lid > ar->max_lid)
		return 0;
	if (s->group[lid] != RT_AR_NO_GROUP) {
		*out = s->groups[s->group[lid]];
		return rt_ar_ports_count(out);
	}
	p = s->port[lid];
	if (p == RT_NO_PORT)
		return 0;
	rt_ar_ports_add(out, p);
	return 1;
}

void rt_ar_free(struct rt_ar *ar)
{
	if (!ar)
		return;
	for (size_t s = 0; ar->sw && s < ar->n_sw; s++) {
		free(ar->sw[s].groups);
		free(ar->sw[s].group);
		free(ar->sw[s].port);
	}
	free(ar->sw);
	free(ar);
}

/* ---- interning ------------------------------------------------------------------ */

static uint32_t set_hash(const struct rt_ar_ports *p)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 4; i++) {
		h ^= p->w[i];
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	return (uint32_t)h;
}

static int table_rehash(struct set_table *t, uint32_t n_slots)
{
	uint32_t *slot = calloc(n_slots, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t h = set_hash(&t->set[i]) & (n_slots - 1);

		while (slot[h])
			h = (h + 1) & (n_slots - 1);
		slot[h] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->n_slots = n_slots;
	return 0;
}

/* The index of set p in t, added if new; NOT_INTERNED when out of memory. */
static uint32_t table_intern(struct set_table *t, const struct rt_ar_ports *p)
{
	uint32_t h;

	if (2 * (t->n + 1) > t->n_slots && table_rehash(t, t->n_slots ? 2 * t->n_slots : 16) < 0)
		return NOT_INTERNED;
	for (h = set_hash(p) & (t->n_slots - 1); t->slot[h]; h = (h + 1) & (t->n_slots - 1))
		if (memcmp(&t->set[t->slot[h] - 1], p, sizeof(*p)) == 0)
			return t->slot[h] - 1;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 8;
		struct rt_ar_ports *set = realloc(t->set, cap * sizeof(*set));
		uint32_t *lids;
		uint16_t *first;

		if (!set)
			return NOT_INTERNED;
		t->set = set;
		if (!(lids = realloc(t->lids, cap * sizeof(*lids))))
			return NOT_INTERNED;
		t->lids = lids;
		if (!(first = realloc(t->first_lid, cap * sizeof(*first))))
			return NOT_INTERNED;
		t->first_lid = first;
		t->cap = cap;
	}
	t->set[t->n] = *p;
	t->lids[t->n] = 0;
	t->first_lid[t->n] = 0xFFFF;
	t->slot[h] = t->n + 1;
	return t->n++;
}

static void table_free(struct set_table *t)
{
	free(t->set);
	free(t->lids);
	free(t->first_lid);
	free(t->slot);
}

/* ---- sets of one switch ------------------------------------------------------------ */

/* Set id (in b->tab[s]) of the parallel links of port p of switch s, or
 * SINGLE when p has no parallel link. */
static uint32_t lag_set(struct builder *b, size_t s, unsigned p)
{
	const struct rt_graph *g = b->g;
	size_t i = rt_graph_port_index(g, s, p);
	const struct rt_port *rp = &g->ports[i];
	struct rt_ar_ports set = { { 0 } };

	if (b->lag_id[i] != NOT_INTERNED)
		return b->lag_id[i];
	for (unsigned q = 1; q <= g->sw[s].nports; q++) {
		const struct rt_port *rq = rt_graph_port(g, s, q);

		if (rq->kind == RT_PEER_SWITCH && rq->peer == rp->peer)
			rt_ar_ports_add(&set, q);
	}
	if (rt_ar_ports_count(&set) < 2)
		return b->lag_id[i] = SINGLE;
	if ((b->lag_id[i] = table_intern(&b->tab[s], &set)) == NOT_INTERNED)
		b->oom = 1;
	return b->lag_id[i];
}

/* Hop counts from every switch to switch d over switch-to-switch cables. */
static void bfs(struct builder *b, size_t d)
{
	const struct rt_graph *g = b->g;
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < g->n_sw; s++)
		b->dist[s] = FAR;
	b->dist[d] = 0;
	b->queue[tail++] = (uint32_t)d;
	while (head < tail) {
		size_t u = b->queue[head++];
		const struct rt_switch *su = &g->sw[u];

		for (uint32_t k = 0; k < su->n_links; k++) {
			int32_t v = g->links[su->first_link + k].peer;

			if (b->dist[v] == FAR) {
				b->dist[v] = (uint16_t)(b->dist[u] + 1);
				b->queue[tail++] = (uint32_t)v;
			}
		}
	}
	/* The shortest-path ports of every switch toward d: those to a
	 * neighbour one hop closer. */
	for (size_t s = 0; s < g->n_sw; s++) {
		const struct rt_switch *ss = &g->sw[s];

		memset(&b->short_set[s], 0, sizeof(b->short_set[s]));
		b->short_id[s] = NOT_INTERNED;
		if (b->dist[s] == FAR || s == d)
			continue;
		for (uint32_t k = 0; k < ss->n_links; k++) {
			const struct rt_link *lk = &g->links[ss->first_link + k];

			if (b->dist[lk->peer] + 1 == b->dist[s])
				rt_ar_ports_add(&b->short_set[s], lk->port);
		}
	}
}

/* The set of switch s for a CA LID of the current destination switch d
 * (short_set holds the shortest-path ports toward d) that s's table sends
 * out of port p: a set id of b->tab[s], or SINGLE. */
static uint32_t entry_set(struct builder *b, size_t s, unsigned p)
{
	const struct rt_port *rp = rt_graph_port(b->g, s, p);

	if (rp->kind != RT_PEER_SWITCH)
		return SINGLE;  /* to the CA (or nowhere): nothing else is as good */
	if (b->ar->mode == RT_AR_TREE) {
		if (rt_ar_ports_has(&b->short_set[s], p)) {
			if (b->short_id[s] == NOT_INTERNED) {
				if (rt_ar_ports_count(&b->short_set[s]) < 2)
					b->short_id[s] = SINGLE;
				else if ((b->short_id[s] = table_intern(&b->tab[s],
									&b->short_set[s])) ==
					 NOT_INTERNED)
					b->oom = 1;
			}
			return b->short_id[s];
		}
		b->ar->n_longer++;
	}
	return lag_set(b, s, p);
}

/* Every (switch, LID) entry of the CAs held by switch d. */
static void destination(struct builder *b, size_t d)
{
	const struct rt_graph *g = b->g;
	struct rt_ar *ar = b->ar;

	if (ar->mode == RT_AR_TREE)
		bfs(b, d);
	for (uint32_t k = b->ca_first[d]; k < b->ca_first[d + 1] && !b->oom; k++) {
		unsigned lid = g->ca[b->ca_list[k]].lid;

		if (lid == 0 || lid > g->max_lid)
			continue;
		for (size_t s = 0; s < g->n_sw; s++) {
			uint8_t p = ar->sw[s].port[lid];
			struct set_table *t = &b->tab[s];
			uint32_t id;

			if (p == RT_NO_PORT)
				continue;
			ar->n_entries++;
			if (p == 0 || p > g->sw[s].nports)
				continue;
			id = entry_set(b, s, p);
			if (id == SINGLE || id == NOT_INTERNED)
				continue;
			ar->sw[s].group[lid] = (uint16_t)id;
			t->lids[id]++;
			if (lid < t->first_lid[id])
				t->first_lid[id] = (uint16_t)lid;
		}
	}
}

/* ---- capacity ---------------------------------------------------------------------- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Keep at most ar->capacity of switch s's sets, the most used (ties: the
 * lower first LID), numbered by their first LID, and renumber its LIDs.
 * Sort keys pack the order and the set index (< 2^16: one set per LID at
 * most), so plain qsort needs no context. A LID uses one set per switch, so
 * no two sets share a first LID. */
static int keep_groups(struct builder *b, size_t s)
{
	struct set_table *t = &b->tab[s];
	struct rt_ar_switch *sw = &b->ar->sw[s];
	uint32_t keep = t->n < b->ar->capacity ? t->n : b->ar->capacity;
	uint64_t *key;
	uint16_t *final;

	if (t->n == 0)
		return 0;
	key = malloc(t->n * sizeof(*key));
	final = malloc(t->n * sizeof(*final));
	sw->groups = malloc((keep ? keep : 1) * sizeof(*sw->groups));
	if (!key || !final || !sw->groups) {
		free(key);
		free(final);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		key[i] = (uint64_t)(UINT32_MAX - t->lids[i]) << 32 |
			 (uint64_t)t->first_lid[i] << 16 | i;
		final[i] = RT_AR_NO_GROUP;
	}
	if (keep < t->n)
		qsort(key, t->n, sizeof(*key), cmp_u64);
	for (uint32_t k = 0; k < keep; k++)
		key[k] &= 0xFFFFFFFFu;  /* first LID, index */
	qsort(key, keep, sizeof(*key), cmp_u64);
	for (uint32_t k = 0; k < keep; k++) {
		uint32_t i = (uint32_t)(key[k] & 0xFFFF);

		final[i] = (uint16_t)k;
		sw->groups[k] = t->set[i];
	}
	sw->n_groups = keep;
	for (size_t lid = 0; lid <= b->ar->max_lid; lid++) {
		uint16_t id = sw->group[lid];

		if (id == RT_AR_NO_GROUP)
			continue;
		sw->group[lid] = final[id];
		if (final[id] == RT_AR_NO_GROUP)
			sw->n_dropped++;
		else
			sw->n_alt++;
	}
	free(key);
	free(final);
	return 0;
}

/* ---- the whole ------------------------------------------------------------------- */

static void builder_free(struct builder *b)
{
	for (size_t s = 0; b->tab && s < b->g->n_sw; s++)
		table_free(&b->tab[s]);
	free(b->tab);
	free(b->dist);
	free(b->queue);
	free(b->short_set);
	free(b->short_id);
	free(b->lag_id);
	free(b->ca_first);
	free(b->ca_list);
}

static int builder_init(struct builder *b, const struct rt_graph *g, const struct rt_lfts *l,
			struct rt_ar *ar)
{
	size_t n = g->n_sw + 1;

	memset(b, 0, sizeof(*b));
	b->g = g;
	b->l = l;
	b->ar = ar;
	b->tab = calloc(n, sizeof(*b->tab));
	b->dist = malloc(n * sizeof(*b->dist));
	b->queue = malloc(n * sizeof(*b->queue));
	b->short_set = calloc(n, sizeof(*b->short_set));
	b->short_id = malloc(n * sizeof(*b->short_id));
	b->lag_id = malloc((g->n_ports + 1) * sizeof(*b->lag_id));
	b->ca_first = calloc(n + 1, sizeof(*b->ca_first));
	b->ca_list = malloc((g->n_ca + 1) * sizeof(*b->ca_list));
	if (!b->tab || !b->dist || !b->queue || !b->short_set || !b->short_id || !b->lag_id ||
	    !b->ca_first || !b->ca_list)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_ports; i++)
		b->lag_id[i] = NOT_INTERNED;
	/* The CAs of each switch, in the graph's CA order: ca_list[ca_first[s]
	 * .. ca_first[s + 1] - 1]. */
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			b->ca_first[g->ca[c].sw + 1]++;
	for (size_t s = 0; s < g->n_sw; s++)
		b->ca_first[s + 1] += b->ca_first[s];
	{
		uint32_t *at = b->queue;  /* free until the first search */

		for (size_t s = 0; s < g->n_sw; s++)
			at[s] = b->ca_first[s];
		for (size_t c = 0; c < g->n_ca; c++)
			if (g->ca[c].sw >= 0)
				b->ca_list[at[g->ca[c].sw]++] = (uint32_t)c;
	}
	return 0;
}

static struct rt_ar *ar_alloc(const struct rt_graph *g, const struct rt_lfts *l,
			      enum rt_ar_mode mode, uint32_t capacity)
{
	struct rt_ar *ar = calloc(1, sizeof(*ar));
	size_t row = (size_t)g->max_lid + 1;

	if (!ar)
		return NULL;
	ar->mode = mode;
	ar->capacity = capacity;
	ar->n_sw = g->n_sw;
	ar->max_lid = g->max_lid;
	if (!(ar->sw = calloc(g->n_sw + 1, sizeof(*ar->sw)))) {
		free(ar);
		return NULL;
	}
	for (size_t s = 0; s < g->n_sw; s++) {
		struct rt_ar_switch *sw = &ar->sw[s];

		sw->group = malloc(row * sizeof(*sw->group));
		sw->port = malloc(row);
		if (!sw->group || !sw->port) {
			rt_ar_free(ar);
			return NULL;
		}
		memset(sw->group, 0xFF, row * sizeof(*sw->group));
		memcpy(sw->port, l->port + s * row, row);
	}
	return ar;
}

struct rt_ar *rt_ar_new(const struct rt_graph *g, const struct rt_lfts *l, enum rt_ar_mode mode,
			uint32_t capacity, char *err, size_t errlen)
{
	struct builder b;
	struct rt_ar *ar;

	if (mode != RT_AR_LAG && mode != RT_AR_TREE) {
		snprintf(err, errlen, "unknown adaptive routing mode %d", (int)mode);
		return NULL;
	}
	if (capacity > RT_AR_MAX_CAPACITY) {
		snprintf(err, errlen, "group capacity %u above the most, %u", capacity,
			 RT_AR_MAX_CAPACITY);
		return NULL;
	}
	if (l->n_sw != g->n_sw || l->max_lid != g->max_lid) {
		snprintf(err, errlen, "tables made for another graph (%zu switches, LIDs up to "
			 "%u; the graph has %zu, %u)", l->n_sw, l->max_lid, g->n_sw, g->max_lid);
		return NULL;
	}
	if (!(ar = ar_alloc(g, l, mode, capacity))) {
		snprintf(err, errlen, "out of memory for the groups of %zu switches", g->n_sw);
		return NULL;
	}
	if (builder_init(&b, g, l, ar) < 0)
		goto nomem;
	for (size_t d = 0; d < g->n_sw && !b.oom; d++)
		if (b.ca_first[d + 1] > b.ca_first[d])
			destination(&b, d);
	if (b.oom)
		goto nomem;
	for (size_t s = 0; s < g->n_sw; s++) {
		struct rt_ar_switch *sw = &ar->sw[s];

		if (keep_groups(&b, s) < 0)
			goto nomem;
		ar->n_alt += sw->n_alt;
		ar->n_dropped += sw->n_dropped;
		ar->n_groups += sw->n_groups;
		if (sw->n_groups > ar->max_groups)
			ar->max_groups = sw->n_groups;
	}
	builder_free(&b);
	return ar;
nomem:
	builder_free(&b);
	rt_ar_free(ar);
	snprintf(err, errlen, "out of memory computing adaptive routing groups");
	return NULL;
}
