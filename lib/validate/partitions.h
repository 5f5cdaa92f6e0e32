/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/partitions.h: partitions checked against the guidelines
 * (issue 43), a pure function of a swept fabric, the PKey tables its CA
 * ports hold (and the switch ports facing them: daemon/ib/pkey_read.h) and
 * the tenants loom made (their PKeys and member ports). Findings, with the
 * codes of report.h:
 *   default-partition   a host (CA) port whose membership of the default
 *                       partition 0x7fff is not the policy's: with
 *                       PARTITIONS_DEFAULT_LIMITED (NVIDIA's InfiniBand
 *                       security guidance: hosts limited members, only the
 *                       SM's ports and switches full) a full member not in
 *                       opts->full_ok; with PARTITIONS_DEFAULT_FULL a port
 *                       that is not a full member. When most of the judged
 *                       host ports are wrong (OpenSM's default `Default=0x7fff,
 *                       ipoib : ALL=full;`) it is one finding for the subnet,
 *                       subject "default partition 0x7fff", with the count
 *                       and examples; else one per port ("host-0007[1] 0x7fff
 *                       (default partition)").
 *   partition-member    a tenant's member port without the tenant's PKey
 *                       (or with the other membership)
 *   partition-intruder  a port holding a tenant's PKey that is not one of
 *                       the tenant's ports: loom did not put it there
 *   partition-shared    a port holding the PKeys of two tenants or more
 *   partition-unenforced  (opts->enforce) the switch port facing a host
 *                       lacks a PKey (not the default's) that the host
 *                       holds: the switch does not enforce that partition
 *                       there; most such ports: one finding for the subnet
 * Subjects name the port by the site's name (else the description) and the
 * partition: "host-0007[1] 0x1001 (tenant job42)". A port the tables do not
 * have (not read, or not in the fabric) is not judged. */
#ifndef LOOM_VALIDATE_PARTITIONS_H
#define LOOM_VALIDATE_PARTITIONS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

#define PARTITIONS_DEFAULT_PKEY 0x7fff

/* One port's PKey table as the reader hands it: the CA port's (sw 0) or
 * that of the switch port cabled to it (sw 1), both under the CA port's
 * GUID; entries with the membership bit (0x8000: full). */
struct partitions_table {
	uint64_t guid;
	int sw;
	size_t n;
	const uint16_t *keys;
};

/* Every table of a subnet, sorted by (guid, sw). */
struct partitions_tables {
	size_t n;
	struct partitions_table *t;
	/* private: */
	uint16_t *keys;
};

/* From the reader's object {"0x<port guid>": [pkey, ...], "0x<guid>/sw":
 * [...]} (pkey_read_run's). 0, -EINVAL (a name or key that is not one, err
 * says which) or -ENOMEM. */
int partitions_tables_from_json(const json_t *o, struct partitions_tables *out, char *err,
				size_t errlen);
void partitions_tables_clear(struct partitions_tables *t);
/* The table of guid's CA port (sw 0) or of the switch port facing it, or NULL. */
const struct partitions_table *partitions_table_find(const struct partitions_tables *t,
						     uint64_t guid, int sw);

/* A tenant as loom made it: its PKey on exactly these ports. */
struct partitions_tenant {
	const char *name;
	unsigned pkey;              /* 15 bits */
	int limited;                /* its members are limited members */
	const uint64_t *guids;      /* member port GUIDs, any order */
	size_t n_guids;
	int pending;                /* being applied: a member without the key is
				     * no finding yet (a port not a member is) */
};

enum partitions_default {
	PARTITIONS_DEFAULT_LIMITED = 0, /* hosts limited members (the guideline) */
	PARTITIONS_DEFAULT_FULL,        /* hosts full members */
	PARTITIONS_DEFAULT_OFF,         /* not checked */
};

struct partitions_opts {
	enum partitions_default default_policy;
	/* Who may be a full member of the default partition under LIMITED: a
	 * node GUID, a port GUID or a node name (the site's name or the
	 * description) each, e.g. the management nodes running OpenSM. */
	const char *const *full_ok;
	size_t n_full_ok;
	int enforce;                /* the partition-unenforced rule */
	const struct nodename_map *names;  /* the site's names (NULL: none) */
};

/* Add the findings to *r. 0, or -ENOMEM with err. */
int partitions_check(const struct fab *fab, const struct partitions_tables *tables,
		     const struct partitions_tenant *tenants, size_t n_tenants,
		     const struct partitions_opts *opts, struct val_report *r, char *err,
		     size_t errlen);

/* Is code one of this rule's? (a read that failed keeps their issues open) */
int partitions_code(enum val_code code);

#endif
