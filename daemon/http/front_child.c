/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_child.c: the HTTP front end's process, `loomd
 * --http-front` (front.h says why it is apart; front_proto.h what it is
 * handed).
 *
 * In order: read the configuration from the channel (fd 3); make the
 * listener on the inherited sockets (fd 4..), TLS with it, the API with
 * its tokens, /metrics and /readyz, the web view; then enter the sandbox
 * (daemon/core/sandbox.h) and check it: each path the core named (the
 * database, the MAD devices) and those of $LOOMD_FRONT_PROBE must fail to
 * open, or the front end refuses to serve. Then "hello", and the loop.
 * SIGTERM: accept no more, serve the connections open until they close
 * (a reload's keep-alive clients keep theirs; at most twice http.timeout_s),
 * exit. The channel closing (the core gone): exit. */
#include "autoconf.h"
#include "daemon/http/front_child.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/core/sandbox.h"
#include "daemon/http/api.h"
#include "daemon/http/config_http.h"
#include "daemon/http/front_link.h"
#include "daemon/http/front_proto.h"
#include "daemon/http/http.h"
#include "daemon/http/metrics_route.h"
#include "daemon/http/web_http.h"
#include "lib/util/log.h"

#define MAX_PROBES 64

/* The sanitizer lane (tools/check-asan.sh) has reports written to
 * files (ASAN_OPTIONS log_path): a file the sandbox would not let the
 * runtime open when it has something to say. Its file is opened now, and
 * the suppressions read. */
#if defined(__SANITIZE_ADDRESS__)
#define FRONT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FRONT_SANITIZED 1
#endif
#endif
#ifdef FRONT_SANITIZED
#include <stdint.h>
#include <sanitizer/common_interface_defs.h>

/* The value of key (e.g. "log_path=") in option string env into out:
 * 1, or 0 when it is not there. */
static int sanitizer_opt(const char *env, const char *key, char *out, size_t len)
{
	const char *o = getenv(env), *p = o ? strstr(o, key) : NULL;

	if (!p)
		return 0;
	p += strlen(key);
	snprintf(out, len, "%.*s", (int)strcspn(p, ":"), p);
	return 1;
}

static void sanitizer_report_file(void)
{
	char lp[PATH_MAX], path[PATH_MAX + 32];
	int fd;

	if (!sanitizer_opt("ASAN_OPTIONS", "log_path=", lp, sizeof(lp)))
		return;
	snprintf(path, sizeof(path), "%s.loomd-http.%d", lp, (int)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) >= 0)
		__sanitizer_set_report_fd((void *)(intptr_t)fd);
}

/* The directory of the suppressions file an option string names, for
 * the sandbox's read-only view (LeakSanitizer reads it at exit). */
static const char *sanitizer_dir(const char *env, char *out, size_t len)
{
	char *slash;

	if (!sanitizer_opt(env, "suppressions=", out, len) || !(slash = strrchr(out, '/')) ||
	    slash == out)
		return NULL;
	*slash = '\0';
	return out;
}
#else
static void sanitizer_report_file(void)
{
}

static const char *sanitizer_dir(const char *env, char *out, size_t len)
{
	(void)env;
	(void)out;
	(void)len;
	return NULL;
}
#endif

struct front {
	struct event_base *base;
	struct http_conf conf;
	struct http_mod *http;
	struct front_link *link;
	struct api *api;
	struct metrics_route *metrics;
	struct http_web *web;
	struct event *sig_term, *drain;
	time_t drain_until;
	char user[64];
	char probes[MAX_PROBES][512];
	int n_probes, n_listen;
};

/* Read exactly len bytes of the channel (blocking: nothing else runs yet). */
static int read_full(int fd, void *p, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, (char *)p + got, len - got);

		if (n == 0)
			return -EPIPE;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += (size_t)n;
	}
	return 0;
}

/* The "config" message and the struct after it. */
static int read_config(struct front *fr, char *err, size_t errlen)
{
	json_t *m = NULL, *pr;
	size_t i;
	int rc = proto_recv_fd(FRONT_FD_CHANNEL, FRONT_MAX_FRAME, &m);
	const char *op = json_string_value(json_object_get(m, "op"));

	if (rc < 0 || !op || strcmp(op, "config") ||
	    json_integer_value(json_object_get(m, "bytes")) != (json_int_t)sizeof(fr->conf)) {
		snprintf(err, errlen, "no configuration from the core (%s)",
			 rc < 0 ? strerror(-rc) : "not this loomd's");
		json_decref(m);
		return -EPROTO;
	}
	fr->n_listen = (int)json_integer_value(json_object_get(m, "listeners"));
	snprintf(fr->user, sizeof(fr->user), "%s",
		 json_string_value(json_object_get(m, "user")) ?
		 json_string_value(json_object_get(m, "user")) : "");
	log_init("loomd-http", (enum log_level)json_integer_value(json_object_get(m, "log_level")),
		 (enum log_target)json_integer_value(json_object_get(m, "log_target")));
	json_array_foreach(json_object_get(m, "probe"), i, pr)
		if (json_is_string(pr) && fr->n_probes < MAX_PROBES)
			snprintf(fr->probes[fr->n_probes++], sizeof(fr->probes[0]), "%s",
				 json_string_value(pr));
	json_decref(m);
	if ((rc = read_full(FRONT_FD_CHANNEL, &fr->conf, sizeof(fr->conf))) < 0) {
		snprintf(err, errlen, "the configuration: %s", strerror(-rc));
		return rc;
	}
	if (fr->n_listen < 0 || fr->n_listen > fr->conf.http_n_listen) {
		snprintf(err, errlen, "%d listening sockets for %d addresses", fr->n_listen,
			 fr->conf.http_n_listen);
		return -EPROTO;
	}
	return 0;
}

/* The paths that must not open once sandboxed: the core's and
 * $LOOMD_FRONT_PROBE's (colon-separated). 0, or -EPERM naming the one
 * that opened. */
static int check_sandbox(struct front *fr, char *err, size_t errlen)
{
	const char *env = getenv("LOOMD_FRONT_PROBE");
	char extra[4096];
	int n = 0;

	snprintf(extra, sizeof(extra), "%s", env ? env : "");
	for (char *save = NULL, *p = strtok_r(extra, ":", &save); p && fr->n_probes < MAX_PROBES;
	     p = strtok_r(NULL, ":", &save))
		snprintf(fr->probes[fr->n_probes++], sizeof(fr->probes[0]), "%s", p);
	for (int i = 0; i < fr->n_probes; i++) {
		int fd = open(fr->probes[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0) {
			close(fd);
			snprintf(err, errlen, "the sandbox is not closed: %s opens", fr->probes[i]);
			return -EPERM;
		}
		log_info("sandbox: %s cannot be opened (%s)", fr->probes[i], strerror(errno));
		n++;
	}
	log_notice("sandbox: none of the %d paths checked opens (the database, the MAD devices%s)", n,
		   n > 0 && getenv("LOOMD_FRONT_PROBE") ? ", $LOOMD_FRONT_PROBE" : "");
	return 0;
}

static void on_closed(void *arg)
{
	struct front *fr = arg;

	event_base_loopexit(fr->base, NULL);
}

/* Draining: done when nothing is under way, or at the deadline. */
static void on_drain(evutil_socket_t fd, short what, void *arg)
{
	struct front *fr = arg;
	struct timeval tv = { 0, 100 * 1000 };

	(void)fd;
	(void)what;
	if ((!http_open(fr->http) && !front_link_pending(fr->link)) ||
	    time(NULL) >= fr->drain_until) {
		event_base_loopexit(fr->base, NULL);
		return;
	}
	evtimer_add(fr->drain, &tv);
}

static void on_term(evutil_socket_t fd, short what, void *arg)
{
	struct front *fr = arg;

	(void)fd;
	(void)what;
	if (fr->drain_until)
		return;
	log_info("SIGTERM: accepting no more; ending the requests under way");
	http_quiesce(fr->http);
	/* A keep-alive connection ends by itself within http.timeout_s of
	 * its last request; one that keeps asking is closed at the deadline. */
	fr->drain_until = time(NULL) + 2 * fr->conf.http_timeout_s + fr->conf.http_header_timeout_s;
	on_drain(-1, 0, fr);
}

static void fail(struct front *fr, const char *err)
{
	json_t *m = json_pack("{s:s, s:s}", "op", "failed", "error", err);

	log_err("%s", err);
	if (fr->link && m)
		(void)front_link_say(fr->link, m);
	else if (m)
		(void)proto_send_fd(FRONT_FD_CHANNEL, m, FRONT_MAX_FRAME);
	json_decref(m);
	if (fr->link)   /* the message out before the exit */
		event_base_loop(fr->base, EVLOOP_NONBLOCK);
}

int http_front_main(int argc, char **argv)
{
	static struct front fr;
	struct sandbox_report rep = { 0 };
	const char *dirs[4] = { NULL, NULL, NULL, NULL };
	char sdir[2][PATH_MAX];
	int nd = 0;
	struct sandbox_spec spec = { 0 };
	struct stat st;
	int fds[LOOM_HTTP_MAX_LISTEN], status = 1;
	char err[1024];
	json_t *hello;

	(void)argc;
	(void)argv;
	log_init("loomd-http", LOG_LVL_NOTICE, LOG_TARGET_STDERR);
	signal(SIGPIPE, SIG_IGN);
	if (read_config(&fr, err, sizeof(err)) < 0) {
		fail(&fr, err);
		return 1;
	}
	for (int i = 0; i < fr.n_listen; i++)
		fds[i] = FRONT_FD_LISTEN + i;
	if (!(fr.base = event_base_new()) ||
	    !(fr.sig_term = evsignal_new(fr.base, SIGTERM, on_term, &fr)) ||
	    !(fr.drain = evtimer_new(fr.base, on_drain, &fr)) || evsignal_add(fr.sig_term, NULL) < 0) {
		fail(&fr, "cannot create the event loop");
		goto out;
	}
	if (!(fr.link = front_link_new(fr.base, FRONT_FD_CHANNEL, on_closed, &fr))) {
		fail(&fr, "out of memory");
		goto out;
	}
	if (!(fr.http = http_new_inherited(fr.base, &fr.conf, fds, fr.n_listen, err, sizeof(err)))) {
		fail(&fr, err);
		goto out;
	}
	if (!(fr.api = api_new(fr.base, fr.http, fr.link, &fr.conf, err, sizeof(err))) ||
	    !(fr.metrics = metrics_route_new(fr.http, fr.link, &fr.conf, err, sizeof(err)))) {
		char why[sizeof(err) + 32];

		snprintf(why, sizeof(why), "http.tokens_file %s", err);
		fail(&fr, why);
		goto out;
	}
	if (!(fr.web = http_web_new(fr.http, &fr.conf, err, sizeof(err)))) {
		fail(&fr, err);
		goto out;
	}
	/* What the sandbox closes must be done by now: the files read, the
	 * time zone loaded (the log's time stamps). */
	tzset();
	sanitizer_report_file();
	/* The web view's files stay readable (a missing directory: none). */
	if (fr.conf.http_web_root[0] && !stat(fr.conf.http_web_root, &st) && S_ISDIR(st.st_mode))
		dirs[nd++] = fr.conf.http_web_root;
	if (sanitizer_dir("LSAN_OPTIONS", sdir[0], sizeof(sdir[0])))
		dirs[nd++] = sdir[0];
	if (sanitizer_dir("ASAN_OPTIONS", sdir[1], sizeof(sdir[1])))
		dirs[nd++] = sdir[1];
	spec.user = fr.user;
	spec.read_dirs = dirs;
	if (sandbox_enter(&spec, &rep, err, sizeof(err)) < 0 ||
	    check_sandbox(&fr, err, sizeof(err)) < 0) {
		fail(&fr, err);
		goto out;
	}
	log_info("front end pid %d serves as uid %d: Landlock %s, seccomp %s, no_new_privs %s",
		 (int)getpid(), (int)getuid(),
		 rep.landlock_abi ? "on" : "unavailable (files closed by seccomp)",
		 rep.seccomp ? "on" : "off", rep.no_new_privs ? "on" : "off");
	if (!(hello = json_pack("{s:s}", "op", "hello")) || front_link_say(fr.link, hello) < 0) {
		json_decref(hello);
		log_err("cannot tell the core");
		goto out;
	}
	json_decref(hello);
	event_base_dispatch(fr.base);
	status = 0;
out:
	api_free(fr.api);
	metrics_route_free(fr.metrics);
	http_web_free(fr.web);
	http_free(fr.http);
	front_link_free(fr.link);
	if (fr.drain)
		event_free(fr.drain);
	if (fr.sig_term)
		event_free(fr.sig_term);
	if (fr.base)
		event_base_free(fr.base);
	return status;
}
