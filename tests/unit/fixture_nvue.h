/* tests/unit/fixture_nvue.h: the fixture of the nvue plugin's tests
 * (test_nvue.c, test_nvue_qos.c): tests/servers/nvue_server.py, a stand-in
 * for a Cumulus Linux switch's NVUE REST API, run per test on 127.0.0.1
 * (python3 on PATH: main() skips with 77 without it), the test's own
 * requests to it, and nvue.so loaded through plugin_load() like loomd does
 * and opened on it. setup()/teardown() are the checked fixture; `sw`, `ops`,
 * `err` are the open switch, the plugin's table and the last error. */
#ifndef LOOM_TEST_FIXTURE_NVUE_H
#define LOOM_TEST_FIXTURE_NVUE_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "daemon/core/plugin.h"
#include "loom/loom_plugin.h"

#ifndef NVUE_PLUGIN_DIR
#error NVUE_PLUGIN_DIR must name the directory of nvue.so
#endif
#ifndef NVUE_SERVER
#error NVUE_SERVER must name tests/servers/nvue_server.py
#endif

#define USER "cumulus"
#define PASSWORD "Loom-test-1"

extern char err[512];
extern pid_t srv_pid;
extern int srv_port;
extern struct plugin *plugin;
extern const struct loom_plugin_v1 *ops;
extern struct lp_switch *sw;

/* ---- the server ---- */
void server_kill(void);
/* Run nvue_server.py (HTTPS when cert is given): its pid and port. */
void spawn_server(const char *cert, const char *key, pid_t *pid, int *port);
void server_start(void);
/* The test's own request to the server: the answer's JSON (or NULL). */
json_t *http(const char *method, const char *path, const char *body);
json_t *walk(json_t *j, const char *path);
/* The server's applied tree at `path` (valid until the next call of
 * applied, applied_*, n_revisions or operational). */
json_t *applied(const char *path);
long applied_int(const char *path);
const char *applied_str(const char *path);
/* GET /nvue_v1/<path> without ?rev=: the operational state, the switch's
 * defaults filled in where the configuration leaves QoS unset. */
json_t *operational(const char *path);
size_t n_revisions(void);
/* No request of the plugin was refused (4xx) by the server. */
void assert_no_refusal(void);
/* What the next revision apply does: "apply_fail", "apply_500", "die", "stuck". */
void fail_next_apply(const char *mode);
/* Change the applied tree behind the plugin's back: `value` is JSON (null removes). */
void set_applied(const char *path, const char *value);
int have_python3(void);

/* ---- the plugin on it ---- */
int open_switch(const char *address, const char *cred, const char *options,
		struct lp_switch **out);
void setup(void);
void teardown(void);

/* ---- changes reported, and loom's default policy ---- */
#define MAX_CHANGES 256
struct change {
	char key[200], field[64], before[64], after[64];
	int done;
};
extern struct change changes[MAX_CHANGES];
extern size_t n_changes;
int change_sink(void *ctx, const struct lp_change *c);
const struct change *find_change(const char *key, const char *field);
/* loom's default policy on this switch's ports, into `want`. */
extern struct lp_qos want;
void default_want(void);
/* qos_apply of `want` (dry_run or not), its changes into changes[]. */
int apply(int dry_run);
/* qos_read for want's ports into *got (asserting it succeeds). */
void read_back(struct lp_qos *got);

#endif
