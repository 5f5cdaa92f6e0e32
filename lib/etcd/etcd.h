/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/etcd/etcd.h: an etcd v3 client over the JSON gateway (etcd 3.4:
 * POST /v3/...), with libcurl. Plain blocking calls, each bounded by the
 * timeout, for a thread that may wait (loomd's HA worker, daemon/ha/).
 *
 * Endpoints: a list tried in turn. A call goes to the endpoint that
 * answered last; when that one cannot be reached, times out, or answers
 * that it has no quorum ("etcdserver: no leader", "request timed out",
 * gRPC Unavailable), the same request goes to the next, each endpoint at
 * most once per call. A non-idempotent request (a txn's put) may therefore
 * have landed on the member that timed out: callers write transactions
 * whose outcome they can read back (the leader key's lease says whose it
 * is).
 *
 * TLS: https:// endpoints, checked against `ca` (else the system's CAs),
 * with a client certificate and key when given. Authentication: with a
 * user, /v3/auth/authenticate gives a token sent as the Authorization
 * header; an expired token is renewed once per call.
 *
 * Errors: 0 or -errno, with one line in err naming the endpoint and etcd's
 * own error text: -ECONNREFUSED / -ETIMEDOUT / -EHOSTUNREACH / -EAGAIN
 * (no endpoint answered or none has a quorum: the last one's error), -ENOENT
 * (a lease that is gone), -EACCES / -EPERM (credentials), -EINVAL, -EIO.
 * One struct etcd is used by one thread at a time. libcurl may write to a
 * closed connection: the process ignores SIGPIPE (loomd does). */
#ifndef LOOM_ETCD_H
#define LOOM_ETCD_H

#include <stddef.h>
#include <stdint.h>

#include "lib/etcd/etcd_codec.h"

struct etcd;

struct etcd_conf {
	const char *endpoints;  /* "http://10.0.0.1:2379,https://mgmt2:2379" */
	const char *ca;         /* TLS: CA bundle (PEM); NULL or "": the system's */
	const char *cert, *key; /* TLS client certificate and key; NULL or "": none */
	const char *user;       /* etcd auth; NULL or "": none */
	const char *password;
	long timeout_ms;        /* each request on each endpoint (connect included) */
};

/* Check the endpoints (http:// or https://, host, port) and keep a copy of
 * the configuration. No request is sent. NULL with the reason in err. */
struct etcd *etcd_new(const struct etcd_conf *conf, char *err, size_t errlen);
void etcd_free(struct etcd *e);

/* The endpoint the next call goes to first (the one that answered last). */
const char *etcd_endpoint(const struct etcd *e);

/* POST body to path ("/v3/kv/range") and parse the answer. The endpoint
 * list, timeouts, token and errors as above. *out: a new reference. */
int etcd_call(struct etcd *e, const char *path, json_t *body, json_t **out, char *err,
	      size_t errlen);

int etcd_put(struct etcd *e, const char *key, const void *value, size_t len, int64_t lease,
	     char *err, size_t errlen);
/* range_end NULL: the key alone; serializable: answered by any member,
 * even one without a quorum (may be stale). out is cleared first. */
int etcd_range(struct etcd *e, const char *key, const char *range_end, int serializable,
	       struct etcd_kvs *out, char *err, size_t errlen);
int etcd_delete(struct etcd *e, const char *key, const char *range_end, int64_t *deleted,
		char *err, size_t errlen);
/* *succeeded: the compares held; out: the kvs of the range ops that ran. */
int etcd_txn(struct etcd *e, const struct etcd_txn *t, int *succeeded, struct etcd_kvs *out,
	     char *err, size_t errlen);

int etcd_lease_grant(struct etcd *e, int64_t ttl_s, int64_t *id, int64_t *ttl, char *err,
		     size_t errlen);
/* One keepalive (request and answer): *ttl the lease's new TTL; -ENOENT
 * when the lease has expired or was revoked. */
int etcd_lease_keepalive(struct etcd *e, int64_t id, int64_t *ttl, char *err, size_t errlen);
int etcd_lease_revoke(struct etcd *e, int64_t id, char *err, size_t errlen);

#endif
