/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/lp_util.c: see lp_util.h. */
#include "lp_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lp_logf(const struct lp_host *host, const char *switch_name, enum lp_log_level level,
	     const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!host || !host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	host->log(level, switch_name, "%s", msg);
}

void lp_copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

int lp_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	void *p, *old;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : first;
	memcpy(&old, v, sizeof(old));
	if (!(p = realloc(old, c * size)))
		return -ENOMEM;
	memcpy(v, &p, sizeof(p));
	*cap = c;
	return 0;
}

struct dry_obj {
	char key[160];
	int existed, stays;
};

struct dry_objs {
	struct dry_obj *v;
	size_t n, cap;
};

static int dry_collect(void *ctx, const struct lp_change *c)
{
	struct dry_objs *os = ctx;
	struct dry_obj *o = NULL;

	for (size_t i = os->n; i-- > 0;)
		if (!strcmp(os->v[i].key, c->key)) {
			o = &os->v[i];
			break;
		}
	if (!o) {
		if (lp_grow(&os->v, &os->cap, os->n, sizeof(*os->v), 32))
			return -ENOMEM;
		o = &os->v[os->n++];
		memset(o, 0, sizeof(*o));
		lp_copy_str(o->key, sizeof(o->key), c->key);
	}
	o->existed |= c->before && *c->before;
	o->stays |= c->after && *c->after;
	return 0;
}

int lp_objects_by_dry_run(struct lp_switch *sw, const struct lp_qos *want, lp_apply_fn apply,
			  const char *(*shared)(const char *key), int contexts,
			  const struct lp_object_sink *out, char *err, size_t errlen)
{
	struct dry_objs os = { NULL, 0, 0 };
	struct lp_change_sink sink = { &os, dry_collect };
	int rc = apply(sw, want, 1, &sink, err, errlen);

	if (rc == -ENOMEM && !os.n)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; !rc && i < os.n; i++) {
		const struct dry_obj *d = &os.v[i];
		struct lp_object o = { d->key, LP_OBJECT_CHANGE, shared(d->key) };

		if (!contexts && !d->existed)
			o.action = LP_OBJECT_CREATE;
		else if (!contexts && !d->stays)
			o.action = LP_OBJECT_DELETE;
		if (out && out->object)
			rc = out->object(out->ctx, &o);
	}
	free(os.v);
	return rc;
}

void lp_counter_put(struct lp_port_counters *pc, const char *port, const char *name,
		    enum lp_counter_scope scope, unsigned index, unsigned bits, int gauge,
		    uint64_t value)
{
	struct lp_counter *c;

	for (size_t i = 0; i < pc->n; i++)
		if (!strcmp(pc->c[i].name, name) && pc->c[i].scope == scope &&
		    pc->c[i].index == index)
			return;
	if (pc->n == LP_PORT_COUNTERS)
		return;
	c = &pc->c[pc->n++];
	c->port = port;
	c->name = name;
	c->scope = scope;
	c->index = (uint8_t)index;
	c->bits = (uint8_t)bits;
	c->gauge = (uint8_t)(gauge != 0);
	c->value = value;
}

int lp_counters_report(const struct lp_port_counters *pc, const char *port, const char *reason,
		       const struct lp_counter_sink *out)
{
	int rc = 0;

	if (reason && *reason)
		return out->port_error ? out->port_error(out->ctx, port, reason) : 0;
	for (size_t i = 0; i < pc->n && !rc; i++)
		rc = out->counter(out->ctx, &pc->c[i]);
	return rc;
}
