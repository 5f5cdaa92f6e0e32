/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_partitions.h: the partitions rule's part of a
 * validation job (issue 43), for validate.c only: the PKey tables of every
 * CA port and of the switch port facing it, read over the fabric the sweep
 * just made (a `loomd --read-pkeys` child handed it on stdin:
 * daemon/ib/pkey_read.h), the tenants from the store (lib/db/validate_db.h),
 * then lib/validate/partitions.h's rule. No tables (the read failed, or
 * none yet): no judgement; a recorded check keeps the subnet's open
 * partition issues as they are, and the warning says why. Worker thread. */
#ifndef LOOMD_VALIDATE_PARTITIONS_H
#define LOOMD_VALIDATE_PARTITIONS_H

#include <stddef.h>

#include "daemon/ib/swept_subnets.h"
#include "daemon/validate/config_validate.h"

struct fab;
struct store;
struct nodename_map;
struct val_report;

/* What a job keeps of loom.yaml's validation keys for the rule. */
struct validate_part_conf {
	int on, policy, enforce;
	char full_ok[VALIDATE_DEFAULT_FULL_LEN];
};
void validate_part_conf_of(const struct validate_conf *c, struct validate_part_conf *out);

/* The PKey tables of a subnet, compact (lib/validate/partitions.h's, not
 * the reader's JSON): kept for fabric-validate and shared with its jobs;
 * the references are taken and dropped on the loop only. */
struct validate_pkeys;
/* The tables of subnet (swept as fab through the port the store names),
 * read by a child with the MAD limits mad: new (one reference), or NULL
 * with err. */
struct validate_pkeys *validate_part_read(struct store *st, const struct swept_mad *mad,
					  const char *subnet, const struct fab *fab, char *err,
					  size_t errlen);
struct validate_pkeys *validate_pkeys_hold(struct validate_pkeys *p);  /* NULL is fine */
void validate_pkeys_drop(struct validate_pkeys *p);                    /* NULL is fine */
size_t validate_pkeys_ports(const struct validate_pkeys *p);  /* CA ports read */

/* The rule over tables into r. tables NULL: nothing judged, and with keep
 * the subnet's open partition issues are put in r unchanged (a recorded
 * check must not clear them); warn gets why (why_none, said by the
 * caller). 0 or -ENOMEM; a store that cannot say the tenants is a warning. */
int validate_part_check(struct store *st, const char *subnet, const struct fab *fab,
			const struct validate_pkeys *tables, const char *why_none, int keep,
			const struct validate_part_conf *c, const struct nodename_map *names,
			struct val_report *r, char *warn, size_t warnlen);

#endif
