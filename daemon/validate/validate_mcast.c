/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_mcast.c: see validate_mcast.h. */
#include "autoconf.h"
#include "daemon/validate/validate_mcast.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/store.h"
#include "daemon/ib/mcast_read.h"
#include "lib/db/validate_db.h"
#include "lib/util/log.h"
#include "lib/validate/mcast.h"

static int mcast_code(enum val_code c)
{
	return c == VAL_MCAST_UNREACHED || c == VAL_MCAST_LOOP || c == VAL_MCAST_NOT_UPDOWN ||
	       c == VAL_MCAST_LEAK;
}

/* The subnet's open multicast findings, again into r: no read, no
 * judgement. */
static int carry_open(struct store *st, const char *subnet, struct val_report *r)
{
	char err[256];
	int rc = validate_db_keep_open(store_db(st), subnet, mcast_code, r, err, sizeof(err));

	if (rc == -EIO)
		log_warn("subnet %s: the open multicast findings could not be read: %s", subnet,
			 err);
	return rc;
}

/* A failed read is logged when its reason changes, not at every sweep of a
 * subnet without an SA (the report says it each time). */
#define WARNED_MAX 16
static struct {
	char subnet[64];
	char why[512];
} warned[WARNED_MAX];
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;

static void warn_once(const char *subnet, const char *why)
{
	size_t i;

	pthread_mutex_lock(&warned_lock);
	for (i = 0; i < WARNED_MAX && warned[i].subnet[0] && strcmp(warned[i].subnet, subnet); i++)
		;
	if (i == WARNED_MAX)
		i = 0;   /* more subnets than kept: the first slot is reused */
	if (strcmp(warned[i].subnet, subnet)) {
		snprintf(warned[i].subnet, sizeof(warned[i].subnet), "%s", subnet);
		warned[i].why[0] = '\0';
	}
	if (strcmp(warned[i].why, why)) {
		if (why[0])
			log_warn("subnet %s: %s", subnet, why);
		else
			log_info("subnet %s: multicast read again", subnet);
		snprintf(warned[i].why, sizeof(warned[i].why), "%s", why);
	}
	pthread_mutex_unlock(&warned_lock);
}

static json_t *groups_json(const struct mc_data *d)
{
	json_t *o = json_pack("{s:[],s:I}", "groups", "mads", (json_int_t)d->mads);
	json_t *list = o ? json_object_get(o, "groups") : NULL;

	for (size_t i = 0; list && i < d->n_groups; i++) {
		char mgid[64];

		json_array_append_new(list, json_pack("{s:s,s:i,s:I}", "mgid",
						      mc_mgid_str(d->g[i].mgid, mgid, sizeof(mgid)),
						      "mlid", d->g[i].mlid, "members",
						      (json_int_t)d->g[i].n));
	}
	return o;
}

static const struct disc_ib_params *params_of(const struct swept_subnets *sub,
					      const char *subnet)
{
	for (size_t i = 0; i < sub->n; i++)
		if (!strcmp(sub->names[i], subnet))
			return &sub->p[i];
	return NULL;
}

/* The sweep met a MASTER (or did not read the SMs: then ask anyway). */
static int has_master(const struct fab *fab)
{
	if (fab->sm_read != FAB_SM_READ)
		return 1;
	for (size_t i = 0; i < fab->n_sms; i++)
		if (fab->sms[i].answered && fab->sms[i].state == FAB_SM_MASTER)
			return 1;
	return 0;
}

struct validate_mc {
	int refs;
	struct mc_data d;
};

struct validate_mc *validate_mc_read(struct store *st, const struct validate_mcast_in *in,
				     char *err, size_t errlen)
{
	struct swept_subnets sub;
	const struct disc_ib_params *p;
	struct validate_mc *mc = NULL;
	char why[512] = "";
	int rc;

	if (!has_master(in->fab)) {
		snprintf(why, sizeof(why), "no master subnet manager answered the sweep's SMInfo: "
			 "no SA to ask for the groups");
	} else if (!st || swept_subnets_get(st, &in->mad, &sub) < 0 ||
		   !(p = params_of(&sub, in->subnet))) {
		snprintf(why, sizeof(why), "the subnet's port is not known");
	} else if (!(mc = calloc(1, sizeof(*mc)))) {
		snprintf(why, sizeof(why), "out of memory");
	} else if ((rc = mcast_read_run(p, in->fab, in->sm_key, &mc->d, why, sizeof(why))) < 0) {
		free(mc);
		mc = NULL;
	} else {
		mc->refs = 1;
		log_debug("subnet %s: %zu multicast groups over %zu switch tables (%llu MADs)",
			  in->subnet, mc->d.n_groups, mc->d.n_tables,
			  (unsigned long long)mc->d.mads);
	}
	snprintf(err, errlen, "%s", why);
	if (!mc) {
		char line[600];

		snprintf(line, sizeof(line), "multicast not read (its open findings stay): %s", why);
		warn_once(in->subnet, line);
	} else {
		warn_once(in->subnet, "");   /* read: a next failure is said again */
	}
	return mc;
}

struct validate_mc *validate_mc_hold(struct validate_mc *mc)
{
	if (mc)
		mc->refs++;
	return mc;
}

void validate_mc_drop(struct validate_mc *mc)
{
	if (mc && --mc->refs == 0) {
		mc_data_clear(&mc->d);
		free(mc);
	}
}

int validate_mcast(struct store *st, const struct validate_mcast_in *in,
		   const struct validate_mc *mc, const char *why_none, struct val_report *r,
		   json_t **groups, char *warning, size_t wlen)
{
	struct mcast_opts o = { .fat_tree = in->fat_tree, .names = in->names };
	int rc;

	warning[0] = '\0';
	if (groups)
		*groups = NULL;
	if (!mc) {
		snprintf(warning, wlen, "multicast not checked (its open findings stay): %s",
			 why_none);
		return st && carry_open(st, in->subnet, r) == -ENOMEM ? -ENOMEM : 0;
	}
	rc = mcast_check(in->fab, &mc->d, &o, r);
	if (rc == 0 && groups && !(*groups = groups_json(&mc->d)))
		rc = -ENOMEM;
	return rc;
}
