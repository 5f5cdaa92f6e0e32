/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_apply.c: make CONFIG_DB hold a plan (see sonic.h),
 * changing only what differs and telling loomd each change.
 *
 * 1. Read: HGETALL of every planned key, pipelined (a chunk at a time), so
 *    the diff costs a few round trips even for 512 ports.
 * 2. Diff: a managed field differs when its wanted value is set and the
 *    switch has none or another one, or when it is wanted absent ("") and
 *    the switch has one. Fields loom does not manage are never looked at,
 *    except in a key planned away whole (sn_plan_del): each of its fields
 *    is a change to nothing, and the key is deleted (DEL) in one step.
 * 3. Write, key by key in plan order: all of one key's differing fields in
 *    one step (HSET key f v f v ...; HDEL key f ... for the removed ones;
 *    both in MULTI/EXEC), because orchagent reacts to a key by reading the
 *    whole hash and must not see half of it (a WRED profile without its
 *    thresholds). Only once Redis accepted it are its fields reported
 *    done = 1, so each key is reported before the next one is written.
 *    A dry run writes nothing and reports every change done = 0.
 * 4. On an error (Redis went away, READONLY, ...): stop, keep Redis's text
 *    in err, and report the failed key's changes and every later planned
 *    change with done = 0, so loomd can show what landed and what did not.
 *    The changes are those found in step 1: nothing is read again. */
#include "sonic.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_CHUNK 512

void sn_plan_init(struct sn_plan *p)
{
	memset(p, 0, sizeof(*p));
}

void sn_plan_free(struct sn_plan *p)
{
	free(p->obj);
	free(p->fv);
	sn_plan_init(p);
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *a;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (!(a = realloc(*arr, n * size)))
		return -ENOMEM;
	*arr = a;
	*cap = n;
	return 0;
}

static void plan_vkey(struct sn_plan *p, int del, const char *fmt, va_list ap)
{
	struct sn_obj *o;
	int n;

	if (p->failed)
		return;
	if (grow((void **)&p->obj, &p->cap_obj, p->n_obj + 1, sizeof(*p->obj))) {
		p->failed = -ENOMEM;
		return;
	}
	o = &p->obj[p->n_obj];
	n = vsnprintf(o->key, sizeof(o->key), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(o->key)) {
		p->failed = -ENAMETOOLONG;
		return;
	}
	o->first = p->n_fv;
	o->n = 0;
	o->del = del;
	p->n_obj++;
}

void sn_plan_key(struct sn_plan *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan_vkey(p, 0, fmt, ap);
	va_end(ap);
}

void sn_plan_del(struct sn_plan *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan_vkey(p, 1, fmt, ap);
	va_end(ap);
}

static void plan_vset(struct sn_plan *p, int if_absent, const char *field, const char *fmt,
		      va_list ap)
{
	struct sn_fv *f;
	int n;

	if (p->failed || !p->n_obj || p->obj[p->n_obj - 1].del)
		return;
	if (grow((void **)&p->fv, &p->cap_fv, p->n_fv + 1, sizeof(*p->fv))) {
		p->failed = -ENOMEM;
		return;
	}
	f = &p->fv[p->n_fv];
	n = vsnprintf(f->value, sizeof(f->value), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(f->value) || strlen(field) >= sizeof(f->field)) {
		p->failed = -ENAMETOOLONG;
		return;
	}
	strcpy(f->field, field);
	f->if_absent = if_absent;
	p->n_fv++;
	p->obj[p->n_obj - 1].n++;
}

void sn_plan_set(struct sn_plan *p, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan_vset(p, 0, field, fmt, ap);
	va_end(ap);
}

void sn_plan_set_if_absent(struct sn_plan *p, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan_vset(p, 1, field, fmt, ap);
	va_end(ap);
}

/* One field that differs. */
struct change {
	size_t obj;
	const char *field;         /* in the plan, or in the reply (a deleted key) */
	const char *before;        /* in the HGETALL reply; "" none */
	const char *after;         /* in the plan; "" removed */
};

/* HGETALL every key of plan into cur[] (replies, freed by the caller). */
static int read_current(struct sn_conn *c, const struct sn_plan *plan, redisReply **cur,
			char *err, size_t errlen)
{
	char what[SN_KEY_LEN + 16];
	int rc;

	for (size_t i = 0; i < plan->n_obj; i += READ_CHUNK) {
		size_t end = i + READ_CHUNK < plan->n_obj ? i + READ_CHUNK : plan->n_obj;

		for (size_t j = i; j < end; j++)
			if ((rc = sn_append(c, err, errlen, "HGETALL", plan->obj[j].key, NULL)))
				return rc;
		for (size_t j = i; j < end; j++) {
			snprintf(what, sizeof(what), "HGETALL %s", plan->obj[j].key);
			if ((rc = sn_reply(c, what, &cur[j], err, errlen)))
				return rc;
			if (cur[j]->type != REDIS_REPLY_ARRAY) {
				snprintf(err, errlen, "%s: not a hash", what);
				sn_drop(c);
				return -EPROTO;
			}
		}
	}
	return 0;
}

/* Write the changes ch[0..n) (all of one key) in one step. */
static int write_key(struct sn_conn *c, const struct sn_plan *plan, const struct change *ch,
		     size_t n, char *err, size_t errlen)
{
	const struct sn_obj *o = &plan->obj[ch[0].obj];
	const char **set, **del;
	int n_set = 2, n_del = 2, rc = 0;
	char what[SN_KEY_LEN + 16];
	redisReply *r;

	if (o->del) {
		const char *argv[] = { "DEL", o->key };

		return sn_cmdv(c, 2, argv, NULL, err, errlen);
	}
	set = malloc((2 * n + 2) * sizeof(*set));
	del = malloc((n + 2) * sizeof(*del));
	if (!set || !del) {
		free(set);
		free(del);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	set[0] = "HSET";
	del[0] = "HDEL";
	set[1] = del[1] = o->key;
	for (size_t i = 0; i < n; i++) {
		if (ch[i].after[0]) {
			set[n_set++] = ch[i].field;
			set[n_set++] = ch[i].after;
		} else {
			del[n_del++] = ch[i].field;
		}
	}
	if (n_del == 2) {
		rc = sn_cmdv(c, n_set, set, NULL, err, errlen);
	} else if (n_set == 2) {
		rc = sn_cmdv(c, n_del, del, NULL, err, errlen);
	} else {
		/* MULTI, HSET, HDEL, EXEC: +OK, +QUEUED, +QUEUED, [reply, reply] */
		snprintf(what, sizeof(what), "HSET %s", o->key);
		if (!(rc = sn_append(c, err, errlen, "MULTI", NULL)) &&
		    !(rc = sn_appendv(c, n_set, set, err, errlen)) &&
		    !(rc = sn_appendv(c, n_del, del, err, errlen)))
			rc = sn_append(c, err, errlen, "EXEC", NULL);
		for (int i = 0; !rc && i < 4; i++) {
			if ((rc = sn_reply(c, i == 2 ? "HDEL" : what, &r, err, errlen)))
				break;
			if (i == 3) {
				if (r->type != REDIS_REPLY_ARRAY) {
					snprintf(err, errlen, "%s: transaction aborted", what);
					rc = -EIO;
				}
				for (size_t e = 0; !rc && r->type == REDIS_REPLY_ARRAY &&
				     e < r->elements; e++)
					rc = sn_check_reply(r->element[e], what, err, errlen);
			}
			freeReplyObject(r);
		}
	}
	free(set);
	free(del);
	return rc;
}

static int report(const struct lp_change_sink *sink, const struct sn_plan *plan,
		  const struct change *ch, int done)
{
	struct lp_change lc = {
		.key = plan->obj[ch->obj].key,
		.field = ch->field,
		.before = ch->before,
		.after = ch->after,
		.done = done,
	};

	return sink && sink->change ? sink->change(sink->ctx, &lc) : 0;
}

int sn_apply_plan(struct sn_conn *c, const struct sn_plan *plan, int dry_run,
		  const struct lp_change_sink *sink, char *err, size_t errlen)
{
	redisReply **cur = calloc(plan->n_obj ? plan->n_obj : 1, sizeof(*cur));
	struct change *ch = NULL;
	size_t n_ch = 0, cap = plan->n_fv, k = 0;
	int rc;

	if (!cur) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = sn_select(c, SN_CONFIG_DB, err, errlen)) ||
	    (rc = read_current(c, plan, cur, err, errlen)))
		goto out;
	for (size_t o = 0; o < plan->n_obj; o++)  /* a deleted key's fields are changes too */
		if (plan->obj[o].del)
			cap += cur[o]->elements / 2;
	if (!(ch = malloc((cap ? cap : 1) * sizeof(*ch)))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t o = 0; o < plan->n_obj; o++) {
		if (plan->obj[o].del) {
			for (size_t e = 0; e + 1 < cur[o]->elements; e += 2)
				ch[n_ch++] = (struct change){ o, cur[o]->element[e]->str,
							      cur[o]->element[e + 1]->str, "" };
			continue;
		}
		for (size_t i = plan->obj[o].first; i < plan->obj[o].first + plan->obj[o].n; i++) {
			const char *before = sn_hget(cur[o], plan->fv[i].field);
			const char *want = plan->fv[i].value;

			if (plan->fv[i].if_absent && before)
				continue;  /* shared with ports loom does not manage */
			if (want[0] ? !before || strcmp(before, want) : before != NULL)
				ch[n_ch++] = (struct change){ o, plan->fv[i].field,
							      before ? before : "", want };
		}
	}
	while (k < n_ch) {
		size_t end = k;
		int stop;

		while (end < n_ch && ch[end].obj == ch[k].obj)
			end++;
		if (!dry_run && (rc = write_key(c, plan, ch + k, end - k, err, errlen)))
			break;
		for (; k < end; k++)
			if ((stop = report(sink, plan, &ch[k], !dry_run))) {
				rc = stop;
				goto out;
			}
	}
	/* After a failed write: what did not land. */
	for (; rc && k < n_ch; k++)
		if (report(sink, plan, &ch[k], 0))
			break;
out:
	for (size_t o = 0; cur && o < plan->n_obj; o++)
		if (cur[o])
			freeReplyObject(cur[o]);
	free(cur);
	free(ch);
	return rc;
}
