/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/telemetry/counters_wire.c: see counters_wire.h. */
#include "autoconf.h"
#include "daemon/telemetry/counters_wire.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/telemetry/counter_delta.h"

/* ---- writing ------------------------------------------------------------------ */

/* s with the bytes a token cannot hold as %XX. */
static void put_text(FILE *out, const char *s)
{
	if (!*s) {
		fputs("%00", out);  /* never an empty token; %00 reads back as "" */
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c > '~' || c == '%')
			fprintf(out, "%%%02X", c);
		else
			fputc(c, out);
	}
}

/* " MASK BITS:VALUE..." of the n values that have a width. */
static void put_values(FILE *out, size_t n, const uint64_t *v, const uint8_t *bits)
{
	uint64_t mask = 0;

	for (size_t c = 0; c < n; c++)
		if (bits[c])
			mask |= UINT64_C(1) << c;
	fprintf(out, " %" PRIx64, mask);
	for (size_t c = 0; c < n; c++)
		if (bits[c])
			fprintf(out, " %u:%" PRIu64, bits[c], v[c]);
}

static void put_sample(FILE *out, const struct pma_sample *s)
{
	put_values(out, PMA_N_COUNTERS, s->v, s->bits);
}

int counters_wire_put_port(FILE *out, const struct counters_port *p)
{

	fprintf(out, "port 0x%016" PRIx64 " %u %u %c %u ", p->guid, p->port, p->lid,
		p->is_switch ? 'S' : 'C', p->tries);
	put_text(out, p->node);
	if (!p->answered) {
		fputs(" 0 ", out);
		put_text(out, p->reason);
		return fputc('\n', out) == EOF ? -EIO : 0;
	}
	fprintf(out, " %d %d %" PRIx32 " %" PRIx32, p->same ? 2 : 1, (int)p->ext_error,
		p->cleared, p->clear_failed);
	put_sample(out, &p->s);
	for (int d = 0; d < PMA_N_DETAILS; d++) {
		uint64_t v[PMA_N_DETAILS];

		if (!p->ds.bits[d])
			continue;
		for (int k = 0; k < PMA_N_DETAILS; k++)
			v[k] = p->ds.v[k];
		fputs(" d", out);
		put_values(out, PMA_N_DETAILS, v, p->ds.bits);
		break;
	}
	return fputc('\n', out) == EOF ? -EIO : 0;
}

int counters_wire_put_pma(FILE *out, const struct counters_pma *m)
{
	return fprintf(out, "pma 0x%016" PRIx64 " %u %x %" PRIx32 " %x\n", m->guid, m->lid,
		       m->cap_mask, m->cap_mask2, m->no_details & PMA_DA_ALL) < 0 ? -EIO : 0;
}

int counters_wire_put_details(FILE *out, unsigned attrs)
{
	return fprintf(out, "details %x\n", attrs & PMA_DA_ALL) < 0 ? -EIO : 0;
}

int counters_wire_put_sum(FILE *out, const struct counters_sum *m)
{
	fprintf(out, "sum 0x%016" PRIx64 " %u %" PRIx32, m->guid, m->lid, m->ports_mark);
	put_sample(out, &m->s);
	return fputc('\n', out) == EOF ? -EIO : 0;
}

uint32_t counters_wire_ports_mark(const unsigned *ports, size_t n)
{
	uint32_t h = 2166136261u;  /* FNV-1a over the port numbers and their count */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (ports[i] & 0xff)) * 16777619u;
	return (h ^ (uint32_t)n) * 16777619u;
}

int counters_wire_put_done(FILE *out, const struct counters_done *d)
{
	if (fprintf(out, "done %.6f %.6f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
		    PRIu64 " %" PRIu64, d->started, d->finished, d->ports, d->answered, d->mads,
		    d->in_flight, d->timeout_ms, d->retries) < 0)
		return -EIO;
	if (d->detail_mads && fprintf(out, " %" PRIu64, d->detail_mads) < 0)
		return -EIO;
	return fputc('\n', out) == EOF ? -EIO : 0;
}

/* ---- reading ------------------------------------------------------------------ */

struct line {
	const char *p, *end;     /* what is left of the line */
	size_t no;               /* its number, from 1 */
	char *err;
	size_t errlen;
	int failed;
};

static int bad(struct line *l, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (l->failed++)
		return -EPROTO;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(l->err, l->errlen, "the counters reader's answer, line %zu: %s", l->no, what);
	return -EPROTO;
}

/* The next space-separated token: 0 with *tok and *n, or -EPROTO. */
static int token(struct line *l, const char *what, const char **tok, size_t *n)
{
	const char *sp;

	if (l->p >= l->end)
		return bad(l, "%s is missing", what);
	sp = memchr(l->p, ' ', (size_t)(l->end - l->p));
	*tok = l->p;
	*n = sp ? (size_t)(sp - l->p) : (size_t)(l->end - l->p);
	l->p = sp ? sp + 1 : l->end;
	return *n ? 0 : bad(l, "%s is empty", what);
}

static int number(struct line *l, const char *what, int base, uint64_t max, uint64_t *v)
{
	const char *t;
	char buf[32], *e;
	size_t n;

	if (token(l, what, &t, &n) < 0)
		return -EPROTO;
	if (n >= sizeof(buf) || t[0] == '-' || t[0] == '+')
		return bad(l, "%s is no number", what);
	memcpy(buf, t, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &e, base);
	if (errno || *e || e == buf || *v > max)
		return bad(l, "%s \"%s\" is no number of at most %" PRIu64, what, buf, max);
	return 0;
}

static int real(struct line *l, const char *what, double *v)
{
	const char *t;
	char buf[40], *e;
	size_t n;

	if (token(l, what, &t, &n) < 0)
		return -EPROTO;
	if (n >= sizeof(buf))
		return bad(l, "%s is no time", what);
	memcpy(buf, t, n);
	buf[n] = '\0';
	*v = strtod(buf, &e);
	if (*e || e == buf || !isfinite(*v) || *v < 0)
		return bad(l, "%s \"%s\" is no time", what, buf);
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A %XX-encoded token into buf (len bytes, NUL included). */
static int text(struct line *l, const char *what, char *buf, size_t len)
{
	const char *t;
	size_t n, o = 0;

	if (token(l, what, &t, &n) < 0)
		return -EPROTO;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)t[i];

		if (c == '%') {
			int hi = i + 2 < n ? hexval(t[i + 1]) : -1, lo = hi >= 0 ? hexval(t[i + 2]) : -1;

			if (hi < 0 || lo < 0)
				return bad(l, "%s has a bad %% escape", what);
			c = hi * 16 + lo;
			i += 2;
			if (c == 0)
				continue;  /* the empty text's mark */
		}
		if (o + 1 >= len)
			return bad(l, "%s is longer than %zu bytes", what, len - 1);
		buf[o++] = (char)c;
	}
	buf[o] = '\0';
	return 0;
}

/* " MASK BITS:VALUE..." of n values (named by name(c)) into v and bits. */
static int take_values(struct line *l, size_t n, const char *(*name)(int), uint64_t *v,
		       uint8_t *bits)
{
	uint64_t mask;
	const char *t;
	size_t len;

	if (number(l, "the counters set", 16, n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1,
		   &mask) < 0)
		return -EPROTO;
	for (size_t c = 0; c < n; c++) {
		const char *colon;
		char what[64];
		struct line sub;
		uint64_t width;

		if (!(mask & (UINT64_C(1) << c)))
			continue;
		snprintf(what, sizeof(what), "%s", name((int)c));
		if (token(l, what, &t, &len) < 0)
			return -EPROTO;
		if (!(colon = memchr(t, ':', len)))
			return bad(l, "%s is not WIDTH:VALUE", what);
		sub = *l;
		sub.p = t;
		sub.end = colon;
		if (number(&sub, what, 10, 64, &width) < 0) {
			l->failed = sub.failed;
			return -EPROTO;
		}
		if (width == 0)
			return bad(l, "%s has width 0", what);
		sub.p = colon + 1;
		sub.end = t + len;
		if (number(&sub, what, 10, cdelta_max((unsigned)width), &v[c]) < 0) {
			l->failed = sub.failed;
			return -EPROTO;
		}
		bits[c] = (uint8_t)width;
	}
	return 0;
}

static const char *counter_name(int c)
{
	return pma_counter_name((enum pma_counter)c);
}

static const char *detail_name(int d)
{
	return pma_detail_name((enum pma_detail)d);
}

static int take_sample(struct line *l, struct pma_sample *s)
{
	return take_values(l, PMA_N_COUNTERS, counter_name, s->v, s->bits);
}

static int take_port(struct line *l, struct counters_port *p)
{
	uint64_t v, answered, ext;
	const char *t;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (number(l, "the GUID", 16, UINT64_MAX, &p->guid) < 0 ||
	    number(l, "the port", 10, 254, &v) < 0)
		return -EPROTO;
	p->port = (unsigned)v;
	if (number(l, "the LID", 10, 0xffff, &v) < 0)
		return -EPROTO;
	p->lid = (uint16_t)v;
	if (token(l, "the node type", &t, &n) < 0)
		return -EPROTO;
	if (n != 1 || (t[0] != 'S' && t[0] != 'C'))
		return bad(l, "the node type is neither S nor C");
	p->is_switch = t[0] == 'S';
	if (number(l, "the tries", 10, 1000, &v) < 0 ||
	    text(l, "the node description", p->node, sizeof(p->node)) < 0 ||
	    number(l, "answered", 10, 2, &answered) < 0)
		return -EPROTO;
	p->tries = (unsigned)v;
	p->answered = answered != 0;
	p->same = answered == 2;
	if (!p->answered)
		return text(l, "the reason", p->reason, sizeof(p->reason)) < 0 ? -EPROTO : 0;
	if (number(l, "the extended counters' state", 10, COUNTERS_EXT_UNREADABLE, &ext) < 0 ||
	    number(l, "the cleared set", 16, (1u << PMA_N_COUNTERS) - 1, &v) < 0)
		return -EPROTO;
	p->ext_error = (enum counters_ext_error)ext;
	p->cleared = (uint32_t)v;
	if (number(l, "the clear-failed set", 16, (1u << PMA_N_COUNTERS) - 1, &v) < 0)
		return -EPROTO;
	p->clear_failed = (uint32_t)v;
	if (take_sample(l, &p->s) < 0)
		return -EPROTO;
	if (l->p < l->end && l->end - l->p >= 2 && !memcmp(l->p, "d ", 2)) {
		uint64_t dv[PMA_N_DETAILS] = { 0 };

		l->p += 2;
		if (take_values(l, PMA_N_DETAILS, detail_name, dv, p->ds.bits) < 0)
			return -EPROTO;
		for (int d = 0; d < PMA_N_DETAILS; d++) {
			if (p->ds.bits[d] > PMA_DETAIL_MAX_BITS)
				return bad(l, "%s is wider than %d bits", pma_detail_name(d),
					   PMA_DETAIL_MAX_BITS);
			p->ds.v[d] = (uint16_t)dv[d];
		}
	}
	return l->p < l->end ? bad(l, "more than the counters it names") : 0;
}

static int take_sum(struct line *l, struct counters_sum *m)
{
	uint64_t v;

	memset(m, 0, sizeof(*m));
	if (number(l, "the GUID", 16, UINT64_MAX, &m->guid) < 0 ||
	    number(l, "the LID", 10, 0xffff, &v) < 0)
		return -EPROTO;
	m->lid = (uint16_t)v;
	if (number(l, "the ports' mark", 16, UINT32_MAX, &v) < 0)
		return -EPROTO;
	m->ports_mark = (uint32_t)v;
	if (take_sample(l, &m->s) < 0)
		return -EPROTO;
	return l->p < l->end ? bad(l, "more than the counters it names") : 0;
}

static int take_pma(struct line *l, struct counters_pma *m)
{
	uint64_t v;

	if (number(l, "the GUID", 16, UINT64_MAX, &m->guid) < 0 ||
	    number(l, "the LID", 10, 0xffff, &v) < 0)
		return -EPROTO;
	m->lid = (uint16_t)v;
	if (number(l, "the capability mask", 16, 0xffff, &v) < 0)
		return -EPROTO;
	m->cap_mask = (uint16_t)v;
	if (number(l, "the capability mask 2", 16, (1u << 27) - 1, &v) < 0)
		return -EPROTO;
	m->cap_mask2 = (uint32_t)v;
	if (number(l, "the detail attributes refused", 16, PMA_DA_ALL, &v) < 0)
		return -EPROTO;
	m->no_details = (unsigned)v;
	return l->p < l->end ? bad(l, "more than a PMA's capabilities") : 0;
}

static int take_done(struct line *l, struct counters_done *d)
{
	if (real(l, "started", &d->started) < 0 || real(l, "finished", &d->finished) < 0 ||
	    number(l, "ports", 10, UINT32_MAX, &d->ports) < 0 ||
	    number(l, "answered", 10, UINT32_MAX, &d->answered) < 0 ||
	    number(l, "mads", 10, UINT64_MAX, &d->mads) < 0 ||
	    number(l, "in flight", 10, UINT32_MAX, &d->in_flight) < 0 ||
	    number(l, "timeout_ms", 10, UINT32_MAX, &d->timeout_ms) < 0 ||
	    number(l, "retries", 10, UINT32_MAX, &d->retries) < 0)
		return -EPROTO;
	if (l->p < l->end && number(l, "detail mads", 10, d->mads, &d->detail_mads) < 0)
		return -EPROTO;
	return l->p < l->end ? bad(l, "more than a read's figures") : 0;
}

/* The lines of buf into *a; known: nothing but pma and sum lines, no
 * done. */
static int read_lines(const char *buf, size_t len, struct counters_answer *a, int known,
		      char *err, size_t errlen)
{
	struct line l = { .err = err, .errlen = errlen };
	size_t at = 0, lines = 0, cap;
	int done = 0;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	cap = lines ? lines : 1;
	if (!(a->pmas = calloc(cap, sizeof(*a->pmas))) ||
	    !(a->sums = calloc(cap, sizeof(*a->sums))) ||
	    (!known && !(a->ports = calloc(cap, sizeof(*a->ports))))) {
		snprintf(err, errlen, "out of memory for %zu lines of counters", cap);
		return -ENOMEM;
	}
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		const char *t;
		size_t n;

		l.no++;
		if (!nl)
			return bad(&l, "cut short (no end of line)");
		if (done)
			return bad(&l, "a line after the last");
		l.p = buf + at;
		l.end = nl;
		at = (size_t)(nl - buf) + 1;
		if (token(&l, "the line's kind", &t, &n) < 0)
			return -EPROTO;
		if (n == 3 && !memcmp(t, "pma", 3)) {
			if (take_pma(&l, &a->pmas[a->n_pmas]) < 0)
				return -EPROTO;
			a->n_pmas++;
		} else if (n == 3 && !memcmp(t, "sum", 3)) {
			if (take_sum(&l, &a->sums[a->n_sums]) < 0)
				return -EPROTO;
			a->n_sums++;
		} else if (known && n == 7 && !memcmp(t, "details", 7)) {
			uint64_t v;

			if (number(&l, "the detail attributes", 16, PMA_DA_ALL, &v) < 0)
				return -EPROTO;
			if (l.p < l.end)
				return bad(&l, "more than the detail attributes");
			a->details = (unsigned)v;
		} else if (known) {
			return bad(&l, "\"%.*s\" is neither a pma, a sum nor a details line",
				   (int)(n > 20 ? 20 : n), t);
		} else if (n == 4 && !memcmp(t, "port", 4)) {
			if (take_port(&l, &a->ports[a->n_ports]) < 0)
				return -EPROTO;
			a->n_ports++;
		} else if (n == 4 && !memcmp(t, "done", 4)) {
			if (take_done(&l, &a->done) < 0)
				return -EPROTO;
			done = 1;
		} else {
			return bad(&l, "\"%.*s\" is neither port, pma, sum nor done",
				   (int)(n > 20 ? 20 : n), t);
		}
	}
	if (known)
		return 0;
	if (!done) {
		snprintf(err, errlen, "the counters reader's answer was cut short (%zu bytes, %zu "
			 "ports, no last line)", len, a->n_ports);
		return -EPROTO;
	}
	if (a->done.ports != a->n_ports) {
		snprintf(err, errlen, "the counters reader's answer has %zu ports, its last line "
			 "says %" PRIu64, a->n_ports, a->done.ports);
		return -EPROTO;
	}
	return 0;
}

int counters_wire_read(const char *buf, size_t len, struct counters_answer *a, char *err,
		       size_t errlen)
{
	return read_lines(buf, len, a, 0, err, errlen);
}

int counters_wire_read_known(const char *buf, size_t len, struct counters_answer *a,
			     char *err, size_t errlen)
{
	return read_lines(buf, len, a, 1, err, errlen);
}

void counters_answer_free(struct counters_answer *a)
{
	if (!a)
		return;
	free(a->ports);
	free(a->pmas);
	free(a->sums);
	a->ports = NULL;
	a->pmas = NULL;
	a->sums = NULL;
	a->n_ports = a->n_pmas = a->n_sums = 0;
}
