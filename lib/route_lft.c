/* lib/route_lft.c: linear forwarding tables and their text dump. */
#include "autoconf.h"
#include "route_lft.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rt_lfts *rt_lfts_new(const struct rt_graph *g)
{
	struct rt_lfts *l = calloc(1, sizeof(*l));
	size_t n = (g->n_sw ? g->n_sw : 1) * ((size_t)g->max_lid + 1);

	if (!l || !(l->port = malloc(n))) {
		free(l);
		errno = ENOMEM;
		return NULL;
	}
	memset(l->port, RT_NO_PORT, n);
	l->n_sw = g->n_sw;
	l->max_lid = g->max_lid;
	l->n_vls = 1;
	return l;
}

int rt_lfts_sl_alloc(struct rt_lfts *l)
{
	size_t n = (l->n_sw ? l->n_sw : 1) * ((size_t)l->max_lid + 1);

	if (l->sl)
		return 0;
	l->sl = calloc(n, 1);
	return l->sl ? 0 : -ENOMEM;
}

void rt_lfts_free(struct rt_lfts *l)
{
	if (!l)
		return;
	free(l->port);
	free(l->sl);
	free(l);
}

/* The "(Channel Adapter portguid 0x...: 'desc')" part of a dump line. */
static void destination(const struct rt_graph *g, unsigned lid, FILE *out)
{
	int32_t s = rt_graph_lid_switch(g, lid), c = rt_graph_lid_ca(g, lid);

	if (s >= 0)
		fprintf(out, "(Switch portguid 0x%016llx: '%s')",
			(unsigned long long)g->sw[s].guid, g->sw[s].desc);
	else if (c >= 0)
		fprintf(out, "(Channel Adapter portguid 0x%016llx: '%s')",
			(unsigned long long)g->ca[c].guid, g->ca[c].desc);
	else
		fprintf(out, "(unknown)");
}

int rt_lfts_write_dump(const struct rt_graph *g, const struct rt_lfts *l, FILE *out)
{
	for (size_t s = 0; s < g->n_sw; s++) {
		unsigned valid = 0;

		fprintf(out, "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016llx (%s):\n",
			l->max_lid, g->sw[s].lid, (unsigned long long)g->sw[s].guid, g->sw[s].desc);
		fprintf(out, "  Lid  Out   Destination\n       Port     Info \n");
		for (unsigned lid = 1; lid <= l->max_lid; lid++) {
			uint8_t p = rt_lfts_get(l, s, lid);

			if (p == RT_NO_PORT)
				continue;
			fprintf(out, "0x%04x %03u : ", lid, p);
			destination(g, lid, out);
			fputc('\n', out);
			valid++;
		}
		fprintf(out, "%u valid lids dumped \n", valid);
	}
	return ferror(out) ? -EIO : 0;
}
