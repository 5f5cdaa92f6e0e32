/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/qos/qos_intent.c: the RoCE policy record replicated in etcd (see
 * qos_intent.h). */
#include "autoconf.h"
#include "daemon/qos/qos_intent.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/work.h"
#include "lib/qos/qos_policy.h"

static const char *const pfcwd_actions[] = { "drop", "forward", "alert" };

static json_t *u8_array(const uint8_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

json_t *qos_intent_policy(const struct qos_policy *p)
{
	json_t *dscp = json_object();
	char key[4];

	for (unsigned d = 0; dscp && d < 64; d++) {
		if (p->dscp_to_tc[d] == QOS_DSCP_UNSET)
			continue;
		snprintf(key, sizeof(key), "%u", d);
		json_object_set_new(dscp, key, json_integer(p->dscp_to_tc[d]));
	}
	return json_pack("{s:i, s:o, s:i, s:i, s:i, s:I, s:I, s:i, s:o, s:i, s:b, s:s, s:I, s:I, "
			 "s:I, s:I, s:I}",
			 "lossless_mask", p->lossless_mask, "dscp_to_tc", dscp ? dscp : json_null(),
			 "default_tc", p->default_tc, "cnp_dscp", p->cnp_dscp,
			 "cnp_priority", p->cnp_priority, "ecn_min_bytes",
			 (json_int_t)p->ecn_min_bytes, "ecn_max_bytes", (json_int_t)p->ecn_max_bytes,
			 "ecn_mark_percent", p->ecn_mark_percent, "ets_weight",
			 u8_array(p->ets_weight, LP_TCS), "strict_mask", p->strict_mask,
			 "pfcwd_enabled", p->pfcwd_enabled,
			 "pfcwd_action", (unsigned)p->pfcwd_action <= LP_PFCWD_ALERT ?
			 pfcwd_actions[p->pfcwd_action] : "?",
			 "pfcwd_detection_ms", (json_int_t)p->pfcwd_detection_ms,
			 "pfcwd_restoration_ms", (json_int_t)p->pfcwd_restoration_ms,
			 "mtu", (json_int_t)p->mtu, "cable_m", (json_int_t)p->cable_m,
			 "pause_threshold_bytes", (json_int_t)p->pause_threshold_bytes);
}

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void qos_intent_version(const json_t *switches, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *name;
	json_t *sw;

	/* Keys in order (JSON_SORT_KEYS), each switch's name then its policy. */
	json_t *sorted = json_object();

	json_object_foreach((json_t *)switches, name, sw)
		json_object_set(sorted, name, json_object_get(sw, "policy"));
	char *text = json_dumps(sorted, JSON_SORT_KEYS | JSON_COMPACT);

	h = fnv(h, text ? text : "");
	free(text);
	json_decref(sorted);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void qos_intent_hash(const char *text, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)fnv(0xcbf29ce484222325ULL, text));
}

struct put_job {
	intent_put_fn fn;
	void *fnarg;
	char key[64];
	char *text;
	void (*then)(void *ctx, int rc, const char *err);
	void *ctx;
};

static int put_run(void *arg, char *err, size_t errlen)
{
	struct put_job *j = arg;

	return j->fn(j->fnarg, j->key, j->text, err, errlen);
}

static void put_done(void *arg, int rc, const char *err)
{
	struct put_job *j = arg;

	j->then(j->ctx, rc, err);
}

static void put_free(void *arg)
{
	struct put_job *j = arg;

	free(j->text);
	free(j);
}

static const struct work_ops put_ops = { .run = put_run, .done = put_done, .free = put_free };

int qos_intent_put_async(struct work_queue *q, intent_put_fn fn, void *fnarg, const char *key,
			 json_t *record, void (*then)(void *ctx, int rc, const char *err),
			 void *ctx)
{
	struct put_job *j = calloc(1, sizeof(*j));
	int rc;

	if (!j || !record || !(j->text = json_dumps(record, JSON_SORT_KEYS | JSON_COMPACT))) {
		json_decref(record);
		free(j);
		return -ENOMEM;
	}
	json_decref(record);
	j->fn = fn;
	j->fnarg = fnarg;
	snprintf(j->key, sizeof(j->key), "%s", key);
	j->then = then;
	j->ctx = ctx;
	if ((rc = work_submit(q, &put_ops, j)) < 0)
		put_free(j);
	return rc;
}
