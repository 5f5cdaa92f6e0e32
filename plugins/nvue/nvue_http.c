/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/nvue/nvue_http.c: the nvue plugin's HTTP(S) side, with libcurl:
 * the endpoint's forms (address, credentials, options), one JSON request
 * at a time on the handle's reused connection, and errors in the switch's
 * own words.
 *
 * address:     "https://host[:port]" (port 8765, NVUE's, when none) or
 *              "http://127.0.0.1:port" / "http://[::1]:port" (a local
 *              test server or tunnel: plain http to another host would
 *              send the password in clear, and is refused); a trailing
 *              "/nvue_v1" or "/" is accepted. Nothing else.
 * credentials: the first line of the file, "user:password" (HTTP basic
 *              authentication, as the NVUE API takes it).
 * options:     "insecure" (no TLS certificate or host name check: the
 *              switch's self-signed certificate), "cacert=/path" (a CA
 *              bundle to check it with instead); anything else is refused.
 * timeout_ms:  connect + transfer of each request (default 10 s). */
#include "autoconf.h"
#include "../lp_http.h"
#include "nvue.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init_once(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* curl_global_init is not thread-safe before libcurl 7.84, and loomd
 * opens switches from several threads: the first open does it, once. */
static int global_init(void)
{
	pthread_once(&global_once, global_init_once);
	return global_rc == CURLE_OK ? 0 : -ENOMEM;
}

static int parse_options(struct lp_switch *sw, const char *options, char *err, size_t errlen)
{
	char buf[512], *save = NULL;

	if (!options || !*options)
		return 0;
	if (strlen(options) >= sizeof(buf)) {
		snprintf(err, errlen, "options: too long");
		return -EINVAL;
	}
	strcpy(buf, options);
	for (char *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		while (*o == ' ')
			o++;
		if (!strcmp(o, "insecure")) {
			sw->insecure = 1;
		} else if (!strncmp(o, "cacert=", 7) && o[7]) {
			if (strlen(o + 7) >= sizeof(sw->cacert)) {
				snprintf(err, errlen, "options: cacert path too long");
				return -EINVAL;
			}
			strcpy(sw->cacert, o + 7);
		} else {
			snprintf(err, errlen, "options: \"%s\" is none of the nvue plugin's "
				 "(insecure, cacert=PATH)", o);
			return -EINVAL;
		}
	}
	return 0;
}

int nv_http_init(struct lp_switch *sw, const struct lp_endpoint *ep, char *err, size_t errlen)
{
	const char *a = ep->address, *host;
	size_t n;
	int https, rc;

	if (!a || (strncmp(a, "https://", 8) && strncmp(a, "http://", 7))) {
		snprintf(err, errlen, "address \"%s\": the nvue plugin takes https://host[:port] "
			 "(or http://host:port)", a ? a : "");
		return -EINVAL;
	}
	https = !strncmp(a, "https://", 8);
	host = a + (https ? 8 : 7);
	n = strcspn(host, "/");
	if (!n || n > 200 || host[n] == '?' || strchr(host, '@') ||
	    (host[n] && strcmp(host + n, "/") && strcmp(host + n, "/nvue_v1") &&
	     strcmp(host + n, "/nvue_v1/"))) {
		snprintf(err, errlen, "address \"%s\": the nvue plugin takes https://host[:port] "
			 "(or http://host:port), no path", a);
		return -EINVAL;
	}
	{
		/* a port? ("[::1]:8765", "leaf1:8765", "leaf1") */
		const char *end = host + n, *colon = NULL;

		if (*host == '[') {
			const char *rb = memchr(host, ']', n);

			if (!rb) {
				snprintf(err, errlen, "address \"%s\": unclosed [", a);
				return -EINVAL;
			}
			if (rb + 1 < end && rb[1] == ':')
				colon = rb + 1;
		} else {
			colon = memchr(host, ':', n);
		}
		if (!https) {
			size_t hl = (size_t)((colon ? colon : end) - host);

			if (!((hl == 9 && !strncmp(host, "127.0.0.1", 9)) ||
			      (hl == 9 && !strncmp(host, "localhost", 9)) ||
			      (hl == 5 && !strncmp(host, "[::1]", 5)))) {
				snprintf(err, errlen, "address \"%s\": plain http only to this host "
					 "(127.0.0.1, ::1): the password would cross the network "
					 "in clear; use https://", a);
				return -EINVAL;
			}
		}
		if (colon) {
			char *e;
			long port = strtol(colon + 1, &e, 10);

			if (e != end || port < 1 || port > 65535) {
				snprintf(err, errlen, "address \"%s\": bad port", a);
				return -EINVAL;
			}
			snprintf(sw->base, sizeof(sw->base), "%s://%.*s/nvue_v1/",
				 https ? "https" : "http", (int)n, host);
		} else {
			snprintf(sw->base, sizeof(sw->base), "%s://%.*s%s/nvue_v1/",
				 https ? "https" : "http", (int)n, host, https ? ":8765" : ":80");
		}
	}
	if (ep->credentials && *ep->credentials) {
		size_t l = strcspn(ep->credentials, "\r\n");

		if (!memchr(ep->credentials, ':', l) || l >= sizeof(sw->userpwd)) {
			snprintf(err, errlen, "credentials: the first line must be user:password");
			return -EINVAL;
		}
		memcpy(sw->userpwd, ep->credentials, l);
		sw->userpwd[l] = '\0';
	}
	if ((rc = parse_options(sw, ep->options, err, errlen)))
		return rc;
	sw->timeout_ms = ep->timeout_ms > 0 ? ep->timeout_ms : 10000;
	if (global_init() || !(sw->curl = curl_easy_init())) {
		snprintf(err, errlen, "libcurl: cannot initialise");
		return -ENOMEM;
	}
	return 0;
}

void nv_http_fini(struct lp_switch *sw)
{
	if (sw->curl)
		curl_easy_cleanup(sw->curl);
	sw->curl = NULL;
	memset(sw->userpwd, 0, sizeof(sw->userpwd));
}

/* Append s to url, percent-encoding all but [A-Za-z0-9-._~] and, if
 * keep_slash (a path), '/' and '%' (a path component already encoded). */
static int url_append(char *url, size_t len, const char *s, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = strlen(url);

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || strchr("-._~", c) ||
			    (keep_slash && (c == '/' || c == '%'));

		if (o + (plain ? 1 : 3) >= len)
			return -ENAMETOOLONG;
		if (plain) {
			url[o++] = (char)c;
		} else {
			url[o++] = '%';
			url[o++] = hex[c >> 4];
			url[o++] = hex[c & 15];
		}
	}
	url[o] = '\0';
	return 0;
}

/* The server's words from an error body: NVUE answers errors as JSON
 * {"title": ..., "detail": ...} (RFC 7807 problem details); anything else
 * is quoted as it came, on one line. */
static void error_text(const struct lp_buf *b, char *out, size_t len)
{
	json_t *j = b->p ? json_loads(b->p, 0, NULL) : NULL;
	const char *title = NULL, *detail = NULL;

	if (j && json_is_object(j)) {
		title = json_string_value(json_object_get(j, "title"));
		detail = json_string_value(json_object_get(j, "detail"));
	}
	if (title || detail)
		snprintf(out, len, "%s%s%s", title ? title : "", title && detail ? ": " : "",
			 detail ? detail : "");
	else
		snprintf(out, len, "%.*s", b->p ? (int)strcspn(b->p, "\r\n") : 0, b->p ? b->p : "");
	json_decref(j);
}

int nv_request(struct lp_switch *sw, const char *method, const char *path, const char *rev,
	       json_t *body, json_t **out, char *err, size_t errlen)
{
	char url[1024], cerr[CURL_ERROR_SIZE] = "", text[256];
	struct curl_slist *hdr = NULL;
	struct lp_buf b = { 0 };
	char *payload = NULL;
	CURL *c = sw->curl;
	CURLcode cc;
	long status = 0;
	int rc = 0;

	if (out)
		*out = NULL;
	snprintf(url, sizeof(url), "%s", sw->base);
	if (url_append(url, sizeof(url), path, 1) ||
	    (rev && (strlen(url) + 5 >= sizeof(url) || !strcat(url, "?rev=") ||
		     url_append(url, sizeof(url), rev, 0)))) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	if (body && !(payload = json_dumps(body, JSON_COMPACT))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)sw->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)sw->timeout_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, lp_buf_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	if (sw->userpwd[0]) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERPWD, sw->userpwd);
	}
	if (sw->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (sw->cacert[0]) {
		curl_easy_setopt(c, CURLOPT_CAINFO, sw->cacert);
	}
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (payload) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload);
	} else if (!strcmp(method, "POST") || !strcmp(method, "PATCH")) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);

	/* a write to a connection the switch closed must not kill loomd */
	{
		sigset_t pipeset, old, pending;
		int was_pending;

		sigemptyset(&pipeset);
		sigaddset(&pipeset, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipeset, &old);
		sigpending(&pending);
		was_pending = sigismember(&pending, SIGPIPE);
		cc = curl_easy_perform(c);
		sigpending(&pending);
		if (!was_pending && sigismember(&pending, SIGPIPE)) {
			struct timespec zero = { 0, 0 };

			sigtimedwait(&pipeset, NULL, &zero);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && b.oom)) {
		switch (cc) {
		case CURLE_COULDNT_CONNECT:
			rc = -ECONNREFUSED;
			break;
		case CURLE_OPERATION_TIMEDOUT:
			rc = -ETIMEDOUT;
			break;
		case CURLE_COULDNT_RESOLVE_HOST:
			rc = -EHOSTUNREACH;
			break;
		case CURLE_PEER_FAILED_VERIFICATION:
		case CURLE_SSL_CONNECT_ERROR:
		case CURLE_SSL_CERTPROBLEM:
		case CURLE_SSL_CACERT_BADFILE:
			rc = -EPROTO;
			break;
		default:
			rc = -EIO;
		}
		snprintf(err, errlen, "%s %s: %s", method, url, cerr[0] ? cerr : curl_easy_strerror(cc));
	} else if (b.oom) {
		snprintf(err, errlen, "%s %s: answer too large or out of memory", method, url);
		rc = -ENOMEM;
	} else if (status < 200 || status > 299) {
		error_text(&b, text, sizeof(text));
		snprintf(err, errlen, "%s %s: HTTP %ld%s%s", method, url, status, text[0] ? ": " : "",
			 text);
		rc = status == 401 || status == 403 ? -EACCES : status == 404 ? -ENOENT : -EIO;
	} else if (out && b.p && b.n) {
		*out = json_loadb(b.p, b.n, 0, NULL);
	}
	curl_slist_free_all(hdr);
	free(payload);
	free(b.p);
	return rc;
}
