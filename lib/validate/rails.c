/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/rails.c: every leaf carries one rail (rails.h): each HCA
 * port cabled to a switch, with its rail, sorted by leaf and rail; a leaf's
 * runs of one rail give its majority, and the ports off it are strays. */
#include "autoconf.h"
#include "lib/validate/rails.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"

#define RAIL_LEN 24

static const char *const from_names[] = { "off", "device", "port", "pattern" };

int rails_from_parse(const char *s)
{
	for (unsigned i = 0; i < sizeof(from_names) / sizeof(from_names[0]); i++)
		if (!strcmp(s, from_names[i]))
			return (int)i;
	return -1;
}

const char *rails_from_name(enum rails_from f)
{
	return (unsigned)f < sizeof(from_names) / sizeof(from_names[0]) ? from_names[f] : "?";
}

static int compile(const char *pattern, regex_t *re, char *err, size_t errlen)
{
	int rc = regcomp(re, pattern ? pattern : "", REG_EXTENDED);

	if (rc) {
		char why[256];

		regerror(rc, re, why, sizeof(why));
		snprintf(err, errlen, "\"%s\": %s", pattern ? pattern : "", why);
		return -EINVAL;
	}
	if (re->re_nsub != 1) {
		snprintf(err, errlen, "\"%s\": %zu capture groups, one is wanted (the rail)",
			 pattern, (size_t)re->re_nsub);
		regfree(re);
		return -EINVAL;
	}
	return 0;
}

int rails_pattern_check(const char *pattern, char *err, size_t errlen)
{
	regex_t re;
	int rc = compile(pattern, &re, err, errlen);

	if (rc == 0)
		regfree(&re);
	return rc;
}

/* The device word's trailing number: "host mlx5_3" -> "3". 0 or -1. */
static int rail_of_device(const char *desc, char rail[RAIL_LEN])
{
	const char *end = desc + strlen(desc), *w, *d;

	while (end > desc && isspace((unsigned char)end[-1]))
		end--;
	for (w = end; w > desc && !isspace((unsigned char)w[-1]); w--)
		;
	if (w == end || w == desc)   /* one word: a host name, no device */
		return -1;
	for (d = end; d > w && isdigit((unsigned char)d[-1]); d--)
		;
	if (d == end || d == w || end - d >= RAIL_LEN)
		return -1;
	while (d + 1 < end && *d == '0')   /* "mlx5_03" is rail 3 */
		d++;
	snprintf(rail, RAIL_LEN, "%.*s", (int)(end - d), d);
	return 0;
}

static int rail_of_pattern(const regex_t *re, const char *desc, char rail[RAIL_LEN])
{
	regmatch_t m[2];

	if (regexec(re, desc, 2, m, 0) || m[1].rm_so < 0 || m[1].rm_eo <= m[1].rm_so)
		return -1;
	snprintf(rail, RAIL_LEN, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), desc + m[1].rm_so);
	return 0;
}

struct hca_port {
	const struct fab_node *leaf, *hca;
	unsigned leaf_port, port;
	char rail[RAIL_LEN];
};

static int by_leaf_rail(const void *x, const void *y)
{
	const struct hca_port *a = x, *b = y;
	int c;

	if (a->leaf->guid != b->leaf->guid)
		return a->leaf->guid < b->leaf->guid ? -1 : 1;
	if ((c = strcmp(a->rail, b->rail)))
		return c;
	if (a->hca->guid != b->hca->guid)
		return a->hca->guid < b->hca->guid ? -1 : 1;
	return (a->port > b->port) - (a->port < b->port);
}

/* One leaf's ports v[0..n), sorted by rail: its findings. */
static int judge_leaf(const struct hca_port *v, size_t n, const struct nodename_map *names,
		      struct val_report *r)
{
	const char *leaf = nodename_of(names, v[0].leaf->guid, v[0].leaf->desc);
	size_t best = 0, best_n = 0, second_n = 0;
	char got[320] = "";

	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n && !strcmp(v[i + run].rail, v[i].rail); run++)
			;
		if (run > best_n) {
			second_n = best_n;
			best_n = run;
			best = i;
		} else if (run > second_n) {
			second_n = run;
		}
	}
	if (best_n == n)
		return 0;
	if (best_n == second_n) {
		size_t o = 0;

		for (size_t i = 0, run; i < n && o < sizeof(got); i += run) {
			for (run = 1; i + run < n && !strcmp(v[i + run].rail, v[i].rail); run++)
				;
			o += (size_t)snprintf(got + o, sizeof(got) - o, "%srail %s: %zu", o ? ", " : "",
					      v[i].rail, run);
		}
		return val_add(r, VAL_RAIL_TIE, 0, "one rail", got, "%s", leaf);
	}
	for (size_t i = 0; i < n; i++) {
		char want[RAIL_LEN + FAB_DESC_LEN + 32];

		if (!strcmp(v[i].rail, v[best].rail))
			continue;
		snprintf(want, sizeof(want), "rail %s (%s's)", v[best].rail, leaf);
		snprintf(got, sizeof(got), "rail %s", v[i].rail);
		if (val_add(r, VAL_RAIL_STRAY, 0, want, got, "%s[%u] - %s[%u]",
			    nodename_of(names, v[i].hca->guid, v[i].hca->desc), v[i].port, leaf,
			    v[i].leaf_port) < 0)
			return -ENOMEM;
	}
	return 0;
}

int rails_check(const struct fab *fab, enum rails_from from, const char *pattern,
		const struct nodename_map *names, struct val_report *r, char *err, size_t errlen)
{
	struct hca_port *v;
	size_t n = 0, cap = 0;
	regex_t re;
	int rc = 0;

	if (from == RAILS_OFF)
		return 0;
	if (from == RAILS_PATTERN && compile(pattern, &re, err, errlen) < 0)
		return -EINVAL;
	for (size_t i = 0; i < fab->n_nodes; i++)
		if (fab->nodes[i]->type == IBT_NODE_CA)
			cap += fab->nodes[i]->nports;
	if (!(v = calloc(cap + 1, sizeof(*v)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *h = fab->nodes[i];
		char rail[RAIL_LEN];
		int known = 0;

		if (h->type != IBT_NODE_CA)
			continue;
		if (from == RAILS_DEVICE)
			known = rail_of_device(h->desc, rail) == 0;
		else if (from == RAILS_PATTERN)
			known = rail_of_pattern(&re, h->desc, rail) == 0;
		for (unsigned p = 1; p <= h->nports; p++) {
			const struct fab_port *pt = &h->ports[p];
			const struct fab_node *leaf;

			if (!pt->present || !pt->has_peer || !(leaf = fab_find(fab, pt->peer_guid)) ||
			    leaf->type != IBT_NODE_SWITCH)
				continue;
			if (from == RAILS_PORT)
				snprintf(rail, sizeof(rail), "%u", p - 1);
			else if (!known)
				continue;
			v[n] = (struct hca_port){ .leaf = leaf, .hca = h, .leaf_port = pt->peer_port,
						  .port = p };
			memcpy(v[n].rail, rail, sizeof(rail));
			n++;
		}
	}
	qsort(v, n, sizeof(*v), by_leaf_rail);
	for (size_t i = 0, run; i < n && rc == 0; i += run) {
		for (run = 1; i + run < n && v[i + run].leaf == v[i].leaf; run++)
			;
		rc = judge_leaf(v + i, run, names, r);
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(v);
out:
	if (from == RAILS_PATTERN)
		regfree(&re);
	return rc;
}
