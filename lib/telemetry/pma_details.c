/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/pma_details.c: see pma_details.h. Positions in bits from
 * the start of the data field, most significant bit first; every attribute
 * starts with PortSelect (bits 8-15) and CounterSelect (16-31). */
#include "autoconf.h"
#include "lib/telemetry/pma_details.h"

#include <errno.h>
#include <string.h>

#include "lib/telemetry/pma.h"

struct detail_field {
	const char *name;
	const char *kind;   /* /metrics label; NULL for the per-VL counters */
	unsigned bit;       /* first bit */
};

static const struct detail_field fixed[PMA_D_VL_XMIT_WAIT] = {
	[PMA_D_LOCAL_PHYS_ERR] = { "PortLocalPhysicalErrors", "local_physical", 32 },
	[PMA_D_MALFORMED_PKT_ERR] = { "PortMalformedPacketErrors", "malformed_packet", 48 },
	[PMA_D_BUF_OVERRUN_ERR] = { "PortBufferOverrunErrors", "buffer_overrun", 64 },
	[PMA_D_DLID_MAPPING_ERR] = { "PortDLIDMappingErrors", "dlid_mapping", 80 },
	[PMA_D_VL_MAPPING_ERR] = { "PortVLMappingErrors", "vl_mapping", 96 },
	[PMA_D_LOOPING_ERR] = { "PortLoopingErrors", "looping", 112 },
	[PMA_D_INACTIVE_DISC] = { "PortInactiveDiscards", "inactive", 32 },
	[PMA_D_NEIGHBOR_MTU_DISC] = { "PortNeighborMTUDiscards", "neighbor_mtu", 48 },
	[PMA_D_SW_LIFETIME_DISC] = { "PortSwLifetimeLimitDiscards", "sw_lifetime_limit", 64 },
	[PMA_D_SW_HOQ_LIFETIME_DISC] = { "PortSwHOQLifetimeLimitDiscards", "sw_hoq_lifetime_limit",
					 80 },
};

static const struct {
	const char *name;
	uint16_t id;
	enum pma_detail first;
	unsigned n;
} attrs[PMA_N_DETAIL_ATTRS] = {
	[PMA_DA_RCV_ERR] = { "PortRcvErrorDetails", PMA_ATTR_RCV_ERROR_DETAILS,
			     PMA_D_LOCAL_PHYS_ERR, 6 },
	[PMA_DA_XMIT_DISCARD] = { "PortXmitDiscardDetails", PMA_ATTR_XMIT_DISCARD_DETAILS,
				  PMA_D_INACTIVE_DISC, 4 },
	[PMA_DA_VL_XMIT_WAIT] = { "PortVLXmitWaitCounters", PMA_ATTR_VL_XMIT_WAIT,
				  PMA_D_VL_XMIT_WAIT, PMA_VLS },
	[PMA_DA_VL_FC_UPDATE_ERR] = { "PortVLXmitFlowCtlUpdateErrors",
				      PMA_ATTR_VL_XMIT_FLOW_CTL_ERRORS, PMA_D_VL_FC_UPDATE_ERR,
				      PMA_VLS },
};

/* "PortVLXmitWait0".."15", then "PortVLXmitFlowCtlUpdateErrors0".."15"
 * (constant: read from the loop and the workers alike). */
#define VL_NAMES(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9", \
	p "10", p "11", p "12", p "13", p "14", p "15"
static const char *const vl_names[2 * PMA_VLS] = {
	VL_NAMES("PortVLXmitWait"), VL_NAMES("PortVLXmitFlowCtlUpdateErrors"),
};

uint16_t pma_detail_attr_id(enum pma_detail_attr a)
{
	return (unsigned)a < PMA_N_DETAIL_ATTRS ? attrs[a].id : 0;
}

const char *pma_detail_attr_name(enum pma_detail_attr a)
{
	return (unsigned)a < PMA_N_DETAIL_ATTRS ? attrs[a].name : "?";
}

enum pma_detail_attr pma_detail_attr_of(enum pma_detail d)
{
	for (int a = 0; a < PMA_N_DETAIL_ATTRS; a++)
		if ((unsigned)d >= attrs[a].first && (unsigned)d < attrs[a].first + attrs[a].n)
			return (enum pma_detail_attr)a;
	return PMA_N_DETAIL_ATTRS;
}

unsigned pma_detail_bits(enum pma_detail d)
{
	if ((unsigned)d >= PMA_N_DETAILS)
		return 0;
	return d >= PMA_D_VL_FC_UPDATE_ERR ? 2 : 16;
}

/* Where detail d starts in its attribute's data field. */
static unsigned detail_bit(enum pma_detail d)
{
	if (d < PMA_D_VL_XMIT_WAIT)
		return fixed[d].bit;
	if (d < PMA_D_VL_FC_UPDATE_ERR)
		return 32 + 16 * (unsigned)(d - PMA_D_VL_XMIT_WAIT);
	return 32 + 2 * (unsigned)(d - PMA_D_VL_FC_UPDATE_ERR);
}

int pma_decode_details(enum pma_detail_attr a, const uint8_t *data, size_t len, unsigned port,
		       struct pma_details *d)
{
	int rc;

	if ((unsigned)a >= PMA_N_DETAIL_ATTRS)
		return -EINVAL;
	if ((rc = pma_port_of(data, len, port)) < 0)
		return rc;
	for (unsigned i = 0; i < attrs[a].n; i++) {
		enum pma_detail x = attrs[a].first + i;

		d->v[x] = (uint16_t)pma_field(data, detail_bit(x), pma_detail_bits(x));
		d->bits[x] = (uint8_t)pma_detail_bits(x);
	}
	return 0;
}

const char *pma_detail_name(enum pma_detail d)
{
	if ((unsigned)d >= PMA_N_DETAILS)
		return "?";
	if (d < PMA_D_VL_XMIT_WAIT)
		return fixed[d].name;
	return vl_names[d - PMA_D_VL_XMIT_WAIT];
}

int pma_detail_by_name(const char *s)
{
	for (int d = 0; s && d < PMA_N_DETAILS; d++)
		if (!strcmp(pma_detail_name((enum pma_detail)d), s))
			return d;
	return -1;
}

const char *pma_detail_kind(enum pma_detail d)
{
	return (unsigned)d < PMA_D_VL_XMIT_WAIT ? fixed[d].kind : NULL;
}

int pma_detail_vl(enum pma_detail d)
{
	if ((unsigned)d < PMA_D_VL_XMIT_WAIT || (unsigned)d >= PMA_N_DETAILS)
		return -1;
	return (int)(d - PMA_D_VL_XMIT_WAIT) % PMA_VLS;
}
