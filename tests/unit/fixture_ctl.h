/* tests/unit/fixture_ctl.h: what test_ctl.c and test_ctl_limits.c share: a
 * control socket (daemon/core/ctl.h) on a real event loop, made by setup()
 * with the handlers "echo" (read), "poke" (write), "later" (answered when
 * the test says, through `saved`) and "slow_big"; and a blocking client in
 * this process, the loop turned by hand while it waits. */
#ifndef LOOM_TEST_FIXTURE_CTL_H
#define LOOM_TEST_FIXTURE_CTL_H

#include <check.h>
#include <jansson.h>

#include "daemon/core/ctl.h"

#define NOBODY 65534

extern char dir[64];
extern char sock_path[128];
extern struct event_base *base;
extern struct ctl *ctl;
extern struct ctl_req *saved;   /* held by the "later" handler */
/* the tests' declarations (ctl_set_declarations): echo, poke, later and
 * slow_big handled by setup, tenant-create and qos-status left to the
 * tests, offline loomctl's alone */
extern const struct cmds_decl fixture_decls[];
extern const struct cmds_arg fixture_create_spec[];

void setup(void);
void teardown(void);

int connect_to(const char *path);
void pump(int ms);                              /* turn the loop for ms */
int pump_until_readable(int fd, int ms);
void send_req(int fd, const char *cmd, json_t *args, json_int_t id);
json_t *recv_resp(int fd);
json_t *call(int fd, const char *cmd, json_t *args, json_int_t id);
const char *err_code(const json_t *resp);
const char *err_message(const json_t *resp);
/* In a child process: one call on fd, answered without the loop. */
json_t *child_call(int fd, const char *cmd, json_int_t id);

/* test_ctl_limits.c's tests (ctl_limits.h's bounds), added to tc. */
void ctl_limits_add_tests(TCase *tc);

#endif
