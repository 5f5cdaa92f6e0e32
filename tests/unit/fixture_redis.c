/* tests/unit/fixture_redis.c: a real redis-server for a test, on a unix
 * socket in the test's own directory (killed with the test: PR_SET_PDEATHSIG),
 * and the test's own connection to read and seed it (see fixture_redis.h). */
#include "autoconf.h"
#include "fixture_redis.h"

#include <check.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

char fr_dir[96], fr_sock[128];
static pid_t redis_pid = -1;
static redisContext *rc;          /* the test's own connection */
static int rc_db = -1;

/* ---- redis-server --------------------------------------------------------- */

static void wait_gone(pid_t pid)
{
	for (int i = 0; i < 500; i++) {        /* 5 s, then no more asking */
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

void fr_stop(void)
{
	if (rc) {
		redisFree(rc);
		rc = NULL;
	}
	if (redis_pid > 0) {
		kill(redis_pid, SIGTERM);
		wait_gone(redis_pid);
	}
	redis_pid = -1;
}

/* SIGKILL: what a crash or a power cut does. */
void fr_kill(void)
{
	if (rc) {
		redisFree(rc);
		rc = NULL;
	}
	if (redis_pid > 0) {
		kill(redis_pid, SIGKILL);
		waitpid(redis_pid, NULL, 0);
	}
	redis_pid = -1;
}

/* Start redis-server on `fr_sock`; aof: persist every write (appendfsync
 * always) so that a restart after SIGKILL shows what had landed. */
void fr_start(int aof, const char *password)
{
	char log[160];
	pid_t pid;

	snprintf(log, sizeof(log), "%s/redis.log", fr_dir);
	pid = fork();
	if (pid == 0) {  /* no check assertions here: they would talk to the runner */
		const char *argv[32];
		int a = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		argv[a++] = "redis-server";
		argv[a++] = "--port";
		argv[a++] = "0";
		argv[a++] = "--unixsocket";
		argv[a++] = fr_sock;
		argv[a++] = "--unixsocketperm";
		argv[a++] = "700";
		argv[a++] = "--save";
		argv[a++] = "";
		argv[a++] = "--appendonly";
		argv[a++] = aof ? "yes" : "no";
		argv[a++] = "--appendfsync";
		argv[a++] = "always";
		argv[a++] = "--dir";
		argv[a++] = fr_dir;
		argv[a++] = "--logfile";
		argv[a++] = log;
		argv[a++] = "--daemonize";
		argv[a++] = "no";
		if (password) {
			argv[a++] = "--requirepass";
			argv[a++] = password;
		}
		argv[a] = NULL;
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_ge(pid, 0);
	redis_pid = pid;
	for (int i = 0; i < 500; i++) {        /* up to 5 s */
		struct timeval tv = { 1, 0 };
		redisContext *c = redisConnectUnixWithTimeout(fr_sock, tv);

		if (c && !c->err) {
			redisReply *r = password ? redisCommand(c, "AUTH %s", password) : NULL;

			if (r)
				freeReplyObject(r);
			if ((r = redisCommand(c, "PING")) && r->type == REDIS_REPLY_STATUS) {
				freeReplyObject(r);
				rc = c;
				rc_db = 0;
				return;
			}
			if (r)
				freeReplyObject(r);
		}
		if (c)
			redisFree(c);
		ck_assert_msg(waitpid(pid, NULL, WNOHANG) == 0,
			      "redis-server exited at start; see %s", log);
		usleep(10000);
	}
	ck_abort_msg("redis-server did not answer on %s within 5 s", fr_sock);
}

/* ---- the test's own Redis access ------------------------------------------ */

void fr_select_db(int db)
{
	redisReply *r;

	if (rc_db == db)
		return;
	r = redisCommand(rc, "SELECT %d", db);
	ck_assert_msg(r && r->type == REDIS_REPLY_STATUS, "SELECT %d failed", db);
	freeReplyObject(r);
	rc_db = db;
}

/* HSET key f v f v ... (NULL-terminated) in db. */
void fr_hset(int db, const char *key, ...)
{
	const char *argv[64] = { "HSET", key };
	int argc = 2;
	redisReply *r;
	va_list ap;

	fr_select_db(db);
	va_start(ap, key);
	while ((argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	r = redisCommandArgv(rc, argc, argv, NULL);
	ck_assert_msg(r && r->type == REDIS_REPLY_INTEGER, "HSET %s failed", key);
	freeReplyObject(r);
}

/* The value of field in key (db 4), in a static buffer, or NULL. */
const char *fr_hget(const char *key, const char *field)
{
	static char v[256];
	redisReply *r;

	fr_select_db(CONFIG_DB);
	r = redisCommand(rc, "HGET %s %s", key, field);
	ck_assert_ptr_nonnull(r);
	if (r->type != REDIS_REPLY_STRING) {
		freeReplyObject(r);
		return NULL;
	}
	snprintf(v, sizeof(v), "%s", r->str);
	freeReplyObject(r);
	return v;
}

/* The integer answer of "cmd [arg]" in db. */
long long fr_integer(int db, const char *cmd, const char *arg)
{
	const char *argv[] = { cmd, arg };
	redisReply *r;
	long long n;

	fr_select_db(db);
	r = redisCommandArgv(rc, arg ? 2 : 1, argv, NULL);
	ck_assert_msg(r && r->type == REDIS_REPLY_INTEGER, "%s %s", cmd, arg ? arg : "");
	n = r->integer;
	freeReplyObject(r);
	return n;
}

/* How many CONFIG_DB keys match pattern (the test may use KEYS). */
size_t fr_count_keys(const char *pattern)
{
	redisReply *r;
	size_t n;

	fr_select_db(CONFIG_DB);
	r = redisCommand(rc, "KEYS %s", pattern);
	ck_assert_msg(r && r->type == REDIS_REPLY_ARRAY, "KEYS %s", pattern);
	n = r->elements;
	freeReplyObject(r);
	return n;
}

int fr_exists(const char *key)
{
	return fr_integer(CONFIG_DB, "EXISTS", key) == 1;
}

/* CONFIG_DB's key holds exactly the field/value pairs given (NULL-ended). */
void fr_hash_is(const char *key, ...)
{
	redisReply *r;
	size_t n = 0;
	const char *f;
	va_list ap;

	fr_select_db(CONFIG_DB);
	va_start(ap, key);
	while ((f = va_arg(ap, const char *))) {
		const char *want = va_arg(ap, const char *), *got = fr_hget(key, f);

		ck_assert_msg(got && !strcmp(got, want), "%s %s: \"%s\", want \"%s\"", key, f,
			      got ? got : "(none)", want);
		n++;
	}
	va_end(ap);
	r = redisCommand(rc, "HLEN %s", key);
	ck_assert_msg(r && r->type == REDIS_REPLY_INTEGER && (size_t)r->integer == n,
		      "%s has %lld fields, want %zu", key, r ? r->integer : -1, n);
	freeReplyObject(r);
}


void fr_del(int db, const char *key)
{
	redisReply *r;

	fr_select_db(db);
	r = redisCommand(rc, "DEL %s", key);
	ck_assert_msg(r && r->type == REDIS_REPLY_INTEGER, "DEL %s failed", key);
	freeReplyObject(r);
}
