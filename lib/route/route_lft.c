/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_lft.c: linear forwarding tables and their text dump. */
#include "autoconf.h"
#include "lib/route/route_lft.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/log.h"

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

/* The switch whose GUID follows "guid 0x" in a table header: its index,
 * -1 if no switch has that GUID, -2 if the header has none. */
static int32_t header_switch(const struct rt_graph *g, const char *line, uint64_t *guid)
{
	const char *p = strstr(line, " guid 0x");
	size_t lo = 0, hi = g->n_sw;

	if (!p || sscanf(p + 6, "%" SCNx64, guid) != 1)
		return -2;
	while (lo < hi) {  /* switches are in GUID order */
		size_t mid = lo + (hi - lo) / 2;

		if (g->sw[mid].guid < *guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n_sw && g->sw[lo].guid == *guid ? (int32_t)lo : -1;
}

struct rt_lfts *rt_lfts_read_dump(const struct rt_graph *g, FILE *in, const char *name,
				  size_t *n_missing, char *err, size_t errlen)
{
	struct rt_lfts *l = rt_lfts_new(g);
	uint8_t *seen = calloc(g->n_sw + 1, 1);
	char line[512];
	unsigned lineno = 0;
	int32_t sw = -1;

	if (!l || !seen) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto fail;
	}
	while (fgets(line, sizeof(line), in)) {
		unsigned lid, port;
		uint64_t guid;

		lineno++;
		if (strncmp(line, "Unicast lids", 12) == 0) {
			sw = header_switch(g, line, &guid);
			if (sw == -2) {
				err_at(err, errlen, 0, name, lineno,
				       "a table header without \"guid 0x...\"");
				goto fail;
			}
			if (sw < 0) {
				err_at(err, errlen, 0, name, lineno,
				       "switch 0x%016" PRIx64 " is not in the topology", guid);
				goto fail;
			}
			seen[sw] = 1;
			continue;
		}
		if (strncmp(line, "0x", 2) != 0)
			continue;  /* column titles, counts, comments */
		if (sw < 0 || sscanf(line, "%x %u", &lid, &port) != 2) {
			err_at(err, errlen, 0, name, lineno, "%s", sw < 0 ?
			       "an entry before any \"Unicast lids\" header" :
			       "expected \"0xLID PORT\"");
			goto fail;
		}
		if (port != RT_NO_PORT && port > g->sw[sw].nports) {
			err_at(err, errlen, 0, name, lineno, "port %u, but %s has %u ports", port,
			       g->sw[sw].desc, g->sw[sw].nports);
			goto fail;
		}
		if (lid <= g->max_lid)
			rt_lfts_set(l, (size_t)sw, lid, (uint8_t)port);
	}
	if (ferror(in)) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		goto fail;
	}
	*n_missing = 0;
	for (size_t s = 0; s < g->n_sw; s++) {
		*n_missing += !seen[s];
		for (unsigned lid = 1; lid <= g->max_lid; lid++)
			if (rt_graph_lid_switch(g, lid) >= 0 || rt_graph_lid_ca(g, lid) >= 0) {
				if (rt_lfts_get(l, s, lid) != RT_NO_PORT)
					l->n_routed++;
				else
					l->n_unreachable++;
			}
	}
	free(seen);
	return l;
fail:
	free(seen);
	rt_lfts_free(l);
	return NULL;
}
