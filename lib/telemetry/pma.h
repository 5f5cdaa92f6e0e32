/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/pma.h: InfiniBand Performance Management (PMA, class 0x04)
 * attributes as plain C values, decoded from the 192-byte data field of a
 * PerfMgt MAD (issue 19: the counters sweep). Pure functions, no I/O: the
 * sweep sends the MADs, this file only reads their answers.
 *
 *   0x0001 ClassPortInfo          CapabilityMask: which optional counters
 *                                 the port's PMA has (PortXmitWait, 64-bit
 *                                 PortCountersExtended)
 *   0x0012 PortCounters           the error counters (4, 8 and 16 bits),
 *                                 32-bit data and packet counters, and
 *                                 PortXmitWait (32 bits, where supported)
 *   0x001D PortCountersExtended   64-bit data and packet counters
 *
 * Field positions are the InfiniBand Architecture Specification's (vol. 1,
 * 16.1.3 and 16.1.4), the same as libibmad's IB_PC_* and IB_PC_EXT_*
 * fields; tests/unit/lib/telemetry/test_pma.c checks every one against libibmad's field
 * table. Every decoder takes the whole data field and never reads past it.
 *
 * Counters of PortCounters do not wrap: they stop at all ones (IBA
 * 16.1.3.5). Data counters count 4-octet words: bytes = 4 x value. */
#ifndef LOOM_PMA_H
#define LOOM_PMA_H

#include <stddef.h>
#include <stdint.h>

#define PMA_DATA_LEN 192  /* the data field of a PerfMgt MAD */

#define PMA_ATTR_CLASS_PORT_INFO     0x0001
#define PMA_ATTR_PORT_COUNTERS       0x0012
#define PMA_ATTR_PORT_COUNTERS_EXT   0x001D

/* ClassPortInfo CapabilityMask bits of the PerfMgt class. */
#define PMA_CAP_ALL_PORT_SELECT      (1u << 8)   /* PortSelect 0xFF: the node's sum */
#define PMA_CAP_EXT_WIDTH            (1u << 9)   /* PortCountersExtended, all fields */
#define PMA_CAP_EXT_WIDTH_NOIETF     (1u << 10)  /* ... data and packets only */
#define PMA_CAP_XMIT_WAIT            (1u << 12)  /* PortXmitWait in PortCounters */
/* ... and of CapabilityMask2: PortCountersExtended also has every PortCounters
 * counter, 64 bits wide (IsAdditionalPortCountersExtendedSupported). */
#define PMA_CAP2_ADDL_PORT_COUNTERS_EXT (1u << 1)

/* PortSelect 0xFF asks for the sum over the node's ports (AllPortSelect). */
#define PMA_PORT_ALL 0xFF

enum pma_counter {
	PMA_SYMBOL_ERR,              /* SymbolErrorCounter, 16 */
	PMA_LINK_ERR_RECOVERY,       /* LinkErrorRecoveryCounter, 8 */
	PMA_LINK_DOWNED,             /* LinkDownedCounter, 8 */
	PMA_RCV_ERR,                 /* PortRcvErrors, 16 */
	PMA_RCV_REMOTE_PHYS_ERR,     /* PortRcvRemotePhysicalErrors, 16 */
	PMA_RCV_SWITCH_RELAY_ERR,    /* PortRcvSwitchRelayErrors, 16 */
	PMA_XMIT_DISCARDS,           /* PortXmitDiscards, 16 */
	PMA_XMIT_CONSTRAINT_ERR,     /* PortXmitConstraintErrors, 8 */
	PMA_RCV_CONSTRAINT_ERR,      /* PortRcvConstraintErrors, 8 */
	PMA_LOCAL_LINK_INTEGRITY,    /* LocalLinkIntegrityErrors, 4 */
	PMA_EXCESSIVE_BUF_OVERRUN,   /* ExcessiveBufferOverrunErrors, 4 */
	PMA_VL15_DROPPED,            /* VL15Dropped, 16 */
	PMA_XMIT_DATA,               /* PortXmitData, 32 (64 extended), 4-octet words */
	PMA_RCV_DATA,                /* PortRcvData, likewise */
	PMA_XMIT_PKTS,               /* PortXmitPkts, 32 (64 extended) */
	PMA_RCV_PKTS,                /* PortRcvPkts, likewise */
	PMA_XMIT_WAIT,               /* PortXmitWait, 32: ticks with data to send and no credit */
	PMA_N_COUNTERS
};

/* One port's counters as read. bits[c] is the width counter c was read
 * with (4, 8, 16, 32 or 64), 0 when it was not read (PortXmitWait on a PMA
 * without it): such a counter has no value, and is never shown as 0. */
struct pma_sample {
	uint64_t v[PMA_N_COUNTERS];
	uint8_t bits[PMA_N_COUNTERS];
};

struct pma_caps {
	uint16_t cap_mask;      /* CapabilityMask */
	uint32_t cap_mask2;     /* CapabilityMask2 (27 bits) */
	unsigned xmit_wait : 1; /* PortXmitWait is counted */
	unsigned ext : 1;       /* PortCountersExtended has 64-bit data and packets */
	unsigned ext_all : 1;   /* ... and every other counter: one Get reads a port */
	unsigned all_ports : 1; /* PortCounters answers PortSelect 0xFF with the sum */
};

/* ClassPortInfo's data field (len bytes, at least PMA_DATA_LEN) into *caps.
 * 0, or -EINVAL when it is too short. */
int pma_decode_class_port_info(const uint8_t *data, size_t len, struct pma_caps *caps);
/* *caps from ClassPortInfo's two masks (as an earlier read found them). */
void pma_caps_of(struct pma_caps *caps, uint16_t cap_mask, uint32_t cap_mask2);

/* PortCounters' data field for `port` into *s (every counter of the
 * attribute; PortXmitWait only when caps says the PMA counts it). 0;
 * -EINVAL when too short; -EPROTO when it answers for another PortSelect
 * than `port` (a reply to someone else's query, or a broken PMA). */
int pma_decode_port_counters(const uint8_t *data, size_t len, unsigned port,
			     const struct pma_caps *caps, struct pma_sample *s);

/* PortCountersExtended's data field for `port`: its 64-bit data and packet
 * counters replace the 32-bit ones in *s (read PortCounters first). Errors
 * as pma_decode_port_counters. */
int pma_decode_port_counters_ext(const uint8_t *data, size_t len, unsigned port,
				 struct pma_sample *s);

/* PortCountersExtended's data field of a PMA with ext_all: every counter,
 * 64 bits wide (PortXmitWait only when caps says the PMA counts it); the
 * port's PortCounters is not needed then. Errors as pma_decode_port_counters. */
int pma_decode_port_counters_ext_all(const uint8_t *data, size_t len, unsigned port,
				     const struct pma_caps *caps, struct pma_sample *s);

/* `bits` bits (1..64) of a data field from bit `bit` on, most significant
 * first (the specification's numbering); the caller keeps bit + bits
 * within the field. */
uint64_t pma_field(const uint8_t *data, unsigned bit, unsigned bits);
/* 0 when a data field (len bytes) answers for PortSelect `port`; -EINVAL
 * when it is too short, -EPROTO when it answers for another port. */
int pma_port_of(const uint8_t *data, size_t len, unsigned port);

/* The specification's name of counter c ("SymbolErrorCounter", ...), and
 * its width in PortCounters. */
const char *pma_counter_name(enum pma_counter c);
unsigned pma_counter_bits(enum pma_counter c);
/* The counter named s, or -1. */
int pma_counter_by_name(const char *s);
/* 1 for the counters that count errors (SymbolErrorCounter through
 * VL15Dropped, LinkDownedCounter included), 0 for data, packets and
 * PortXmitWait. */
int pma_counter_is_error(enum pma_counter c);

/* Two PortCounters sums of a switch (PortSelect 0xFF, decoded for that
 * port), an earlier one and now: 1 when they say that no port's error
 * counters nor PortXmitWait moved in between, 0 when they may have. The
 * counters only grow between two clears, so an unchanged sum means an
 * unchanged counter on every port; a sum at the top of its width has
 * stopped (the PMA saturates it) and proves nothing, nor does a counter
 * that one sum has and the other not. The data and packet counters are
 * not compared (they come from PortCountersExtended, and move with any
 * traffic). */
int pma_sums_unchanged(const struct pma_sample *before, const struct pma_sample *now);

#endif
