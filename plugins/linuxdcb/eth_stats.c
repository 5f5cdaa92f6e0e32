/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/linuxdcb/eth_stats.c: see eth_stats.h. */
#include "eth_stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LDS_MAX 64

struct lds_out {
	struct lp_counter c[LDS_MAX];
	size_t n;
};

/* Set (or replace) a counter. */
static void set(struct lds_out *o, const char *dev, const char *name,
		enum lp_counter_scope scope, unsigned index, uint64_t v)
{
	struct lp_counter *c = NULL;

	for (size_t i = 0; i < o->n && !c; i++)
		if (o->c[i].name == name && o->c[i].index == index && o->c[i].scope == scope)
			c = &o->c[i];
	if (!c) {
		if (o->n == LDS_MAX)
			return;
		c = &o->c[o->n++];
	}
	memset(c, 0, sizeof(*c));
	c->port = dev;
	c->name = name;
	c->scope = scope;
	c->index = (uint8_t)index;
	c->bits = 64;
	c->value = v;
}

static const struct {
	const char *prefix, *suffix, *name;
	enum lp_counter_scope scope;
} per_prio[] = {
	{ "rx_prio", "_pause", "pfc_rx_pause", LP_COUNTER_PRIORITY },
	{ "tx_prio", "_pause", "pfc_tx_pause", LP_COUNTER_PRIORITY },
	{ "rx_prio", "_pause_duration", "pfc_rx_pause_duration_us", LP_COUNTER_PRIORITY },
	{ "tx_prio", "_pause_duration", "pfc_tx_pause_duration_us", LP_COUNTER_PRIORITY },
	{ "rx_prio", "_marked", "ecn_marked", LP_COUNTER_QUEUE },
};

static const struct {
	const char *stat, *name;
} per_port[] = {
	{ "tx_pause_storm_warning_events", "pause_storm_warning" },
	{ "tx_pause_storm_error_events", "pause_storm_error" },
	{ "rx_bytes_phy", "in_octets" },
	{ "tx_bytes_phy", "out_octets" },
	{ "rx_discards_phy", "in_discards" },
	{ "tx_discards_phy", "out_discards" },
	{ "tx_errors_phy", "out_errors" },
};

/* One driver name (trailing blanks cut) mapped into o. */
static void map_one(struct lds_out *o, const char *dev, const char *s, uint64_t v)
{
	for (size_t k = 0; k < sizeof(per_port) / sizeof(per_port[0]); k++)
		if (!strcmp(s, per_port[k].stat)) {
			set(o, dev, per_port[k].name, LP_COUNTER_PORT, 0, v);
			return;
		}
	for (size_t k = 0; k < sizeof(per_prio) / sizeof(per_prio[0]); k++) {
		size_t pl = strlen(per_prio[k].prefix);

		if (!strncmp(s, per_prio[k].prefix, pl) && s[pl] >= '0' && s[pl] <= '7' &&
		    !strcmp(s + pl + 1, per_prio[k].suffix)) {
			set(o, dev, per_prio[k].name, per_prio[k].scope, (unsigned)(s[pl] - '0'), v);
			return;
		}
	}
}

int lds_report(const char *dev, const struct lds_kernel *k, const char (*names)[LDS_NAME_LEN],
	       const uint64_t *vals, size_t n, const struct lp_counter_sink *out)
{
	struct lds_out *o = calloc(1, sizeof(*o));
	int rc = 0;

	if (!o)
		return -ENOMEM;
	if (k) {
		set(o, dev, "in_octets", LP_COUNTER_PORT, 0, k->rx_bytes);
		set(o, dev, "out_octets", LP_COUNTER_PORT, 0, k->tx_bytes);
		set(o, dev, "in_errors", LP_COUNTER_PORT, 0, k->rx_errors);
		set(o, dev, "out_errors", LP_COUNTER_PORT, 0, k->tx_errors);
		set(o, dev, "in_discards", LP_COUNTER_PORT, 0, k->rx_dropped);
		set(o, dev, "out_discards", LP_COUNTER_PORT, 0, k->tx_dropped);
	}
	for (size_t i = 0; i < n; i++) {
		char s[LDS_NAME_LEN + 1];
		size_t len = strnlen(names[i], LDS_NAME_LEN);

		memcpy(s, names[i], len);
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		s[len] = '\0';
		map_one(o, dev, s, vals[i]);
	}
	for (size_t i = 0; i < o->n && !rc; i++)
		rc = out->counter(out->ctx, &o->c[i]);
	free(o);
	return rc;
}

/* A decimal u64 at *p (blanks before it skipped), *p moved past it. */
static int number(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int digits = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		unsigned d = (unsigned)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (!digits || (*s && *s != ' ' && *s != '\t' && *s != '\n'))
		return -1;
	*p = s;
	*v = x;
	return 0;
}

int lds_proc_net_dev(const char *text, const char *dev, struct lds_kernel *k, char *err,
		     size_t errlen)
{
	size_t dl = strlen(dev);
	const char *line = text;

	memset(k, 0, sizeof(*k));
	while (line && *line) {
		const char *s = line, *nl = strchr(line, '\n');

		line = nl ? nl + 1 : NULL;
		while (*s == ' ')
			s++;
		if (strncmp(s, dev, dl) || s[dl] != ':')
			continue;
		s += dl + 1;
		{
			uint64_t v[16];

			for (int i = 0; i < 16; i++)
				if (number(&s, &v[i])) {
					snprintf(err, errlen, "/proc/net/dev: %s: field %d is not a "
						 "number", dev, i + 1);
					return -EPROTO;
				}
			/* receive: bytes packets errs drop fifo frame compressed multicast;
			 * transmit: bytes packets errs drop fifo colls carrier compressed */
			k->rx_bytes = v[0];
			k->rx_errors = v[2];
			k->rx_dropped = v[3];
			k->tx_bytes = v[8];
			k->tx_errors = v[10];
			k->tx_dropped = v[11];
		}
		return 0;
	}
	snprintf(err, errlen, "/proc/net/dev has no %s", dev);
	return -ENOENT;
}
