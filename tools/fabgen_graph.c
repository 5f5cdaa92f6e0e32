/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tools/fabgen_graph.c: loom-fabgen's fabric graph (nodes, ports, cables),
 * its counts, and the ibsim net-file writer. */
#include "autoconf.h"
#include "fabgen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void fg_init(struct fg_fabric *f)
{
	memset(f, 0, sizeof(*f));
	f->planes = 1;
}

void fg_free(struct fg_fabric *f)
{
	for (int i = 0; i < f->nnodes; i++)
		free(f->nodes[i].ports);
	free(f->nodes);
	free(f->links);
	memset(f, 0, sizeof(*f));
}

/* Grow an array geometrically so that building a 10^5-node fabric stays
 * linear. */
static int grow(void **arr, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return 0;
	int ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	void *p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int fg_add_node(struct fg_fabric *f, enum fg_node_type type, int nports,
		int plane, const char *fmt, ...)
{
	if (nports < 1 || nports > FG_MAX_SWITCH_PORTS)
		return -EINVAL;
	int r = grow((void **)&f->nodes, &f->cap_nodes, f->nnodes + 1,
		     sizeof(*f->nodes));
	if (r < 0)
		return r;
	struct fg_node *n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof(*n));
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(n->name, sizeof(n->name), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(n->name))
		return -ENAMETOOLONG;
	n->type = type;
	n->nports = nports;
	n->plane = plane;
	n->ports = malloc(((size_t)nports + 1) * sizeof(*n->ports));
	if (!n->ports)
		return -ENOMEM;
	for (int p = 0; p <= nports; p++)
		n->ports[p].link = -1;
	return f->nnodes++;
}

int fg_connect(struct fg_fabric *f, int a, int pa, int b, int pb)
{
	if (a < 0 || a >= f->nnodes || b < 0 || b >= f->nnodes || a == b)
		return -EINVAL;
	struct fg_node *na = &f->nodes[a], *nb = &f->nodes[b];
	if (pa < 1 || pa > na->nports || pb < 1 || pb > nb->nports)
		return -EINVAL;
	/* A port holds one cable: a builder bug must not silently produce a
	 * file ibsim would reject. */
	if (na->ports[pa].link >= 0 || nb->ports[pb].link >= 0)
		return -EINVAL;
	int r = grow((void **)&f->links, &f->cap_links, f->nlinks + 1,
		     sizeof(*f->links));
	if (r < 0)
		return r;
	struct fg_link *l = &f->links[f->nlinks];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->pa = pa;
	l->b = b;
	l->pb = pb;
	l->plane = na->type == FG_SWITCH ? na->plane : nb->plane;
	na->ports[pa].link = f->nlinks;
	nb->ports[pb].link = f->nlinks;
	f->nlinks++;
	return 0;
}

int fg_is_switch_link(const struct fg_fabric *f, const struct fg_link *l)
{
	return f->nodes[l->a].type == FG_SWITCH &&
	       f->nodes[l->b].type == FG_SWITCH;
}

/* plane < 0 counts the whole file; otherwise one rail plane as a subnet
 * manager on that plane sees it: its switches and links, and every host. */
void fg_count(const struct fg_fabric *f, int plane, struct fg_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < f->nnodes; i++) {
		const struct fg_node *n = &f->nodes[i];
		if (n->type == FG_HCA) {
			c->hosts++;
			c->ibsim_ports += n->nports;
			c->lids += n->nports;
		} else if (plane < 0 || n->plane == plane) {
			c->switches++;
			c->ibsim_ports += n->nports + 1;
			c->lids++;
		}
	}
	c->nodes = c->hosts + c->switches;
	for (int i = 0; i < f->nlinks; i++) {
		const struct fg_link *l = &f->links[i];
		if (plane >= 0 && l->plane != plane)
			continue;
		int sw = fg_is_switch_link(f, l);
		if (l->cut) {
			c->cut++;
			continue;
		}
		c->links++;
		if (sw)
			c->switch_links++;
		else
			c->host_links++;
		if (l->slow)
			c->slow++;
	}
}

int fg_ibsim_flags(const struct fg_counts *c, char *buf, size_t len)
{
	int n;

	buf[0] = 0;
	if (c->nodes > FG_IBSIM_NODES || c->switches > FG_IBSIM_SWITCHES ||
	    c->ibsim_ports > FG_IBSIM_PORTS) {
		/* Never below the defaults: -N 100 would shrink ibsim. */
		n = snprintf(buf, len, "-N %ld -S %ld -P %ld",
			     c->nodes > FG_IBSIM_NODES ? c->nodes : FG_IBSIM_NODES,
			     c->switches > FG_IBSIM_SWITCHES ? c->switches
							     : FG_IBSIM_SWITCHES,
			     c->ibsim_ports > FG_IBSIM_PORTS ? c->ibsim_ports
							     : FG_IBSIM_PORTS);
		if (n < 0 || (size_t)n >= len)
			return -ENOSPC;
	}
	/* LIDs are numbered from 1 and every switch LFT spans them all. */
	if (c->lids + 1 > FG_IBSIM_LIDS) {
		size_t used = strlen(buf);
		n = snprintf(buf + used, len - used, "%s-L %ld", used ? " " : "",
			     ((c->lids + 1 + 63) / 64) * 64);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
	}
	return 0;
}

static int write_node(const struct fg_fabric *f, const struct fg_node *n,
		      FILE *out)
{
	if (fprintf(out, "%s %d \"%s\"\n", n->type == FG_SWITCH ? "Switch" : "Hca",
		    n->nports, n->name) < 0)
		return -EIO;
	for (int p = 1; p <= n->nports; p++) {
		int li = n->ports[p].link;
		if (li < 0 || f->links[li].cut)
			continue;
		const struct fg_link *l = &f->links[li];
		int self_a = &f->nodes[l->a] == n && l->pa == p;
		int peer = self_a ? l->b : l->a;
		int peer_port = self_a ? l->pb : l->pa;
		/* Both ends must say w=1: ibsim ANDs the enabled widths of the
		 * two ends and refuses a link that ends up with none. */
		if (fprintf(out, "[%d] \"%s\"[%d]%s\n", p, f->nodes[peer].name,
			    peer_port, l->slow ? " w=1" : "") < 0)
			return -EIO;
	}
	if (fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}

int fg_write(const struct fg_fabric *f, FILE *out)
{
	if (f->nnodes == 0 || f->nodes[0].type != FG_HCA)
		return -EINVAL;	/* ibsim attaches clients to the first node */
	for (int i = 0; i < f->nnodes; i++) {
		int r = write_node(f, &f->nodes[i], out);
		if (r < 0)
			return r;
	}
	return 0;
}

int fg_host_digits(long hosts)
{
	int d = 1;
	for (long v = hosts > 0 ? hosts - 1 : 0; v >= 10; v /= 10)
		d++;
	return d < 4 ? 4 : d;
}
