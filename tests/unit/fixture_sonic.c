/* tests/unit/fixture_sonic.c: see fixture_sonic.h. */
#include "autoconf.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture_sonic.h"
#include "fixture_redis.h"
#include "daemon/core/plugin.h"
#include "check_run.h"

#ifndef SONIC_PLUGIN_DIR
#error SONIC_PLUGIN_DIR must name the directory of sonic.so
#endif
#ifndef SONIC_DB
#error SONIC_DB must name tests/servers/sonic_db.py
#endif

char err[512];
char base[64];             /* the program's: removed at its end */
struct plugin *plugin;
const struct loom_plugin_v1 *ops;
struct lp_switch *sw;
char last_log[512];

/* ---- a SONiC leaf's databases ---------------------------------------------- */

void seed_leaf(void)
{
	fr_hset(CONFIG_DB, "DEVICE_METADATA|localhost", "hostname", "leaf1",
	     "hwsku", "Arista-7050CX3-32S-C32", "platform", "x86_64-arista_7050cx3_32s",
	     "mac", "0c:42:a1:00:00:01", "type", "LeafRouter", "bgp_asn", "65100",
	     "buffer_model", "traditional", NULL);
	for (unsigned i = 0; i < N_PORTS; i++) {
		char key[64], appl[64], alias[16], lanes[32], idx[8];
		const char *admin = i == 7 ? "down" : "up";
		const char *oper = i >= 6 ? "down" : "up";

		snprintf(key, sizeof(key), "PORT|Ethernet%u", 4 * i);
		snprintf(appl, sizeof(appl), "PORT_TABLE:Ethernet%u", 4 * i);
		snprintf(alias, sizeof(alias), "etp%u", i + 1);
		snprintf(lanes, sizeof(lanes), "%u,%u,%u,%u", 4 * i + 1, 4 * i + 2, 4 * i + 3,
			 4 * i + 4);
		snprintf(idx, sizeof(idx), "%u", i + 1);
		fr_hset(CONFIG_DB, key, "alias", alias, "lanes", lanes, "speed", "100000",
		     "mtu", "9100", "admin_status", admin, "index", idx, "fec", "rs", NULL);
		fr_hset(APPL_DB, appl, "alias", alias, "lanes", lanes, "speed", "100000",
		     "mtu", "9100", "admin_status", admin, "oper_status", oper, NULL);
		snprintf(key, sizeof(key), "PORT_TABLE|Ethernet%u", 4 * i);
		fr_hset(STATE_DB, key, "state", "ok", "netdev_oper_status", oper, NULL);
	}
	fr_hset(APPL_DB, "LLDP_ENTRY_TABLE:Ethernet0", "lldp_rem_port_id_subtype", "5",
	     "lldp_rem_port_id", "Ethernet64", "lldp_rem_port_desc", "to-leaf1-etp1",
	     "lldp_rem_chassis_id_subtype", "4", "lldp_rem_chassis_id", "0c:42:a1:00:10:00",
	     "lldp_rem_sys_name", "spine1", "lldp_rem_sys_desc", "SONiC Software Version: "
	     "SONiC.202311.1-8a1c3f0 - HwSku: Arista-7060X6-64PE", "lldp_rem_man_addr",
	     "10.1.0.1", "lldp_rem_time_mark", "3112", "lldp_rem_index", "1", NULL);
	fr_hset(APPL_DB, "LLDP_ENTRY_TABLE:Ethernet4", "lldp_rem_port_id_subtype", "5",
	     "lldp_rem_port_id", "Ethernet64", "lldp_rem_port_desc", "to-leaf1-etp2",
	     "lldp_rem_chassis_id_subtype", "4", "lldp_rem_chassis_id", "0c:42:a1:00:20:00",
	     "lldp_rem_sys_name", "spine2", "lldp_rem_man_addr", "", "lldp_rem_index", "2",
	     NULL);
	fr_hset(APPL_DB, "LLDP_LOC_CHASSIS", "lldp_loc_chassis_id", "0c:42:a1:00:00:01",
	     "lldp_loc_sys_name", "leaf1", "lldp_loc_sys_desc", "SONiC Software Version: "
	     "SONiC.202311.1-8a1c3f0 - HwSku: Arista-7050CX3-32S-C32 - Distribution: "
	     "Debian 12.5 - Kernel: 6.1.0-11-2-amd64", NULL);
}

/* ---- the plugin --------------------------------------------------------------- */

static void host_log(enum lp_log_level level, const char *name, const char *fmt, ...)
{
	va_list ap;

	(void)level, (void)name;
	va_start(ap, fmt);
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
	va_end(ap);
}

const struct lp_host host = { .log = host_log };

int open_switch(const char *address, const char *credentials, struct lp_switch **out)
{
	struct lp_endpoint ep = { .name = "leaf1", .address = address,
				  .credentials = credentials, .timeout_ms = 2000 };

	return ops->open(&ep, &host, out, err, sizeof(err));
}

void cleanup(void)
{
	char cmd[128];

	if (sw && ops)
		ops->close(sw);
	sw = NULL;
	if (plugin)
		plugin_free(plugin);
	plugin = NULL;
	ops = NULL;
	fr_stop();
	if (fr_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fr_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", fr_dir);
		fr_dir[0] = '\0';
	}
}

void setup(void)
{
	char address[160];

	snprintf(fr_dir, sizeof(fr_dir), "%s/t-XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(fr_dir));
	snprintf(fr_sock, sizeof(fr_sock), "%s/redis.sock", fr_dir);
	atexit(cleanup);        /* a failed check ends the test's process */
	fr_start(0, NULL);
	seed_leaf();
	ck_assert_msg(plugin_load(SONIC_PLUGIN_DIR, "sonic", &plugin, err, sizeof(err)) == 0,
		      "%s", err);
	ops = plugin_ops(plugin);
	snprintf(address, sizeof(address), "unix:%s", fr_sock);
	ck_assert_msg(open_switch(address, NULL, &sw) == 0, "open: %s", err);
}

void teardown(void)
{
	cleanup();
}

/* ---- sinks ---------------------------------------------------------------- */


int change_sink(void *ctx, const struct lp_change *c)
{
	struct changes *cs = ctx;
	struct change *x;

	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 256;
		cs->v = realloc(cs->v, cs->cap * sizeof(*cs->v));
		ck_assert_ptr_nonnull(cs->v);
	}
	x = &cs->v[cs->n++];
	snprintf(x->key, sizeof(x->key), "%s", c->key);
	snprintf(x->field, sizeof(x->field), "%s", c->field);
	snprintf(x->before, sizeof(x->before), "%s", c->before);
	snprintf(x->after, sizeof(x->after), "%s", c->after);
	x->done = c->done;
	if (c->done && ++cs->n_done == cs->kill_after)
		fr_kill();
	return 0;
}

int apply(const struct lp_qos *want, int dry_run, struct changes *cs)
{
	struct lp_change_sink sink = { cs, change_sink };

	memset(err, 0, sizeof(err));
	return ops->qos_apply(sw, want, dry_run, &sink, err, sizeof(err));
}

/* Index of the first (last) change whose key starts with prefix, or -1. */
long first_of(const struct changes *cs, const char *prefix)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!strncmp(cs->v[i].key, prefix, strlen(prefix)))
			return (long)i;
	return -1;
}

long last_of(const struct changes *cs, const char *prefix)
{
	long last = -1;

	for (size_t i = 0; i < cs->n; i++)
		if (!strncmp(cs->v[i].key, prefix, strlen(prefix)))
			last = (long)i;
	return last;
}

/* qos_read for want's ports (names only, as loomd asks). */
struct lp_qos *read_back(const struct lp_qos *want, int *ret)
{
	struct lp_qos *q = calloc(1, sizeof(*q));

	ck_assert_ptr_nonnull(q);
	memset(q, 0xA5, sizeof(*q));        /* the plugin must fill, not inherit */
	q->n_ports = want->n_ports;
	for (size_t i = 0; i < want->n_ports; i++)
		memcpy(q->ports[i].port, want->ports[i].port, LP_NAME_LEN);
	*ret = ops->qos_read(sw, q, err, sizeof(err));
	return q;
}

/* ---- a switch as SONiC leaves it (tests/servers/sonic_db.py) ---------------- */

int sonic_db(const char *args, char *out, size_t outlen)
{
	char cmd[1024];
	size_t n = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "python3 '%s' %s 2>&1", SONIC_DB, args);
	ck_assert_ptr_nonnull(p = popen(cmd, "r"));
	out[0] = '\0';
	while (n + 1 < outlen && fgets(out + n, (int)(outlen - n), p))
		n += strlen(out + n);
	st = pclose(p);
	ck_assert_msg(WIFEXITED(st), "%s: did not exit", cmd);
	return WEXITSTATUS(st);
}

void seed_switch(unsigned ports, const char *version, char *snap, size_t snaplen)
{
	char args[512], out[4096];

	snprintf(args, sizeof(args), "seed %s --ports %u --version %s", fr_sock, ports, version);
	ck_assert_msg(sonic_db(args, out, sizeof(out)) == 0, "seed: %s", out);
	snprintf(args, sizeof(args), "check %s", fr_sock);
	ck_assert_msg(sonic_db(args, out, sizeof(out)) == 0, "the seed itself: %s", out);
	snprintf(snap, snaplen, "%s/before.json", fr_dir);
	snprintf(args, sizeof(args), "snapshot %s > '%s'", fr_sock, snap);
	ck_assert_msg(sonic_db(args, out, sizeof(out)) == 0, "snapshot: %s", out);
}

int check_switch(const char *snap, const char *managed, char *out, size_t outlen)
{
	char args[512];

	snprintf(args, sizeof(args), "check %s --before '%s' --managed %s", fr_sock, snap,
		 managed);
	return sonic_db(args, out, outlen);
}

/* ---- main ------------------------------------------------------------------------ */

/* redis-server on PATH, or skip. */
static int have_redis_server(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *save = NULL, *d;

	if (!path)
		return 0;
	snprintf(buf, sizeof(buf), "%s", path);
	for (d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char f[4200];

		snprintf(f, sizeof(f), "%s/redis-server", *d ? d : ".");
		if (access(f, X_OK) == 0)
			return 1;
	}
	return 0;
}

int sonic_main(Suite *s, TCase *tc, const char *prog)
{
	int failed;

	if (!have_redis_server()) {
		printf("%s: SKIP: no redis-server on PATH (Debian: apt-get install "
		       "redis-server; tools/deps.sh installs it)\n", prog);
		return 77;
	}
	/* A test that fails ends its process without teardown: its directory
	 * is inside base, which this process removes at the end. */
	snprintf(base, sizeof(base), "/tmp/loom-sonic-XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	failed = check_run(s) != EXIT_SUCCESS;
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd) != 0)
			fprintf(stderr, "%s: could not remove %s\n", prog, base);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
