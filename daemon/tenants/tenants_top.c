/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_top.c: a change of the tenant module (a `struct top`)
 * and the queue as the parts above it see it: a change made and freed, who
 * asked for it, what the queued changes may give back (the pools and the
 * port check keep it), whether a verify is queued, and the tenants' events.
 * The queue itself runs in tenants.c. */
#include "autoconf.h"
#include "daemon/tenants/tenants_impl.h"
#include "daemon/core/authz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/ctl.h"
#include "daemon/core/store.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"
#include "lib/util/proto.h"

const char *const tenants_top_names[] = { "create", "add-hosts", "remove-hosts", "delete",
					  "verify", "resume" };

void tenants_top_free(struct top *t)
{
	if (!t)
		return;
	json_decref(t->prev);
	json_decref(t->members);
	json_decref(t->rec);
	json_decref(t->undo);
	free(t->intent);
	free(t->prev_intent);
	for (size_t i = 0; i < t->n_seed; i++) {
		free(t->seed_k[i]);
		free(t->seed_v[i]);
	}
	free(t->seed_k);
	free(t->seed_v);
	free(t->file_text);
	free(t->sub);
	for (size_t i = 0; i < LOOM_MAX_SUBNETS; i++)
		fab_free(t->fabs[i]);
	tenants_eth_free(t);
	for (size_t i = 0; i < t->n_batch; i++)
		tenants_top_free(t->batch[i]);
	free(t->batch);
	free(t);
}

void tenants_req_who(const struct ctl_req *req, char *buf, size_t len)
{
	const struct authz_principal *p = req ? ctl_req_principal(req) : NULL;

	if (!p)
		snprintf(buf, len, "uid 0");  /* loomd itself, as before */
	else if (p->uid >= 0)
		snprintf(buf, len, "uid %d", p->uid);
	else
		snprintf(buf, len, "%s", p->how);
}

struct top *tenants_top_new(struct tenants_mod *m, struct ctl_req *req, enum top_kind kind,
			    const char *name)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t) {
		if (req)
			ctl_reply_err(req, PROTO_ERR_FAILED, "out of memory");
		return NULL;
	}
	t->m = m;
	t->req = req;
	t->kind = kind;
	t->uid = req ? ctl_req_uid(req) : 0;
	tenants_req_who(req, t->who, sizeof(t->who));
	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

void tenants_event(struct tenants_mod *m, const char *severity, const char *kind,
		   const char *name, const char *what)
{
	char subject[LOOM_NAME_LEN + 8];

	snprintf(subject, sizeof(subject), "tenant %s", name);
	if (store_record_event(m->store, clock_wall(), 0, severity, kind, subject, "", what) < 0)
		log_warn("tenant %s: cannot record a %s event", name, kind);
}

void tenants_inflight(const struct tenants_mod *m, uint8_t *pkeys, uint8_t *vlans,
		      json_t *ports)
{
	for (const struct top *q = m->queue; q; q = q->next) {
		unsigned k, v;
		size_t i;
		json_t *p;

		if (!q->prev)
			continue;
		k = (unsigned)json_integer_value(json_object_get(q->prev, "pkey")) & 0x7fff;
		v = (unsigned)json_integer_value(json_object_get(q->prev, "vlan")) & 0xfff;
		if (pkeys && k)
			pkeys[k / 8] |= (uint8_t)(1u << (k % 8));
		if (vlans && v)
			vlans[v / 8] |= (uint8_t)(1u << (v % 8));
		json_array_foreach(ports ? json_object_get(q->prev, "eth_ports") : NULL, i, p) {
			char key[2 * LP_NAME_LEN + 2];

			snprintf(key, sizeof(key), "%s %s",
				 json_string_value(json_object_get(p, "switch")),
				 json_string_value(json_object_get(p, "port")));
			json_object_set_new(ports, key, json_string(q->name));
		}
	}
}

int tenants_verify_queued(const struct tenants_mod *m, const char *name)
{
	for (const struct top *q = m->queue; q; q = q->next)
		if (q->kind == TOP_VERIFY && q->readonly && !strcmp(q->name, name))
			return 1;
	return 0;
}
