/* tests/unit/fixture_eos.h: what the two files of the test_eos program share
 * (test_eos.c: the server, the plugin, the sinks and the plugin's
 * behaviour; test_eos_rules.c: the EOS rules the plugin follows and the
 * fake enforces). One server and one open switch per test, made by
 * test_eos.c's fixture; the helpers assert as they go. */
#ifndef LOOM_TEST_FIXTURE_EOS_H
#define LOOM_TEST_FIXTURE_EOS_H

#include <check.h>
#include <jansson.h>
#include <stddef.h>

#include "loom/loom_plugin.h"

#define N_PORTS 8

extern char err[512];
extern char base_url[64];
extern const struct loom_plugin_v1 *ops;
extern struct lp_switch *sw;

/* GET (body NULL) or POST path on the server: the JSON answer. */
json_t *test_http(const char *path, const char *body);
/* The server's running config, in a static buffer. */
const char *running_config(void);
/* Config lines (a JSON array text) run behind loom's back. */
void behind_looms_back(const char *json_cmds);

struct log_count {
	size_t requests, refused, configure;
};
/* /command-api requests so far, the refused ones, those with a configure. */
struct log_count log_count(void);

/* ops->open on leaf1 at address with credentials (err cleared first). */
int open_switch(const char *address, const char *credentials, struct lp_switch **out);

struct change {
	char key[160], field[72], before[160], after[160];
	int done;
};

struct changes {
	struct change v[1024];
	size_t n;
};

/* ops->qos_apply on sw, the changes collected into *cs (reset first). */
int apply(const struct lp_qos *want, int dry_run, struct changes *cs);
const struct change *find(const struct changes *cs, const char *key, const char *field);
void config_has(const char *text);
void config_lacks(const char *text);

/* A raw request: the HTTP status, *answer the JSON (NULL if none). */
long raw(const char *method, const char *path, const char *user, const char *body,
	 json_t **answer);
/* The JSON-RPC error code of an answer, 0 when none. */
long rpc_error(json_t *a);

/* test_eos_rules.c: its tests, added to test_eos's case. */
void eos_add_rule_tests(TCase *tc);
/* test_eos_counters.c: its plugin tests added to test_eos's case (live), its
 * decoder tests in a case of their own. */
void eos_add_counter_tests(Suite *s, TCase *live);

#endif
