/* tests/unit/fixture_redis.h: a real redis-server for a unit test (the
 * switch plugins that speak to SONiC's databases), on a unix socket in a
 * directory of the test's, and the test's own connection to seed it and to
 * look at what a plugin wrote. Failures abort the test (check). */
#ifndef LOOM_TEST_FIXTURE_REDIS_H
#define LOOM_TEST_FIXTURE_REDIS_H

#include <stddef.h>

/* SONiC's databases. */
#define CONFIG_DB 4
#define APPL_DB 0
#define STATE_DB 6

/* The test's directory (the caller fills it) and the socket in it. */
extern char fr_dir[96], fr_sock[128];

/* Start redis-server on fr_sock (up to 5 s until it answers PING); aof:
 * persist every write; password: require it (NULL: none). */
void fr_start(int aof, const char *password);
/* Stop it (SIGTERM, then SIGKILL after 5 s), or kill it as a crash does. */
void fr_stop(void);
void fr_kill(void);

void fr_select_db(int db);
/* HSET key f v f v ... NULL in db. */
void fr_hset(int db, const char *key, ...);
void fr_del(int db, const char *key);
/* CONFIG_DB: the value of field in key (a static buffer) or NULL; whether
 * key exists; how many keys match pattern; key holds exactly the pairs
 * given (NULL-ended). */
const char *fr_hget(const char *key, const char *field);
int fr_exists(const char *key);
size_t fr_count_keys(const char *pattern);
void fr_hash_is(const char *key, ...);
/* The integer answer of "cmd [arg]" in db. */
long long fr_integer(int db, const char *cmd, const char *arg);

#endif
