/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/partitions.c: see partitions.h.
 *
 * One pass over the fabric's CA ports, each looking its tables up by
 * binary search (sorted once), a tenant by its PKey in a 32768-entry map
 * and a port's tenants in the members sorted by GUID: O(n log n) in the
 * ports, whatever the number of tenants. */
#include "autoconf.h"
#include "lib/validate/partitions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/ibtypes.h"

#define PKEY_SPACE 0x8000
#define EXAMPLES 3

/* ---- the tables ------------------------------------------------------------ */

static int table_cmp(const void *x, const void *y)
{
	const struct partitions_table *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->sw - b->sw;
}

static int parse_name(const char *name, uint64_t *guid, int *sw)
{
	char *end;

	if (strncmp(name, "0x", 2))
		return -EINVAL;
	*guid = strtoull(name + 2, &end, 16);
	if (end == name + 2)
		return -EINVAL;
	*sw = !strcmp(end, "/sw");
	return *end && !*sw ? -EINVAL : 0;
}

int partitions_tables_from_json(const json_t *o, struct partitions_tables *out, char *err,
				size_t errlen)
{
	size_t n = 0, n_keys = 0, at = 0, i;
	const char *name;
	json_t *v, *k;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o)) {
		snprintf(err, errlen, "the PKey tables are not an object");
		return -EINVAL;
	}
	json_object_foreach((json_t *)o, name, v) {
		n++;
		n_keys += json_array_size(v);
	}
	out->t = calloc(n + 1, sizeof(*out->t));
	out->keys = calloc(n_keys + 1, sizeof(*out->keys));
	if (!out->t || !out->keys) {
		partitions_tables_clear(out);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_object_foreach((json_t *)o, name, v) {
		struct partitions_table *t = &out->t[out->n];

		if (parse_name(name, &t->guid, &t->sw) < 0 || !json_is_array(v)) {
			snprintf(err, errlen, "PKey tables: \"%s\" is not a port's table", name);
			partitions_tables_clear(out);
			return -EINVAL;
		}
		t->keys = out->keys + at;
		json_array_foreach(v, i, k) {
			json_int_t x = json_integer_value(k);

			if (!json_is_integer(k) || x <= 0 || x > 0xffff) {
				snprintf(err, errlen, "PKey tables: %s holds a key that is not one", name);
				partitions_tables_clear(out);
				return -EINVAL;
			}
			out->keys[at++] = (uint16_t)x;
		}
		t->n = json_array_size(v);
		out->n++;
	}
	qsort(out->t, out->n, sizeof(*out->t), table_cmp);
	return 0;
}

void partitions_tables_clear(struct partitions_tables *t)
{
	free(t->t);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}

const struct partitions_table *partitions_table_find(const struct partitions_tables *t,
						     uint64_t guid, int sw)
{
	struct partitions_table k = { .guid = guid, .sw = sw };

	return t->n ? bsearch(&k, t->t, t->n, sizeof(*t->t), table_cmp) : NULL;
}

/* The entry of pkey (15 bits, any membership) in a table, or 0. */
static unsigned entry_of(const struct partitions_table *t, unsigned pkey)
{
	for (size_t i = 0; t && i < t->n; i++)
		if ((t->keys[i] & 0x7fffu) == pkey)
			return t->keys[i];
	return 0;
}

/* ---- the check ------------------------------------------------------------- */

struct member {
	uint64_t guid;
	size_t tenant;
};

static int member_cmp(const void *x, const void *y)
{
	const struct member *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->tenant < b->tenant ? -1 : a->tenant > b->tenant;
}

static int guid_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Ports found wrong by a rule that becomes one subnet finding when most
 * judged ports are: their subjects and what each has. */
struct tally {
	size_t judged, n, cap;
	struct {
		char subject[240];
		char got[160];
	} *v;
};

static int tally_add(struct tally *t, const char *subject, const char *got)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		void *nv = realloc(t->v, cap * sizeof(*t->v));

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = cap;
	}
	snprintf(t->v[t->n].subject, sizeof(t->v[0].subject), "%s", subject);
	snprintf(t->v[t->n].got, sizeof(t->v[0].got), "%s", got);
	t->n++;
	return 0;
}

/* Most of the judged ports wrong (two or more): one finding under
 * `subject` with the count and the first few; else one per port, its
 * subject followed by `suffix`. */
static int tally_report(const struct tally *t, struct val_report *r, enum val_code code,
			const char *subject, const char *suffix, const char *want_each,
			const char *want_all, const char *what)
{
	char got[320];
	size_t off;

	if (t->n >= 2 && 2 * t->n > t->judged) {
		off = (size_t)snprintf(got, sizeof(got), "%zu of %zu %s, e.g.", t->n, t->judged, what);
		for (size_t i = 0; i < t->n && i < EXAMPLES && off < sizeof(got); i++)
			off += (size_t)snprintf(got + off, sizeof(got) - off, "%s %s", i ? "," : "",
						t->v[i].subject);
		return val_add(r, code, 0, want_all, got, "%s", subject);
	}
	for (size_t i = 0; i < t->n; i++)
		if (val_add(r, code, 0, want_each, t->v[i].got, "%s%s", t->v[i].subject, suffix) < 0)
			return -ENOMEM;
	return 0;
}

struct ctx {
	const struct fab *fab;
	const struct partitions_tables *tables;
	const struct partitions_tenant *tenants;
	const struct partitions_opts *o;
	struct val_report *r;
	int32_t *by_pkey;           /* PKEY_SPACE: tenant index, or -1 */
	struct member *members;
	size_t n_members;
	uint64_t *ok_guids;         /* full_ok's GUIDs, sorted */
	size_t n_ok_guids;
	struct tally def, enf;
};

static int full_ok(const struct ctx *c, const struct fab_node *n, const struct fab_port *p,
		   const char *name)
{
	if (c->n_ok_guids && (bsearch(&n->guid, c->ok_guids, c->n_ok_guids, sizeof(uint64_t),
				      guid_cmp) ||
			      bsearch(&p->guid, c->ok_guids, c->n_ok_guids, sizeof(uint64_t),
				      guid_cmp)))
		return 1;
	for (size_t i = 0; i < c->o->n_full_ok; i++)
		if (!strcmp(c->o->full_ok[i], name) || !strcmp(c->o->full_ok[i], n->desc))
			return 1;
	return 0;
}

static void tenant_str(const struct ctx *c, size_t ti, char *buf, size_t len)
{
	snprintf(buf, len, "0x%04x (tenant %s)", c->tenants[ti].pkey, c->tenants[ti].name);
}

/* The default partition's rule on one host port. */
static int check_default(struct ctx *c, const struct fab_node *n, const struct fab_port *p,
			 const struct partitions_table *t, const char *port_name)
{
	unsigned e = entry_of(t, PARTITIONS_DEFAULT_PKEY);
	int full = (e & 0x8000) != 0;

	if (c->o->default_policy == PARTITIONS_DEFAULT_OFF)
		return 0;
	if (c->o->default_policy == PARTITIONS_DEFAULT_LIMITED) {
		if (full_ok(c, n, p, nodename_of(c->o->names, n->guid, n->desc)))
			return 0;
		c->def.judged++;
		return full ? tally_add(&c->def, port_name, "full member (0xffff)") : 0;
	}
	c->def.judged++;
	return full ? 0 : tally_add(&c->def, port_name, e ? "limited member (0x7fff)"
							  : "not a member");
}

/* The first of guid's memberships (they are sorted by GUID), or NULL. */
static const struct member *first_member(const struct ctx *c, uint64_t guid)
{
	size_t lo = 0, hi = c->n_members;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->members[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n_members && c->members[lo].guid == guid ? &c->members[lo] : NULL;
}

/* The tenants' rules on one host port. */
static int check_tenants(struct ctx *c, const struct fab_port *p,
			 const struct partitions_table *t, const char *port_name)
{
	char held[240] = "", one[120], want[160];
	size_t n_held = 0, off = 0, intruder = SIZE_MAX;
	const struct member *m = first_member(c, p->guid);

	/* The tenants' keys it holds. */
	for (size_t i = 0; i < t->n; i++) {
		unsigned k15 = t->keys[i] & 0x7fffu;
		int32_t ti = c->by_pkey[k15];
		struct member mk = { p->guid, (size_t)ti };

		if (ti < 0 || k15 == PARTITIONS_DEFAULT_PKEY)
			continue;
		tenant_str(c, (size_t)ti, one, sizeof(one));
		if (off < sizeof(held))
			off += (size_t)snprintf(held + off, sizeof(held) - off, "%s%s",
						n_held ? ", " : "", one);
		n_held++;
		if (!(c->n_members && bsearch(&mk, c->members, c->n_members, sizeof(mk), member_cmp)))
			intruder = (size_t)ti;
	}
	if (n_held >= 2) {
		if (val_add(c->r, VAL_PART_SHARED, 0, "one tenant's PKey at most", held, "%s %s",
			    port_name, held) < 0)
			return -ENOMEM;
	} else if (intruder != SIZE_MAX) {
		tenant_str(c, intruder, one, sizeof(one));
		if (val_add(c->r, VAL_PART_INTRUDER, 0, "only the tenant's ports",
			    "holds it: loom did not put it there", "%s %s", port_name, one) < 0)
			return -ENOMEM;
	}
	/* The tenants it is a member of: their key, with their membership. */
	for (; m && m < c->members + c->n_members && m->guid == p->guid; m++) {
		const struct partitions_tenant *tn = &c->tenants[m->tenant];
		unsigned e = entry_of(t, tn->pkey), want_e = tn->limited ? tn->pkey : tn->pkey | 0x8000;

		if (e == want_e || tn->pending)
			continue;
		tenant_str(c, m->tenant, one, sizeof(one));
		snprintf(want, sizeof(want), "%s member (0x%04x)", tn->limited ? "limited" : "full",
			 want_e);
		if (val_add(c->r, VAL_PART_MEMBER, 0, want,
			    !e ? "not a member" : e & 0x8000 ? "full member" : "limited member",
			    "%s %s", port_name, one) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Enforcement: the switch port facing the host holds the host's keys. */
static int check_enforced(struct ctx *c, const struct fab_port *p,
			  const struct partitions_table *t, const char *port_name)
{
	const struct partitions_table *sw = partitions_table_find(c->tables, p->guid, 1);
	const struct fab_node *sn = NULL;
	const struct fab_port *sp;
	char subject[240], got[160] = "";
	size_t off = 0, judged = 0;

	if (!c->o->enforce || !sw || !(sp = fab_peer(c->fab, p, &sn)) || !sn)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		unsigned k15 = t->keys[i] & 0x7fffu;

		if (k15 == PARTITIONS_DEFAULT_PKEY)
			continue;
		judged = 1;
		if (!entry_of(sw, k15) && off < sizeof(got))
			off += (size_t)snprintf(got + off, sizeof(got) - off, "%s0x%04x",
						off ? ", " : "lacks ", k15);
	}
	c->enf.judged += judged;
	if (!off)
		return 0;
	snprintf(subject, sizeof(subject), "%.100s[%u] (facing %.120s)",
		 nodename_of(c->o->names, sn->guid, sn->desc), sp->num, port_name);
	return tally_add(&c->enf, subject, got);
}

static int build(struct ctx *c)
{
	if (!(c->by_pkey = malloc(PKEY_SPACE * sizeof(*c->by_pkey))))
		return -ENOMEM;
	for (size_t k = 0; k < PKEY_SPACE; k++)
		c->by_pkey[k] = -1;
	return 0;
}

int partitions_check(const struct fab *fab, const struct partitions_tables *tables,
		     const struct partitions_tenant *tenants, size_t n_tenants,
		     const struct partitions_opts *opts, struct val_report *r, char *err,
		     size_t errlen)
{
	struct ctx c = { .fab = fab, .tables = tables, .tenants = tenants, .o = opts, .r = r };
	size_t n_members = 0;
	int rc = -ENOMEM;

	for (size_t i = 0; i < n_tenants; i++)
		n_members += tenants[i].n_guids;
	if (build(&c) < 0 || !(c.members = calloc(n_members + 1, sizeof(*c.members))) ||
	    !(c.ok_guids = calloc(opts->n_full_ok + 1, sizeof(*c.ok_guids))))
		goto out;
	for (size_t i = 0; i < n_tenants; i++) {
		if (tenants[i].pkey && tenants[i].pkey < PKEY_SPACE)
			c.by_pkey[tenants[i].pkey] = (int32_t)i;
		for (size_t k = 0; k < tenants[i].n_guids; k++)
			c.members[c.n_members++] = (struct member){ tenants[i].guids[k], i };
	}
	qsort(c.members, c.n_members, sizeof(*c.members), member_cmp);
	for (size_t i = 0; i < opts->n_full_ok; i++) {
		const char *s = opts->full_ok[i];
		char *end;

		if (!strncmp(s, "0x", 2) && (c.ok_guids[c.n_ok_guids] = strtoull(s, &end, 16), !*end))
			c.n_ok_guids++;
	}
	qsort(c.ok_guids, c.n_ok_guids, sizeof(uint64_t), guid_cmp);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct fab_node *n = fab->nodes[i];

		if (n->type != IBT_NODE_CA)
			continue;
		for (unsigned q = 1; q <= n->nports; q++) {
			const struct fab_port *p = fab_port(n, q);
			const struct partitions_table *t;
			char name[200];

			if (!p || !p->present || !(t = partitions_table_find(tables, p->guid, 0)))
				continue;
			snprintf(name, sizeof(name), "%s[%u]", nodename_of(opts->names, n->guid, n->desc),
				 q);
			if (check_default(&c, n, p, t, name) < 0 || check_tenants(&c, p, t, name) < 0 ||
			    check_enforced(&c, p, t, name) < 0)
				goto out;
		}
	}
	if (tally_report(&c.def, r, VAL_PART_DEFAULT, "default partition 0x7fff",
			 " 0x7fff (default partition)",
			 opts->default_policy == PARTITIONS_DEFAULT_FULL ?
			 "full member (0xffff)" : "limited member (0x7fff)",
			 opts->default_policy == PARTITIONS_DEFAULT_FULL ?
			 "host ports full members (validation.default_partition: full)" :
			 "host ports limited members (validation.default_partition: limited)",
			 opts->default_policy == PARTITIONS_DEFAULT_FULL ?
			 "host ports are not full members" : "host ports are full members") < 0 ||
	    tally_report(&c.enf, r, VAL_PART_UNENFORCED, "partition enforcement", "",
			 "the host's PKeys", "the switch ports facing hosts hold the hosts' PKeys",
			 "switch ports facing hosts lack the hosts' PKeys") < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		snprintf(err, errlen, "out of memory");
	free(c.by_pkey);
	free(c.members);
	free(c.ok_guids);
	free(c.def.v);
	free(c.enf.v);
	return rc;
}

int partitions_code(enum val_code code)
{
	return code == VAL_PART_DEFAULT || code == VAL_PART_MEMBER || code == VAL_PART_INTRUDER ||
	       code == VAL_PART_SHARED || code == VAL_PART_UNENFORCED;
}
