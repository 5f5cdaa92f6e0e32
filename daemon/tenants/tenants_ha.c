/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/tenants/tenants_ha.c: the tenants under HA (issue 21, docs/ha.md):
 * how a change's record in etcd (/loom/CLUSTER/tenants/NAME, made by
 * tenants_fence.c's tenants_record) follows the change's outcome, a
 * follower's mirror of the records (its database and its local partitions
 * file, never the fabric), and a new leader's takeover (records loaded,
 * tenants etcd no longer holds deleted, etcd seeded from the database when
 * the cluster never held intent; tenants.c's tenants_watch then checks
 * every tenant). A record's state is the database's (tenants_state.h). */
#include "autoconf.h"
#include "daemon/tenants/tenants.h"
#include "daemon/tenants/tenants_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/file_atomic.h"
#include "daemon/tenants/store_tenants.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

#define SEEDED_KEY "intent-seeded"

/* ---- the worker: the record follows the outcome --------------------------------- */

static int put1(struct top *t, const char *value, char *err, size_t errlen)
{
	char key[LOOM_NAME_LEN + 16];

	snprintf(key, sizeof(key), "tenants/%s", t->name);
	return t->m->iw.put(t->m->iw.arg, key, value, err, errlen);
}

/* TOP_RESUME: the seed first (takeover), then each check's outcome into
 * its record when the state changed. */
static void after_resume(struct top *t)
{
	struct tenants_mod *m = t->m;
	const char **k = calloc(t->n_batch + 1, sizeof(*k)), **v = calloc(t->n_batch + 1, sizeof(*v));
	char **keys = calloc(t->n_batch + 1, sizeof(*keys));
	char err[512] = "";
	size_t n = 0;

	for (size_t i = 0; k && v && keys && i < t->n_batch; i++) {
		struct top *b = t->batch[i];
		enum tenant_state state = b->rc == 0 ? TENANT_ACTIVE : TENANT_FAILED;
		enum tenant_state had =
			tenants_state_parse(json_string_value(json_object_get(b->rec, "state")));

		json_t *put = b->rec;

		if (b->rc < 0 && b->has_undo && !b->lost) {
			put = b->undo;  /* NULL: deleted (a create) */
			b->undone = 1;
		} else if (!b->rec || b->lost || had == state)
			continue;
		else
			json_object_set_new(b->rec, "state", json_string(tenants_state_name(state)));
		if (!(keys[n] = malloc(LOOM_NAME_LEN + 16)))
			break;
		snprintf(keys[n], LOOM_NAME_LEN + 16, "tenants/%s", b->name);
		k[n] = keys[n];
		v[n] = NULL;
		if (put && !(v[n] = json_dumps(put, JSON_COMPACT | JSON_SORT_KEYS)))
			break;
		n++;
	}
	if (n && m->iw.putv(m->iw.arg, n, k, v, err, sizeof(err)) < 0) {
		log_warn("tenants: the outcome of the %s check could not be recorded in etcd: %s",
			 t->name, err);
		for (size_t i = 0; i < t->n_batch; i++)
			t->batch[i]->undone = 0;  /* etcd unchanged: left failed */
	}
	for (size_t i = 0; i < n; i++) {
		free(keys[i]);
		free((char *)v[i]);
	}
	free(keys);
	free(k);
	free(v);
}

void tenants_ha_after(struct top *t)
{
	char err[512] = "";
	char *text = NULL;
	json_t *r;
	int rc;

	if (!t->m->iw.put || t->lost)
		return;  /* no HA; or the new leader owns the change now */
	if (t->kind == TOP_RESUME) {
		after_resume(t);
		return;
	}
	if (!t->intent_put)
		return;
	if (t->rc == 0) {
		if (t->kind == TOP_DELETE || !t->intent)
			return;
		/* confirmed: the record says so */
		if ((r = json_loads(t->intent, 0, NULL))) {
			json_object_set_new(r, "state",
					    json_string(tenants_state_name(TENANT_ACTIVE)));
			json_object_del(r, "prev");
			text = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
			json_decref(r);
		}
		if (!text || (rc = put1(t, text, err, sizeof(err))) < 0)
			log_warn("tenant %s: confirmed on the fabric, but its record in etcd still says "
				 "\"applying\" (%s): a new leader completes it", t->name,
				 text ? err : "out of memory");
		free(text);
		return;
	}
	/* failed, to be rolled back: etcd gets the record before (none: deleted) */
	if ((rc = put1(t, t->prev_intent, err, sizeof(err))) < 0) {
		size_t l = strlen(t->err);

		log_err("tenant %s: its record in etcd could not be put back: %s", t->name, err);
		snprintf(t->err + l, sizeof(t->err) - l, "; its record in etcd could not be put "
			 "back (%s)", err);
	}
}

/* ---- the loop: records into the database ------------------------------------------ */

/* {guid or "switch port": host} of a port list, to compare as sets. */
static json_t *port_set(const json_t *ports)
{
	json_t *set = json_object(), *p;
	size_t i;

	json_array_foreach(ports, i, p) {
		const char *guid = json_string_value(json_object_get(p, "guid"));
		const char *host = json_string_value(json_object_get(p, "host"));
		char key[2 * LP_NAME_LEN + 2];

		if (!guid)
			snprintf(key, sizeof(key), "%s %s",
				 json_string_value(json_object_get(p, "switch")),
				 json_string_value(json_object_get(p, "port")));
		json_object_set_new(set, guid ? guid : key, json_string(host ? host : ""));
	}
	return set;
}

static int same_ports(const json_t *a, const json_t *b)
{
	json_t *x = port_set(a), *y = port_set(b);
	int same = json_equal(x, y);

	json_decref(x);
	json_decref(y);
	return same;
}

/* One record into the database when the database does not hold it so (its
 * key, VLAN, membership, class, ports), and its state from the record.
 * `how`: the events' words ("from etcd, leader node-a"). 1 written, 0
 * already so, -errno. */
static int load_one(struct tenants_mod *m, const json_t *r, const char *how)
{
	const char *name = json_string_value(json_object_get(r, "name"));
	const char *cls = json_string_value(json_object_get(r, "class"));
	const char *by = json_string_value(json_object_get(r, "by"));
	enum tenant_state state =
		tenants_state_parse(json_string_value(json_object_get(r, "state")));
	const json_t *ports = json_object_get(r, "ports"), *eth = json_object_get(r, "eth_ports");
	json_int_t pkey = json_integer_value(json_object_get(r, "pkey"));
	json_int_t vlan = json_integer_value(json_object_get(r, "vlan"));
	int limited = json_is_true(json_object_get(r, "limited"));
	struct store_tenant st;
	json_t *have = NULL;
	char what[256];
	int rc, existed = 0;

	if (!name || !*name || strlen(name) >= LOOM_NAME_LEN || !json_is_array(ports) ||
	    !json_is_array(eth) || pkey < 0 || pkey > 0x7fff || vlan < 0 || vlan > 4094)
		return -EINVAL;
	if (state == TENANT_DELETED)
		state = TENANT_ACTIVE;  /* records of the first HA version had none */
	if (store_tenant_get(m->store, name, &have) == 0) {
		const char *hm = json_string_value(json_object_get(have, "membership"));
		const char *hc = json_string_value(json_object_get(have, "class"));
		enum tenant_state had =
			tenants_state_parse(json_string_value(json_object_get(have, "state")));
		int same = json_integer_value(json_object_get(have, "pkey")) == pkey &&
			   json_integer_value(json_object_get(have, "vlan")) == vlan &&
			   (hm && !strcmp(hm, "limited")) == limited &&
			   !strcmp(hc ? hc : "", cls ? cls : "") &&
			   same_ports(json_object_get(have, "ports"), ports) &&
			   same_ports(json_object_get(have, "eth_ports"), eth);

		existed = 1;
		json_decref(have);
		if (same) {
			if (had != state &&
			    tenants_state_set(m->store, name, had, TENANT_MIRRORED, state, "") < 0)
				return -EIO;
			return had != state;
		}
	}
	/* the tenant and its state in one write */
	st = (struct store_tenant){ .name = name, .pkey = (unsigned)pkey, .vlan = (unsigned)vlan,
				    .limited = limited, .class_name = cls && *cls ? cls : NULL,
				    .ports = ports, .eth_ports = eth,
				    .state = tenants_state_name(state) };
	snprintf(what, sizeof(what), "%s: pkey 0x%04x, vlan %d, %zu HCA ports, %zu switch ports, "
		 "%s", how, (unsigned)pkey, (int)vlan, json_array_size(ports),
		 json_array_size(eth), tenants_state_name(state));
	/* who asked for the last change on the leader (a new tenant's creator) */
	rc = store_tenant_put(m->store, clock_wall(), &st, -1, by && *by ? by : "etcd",
			      existed ? "tenant_changed" : "tenant_created", what);
	if (rc == 0)
		log_notice("tenant %s: %s", name, what);
	return rc < 0 ? rc : 1;
}

/* Every record into the database; with `delete_others`, the tenants that
 * etcd does not hold go. The number of tenants changed. */
static size_t load_all(struct tenants_mod *m, const json_t *records, int delete_others,
		       int takeover, const char *del_who)
{
	json_t *list = NULL, *x, *r;
	const char *key;
	size_t i, changed = 0;

	json_object_foreach((json_t *)records, key, r) {
		const char *leader = json_string_value(json_object_get(r, "leader"));
		char how[160];
		int rc;

		leader = leader && *leader ? leader : "?";
		if (takeover)
			snprintf(how, sizeof(how), "loaded from etcd at takeover (written by leader "
				 "%s)", leader);
		else
			snprintf(how, sizeof(how), "from etcd, leader %s", leader);
		if ((rc = load_one(m, r, how)) < 0)
			log_err("tenants: the record %s in etcd could not be loaded: %s", key,
				strerror(-rc));
		else
			changed += (size_t)rc;
	}
	if (!delete_others || store_tenant_list(m->store, &list) < 0)
		return changed;
	json_array_foreach(list, i, x) {
		const char *name = json_string_value(json_object_get(x, "name"));
		if (json_object_get(records, name))
			continue;
		if (store_tenant_delete(m->store, clock_wall(), name, del_who) == 0) {
			log_notice("tenant %s: deleted: etcd no longer holds it", name);
			changed++;
		}
	}
	json_decref(list);
	return changed;
}

void tenants_ha_mirror(struct tenants_mod *m, const json_t *records)
{
	char err[512] = "", *text, *had;
	size_t changed;

	if (!records)
		return;
	if (m->queue) {  /* a change of this node's leading days ends first */
		json_decref(m->mirror_pending);
		m->mirror_pending = json_deep_copy(records);
		return;
	}
	/* Deletes only once a leader has reconciled etcd with its database
	 * (the marker): before that, etcd may not hold every tenant yet. */
	changed = load_all(m, records, m->seeded == 1, 0, "etcd (the leader deleted it)");
	if (changed)
		log_notice("tenants: %zu tenant%s mirrored from etcd", changed,
			   changed == 1 ? "" : "s");
	/* This node's OpenSM enforces the same partitions when it is master. */
	if (!(text = tenants_ib_file_text(m, err, sizeof(err)))) {
		log_err("tenants: %s", err);
		return;
	}
	had = file_read_text(m->conf->t.tenant_partitions_file, err, sizeof(err));
	if ((had || json_object_size(records)) && (!had || strcmp(had, text)))
		tenants_ib_rewrite(m, "mirrored from etcd");
	free(had);
	free(text);
}

void tenants_ha_takeover(struct tenants_mod *m, const json_t *records)
{
	size_t changed = 0;

	if (records) {
		const char *name;
		json_t *r;

		changed = load_all(m, records, m->seeded == 1, 1,
				   "the takeover (no longer in etcd)");
		/* changes left "applying": the record before each, to roll back
		 * to when the fabric cannot take it */
		json_decref(m->takeover_undo);
		m->takeover_undo = json_object();
		json_object_foreach((json_t *)records, name, r) {
			const char *st = json_string_value(json_object_get(r, "state"));
			json_t *prev = json_object_get(r, "prev");

			if (prev && tenants_state_parse(st) == TENANT_APPLYING)
				json_object_set_new(m->takeover_undo, name, json_deep_copy(prev));
		}
	}
	log_notice("tenants: this node leads now: %s%zu tenants changed from etcd%s; checking "
		   "every tenant against the fabric", records ? "" : "(etcd's intent unread) ",
		   changed, m->seeded == 0 ? "; etcd never held intent: seeding it from this "
		   "database" : "");
}

/* ---- TOP_RESUME under HA ------------------------------------------------------------- */

int tenants_ha_prepare_resume(struct tenants_mod *m, struct top *t)
{
	json_t *list = NULL, *x;
	size_t i;

	if (!m->iw.put)
		return 0;
	for (i = 0; i < t->n_batch; i++) {
		struct top *b = t->batch[i];
		json_t *tn = NULL, *undo;

		if (store_tenant_get(m->store, b->name, &tn) == 0)
			b->rec = tenants_record(tn, m->iw.node, b->was);
		json_decref(tn);
		if (!strcmp(t->name, "takeover") && b->was == TENANT_APPLYING &&
		    (undo = json_object_get(m->takeover_undo, b->name))) {
			b->has_undo = 1;
			b->undo = json_is_object(undo) ? json_deep_copy(undo) : NULL;
		}
	}
	if (!strcmp(t->name, "takeover")) {
		json_decref(m->takeover_undo);
		m->takeover_undo = NULL;
	}
	if (m->seeded != 0 || !m->iw.putv)
		return 0;
	/* The cluster's first leader: every tenant of the database into etcd,
	 * with the marker, in one fenced txn. */
	if (store_tenant_list(m->store, &list) < 0)
		return -EIO;
	if (!(t->seed_k = calloc(json_array_size(list) + 2, sizeof(char *))) ||
	    !(t->seed_v = calloc(json_array_size(list) + 2, sizeof(char *)))) {
		json_decref(list);
		return -ENOMEM;
	}
	json_array_foreach(list, i, x) {
		const char *name = json_string_value(json_object_get(x, "name"));
		json_t *tn = NULL, *r;

		if (store_tenant_get(m->store, name, &tn) < 0)
			continue;
		r = tenants_record(tn, m->iw.node,
				   tenants_state_parse(json_string_value(json_object_get(tn, "state"))));
		t->seed_v[t->n_seed] = r ? json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		json_decref(r);
		json_decref(tn);
		if (!t->seed_v[t->n_seed] || !(t->seed_k[t->n_seed] = malloc(LOOM_NAME_LEN + 16))) {
			free(t->seed_v[t->n_seed]);
			continue;
		}
		snprintf(t->seed_k[t->n_seed], LOOM_NAME_LEN + 16, "tenants/%s", name);
		t->n_seed++;
	}
	json_decref(list);
	x = json_pack("{s:s, s:f, s:i}", "by", m->iw.node ? m->iw.node : "", "at", clock_wall(),
		      "tenants", (int)t->n_seed);
	t->seed_v[t->n_seed] = x ? json_dumps(x, JSON_COMPACT) : NULL;
	json_decref(x);
	t->seed_k[t->n_seed] = strdup(SEEDED_KEY);
	if (!t->seed_k[t->n_seed] || !t->seed_v[t->n_seed])
		return -ENOMEM;
	t->n_seed++;
	return 0;
}

/* Worker, before a TOP_RESUME's checks: the seed. 0, or -errno. */
int tenants_ha_seed(struct top *t)
{
	char err[512] = "";
	int rc;

	if (!t->n_seed)
		return 0;
	if ((rc = t->m->iw.putv(t->m->iw.arg, t->n_seed, (const char *const *)t->seed_k,
				(const char *const *)t->seed_v, err, sizeof(err))) < 0)
		log_err("tenants: etcd could not be seeded from the database: %s", err);
	else
		log_notice("tenants: etcd seeded from the database: %zu tenant%s and %s", t->n_seed - 1,
			   t->n_seed == 2 ? "" : "s", SEEDED_KEY);
	t->seed_rc = rc;
	return rc;
}

void tenants_ha_finish_resume(struct tenants_mod *m, struct top *t)
{
	int rewrite = 0;

	if (t->n_seed && t->seed_rc == 0)
		m->seeded = 1;
	if (strcmp(t->name, "takeover") || t->lost)
		return;
	for (size_t i = 0; i < t->n_batch; i++) {
		struct top *b = t->batch[i];
		char what[1200];

		if (b->was != TENANT_APPLYING)
			continue;
		if (b->undone) {
			/* etcd holds the record before; the database follows */
			int rc = b->undo ? load_one(m, b->undo, "rolled back at takeover")
					 : store_tenant_delete(m->store, clock_wall(), b->name,
							       "the takeover (rolled back)");

			rewrite = 1;
			snprintf(what, sizeof(what), "a change in flight when the leader changed: the "
				 "fabric could not take it, %s%s: %s", b->undo ?
				 "rolled back to the tenant before it" : "rolled back (it was a "
				 "create: deleted)", rc < 0 ? " in etcd, but the database refused" : "",
				 b->err);
		} else if (b->rc == 0)
			snprintf(what, sizeof(what), "a change in flight when the leader changed: "
				 "completed, on the fabric as asked");
		else
			snprintf(what, sizeof(what), "a change in flight when the leader changed: the "
				 "fabric could not take it, left failed: %s", b->err);
		log_notice("tenant %s: %s", b->name, what);
		tenants_event(m, b->rc == 0 ? "notice" : "warning", "tenant_takeover", b->name,
			      what);
	}
	if (rewrite)
		tenants_ib_rewrite(m, "takeover rollback");
}

void tenants_watch_seeded(void *arg, const json_t *records, int leading)
{
	struct tenants_mod *m = arg;

	(void)leading;
	m->seeded = records ? json_object_size(records) > 0 : -1;
}
