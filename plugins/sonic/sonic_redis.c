/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_redis.c: one switch's Redis connection (see
 * sonic_redis.h).
 *
 * Address forms (loom.yaml `switches[].address`):
 *   unix:/var/run/redis/redis.sock   a unix socket (also a bare "/path")
 *   10.0.0.1:6379, leaf1, [fd00::1]:6380, fd00::1
 *                                    TCP, port 6379 unless given
 * The credentials file's first line (without its line end) is the password
 * sent with AUTH right after connecting; an empty line or no file: no AUTH.
 * timeout_ms bounds the connect and each command's answer. */
#include "sonic_redis.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define SN_MAX_ARGS 16

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static int parse_port(const char *s, int *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

int sn_conn_init(struct sn_conn *c, const struct lp_endpoint *ep, char *err, size_t errlen)
{
	const char *a = ep->address, *colon;

	memset(c, 0, sizeof(*c));
	c->db = -1;
	c->port = SN_DEFAULT_PORT;
	c->timeout_ms = ep->timeout_ms > 0 ? ep->timeout_ms : SN_DEFAULT_TIMEOUT_MS;
	c->tv.tv_sec = c->timeout_ms / 1000;
	c->tv.tv_usec = (c->timeout_ms % 1000) * 1000;
	if (!a || !*a) {
		snprintf(err, errlen, "no address: want unix:/path/to/redis.sock or host[:port]");
		return -EINVAL;
	}
	if (!(c->address = strdup(a)))
		goto oom;
	if (!strncmp(a, "unix:", 5) || a[0] == '/') {
		const char *path = a[0] == '/' ? a : a + 5;

		if (!*path) {
			snprintf(err, errlen, "address \"%s\": no socket path after unix:", a);
			goto inval;
		}
		if (!(c->unix_path = strdup(path)))
			goto oom;
	} else if (a[0] == '[') {
		const char *close = strchr(a, ']');

		if (!close || close == a + 1 ||
		    (close[1] && (close[1] != ':' || parse_port(close + 2, &c->port)))) {
			snprintf(err, errlen, "address \"%s\": want [ipv6] or [ipv6]:port", a);
			goto inval;
		}
		if (!(c->host = dup_n(a + 1, (size_t)(close - a - 1))))
			goto oom;
	} else if ((colon = strchr(a, ':')) && !strchr(colon + 1, ':')) {
		if (colon == a || parse_port(colon + 1, &c->port)) {
			snprintf(err, errlen, "address \"%s\": want host:port with port 1..65535", a);
			goto inval;
		}
		if (!(c->host = dup_n(a, (size_t)(colon - a))))
			goto oom;
	} else if (!(c->host = strdup(a))) {     /* a name, or a bare IPv6 address */
		goto oom;
	}
	if (ep->credentials) {
		size_t n = strcspn(ep->credentials, "\r\n");

		if (n && !(c->password = dup_n(ep->credentials, n)))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	sn_conn_fini(c);
	return -ENOMEM;
inval:
	sn_conn_fini(c);
	return -EINVAL;
}

void sn_conn_fini(struct sn_conn *c)
{
	sn_drop(c);
	free(c->unix_path);
	free(c->host);
	free(c->address);
	if (c->password) {
		memset(c->password, 0, strlen(c->password));
		free(c->password);
	}
	c->unix_path = c->host = c->address = c->password = NULL;
}

void sn_drop(struct sn_conn *c)
{
	if (c->rc)
		redisFree(c->rc);
	c->rc = NULL;
	c->db = -1;
}

/* -errno for what went wrong on the socket of rc (saved: errno right after). */
static int ctx_errno(const redisContext *rc, int saved)
{
	switch (rc->err) {
	case REDIS_ERR_IO:
		if (saved == EAGAIN || saved == EWOULDBLOCK || saved == ETIMEDOUT ||
		    strstr(rc->errstr, "temporarily unavailable") || strstr(rc->errstr, "timed out"))
			return -ETIMEDOUT;
		return saved > 0 ? -saved : -EIO;
	case REDIS_ERR_EOF:
		return -ECONNRESET;
	case REDIS_ERR_PROTOCOL:
		return -EPROTO;
	case REDIS_ERR_OOM:
		return -ENOMEM;
	default:                        /* REDIS_ERR_OTHER: getaddrinfo's words */
		return strstr(rc->errstr, "resolve") || strstr(rc->errstr, "not known") ||
		       strstr(rc->errstr, "name resolution") ? -EHOSTUNREACH : -EIO;
	}
}

/* -errno for an error reply. */
static int reply_errno(const char *s)
{
	static const struct {
		const char *prefix;
		int err;
	} map[] = {
		{ "NOAUTH", EACCES }, { "WRONGPASS", EACCES }, { "NOPERM", EACCES },
		{ "READONLY", EROFS }, { "OOM", ENOSPC }, { "LOADING", EAGAIN },
		{ "BUSY", EAGAIN }, { "MASTERDOWN", EAGAIN }, { "WRONGTYPE", EPROTO },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(s, map[i].prefix, strlen(map[i].prefix)))
			return -map[i].err;
	return -EIO;
}

/* The socket failed during `what`: message, drop the connection, -errno. */
static int conn_fail(struct sn_conn *c, const char *what, int saved, char *err, size_t errlen)
{
	int rc;

	if (!c->rc) {
		snprintf(err, errlen, "%s: not connected to %s", what, c->address);
		return -ENOTCONN;
	}
	rc = ctx_errno(c->rc, saved);
	if (rc == -ETIMEDOUT)
		snprintf(err, errlen, "%s: no answer within %d ms", what, c->timeout_ms);
	else
		snprintf(err, errlen, "%s: %s", what, c->rc->errstr[0] ? c->rc->errstr :
			 "connection failed");
	sn_drop(c);
	return rc;
}

/* "<ARGV0> <ARGV1>" (never a password: AUTH names no argument). */
static void what_of(int argc, const char **argv, char *out, size_t outlen)
{
	if (argc > 1 && strcasecmp(argv[0], "AUTH"))
		snprintf(out, outlen, "%s %s", argv[0], argv[1]);
	else
		snprintf(out, outlen, "%s", argc ? argv[0] : "?");
}

int sn_check_reply(const redisReply *r, const char *what, char *err, size_t errlen)
{
	if (r->type != REDIS_REPLY_ERROR)
		return 0;
	snprintf(err, errlen, "%s: %s", what, r->str ? r->str : "error");
	return reply_errno(r->str ? r->str : "");
}

int sn_cmdv(struct sn_conn *c, int argc, const char **argv, redisReply **reply, char *err,
	    size_t errlen)
{
	char what[2 * LP_NAME_LEN + 64];
	redisReply *r;
	int rc;

	if (reply)
		*reply = NULL;
	what_of(argc, argv, what, sizeof(what));
	if (!c->rc)
		return conn_fail(c, what, 0, err, errlen);
	errno = 0;
	if (!(r = redisCommandArgv(c->rc, argc, argv, NULL)))
		return conn_fail(c, what, errno, err, errlen);
	if ((rc = sn_check_reply(r, what, err, errlen))) {
		freeReplyObject(r);
		return rc;
	}
	if (reply)
		*reply = r;
	else
		freeReplyObject(r);
	return 0;
}

/* The NULL-terminated strings after errlen, into argv. */
static int collect_args(va_list ap, const char **argv)
{
	int argc = 0;
	const char *s;

	while ((s = va_arg(ap, const char *)) && argc < SN_MAX_ARGS)
		argv[argc++] = s;
	return argc;
}

int sn_cmd(struct sn_conn *c, redisReply **reply, char *err, size_t errlen, ...)
{
	const char *argv[SN_MAX_ARGS];
	va_list ap;
	int argc;

	va_start(ap, errlen);
	argc = collect_args(ap, argv);
	va_end(ap);
	return sn_cmdv(c, argc, argv, reply, err, errlen);
}

int sn_appendv(struct sn_conn *c, int argc, const char **argv, char *err, size_t errlen)
{
	char what[2 * LP_NAME_LEN + 64];

	what_of(argc, argv, what, sizeof(what));
	if (!c->rc)
		return conn_fail(c, what, 0, err, errlen);
	if (redisAppendCommandArgv(c->rc, argc, argv, NULL) != REDIS_OK) {
		snprintf(err, errlen, "%s: out of memory", what);
		sn_drop(c);
		return -ENOMEM;
	}
	return 0;
}

int sn_append(struct sn_conn *c, char *err, size_t errlen, ...)
{
	const char *argv[SN_MAX_ARGS];
	va_list ap;
	int argc;

	va_start(ap, errlen);
	argc = collect_args(ap, argv);
	va_end(ap);
	return sn_appendv(c, argc, argv, err, errlen);
}

int sn_reply(struct sn_conn *c, const char *what, redisReply **reply, char *err, size_t errlen)
{
	void *r = NULL;
	int rc;

	*reply = NULL;
	if (!c->rc)
		return conn_fail(c, what, 0, err, errlen);
	errno = 0;
	if (redisGetReply(c->rc, &r) != REDIS_OK || !r)
		return conn_fail(c, what, errno, err, errlen);
	if ((rc = sn_check_reply(r, what, err, errlen))) {
		freeReplyObject(r);
		sn_drop(c);             /* replies still queued: start afresh */
		return rc;
	}
	*reply = r;
	return 0;
}

static int do_connect(struct sn_conn *c, char *err, size_t errlen)
{
	redisContext *rc;
	redisReply *r;
	int saved;

	errno = 0;
	rc = c->unix_path ? redisConnectUnixWithTimeout(c->unix_path, c->tv)
			  : redisConnectWithTimeout(c->host, c->port, c->tv);
	saved = errno;
	if (!rc) {
		snprintf(err, errlen, "connect %s: out of memory", c->address);
		return -ENOMEM;
	}
	if (rc->err) {
		int e = ctx_errno(rc, saved);

		if (e == -ETIMEDOUT)
			snprintf(err, errlen, "connect %s: no answer within %d ms", c->address,
				 c->timeout_ms);
		else
			snprintf(err, errlen, "connect %s: %s", c->address, rc->errstr);
		redisFree(rc);
		return e;
	}
	if (redisSetTimeout(rc, c->tv) != REDIS_OK) {
		snprintf(err, errlen, "connect %s: cannot set a timeout: %s", c->address,
			 rc->errstr);
		redisFree(rc);
		return -EIO;
	}
	c->rc = rc;
	c->db = 0;                      /* a new connection starts on db 0 */
	if (c->password) {
		const char *argv[] = { "AUTH", c->password };
		char msg[256];
		int e;

		if ((e = sn_cmdv(c, 2, argv, &r, msg, sizeof(msg)))) {
			snprintf(err, errlen, "connect %s: %s (password from the credentials file)",
				 c->address, msg);
			sn_drop(c);
			return e;
		}
		freeReplyObject(r);
	}
	{
		const char *argv[] = { "PING" };
		char msg[256];
		int e;

		if ((e = sn_cmdv(c, 1, argv, NULL, msg, sizeof(msg)))) {
			snprintf(err, errlen, "connect %s: %s", c->address, msg);
			sn_drop(c);
			return e;
		}
	}
	return 0;
}

int sn_connect(struct sn_conn *c, char *err, size_t errlen)
{
	redisReply *r;
	int rc;

	if (c->rc && !c->rc->err) {
		errno = 0;
		if ((r = redisCommand(c->rc, "PING"))) {
			rc = sn_check_reply(r, "PING", err, errlen);
			freeReplyObject(r);
			return rc;
		}
		/* The server went away since the last op: try a new connection. */
	}
	sn_drop(c);
	return do_connect(c, err, errlen);
}

int sn_select(struct sn_conn *c, int db, char *err, size_t errlen)
{
	char n[16];
	int rc;

	if (c->rc && c->db == db)
		return 0;
	snprintf(n, sizeof(n), "%d", db);
	if ((rc = sn_cmd(c, NULL, err, errlen, "SELECT", n, NULL)))
		return rc;
	c->db = db;
	return 0;
}

int sn_scan(struct sn_conn *c, const char *match, int (*fn)(void *ctx, const char *key),
	    void *ctx, char *err, size_t errlen)
{
	char cursor[32] = "0";
	redisReply *r;
	int rc;

	do {
		const redisReply *keys;

		if ((rc = sn_cmd(c, &r, err, errlen, "SCAN", cursor, "MATCH", match, "COUNT",
				 "1000", NULL)))
			return rc;
		if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		    r->element[0]->type != REDIS_REPLY_STRING ||
		    r->element[1]->type != REDIS_REPLY_ARRAY ||
		    r->element[0]->len >= sizeof(cursor)) {
			snprintf(err, errlen, "SCAN %s MATCH %s: unexpected reply", cursor, match);
			freeReplyObject(r);
			return -EPROTO;
		}
		memcpy(cursor, r->element[0]->str, r->element[0]->len + 1);
		keys = r->element[1];
		for (size_t i = 0; i < keys->elements; i++)
			if (keys->element[i]->type == REDIS_REPLY_STRING &&
			    (rc = fn(ctx, keys->element[i]->str))) {
				freeReplyObject(r);
				return rc;
			}
		freeReplyObject(r);
	} while (strcmp(cursor, "0"));
	return 0;
}

void sn_glob_escape(const char *s, char *out, size_t outlen)
{
	size_t o = 0;

	for (; *s && o + 2 < outlen; s++) {
		if (strchr("*?[]\\", *s))
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o] = '\0';
}

const char *sn_hget(const redisReply *hash, const char *field)
{
	if (!hash || hash->type != REDIS_REPLY_ARRAY)
		return NULL;
	for (size_t i = 0; i + 1 < hash->elements; i += 2)
		if (hash->element[i]->type == REDIS_REPLY_STRING &&
		    hash->element[i + 1]->type == REDIS_REPLY_STRING &&
		    !strcmp(hash->element[i]->str, field))
			return hash->element[i + 1]->str;
	return NULL;
}

void sn_sigpipe_block(struct sn_sigpipe *s)
{
	sigset_t pipe, pending;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigemptyset(&pending);
	sigpending(&pending);
	s->was_pending = sigismember(&pending, SIGPIPE) == 1;
	s->blocked = pthread_sigmask(SIG_BLOCK, &pipe, &s->old) == 0;
}

void sn_sigpipe_restore(struct sn_sigpipe *s)
{
	sigset_t pipe, pending;

	if (!s->blocked)
		return;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigemptyset(&pending);
	if (!s->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
		const struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &s->old, NULL);
}

static void hgetall_key(const char *table, char sep, const char *name, char *key, size_t len)
{
	if (table)
		snprintf(key, len, "%s%c%s", table, sep, name);
	else
		snprintf(key, len, "%s", name);
}

int sn_hash_reply(const redisReply *r, const char *what, char *err, size_t errlen)
{
	int rc;

	if ((rc = sn_check_reply(r, what, err, errlen)))
		return rc;
	if (r->type != REDIS_REPLY_ARRAY || r->elements % 2) {
		snprintf(err, errlen, "%s: not a hash: %s", what,
			 r->type != REDIS_REPLY_ARRAY ? "not an array" : "an odd number of elements");
		return -EPROTO;
	}
	for (size_t i = 0; i < r->elements; i++)
		if (!r->element[i] || r->element[i]->type != REDIS_REPLY_STRING) {
			snprintf(err, errlen, "%s: not a hash: element %zu is not a string", what, i);
			return -EPROTO;
		}
	return 0;
}

int sn_hgetall(struct sn_conn *c, const char *table, char sep, const char *names,
	       size_t stride, size_t n, redisReply **out, char *err, size_t errlen)
{
	char key[512], what[528];
	int rc;

	for (size_t i = 0; i < n; i++) {
		hgetall_key(table, sep, names + i * stride, key, sizeof(key));
		if ((rc = sn_append(c, err, errlen, "HGETALL", key, NULL)))
			return rc;
	}
	for (size_t i = 0; i < n; i++) {
		hgetall_key(table, sep, names + i * stride, key, sizeof(key));
		snprintf(what, sizeof(what), "HGETALL %s", key);
		if ((rc = sn_reply(c, what, &out[i], err, errlen)))
			return rc;
		if ((rc = sn_hash_reply(out[i], what, err, errlen))) {
			freeReplyObject(out[i]);
			out[i] = NULL;
			sn_drop(c);     /* replies still queued: start afresh */
			return rc;
		}
	}
	return 0;
}

void sn_replies_clear(redisReply **r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		if (r[i])
			freeReplyObject(r[i]);
		r[i] = NULL;
	}
}

void sn_ref_name(const char *ref, const char *dflt, char *out, size_t outlen)
{
	size_t n;

	if (!ref || !*ref) {
		snprintf(out, outlen, "%s", dflt);
		return;
	}
	n = strlen(ref);
	if (ref[0] == '[' && ref[n - 1] == ']') {
		const char *bar = memrchr(ref, '|', n);

		ref = bar ? bar + 1 : ref + 1;
		n = strlen(ref) - 1;
	}
	snprintf(out, outlen, "%.*s", (int)n, ref);
}
