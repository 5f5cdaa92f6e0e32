/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/mad_build.h: the one way loom builds the MADs it sends itself
 * with umad_send() (the requests of a mad_window.h window): a directed-route
 * SMP (the AR reads and sequences, through dr_route.h's dr_smp_build) or a
 * LID-routed PerfMgt MAD to the port's GSA, QP1 (telemetry/counters_read.c),
 * or a SubnAdm query to the SA's LID, QP1 (ib/sm_read.c). The class decides
 * the data field's size and place. */
#ifndef LOOMD_MAD_BUILD_H
#define LOOMD_MAD_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/mad.h>

struct madb_req {
	int mgmt_class;              /* IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS, IB_SA_CLASS */
	int method;                  /* IB_MAD_METHOD_GET, _SET */
	uint16_t attr;
	uint32_t am;                 /* attribute modifier */
	uint32_t tid;
	const ib_dr_path_t *path;    /* an SMP's directed route */
	uint16_t lid;                /* a PerfMgt or SA MAD's destination */
	const uint8_t *data;         /* the data field; NULL: zeros */
};

/* r built in buf (blen bytes: umad_size() + IB_MAD_SIZE, cleared here):
 * its length, or -EINVAL (a class other than those three, a buffer too
 * small). */
int madb_build(uint8_t *buf, size_t blen, const struct madb_req *r);

/* The M_Key of mad (umad_get_mad of a built MAD), bytes 24..31 of the
 * header, set to mkey when mad is an SMP (LID-routed or directed-route
 * class): a port whose M_Key is protected (IBA 14.2.4) answers no SMP
 * without it. Other classes are left untouched (there the same bytes are
 * the SA's SM_Key or reserved). mad_window.h stamps every SMP it sends. */
void madb_set_mkey(uint8_t *mad, uint64_t mkey);

#endif
