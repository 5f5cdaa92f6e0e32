/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_partitions.c: see validate_partitions.h. */
#include "autoconf.h"
#include "daemon/validate/validate_partitions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/store.h"
#include "daemon/ib/pkey_read.h"
#include "lib/db/validate_db.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/validate/partitions.h"
#include "lib/validate/report.h"

void validate_part_conf_of(const struct validate_conf *c, struct validate_part_conf *out)
{
	out->on = c->validation_partitions;
	out->policy = c->validation_default_partition;
	out->enforce = c->validation_partition_enforcement;
	snprintf(out->full_ok, sizeof(out->full_ok), "%s", c->validation_default_full);
}

struct validate_pkeys {
	int refs;
	double read_at;   /* wall clock when their read began */
	struct partitions_tables t;
};

struct validate_pkeys *validate_part_read(struct store *st, const struct swept_mad *mad,
					  const char *subnet, const struct fab *fab, char *err,
					  size_t errlen)
{
	struct validate_pkeys *p;
	struct swept_subnets sub;
	json_t *tables = NULL;
	double read_at;
	size_t i;

	if (swept_subnets_get(st, mad, &sub) < 0) {
		snprintf(err, errlen, "the swept subnets could not be read from the database");
		return NULL;
	}
	for (i = 0; i < sub.n && strcmp(sub.names[i], subnet); i++)
		;
	if (i == sub.n) {
		snprintf(err, errlen, "subnet %s has no successful InfiniBand sweep recorded", subnet);
		return NULL;
	}
	read_at = clock_wall();
	if (pkey_read_run_fab(&sub.p[i], fab, &tables, err, errlen) < 0)
		return NULL;
	if (!(p = calloc(1, sizeof(*p)))) {
		snprintf(err, errlen, "out of memory");
	} else if (partitions_tables_from_json(tables, &p->t, err, errlen) < 0) {
		free(p);
		p = NULL;
	} else {
		p->refs = 1;
		p->read_at = read_at;
	}
	json_decref(tables);
	return p;
}

struct validate_pkeys *validate_pkeys_hold(struct validate_pkeys *p)
{
	if (p)
		p->refs++;
	return p;
}

void validate_pkeys_drop(struct validate_pkeys *p)
{
	if (p && --p->refs == 0) {
		partitions_tables_clear(&p->t);
		free(p);
	}
}

size_t validate_pkeys_ports(const struct validate_pkeys *p)
{
	size_t n = 0;

	for (size_t i = 0; p && i < p->t.n; i++)
		n += !p->t.t[i].sw;
	return n;
}

/* The subnet's open partition issues into r, as they are. */
static int keep_open(struct store *st, const char *subnet, struct val_report *r)
{
	char err[256];
	int rc = validate_db_keep_open(store_db(st), subnet, partitions_code, r, err, sizeof(err));

	if (rc == -EIO)
		log_warn("subnet %s: the open partition issues could not be read: %s", subnet, err);
	return rc == -ENOMEM ? rc : 0;
}

/* full_ok's lines as the rule's list (pointers into list, which it cuts). */
static size_t split_full_ok(char *list, const char **v, size_t max)
{
	size_t n = 0;

	for (char *s = list, *nl; *s && n < max; s = nl + 1) {
		if (!(nl = strchr(s, '\n')))
			break;
		*nl = '\0';
		v[n++] = s;
	}
	return n;
}

int validate_part_check(struct store *st, const char *subnet, const struct fab *fab,
			const struct validate_pkeys *tables, const char *why_none, int keep,
			const struct validate_part_conf *c, const struct nodename_map *names,
			struct val_report *r, char *warn, size_t warnlen)
{
	struct validate_db_tenants tn = { 0 };
	const char *ok[VALIDATE_DEFAULT_FULL_MAX];
	char list[VALIDATE_DEFAULT_FULL_LEN], err[256] = "", why[400];
	int changed = 0;
	struct partitions_opts o = { .default_policy = (enum partitions_default)c->policy,
				     .full_ok = ok, .enforce = c->enforce, .names = names };
	int rc;

	snprintf(why, sizeof(why), "%s", why_none ? why_none : "");  /* it may be warn */
	warn[0] = '\0';
	if (!tables) {
		snprintf(warn, warnlen, "partitions not checked: %s%s", why,
			 keep ? " (their open issues stay as they were)" : "");
		return keep && st ? keep_open(st, subnet, r) : 0;
	}
	/* Tables read before a tenant was made, changed or deleted would judge
	 * it by what it was: a new tenant's members "not a member", for one
	 * validation, then cleared by the next (issue open and cleared, two
	 * events, for nothing). Those tables judge nothing; the next sweep's do. */
	if (st && validate_db_tenants_changed(store_db(st), tables->read_at, &changed, err,
					      sizeof(err)) == 0 && changed) {
		snprintf(warn, warnlen, "partitions not checked: the tenants changed while the "
			 "PKey tables were read; the next sweep checks them%s",
			 keep ? " (their open issues stay as they were)" : "");
		return keep ? keep_open(st, subnet, r) : 0;
	}
	if (st && validate_db_tenants(store_db(st), &tn, err, sizeof(err)) < 0) {
		/* The default partition is still judged; the tenants' rules are not. */
		snprintf(warn, warnlen, "the tenants' partitions not checked: %s", err);
		if (keep && (rc = keep_open(st, subnet, r)) < 0)
			goto out;
	}
	snprintf(list, sizeof(list), "%s", c->full_ok);
	o.n_full_ok = split_full_ok(list, ok, VALIDATE_DEFAULT_FULL_MAX);
	rc = partitions_check(fab, &tables->t, tn.t, tn.n, &o, r, err, sizeof(err));
out:
	validate_db_tenants_clear(&tn);
	return rc;
}
