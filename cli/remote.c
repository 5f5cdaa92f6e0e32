/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/remote.c: loomctl --server URL: every command through loomd's REST
 * API (POST /api/v1/call, docs/api.md) instead of the control socket. The
 * answer is the protocol's response object, so the commands print exactly
 * what they print locally. libcurl; the token comes from --token-file F or
 * $LOOM_TOKEN, the CA from --cacert F (else the system's). Several URLs,
 * comma-separated (HA, issue 21): tried in turn while one is not reached,
 * answers not-leader / no-quorum, or dropped the connection before its
 * answer (loomd killed mid-command: the commands are declarative, a retried
 * `tenant create` finds its tenant as asked); while a takeover is under way
 * no URL may lead, so the list is tried again, for up to --failover-wait
 * seconds (default LOOMCTL_FAILOVER_WAIT_S with two URLs or more, 0 with
 * one); the last one's error is reported. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "lib/util/body.h"
#include "lib/util/proto.h"

#define REMOTE_CONNECT_TIMEOUT_S 10L
/* A whole call: `discover --wait` may take as long as a sweep. */
#define REMOTE_TIMEOUT_S 900L

/* The token: --token-file's first line, else $LOOM_TOKEN. 0 and *out
 * (malloc'd), or -errno reported. */
static int read_token(const struct loomctl *lc, char **out)
{
	char line[1024];
	const char *env = getenv("LOOM_TOKEN");
	FILE *f;
	size_t n;

	*out = NULL;
	if (!lc->token_file) {
		if (!env || !*env) {
			loomctl_error(lc, "%s needs a token: --token-file FILE or LOOM_TOKEN",
				      lc->server);
			return -EINVAL;
		}
		return (*out = strdup(env)) ? 0 : -ENOMEM;
	}
	if (!(f = fopen(lc->token_file, "re"))) {
		int e = errno;

		loomctl_error(lc, "cannot read the token file %s: %s", lc->token_file, strerror(e));
		return -e;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (!n) {
		loomctl_error(lc, "the token file %s is empty", lc->token_file);
		return -EINVAL;
	}
	return (*out = strdup(line)) ? 0 : -ENOMEM;
}

/* One call to one server: 0 with *result, or -errno with the error in msg
 * (not printed) and *next set when another server of --server's list may
 * answer: this one was not reached, dropped the connection before any
 * answer, or is an HA follower ("not-leader") or without etcd
 * ("no-quorum"). */
static int call_one(const struct loomctl *lc, const char *server, const char *req_text,
		    const char *auth, json_t **result, char *msg, size_t msglen, char *ecode,
		    size_t ecodelen, int *next)
{
	struct body b = { .max = PROTO_MAX_RESPONSE };
	char url[2048], errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL;
	json_t *resp = NULL;
	json_error_t je;
	long status = 0;
	CURL *c = NULL;
	CURLcode cc;
	int rc;

	*next = 0;
	{
		size_t n = strlen(server);

		while (n && server[n - 1] == '/')
			n--;
		snprintf(url, sizeof(url), "%.*s/api/v1/call", (int)n, server);
	}
	if (!(c = curl_easy_init())) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	hdr = curl_slist_append(hdr, auth);
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, "Expect:");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, req_text);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, REMOTE_CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, REMOTE_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (lc->cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, lc->cacert);
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (cc != CURLE_OK) {
		snprintf(msg, msglen, "%s: %s", server, b.over ? "the answer is over the "
			 "protocol's limit" : errbuf[0] ? errbuf : curl_easy_strerror(cc));
		/* not reached (loomctl_call's exit status 3), or reached and failed */
		rc = cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ?
		     -EHOSTUNREACH : cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT :
		     cc == CURLE_GOT_NOTHING || cc == CURLE_RECV_ERROR ||
		     cc == CURLE_SEND_ERROR ? -ECONNRESET : -EIO;
		/* A dropped connection: the server died (or restarted) under the
		 * command, which the next server may finish; a timeout may still
		 * be running it, and is not retried. */
		*next = rc == -EHOSTUNREACH || rc == -ECONNRESET;
		goto out;
	}
	resp = b.p ? json_loadb(b.p, b.len, 0, &je) : NULL;
	if (json_is_object(resp) && json_object_get(resp, "ok")) {
		/* The protocol's answer, whatever the status: as the socket's. */
		json_t *ok = json_object_get(resp, "ok");
		json_t *e = json_object_get(resp, "error");
		const char *code = json_string_value(json_object_get(e, "code"));

		if (json_is_true(ok)) {
			*result = json_incref(json_object_get(resp, "result"));
			if (!*result)
				*result = json_null();
			rc = 0;
			goto out;
		}
		/* The socket's message, then where it came from. */
		/* loomd's code apart (--json's error object), its message then */
		snprintf(ecode, ecodelen, "%s", code ? code : "error");
		snprintf(msg, msglen, "%s (%s: HTTP %ld)",
			 json_string_value(json_object_get(e, "message")) ?
			 json_string_value(json_object_get(e, "message")) : "(no message)",
			 server, status);
		rc = code && !strcmp(code, PROTO_ERR_TOO_LARGE) ? -EMSGSIZE : -EREMOTEIO;
		*next = code && (!strcmp(code, PROTO_ERR_NOT_LEADER) ||
				 !strcmp(code, PROTO_ERR_NO_QUORUM));
		goto out;
	}
	{
		/* Not an answer of the call: the API refused the request itself
		 * (401, 413 ...), or this is not loomd. */
		json_t *e = json_object_get(resp, "error");
		const char *m = json_string_value(json_object_get(e, "message"));

		snprintf(msg, msglen, "%s answered HTTP %ld: %s", server, status,
			 m ? m : b.len ? "not a loomd API answer" : "no body");
		rc = status == 401 || status == 403 ? -EACCES : -EREMOTEIO;
	}
out:
	json_decref(resp);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	free(b.p);
	return rc;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* How long a list of servers is tried again while none leads. */
static double failover_wait_s(const struct loomctl *lc)
{
	if (lc->failover_wait_s >= 0)
		return lc->failover_wait_s;
	return strchr(lc->server, ',') ? LOOMCTL_FAILOVER_WAIT_S : 0;
}

/* --server URL[,URL...]: the servers in turn (HA: the leader may be any of
 * them); the first answer that is not "go elsewhere" counts. When every
 * one said "go elsewhere" (a takeover under way), the list again after a
 * pause, until failover_wait_s() has passed. */
int remote_call(const struct loomctl *lc, const char *cmd, json_t *args, json_t **result)
{
	char *token = NULL, *auth = NULL, *req_text, *list = NULL, *save = NULL, msg[4096];
	char code[64];
	double until, pause = 0.25;
	json_t *req;
	int rc, next = 0;

	*result = NULL;
	if ((rc = read_token(lc, &token)) < 0) {
		json_decref(args);
		return rc;
	}
	/* args is stolen, as client_call's proto_request_new does */
	req = json_pack("{s:s, s:o}", "cmd", cmd, "args", args ? args : json_object());
	req_text = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	if (!req_text || asprintf(&auth, "Authorization: Bearer %s", token) < 0) {
		loomctl_error(lc, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	until = now_mono() + failover_wait_s(lc);
	for (;;) {
		free(list);
		if (!(list = strdup(lc->server))) {
			loomctl_error(lc, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
		rc = -EINVAL;
		snprintf(msg, sizeof(msg), "--server: no URL");
		code[0] = '\0';
		for (char *srv = strtok_r(list, ",", &save), *after; srv; srv = after) {
			after = strtok_r(NULL, ",", &save);
			code[0] = '\0';
			rc = call_one(lc, srv, req_text, auth, result, msg, sizeof(msg), code,
				      sizeof(code), &next);
			if (rc == 0 || !next)
				break;
		}
		if (rc == 0 || !next || now_mono() + pause > until)
			break;
		nanosleep(&(struct timespec){ (time_t)pause,
					     (long)((pause - (double)(time_t)pause) * 1e9) }, NULL);
		if (pause < 1)
			pause *= 2;
	}
	if (rc < 0)
		/* loomd's errors "CODE: message (server: HTTP n)" as the socket's */
		loomctl_error_code(lc, code[0] ? code : rc == -EACCES ? LOOMCTL_ERR_DENIED :
				   rc == -EHOSTUNREACH || rc == -ETIMEDOUT ?
				   LOOMCTL_ERR_UNREACHABLE : LOOMCTL_ERR_FAILED, code[0] != '\0',
				   "%s", msg);
out:
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	free(list);
	free(req_text);
	return rc;
}
