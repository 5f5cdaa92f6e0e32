/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/eos/test_eos.c: the eos switch plugin (plugins/eos/) against
 * tests/servers/eos_server.py, a small eAPI holding a model of an EOS
 * leaf's running config: loaded through plugin_load() like loomd does,
 * inventory and LLDP as the server holds them, loom's default policy
 * committed in one configure session (and nothing twice), dry runs and
 * drift, read-back, credentials refused, a failing commit leaving nothing
 * behind, VLANs, addresses refused, and the one exported symbol. The EOS
 * rules the plugin follows and the fake enforces (QoS trust, the queue
 * keyword of the platform, ECN thresholds, whole-command matching) are
 * test_eos_rules.c's, run in the same case; fixture_eos.h is what they share.
 *
 * Each test runs its own server (python3 on PATH; without one the whole
 * program skips, exit 77) on 127.0.0.1 and a free port, killed when the
 * test ends (and by PR_SET_PDEATHSIG should the test die first). The
 * test talks to the server's test-only endpoints with libcurl itself. */
#include "autoconf.h"

#include <check.h>
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/fixtures/fixture_plugin.h"
#include "daemon/core/plugin.h"
#include "lib/qos/qos_policy.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_eos.h"

#ifndef EOS_PLUGIN_DIR
#error EOS_PLUGIN_DIR must name the directory of eos.so
#endif
#ifndef EOS_SERVER
#error EOS_SERVER must name tests/servers/eos_server.py
#endif

char err[512];
static pid_t srv_pid = -1;
static int port;
char base_url[64];
static struct plugin *plugin;
const struct loom_plugin_v1 *ops;
struct lp_switch *sw;

/* ---- the server ------------------------------------------------------------- */

static void server_stop(void)
{
	if (srv_pid > 0) {
		kill(srv_pid, SIGTERM);
		for (int i = 0; i < 500 && waitpid(srv_pid, NULL, WNOHANG) != srv_pid; i++)
			usleep(10000);
		kill(srv_pid, SIGKILL);
		waitpid(srv_pid, NULL, WNOHANG);
	}
	srv_pid = -1;
}

static void server_start_tls(const char *cert, const char *key);

static void server_start(void)
{
	server_start_tls(NULL, NULL);
}

/* The server on a free port; HTTPS with cert and key when not NULL. */
static void server_start_tls(const char *cert, const char *key)
{
	int fd[2];
	char line[64] = "";
	FILE *f;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {  /* no check assertions in the child */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		if (cert)
			execlp("python3", "python3", EOS_SERVER, "--port", "0", "--user", "admin",
			       "--password", "arista", "--cert", cert, "--key", key, (char *)NULL);
		else
			execlp("python3", "python3", EOS_SERVER, "--port", "0", "--user", "admin",
			       "--password", "arista", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_ge(pid, 0);
	srv_pid = pid;
	close(fd[1]);
	f = fdopen(fd[0], "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(fgets(line, sizeof(line), f) && sscanf(line, "PORT %d", &port) == 1,
		      "eos_server.py did not print its port (\"%s\")", line);
	fclose(f);
	snprintf(base_url, sizeof(base_url), "http://127.0.0.1:%d", port);
}

struct buf {
	char *p;
	size_t n;
};

static size_t on_data(char *d, size_t s, size_t m, void *ctx)
{
	struct buf *b = ctx;

	b->p = realloc(b->p, b->n + s * m + 1);
	memcpy(b->p + b->n, d, s * m);
	b->n += s * m;
	b->p[b->n] = '\0';
	return s * m;
}

/* GET (body NULL) or POST path on the server: the JSON answer. */
json_t *test_http(const char *path, const char *body)
{
	CURL *c = curl_easy_init();
	struct buf b = { 0 };
	char url[160];
	json_t *j;

	snprintf(url, sizeof(url), "%s%s", base_url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
	curl_easy_cleanup(c);
	j = json_loads(b.p ? b.p : "", 0, NULL);
	ck_assert_msg(j, "%s: not JSON: %s", path, b.p ? b.p : "");
	free(b.p);
	return j;
}

/* The server's running config, in a static buffer. */
const char *running_config(void)
{
	static char text[65536];
	json_t *j = test_http("/_test/state", NULL);

	snprintf(text, sizeof(text), "%s",
		 json_string_value(json_object_get(j, "running_config")));
	json_decref(j);
	return text;
}

static size_t pending_sessions(void)
{
	json_t *j = test_http("/_test/state", NULL);
	size_t n = json_array_size(json_object_get(j, "sessions"));

	json_decref(j);
	return n;
}

/* The config lines run behind loom's back. */
void behind_looms_back(const char *json_cmds)
{
	char body[1024];

	snprintf(body, sizeof(body), "{\"cmds\": %s}", json_cmds);
	json_decref(test_http("/_test/config", body));
}

/* What the server's log holds: requests to /command-api, the refused
 * ones, and those with a configure command. */
struct log_count log_count(void)
{
	struct log_count lc = { 0 };
	json_t *j = test_http("/_test/log", NULL), *r;
	size_t i;

	json_array_foreach(json_object_get(j, "requests"), i, r) {
		json_t *cmds = json_object_get(r, "cmds"), *c;
		size_t k;

		lc.requests++;
		lc.refused += json_is_true(json_object_get(r, "refused"));
		json_array_foreach(cmds, k, c)
			if (!strncmp(json_string_value(c) ? json_string_value(c) : "", "configure",
				     9)) {
				lc.configure++;
				break;
			}
	}
	json_decref(j);
	return lc;
}

/* ---- the plugin ------------------------------------------------------------- */

static void host_log(enum lp_log_level level, const char *name, const char *fmt, ...)
{
	(void)level, (void)name, (void)fmt;
}

static const struct lp_host host = { .log = host_log };

int open_switch(const char *address, const char *credentials, struct lp_switch **out)
{
	struct lp_endpoint ep = { .name = "leaf1", .address = address,
				  .credentials = credentials, .timeout_ms = 5000 };

	memset(err, 0, sizeof(err));
	return ops->open(&ep, &host, out, err, sizeof(err));
}

static void cleanup(void)
{
	if (sw && ops)
		ops->close(sw);
	sw = NULL;
	if (plugin)
		plugin_free(plugin);
	plugin = NULL;
	ops = NULL;
	server_stop();
}

static void setup(void)
{
	atexit(cleanup);
	server_start();
	ck_assert_msg(plugin_load(EOS_PLUGIN_DIR, "eos", &plugin, err, sizeof(err)) == 0, "%s",
		      err);
	ops = plugin_ops(plugin);
	ck_assert_msg(open_switch(base_url, "admin:arista\n", &sw) == 0, "open: %s", err);
}

static void teardown(void)
{
	cleanup();
}

/* ---- sinks -------------------------------------------------------------------- */

static int change_sink(void *ctx, const struct lp_change *c)
{
	struct changes *cs = ctx;
	struct change *x;

	ck_assert_uint_lt(cs->n, 1024);
	x = &cs->v[cs->n++];
	snprintf(x->key, sizeof(x->key), "%s", c->key);
	snprintf(x->field, sizeof(x->field), "%s", c->field);
	snprintf(x->before, sizeof(x->before), "%s", c->before);
	snprintf(x->after, sizeof(x->after), "%s", c->after);
	x->done = c->done;
	return 0;
}

int apply(const struct lp_qos *want, int dry_run, struct changes *cs)
{
	struct lp_change_sink sink = { cs, change_sink };

	memset(cs, 0, sizeof(*cs));
	memset(err, 0, sizeof(err));
	return ops->qos_apply(sw, want, dry_run, &sink, err, sizeof(err));
}

const struct change *find(const struct changes *cs, const char *key, const char *field)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->v[i].key, key) && !strcmp(cs->v[i].field, field))
			return &cs->v[i];
	return NULL;
}

void config_has(const char *text)
{
	const char *rc = running_config();

	ck_assert_msg(strstr(rc, text), "running-config lacks \"%s\":\n%s", text, rc);
}

void config_lacks(const char *text)
{
	const char *rc = running_config();

	ck_assert_msg(!strstr(rc, text), "running-config has \"%s\":\n%s", text, rc);
}

/* ---- tests ---------------------------------------------------------------------- */

START_TEST(eos_inventory_reads_show_version_hostname_and_ethernet_ports_in_order)
{
	struct lp_port_sink sink = { NULL, fp_port_sink };
	struct lp_inventory inv;

	fp_n_ports = 0;
	ck_assert_msg(ops->inventory(sw, &inv, &sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(inv.hostname, "leaf1");
	ck_assert_str_eq(inv.model, "DCS-7050CX3-32S-F");
	ck_assert_str_eq(inv.os_version, "4.30.1F");
	ck_assert_str_eq(inv.mac, "00:1c:73:aa:bb:01");
	ck_assert_uint_eq(fp_n_ports, N_PORTS);      /* Management1 left out */
	for (unsigned i = 0; i < N_PORTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "Ethernet%u", i + 1);
		ck_assert_str_eq(fp_ports[i].name, name);
		ck_assert_uint_eq(fp_ports[i].speed_mbps, 100000);
		ck_assert_uint_eq(fp_ports[i].oper_up, i < 6);
		ck_assert_uint_eq(fp_ports[i].admin_up, i != 7);
	}
}
END_TEST

START_TEST(eos_lldp_reports_each_neighbour_the_server_holds)
{
	struct lp_neighbor_sink sink = { NULL, fp_neighbor_sink };
	const struct lp_neighbor *a = NULL, *b = NULL;

	fp_n_neigh = 0;
	ck_assert_msg(ops->lldp_neighbors(sw, &sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(fp_n_neigh, 2);
	for (size_t i = 0; i < fp_n_neigh; i++) {
		if (!strcmp(fp_neigh[i].local_port, "Ethernet1"))
			a = &fp_neigh[i];
		if (!strcmp(fp_neigh[i].local_port, "Ethernet2"))
			b = &fp_neigh[i];
	}
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(a->sys_name, "spine1");
	ck_assert_str_eq(a->chassis_id, "00:1c:73:00:10:00");  /* EOS: 001c.7300.1000 */
	ck_assert_str_eq(a->port_id, "Ethernet49/1");
	ck_assert_str_eq(a->port_desc, "to-leaf1-Et1");
	ck_assert_str_eq(b->sys_name, "spine2");
	ck_assert_str_eq(b->port_id, "Ethernet50/1");   /* from the quoted interfaceId */
	ck_assert_str_eq(b->port_desc, "");
}
END_TEST

START_TEST(eos_apply_of_the_default_policy_lands_in_one_session)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));
	struct log_count before = log_count(), after;
	const struct change *c;
	const char *rc;

	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_uint_gt(cs->n, 0);
	for (size_t i = 0; i < cs->n; i++)
		ck_assert_msg(cs->v[i].done == 1, "%s %s not done", cs->v[i].key, cs->v[i].field);
	/* DSCP 26 -> 3 and 48 -> 6 are EOS's defaults already; 24 is not loom's */
	ck_assert_ptr_null(find(cs, "qos map dscp", "26"));
	c = find(cs, "qos map dscp", "24");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->before, "3");
	ck_assert_str_eq(c->after, "0");
	c = find(cs, "interface Ethernet1", "priority-flow-control priority 3");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->before, "");
	ck_assert_str_eq(c->after, "no-drop");
	c = find(cs, "interface Ethernet8/tx-queue 3", "random-detect ecn");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->after, "minimum-threshold 150000 bytes maximum-threshold 1500000 "
			 "bytes max-mark-probability 10");   /* bytes: exact (eos_qos.c) */
	c = find(cs, "interface Ethernet4/tx-queue 0", "bandwidth percent");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->after, "50");
	ck_assert_ptr_nonnull(find(cs, "interface Ethernet4/tx-queue 0", "priority"));
	ck_assert_ptr_null(find(cs, "interface Ethernet4/tx-queue 6", "priority"));  /* strict */

	rc = running_config();
	ck_assert_msg(strstr(rc, "qos map dscp 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 24 25 27 "),
		      "%s", rc);
	ck_assert_msg(strstr(rc, "interface Ethernet5\n   qos trust dscp\n"
			     "   priority-flow-control on\n"
			     "   priority-flow-control priority 3 no-drop\n"), "%s", rc);
	ck_assert_msg(strstr(rc, "   tx-queue 3\n      bandwidth percent 50\n      no priority\n"
			     "      random-detect ecn minimum-threshold 150000 bytes maximum-threshold "
			     "1500000 bytes max-mark-probability 10\n"), "%s", rc);
	ck_assert_msg(strstr(rc, "   tx-queue 0\n      bandwidth percent 50\n      no priority\n"
			     "   !\n   tx-queue 3\n"), "%s", rc);
	after = log_count();
	ck_assert_uint_eq(after.configure - before.configure, 1);  /* one session */
	ck_assert_uint_eq(after.refused, 0);
	ck_assert_uint_eq(pending_sessions(), 0);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_second_apply_reports_nothing_and_sends_no_configure)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));
	struct log_count before;

	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	before = log_count();
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_msg(cs->n == 0, "second apply reports %zu changes, first %s %s", cs->n,
		      cs->n ? cs->v[0].key : "", cs->n ? cs->v[0].field : "");
	ck_assert_uint_eq(log_count().configure, before.configure);
	ck_assert_uint_eq(log_count().refused, 0);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_dry_run_reports_every_change_and_configures_nothing)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));
	struct changes *real = calloc(1, sizeof(*real));
	const char *before = strdup(running_config());

	ck_assert_msg(apply(want, 1, cs) == 0, "%s", err);
	ck_assert_uint_gt(cs->n, 0);
	for (size_t i = 0; i < cs->n; i++)
		ck_assert_int_eq(cs->v[i].done, 0);
	ck_assert_uint_eq(log_count().configure, 0);
	ck_assert_str_eq(running_config(), before);
	/* the dry run said what the real one does */
	ck_assert_msg(apply(want, 0, real) == 0, "%s", err);
	ck_assert_uint_eq(real->n, cs->n);
	for (size_t i = 0; i < cs->n; i++) {
		ck_assert_str_eq(real->v[i].key, cs->v[i].key);
		ck_assert_str_eq(real->v[i].field, cs->v[i].field);
		ck_assert_str_eq(real->v[i].after, cs->v[i].after);
	}
	free((void *)before);
	free(real);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_drift_behind_looms_back_is_found_alone_and_repaired)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));

	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	behind_looms_back("[\"interface Ethernet2\", \"tx-queue 3\", \"bandwidth percent 30\"]");
	ck_assert_msg(apply(want, 1, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 1);
	ck_assert_str_eq(cs->v[0].key, "interface Ethernet2/tx-queue 3");
	ck_assert_str_eq(cs->v[0].field, "bandwidth percent");
	ck_assert_str_eq(cs->v[0].before, "30");
	ck_assert_str_eq(cs->v[0].after, "50");
	ck_assert_int_eq(cs->v[0].done, 0);
	behind_looms_back("[\"qos map dscp 33 to traffic-class 5\", \"interface Ethernet7\", "
			  "\"no priority-flow-control priority 3\"]");
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 3);
	ck_assert_ptr_nonnull(find(cs, "qos map dscp", "33"));
	ck_assert_ptr_nonnull(find(cs, "interface Ethernet7", "priority-flow-control priority 3"));
	ck_assert_ptr_nonnull(find(cs, "interface Ethernet2/tx-queue 3", "bandwidth percent"));
	ck_assert_msg(apply(want, 1, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 0);
	ck_assert_uint_eq(log_count().refused, 0);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_qos_read_gives_back_what_apply_wrote)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct lp_qos *got = calloc(1, sizeof(*got));
	struct changes *cs = calloc(1, sizeof(*cs));

	got->n_ports = want->n_ports;
	for (size_t i = 0; i < want->n_ports; i++)
		memcpy(got->ports[i].port, want->ports[i].port, LP_NAME_LEN);
	ck_assert_int_eq(ops->qos_read(sw, got, err, sizeof(err)), -ENOENT);
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_msg(ops->qos_read(sw, got, err, sizeof(err)) == 0, "%s", err);
	ck_assert_mem_eq(got->dscp_to_tc, want->dscp_to_tc, 64);
	ck_assert_mem_eq(got->tc_to_queue, want->tc_to_queue, LP_TCS);
	ck_assert_mem_eq(got->tc_to_pg, want->tc_to_pg, LP_TCS);
	ck_assert_uint_eq(got->pfc_mask, want->pfc_mask);
	ck_assert_uint_eq(got->strict_mask, want->strict_mask);
	ck_assert_mem_eq(got->ets_weight, want->ets_weight, LP_TCS);
	for (unsigned t = 0; t < LP_TCS; t++) {
		ck_assert_uint_eq(got->ecn[t].enabled, want->ecn[t].enabled);
		ck_assert_uint_eq(got->ecn[t].min_bytes, want->ecn[t].min_bytes);
		ck_assert_uint_eq(got->ecn[t].max_bytes, want->ecn[t].max_bytes);
		ck_assert_uint_eq(got->ecn[t].mark_percent, want->ecn[t].mark_percent);
	}
	ck_assert_uint_eq(got->n_ports, want->n_ports);
	ck_assert_str_eq(got->ports[0].port, "Ethernet1");
	free(cs);
	free(got);
	free(want);
}
END_TEST

START_TEST(eos_wrong_password_is_eacces)
{
	struct lp_switch *other = NULL;

	ck_assert_int_eq(open_switch(base_url, "admin:wrong", &other), -EACCES);
	ck_assert_ptr_null(other);
	ck_assert_msg(strstr(err, "401"), "%s", err);
	ck_assert_int_eq(open_switch(base_url, NULL, &other), -EACCES);
	ck_assert_int_eq(open_switch(base_url, "no-colon", &other), -EINVAL);
}
END_TEST

START_TEST(eos_failing_commit_is_an_error_and_leaves_nothing)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));
	const char *before = strdup(running_config());

	json_decref(test_http("/_test/fail", "{\"command\": \"commit\"}"));
	ck_assert_int_eq(apply(want, 0, cs), -EIO);
	ck_assert_msg(strstr(err, "'commit'") && strstr(err, "injected failure"), "%s", err);
	ck_assert_msg(strstr(err, "command "), "%s", err);
	ck_assert_uint_gt(cs->n, 0);
	for (size_t i = 0; i < cs->n; i++)
		ck_assert_int_eq(cs->v[i].done, 0);
	ck_assert_str_eq(running_config(), before);
	ck_assert_uint_eq(pending_sessions(), 0);   /* aborted */
	config_lacks("no-drop");
	/* and the next apply lands it all */
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	config_has("priority-flow-control priority 3 no-drop");
	free((void *)before);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_a_lost_answer_is_settled_by_reading_back)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));

	/* the session commits, but its answer never arrives */
	json_decref(test_http("/_test/fail", "{\"lose_answer_of\": \"commit\"}"));
	ck_assert_msg(apply(want, 0, cs) == 0, "%s", err);
	ck_assert_uint_gt(cs->n, 0);
	for (size_t i = 0; i < cs->n; i++)
		ck_assert_msg(cs->v[i].done == 1, "%s %s", cs->v[i].key, cs->v[i].field);
	config_has("priority-flow-control priority 3 no-drop");
	ck_assert_uint_eq(pending_sessions(), 0);
	ck_assert_msg(apply(want, 1, cs) == 0, "%s", err);
	ck_assert_uint_eq(cs->n, 0);
	/* the answer of a session that failed is lost: nothing landed, all 0 */
	behind_looms_back("[\"interface Ethernet2\", \"tx-queue 3\", \"bandwidth percent 30\"]");
	json_decref(test_http("/_test/fail", "{\"command\": \"commit\", "
				  "\"lose_answer_of\": \"commit\"}"));
	ck_assert_int_eq(apply(want, 0, cs), -EPROTO);
	ck_assert_msg(strstr(err, "HTTP 502"), "%s", err);
	ck_assert_uint_eq(cs->n, 1);
	ck_assert_int_eq(cs->v[0].done, 0);
	config_has("bandwidth percent 30");
	ck_assert_uint_eq(pending_sessions(), 0);
	free(cs);
	free(want);
}
END_TEST

START_TEST(eos_a_refused_line_names_its_index_and_commits_nothing)
{
	struct lp_qos *want = fp_default_want(ops, sw);
	struct changes *cs = calloc(1, sizeof(*cs));

	/* the switch turns out to be a 7280R (the plugin read a 7050X at open):
	 * it refuses the first "tx-queue" line as a command it lacks */
	json_decref(test_http("/_test/model", "{\"model\": \"DCS-7280SR-48C6\"}"));
	ck_assert_int_eq(apply(want, 0, cs), -EIO);
	ck_assert_msg(strstr(err, "command ") && strstr(err, "'tx-queue 0'") &&
		      strstr(err, "not supported on this hardware platform"), "%s", err);
	for (size_t i = 0; i < cs->n; i++)
		ck_assert_int_eq(cs->v[i].done, 0);
	config_lacks("no-drop");
	ck_assert_uint_eq(pending_sessions(), 0);
	free(cs);
	free(want);
}
END_TEST

/* The access VLAN vlan_get reads back for `port` (asserting it succeeds). */
static unsigned vlan_of(const char *name)
{
	uint16_t vid = 9999;

	ck_assert_msg(ops->vlan_get(sw, name, &vid, err, sizeof(err)) == 0, "%s: %s", name, err);
	return vid;
}

START_TEST(eos_vlan_set_writes_the_access_vlan_get_reads_it_and_clear_removes_it)
{
	ck_assert_uint_eq(vlan_of("Ethernet3"), 0);      /* EOS's default VLAN 1 */
	ck_assert_msg(ops->vlan_set(sw, "Ethernet3", 100, err, sizeof(err)) == 0, "%s", err);
	config_has("interface Ethernet3\n   switchport access vlan 100\n");
	ck_assert_uint_eq(vlan_of("Ethernet3"), 100);
	ck_assert_msg(ops->vlan_set(sw, "Ethernet3", 200, err, sizeof(err)) == 0, "%s", err);
	config_has("interface Ethernet3\n   switchport access vlan 200\n");
	ck_assert_uint_eq(vlan_of("Ethernet3"), 200);
	ck_assert_msg(ops->vlan_clear(sw, "Ethernet3", err, sizeof(err)) == 0, "%s", err);
	config_lacks("switchport access vlan");
	ck_assert_uint_eq(vlan_of("Ethernet3"), 0);
	ck_assert_uint_eq(log_count().configure, 3);     /* reading configures nothing */
	ck_assert_uint_eq(log_count().refused, 0);
	ck_assert_int_eq(ops->vlan_set(sw, "Ethernet3", 0, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ops->vlan_set(sw, "Ethernet3\nreload", 5, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ops->vlan_set(sw, "Ethernet99", 5, err, sizeof(err)), -EIO);
	ck_assert_uint_eq(log_count().refused, 1);
}
END_TEST

START_TEST(eos_vlan_get_reads_an_operators_vlan_and_no_vlan_off_access_mode)
{
	uint16_t vid = 7;

	behind_looms_back("[\"interface Ethernet4\", \"switchport access vlan 40\"]");
	ck_assert_uint_eq(vlan_of("Ethernet4"), 40);
	/* the same port made a trunk: its access VLAN line stays, but is not in effect */
	behind_looms_back("[\"interface Ethernet4\", \"switchport mode trunk\"]");
	config_has("interface Ethernet4\n   switchport access vlan 40\n   switchport mode trunk\n");
	ck_assert_uint_eq(vlan_of("Ethernet4"), 0);
	/* a routed port ("no switchport"): no VLAN, though the line stays */
	behind_looms_back("[\"interface Ethernet5\", \"switchport access vlan 50\", "
			  "\"no switchport\"]");
	ck_assert_uint_eq(vlan_of("Ethernet5"), 0);
	behind_looms_back("[\"interface Ethernet5\", \"switchport\"]");
	ck_assert_uint_eq(vlan_of("Ethernet5"), 50);
	ck_assert_uint_eq(log_count().refused, 0);

	/* a port the switch does not have: eAPI refuses the show command */
	ck_assert_int_eq(ops->vlan_get(sw, "Ethernet99", &vid, err, sizeof(err)), -ENOENT);
	ck_assert_uint_eq(vid, 0);
	ck_assert_msg(strstr(err, "no interface Ethernet99") &&
		      strstr(err, "Interface does not exist"), "%s", err);
	ck_assert_uint_eq(log_count().refused, 1);
	ck_assert_int_eq(ops->vlan_get(sw, "Ethernet3 switchport\nreload", &vid, err,
					sizeof(err)), -EINVAL);
	ck_assert_int_eq(ops->vlan_get(sw, "", &vid, err, sizeof(err)), -EINVAL);
	ck_assert_uint_eq(log_count().configure, 0);
}
END_TEST

START_TEST(eos_health_and_addresses)
{
	struct lp_switch *other = NULL;

	ck_assert_msg(ops->health(sw, err, sizeof(err)) == 0, "%s", err);
	json_decref(test_http("/_test/fail", "{\"http\": 500}"));
	ck_assert_int_eq(ops->health(sw, err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "HTTP 500"), "%s", err);
	ck_assert_msg(ops->health(sw, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(open_switch("ftp://127.0.0.1", "admin:arista", &other), -EINVAL);
	ck_assert_int_eq(open_switch("127.0.0.1:443", "admin:arista", &other), -EINVAL);
	ck_assert_int_eq(open_switch("http://127.0.0.1:1/x", "admin:arista", &other), -EINVAL);
	ck_assert_int_eq(open_switch("http://127.0.0.1:1", "admin:arista", &other),
			 -ECONNREFUSED);
	ck_assert_msg(strstr(err, "127.0.0.1:1"), "%s", err);
	ck_assert_ptr_null(other);
}
END_TEST

/* A raw request to the server: the HTTP status; *body its answer (JSON). */
long raw(const char *method, const char *path, const char *user, const char *body,
		json_t **answer)
{
	CURL *c = curl_easy_init();
	struct buf b = { 0 };
	char url[160];
	long status = 0;

	snprintf(url, sizeof(url), "%s%s", base_url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (user)
		curl_easy_setopt(c, CURLOPT_USERPWD, user);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	*answer = json_loads(b.p ? b.p : "", 0, NULL);
	free(b.p);
	return status;
}

long rpc_error(json_t *a)
{
	return (long)json_integer_value(json_object_get(json_object_get(a, "error"), "code"));
}

START_TEST(eos_server_refuses_what_eapi_refuses)
{
	static const char ok[] = "admin:arista";
	json_t *a;

	ck_assert_int_eq(raw("GET", "/command-api", ok, NULL, &a), 405);
	json_decref(a);
	ck_assert_int_eq(raw("POST", "/api", ok, "{}", &a), 404);
	json_decref(a);
	ck_assert_int_eq(raw("POST", "/command-api", "admin:x", "{}", &a), 401);
	json_decref(a);
	ck_assert_int_eq(raw("POST", "/command-api", NULL, "{}", &a), 401);
	json_decref(a);
	ck_assert_int_eq(raw("POST", "/command-api", ok, "{\"method\": \"runCmds\"}", &a), 200);
	ck_assert_int_eq(rpc_error(a), -32600);
	json_decref(a);
	ck_assert_int_eq(raw("POST", "/command-api", ok, "{\"jsonrpc\": \"2.0\", \"id\": 1, "
			     "\"method\": \"runCmds\", \"params\": {\"version\": 1, \"cmds\": "
			     "[\"show version\", \"interface Ethernet1\"]}}", &a), 200);
	ck_assert_int_eq(rpc_error(a), 1002);   /* a config command outside configure */
	ck_assert_msg(strstr(json_string_value(json_object_get(json_object_get(a, "error"),
				"message")), "CLI command 2 of 2"), "%s",
		      json_dumps(a, 0));
	json_decref(a);
	ck_assert_int_eq(raw("POST", "/command-api", ok, "{\"jsonrpc\": \"2.0\", \"id\": 1, "
			     "\"method\": \"runCmds\", \"params\": {\"version\": 1, \"cmds\": "
			     "[\"configure\"]}}", &a), 200);
	ck_assert_int_eq(rpc_error(a), 1002);   /* not privileged */
	json_decref(a);
	ck_assert_uint_eq(log_count().refused, 7);
}
END_TEST

START_TEST(eos_gives_up_after_timeout_ms_when_the_switch_does_not_answer)
{
	struct lp_endpoint ep = { .name = "leaf1", .address = base_url,
				  .credentials = "admin:arista", .timeout_ms = 300 };
	struct lp_switch *other = NULL;
	struct timespec t0, t1;
	double ms;

	ck_assert_msg(ops->open(&ep, &host, &other, err, sizeof(err)) == 0, "%s", err);
	json_decref(test_http("/_test/fail", "{\"stall\": 2}"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(ops->health(other, err, sizeof(err)), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	ck_assert_msg(ms >= 250 && ms < 1500, "gave up after %.0f ms", ms);
	ops->close(other);
}
END_TEST

/* HTTPS: a self-signed certificate for 127.0.0.1 (openssl on PATH, else
 * this test passes without checking). */
START_TEST(eos_https_checks_the_certificate_unless_told_otherwise)
{
	char dir[] = "/tmp/loom-eos-tls-XXXXXX", cmd[1024], cert[96], key[96], url[64], opt[128];
	struct lp_endpoint ep = { .name = "leaf1", .address = url,
				  .credentials = "admin:arista", .timeout_ms = 5000 };
	struct lp_switch *other = NULL;

	if (system("openssl version >/dev/null 2>&1") != 0)
		return;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	snprintf(cmd, sizeof(cmd), "openssl req -x509 -newkey rsa:2048 -nodes -days 1 "
		 "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s "
		 ">/dev/null 2>&1", key, cert);
	ck_assert_int_eq(system(cmd), 0);
	ops->close(sw);
	sw = NULL;
	server_stop();
	server_start_tls(cert, key);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d", port);
	ck_assert_int_lt(ops->open(&ep, &host, &other, err, sizeof(err)), 0);   /* unknown CA */
	ck_assert_ptr_null(other);
	ck_assert_msg(strstr(err, "certificate") || strstr(err, "SSL"), "%s", err);
	ep.options = "insecure";
	ck_assert_msg(ops->open(&ep, &host, &other, err, sizeof(err)) == 0, "%s", err);
	ops->close(other);
	snprintf(opt, sizeof(opt), "cacert=%s", cert);
	ep.options = opt;
	ck_assert_msg(ops->open(&ep, &host, &sw, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ops->health(sw, err, sizeof(err)) == 0, "%s", err);
	ep.options = "cacert=";
	ck_assert_int_eq(ops->open(&ep, &host, &other, err, sizeof(err)), -EINVAL);
	ep.options = "verify=no";
	ck_assert_int_eq(ops->open(&ep, &host, &other, err, sizeof(err)), -EINVAL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(eos_plugin_exports_only_loom_plugin_v1)
{
	void *dl = dlopen(EOS_PLUGIN_DIR "/eos.so", RTLD_NOW | RTLD_LOCAL);
	static const char *const internal[] = { "eos_run", "eos_plan_qos", "eos_state_parse",
		"eos_conn_init", "eos_plan_cmds" };

	ck_assert_msg(dl, "%s", dlerror());
	ck_assert_ptr_nonnull(dlsym(dl, "loom_plugin_v1"));
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		ck_assert_msg(!dlsym(dl, internal[i]), "eos.so exports %s", internal[i]);
	dlclose(dl);
}
END_TEST

static int have_python3(void)
{
	return system("python3 -c 'import http.server' >/dev/null 2>&1") == 0;
}

int main(void)
{
	Suite *s = suite_create("eos");
	TCase *tc = tcase_create("eos");

	if (!have_python3()) {
		printf("test_eos: SKIP: no python3 on PATH (Debian: apt-get install python3; "
		       "tools/deps.sh installs it)\n");
		return 77;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, eos_inventory_reads_show_version_hostname_and_ethernet_ports_in_order);
	tcase_add_test(tc, eos_lldp_reports_each_neighbour_the_server_holds);
	tcase_add_test(tc, eos_apply_of_the_default_policy_lands_in_one_session);
	tcase_add_test(tc, eos_second_apply_reports_nothing_and_sends_no_configure);
	tcase_add_test(tc, eos_dry_run_reports_every_change_and_configures_nothing);
	tcase_add_test(tc, eos_drift_behind_looms_back_is_found_alone_and_repaired);
	tcase_add_test(tc, eos_qos_read_gives_back_what_apply_wrote);
	tcase_add_test(tc, eos_wrong_password_is_eacces);
	tcase_add_test(tc, eos_failing_commit_is_an_error_and_leaves_nothing);
	tcase_add_test(tc, eos_a_lost_answer_is_settled_by_reading_back);
	tcase_add_test(tc, eos_a_refused_line_names_its_index_and_commits_nothing);
	tcase_add_test(tc, eos_vlan_set_writes_the_access_vlan_get_reads_it_and_clear_removes_it);
	tcase_add_test(tc, eos_vlan_get_reads_an_operators_vlan_and_no_vlan_off_access_mode);
	tcase_add_test(tc, eos_health_and_addresses);
	tcase_add_test(tc, eos_server_refuses_what_eapi_refuses);
	tcase_add_test(tc, eos_gives_up_after_timeout_ms_when_the_switch_does_not_answer);
	tcase_add_test(tc, eos_https_checks_the_certificate_unless_told_otherwise);
	tcase_add_test(tc, eos_plugin_exports_only_loom_plugin_v1);
	eos_add_rule_tests(tc);
	eos_add_counter_tests(s, tc);
	suite_add_tcase(s, tc);
	return check_run(s);
}
