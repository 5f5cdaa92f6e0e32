/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/swept_subnets.h: the InfiniBand subnets loomd has swept (the
 * store's subnets with a successful sweep), as the parameters of the child
 * processes that read tables back from them (PKeys, SL2VL/VLArb), with
 * loom.yaml's MAD limits. */
#ifndef LOOMD_SWEPT_SUBNETS_H
#define LOOMD_SWEPT_SUBNETS_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/core/config.h"
#include "daemon/ib/discovery_ib.h"

struct store;

struct swept_subnets {
	struct disc_ib_params p[LOOM_MAX_SUBNETS];   /* point into names and cas */
	char names[LOOM_MAX_SUBNETS][LOOM_NAME_LEN];
	char cas[LOOM_MAX_SUBNETS][LOOM_NAME_LEN];
	size_t n;
};

/* loom.yaml's MAD limits (discovery.mad_timeout_ms, mad_retries,
 * max_smps): what a module that reads tables back keeps of the discovery
 * section. */
struct swept_mad {
	int timeout_ms, retries, max_smps;
	int walker;          /* discovery.walker (DISC_IB_WALKER_*): the children walk so */
	uint64_t m_key;      /* discovery.m_key_file's key, for the SMPs (0: none) */
};
struct discovery_conf;
/* discovery:'s timeout_ms, retries and max_smps: what loomd.c hands the
 * modules that send MADs. */
void swept_mad_of(const struct discovery_conf *c, struct swept_mad *mad);

/* Fill *out (n 0: none was swept), each subnet with the limits mad. 0, or
 * -EIO when the store cannot say. */
int swept_subnets_get(struct store *st, const struct swept_mad *mad, struct swept_subnets *out);

#endif
