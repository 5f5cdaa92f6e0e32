/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_partitions.c: see validate_partitions.h. */
#include "autoconf.h"
#include "daemon/validate/validate_partitions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/core/store.h"
#include "daemon/ib/pkey_read.h"
#include "lib/db/validate_db.h"
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

json_t *validate_part_read(struct store *st, const struct swept_mad *mad, const char *subnet,
			   const struct fab *fab, char *err, size_t errlen)
{
	struct swept_subnets sub;
	json_t *tables = NULL;

	if (swept_subnets_get(st, mad, &sub) < 0) {
		snprintf(err, errlen, "the swept subnets could not be read from the database");
		return NULL;
	}
	for (size_t i = 0; i < sub.n; i++)
		if (!strcmp(sub.names[i], subnet)) {
			if (pkey_read_run_fab(&sub.p[i], fab, &tables, err, errlen) < 0)
				return NULL;
			return tables;
		}
	snprintf(err, errlen, "subnet %s has no successful InfiniBand sweep recorded", subnet);
	return NULL;
}

/* The subnet's open issues of the rule's codes into r, as they are. */
static int keep_open(struct store *st, const char *subnet, struct val_report *r)
{
	json_t *all = NULL, *it;
	char err[256];
	size_t i;
	int rc = 0;

	if (validate_db_issues(store_db(st), subnet, &all, err, sizeof(err)) < 0) {
		log_warn("subnet %s: the open partition issues could not be read: %s", subnet, err);
		return 0;
	}
	json_array_foreach(json_object_get(all, "issues"), i, it) {
		enum val_code c = val_code_of(json_string_value(json_object_get(it, "code")));

		if (!partitions_code(c))
			continue;
		if ((rc = val_add(r, c, (unsigned)json_integer_value(json_object_get(it, "line")),
				  json_string_value(json_object_get(it, "want")),
				  json_string_value(json_object_get(it, "got")), "%s",
				  json_string_value(json_object_get(it, "subject")))) < 0)
			break;
	}
	json_decref(all);
	return rc;
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
			const json_t *tables, const char *why_none, int keep,
			const struct validate_part_conf *c, const struct nodename_map *names,
			struct val_report *r, char *warn, size_t warnlen)
{
	struct validate_db_tenants tn = { 0 };
	struct partitions_tables tabs;
	const char *ok[VALIDATE_DEFAULT_FULL_MAX];
	char list[VALIDATE_DEFAULT_FULL_LEN], err[256] = "", why[400];
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
	if ((rc = partitions_tables_from_json(tables, &tabs, err, sizeof(err))) < 0) {
		snprintf(warn, warnlen, "partitions not checked: %s", err);
		return rc == -ENOMEM ? rc : keep && st ? keep_open(st, subnet, r) : 0;
	}
	if (st && validate_db_tenants(store_db(st), &tn, err, sizeof(err)) < 0) {
		/* The default partition is still judged; the tenants' rules are not. */
		snprintf(warn, warnlen, "the tenants' partitions not checked: %s", err);
		if (keep && (rc = keep_open(st, subnet, r)) < 0)
			goto out;
	}
	snprintf(list, sizeof(list), "%s", c->full_ok);
	o.n_full_ok = split_full_ok(list, ok, VALIDATE_DEFAULT_FULL_MAX);
	rc = partitions_check(fab, &tabs, tn.t, tn.n, &o, r, err, sizeof(err));
out:
	validate_db_tenants_clear(&tn);
	partitions_tables_clear(&tabs);
	return rc;
}
