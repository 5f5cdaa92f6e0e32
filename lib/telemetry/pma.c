/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/pma.c: see pma.h. Positions are in bits from the start of
 * the data field, most significant bit first, as the specification numbers
 * them (and libibmad's field table). */
#include "autoconf.h"
#include "lib/telemetry/pma.h"

#include <errno.h>
#include <string.h>

#include "lib/telemetry/counter_delta.h"

struct field {
	const char *name;
	unsigned bit;   /* first bit */
	unsigned bits;  /* width in PortCounters */
};

static const struct field fields[PMA_N_COUNTERS] = {
	[PMA_SYMBOL_ERR] = { "SymbolErrorCounter", 32, 16 },
	[PMA_LINK_ERR_RECOVERY] = { "LinkErrorRecoveryCounter", 48, 8 },
	[PMA_LINK_DOWNED] = { "LinkDownedCounter", 56, 8 },
	[PMA_RCV_ERR] = { "PortRcvErrors", 64, 16 },
	[PMA_RCV_REMOTE_PHYS_ERR] = { "PortRcvRemotePhysicalErrors", 80, 16 },
	[PMA_RCV_SWITCH_RELAY_ERR] = { "PortRcvSwitchRelayErrors", 96, 16 },
	[PMA_XMIT_DISCARDS] = { "PortXmitDiscards", 112, 16 },
	[PMA_XMIT_CONSTRAINT_ERR] = { "PortXmitConstraintErrors", 128, 8 },
	[PMA_RCV_CONSTRAINT_ERR] = { "PortRcvConstraintErrors", 136, 8 },
	/* bits 144-151: CounterSelect2 */
	[PMA_LOCAL_LINK_INTEGRITY] = { "LocalLinkIntegrityErrors", 152, 4 },
	[PMA_EXCESSIVE_BUF_OVERRUN] = { "ExcessiveBufferOverrunErrors", 156, 4 },
	/* bits 160-175: reserved */
	[PMA_VL15_DROPPED] = { "VL15Dropped", 176, 16 },
	[PMA_XMIT_DATA] = { "PortXmitData", 192, 32 },
	[PMA_RCV_DATA] = { "PortRcvData", 224, 32 },
	[PMA_XMIT_PKTS] = { "PortXmitPkts", 256, 32 },
	[PMA_RCV_PKTS] = { "PortRcvPkts", 288, 32 },
	[PMA_XMIT_WAIT] = { "PortXmitWait", 320, 32 },
};

/* PortCountersExtended: the 64-bit counters that replace PortCounters'. */
static const struct {
	enum pma_counter c;
	unsigned bit;
} ext_fields[] = {
	{ PMA_XMIT_DATA, 64 }, { PMA_RCV_DATA, 128 }, { PMA_XMIT_PKTS, 192 }, { PMA_RCV_PKTS, 256 },
};

/* PortCountersExtended of a PMA with IsAdditionalPortCountersExtendedSupported
 * (IBA 1.3, 16.1.4.2): after the eight 64-bit data and packet counters, every
 * PortCounters counter again, 64 bits wide, in the same order. */
static const struct {
	enum pma_counter c;
	unsigned bit;
} addl_fields[] = {
	{ PMA_SYMBOL_ERR, 576 }, { PMA_LINK_ERR_RECOVERY, 640 }, { PMA_LINK_DOWNED, 704 },
	{ PMA_RCV_ERR, 768 }, { PMA_RCV_REMOTE_PHYS_ERR, 832 }, { PMA_RCV_SWITCH_RELAY_ERR, 896 },
	{ PMA_XMIT_DISCARDS, 960 }, { PMA_XMIT_CONSTRAINT_ERR, 1024 },
	{ PMA_RCV_CONSTRAINT_ERR, 1088 }, { PMA_LOCAL_LINK_INTEGRITY, 1152 },
	{ PMA_EXCESSIVE_BUF_OVERRUN, 1216 }, { PMA_VL15_DROPPED, 1280 }, { PMA_XMIT_WAIT, 1344 },
};

#define PORT_SELECT_BIT 8

uint64_t pma_field(const uint8_t *d, unsigned bit, unsigned bits)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bits; i++) {
		unsigned b = bit + i;

		v = v << 1 | ((d[b / 8] >> (7 - b % 8)) & 1u);
	}
	return v;
}

int pma_decode_class_port_info(const uint8_t *data, size_t len, struct pma_caps *caps)
{
	if (!data || len < PMA_DATA_LEN)
		return -EINVAL;
	pma_caps_of(caps, (uint16_t)pma_field(data, 16, 16), (uint32_t)pma_field(data, 32, 27));
	return 0;
}

void pma_caps_of(struct pma_caps *caps, uint16_t cap_mask, uint32_t cap_mask2)
{
	caps->cap_mask = cap_mask;
	caps->cap_mask2 = cap_mask2 & ((1u << 27) - 1);
	caps->xmit_wait = !!(cap_mask & PMA_CAP_XMIT_WAIT);
	caps->ext = !!(cap_mask & (PMA_CAP_EXT_WIDTH | PMA_CAP_EXT_WIDTH_NOIETF));
	caps->ext_all = caps->ext && (caps->cap_mask2 & PMA_CAP2_ADDL_PORT_COUNTERS_EXT);
	caps->all_ports = !!(cap_mask & PMA_CAP_ALL_PORT_SELECT);
}

int pma_port_of(const uint8_t *data, size_t len, unsigned port)
{
	if (!data || len < PMA_DATA_LEN)
		return -EINVAL;
	return pma_field(data, PORT_SELECT_BIT, 8) == port ? 0 : -EPROTO;
}

int pma_decode_port_counters(const uint8_t *data, size_t len, unsigned port,
			     const struct pma_caps *caps, struct pma_sample *s)
{
	int rc = pma_port_of(data, len, port);

	if (rc < 0)
		return rc;
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (c == PMA_XMIT_WAIT && !caps->xmit_wait) {
			s->v[c] = 0;
			s->bits[c] = 0;
			continue;
		}
		s->v[c] = pma_field(data, fields[c].bit, fields[c].bits);
		s->bits[c] = (uint8_t)fields[c].bits;
	}
	return 0;
}

int pma_decode_port_counters_ext(const uint8_t *data, size_t len, unsigned port,
				 struct pma_sample *s)
{
	int rc = pma_port_of(data, len, port);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < sizeof(ext_fields) / sizeof(ext_fields[0]); i++) {
		s->v[ext_fields[i].c] = pma_field(data, ext_fields[i].bit, 64);
		s->bits[ext_fields[i].c] = 64;
	}
	return 0;
}

int pma_decode_port_counters_ext_all(const uint8_t *data, size_t len, unsigned port,
				     const struct pma_caps *caps, struct pma_sample *s)
{
	int rc = pma_decode_port_counters_ext(data, len, port, s);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < sizeof(addl_fields) / sizeof(addl_fields[0]); i++) {
		enum pma_counter c = addl_fields[i].c;

		if (c == PMA_XMIT_WAIT && !caps->xmit_wait) {
			s->v[c] = 0;
			s->bits[c] = 0;
			continue;
		}
		s->v[c] = pma_field(data, addl_fields[i].bit, 64);
		s->bits[c] = 64;
	}
	return 0;
}

const char *pma_counter_name(enum pma_counter c)
{
	return (unsigned)c < PMA_N_COUNTERS ? fields[c].name : "?";
}

unsigned pma_counter_bits(enum pma_counter c)
{
	return (unsigned)c < PMA_N_COUNTERS ? fields[c].bits : 0;
}

int pma_counter_by_name(const char *s)
{
	for (int c = 0; s && c < PMA_N_COUNTERS; c++)
		if (!strcmp(fields[c].name, s))
			return c;
	return -1;
}

int pma_counter_is_error(enum pma_counter c)
{
	return (unsigned)c <= PMA_VL15_DROPPED;
}

int pma_sums_unchanged(const struct pma_sample *before, const struct pma_sample *now)
{
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (!pma_counter_is_error((enum pma_counter)c) && c != PMA_XMIT_WAIT)
			continue;
		if (before->bits[c] != now->bits[c] || before->v[c] != now->v[c])
			return 0;
		if (now->bits[c] && now->v[c] >= cdelta_max(now->bits[c]))
			return 0;
	}
	return 1;
}
