/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/isolation/isolation_window.c: see isolation_window.h. Open
 * addressing on (subnet, guid, port) with tombstones cleared by a rebuild
 * at expiry. */
#include "autoconf.h"
#include "daemon/isolation/isolation_window.h"
#include "lib/util/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	double t;
	struct iso_moves m;
};

struct port_win {
	uint64_t guid;
	uint32_t subnet;
	uint16_t port;
	uint8_t used;            /* 1 live */
	uint8_t n;
	struct slot s[ISO_WIN_SLOTS];
};

struct iso_windows {
	struct port_win *tab;
	size_t cap, n, max_ports, refused;
};

static uint64_t hash(unsigned subnet, uint64_t guid, unsigned port)
{
	uint64_t h = guid ^ ((uint64_t)subnet << 56) ^ ((uint64_t)port * 0x9e3779b97f4a7c15ULL);

	return hash_mix64(h);
}

struct iso_windows *iso_windows_new(size_t max_ports)
{
	struct iso_windows *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->max_ports = max_ports ? max_ports : 1;
	w->cap = 64;
	while (w->cap < 2 * w->max_ports && w->cap < ((size_t)1 << 30))
		w->cap *= 2;
	/* The table grows on demand up to cap: start small. */
	w->cap = w->cap < 1024 ? w->cap : 1024;
	if (!(w->tab = calloc(w->cap, sizeof(*w->tab)))) {
		free(w);
		return NULL;
	}
	return w;
}

void iso_windows_free(struct iso_windows *w)
{
	if (!w)
		return;
	free(w->tab);
	free(w);
}

static struct port_win *find(const struct iso_windows *w, unsigned subnet, uint64_t guid,
			     unsigned port)
{
	size_t i = hash(subnet, guid, port) & (w->cap - 1);

	for (size_t k = 0; k < w->cap; k++, i = (i + 1) & (w->cap - 1)) {
		struct port_win *p = &w->tab[i];

		if (!p->used)
			return NULL;
		if (p->guid == guid && p->subnet == subnet && p->port == port)
			return p;
	}
	return NULL;
}

static struct port_win *insert(struct iso_windows *w, const struct port_win *from)
{
	size_t i = hash(from->subnet, from->guid, from->port) & (w->cap - 1);

	while (w->tab[i].used)
		i = (i + 1) & (w->cap - 1);
	w->tab[i] = *from;
	w->tab[i].used = 1;
	w->n++;
	return &w->tab[i];
}

static int rehash(struct iso_windows *w, size_t cap)
{
	struct port_win *old = w->tab;
	size_t old_cap = w->cap;

	if (!(w->tab = calloc(cap, sizeof(*w->tab)))) {
		w->tab = old;
		return -ENOMEM;
	}
	w->cap = cap;
	w->n = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used && old[i].n)
			insert(w, &old[i]);
	free(old);
	return 0;
}

int iso_windows_add(struct iso_windows *w, unsigned subnet, uint64_t guid, unsigned port,
		    double t, const struct iso_moves *m)
{
	struct port_win *p = find(w, subnet, guid, port);

	if (!m->errors && !m->symbol && !m->downed)
		return 0;
	if (!p) {
		struct port_win fresh = { .guid = guid, .subnet = subnet, .port = (uint16_t)port };

		if (w->n >= w->max_ports) {
			w->refused++;
			return -ENOSPC;
		}
		if (2 * (w->n + 1) > w->cap && rehash(w, w->cap * 2) < 0) {
			w->refused++;
			return -ENOMEM;
		}
		p = insert(w, &fresh);
	}
	if (p->n == ISO_WIN_SLOTS) {
		/* The two oldest become one, at the later time. */
		p->s[1].m.errors += p->s[0].m.errors;
		p->s[1].m.symbol += p->s[0].m.symbol;
		p->s[1].m.downed += p->s[0].m.downed;
		memmove(&p->s[0], &p->s[1], (ISO_WIN_SLOTS - 1) * sizeof(p->s[0]));
		p->n--;
	}
	p->s[p->n].t = t;
	p->s[p->n].m = *m;
	p->n++;
	return 0;
}

static void sum_of(const struct port_win *p, double since, struct iso_moves *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < p->n; i++)
		if (p->s[i].t > since) {
			out->errors += p->s[i].m.errors;
			out->symbol += p->s[i].m.symbol;
			out->downed += p->s[i].m.downed;
		}
}

void iso_windows_sum(const struct iso_windows *w, unsigned subnet, uint64_t guid,
		     unsigned port, double since, struct iso_moves *out)
{
	const struct port_win *p = find(w, subnet, guid, port);

	memset(out, 0, sizeof(*out));
	if (p)
		sum_of(p, since, out);
}

void iso_windows_expire(struct iso_windows *w, double before)
{
	size_t live = 0;

	for (size_t i = 0; i < w->cap; i++) {
		struct port_win *p = &w->tab[i];
		unsigned k = 0;

		if (!p->used)
			continue;
		while (k < p->n && p->s[k].t <= before)
			k++;
		memmove(&p->s[0], &p->s[k], (p->n - k) * sizeof(p->s[0]));
		p->n = (uint8_t)(p->n - k);
		live += p->n > 0;
	}
	if (live < w->n)
		rehash(w, w->cap);  /* drops the empty ones; on ENOMEM they stay, harmless */
}

int iso_windows_foreach(const struct iso_windows *w, double since, iso_windows_fn fn, void *arg)
{
	for (size_t i = 0; i < w->cap; i++) {
		const struct port_win *p = &w->tab[i];
		struct iso_moves s;
		int rc;

		if (!p->used || !p->n)
			continue;
		sum_of(p, since, &s);
		if ((rc = fn(arg, p->subnet, p->guid, p->port, &s)) != 0)
			return rc;
	}
	return 0;
}

size_t iso_windows_ports(const struct iso_windows *w)
{
	return w->n;
}

size_t iso_windows_refused(const struct iso_windows *w)
{
	return w->refused;
}
