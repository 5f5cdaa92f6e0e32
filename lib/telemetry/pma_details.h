/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/pma_details.h: the PerfMgt detail attributes (issue 42's
 * inputs), decoded from a MAD's 192-byte data field. Pure functions, no
 * I/O: the counters read sends the Gets, this file reads their answers.
 *
 *   0x0015 PortRcvErrorDetails            6 x 16 bits: what PortRcvErrors
 *                                         counted (local physical, malformed,
 *                                         buffer overrun, DLID and VL
 *                                         mapping, looping)
 *   0x0016 PortXmitDiscardDetails         4 x 16 bits: why PortXmitDiscards
 *                                         dropped (port inactive, neighbour
 *                                         MTU, switch lifetime, HOQ lifetime)
 *   0x001B PortVLXmitFlowCtlUpdateErrors  16 x 2 bits, one a VL
 *   0x001C PortVLXmitWaitCounters         16 x 16 bits, one a VL
 *
 * Ids, positions and widths are the specification's (IBA vol. 1, 16.1.4,
 * optional attributes), the same as libibmad's IB_PC_RCV_*_ERR_F,
 * IB_PC_XMT_*_DISC_F, IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS*_F and
 * IB_PC_PORT_VL_XMIT_WAIT*_F (tests/unit/lib/telemetry/test_pma_details.c
 * checks every one against libibmad). ClassPortInfo has no capability bit
 * for any of them: a PMA says it lacks one by answering its Get with a MAD
 * status (the reader then stops asking it, see counters_read.c). Like
 * PortCounters' they stop at all ones and do not wrap. */
#ifndef LOOM_PMA_DETAILS_H
#define LOOM_PMA_DETAILS_H

#include <stddef.h>
#include <stdint.h>

#define PMA_ATTR_RCV_ERROR_DETAILS        0x0015
#define PMA_ATTR_XMIT_DISCARD_DETAILS     0x0016
#define PMA_ATTR_VL_XMIT_FLOW_CTL_ERRORS  0x001B
#define PMA_ATTR_VL_XMIT_WAIT             0x001C

#define PMA_VLS 16

/* The detail attributes, as a bit set's bit numbers. */
enum pma_detail_attr {
	PMA_DA_RCV_ERR,          /* PortRcvErrorDetails */
	PMA_DA_XMIT_DISCARD,     /* PortXmitDiscardDetails */
	PMA_DA_VL_XMIT_WAIT,     /* PortVLXmitWaitCounters */
	PMA_DA_VL_FC_UPDATE_ERR, /* PortVLXmitFlowCtlUpdateErrors */
	PMA_N_DETAIL_ATTRS
};
#define PMA_DA_ALL ((1u << PMA_N_DETAIL_ATTRS) - 1)

enum pma_detail {
	PMA_D_LOCAL_PHYS_ERR,          /* PortLocalPhysicalErrors */
	PMA_D_MALFORMED_PKT_ERR,       /* PortMalformedPacketErrors */
	PMA_D_BUF_OVERRUN_ERR,         /* PortBufferOverrunErrors */
	PMA_D_DLID_MAPPING_ERR,        /* PortDLIDMappingErrors */
	PMA_D_VL_MAPPING_ERR,          /* PortVLMappingErrors */
	PMA_D_LOOPING_ERR,             /* PortLoopingErrors */
	PMA_D_INACTIVE_DISC,           /* PortInactiveDiscards */
	PMA_D_NEIGHBOR_MTU_DISC,       /* PortNeighborMTUDiscards */
	PMA_D_SW_LIFETIME_DISC,        /* PortSwLifetimeLimitDiscards */
	PMA_D_SW_HOQ_LIFETIME_DISC,    /* PortSwHOQLifetimeLimitDiscards */
	PMA_D_VL_XMIT_WAIT,            /* PortVLXmitWait[0..15]: this + vl */
	PMA_D_VL_FC_UPDATE_ERR = PMA_D_VL_XMIT_WAIT + PMA_VLS,  /* ...[0..15]: this + vl */
	PMA_N_DETAILS = PMA_D_VL_FC_UPDATE_ERR + PMA_VLS
};

/* One port's detail counters as read: bits[d] is the width detail d was
 * read with, 0 when it has no value (its attribute not read). Every
 * detail is 16 bits wide or less: 126 bytes a port, not 378 (a read of the
 * 11664-host tree holds 70000 of them). */
#define PMA_DETAIL_MAX_BITS 16
struct pma_details {
	uint16_t v[PMA_N_DETAILS];
	uint8_t bits[PMA_N_DETAILS];
};

/* The attribute id of a (0 for none). */
uint16_t pma_detail_attr_id(enum pma_detail_attr a);
/* The attribute detail d belongs to. */
enum pma_detail_attr pma_detail_attr_of(enum pma_detail d);

/* Attribute a's data field for `port` into its counters of *d (the
 * others untouched). 0; -EINVAL when too short or a is none; -EPROTO when
 * it answers for another PortSelect than `port`. */
int pma_decode_details(enum pma_detail_attr a, const uint8_t *data, size_t len, unsigned port,
		       struct pma_details *d);

/* The specification's name of detail d ("PortDLIDMappingErrors",
 * "PortVLXmitWait3", "PortVLXmitFlowCtlUpdateErrors15"), and the
 * attribute's ("PortRcvErrorDetails", ...). */
const char *pma_detail_name(enum pma_detail d);
const char *pma_detail_attr_name(enum pma_detail_attr a);
/* The detail named s, or -1. */
int pma_detail_by_name(const char *s);
/* Its width in the attribute. */
unsigned pma_detail_bits(enum pma_detail d);
/* The /metrics label of a non-VL detail ("dlid_mapping", "neighbor_mtu"),
 * NULL for the per-VL ones; and a per-VL detail's VL (-1 for the others). */
const char *pma_detail_kind(enum pma_detail d);
int pma_detail_vl(enum pma_detail d);

#endif
