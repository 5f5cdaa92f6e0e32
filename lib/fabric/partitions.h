/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/partitions.h: the OpenSM partitions file loom owns for tenant
 * isolation (OpenSM's partition_config_file). It is the operator's own file
 * (static partitions, kept verbatim) followed by one partition per tenant:
 *
 *     loom_job42=0x1001 : 0x0002c90300a1b2c4=full, 0x0002c90300a1b2c5=full ;
 *
 * or, for a tenant whose traffic class has an SL (lib/qos/ib_qos.h), with the
 * partition flag that makes OpenSM's SA answer its PathRecords with that SL:
 *
 *     loom_job42=0x1001,sl=2 : 0x0002c90300a1b2c4=full ;
 *
 * Members are port GUIDs (OpenSM does not match node GUIDs). Pure
 * functions: no I/O. */
#ifndef LOOM_PARTITIONS_H
#define LOOM_PARTITIONS_H

#include <stddef.h>
#include <stdint.h>

struct part_tenant {
	const char *name;       /* the tenant's name (a job id) */
	unsigned pkey;          /* 15 bits: 0x0001..0x7ffe */
	int limited;            /* members are limited, not full */
	const uint64_t *guids;  /* member port GUIDs */
	size_t n_guids;
	int has_sl;             /* write the partition flag sl=SL (ib_qos class) */
	unsigned sl;            /* 0..15 */
};

/* The PKeys (15 bits, membership bit cleared) that the operator's file
 * defines ("Name=0x8001,..." at the start of a partition), as a bitmap of
 * 0x8000 bits that `used` points to (callers pass uint8_t[4096]). Unparsable
 * statements are ignored here: OpenSM reports them when it reads the file. */
void part_static_pkeys(const char *text, uint8_t *used);

/* The file: the operator's text (may be NULL), then the tenants', in the
 * order given. A new string (free it), or NULL when out of memory. */
char *part_file_new(const char *static_text, const struct part_tenant *t, size_t n);

/* The partition name of a tenant in the file: "loom_" + its name with
 * characters other than [A-Za-z0-9_.-] as '_'. buf needs 80 bytes. */
void part_name(const char *tenant, char *buf, size_t len);

#endif
