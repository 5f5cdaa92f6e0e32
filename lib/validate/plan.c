/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/plan.c: the cabling plan (plan.h): a CSV of cables, or every
 * link of a topology file read by lib/fabric/topo_file.c. */
#include "autoconf.h"
#include "lib/validate/plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"
#include "lib/fabric/topo_file.h"
#include "lib/util/log.h"
#include "lib/util/slurp.h"

#define PLAN_MAX_FIELD 256

void plan_free(struct plan *p)
{
	if (!p)
		return;
	free(p->cables);
	free(p);
}

static struct plan *plan_new(const char *source)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (p)
		snprintf(p->source, sizeof(p->source), "%s", source ? source : "-");
	return p;
}

static int plan_add(struct plan *p, const struct plan_cable *c)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct plan_cable *nc = realloc(p->cables, cap * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		p->cables = nc;
		p->cap = cap;
	}
	p->cables[p->n++] = *c;
	p->n_eth += c->eth != 0;
	return 0;
}

struct plan *plan_only(const struct plan *p, int eth)
{
	struct plan *q = plan_new(p->source);

	for (size_t i = 0; q && i < p->n; i++)
		if (!p->cables[i].eth == !eth && plan_add(q, &p->cables[i]) < 0) {
			plan_free(q);
			q = NULL;
		}
	return q;
}

const char *plan_port_text(const struct plan_cable *c, int b_end, char *buf, size_t len)
{
	if (c->eth)
		snprintf(buf, len, "%s", b_end ? c->b_pname : c->a_pname);
	else
		snprintf(buf, len, "%u", b_end ? c->b_port : c->a_port);
	return buf;
}

/* A bad plan: "FILE:LINE: what" (lib/util/log.h's one form), -EINVAL. */
static int bad_plan(char *err, size_t errlen, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int bad_plan(char *err, size_t errlen, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = err_vat(err, errlen, -EINVAL, file, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- one end of a cable is in at most one cable ----------------------------------- */

struct end_key {
	const char *node;
	unsigned port;
	const char *pname;  /* an Ethernet port's name ("" IB) */
	size_t cable;   /* index into the plan */
};

static int end_cmp(const void *x, const void *y)
{
	const struct end_key *a = x, *b = y;
	int c = strcmp(a->node, b->node);

	if (c)
		return c;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if ((c = strcmp(a->pname, b->pname)))
		return c;
	return a->cable < b->cable ? -1 : a->cable > b->cable;
}

static int same_cable(const struct plan_cable *x, const struct plan_cable *y)
{
	return (!strcmp(x->a, y->a) && x->a_port == y->a_port && !strcmp(x->a_pname, y->a_pname) &&
		!strcmp(x->b, y->b) && x->b_port == y->b_port && !strcmp(x->b_pname, y->b_pname)) ||
	       (!strcmp(x->a, y->b) && x->a_port == y->b_port && !strcmp(x->a_pname, y->b_pname) &&
		!strcmp(x->b, y->a) && x->b_port == y->a_port && !strcmp(x->b_pname, y->a_pname));
}

/* Every port in one cable: the second row naming a port is a duplicate
 * (the same cable) or a contradiction (another cable). */
static int check_ends(const struct plan *p, char *err, size_t errlen)
{
	struct end_key *k = calloc(2 * p->n + 1, sizeof(*k));
	int rc = 0;

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		k[2 * i] = (struct end_key){ p->cables[i].a, p->cables[i].a_port, p->cables[i].a_pname,
					     i };
		k[2 * i + 1] = (struct end_key){ p->cables[i].b, p->cables[i].b_port,
						 p->cables[i].b_pname, i };
	}
	qsort(k, 2 * p->n, sizeof(*k), end_cmp);
	for (size_t i = 1; i < 2 * p->n && rc == 0; i++) {
		const struct plan_cable *first, *again;
		char t[4][PLAN_PORT_LEN];
		int ag, fb;   /* the far end's: again's, first's (1: b) */

		if (strcmp(k[i].node, k[i - 1].node) || k[i].port != k[i - 1].port ||
		    strcmp(k[i].pname, k[i - 1].pname))
			continue;
		first = &p->cables[k[i - 1].cable];
		again = &p->cables[k[i].cable];
		if (first == again)
			continue;  /* a cable from a port to itself: refused when read */
		if (same_cable(first, again)) {
			rc = bad_plan(err, errlen, p->source, again->line, "the cable %s[%s] - %s[%s] again "
				      "(line %u has it)", again->a, plan_port_text(again, 0, t[0], 32),
				      again->b, plan_port_text(again, 1, t[1], 32), first->line);
			continue;
		}
		ag = !strcmp(again->a, k[i].node) && again->a_port == k[i].port &&
		     !strcmp(again->a_pname, k[i].pname);
		fb = !strcmp(first->a, k[i].node) && first->a_port == k[i].port &&
		     !strcmp(first->a_pname, k[i].pname);
		rc = bad_plan(err, errlen, p->source, again->line, "%s[%s] is cabled to %s[%s] "
			      "here and to %s[%s] on line %u", k[i].node,
			      plan_port_text(again, !ag, t[0], 32), ag ? again->b : again->a,
			      plan_port_text(again, ag, t[1], 32), fb ? first->b : first->a,
			      plan_port_text(first, fb, t[2], 32), first->line);
	}
	free(k);
	return rc;
}

/* ---- CSV ------------------------------------------------------------------------------ */

/* Split one line on commas (fields trimmed; a field may be "quoted", with
 * "" for a quote inside). The number of fields, or -1 when a quote is not
 * closed or a field is too long. */
static int split_csv(const char *s, size_t len, char f[][PLAN_MAX_FIELD], int max)
{
	size_t i = 0;
	int n = 0;

	for (;;) {
		size_t o = 0;

		if (n == max)
			return max + 1;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < len && s[i] == '"') {
			for (i++;; i++) {
				if (i >= len)
					return -1;
				if (s[i] == '"') {
					if (i + 1 < len && s[i + 1] == '"')
						i++;
					else
						break;
				}
				if (o + 1 >= PLAN_MAX_FIELD)
					return -1;
				f[n][o++] = s[i];
			}
			i++;
			while (i < len && (s[i] == ' ' || s[i] == '\t'))
				i++;
		} else {
			while (i < len && s[i] != ',') {
				if (o + 1 >= PLAN_MAX_FIELD)
					return -1;
				f[n][o++] = s[i++];
			}
			while (o && (f[n][o - 1] == ' ' || f[n][o - 1] == '\t'))
				o--;
		}
		f[n++][o] = '\0';
		if (i >= len)
			return n;
		if (s[i] != ',')
			return -1;
		i++;
	}
}

static int port_num(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v < 1 || v > 254)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* An Ethernet port's name (issue 43): a letter, then [A-Za-z0-9/:._-]. */
static int port_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= PLAN_PORT_LEN || !isalpha((unsigned char)*s))
		return -1;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/:._-") == n ?
	       0 : -1;
}

/* Fields 2 and 4: two port numbers (an InfiniBand cable) or two names (an
 * Ethernet one). */
static int csv_ports(struct plan *p, struct plan_cable *c, char f[][PLAN_MAX_FIELD], unsigned line,
		     char *err, size_t errlen)
{
	int na = port_name(f[1]) == 0, nb = port_name(f[3]) == 0;

	if (na && nb) {
		c->eth = 1;
		snprintf(c->a_pname, sizeof(c->a_pname), "%s", f[1]);
		snprintf(c->b_pname, sizeof(c->b_pname), "%s", f[3]);
		if (!strcmp(c->a, c->b) && !strcmp(c->a_pname, c->b_pname))
			return bad_plan(err, errlen, p->source, line, "a cable from %s[%s] to itself",
					c->a, c->a_pname);
		return 0;
	}
	if (na || nb)
		return bad_plan(err, errlen, p->source, line, "field %d (%s): \"%s\" is a port number "
				"and field %d a name: a cable is numbered (InfiniBand) or named "
				"(Ethernet) at both ends", na ? 4 : 2, na ? "peer_port" : "port",
				na ? f[3] : f[1], na ? 2 : 4);
	if (port_num(f[1], &c->a_port) < 0)
		return bad_plan(err, errlen, p->source, line, "field 2 (port): \"%s\" is not a port "
				"number 1..254 or an Ethernet port's name", f[1]);
	if (port_num(f[3], &c->b_port) < 0)
		return bad_plan(err, errlen, p->source, line, "field 4 (peer_port): \"%s\" is not a "
				"port number 1..254 or an Ethernet port's name", f[3]);
	if (!strcmp(c->a, c->b) && c->a_port == c->b_port)
		return bad_plan(err, errlen, p->source, line, "a cable from %s[%u] to itself", c->a,
				c->a_port);
	return 0;
}

static int csv_line(struct plan *p, const char *s, size_t len, unsigned line, int *header,
		    char *err, size_t errlen)
{
	char f[7][PLAN_MAX_FIELD];
	struct plan_cable c = { .line = line };
	int n = split_csv(s, len, f, 6);

	if (n < 0)
		return bad_plan(err, errlen, p->source, line, "an unclosed quote or a field over %d "
				"characters", PLAN_MAX_FIELD - 1);
	if (*header && n >= 1 && !strcasecmp(f[0], "node")) {
		*header = 0;
		return 0;
	}
	*header = 0;
	if (n < 4 || n > 6)
		return bad_plan(err, errlen, p->source, line, "%d fields: a cable is node,port,peer,"
				"peer_port[,width[,speed]]", n);
	for (int i = 0; i < 3; i += 2) {
		if (!f[i][0])
			return bad_plan(err, errlen, p->source, line, "field %d (%s) is empty", i + 1,
					i ? "peer" : "node");
	}
	snprintf(c.a, sizeof(c.a), "%s", f[0]);
	snprintf(c.b, sizeof(c.b), "%s", f[2]);
	if (csv_ports(p, &c, f, line, err, errlen) < 0)
		return -EINVAL;
	if (n >= 5 && f[4][0]) {
		unsigned w = ibt_width_parse(f[4]);

		if (!w || ibt_width_lanes(w) <= 0)
			return bad_plan(err, errlen, p->source, line, "field 5 (width): \"%s\" is not "
					"one width (1x, 2x, 4x, 8x, 12x)", f[4]);
		c.width = w;
	}
	if (n == 6 && f[5][0]) {
		unsigned sp = ibt_speed_parse(f[5]);

		if (!sp || (sp & (sp - 1)))
			return bad_plan(err, errlen, p->source, line, "field 6 (speed): \"%s\" is not "
					"one speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)", f[5]);
		c.speed = sp;
	}
	return plan_add(p, &c) < 0 ? -ENOMEM : 0;
}

static struct plan *parse_csv(const char *name, const char *text, size_t len, char *err,
			      size_t errlen)
{
	struct plan *p = plan_new(name);
	size_t pos = 0;
	unsigned line = 0;
	int header = 1, rc = 0;

	if (!p) {
		snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
		return NULL;
	}
	while (pos < len && rc == 0) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;

		pos += l + (nl ? 1 : 0);
		line++;
		while (l && (s[l - 1] == '\r' || s[l - 1] == ' ' || s[l - 1] == '\t'))
			l--;
		while (l && (*s == ' ' || *s == '\t')) {
			s++;
			l--;
		}
		if (!l || *s == '#')
			continue;
		rc = csv_line(p, s, l, line, &header, err, errlen);
		if (rc == -ENOMEM)
			snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
	}
	if (rc == 0 && !p->n)
		rc = bad_plan(err, errlen, name, 0, "no cables");
	if (rc == 0)
		rc = check_ends(p, err, errlen);
	if (rc < 0) {
		plan_free(p);
		return NULL;
	}
	return p;
}

/* ---- a topology file ------------------------------------------------------------------- */

struct from_fab {
	struct plan *p;
	const struct nodename_map *names;
	int rc;
};

static int add_link(const struct fab_link *l, void *arg)
{
	struct from_fab *x = arg;
	struct plan_cable c = { .a_port = l->a->num, .b_port = l->b->num,
				.width = l->a->width_active, .speed = l->a->speed_active };

	snprintf(c.a, sizeof(c.a), "%s", nodename_of(x->names, l->a_node->guid, l->a_node->desc));
	snprintf(c.b, sizeof(c.b), "%s", nodename_of(x->names, l->b_node->guid, l->b_node->desc));
	c.a_guid = l->a_node->guid;
	c.b_guid = l->b_node->guid;
	if ((x->rc = plan_add(x->p, &c)) < 0)
		return 1;
	return 0;
}

struct plan *plan_from_fab(const struct fab *fab, const struct nodename_map *names,
			   const char *source, char *err, size_t errlen)
{
	struct from_fab x = { .p = plan_new(source), .names = names };

	if (!x.p || (fab_foreach_link(fab, add_link, &x), x.rc < 0)) {
		plan_free(x.p);
		snprintf(err, errlen, "%s: %s", source ? source : "-", strerror(ENOMEM));
		return NULL;
	}
	/* Nodes are told apart by their GUIDs: one description on two nodes
	 * is no ambiguity here (plan_parse checks a net file's, whose GUIDs
	 * are made up). */
	return x.p;
}

void plan_rename(struct plan *p, const struct nodename_map *names)
{
	for (size_t i = 0; i < p->n; i++) {
		struct plan_cable *c = &p->cables[i];
		const char *a = c->a_guid ? nodename_get(names, c->a_guid) : NULL;
		const char *b = c->b_guid ? nodename_get(names, c->b_guid) : NULL;

		if (a)
			snprintf(c->a, sizeof(c->a), "%s", a);
		if (b)
			snprintf(c->b, sizeof(c->b), "%s", b);
	}
}

/* A plan of a topology file without real GUIDs names nodes by
 * description alone: two nodes with one make its cables ambiguous. */
static struct plan *by_description(struct plan *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->n; i++) {
		struct plan_cable *c = &p->cables[i];

		c->a_guid = c->b_guid = 0;
		if (!strcmp(c->a, c->b) && c->a_port == c->b_port) {
			snprintf(err, errlen, "%s: a link from \"%s\"[%u] to \"%s\"[%u]: two nodes "
				 "share a description (a plan names nodes by description)",
				 p->source, c->a, c->a_port, c->b, c->b_port);
			plan_free(p);
			return NULL;
		}
	}
	if (check_ends(p, err, errlen) < 0) {
		size_t l = strlen(err);

		snprintf(err + l, errlen - l, " (two nodes share a description: a plan names "
			 "nodes by description)");
		plan_free(p);
		return NULL;
	}
	return p;
}

/* A topology file's first word: ibnetdiscover's or ibsim's. */
static int looks_topology(const char *text, size_t len)
{
	static const char *const words[] = { "vendid", "devid", "sysimgguid", "switchguid",
					      "caguid", "rtguid", "Switch", "Hca", "Ca", "Rt" };
	size_t pos = 0;

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;

		pos += l + (nl ? 1 : 0);
		while (l && isspace((unsigned char)*s)) {
			s++;
			l--;
		}
		if (!l || *s == '#')
			continue;
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			size_t w = strlen(words[i]);

			if (l > w && !strncmp(s, words[i], w) &&
			    (s[w] == '=' || isspace((unsigned char)s[w])))
				return 1;
		}
		return 0;
	}
	return 0;
}

struct plan *plan_parse(const char *name, const char *text, size_t len, char *err,
			size_t errlen)
{
	struct fab *fab;
	struct plan *p;

	name = name ? name : "-";
	if (!looks_topology(text, len))
		return parse_csv(name, text, len, err, errlen);
	if (!(fab = topo_file_parse(name, text, len, "plan", err, errlen)))
		return NULL;
	p = plan_from_fab(fab, NULL, name, err, errlen);
	fab_free(fab);
	/* ibnetdiscover's switchguid=/caguid= lines: the GUIDs are real */
	if (p && !memmem(text, len, "guid=0x", 7))
		p = by_description(p, err, errlen);
	if (p && !p->n) {   /* as a CSV without a cable */
		snprintf(err, errlen, "%s: no cables (a topology without links)", name);
		plan_free(p);
		return NULL;
	}
	return p;
}

/* A CSV field: quoted when it would not read back as it is. */
static void csv_field(FILE *out, const char *v)
{
	if (!v[0] || strpbrk(v, ",\"#\r\n") || isspace((unsigned char)v[0]) ||
	    isspace((unsigned char)v[strlen(v) - 1])) {
		fputc('"', out);
		for (; *v; v++) {
			if (*v == '"')
				fputc('"', out);
			fputc(*v, out);
		}
		fputc('"', out);
		return;
	}
	fputs(v, out);
}

struct named {
	const char *name;
	uint64_t guid;
};

static int named_cmp(const void *x, const void *y)
{
	const struct named *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : a->guid < b->guid ? -1 : a->guid > b->guid;
}

/* Two nodes (GUIDs) under one description: a CSV could not tell them
 * apart. -EINVAL with err, -ENOMEM, or 0. */
static int names_unique(const struct plan *p, char *err, size_t errlen)
{
	struct named *v = calloc(2 * p->n + 1, sizeof(*v));
	int rc = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		v[2 * i] = (struct named){ p->cables[i].a, p->cables[i].a_guid };
		v[2 * i + 1] = (struct named){ p->cables[i].b, p->cables[i].b_guid };
	}
	qsort(v, 2 * p->n, sizeof(*v), named_cmp);
	for (size_t i = 1; i < 2 * p->n && !rc; i++)
		if (!strcmp(v[i].name, v[i - 1].name) && v[i].guid != v[i - 1].guid) {
			snprintf(err, errlen, "%s: nodes 0x%016llx and 0x%016llx are both \"%s\": a "
				 "CSV names nodes; keep the topology file as the plan", p->source,
				 (unsigned long long)v[i - 1].guid, (unsigned long long)v[i].guid,
				 v[i].name);
			rc = -EINVAL;
		}
	free(v);
	return rc;
}

int plan_write_csv(const struct plan *p, FILE *out, char *err, size_t errlen)
{
	int rc;

	if ((rc = names_unique(p, err, errlen)) < 0)
		return rc;
	for (size_t i = 0; i < p->n; i++)
		if (!p->cables[i].a[0] || !p->cables[i].b[0]) {
			const struct plan_cable *c = &p->cables[i];

			snprintf(err, errlen, "%s: the node at %s%s[%u] (GUID 0x%016llx) has no "
				 "description: a CSV names nodes; keep the topology file as the plan",
				 p->source, c->a[0] ? "the other end of " : "", c->a[0] ? c->a : "",
				 c->a[0] ? c->a_port : c->b_port,
				 (unsigned long long)(c->a[0] ? c->b_guid : c->a_guid));
			return -EINVAL;
		}
	fputs("node,port,peer,peer_port,width,speed\n", out);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_cable *c = &p->cables[i];

		char t[2][PLAN_PORT_LEN];

		csv_field(out, c->a);
		fprintf(out, ",%s,", plan_port_text(c, 0, t[0], sizeof(t[0])));
		csv_field(out, c->b);
		fprintf(out, ",%s,%s,%s\n", plan_port_text(c, 1, t[1], sizeof(t[1])), c->width ? ibt_width_name(c->width) : "",
			c->speed ? ibt_speed_name(c->speed) : "");
	}
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	snprintf(err, errlen, "cannot write the plan: %s", strerror(errno));
	return -EIO;
}

struct plan *plan_read(const char *path, char *err, size_t errlen)
{
	size_t len;
	char *buf = slurp_file(path, &len, err, errlen);
	struct plan *p;

	if (!buf)
		return NULL;
	p = plan_parse(path, buf, len, err, errlen);
	free(buf);
	return p;
}
