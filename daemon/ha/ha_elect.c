/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ha/ha_elect.c: one step of the leader election against etcd, on
 * the HA worker thread (see ha_impl.h). The leader key holds
 * {"name","advertise"} of the leader and is attached to its lease: when the
 * lease expires (the leader died or lost etcd) or is revoked (it stopped),
 * etcd deletes the key and the next follower to look creates it anew. */
#include "autoconf.h"
#include "daemon/ha/ha_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/etcd/etcd.h"
#include "lib/util/clock.h"

/* The leader named by the key's value (as this node wrote it). */
static void leader_of(const struct etcd_kv *kv, struct ha_step_out *out)
{
	json_t *j = json_loadb(kv->value, kv->value_len, 0, NULL);
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *url = json_string_value(json_object_get(j, "advertise"));

	snprintf(out->leader_name, sizeof(out->leader_name), "%s", name ? name : "?");
	snprintf(out->leader_url, sizeof(out->leader_url), "%s", url ? url : "");
	json_decref(j);
}

static void no_quorum(struct ha_step_out *out, const char *err)
{
	out->outcome = HA_OUT_NO_QUORUM;
	snprintf(out->err, sizeof(out->err), "%s", err);
}

/* Give back a lease that holds nothing (best effort: it expires anyway). */
static void drop_lease(struct etcd *e, int64_t lease)
{
	char err[HA_ERR_LEN];

	if (lease)
		(void)etcd_lease_revoke(e, lease, err, sizeof(err));
}

/* Read the key; create it with a new lease when absent. */
static void campaign(struct etcd *e, const struct ha_step_in *in, struct ha_step_out *out)
{
	struct etcd_kvs kvs;
	struct etcd_txn *t;
	char err[HA_ERR_LEN];
	int64_t lease = 0, ttl = 0;
	double t0;
	int ok, rc;

	if ((rc = etcd_range(e, in->key, NULL, 0, &kvs, err, sizeof(err))) < 0) {
		no_quorum(out, err);
		return;
	}
	if (kvs.n) {
		leader_of(&kvs.kv[0], out);
		out->outcome = HA_OUT_FOLLOWER;
		out->seen_rev = kvs.revision;  /* follow() reads it */
		etcd_kvs_clear(&kvs);
		return;
	}
	etcd_kvs_clear(&kvs);
	t0 = clock_mono();  /* the lease runs from its grant, after this */
	if ((rc = etcd_lease_grant(e, in->ttl_s, &lease, &ttl, err, sizeof(err))) < 0) {
		no_quorum(out, err);
		return;
	}
	if (!(t = etcd_txn_new()) ||
	    etcd_txn_compare(t, in->key, ETCD_CREATE, ETCD_EQUAL, 0) < 0 ||
	    etcd_txn_put(t, ETCD_THEN, in->key, in->value, strlen(in->value), lease) < 0 ||
	    etcd_txn_range(t, ETCD_ELSE, in->key, NULL) < 0) {
		etcd_txn_free(t);
		drop_lease(e, lease);
		no_quorum(out, "out of memory");
		return;
	}
	rc = etcd_txn(e, t, &ok, &kvs, err, sizeof(err));
	etcd_txn_free(t);
	if (rc < 0) {
		/* It may have landed on a member that then timed out: the key's
		 * lease tells at the next step (the lease is kept for that). */
		out->lease = lease;
		no_quorum(out, err);
		return;
	}
	if (ok || (kvs.n && kvs.kv[0].lease == lease)) {
		out->outcome = HA_OUT_LEADER;
		out->lease = lease;
		out->ttl_s = ttl;
		out->renewed_at = t0;
		snprintf(out->err, sizeof(out->err), "took the leader key with lease %lld (TTL %lld s)",
			 (long long)lease, (long long)ttl);
	} else {
		if (kvs.n)
			leader_of(&kvs.kv[0], out);
		out->outcome = HA_OUT_FOLLOWER;
		drop_lease(e, lease);
	}
	etcd_kvs_clear(&kvs);
}

/* The records under one prefix, {key after the prefix: parsed value} (a
 * value that is not JSON is skipped), with their signature (the highest
 * mod_revision and the count: any put raises the first, a delete alone
 * lowers the second). NULL when etcd did not answer. */
static json_t *load_prefix(struct etcd *e, const char *prefix, struct ha_sig *sig,
			   int64_t *rev)
{
	char *end = etcd_prefix_end(prefix), err[HA_ERR_LEN];
	size_t plen = strlen(prefix);
	struct etcd_kvs kvs;
	json_t *obj;

	if (!end || etcd_range(e, prefix, end, 0, &kvs, err, sizeof(err)) < 0) {
		free(end);
		return NULL;
	}
	free(end);
	sig->max_mod = 0;
	sig->n = kvs.n;
	sig->valid = 1;
	if (rev)
		*rev = kvs.revision;
	if ((obj = json_object()))
		for (size_t i = 0; i < kvs.n; i++) {
			json_t *v = json_loadb(kvs.kv[i].value, kvs.kv[i].value_len, 0, NULL);

			if (kvs.kv[i].mod_revision > sig->max_mod)
				sig->max_mod = kvs.kv[i].mod_revision;
			/* a prefix that is a whole key ("intent-seeded"): key "" */
			if (v && strlen(kvs.kv[i].key) >= plen)
				json_object_set_new(obj, kvs.kv[i].key + plen, v);
			else
				json_decref(v);
		}
	etcd_kvs_clear(&kvs);
	return obj;
}

/* The first watch of the same prefix as watch i (i when none before it). */
static size_t first_same(const struct ha_step_in *in, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(in->watch[j], in->watch[i]))
			return j;
	return i;
}

/* A follower's watches: read when the store's revision moved since the
 * last read (seen by the range of the leader key), delivered when a
 * prefix's signature changed. A prefix that could not be read is read
 * again at the next step (seen_rev stays 0). */
static void follow(struct etcd *e, const struct ha_step_in *in, struct ha_step_out *out,
		   int64_t rev)
{
	int all_ok = 1;

	out->seen_rev = in->seen_rev;
	memcpy(out->sig, in->sig, sizeof(out->sig));
	if (!in->n_watch || (rev && rev == in->seen_rev))
		return;
	for (size_t i = 0; i < in->n_watch; i++) {
		struct ha_sig sig;
		size_t same = first_same(in, i);
		json_t *r;

		if (same < i) {
			/* Several watches of one prefix: one read, delivered to each.
			 * Read together, their signatures stay equal: none delivered
			 * for the first (unchanged, or not read) is none here. */
			if (!out->records[same])
				continue;
			sig = out->sig[same];
			r = json_incref(out->records[same]);
		} else {
			r = load_prefix(e, in->watch[i], &sig, NULL);
		}
		if (!r) {
			all_ok = 0;
			continue;
		}
		if (in->sig[i].valid && in->sig[i].max_mod == sig.max_mod && in->sig[i].n == sig.n) {
			json_decref(r);
			continue;
		}
		out->records[i] = r;
		out->sig[i] = sig;
	}
	out->seen_rev = all_ok ? rev : 0;
}

void ha_elect_step(struct etcd *e, const struct ha_step_in *in, struct ha_step_out *out)
{
	char err[HA_ERR_LEN];
	struct etcd_kvs kvs;
	int64_t ttl = 0;
	double t0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (in->lease) {
		t0 = clock_mono();
		rc = etcd_lease_keepalive(e, in->lease, &ttl, err, sizeof(err));
		if (rc == 0 && (rc = etcd_range(e, in->key, NULL, 0, &kvs, err, sizeof(err))) == 0) {
			if (kvs.n && kvs.kv[0].lease == in->lease) {
				out->outcome = HA_OUT_LEADER;
				out->lease = in->lease;
				out->ttl_s = ttl;
				out->renewed_at = t0;
				if (!in->leading)
					snprintf(out->err, sizeof(out->err), "the leader key holds this "
						 "node's lease %lld", (long long)in->lease);
			} else {
				/* the key is another's (or was deleted by hand) */
				if (kvs.n)
					leader_of(&kvs.kv[0], out);
				out->outcome = kvs.n ? HA_OUT_FOLLOWER : HA_OUT_NO_QUORUM;
				out->seen_rev = kvs.revision;
				snprintf(out->err, sizeof(out->err), "the leader key no longer holds "
					 "this node's lease");
				drop_lease(e, in->lease);
				if (!kvs.n) {
					etcd_kvs_clear(&kvs);
					campaign(e, in, out);
					goto done;
				}
			}
			etcd_kvs_clear(&kvs);
			goto done;
		}
		if (rc != -ENOENT) {  /* unreachable: keep the lease, the loop fences */
			out->lease = in->lease;
			no_quorum(out, err);
			goto done;
		}
		/* the lease is gone (expired while etcd was away): start again */
	}
	campaign(e, in, out);
done:
	if (out->outcome == HA_OUT_LEADER && !in->leading) {
		for (size_t i = 0; i < in->n_watch; i++) {
			struct ha_sig sig;
			size_t same = first_same(in, i);

			out->records[i] = same < i ? json_incref(out->records[same]) :
				load_prefix(e, in->watch[i], &sig, NULL);
		}
	} else if (out->outcome == HA_OUT_FOLLOWER)
		follow(e, in, out, out->seen_rev);
	snprintf(out->endpoint, sizeof(out->endpoint), "%s", etcd_endpoint(e));
}

void ha_elect_resign(struct etcd *e, int64_t lease)
{
	drop_lease(e, lease);
}
