/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/validate/validate_sm.c: see validate_sm.h. */
#include "autoconf.h"
#include "daemon/validate/validate_sm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/validate/keys.h"
#include "lib/validate/sm.h"

struct vsm_history {
	struct fab_sm last[FAB_SM_MAX], prev[FAB_SM_MAX];
	size_t n_last, n_prev;
	int have_last, have_prev;
};

int vsm_track(struct vsm_history **hp, const struct fab *fab)
{
	struct vsm_history *h = *hp;

	if (fab->sm_read != FAB_SM_READ)
		return 0;
	if (!h && !(h = *hp = calloc(1, sizeof(*h))))
		return -ENOMEM;
	memcpy(h->prev, h->last, sizeof(h->prev));
	h->n_prev = h->n_last;
	h->have_prev = h->have_last;
	h->n_last = fab->n_sms < FAB_SM_MAX ? fab->n_sms : FAB_SM_MAX;
	if (h->n_last)
		memcpy(h->last, fab->sms, h->n_last * sizeof(*fab->sms));
	h->have_last = 1;
	return 0;
}

void vsm_history_free(struct vsm_history *h)
{
	free(h);
}

struct fab_sm *vsm_prev_copy(const struct vsm_history *h, size_t *n)
{
	struct fab_sm *c;

	*n = 0;
	if (!h || !h->have_prev || !(c = calloc(h->n_prev + 1, sizeof(*c))))
		return NULL;
	memcpy(c, h->prev, h->n_prev * sizeof(*c));
	*n = h->n_prev;
	return c;
}

void vsm_settings_of(const struct validate_conf *c, struct vsm_settings *s)
{
	memcpy(s->allowed, c->validation_sm_allowed, sizeof(s->allowed));
	s->n_allowed = c->validation_n_sm_allowed;
	s->keys = c->validation_keys;
}

int vsm_check(const struct vsm_settings *s, const struct fab *fab, const struct fab_sm *prev,
	      size_t n_prev, const struct nodename_map *names, struct val_report *r)
{
	const char *allowed[VALIDATE_SM_ALLOWED_MAX];
	struct sm_opts o = { allowed, (size_t)s->n_allowed, prev, n_prev, names };

	for (int i = 0; i < s->n_allowed; i++)
		allowed[i] = s->allowed[i];
	if (sm_check(fab, &o, r) < 0 || keys_check(fab, (enum keys_mode)s->keys, names, r) < 0)
		return -ENOMEM;
	return 0;
}

json_t *vsm_json(const struct fab *fab, const struct nodename_map *names)
{
	json_t *list;

	if (fab->sm_read == FAB_SM_NOT_READ)
		return json_null();
	if (!(list = json_array()))
		return NULL;
	for (size_t i = 0; i < fab->n_sms; i++) {
		const struct fab_sm *sm = &fab->sms[i];
		const struct fab_node *n = fab_find(fab, sm->node_guid);
		char g[24], where[160];
		json_t *o;

		snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)sm->guid);
		o = json_pack("{s:s, s:s, s:i, s:s, s:b, s:i, s:s, s:I, s:b, s:b}", "guid", g, "node",
			      n ? nodename_of(names, n->guid, n->desc) : "?", "port", sm->port,
			      "where", sm_where(fab, names, sm, where, sizeof(where)),
			      "answered", sm->answered, "priority", sm->priority, "state",
			      sm->answered ? fab_sm_state_name(sm->state) : "SILENT", "act_count",
			      (json_int_t)sm->act_count, "is_sm_port", !!(sm->seen & FAB_SM_SEEN_PORT),
			      "sa", !!(sm->seen & FAB_SM_SEEN_SA));
		if (json_array_append_new(list, o) < 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}
