/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ha/ha_impl.h: the inside of daemon/ha/, shared by its files only:
 * one election step (ha_elect.c, on the HA worker thread) with what the
 * loop hands it and what it brings back (ha.c). */
#ifndef LOOMD_HA_IMPL_H
#define LOOMD_HA_IMPL_H

#include <stdint.h>

#include <jansson.h>

struct etcd;

#define HA_NAME_LEN 64
#define HA_URL_LEN 256
#define HA_KEY_LEN 160
#define HA_ERR_LEN 512
#define HA_WATCH_MAX 8

/* What the loop knows when it starts a step (copied into the job). */
struct ha_step_in {
	char key[HA_KEY_LEN];          /* /loom/CLUSTER/leader */
	char value[HA_NAME_LEN + HA_URL_LEN + 64]; /* this node's {"name","advertise"} */
	int64_t lease;                 /* the lease this node holds (0: none) */
	int leading;                   /* this node was leader at the last step */
	int ttl_s;
	/* The watched prefixes (ha_watch), full: /loom/CLUSTER/tenants/. */
	size_t n_watch;
	char watch[HA_WATCH_MAX][HA_KEY_LEN];
	/* Not leading: what the records looked like when last delivered, to
	 * read and deliver them only when they changed: the store's revision
	 * at the last read (0: read them) and each prefix's signature. */
	int64_t seen_rev;
	struct ha_sig { int64_t max_mod; size_t n; int valid; } sig[HA_WATCH_MAX];
};

enum ha_outcome {
	HA_OUT_LEADER,     /* this node holds the leader key with `lease` */
	HA_OUT_FOLLOWER,   /* another node does: leader_name / leader_url */
	HA_OUT_NO_QUORUM,  /* etcd did not answer (err) */
};

struct ha_step_out {
	enum ha_outcome outcome;
	int64_t lease;                 /* the lease held now (0: none) */
	int64_t ttl_s;                 /* LEADER: the TTL etcd gave at the renewal */
	double renewed_at;             /* LEADER: clock_mono() before the request that
					* renewed or granted the lease */
	char leader_name[HA_NAME_LEN];
	char leader_url[HA_URL_LEN];
	char endpoint[HA_URL_LEN];     /* the etcd endpoint that answered last */
	char err[HA_ERR_LEN];          /* NO_QUORUM: etcd's error; else what happened
					* worth a log line ("" none) */
	/* The records of each watch, {key after the prefix: value} (NULL: not
	 * read, or unchanged for a follower): LEADER after not leading, every
	 * prefix (NULL when etcd failed); FOLLOWER, those that changed. */
	json_t *records[HA_WATCH_MAX];
	int64_t seen_rev;              /* FOLLOWER: the revision the reads saw */
	struct ha_sig sig[HA_WATCH_MAX];
};

/* One step of the election, blocking (each request bounded by etcd's
 * timeout): a leader renews its lease and checks that the key is still
 * its own; anyone else reads the key and, when it is absent, grants a
 * lease and creates the key with it in one txn (create_revision == 0).
 * Never fails: the outcome says what holds. */
void ha_elect_step(struct etcd *e, const struct ha_step_in *in, struct ha_step_out *out);

/* At shutdown: give the lease back, so that another node takes over at
 * once instead of after the TTL (the key goes with it). */
void ha_elect_resign(struct etcd *e, int64_t lease);

#endif
