/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/telemetry/port_history.c: see port_history.h. A chained hash table
 * of ports, each one allocation: its key and a ring of `reads` samples. */
#include "autoconf.h"
#include "lib/telemetry/port_history.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/telemetry/pma.h"
#include "lib/util/hash.h"

#define PH_SUBNETS 32
#define PH_NAME 64

struct ph_port {
	struct ph_port *next;
	uint64_t guid;
	uint8_t subnet, port, head, n;   /* head: the next sample's slot */
	struct port_history_sample s[];
};

struct port_history {
	pthread_mutex_t lock;
	unsigned reads;
	size_t cap, bytes, n_ports, refused;
	struct ph_port **buckets;
	size_t n_buckets;                /* a power of 2, or 0 */
	char subnets[PH_SUBNETS][PH_NAME];
	size_t n_subnets;
};

static size_t hash(uint64_t guid, unsigned subnet, unsigned port)
{
	uint64_t x = guid ^ ((uint64_t)subnet << 56) ^ ((uint64_t)port << 48);

	return (size_t)hash_mix64(x);
}

static void drop_all(struct port_history *h)
{
	for (size_t i = 0; i < h->n_buckets; i++)
		for (struct ph_port *p = h->buckets[i], *next; p; p = next) {
			next = p->next;
			free(p);
		}
	free(h->buckets);
	h->buckets = NULL;
	h->n_buckets = h->n_ports = h->bytes = h->refused = 0;
	h->n_subnets = 0;
}

struct port_history *port_history_new(unsigned reads, size_t cap)
{
	struct port_history *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	pthread_mutex_init(&h->lock, NULL);
	h->reads = reads > 255 ? 255 : reads;
	h->cap = cap;
	return h;
}

void port_history_free(struct port_history *h)
{
	if (!h)
		return;
	drop_all(h);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

void port_history_set(struct port_history *h, unsigned reads, size_t cap)
{
	if (reads > 255)
		reads = 255;
	pthread_mutex_lock(&h->lock);
	if (reads != h->reads || cap != h->cap) {
		drop_all(h);
		h->reads = reads;
		h->cap = cap;
	}
	pthread_mutex_unlock(&h->lock);
}

/* The subnet's index (added when add): -1 when unknown or no room. */
static int subnet_of(struct port_history *h, const char *name, int add)
{
	for (size_t i = 0; i < h->n_subnets; i++)
		if (!strcmp(h->subnets[i], name))
			return (int)i;
	if (!add || h->n_subnets == PH_SUBNETS || strlen(name) >= PH_NAME)
		return -1;
	snprintf(h->subnets[h->n_subnets], PH_NAME, "%s", name);
	return (int)h->n_subnets++;
}

static struct ph_port *find(const struct port_history *h, int subnet, uint64_t guid,
			    unsigned port)
{
	if (!h->n_buckets)
		return NULL;
	for (struct ph_port *p = h->buckets[hash(guid, (unsigned)subnet, port) &
					    (h->n_buckets - 1)]; p; p = p->next)
		if (p->guid == guid && p->subnet == subnet && p->port == port)
			return p;
	return NULL;
}

/* Twice the buckets when the ports outnumber them (their bytes count). */
static int grow(struct port_history *h)
{
	size_t n = h->n_buckets ? 2 * h->n_buckets : 1024;
	struct ph_port **b;

	if (h->n_ports < h->n_buckets)
		return 0;
	if (h->bytes + (n - h->n_buckets) * sizeof(*b) > h->cap)
		return -ENOSPC;
	if (!(b = calloc(n, sizeof(*b))))
		return -ENOMEM;
	for (size_t i = 0; i < h->n_buckets; i++)
		for (struct ph_port *p = h->buckets[i], *next; p; p = next) {
			size_t k = hash(p->guid, p->subnet, p->port) & (n - 1);

			next = p->next;
			p->next = b[k];
			b[k] = p;
		}
	h->bytes += (n - h->n_buckets) * sizeof(*b);
	free(h->buckets);
	h->buckets = b;
	h->n_buckets = n;
	return 0;
}

static uint16_t clamp16(uint64_t v)
{
	return v > 65535 ? 65535 : (uint16_t)v;
}

static void sample_of(const struct counter_row *row, double t, double dt,
		      struct port_history_sample *s)
{
	double r;
	int k = 0;

	memset(s, 0, sizeof(*s));
	s->t = t > 0 ? (uint32_t)t : 0;
	s->rx = counter_row_rate(row, PMA_RCV_DATA, dt, &r) == 0 ? (float)(r * 4) : -1;
	s->tx = counter_row_rate(row, PMA_XMIT_DATA, dt, &r) == 0 ? (float)(r * 4) : -1;
	s->wait = counter_row_rate(row, PMA_XMIT_WAIT, dt, &r) == 0 ? (float)r : -1;
	s->err_id[0] = s->err_id[1] = 0xff;
	if (dt <= 0)
		return;   /* a first read: no deltas */
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		uint64_t d = row->d[c].delta;

		if (!row->s.bits[c] || !pma_counter_is_error((enum pma_counter)c) || !d)
			continue;
		if (k < 2) {
			s->err_id[k] = (uint8_t)c;
			s->err_n[k++] = clamp16(d);
		} else {
			s->err_other = clamp16((uint64_t)s->err_other + d);
		}
	}
}

int port_history_add(struct port_history *h, const char *subnet, uint64_t guid,
		     unsigned port, double t, const struct counter_row *row, double interval_s)
{
	struct ph_port *p;
	size_t size;
	int sid, rc = 0;

	pthread_mutex_lock(&h->lock);
	size = PORT_HISTORY_PORT_BYTES(h->reads);   /* under the lock: a reload sets it */
	if (!h->reads || port > 255 || (sid = subnet_of(h, subnet, 1)) < 0) {
		pthread_mutex_unlock(&h->lock);
		return 0;
	}
	if (!(p = find(h, sid, guid, port))) {
		if (h->bytes + size > h->cap || (rc = grow(h)) < 0) {
			h->refused++;
			pthread_mutex_unlock(&h->lock);
			return rc < 0 ? rc : -ENOSPC;
		}
		if (!(p = calloc(1, sizeof(*p) + h->reads * sizeof(p->s[0])))) {
			pthread_mutex_unlock(&h->lock);
			return -ENOMEM;
		}
		p->guid = guid;
		p->subnet = (uint8_t)sid;
		p->port = (uint8_t)port;
		p->next = h->buckets[hash(guid, (unsigned)sid, port) & (h->n_buckets - 1)];
		h->buckets[hash(guid, (unsigned)sid, port) & (h->n_buckets - 1)] = p;
		h->n_ports++;
		h->bytes += size;
	}
	sample_of(row, t, interval_s, &p->s[p->head]);
	p->head = (uint8_t)((p->head + 1) % h->reads);
	if (p->n < h->reads)
		p->n++;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static json_t *rate(float v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *sample_json(const struct port_history_sample *s)
{
	json_t *errors = json_object();
	char when[32];
	time_t t = (time_t)s->t;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (int k = 0; k < 2; k++)
		if (s->err_id[k] != 0xff)
			json_object_set_new(errors, pma_counter_name((enum pma_counter)s->err_id[k]),
					    json_integer(s->err_n[k]));
	if (s->err_other)
		json_object_set_new(errors, "other", json_integer(s->err_other));
	return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o}", "time", when, "ts",
			 (json_int_t)s->t, "rx_bytes_s", rate(s->rx), "tx_bytes_s", rate(s->tx),
			 "xmit_wait_per_s", rate(s->wait), "errors", errors);
}

json_t *port_history_json(struct port_history *h, const char *subnet, uint64_t guid,
			  unsigned port, double since)
{
	json_t *out = json_array();
	struct ph_port *p;
	int sid;

	if (!out)
		return NULL;
	pthread_mutex_lock(&h->lock);
	if ((sid = subnet_of(h, subnet, 0)) >= 0 && (p = find(h, sid, guid, port))) {
		unsigned first = (p->head + h->reads - p->n) % h->reads;

		for (unsigned i = 0; i < p->n; i++) {
			const struct port_history_sample *s = &p->s[(first + i) % h->reads];

			if ((double)s->t >= since)
				json_array_append_new(out, sample_json(s));
		}
	}
	pthread_mutex_unlock(&h->lock);
	return out;
}

json_t *port_history_stats(struct port_history *h)
{
	json_t *o;

	pthread_mutex_lock(&h->lock);
	o = json_pack("{s:i, s:I, s:I, s:I, s:I}", "reads", (int)h->reads, "cap_bytes",
		      (json_int_t)h->cap, "bytes", (json_int_t)h->bytes, "ports",
		      (json_int_t)h->n_ports, "refused", (json_int_t)h->refused);
	pthread_mutex_unlock(&h->lock);
	return o;
}
