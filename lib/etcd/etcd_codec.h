/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/etcd/etcd_codec.h: etcd's v3 JSON gateway in and out, without a
 * server: base64 of keys and values, the request bodies (kv put / range /
 * delete-range, txn with compares and then/else ops, lease grant /
 * keepalive / revoke), the answers decoded, and etcd's error text. The
 * gateway writes int64 fields as JSON strings ("revision":"5") and leaves
 * out fields that are zero; both are read here. lib/etcd/etcd.c sends what
 * this builds; tests/unit/lib/etcd/test_etcd.c checks it. Pure: no I/O. */
#ifndef LOOM_ETCD_CODEC_H
#define LOOM_ETCD_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* base64 (RFC 4648, padded). encode: a new NUL-terminated string, NULL when
 * out of memory. decode: 0 with a new buffer of *len bytes (NUL added after
 * them), -EINVAL for text that is no base64, -ENOMEM. */
char *etcd_b64_encode(const void *in, size_t len);
int etcd_b64_decode(const char *in, size_t inlen, char **out, size_t *len);

/* The range_end that makes a range cover every key starting with prefix
 * (its last byte that is not 0xff plus one; "\0" for all keys): a new
 * string, NULL when out of memory. */
char *etcd_prefix_end(const char *prefix);

/* An int64 field of an answer: a JSON string of digits or an integer; 0
 * when absent. -EINVAL otherwise. */
int etcd_json_int64(const json_t *obj, const char *field, int64_t *out);

/* One key-value, decoded (key and value NUL-terminated, value_len bytes). */
struct etcd_kv {
	char *key;
	char *value;
	size_t value_len;
	int64_t create_revision, mod_revision, version, lease;
};

/* The key-values of an answer (range, or the range ops of a txn). */
struct etcd_kvs {
	struct etcd_kv *kv;
	size_t n;
	int64_t revision;  /* the store's revision in the answer's header */
};
void etcd_kvs_clear(struct etcd_kvs *kvs);

/* Requests. key is text (loom's keys are); range_end NULL: the key alone.
 * lease 0: none. A new object, NULL when out of memory. */
json_t *etcd_put_body(const char *key, const void *value, size_t len, int64_t lease);
json_t *etcd_range_body(const char *key, const char *range_end, int serializable);
json_t *etcd_delete_body(const char *key, const char *range_end);
json_t *etcd_grant_body(int64_t ttl_s);
json_t *etcd_lease_body(int64_t id);  /* keepalive and revoke: {"ID":"id"} */

/* A transaction: every compare must hold for the `then` ops to run, else
 * the `else` ops run; one revision either way. */
enum etcd_target { ETCD_CREATE, ETCD_MOD, ETCD_VERSION, ETCD_VALUE, ETCD_LEASE };
enum etcd_result { ETCD_EQUAL, ETCD_NOT_EQUAL, ETCD_LESS, ETCD_GREATER };
enum etcd_branch { ETCD_THEN, ETCD_ELSE };
struct etcd_txn;
struct etcd_txn *etcd_txn_new(void);
void etcd_txn_free(struct etcd_txn *t);
/* Compare a number (create_revision, mod_revision, version, lease) or the
 * value (ETCD_VALUE: value, len). Ops: put, delete-range, range. 0 or
 * -ENOMEM (the transaction is then unusable: etcd_txn_body says NULL). */
int etcd_txn_compare(struct etcd_txn *t, const char *key, enum etcd_target target,
		     enum etcd_result result, int64_t number);
int etcd_txn_compare_value(struct etcd_txn *t, const char *key, enum etcd_result result,
			   const void *value, size_t len);
int etcd_txn_put(struct etcd_txn *t, enum etcd_branch b, const char *key, const void *value,
		 size_t len, int64_t lease);
int etcd_txn_delete(struct etcd_txn *t, enum etcd_branch b, const char *key,
		    const char *range_end);
int etcd_txn_range(struct etcd_txn *t, enum etcd_branch b, const char *key,
		   const char *range_end);
/* The body: borrowed from t; NULL when a call above ran out of memory. */
json_t *etcd_txn_body(const struct etcd_txn *t);

/* Answers. Each: 0, or -EINVAL with what is wrong in err. */
int etcd_range_decode(const json_t *ans, struct etcd_kvs *out, char *err, size_t errlen);
/* succeeded: 1 when the compares held; the kvs of every range op in order. */
int etcd_txn_decode(const json_t *ans, int *succeeded, struct etcd_kvs *out, char *err,
		    size_t errlen);
int etcd_delete_decode(const json_t *ans, int64_t *deleted, char *err, size_t errlen);
/* Grant: the lease's id and the TTL etcd gave (etcd's "error" field: -EIO
 * with it in err). */
int etcd_grant_decode(const json_t *ans, int64_t *id, int64_t *ttl, char *err, size_t errlen);
/* Keepalive (one message of the stream, {"result":{...}}): the TTL left;
 * -ENOENT when the lease is gone (etcd answers TTL 0 or none). */
int etcd_keepalive_decode(const json_t *ans, int64_t *ttl, char *err, size_t errlen);

/* etcd's error from a body ({"error":"...","message":"...","code":N}, the
 * gRPC code; a stream wraps it in "error": {...}): its text in out and the
 * code in *code (-1 none). 1 when body was such an error, else 0 (out gets
 * the body's first line). */
int etcd_error_text(const char *body, size_t len, char *out, size_t outlen, int *code);
/* The -errno of a gRPC code: NotFound -ENOENT, InvalidArgument and
 * FailedPrecondition -EINVAL, PermissionDenied -EACCES, Unauthenticated
 * -EPERM, DeadlineExceeded -ETIMEDOUT, Unavailable -EAGAIN, anything else
 * -EIO. */
int etcd_code_errno(int code);

#endif
