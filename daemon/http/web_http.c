/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/web_http.c: the web view's static files (issue 20), served
 * from http.web_root: "/" is its index.html, "/web/NAME" its other files.
 *
 * The pages are read-only and hold no data: they ask /api/v1 for it with
 * the operator's token, so the files themselves are served to anyone who
 * reaches the listener (as any web server serves its scripts).
 *
 * What a path may be, checked before any file is opened: segments of
 * letters, digits, '-', '_' and '.', none starting with '.', none empty,
 * at most WEB_MAX_PATH bytes, nothing percent-encoded. So no "..", no
 * hidden file, no second meaning after decoding: a path that is not so is
 * 404, the same answer as a file that is not there (a prober learns
 * nothing). The file must be a regular file of at most WEB_MAX_FILE
 * bytes; symbolic links inside the root are followed (the package links
 * Debian's JavaScript libraries there), which only root can place.
 * Files go out with evbuffer_add_file (sendfile where it can): the loop
 * never copies them. Every answer says nosniff and a Content-Security-
 * Policy that allows nothing but loomd itself. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "daemon/http/config_http.h"
#include "daemon/http/http.h"
#include "daemon/http/http_impl.h"
#include "daemon/http/web_http.h"
#include "lib/util/log.h"

#define WEB_MAX_PATH 128
#define WEB_MAX_FILE (8 << 20)

struct http_web {
	char root[PATH_MAX];          /* "" : no web view (404) */
};

static const struct {
	const char *ext, *type;
} types[] = {
	{ ".html", "text/html; charset=utf-8" }, { ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" }, { ".svg", "image/svg+xml" },
	{ ".png", "image/png" }, { ".ico", "image/x-icon" },
	{ ".json", "application/json" }, { ".txt", "text/plain; charset=utf-8" },
};

static const char *type_of(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t e = strlen(types[i].ext);

		if (n > e && !strcmp(name + n - e, types[i].ext))
			return types[i].type;
	}
	return "application/octet-stream";
}

/* Is rel (a path under the root, without its leading '/') one the web view
 * serves: segments of [A-Za-z0-9._-], none empty or starting with '.'. */
static int path_ok(const char *rel)
{
	size_t n = strlen(rel);
	int seg_start = 1;

	if (!n || n > WEB_MAX_PATH)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = rel[i];

		if (c == '/') {
			if (seg_start)
				return 0;  /* empty segment, or a leading '/' */
			seg_start = 1;
			continue;
		}
		if (seg_start && c == '.')
			return 0;      /* "..", ".hidden" */
		seg_start = 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.'))
			return 0;
	}
	return !seg_start;     /* no trailing '/' */
}

static void not_found(struct evhttp_request *req, const char *path)
{
	http_reply_text(req, HTTP_NOTFOUND, "Not Found", "not found: %s", path);
}

static void serve(struct http_web *w, struct evhttp_request *req, const char *path,
		  const char *rel)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	char file[PATH_MAX + WEB_MAX_PATH + 2], etag[64];
	const char *inm;
	struct evbuffer *b;
	struct stat st;
	int fd;

	if (!w->root[0] || !path_ok(rel)) {
		not_found(req, path);
		return;
	}
	snprintf(file, sizeof(file), "%s/%s", w->root, rel);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			log_warn("http: %s: %s", file, strerror(errno));
		not_found(req, path);
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > WEB_MAX_FILE) {
		close(fd);
		not_found(req, path);
		return;
	}
	snprintf(etag, sizeof(etag), "\"%llx-%llx\"", (unsigned long long)st.st_mtime,
		 (unsigned long long)st.st_size);
	evhttp_add_header(h, "ETag", etag);
	evhttp_add_header(h, "Cache-Control", "no-cache");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(h, "Content-Security-Policy",
			  "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
	evhttp_add_header(h, "Referrer-Policy", "no-referrer");
	inm = evhttp_find_header(evhttp_request_get_input_headers(req), "If-None-Match");
	if (inm && !strcmp(inm, etag)) {
		close(fd);
		evhttp_send_reply(req, 304, "Not Modified", NULL);
		return;
	}
	evhttp_add_header(h, "Content-Type", type_of(rel));
	if (!(b = evbuffer_new())) {
		close(fd);
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	if (st.st_size > 0 && evbuffer_add_file(b, fd, 0, st.st_size) < 0) {
		/* evbuffer_add_file closes fd, failed or not */
		evbuffer_free(b);
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	if (st.st_size == 0)
		close(fd);
	http_send(req, HTTP_OK, "OK", b);   /* HEAD: the length, no body */
	evbuffer_free(b);
}

static const char *req_path(struct evhttp_request *req)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	return path && *path ? path : "/";
}

static void on_index(struct evhttp_request *req, void *arg)
{
	serve(arg, req, req_path(req), "index.html");
}

static void on_file(struct evhttp_request *req, void *arg)
{
	const char *path = req_path(req);

	serve(arg, req, path, path + strlen("/web/"));
}

void http_web_reconfigure(struct http_web *w, const struct http_conf *conf)
{
	if (w)
		snprintf(w->root, sizeof(w->root), "%s", conf->http_web_root);
}

struct http_web *http_web_new(struct http_mod *m, const struct http_conf *conf, char *err,
			      size_t errlen)
{
	struct http_web *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	http_web_reconfigure(w, conf);
	if (http_route(m, "/", HTTP_M_GET | HTTP_M_HEAD, on_index, w) < 0 ||
	    http_route(m, "/web/", HTTP_M_GET | HTTP_M_HEAD, on_file, w) < 0) {
		snprintf(err, errlen, "cannot add the web view's routes");
		free(w);
		return NULL;
	}
	return w;
}

void http_web_free(struct http_web *w)
{
	free(w);
}
