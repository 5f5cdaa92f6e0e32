/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/etcd/etcd_codec.c: see etcd_codec.h. */
#include "autoconf.h"
#include "lib/etcd/etcd_codec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *etcd_b64_encode(const void *in, size_t len)
{
	const unsigned char *p = in;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16;

		if (i + 1 < len)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

int etcd_b64_decode(const char *in, size_t inlen, char **out, size_t *len)
{
	size_t pad = 0, n;
	char *buf, *o;

	*out = NULL;
	*len = 0;
	if (inlen % 4)
		return -EINVAL;
	while (pad < 2 && pad < inlen && in[inlen - 1 - pad] == '=')
		pad++;
	n = inlen / 4 * 3 - pad;
	if (!(buf = malloc(n + 1)))
		return -ENOMEM;
	o = buf;
	for (size_t i = 0; i < inlen; i += 4) {
		unsigned v = 0;

		for (size_t j = 0; j < 4; j++) {
			int d = b64_value(in[i + j]);

			if (d < 0 && !(in[i + j] == '=' && i + j >= inlen - pad)) {
				free(buf);
				return -EINVAL;
			}
			v = v << 6 | (unsigned)(d < 0 ? 0 : d);
		}
		*o++ = (char)(v >> 16);
		if (i + 4 < inlen || pad < 2)
			*o++ = (char)(v >> 8 & 255);
		if (i + 4 < inlen || pad < 1)
			*o++ = (char)(v & 255);
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

char *etcd_prefix_end(const char *prefix)
{
	size_t n = strlen(prefix);
	char *end = malloc(n + 1);

	if (!end)
		return NULL;
	memcpy(end, prefix, n + 1);
	while (n > 0) {
		if ((unsigned char)end[n - 1] < 0xff) {
			end[n - 1]++;
			end[n] = '\0';
			return end;
		}
		n--;
	}
	end[0] = '\0';  /* every byte 0xff (or ""): to the end of the keys */
	return end;
}

int etcd_json_int64(const json_t *obj, const char *field, int64_t *out)
{
	const json_t *v = json_object_get(obj, field);

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		long long n;

		errno = 0;
		n = strtoll(s, &end, 10);
		if (*s && !*end && !errno) {
			*out = n;
			return 0;
		}
	}
	return -EINVAL;
}

void etcd_kvs_clear(struct etcd_kvs *kvs)
{
	for (size_t i = 0; i < kvs->n; i++) {
		free(kvs->kv[i].key);
		free(kvs->kv[i].value);
	}
	free(kvs->kv);
	memset(kvs, 0, sizeof(*kvs));
}

/* ---- requests ------------------------------------------------------------------ */

static json_t *int64_string(int64_t n)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, n);
	return json_string(buf);
}

/* obj[field] = base64(data, len); 0 or -ENOMEM. */
static int set_b64(json_t *obj, const char *field, const void *data, size_t len)
{
	char *s = etcd_b64_encode(data, len);
	int rc = s ? json_object_set_new(obj, field, json_string(s)) : -1;

	free(s);
	return rc ? -ENOMEM : 0;
}

static json_t *key_body(const char *key, const char *range_end)
{
	json_t *o = json_object();

	if (!o || set_b64(o, "key", key, strlen(key)) ||
	    (range_end && set_b64(o, "range_end", range_end, strlen(range_end)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *etcd_put_body(const char *key, const void *value, size_t len, int64_t lease)
{
	json_t *o = key_body(key, NULL);

	if (o && (set_b64(o, "value", value, len) ||
		  (lease && json_object_set_new(o, "lease", int64_string(lease))))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *etcd_range_body(const char *key, const char *range_end, int serializable)
{
	json_t *o = key_body(key, range_end);

	if (o && serializable && json_object_set_new(o, "serializable", json_true())) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *etcd_delete_body(const char *key, const char *range_end)
{
	return key_body(key, range_end);
}

json_t *etcd_grant_body(int64_t ttl_s)
{
	return json_pack("{s:o}", "TTL", int64_string(ttl_s));
}

json_t *etcd_lease_body(int64_t id)
{
	return json_pack("{s:o}", "ID", int64_string(id));
}

struct etcd_txn {
	json_t *body;  /* {"compare":[], "success":[], "failure":[]} */
	int oom;
};

struct etcd_txn *etcd_txn_new(void)
{
	struct etcd_txn *t = calloc(1, sizeof(*t));

	if (t && !(t->body = json_pack("{s:[], s:[], s:[]}", "compare", "success", "failure"))) {
		free(t);
		return NULL;
	}
	return t;
}

void etcd_txn_free(struct etcd_txn *t)
{
	if (!t)
		return;
	json_decref(t->body);
	free(t);
}

static const char *const target_names[] = { "CREATE", "MOD", "VERSION", "VALUE", "LEASE" };
static const char *const target_fields[] = { "create_revision", "mod_revision", "version",
					     "value", "lease" };
static const char *const result_names[] = { "EQUAL", "NOT_EQUAL", "LESS", "GREATER" };

static int txn_add(struct etcd_txn *t, const char *list, json_t *item)
{
	if (!item || json_array_append_new(json_object_get(t->body, list), item)) {
		t->oom = 1;
		return -ENOMEM;
	}
	return 0;
}

static json_t *compare_new(const char *key, enum etcd_target target, enum etcd_result result)
{
	json_t *c = key_body(key, NULL);

	if (c && (json_object_set_new(c, "target", json_string(target_names[target])) ||
		  json_object_set_new(c, "result", json_string(result_names[result])))) {
		json_decref(c);
		return NULL;
	}
	return c;
}

int etcd_txn_compare(struct etcd_txn *t, const char *key, enum etcd_target target,
		     enum etcd_result result, int64_t number)
{
	json_t *c = target == ETCD_VALUE ? NULL : compare_new(key, target, result);

	if (c && json_object_set_new(c, target_fields[target], int64_string(number))) {
		json_decref(c);
		c = NULL;
	}
	return txn_add(t, "compare", c);
}

int etcd_txn_compare_value(struct etcd_txn *t, const char *key, enum etcd_result result,
			   const void *value, size_t len)
{
	json_t *c = compare_new(key, ETCD_VALUE, result);

	if (c && set_b64(c, "value", value, len)) {
		json_decref(c);
		c = NULL;
	}
	return txn_add(t, "compare", c);
}

static int txn_op(struct etcd_txn *t, enum etcd_branch b, const char *op, json_t *body)
{
	return txn_add(t, b == ETCD_THEN ? "success" : "failure",
		       body ? json_pack("{s:o}", op, body) : NULL);
}

int etcd_txn_put(struct etcd_txn *t, enum etcd_branch b, const char *key, const void *value,
		 size_t len, int64_t lease)
{
	return txn_op(t, b, "request_put", etcd_put_body(key, value, len, lease));
}

int etcd_txn_delete(struct etcd_txn *t, enum etcd_branch b, const char *key,
		    const char *range_end)
{
	return txn_op(t, b, "request_delete_range", etcd_delete_body(key, range_end));
}

int etcd_txn_range(struct etcd_txn *t, enum etcd_branch b, const char *key,
		   const char *range_end)
{
	return txn_op(t, b, "request_range", etcd_range_body(key, range_end, 0));
}

json_t *etcd_txn_body(const struct etcd_txn *t)
{
	return t->oom ? NULL : t->body;
}

/* ---- answers ------------------------------------------------------------------- */

static int bad(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "etcd's answer: %s", what);
	return -EINVAL;
}

static int decode_b64_field(const json_t *o, const char *field, char **out, size_t *len)
{
	const json_t *v = json_object_get(o, field);

	if (!v) {  /* the gateway leaves out empty fields */
		*len = 0;
		return (*out = calloc(1, 1)) ? 0 : -ENOMEM;
	}
	if (!json_is_string(v))
		return -EINVAL;
	return etcd_b64_decode(json_string_value(v), json_string_length(v), out, len);
}

/* Append the kvs of one range answer (an object with "kvs") to out. */
static int append_kvs(const json_t *ans, struct etcd_kvs *out, char *err, size_t errlen)
{
	const json_t *kvs = json_object_get(ans, "kvs");
	struct etcd_kv *grown;
	size_t n, i;
	int rc;

	if (!kvs)
		return 0;
	if (!json_is_array(kvs))
		return bad(err, errlen, "\"kvs\" is no list");
	n = json_array_size(kvs);
	if (!n)
		return 0;
	if (!(grown = realloc(out->kv, (out->n + n) * sizeof(*grown)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	out->kv = grown;
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(kvs, i);
		struct etcd_kv *kv = &out->kv[out->n];
		size_t klen;

		memset(kv, 0, sizeof(*kv));
		if (!json_is_object(e))
			return bad(err, errlen, "a key-value is no object");
		if ((rc = decode_b64_field(e, "key", &kv->key, &klen)) < 0 ||
		    (rc = decode_b64_field(e, "value", &kv->value, &kv->value_len)) < 0) {
			free(kv->key);
			return rc == -ENOMEM ? (snprintf(err, errlen, "out of memory"), rc) :
					       bad(err, errlen, "a key or value is no base64");
		}
		if (strlen(kv->key) != klen)
			rc = -EINVAL;  /* loom's keys are text */
		if (rc || etcd_json_int64(e, "create_revision", &kv->create_revision) ||
		    etcd_json_int64(e, "mod_revision", &kv->mod_revision) ||
		    etcd_json_int64(e, "version", &kv->version) ||
		    etcd_json_int64(e, "lease", &kv->lease)) {
			free(kv->key);
			free(kv->value);
			return bad(err, errlen, "a key-value has a bad field");
		}
		out->n++;
	}
	return 0;
}

static int header_revision(const json_t *ans, int64_t *rev)
{
	const json_t *h = json_object_get(ans, "header");

	*rev = 0;
	return h ? etcd_json_int64(h, "revision", rev) : 0;
}

int etcd_range_decode(const json_t *ans, struct etcd_kvs *out, char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(ans))
		return bad(err, errlen, "no object");
	if (header_revision(ans, &out->revision))
		return bad(err, errlen, "bad header revision");
	if ((rc = append_kvs(ans, out, err, errlen)) < 0)
		etcd_kvs_clear(out);
	return rc;
}

int etcd_txn_decode(const json_t *ans, int *succeeded, struct etcd_kvs *out, char *err,
		    size_t errlen)
{
	const json_t *resp, *s;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	*succeeded = 0;
	if (!json_is_object(ans))
		return bad(err, errlen, "no object");
	if (header_revision(ans, &out->revision))
		return bad(err, errlen, "bad header revision");
	s = json_object_get(ans, "succeeded");
	if (s && !json_is_boolean(s))
		return bad(err, errlen, "\"succeeded\" is no boolean");
	*succeeded = json_is_true(s);
	resp = json_object_get(ans, "responses");
	if (resp && !json_is_array(resp))
		return bad(err, errlen, "\"responses\" is no list");
	for (size_t i = 0; resp && i < json_array_size(resp) && rc == 0; i++) {
		const json_t *r = json_object_get(json_array_get(resp, i), "response_range");

		if (r)
			rc = append_kvs(r, out, err, errlen);
	}
	if (rc < 0)
		etcd_kvs_clear(out);
	return rc;
}

int etcd_delete_decode(const json_t *ans, int64_t *deleted, char *err, size_t errlen)
{
	if (!json_is_object(ans) || etcd_json_int64(ans, "deleted", deleted))
		return bad(err, errlen, "no count of deleted keys");
	return 0;
}

int etcd_grant_decode(const json_t *ans, int64_t *id, int64_t *ttl, char *err, size_t errlen)
{
	const char *e = json_string_value(json_object_get(ans, "error"));

	if (e && *e) {
		snprintf(err, errlen, "%s", e);
		return -EIO;
	}
	if (!json_is_object(ans) || etcd_json_int64(ans, "ID", id) ||
	    etcd_json_int64(ans, "TTL", ttl) || *id == 0)
		return bad(err, errlen, "no lease ID and TTL");
	return 0;
}

int etcd_keepalive_decode(const json_t *ans, int64_t *ttl, char *err, size_t errlen)
{
	const json_t *r = json_object_get(ans, "result");

	if (!r)
		r = ans;
	if (!json_is_object(r) || etcd_json_int64(r, "TTL", ttl))
		return bad(err, errlen, "no TTL");
	if (*ttl <= 0) {
		snprintf(err, errlen, "the lease has expired or was revoked");
		return -ENOENT;
	}
	return 0;
}

int etcd_error_text(const char *body, size_t len, char *out, size_t outlen, int *code)
{
	json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
	const json_t *e = json_object_get(j, "error");
	const char *text = NULL;
	int64_t c = -1;
	int found = 0;

	if (json_is_object(e)) { /* a stream's error: {"error":{"grpc_code":..,"message":..}} */
		text = json_string_value(json_object_get(e, "message"));
		if (etcd_json_int64(e, "grpc_code", &c) || !json_object_get(e, "grpc_code"))
			c = -1;
		if (c < 0 && (etcd_json_int64(e, "code", &c) || !json_object_get(e, "code")))
			c = -1;
	} else if (json_is_string(e)) {
		text = json_string_value(e);
		if (etcd_json_int64(j, "code", &c) || !json_object_get(j, "code"))
			c = -1;
	}
	if (!text && json_is_string(json_object_get(j, "message")))
		text = json_string_value(json_object_get(j, "message"));
	if (text) {
		snprintf(out, outlen, "%s", text);
		found = 1;
	} else {
		size_t n = 0;  /* body need not be NUL-terminated */

		while (body && n < len && n < 400 && body[n] != '\r' && body[n] != '\n' && body[n])
			n++;
		snprintf(out, outlen, "%.*s", (int)n, body ? body : "");
	}
	*code = (int)c;
	json_decref(j);
	return found;
}

int etcd_code_errno(int code)
{
	switch (code) {
	case 3:  /* InvalidArgument */
	case 9:  /* FailedPrecondition */
		return -EINVAL;
	case 4:  /* DeadlineExceeded */
		return -ETIMEDOUT;
	case 5:  /* NotFound */
		return -ENOENT;
	case 7:  /* PermissionDenied */
		return -EACCES;
	case 14: /* Unavailable */
		return -EAGAIN;
	case 16: /* Unauthenticated */
		return -EPERM;
	default:
		return -EIO;
	}
}
