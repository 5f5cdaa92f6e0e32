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

/* The findings into r; *groups (may be NULL) a new {"groups": [{"mgid",
 * "mlid", "members"}], "mads"} or NULL when nothing was read; warning
 * ("" none) why not. 0, or -ENOMEM. */
int validate_mcast(struct store *st, const struct validate_mcast_in *in, struct val_report *r,
		   json_t **groups, char *warning, size_t wlen);

#endif
