/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/eos/eos_rpc.c: eAPI's runCmds over libcurl (see eos_rpc.h).
 *
 * Request (Arista "Command API" guide, eAPI 101 on eos.arista.com):
 *   POST <address>/command-api, Content-Type: application/json, HTTP basic
 *   auth, body {"jsonrpc":"2.0","method":"runCmds","params":{"version":1,
 *   "cmds":[...],"format":"json"|"text"},"id":"loom-<n>"}.
 * Answer: {"jsonrpc":"2.0","id":...,"result":[one object per command]}
 *   (format text: {"output":"..."} per command), or {"error":{"code":
 *   1002 (invalid command) / 1000 (command failed) / ..., "message":
 *   "CLI command 3 of 5 'x' failed: invalid command", "data":[the results
 *   of the commands before it, then {"errors":["..."]} for the failing
 *   one]}}. eAPI stops at the first failing command; the ones before it
 *   ran. The failing index is taken from the length of "data" (less one),
 *   else from "CLI command <i> of" in the message.
 *
 * libcurl: CURLOPT_NOSIGNAL (ops run on loomd's worker threads), one easy
 * handle per switch (never shared: loomd runs one op per handle at a
 * time), curl_global_init once per process (pthread_once). With
 * CURLOPT_NOSIGNAL libcurl no longer ignores SIGPIPE itself, and a TLS
 * write to a peer that closed could raise it: SIGPIPE is blocked in the
 * calling thread while a request runs, and one it raised is consumed. */
#include "autoconf.h"
#include "../lp_http.h"
#include "eos_rpc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int parse_address(struct eos_conn *c, const char *a, char *err, size_t errlen)
{
	const char *host;
	size_t len;

	if (!a || (strncmp(a, "https://", 8) && strncmp(a, "http://", 7))) {
		snprintf(err, errlen, "address \"%s\": the eos plugin takes https://host[:port] "
			 "(or http://host:port)", a ? a : "");
		return -EINVAL;
	}
	host = strstr(a, "://") + 3;
	len = strlen(a);
	while (len && a[len - 1] == '/')
		len--;
	if (!*host || *host == '/' || strcspn(host, "/?#@ ") < strlen(host) - (strlen(a) - len)) {
		snprintf(err, errlen, "address \"%s\": want scheme://host[:port] and nothing "
			 "more (the plugin adds /command-api)", a);
		return -EINVAL;
	}
	if (len + sizeof("/command-api") > sizeof(c->url)) {
		snprintf(err, errlen, "address \"%s\" is too long", a);
		return -ENAMETOOLONG;
	}
	snprintf(c->url, sizeof(c->url), "%.*s/command-api", (int)len, a);
	return 0;
}

static int parse_credentials(struct eos_conn *c, const char *cred, char *err, size_t errlen)
{
	size_t line;
	const char *colon;

	if (!cred)
		return 0;
	line = strcspn(cred, "\r\n");
	colon = memchr(cred, ':', line);
	if (!colon || colon == cred) {
		snprintf(err, errlen, "credentials: want one line \"user:password\"");
		return -EINVAL;
	}
	if ((size_t)(colon - cred) >= sizeof(c->user) ||
	    line - (size_t)(colon - cred) > sizeof(c->password)) {
		snprintf(err, errlen, "credentials: user or password too long");
		return -EINVAL;
	}
	snprintf(c->user, sizeof(c->user), "%.*s", (int)(colon - cred), cred);
	snprintf(c->password, sizeof(c->password), "%.*s", (int)(line - (size_t)(colon - cred) - 1),
		 colon + 1);
	return 0;
}

static int parse_options(struct eos_conn *c, const char *opts, char *err, size_t errlen)
{
	char buf[512], *save = NULL, *o;

	if (!opts || !*opts)
		return 0;
	if (strlen(opts) >= sizeof(buf)) {
		snprintf(err, errlen, "options too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", opts);
	for (o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcmp(o, "insecure"))
			c->insecure = 1;
		else if (!strncmp(o, "cacert=", 7) && o[7] && strlen(o + 7) < sizeof(c->cacert))
			snprintf(c->cacert, sizeof(c->cacert), "%s", o + 7);
		else {
			snprintf(err, errlen, "option \"%s\": the eos plugin takes \"insecure\" and "
				 "\"cacert=/path\"", o);
			return -EINVAL;
		}
	}
	return 0;
}

int eos_conn_init(struct eos_conn *c, const struct lp_endpoint *ep, char *err, size_t errlen)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->timeout_ms = ep->timeout_ms > 0 ? ep->timeout_ms : 10000;
	if ((rc = parse_address(c, ep->address, err, errlen)) ||
	    (rc = parse_credentials(c, ep->credentials, err, errlen)) ||
	    (rc = parse_options(c, ep->options, err, errlen)))
		return rc;
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK) {
		snprintf(err, errlen, "curl_global_init: %s", curl_easy_strerror(curl_init_rc));
		return -ENOMEM;
	}
	if (!(c->curl = curl_easy_init()) ||
	    !(c->headers = curl_slist_append(NULL, "Content-Type: application/json"))) {
		eos_conn_fini(c);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)c->timeout_ms);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	if (c->user[0]) {
		curl_easy_setopt(c->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c->curl, CURLOPT_USERNAME, c->user);
		curl_easy_setopt(c->curl, CURLOPT_PASSWORD, c->password);
	}
	if (c->insecure) {
		curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (c->cacert[0])
		curl_easy_setopt(c->curl, CURLOPT_CAINFO, c->cacert);
	return 0;
}

void eos_conn_fini(struct eos_conn *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	if (c->headers)
		curl_slist_free_all(c->headers);
	c->curl = NULL;
	c->headers = NULL;
	memset(c->password, 0, sizeof(c->password));
}

/* curl_easy_perform with SIGPIPE blocked in this thread. */
static CURLcode perform(CURL *curl)
{
	sigset_t pipe, pending, old;
	int was_pending, blocked;
	CURLcode cc;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigemptyset(&pending);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE) == 1;
	blocked = pthread_sigmask(SIG_BLOCK, &pipe, &old) == 0;
	cc = curl_easy_perform(curl);
	if (blocked) {
		sigemptyset(&pending);
		if (!was_pending && sigpending(&pending) == 0 &&
		    sigismember(&pending, SIGPIPE) == 1) {
			const struct timespec zero = { 0, 0 };

			while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR)
				;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return cc;
}

static int curl_errno(CURLcode cc)
{
	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_OUT_OF_MEMORY:
	case CURLE_WRITE_ERROR:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

int eos_run(struct eos_conn *c, const char *const *cmds, size_t n, const char *format,
	    json_t **result, int *failed, char *err, size_t errlen)
{
	json_t *req, *arr;
	struct lp_buf b = { 0 };
	char *body = NULL, id[32];
	long status = 0;
	CURLcode cc;
	int rc;

	*result = NULL;
	if (failed)
		*failed = -1;
	if (!(arr = json_array()))
		goto oom;
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(arr, json_string(cmds[i]))) {
			json_decref(arr);
			goto oom;
		}
	snprintf(id, sizeof(id), "loom-%lu", ++c->id);
	req = json_pack("{s:s, s:s, s:{s:i, s:o, s:s}, s:s}", "jsonrpc", "2.0", "method",
			"runCmds", "params", "version", 1, "cmds", arr, "format", format, "id", id);
	if (!req || !(body = json_dumps(req, JSON_COMPACT))) {
		json_decref(req);
		goto oom;
	}
	json_decref(req);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, lp_buf_write);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &b);
	cc = perform(c->curl);
	free(body);
	if (cc != CURLE_OK) {
		rc = b.oom ? -ENOMEM : curl_errno(cc);
		snprintf(err, errlen, "POST %s: %s", c->url, b.oom ? "answer too large or out of "
			 "memory" : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status == 401 || status == 403) {
		snprintf(err, errlen, "POST %s: HTTP %ld: eAPI refused the credentials%s", c->url,
			 status, c->user[0] ? " of user" : " (no credentials given)");
		if (c->user[0] && strlen(err) + strlen(c->user) + 3 < errlen)
			snprintf(err + strlen(err), errlen - strlen(err), " %s", c->user);
		rc = -EACCES;
		goto out;
	}
	if (status != 200) {
		snprintf(err, errlen, "POST %s: HTTP %ld%s%.*s", c->url, status, b.n ? ": " : "",
			 (int)strcspn(b.p ? b.p : "", "\r\n"), b.p ? b.p : "");
		rc = -EPROTO;
		goto out;
	}
	rc = eos_rpc_decode(b.p, b.n, c->url, cmds, n, result, failed, err, errlen);
out:
	free(b.p);
	return rc;
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}
