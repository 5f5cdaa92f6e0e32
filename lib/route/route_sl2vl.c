/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/route/route_sl2vl.c: see route_sl2vl.h.
 *
 * A pair's table is one 64-bit word (16 nibbles): a 36-port switch costs
 * 37 x 37 words, 11 KB; 1620 such switches 18 MB. */
#include "autoconf.h"
#include "lib/route/route_sl2vl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IDENTITY 0xFEDCBA9876543210ULL

struct rt_sl2vl *rt_sl2vl_new(const struct rt_graph *g)
{
	struct rt_sl2vl *t = calloc(1, sizeof(*t));
	size_t pairs = 0;

	if (!t)
		return NULL;
	t->g = g;
	if (!(t->base = malloc((g->n_sw + 1) * sizeof(*t->base))))
		goto fail;
	for (size_t s = 0; s < g->n_sw; s++) {
		size_t n = (size_t)g->sw[s].nports + 1;

		t->base[s] = pairs;
		pairs += n * n;
	}
	if (!(t->map = malloc((pairs + 1) * sizeof(*t->map))))
		goto fail;
	for (size_t i = 0; i < pairs; i++)
		t->map[i] = IDENTITY;
	return t;
fail:
	rt_sl2vl_free(t);
	errno = ENOMEM;
	return NULL;
}

void rt_sl2vl_free(struct rt_sl2vl *t)
{
	if (!t)
		return;
	free(t->base);
	free(t->map);
	free(t);
}

int rt_sl2vl_set(struct rt_sl2vl *t, size_t sw, unsigned in, unsigned out,
		 const uint8_t vl[RT_SLS])
{
	size_t n;
	uint64_t word = 0;

	if (sw >= t->g->n_sw || in > t->g->sw[sw].nports || out > t->g->sw[sw].nports)
		return -EINVAL;
	n = (size_t)t->g->sw[sw].nports + 1;
	for (unsigned s = 0; s < RT_SLS; s++)
		word |= (uint64_t)(vl[s] & 15) << (4 * s);
	t->map[t->base[sw] + in * n + out] = word;
	t->n_set++;
	return 0;
}

/* ---- the SL file ------------------------------------------------------------------ */

int rt_sls_write(const struct rt_graph *g, const struct rt_lfts *l,
		 uint8_t (*sl_of)(void *ctx, uint8_t layer), void *ctx, FILE *out)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t *has_ca = calloc(g->n_sw + 1, 1);
	int rc = 0;

	if (!has_ca) {
		free(has_ca);
		return -EIO;
	}
	for (size_t c = 0; c < g->n_ca; c++)
		if (g->ca[c].sw >= 0)
			has_ca[g->ca[c].sw] = 1;
	if (fprintf(out, "# the SL of every path (entry switch, destination LID), "
		    "written by loom's OpenSM plugin\nsls %u %u\n", (unsigned)l->max_lid,
		    (unsigned)(l->n_vls ? l->n_vls : 1)) < 0)
		rc = -EIO;
	for (size_t s = 0; rc == 0 && s < g->n_sw; s++) {
		if (!has_ca[s])
			continue;
		fprintf(out, "0x%016llx ", (unsigned long long)g->sw[s].guid);
		for (unsigned lid = 0; lid <= l->max_lid; lid++) {
			uint8_t sl = rt_lfts_sl(l, s, lid);

			putc(hex[(sl_of ? sl_of(ctx, sl) : sl) & 15], out);
		}
		if (putc('\n', out) == EOF)
			rc = -EIO;
	}
	free(has_ca);
	return rc == 0 && !ferror(out) ? 0 : -EIO;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int rt_sls_read(const struct rt_graph *g, struct rt_lfts *l, FILE *in, const char *name,
		size_t *n_switches, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	unsigned max_lid = 0, vls = 0;
	int have_head = 0, rc = 0;
	ssize_t len;

	*n_switches = 0;
	if (!l->sl && rt_lfts_sl_alloc(l) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while ((len = getline(&line, &cap, in)) >= 0) {
		unsigned long long guid;
		char *p;
		int32_t s;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (!have_head) {
			if (sscanf(line, "sls %u %u", &max_lid, &vls) != 2 || vls == 0 || vls > 16 ||
			    max_lid > 0xbfff) {
				snprintf(err, errlen, "%s:%zu: not an SL file (want \"sls MAX_LID "
					 "VLS\")", name, lineno);
				rc = -EINVAL;
				break;
			}
			have_head = 1;
			continue;
		}
		guid = strtoull(line, &p, 16);
		if (p == line || *p != ' ' || (size_t)(len - (p + 1 - line)) != (size_t)max_lid + 1) {
			snprintf(err, errlen, "%s:%zu: want \"0xGUID\" and %u hex digits", name,
				 lineno, max_lid + 1);
			rc = -EINVAL;
			break;
		}
		if ((s = rt_graph_switch(g, guid)) < 0) {
			snprintf(err, errlen, "%s:%zu: switch 0x%016llx is not in the fabric", name,
				 lineno, guid);
			rc = -EINVAL;
			break;
		}
		p++;
		for (unsigned lid = 0; lid <= max_lid; lid++) {
			int v = hexval(p[lid]);

			if (v < 0) {
				snprintf(err, errlen, "%s:%zu: LID %u: '%c' is no hex digit", name,
					 lineno, lid, p[lid]);
				rc = -EINVAL;
				goto out;
			}
			if (lid <= l->max_lid)
				l->sl[(size_t)s * ((size_t)l->max_lid + 1) + lid] = (uint8_t)v;
		}
		(*n_switches)++;
	}
	if (rc == 0 && !have_head) {
		snprintf(err, errlen, "%s: empty SL file", name);
		rc = -EINVAL;
	}
	if (rc == 0)
		l->n_vls = (uint8_t)vls;
out:
	free(line);
	return rc;
}
