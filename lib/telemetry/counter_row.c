/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/counter_row.c: see counter_row.h. */
#include "autoconf.h"
#include "lib/telemetry/counter_row.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define COUNTER_ROW_VERSION 1

static size_t put_varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

/* A varint at *at (below len) into *v: 0, or -EINVAL. */
static int get_varint(const uint8_t *b, size_t len, size_t *at, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t c;

		if (*at >= len)
			return -EINVAL;
		c = b[(*at)++];
		if (shift == 63 && (c & 0x7e))
			return -EINVAL;  /* more than 64 bits */
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EINVAL;
}

static size_t put_counter(uint8_t *buf, unsigned no, unsigned bits, uint64_t v,
			  const struct cdelta *d)
{
	size_t n = 0;

	if (!bits || bits > 64)
		return 0;
	buf[n++] = (uint8_t)no;
	buf[n++] = (uint8_t)bits;
	buf[n++] = (uint8_t)d->state;
	n += put_varint(buf + n, v);
	n += put_varint(buf + n, d->delta);
	return n;
}

size_t counter_row_pack(const struct counter_row *r, uint8_t *buf)
{
	size_t n = 0;

	buf[n++] = COUNTER_ROW_VERSION;
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		n += put_counter(buf + n, (unsigned)c, r->s.bits[c], r->s.v[c], &r->d[c]);
	for (int d = 0; d < PMA_N_DETAILS; d++)
		n += put_counter(buf + n, COUNTER_ROW_DETAIL + (unsigned)d, r->ds.bits[d],
				 r->ds.v[d], &r->dd[d]);
	return n;
}

int counter_row_unpack(const void *buf, size_t len, struct counter_row *r)
{
	const uint8_t *b = buf;
	size_t at = 1;
	int last = -1;

	memset(r, 0, sizeof(*r));
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		r->d[c].state = CDELTA_NOT_READ;
	for (int d = 0; d < PMA_N_DETAILS; d++)
		r->dd[d].state = CDELTA_NOT_READ;
	if (!b || len < 1 || b[0] != COUNTER_ROW_VERSION)
		return -EINVAL;
	while (at < len) {
		int c;
		unsigned bits, state;
		uint64_t v;
		uint8_t *width;
		struct cdelta *d;

		if (len - at < 3)
			return -EINVAL;
		c = b[at];
		bits = b[at + 1];
		state = b[at + 2];
		at += 3;
		/* Each counter once, in order, with a width and a known state. */
		if (c <= last || bits < 1 || bits > 64 || state > CDELTA_CARRIED)
			return -EINVAL;
		if (c < PMA_N_COUNTERS) {
			width = &r->s.bits[c];
			d = &r->d[c];
		} else if (c >= COUNTER_ROW_DETAIL && c < COUNTER_ROW_DETAIL + PMA_N_DETAILS &&
			   bits <= PMA_DETAIL_MAX_BITS) {
			width = &r->ds.bits[c - COUNTER_ROW_DETAIL];
			d = &r->dd[c - COUNTER_ROW_DETAIL];
		} else {
			return -EINVAL;
		}
		last = c;
		if (get_varint(b, len, &at, &v) < 0 || get_varint(b, len, &at, &d->delta) < 0 ||
		    v > cdelta_max(bits))
			return -EINVAL;
		if (c < PMA_N_COUNTERS)
			r->s.v[c] = v;
		else
			r->ds.v[c - COUNTER_ROW_DETAIL] = (uint16_t)v;
		*width = (uint8_t)bits;
		d->state = (enum cdelta_state)state;
	}
	return 0;
}

static json_t *view(const struct counter_row *r, int what, double interval_s)
{
	json_t *o = json_object();

	for (int c = 0; o && c < PMA_N_COUNTERS; c++) {
		json_t *v = NULL;
		double rate;

		if (!r->s.bits[c])
			continue;
		switch (what) {
		case 0:
			v = json_integer((json_int_t)r->s.v[c]);
			break;
		case 1:
			v = json_integer(r->s.bits[c]);
			break;
		case 2:
			v = json_pack("{s:I, s:s}", "delta", (json_int_t)r->d[c].delta, "state",
				      cdelta_state_name(r->d[c].state));
			break;
		default:
			if (counter_row_rate(r, (enum pma_counter)c, interval_s, &rate) < 0)
				continue;
			v = json_real(rate);
			break;
		}
		if (!v || json_object_set_new(o, pma_counter_name((enum pma_counter)c), v) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *counter_row_counters_json(const struct counter_row *r)
{
	return view(r, 0, 0);
}

json_t *counter_row_bits_json(const struct counter_row *r)
{
	return view(r, 1, 0);
}

json_t *counter_row_deltas_json(const struct counter_row *r)
{
	return view(r, 2, 0);
}

json_t *counter_row_rates_json(const struct counter_row *r, double interval_s)
{
	return view(r, 3, interval_s);
}

json_t *counter_row_details_json(const struct counter_row *r)
{
	json_t *o = json_object();

	for (int d = 0; o && d < PMA_N_DETAILS; d++) {
		json_t *v;

		if (!r->ds.bits[d])
			continue;
		v = json_pack("{s:I, s:I, s:s}", "value", (json_int_t)r->ds.v[d], "delta",
			      (json_int_t)r->dd[d].delta, "state", cdelta_state_name(r->dd[d].state));
		if (!v || json_object_set_new(o, pma_detail_name((enum pma_detail)d), v) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

void counter_row_add_details(json_t *o, const struct counter_row *r)
{
	json_t *d = counter_row_details_json(r);

	if (d && json_object_size(d))
		json_object_set_new(o, "details", d);
	else
		json_decref(d);
}

int counter_row_rate(const struct counter_row *r, enum pma_counter c, double interval_s,
		     double *rate)
{
	if ((unsigned)c >= PMA_N_COUNTERS || !r->s.bits[c] ||
	    cdelta_rate(&r->d[c], interval_s, rate) < 0 || !isfinite(*rate))
		return -EAGAIN;
	return 0;
}

uint64_t counter_row_errors(const struct counter_row *r, int *lower_bound)
{
	uint64_t sum = 0;
	int lower = 0;

	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (!r->s.bits[c] || !pma_counter_is_error((enum pma_counter)c) || !r->d[c].delta)
			continue;
		sum += r->d[c].delta;
		lower |= r->d[c].state != CDELTA_OK;
	}
	if (lower_bound)
		*lower_bound = lower;
	return sum;
}
