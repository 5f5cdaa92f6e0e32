/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/etcd/etcd.c: see etcd.h. The endpoints, TLS, the auth token and one
 * request over libcurl; the bodies and answers are etcd_codec.c's. */
#include "autoconf.h"
#include "lib/etcd/etcd.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "lib/util/body.h"

#define ETCD_MAX_ENDPOINTS 16
#define ETCD_URL_LEN 256
#define ETCD_MAX_ANSWER (16u << 20)

struct etcd {
	CURL *curl;
	char url[ETCD_MAX_ENDPOINTS][ETCD_URL_LEN];
	unsigned n, cur;
	char *ca, *cert, *key, *user, *password;
	char *token;  /* from /v3/auth/authenticate; NULL: none yet */
	long timeout_ms;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init_once(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static char *dup_opt(const char *s, int *oom)
{
	char *d;

	if (!s || !*s)
		return NULL;
	if (!(d = strdup(s)))
		*oom = 1;
	return d;
}

/* "http(s)://host:port" with an optional trailing "/": 0, or -EINVAL. */
static int check_endpoint(const char *u, size_t n, char *err, size_t errlen)
{
	size_t skip = !strncmp(u, "https://", 8) ? 8 : !strncmp(u, "http://", 7) ? 7 : 0;
	const char *host = u + skip, *end = u + n, *colon;

	if (end > host && end[-1] == '/')
		end--;
	colon = end > host ? memrchr(host, ':', (size_t)(end - host)) : NULL;
	if (!skip || n >= ETCD_URL_LEN || !colon || colon == host ||
	    memchr(host, '/', (size_t)(end - host)) || memchr(host, '@', (size_t)(end - host)) ||
	    strspn(colon + 1, "0123456789") != (size_t)(end - colon - 1) || end == colon + 1) {
		snprintf(err, errlen, "etcd endpoint \"%.*s\": expected http://HOST:PORT or "
			 "https://HOST:PORT", (int)(n > 200 ? 200 : n), u);
		return -EINVAL;
	}
	return 0;
}

struct etcd *etcd_new(const struct etcd_conf *conf, char *err, size_t errlen)
{
	struct etcd *e = calloc(1, sizeof(*e));
	const char *p = conf->endpoints ? conf->endpoints : "";
	int oom = 0;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while (*p) {
		size_t n;

		p += strspn(p, ", ");
		n = strcspn(p, ", ");
		if (!n)
			break;
		if (e->n == ETCD_MAX_ENDPOINTS) {
			snprintf(err, errlen, "more than %d etcd endpoints", ETCD_MAX_ENDPOINTS);
			goto fail;
		}
		if (check_endpoint(p, n, err, errlen) < 0)
			goto fail;
		snprintf(e->url[e->n], ETCD_URL_LEN, "%.*s", (int)(p[n - 1] == '/' ? n - 1 : n), p);
		e->n++;
		p += n;
	}
	if (!e->n) {
		snprintf(err, errlen, "no etcd endpoint");
		goto fail;
	}
	if ((conf->cert && *conf->cert) != (conf->key && *conf->key)) {
		snprintf(err, errlen, "an etcd client certificate needs its key, and a key its "
			 "certificate");
		goto fail;
	}
	e->ca = dup_opt(conf->ca, &oom);
	e->cert = dup_opt(conf->cert, &oom);
	e->key = dup_opt(conf->key, &oom);
	e->user = dup_opt(conf->user, &oom);
	e->password = dup_opt(conf->user && *conf->user ? (conf->password ? conf->password : "") :
			      NULL, &oom);
	if (e->user && !e->password && !oom)
		oom = !(e->password = strdup(""));
	e->timeout_ms = conf->timeout_ms > 0 ? conf->timeout_ms : 1000;
	pthread_once(&global_once, global_init_once);
	if (oom || global_rc != CURLE_OK || !(e->curl = curl_easy_init())) {
		snprintf(err, errlen, oom ? "out of memory" : "libcurl: cannot initialise");
		goto fail;
	}
	return e;
fail:
	etcd_free(e);
	return NULL;
}

void etcd_free(struct etcd *e)
{
	if (!e)
		return;
	if (e->curl)
		curl_easy_cleanup(e->curl);
	if (e->password)
		memset(e->password, 0, strlen(e->password));
	free(e->ca);
	free(e->cert);
	free(e->key);
	free(e->user);
	free(e->password);
	free(e->token);
	free(e);
}

const char *etcd_endpoint(const struct etcd *e)
{
	return e->url[e->cur];
}

/* What one request to one endpoint came to. */
enum outcome {
	OUT_OK,
	OUT_NEXT,  /* unreachable or without quorum: try the next endpoint */
	OUT_AUTH,  /* the token is invalid or expired: authenticate again */
	OUT_FAIL,  /* an answer that the next endpoint would give too */
};

/* The messages of members that cannot serve now (etcd's rpctypes). */
static int unavailable_text(const char *text)
{
	return strstr(text, "no leader") || strstr(text, "timed out") ||
	       strstr(text, "leader changed") || strstr(text, "not capable") ||
	       strstr(text, "too many requests") || strstr(text, "stopped");
}

/* POST payload to url+path with the token (if any): the outcome, *out the
 * parsed answer (OUT_OK), *rc and err otherwise. */
static enum outcome post(struct etcd *e, const char *base, const char *path, const char *payload,
			 int with_token, json_t **out, int *rc, char *err, size_t errlen)
{
	char url[ETCD_URL_LEN + 64], cerr[CURL_ERROR_SIZE] = "", text[512];
	struct curl_slist *hdr = NULL;
	struct body b = { .max = ETCD_MAX_ANSWER };
	CURL *c = e->curl;
	enum outcome o = OUT_OK;
	CURLcode cc;
	long status = 0;
	int code;

	*out = NULL;
	*rc = 0;
	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, e->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, e->timeout_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	if (e->ca)
		curl_easy_setopt(c, CURLOPT_CAINFO, e->ca);
	if (e->cert) {
		curl_easy_setopt(c, CURLOPT_SSLCERT, e->cert);
		curl_easy_setopt(c, CURLOPT_SSLKEY, e->key);
	}
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	if (with_token && e->token) {
		char h[1024];

		snprintf(h, sizeof(h), "Authorization: %s", e->token);
		hdr = curl_slist_append(hdr, h);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && b.over)) {
		switch (cc) {
		case CURLE_COULDNT_CONNECT:
			*rc = -ECONNREFUSED;
			break;
		case CURLE_OPERATION_TIMEDOUT:
			*rc = -ETIMEDOUT;
			break;
		case CURLE_COULDNT_RESOLVE_HOST:
			*rc = -EHOSTUNREACH;
			break;
		case CURLE_PEER_FAILED_VERIFICATION:
		case CURLE_SSL_CONNECT_ERROR:
		case CURLE_SSL_CERTPROBLEM:
		case CURLE_SSL_CACERT_BADFILE:
			*rc = -EPROTO;
			break;
		default:
			*rc = -EIO;
		}
		snprintf(err, errlen, "etcd %s: %s", url, cerr[0] ? cerr : curl_easy_strerror(cc));
		o = OUT_NEXT;
	} else if (b.over) {
		snprintf(err, errlen, "etcd %s: answer over %u bytes or out of memory", url,
			 ETCD_MAX_ANSWER);
		*rc = -ENOMEM;
		o = OUT_FAIL;
	} else {
		json_t *j = b.p ? json_loadb(b.p, b.len, 0, NULL) : NULL;
		int is_err = etcd_error_text(b.p, b.len, text, sizeof(text), &code);

		if (status == 200 && j && !(is_err && code > 0)) {
			*out = j;
		} else {
			json_decref(j);
			*rc = code > 0 ? etcd_code_errno(code) : status == 503 ? -EAGAIN : -EIO;
			if (status != 200 || !text[0])
				snprintf(err, errlen, "etcd %s: HTTP %ld%s%s", url, status,
					 text[0] ? ": " : "", text);
			else
				snprintf(err, errlen, "etcd %s: %s", url, text);
			if (code == 16 || strstr(text, "invalid auth token"))
				o = OUT_AUTH;
			else if (code == 14 || code == 4 || status == 503 || unavailable_text(text))
				o = OUT_NEXT;
			else
				o = OUT_FAIL;
		}
	}
	curl_slist_free_all(hdr);
	free(b.p);
	return o;
}

/* A token for the endpoint base: 0, or the failure with err. */
static int authenticate(struct etcd *e, const char *base, char *err, size_t errlen)
{
	json_t *body = json_pack("{s:s, s:s}", "name", e->user, "password", e->password), *ans;
	char *payload = body ? json_dumps(body, JSON_COMPACT) : NULL;
	const char *tok;
	int rc = 0;

	json_decref(body);
	if (!payload) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (post(e, base, "/v3/auth/authenticate", payload, 0, &ans, &rc, err, errlen) != OUT_OK) {
		memset(payload, 0, strlen(payload));
		free(payload);
		return rc < 0 ? rc : -EIO;
	}
	memset(payload, 0, strlen(payload));
	free(payload);
	tok = json_string_value(json_object_get(ans, "token"));
	free(e->token);
	e->token = tok && *tok ? strdup(tok) : NULL;
	if (!e->token) {
		snprintf(err, errlen, "etcd %s/v3/auth/authenticate: no token in the answer", base);
		rc = -EIO;
	}
	json_decref(ans);
	return rc;
}

int etcd_call(struct etcd *e, const char *path, json_t *body, json_t **out, char *err,
	      size_t errlen)
{
	char *payload = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int rc = -EIO;

	*out = NULL;
	if (!payload) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned tried = 0; tried < e->n; tried++) {
		unsigned i = (e->cur + tried) % e->n;
		enum outcome o;
		int renewed = 0;

		if (e->user && !e->token && (rc = authenticate(e, e->url[i], err, errlen)) < 0) {
			if (rc == -ECONNREFUSED || rc == -ETIMEDOUT || rc == -EHOSTUNREACH ||
			    rc == -EAGAIN || rc == -EIO)
				continue;
			break;  /* wrong credentials: the next member says the same */
		}
again:
		o = post(e, e->url[i], path, payload, 1, out, &rc, err, errlen);
		if (o == OUT_AUTH && e->user && !renewed) {
			renewed = 1;
			free(e->token);
			e->token = NULL;
			if ((rc = authenticate(e, e->url[i], err, errlen)) == 0)
				goto again;
		}
		if (o == OUT_OK) {
			e->cur = i;
			rc = 0;
			break;
		}
		if (o != OUT_NEXT)
			break;
		if (tried + 1 == e->n && e->n > 1) {
			char last[512];

			snprintf(last, sizeof(last), "%s", err);
			snprintf(err, errlen, "none of the %u etcd endpoints answered (the last: %s)",
				 e->n, last);
		}
	}
	free(payload);
	return rc;
}

/* ---- the operations ------------------------------------------------------------ */

/* Call path with body (stolen; NULL: out of memory). */
static int call_new(struct etcd *e, const char *path, json_t *body, json_t **out, char *err,
		    size_t errlen)
{
	int rc;

	if (!body) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = etcd_call(e, path, body, out, err, errlen);
	json_decref(body);
	return rc;
}

int etcd_put(struct etcd *e, const char *key, const void *value, size_t len, int64_t lease,
	     char *err, size_t errlen)
{
	json_t *ans;
	int rc = call_new(e, "/v3/kv/put", etcd_put_body(key, value, len, lease), &ans, err,
			  errlen);

	json_decref(ans);
	return rc;
}

int etcd_range(struct etcd *e, const char *key, const char *range_end, int serializable,
	       struct etcd_kvs *out, char *err, size_t errlen)
{
	json_t *ans;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = call_new(e, "/v3/kv/range", etcd_range_body(key, range_end, serializable), &ans, err,
		      errlen);
	if (rc == 0)
		rc = etcd_range_decode(ans, out, err, errlen);
	json_decref(ans);
	return rc;
}

int etcd_delete(struct etcd *e, const char *key, const char *range_end, int64_t *deleted,
		char *err, size_t errlen)
{
	json_t *ans;
	int64_t n = 0;
	int rc = call_new(e, "/v3/kv/deleterange", etcd_delete_body(key, range_end), &ans, err,
			  errlen);

	if (rc == 0)
		rc = etcd_delete_decode(ans, &n, err, errlen);
	if (deleted)
		*deleted = n;
	json_decref(ans);
	return rc;
}

int etcd_txn(struct etcd *e, const struct etcd_txn *t, int *succeeded, struct etcd_kvs *out,
	     char *err, size_t errlen)
{
	json_t *body = etcd_txn_body(t), *ans;
	int rc;

	memset(out, 0, sizeof(*out));
	*succeeded = 0;
	if (!body) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = etcd_call(e, "/v3/kv/txn", body, &ans, err, errlen);
	if (rc == 0)
		rc = etcd_txn_decode(ans, succeeded, out, err, errlen);
	json_decref(ans);
	return rc;
}

int etcd_lease_grant(struct etcd *e, int64_t ttl_s, int64_t *id, int64_t *ttl, char *err,
		     size_t errlen)
{
	json_t *ans;
	int rc = call_new(e, "/v3/lease/grant", etcd_grant_body(ttl_s), &ans, err, errlen);

	if (rc == 0)
		rc = etcd_grant_decode(ans, id, ttl, err, errlen);
	json_decref(ans);
	return rc;
}

int etcd_lease_keepalive(struct etcd *e, int64_t id, int64_t *ttl, char *err, size_t errlen)
{
	json_t *ans;
	int rc = call_new(e, "/v3/lease/keepalive", etcd_lease_body(id), &ans, err, errlen);

	if (rc == 0)
		rc = etcd_keepalive_decode(ans, ttl, err, errlen);
	json_decref(ans);
	return rc;
}

int etcd_lease_revoke(struct etcd *e, int64_t id, char *err, size_t errlen)
{
	json_t *ans;
	int rc = call_new(e, "/v3/lease/revoke", etcd_lease_body(id), &ans, err, errlen);

	json_decref(ans);
	return rc;
}
