/* tests/unit/fixture_sonic.h: a SONiC leaf for the sonic plugin's tests
 * (test_sonic, test_sonic_configdb): each test gets its own redis-server
 * (fixture_redis.h) seeded with an 8-port leaf's inventory and LLDP, and
 * the plugin loaded through plugin_load() as loomd does, opened on it.
 * seed_switch() adds what `config qos reload` leaves on a real switch
 * (tests/servers/sonic_db.py), check_switch() runs SONiC's rules over it. */
#ifndef LOOM_TEST_FIXTURE_SONIC_H
#define LOOM_TEST_FIXTURE_SONIC_H

#include <check.h>
#include <stddef.h>

#include "loom/loom_plugin.h"

#define N_PORTS 8

struct plugin;

extern char err[512];
extern char base[64];             /* the program's: removed at its end */
extern struct plugin *plugin;
extern const struct loom_plugin_v1 *ops;
extern struct lp_switch *sw;
extern char last_log[512];
extern const struct lp_host host;  /* logs into last_log */

void seed_leaf(void);
int open_switch(const char *address, const char *credentials, struct lp_switch **out);
void cleanup(void);
void setup(void);
void teardown(void);

/* ---- what an apply reports ---- */
struct change {
	char key[160], field[72], before[72], after[72];
	int done;
};

struct changes {
	struct change *v;
	size_t n, cap;
	size_t kill_after;        /* SIGKILL redis-server after this many done = 1 */
	size_t n_done;
};

int change_sink(void *ctx, const struct lp_change *c);
int apply(const struct lp_qos *want, int dry_run, struct changes *cs);
/* Index of the first (last) change whose key starts with prefix, or -1. */
long first_of(const struct changes *cs, const char *prefix);
long last_of(const struct changes *cs, const char *prefix);
/* qos_read for want's ports (names only, as loomd asks). */
struct lp_qos *read_back(const struct lp_qos *want, int *ret);

/* tests/servers/sonic_db.py ARGS on the test's redis-server: its exit
 * status, and what it printed in out. */
int sonic_db(const char *args, char *out, size_t outlen);
/* The switch as `config qos reload` and `pfcwd start_default` leave it
 * (ports ports, CONFIG_DB schema version), checked, and its snapshot into
 * snap (a file of the test's). */
void seed_switch(unsigned ports, const char *version, char *snap, size_t snaplen);
/* sonic_db.py check against the snapshot with the managed ports
 * ("Ethernet0,Ethernet4"): 0, or 1 with the faults in out. */
int check_switch(const char *snap, const char *managed, char *out, size_t outlen);

/* main(): skip (77) without redis-server, run tc with setup/teardown. */
int sonic_main(Suite *s, TCase *tc, const char *prog);

#endif
