/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/sonic/sonic_redis.h: one switch's Redis connection (hiredis):
 * the endpoint's address and password, (re)connecting, SELECT, commands
 * one at a time or pipelined, SCAN, and Redis errors as -errno plus one
 * line of text. Nothing here knows SONiC's tables. */
#ifndef SONIC_REDIS_H
#define SONIC_REDIS_H

#include <signal.h>
#include <stddef.h>
#include <sys/time.h>

#include <hiredis/hiredis.h>

#include "loom/loom_plugin.h"

/* SONiC's databases (SELECT index). */
#define SN_APPL_DB 0
#define SN_COUNTERS_DB 2
#define SN_CONFIG_DB 4
#define SN_STATE_DB 6

#define SN_DEFAULT_PORT 6379
#define SN_DEFAULT_TIMEOUT_MS 5000

struct sn_conn {
	redisContext *rc;       /* NULL: not connected */
	int db;                 /* the SELECTed database, -1 unknown */
	char *unix_path;        /* "unix:/path" or "/path" */
	char *host;             /* else host (brackets of an IPv6 address removed) */
	int port;
	char *password;         /* credentials' first line, NULL none */
	char *address;          /* as loom.yaml gave it, for messages */
	struct timeval tv;      /* connect and command timeout */
	int timeout_ms;
};

/* Parse ep (address, credentials, timeout) into c, unconnected. 0, or
 * -EINVAL / -ENOMEM with one line in err. */
int sn_conn_init(struct sn_conn *c, const struct lp_endpoint *ep, char *err, size_t errlen);
void sn_conn_fini(struct sn_conn *c);

/* Make sure c has a working connection: connect (and AUTH) if it has none
 * or its last one broke; else PING it, and connect again once if the
 * server went away since (a restarted redis-server). */
int sn_connect(struct sn_conn *c, char *err, size_t errlen);
/* Drop the connection (the next sn_connect makes a new one). */
void sn_drop(struct sn_conn *c);

/* SELECT db unless it is the selected one. */
int sn_select(struct sn_conn *c, int db, char *err, size_t errlen);

/* Run one command, argv NULL-terminated strings ("HGETALL", key, NULL):
 * 0 and *reply (freeReplyObject it; NULL reply pointer: discarded), or
 * -errno and err = "<ARGV0> <ARGV1>: <what Redis or the socket said>". An
 * error reply is an error. */
int sn_cmd(struct sn_conn *c, redisReply **reply, char *err, size_t errlen, ...)
	__attribute__((sentinel));
/* The same with argc/argv (for long HSETs). */
int sn_cmdv(struct sn_conn *c, int argc, const char **argv, redisReply **reply, char *err,
	    size_t errlen);

/* Pipelining: queue commands with sn_append / sn_appendv, then take the
 * replies in order with sn_reply (what: the command, for messages). On any
 * error the connection is dropped, so unread replies never confuse a
 * later command. */
int sn_append(struct sn_conn *c, char *err, size_t errlen, ...) __attribute__((sentinel));
int sn_appendv(struct sn_conn *c, int argc, const char **argv, char *err, size_t errlen);
int sn_reply(struct sn_conn *c, const char *what, redisReply **reply, char *err,
	     size_t errlen);

/* HGETALL of n keys, pipelined, replies into out[0..n): key i is
 * "<table><sep><names + i * stride>", or the name itself when table is
 * NULL (names: n NUL-terminated strings `stride` bytes apart). */
int sn_hgetall(struct sn_conn *c, const char *table, char sep, const char *names,
	       size_t stride, size_t n, redisReply **out, char *err, size_t errlen);
/* Free the replies r[0..n) (NULLs skipped) and set them to NULL. */
void sn_replies_clear(redisReply **r, size_t n);

/* SCAN the selected database for keys matching `match` (a glob), calling
 * fn(ctx, key) once per key SCAN returns (SCAN may return a key twice). fn
 * returning non-zero stops the scan with that value. */
int sn_scan(struct sn_conn *c, const char *match, int (*fn)(void *ctx, const char *key),
	    void *ctx, char *err, size_t errlen);

/* s with the glob characters of SCAN MATCH (*?[]\) escaped, into out. */
void sn_glob_escape(const char *s, char *out, size_t outlen);

/* A reply r of `what`: 0, or for an error reply its -errno (NOAUTH and
 * WRONGPASS -EACCES, READONLY -EROFS, OOM -ENOSPC, LOADING -EAGAIN, else
 * -EIO) and err = "<what>: <Redis's text>". */
int sn_check_reply(const redisReply *r, const char *what, char *err, size_t errlen);

/* An HGETALL reply r of `what`: 0 when it is a hash (an array of field,
 * value strings); sn_check_reply's error for an error reply; else -EPROTO
 * and err = "<what>: not a hash: ...". sn_hgetall checks each reply so. */
int sn_hash_reply(const redisReply *r, const char *what, char *err, size_t errlen);

/* The value of `field` in an HGETALL reply, or NULL. */
const char *sn_hget(const redisReply *hash, const char *field);
/* A decimal field's value (sonic_reply.c): 0 when absent, empty, negative,
 * not a number or over 32 bits (unknown, never a wrapped value). */
uint32_t sn_parse_u32(const char *s);

/* The object name a CONFIG_DB reference names: "AZURE" of "AZURE" or of the
 * old "[TABLE|AZURE]"; dflt for NULL or "". */
void sn_ref_name(const char *ref, const char *dflt, char *out, size_t outlen);

/* Keep a SIGPIPE (writing to a Redis that died) from killing the process
 * while an op runs: blocked in this thread, and a pending one taken away
 * before the mask is restored. loomd ignores SIGPIPE anyway; a plugin must
 * not rely on it. */
struct sn_sigpipe {
	sigset_t old;
	int blocked, was_pending;
};
void sn_sigpipe_block(struct sn_sigpipe *s);
void sn_sigpipe_restore(struct sn_sigpipe *s);

#endif
