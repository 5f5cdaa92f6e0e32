/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/counters_wire.h: the counters reader's answer, as the
 * `loomd --read-counters` child writes it and loomd reads it back: one
 * line per port, then a last line for the read (issue 19). Plain text, no
 * JSON: a read of the 11664-host tree is 70k lines every interval, and
 * building and parsing them as JSON objects was a third of the read's CPU.
 *
 *   port GUID PORT LID TYPE TRIES DESC 1|2 EXT CLEARED FAILED MASK BITS:VALUE...
 *        [d DMASK BITS:VALUE...]
 *   port GUID PORT LID TYPE TRIES DESC 0 REASON
 *   pma GUID LID CAPMASK CAPMASK2 NODETAILS
 *   details ATTRS                 (only from loomd to a read)
 *   sum GUID LID PORTS MASK BITS:VALUE...
 *   done STARTED FINISHED PORTS ANSWERED MADS IN_FLIGHT TIMEOUT_MS RETRIES [DETAIL_MADS]
 *
 * GUID 0x and 16 hex digits; TYPE S (switch) or C (CA); DESC and REASON
 * with every byte below '!', above '~' and '%' as %XX; EXT 0, 1 (the PMA
 * refused PortCountersExtended) or 2 (its answer was unreadable);
 * CLEARED, FAILED and MASK hex bit sets of enum pma_counter (cleared after
 * this sample, clear asked and not confirmed, the counters that have a
 * value); then per counter of MASK, in enum order, its width and value;
 * then, when the port's detail attributes were read (issue 42), "d", the
 * hex set of enum pma_detail that have a value, and theirs likewise.
 * A port answered with 2 ("same") was read with PortCountersExtended
 * only: its switch's sum says that none of its other counters moved since
 * the last read, so they are the stored sample's (loomd fills them in).
 * A pma line is a PMA's ClassPortInfo (its two capability masks, hex) as
 * the read found it or was told it: loomd hands those lines to the next
 * read, which then sends no ClassPortInfo to those PMAs (13284 Gets of
 * 153252 on the 11664-host tree). Its NODETAILS is the hex set of enum
 * pma_detail_attr the PMA answered with a MAD status: the next reads do not
 * ask it those until its capabilities are asked again. A details line
 * (hex set of enum pma_detail_attr) tells the read which detail attributes
 * to read this time (telemetry.details_every); without one, none.
 * A sum line is a switch's PortCounters with AllPortSelect (PortSelect
 * 0xFF: its error counters and PortXmitWait summed over its ports), PORTS
 * a hex mark of the ports the read asked (counters_wire_ports_mark), made
 * only when every such port answered in full and none was cleared: loomd
 * hands them to the next read, which reads PortCounters port by port only
 * on the switches whose sum moved (pma_sums_unchanged).
 * Every number is checked when read back: a line that is not exactly this
 * is refused with its number, never half taken. */
#ifndef LOOMD_COUNTERS_WIRE_H
#define LOOMD_COUNTERS_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fabric/fabric.h"
#include "lib/telemetry/pma.h"
#include "lib/telemetry/pma_details.h"

enum counters_ext_error {
	COUNTERS_EXT_OK,
	COUNTERS_EXT_REFUSED,      /* PortCountersExtended answered with a MAD status */
	COUNTERS_EXT_UNREADABLE,   /* ... with an answer for another port, or too short */
};

/* One port as read. */
struct counters_port {
	uint64_t guid;                      /* its node's */
	unsigned port;
	uint16_t lid;                       /* its PMA's */
	int is_switch;
	unsigned tries;                     /* PortCounters Gets sent */
	char node[FAB_DESC_LEN + 1];        /* the node's description */
	int answered;
	int same;                           /* answered with PortCountersExtended only */
	char reason[128];                   /* not answered: why */
	enum counters_ext_error ext_error;  /* the 32-bit data counters stand then */
	struct pma_sample s;                /* answered: bits[c] 0 where c has no value */
	struct pma_details ds;              /* the detail counters read (bits 0: none) */
	uint32_t cleared, clear_failed;     /* bit per enum pma_counter */
};

/* The read. */
struct counters_done {
	double started, finished;
	uint64_t ports, answered, mads, in_flight, timeout_ms, retries;
	uint64_t detail_mads;               /* of mads: the detail attributes' Gets */
};

/* A PMA's capabilities (ClassPortInfo). */
struct counters_pma {
	uint64_t guid;                      /* its node's */
	uint16_t lid;
	uint16_t cap_mask;
	uint32_t cap_mask2;
	unsigned no_details;                /* enum pma_detail_attr bits it refused */
};

/* A switch's PortCounters sum (AllPortSelect). */
struct counters_sum {
	uint64_t guid;                      /* the switch's */
	uint16_t lid;
	uint32_t ports_mark;                /* of the ports read with it */
	struct pma_sample s;                /* the error counters and PortXmitWait */
};

/* The whole answer, read back (or, from loomd to a read, what it knows:
 * pmas and sums only). */
struct counters_answer {
	struct counters_done done;
	struct counters_port *ports;
	size_t n_ports;
	struct counters_pma *pmas;
	size_t n_pmas;
	struct counters_sum *sums;
	size_t n_sums;
	unsigned details;                   /* enum pma_detail_attr bits: known, to read; an
					     * answer, those its read was asked for */
};

/* One line on out: 0, or -EIO. */
int counters_wire_put_port(FILE *out, const struct counters_port *p);
int counters_wire_put_pma(FILE *out, const struct counters_pma *m);
int counters_wire_put_sum(FILE *out, const struct counters_sum *m);
int counters_wire_put_done(FILE *out, const struct counters_done *d);
/* The details line (attrs: enum pma_detail_attr bits). */
int counters_wire_put_details(FILE *out, unsigned attrs);

/* An answer (len bytes) into *a: 0, or -EPROTO with err naming the line,
 * or -ENOMEM. Free *a with counters_answer_free, whatever the result. */
int counters_wire_read(const char *buf, size_t len, struct counters_answer *a, char *err,
		       size_t errlen);
void counters_answer_free(struct counters_answer *a);
/* Only pma, sum and details lines (what loomd hands a read) into a's
 * pmas, sums and details: 0, or -EPROTO with err naming the line, or -ENOMEM. Free *a with
 * counters_answer_free, whatever the result. */
int counters_wire_read_known(const char *buf, size_t len, struct counters_answer *a,
			     char *err, size_t errlen);

/* The mark of a switch's ports (n numbers, in the order read) that a sum
 * covers: a sum is only compared with one of the same ports. */
uint32_t counters_wire_ports_mark(const unsigned *ports, size_t n);

#endif
