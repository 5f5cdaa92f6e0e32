/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/counter_row.h: one InfiniBand port's stored counters (the
 * last sample and what each counter did since the one before), packed for
 * the port_counters table's `sample` column (schema 013), and its JSON
 * views (issue 19).
 *
 * A read of the 11664-host tree writes 70k of these every interval: as
 * four JSON texts they were 2.5 kB a port, 180 MB a read, and SQLite's
 * writing of them was most of the read's time. Packed they are about 60
 * bytes. The JSON that `loomctl counters` shows is built from them when
 * asked, the same text as before (tests/unit/lib/telemetry/test_counter_row.c).
 *
 * The packed form, version 1: a byte 1, then per counter with a value, in
 * enum pma_counter order: its number, its width (1..64), its delta state
 * (enum cdelta_state), its value and its delta as LEB128 varints. A
 * counter without a value (bits 0) is left out and stays out of every
 * view. Pure functions. */
#ifndef LOOM_COUNTER_ROW_H
#define LOOM_COUNTER_ROW_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/telemetry/counter_delta.h"
#include "lib/telemetry/pma.h"
#include "lib/telemetry/pma_details.h"

/* At most: the version byte, then 3 bytes and two 10-byte varints per counter. */
#define COUNTER_ROW_MAX (1 + (PMA_N_COUNTERS + PMA_N_DETAILS) * 23)
/* The packed number of detail 0. */
#define COUNTER_ROW_DETAIL 64

struct counter_row {
	struct pma_sample s;                  /* bits[c] 0: counter c has no value */
	struct cdelta d[PMA_N_COUNTERS];      /* CDELTA_NOT_READ where bits[c] is 0 */
	struct pma_details ds;                /* the detail counters, likewise */
	struct cdelta dd[PMA_N_DETAILS];
};

/* The packed form of r into buf (at least COUNTER_ROW_MAX bytes): its length. */
size_t counter_row_pack(const struct counter_row *r, uint8_t *buf);

/* A packed form back into *r: 0, or -EINVAL for anything that is not one
 * (never reads past len). */
int counter_row_unpack(const void *buf, size_t len, struct counter_row *r);

/* The views `loomctl counters` shows, by the PMA's names:
 *   counters  {"Name": value}
 *   bits      {"Name": width}
 *   deltas    {"Name": {"delta": n, "state": "ok"}}
 *   rates     {"Name": per second}, for counters whose delta is exact,
 *             over interval_s (none when interval_s is not > 0)
 * New references, NULL when out of memory. */
json_t *counter_row_counters_json(const struct counter_row *r);
json_t *counter_row_bits_json(const struct counter_row *r);
json_t *counter_row_deltas_json(const struct counter_row *r);
json_t *counter_row_rates_json(const struct counter_row *r, double interval_s);

/* The detail counters that have a value, by the PMA's names:
 * {"PortDLIDMappingErrors": {"value": n, "delta": n, "state": "ok"}};
 * an empty object when none. New reference, NULL when out of memory. */
json_t *counter_row_details_json(const struct counter_row *r);
/* That view as o's "details", when r has any detail counter. */
void counter_row_add_details(json_t *o, const struct counter_row *r);

/* The rate of counter c over interval_s: 0 and *rate, or -EAGAIN when it
 * has none (no exact delta, no interval). */
int counter_row_rate(const struct counter_row *r, enum pma_counter c, double interval_s,
		     double *rate);

/* The sum of the error counters' deltas (pma_counter_is_error; lower
 * bounds included), and whether any of them is a lower bound. */
uint64_t counter_row_errors(const struct counter_row *r, int *lower_bound);

#endif
