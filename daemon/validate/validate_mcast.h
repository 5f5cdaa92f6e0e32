/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_mcast.h: the multicast part of a subnet's check
 * (issue 43), on the validation worker: the groups and forwarding tables
 * read in a `loomd --read-mcast` child handed the swept fabric
 * (daemon/ib/mcast_read.h), judged by lib/validate/mcast.h. A read that
 * fails judges nothing: the subnet's open multicast findings are carried
 * into the report as they were (so they are neither cleared nor opened)
 * and the warning says why. */
#ifndef LOOMD_VALIDATE_MCAST_H
#define LOOMD_VALIDATE_MCAST_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "daemon/ib/swept_subnets.h"

struct store;
struct fab;
struct nodename_map;
struct val_report;

struct validate_mcast_in {
	const char *subnet;
	const struct fab *fab;               /* the sweep's, handed to the child */
	const struct nodename_map *names;
	int fat_tree;                        /* validation.fat_tree */
	struct swept_mad mad;                /* discovery's MAD limits */
	uint64_t sm_key;                     /* validation.multicast_sm_key */
};

/* One read of a subnet's groups and tables, shared by the check after the
 * sweep that made it and the fabric-validate requests until the next one
 * (a request sends no MADs); refs counted on the loop, read-only after. */
struct validate_mc;

/* Read them over in->fab (a child; blocking: the worker). NULL with why in
 * err (and logged when the reason changes): no master SM, no SA answer, a
 * switch silent. */
struct validate_mc *validate_mc_read(struct store *st, const struct validate_mcast_in *in,
				     char *err, size_t errlen);
struct validate_mc *validate_mc_hold(struct validate_mc *mc);   /* NULL is fine */
void validate_mc_drop(struct validate_mc *mc);                  /* NULL is fine */

/* The findings of mc into r; mc NULL: the read failed for why_none, the
 * subnet's open multicast findings are carried into r and warning says
 * so. *groups (may be NULL) a new {"groups": [{"mgid", "mlid",
 * "members"}], "mads"} or NULL when nothing was read; warning "" when
 * read. 0, or -ENOMEM. */
int validate_mcast(struct store *st, const struct validate_mcast_in *in,
		   const struct validate_mc *mc, const char *why_none, struct val_report *r,
		   json_t **groups, char *warning, size_t wlen);

#endif
