/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_objects.c: the objects a plan would touch, for
 * `loomctl qos plan` (the qos_objects op): each CONFIG_DB key the dry run
 * finds to differ, once, in plan order; whether the apply creates it (the
 * key does not exist), changes it, or deletes it (sn_plan_del); and who
 * else uses it:
 *   - "switch-wide" for a key every port's settings share (CABLE_LENGTH|*,
 *     one field per port; PFC_WD|GLOBAL) and for a map PORT_QOS_MAP|global
 *     names (orchagent applies that one switch-wide);
 *   - the ports loom does not manage whose PORT_QOS_MAP or QUEUE entries
 *     refer to the object (their maps, port scheduler, queue schedulers and
 *     WRED profiles), in the switch's natural order;
 *   - "" when only the managed ports use it.
 * Read-only: SCAN of PORT_QOS_MAP|* and QUEUE|*, then HGETALL of the
 * unmanaged ports' entries. */
#include "sonic.h"
#include "../lp_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHOWN 8               /* ports named per object, then "... N in all" */

struct obj {
	char key[SN_KEY_LEN];
	enum lp_object_action action;
	char users[LP_NAME_LEN * MAX_SHOWN + 32];
	size_t n_users;
};

struct objs {
	struct obj *v;
	size_t n, cap;
	const struct sn_plan *plan;
};

/* Each differing key once (the dry run reports field by field, key by key). */
static int collect(void *ctx, const struct lp_change *c)
{
	struct objs *os = ctx;

	if (os->n && !strcmp(os->v[os->n - 1].key, c->key))
		return 0;
	if (lp_grow(&os->v, &os->cap, os->n, sizeof(*os->v), 32))
		return -ENOMEM;
	memset(&os->v[os->n], 0, sizeof(os->v[0]));
	lp_copy_str(os->v[os->n].key, sizeof(os->v[0].key), c->key);
	os->v[os->n++].action = LP_OBJECT_CHANGE;
	return 0;
}

static struct obj *find(struct objs *os, const char *key)
{
	for (size_t i = 0; i < os->n; i++)
		if (!strcmp(os->v[i].key, key))
			return &os->v[i];
	return NULL;
}

static void add_user(struct obj *o, const char *who)
{
	size_t len = strlen(o->users);

	if (!strcmp(o->users, "switch-wide"))
		return;
	if (!strcmp(who, "switch-wide")) {
		lp_copy_str(o->users, sizeof(o->users), who);
		return;
	}
	/* the same port may refer to it from several queues */
	for (const char *p = o->users; (p = strstr(p, who)); p += strlen(who))
		if ((p == o->users || p[-1] == ',') && (p[strlen(who)] == ',' || !p[strlen(who)]))
			return;
	if (++o->n_users <= MAX_SHOWN)
		snprintf(o->users + len, sizeof(o->users) - len, "%s%s", len ? "," : "", who);
}

static int managed(const struct lp_qos *want, const char *port, size_t len)
{
	for (size_t i = 0; i < want->n_ports; i++)
		if (strlen(want->ports[i].port) == len && !memcmp(want->ports[i].port, port, len))
			return 1;
	return 0;
}

/* The keys of the unmanaged ports' PORT_QOS_MAP and QUEUE entries
 * (and PORT_QOS_MAP|global). */
struct refs_scan {
	const struct lp_qos *want;
	char (*key)[SN_KEY_LEN];
	size_t n, cap;
};

static int refs_add(void *ctx, const char *key)
{
	struct refs_scan *s = ctx;
	const char *port = strchr(key, '|') + 1, *end = strchr(port, '|');
	size_t len = end ? (size_t)(end - port) : strlen(port);

	if (managed(s->want, port, len) || strlen(key) >= SN_KEY_LEN)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], key))
			return 0;
	if (lp_grow(&s->key, &s->cap, s->n, sizeof(*s->key), 256))
		return -ENOMEM;
	memcpy(s->key[s->n++], key, strlen(key) + 1);
	return 0;
}

/* The fields of PORT_QOS_MAP and QUEUE that name another object. */
static const struct {
	const char *field, *table;
} ref_fields[] = {
	{ "dscp_to_tc_map", "DSCP_TO_TC_MAP" },
	{ "tc_to_queue_map", "TC_TO_QUEUE_MAP" },
	{ "tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP" },
	{ "pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE" },
	{ "pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" },
	{ "dot1p_to_tc_map", "DOT1P_TO_TC_MAP" },
	{ "scheduler", "SCHEDULER" },
	{ "wred_profile", "WRED_PROFILE" },
};

static int mark_users(struct sn_conn *c, struct objs *os, const struct lp_qos *want, char *err,
		      size_t errlen)
{
	struct refs_scan s = { want, NULL, 0, 0 };
	redisReply **r = NULL;
	int rc;

	if ((rc = sn_scan(c, "PORT_QOS_MAP|*", refs_add, &s, err, errlen)) ||
	    (rc = sn_scan(c, "QUEUE|*", refs_add, &s, err, errlen)))
		goto out;
	if (!s.n)
		goto out;
	if (!(r = calloc(s.n, sizeof(*r)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = sn_hgetall(c, NULL, 0, s.key[0], SN_KEY_LEN, s.n, r, err, errlen)))
		goto out;
	for (size_t i = 0; i < s.n; i++) {
		const char *port = strchr(s.key[i], '|') + 1, *end = strchr(port, '|');
		char who[LP_NAME_LEN];

		snprintf(who, sizeof(who), "%.*s", (int)(end ? end - port : (long)strlen(port)),
			 port);
		if (!strcmp(who, "global"))
			snprintf(who, sizeof(who), "switch-wide");
		for (size_t f = 0; f < sizeof(ref_fields) / sizeof(ref_fields[0]); f++) {
			char name[SN_STR_LEN], target[SN_KEY_LEN];
			const char *v = sn_hget(r[i], ref_fields[f].field);
			struct obj *o;

			if (!v || !*v)
				continue;
			sn_ref_name(v, "", name, sizeof(name));
			snprintf(target, sizeof(target), "%s|%s", ref_fields[f].table, name);
			if ((o = find(os, target)))
				add_user(o, who);
		}
	}
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (r)
		sn_replies_clear(r, s.n);
	free(r);
	free(s.key);
	return rc;
}

/* Which of the differing keys exist now (create or change), and which the
 * plan deletes. */
static int mark_actions(struct sn_conn *c, struct objs *os, char *err, size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; i < os->n; i++)
		if ((rc = sn_append(c, err, errlen, "EXISTS", os->v[i].key, NULL)))
			return rc;
	for (size_t i = 0; i < os->n; i++) {
		redisReply *r;

		if ((rc = sn_reply(c, "EXISTS", &r, err, errlen)))
			return rc;
		if (r->type == REDIS_REPLY_INTEGER && r->integer == 0)
			os->v[i].action = LP_OBJECT_CREATE;
		freeReplyObject(r);
		for (size_t o = 0; o < os->plan->n_obj; o++)
			if (os->plan->obj[o].del && !strcmp(os->plan->obj[o].key, os->v[i].key))
				os->v[i].action = LP_OBJECT_DELETE;
	}
	return 0;
}

int sn_qos_objects(struct sn_conn *c, const struct sn_plan *plan, const struct lp_qos *want,
		   const struct lp_object_sink *out, char *err, size_t errlen)
{
	struct lp_change_sink sink;
	struct objs os = { NULL, 0, 0, plan };
	int rc;

	sink.ctx = &os;
	sink.change = collect;
	if ((rc = sn_apply_plan(c, plan, 1, &sink, err, errlen)) ||
	    (rc = mark_actions(c, &os, err, errlen)) ||
	    (rc = mark_users(c, &os, want, err, errlen)))
		goto out;
	for (size_t i = 0; i < os.n; i++) {
		struct obj *o = &os.v[i];
		struct lp_object lo = { o->key, o->action, o->users };
		size_t len = strlen(o->users);

		if (!strncmp(o->key, "CABLE_LENGTH|", 13) || !strcmp(o->key, "PFC_WD|GLOBAL"))
			lp_copy_str(o->users, sizeof(o->users), "switch-wide");
		else if (o->n_users > MAX_SHOWN)
			snprintf(o->users + len, sizeof(o->users) - len, ",... (%zu ports)",
				 o->n_users);
		if (out && out->object && (rc = out->object(out->ctx, &lo)))
			break;
	}
out:
	free(os.v);
	return rc;
}
