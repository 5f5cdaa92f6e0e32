/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_config.c: loomd's configuration: defaults, every key, the
 * bounds and the error messages (FILE:LINE: KEY: why), the all-or-nothing
 * rule, the normalized printer and the shipped example file. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/ar/ar_plan.h"
#include "daemon/core/config.h"
#include "daemon/loomd.h"
#include "lib/ar/route_ar.h"
#include "lib/fabric/hostmap.h"
#include "lib/util/log.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_config.h"
#include "daemon/ib/config_discovery.h"
#include "daemon/roce/config_roce.h"

static const char full[] =
	"log:\n"                                  /* 1 */
	"  level: debug\n"
	"  target: syslog\n"
	"database:\n"
	"  path: /srv/loom/fabric.db\n"           /* 5 */
	"control:\n"
	"  socket: /run/loomd/ctl.sock\n"
	"  admin_group: ibadmin\n"
	"discovery:\n"
	"  interval: 60\n"                        /* 10 */
	"  timeout_ms: 500\n"
	"  retries: 5\n"
	"  max_smps: 128\n"
	"  subnets:\n"
	"    - name: compute\n"                   /* 15 */
	"      ca: mlx5_0\n"
	"      port: 1\n"
	"    - ca: mlx5_1\n"
	"      port: 2\n";

/* ---- defaults ------------------------------------------------------------ */

START_TEST(defaults_are_the_documented_values)
{
	struct loom_config c;

	config_defaults(&c);
	ck_assert_str_eq(c.path, "");
	ck_assert_int_eq(c.log_level, LOG_LVL_NOTICE);
	ck_assert_int_eq(c.log_target, LOG_TARGET_STDERR);
	ck_assert_str_eq(c.db_path, LOOM_DEFAULT_DB);
	ck_assert_str_eq(c.socket_path, LOOM_DEFAULT_SOCKET);
	ck_assert_str_eq(c.admin_group, "");
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 300);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_timeout_ms, 200);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_retries, 3);
	ck_assert_int_eq(discovery_conf_get(&c)->max_smps, 64);
	ck_assert_int_eq(c.ctl_max_clients, 64);
	ck_assert_int_eq(c.ctl_max_per_uid, 16);
	ck_assert_int_eq(c.ctl_max_output, 4 * 1024 * 1024);
	ck_assert_int_eq(c.ctl_stall_s, 30);
	ck_assert_int_eq(c.ctl_idle_s, 300);
	ck_assert_int_eq(discovery_conf_get(&c)->n_subnets, 0);
}
END_TEST

START_TEST(empty_or_comment_only_file_gives_defaults)
{
	static const char *const texts[] = {
		"", "\n\n", "# nothing here\n", "---\n", "~\n",
		"log:\ndatabase:\ncontrol:\ndiscovery:\n", "discovery:\n  subnets:\n",
	};
	struct loom_config c, d;

	config_defaults(&d);
	snprintf(d.path, sizeof(d.path), "t.yaml");
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		memset(&c, 0xa5, sizeof(c));
		loaded(texts[i], &c);
		ck_assert_msg(memcmp(&c, &d, sizeof(c)) == 0, "not the defaults: \"%s\"", texts[i]);
	}
}
END_TEST

/* ---- a valid file ---------------------------------------------------------- */

START_TEST(full_file_sets_every_field)
{
	struct loom_config c;

	loaded(full, &c);
	ck_assert_str_eq(c.path, "t.yaml");
	ck_assert_int_eq(c.log_level, LOG_LVL_DEBUG);
	ck_assert_int_eq(c.log_target, LOG_TARGET_SYSLOG);
	ck_assert_str_eq(c.db_path, "/srv/loom/fabric.db");
	ck_assert_str_eq(c.socket_path, "/run/loomd/ctl.sock");
	ck_assert_str_eq(c.admin_group, "ibadmin");
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 60);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_timeout_ms, 500);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_retries, 5);
	ck_assert_int_eq(discovery_conf_get(&c)->max_smps, 128);
	ck_assert_int_eq(discovery_conf_get(&c)->n_subnets, 2);
	ck_assert_str_eq(discovery_conf_get(&c)->subnets[0].name, "compute");
	ck_assert_str_eq(discovery_conf_get(&c)->subnets[0].ca, "mlx5_0");
	ck_assert_int_eq(discovery_conf_get(&c)->subnets[0].port, 1);
	ck_assert_str_eq(discovery_conf_get(&c)->subnets[1].ca, "mlx5_1");
	ck_assert_int_eq(discovery_conf_get(&c)->subnets[1].port, 2);
}
END_TEST

/* The control socket's bounds are keys of control (idle 0: never). */
START_TEST(control_bounds_are_set_by_their_keys)
{
	struct loom_config c;

	loaded("control:\n  max_clients: 100\n  max_clients_per_uid: 4\n"
	       "  max_output_bytes: 65536\n  stall_timeout_s: 5\n  idle_timeout_s: 0\n", &c);
	ck_assert_int_eq(c.ctl_max_clients, 100);
	ck_assert_int_eq(c.ctl_max_per_uid, 4);
	ck_assert_int_eq(c.ctl_max_output, 65536);
	ck_assert_int_eq(c.ctl_stall_s, 5);
	ck_assert_int_eq(c.ctl_idle_s, 0);
}
END_TEST

START_TEST(omitted_keys_keep_their_defaults)
{
	struct loom_config c;

	loaded("discovery:\n  retries: 0\n", &c);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_retries, 0);
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 300);
	ck_assert_int_eq(c.log_level, LOG_LVL_NOTICE);
	ck_assert_str_eq(c.db_path, LOOM_DEFAULT_DB);
}
END_TEST

START_TEST(subnet_name_defaults_to_ca_slash_port)
{
	struct loom_config c;

	loaded("discovery:\n  subnets:\n    - ca: mlx4_0\n    - ca: mlx4_0\n      port: 2\n"
	       "    - ca: hfi1_0\n      name: \"\"\n", &c);
	ck_assert_int_eq(discovery_conf_get(&c)->n_subnets, 3);
	ck_assert_str_eq(discovery_conf_get(&c)->subnets[0].name, "mlx4_0/1");
	ck_assert_int_eq(discovery_conf_get(&c)->subnets[0].port, 1);
	ck_assert_str_eq(discovery_conf_get(&c)->subnets[1].name, "mlx4_0/2");
	ck_assert_str_eq(discovery_conf_get(&c)->subnets[2].name, "hfi1_0/1");
}
END_TEST

START_TEST(bounds_are_inclusive_and_interval_zero_means_on_demand)
{
	struct loom_config c;

	loaded("discovery:\n  interval: 0\n  timeout_ms: 1\n  retries: 0\n  max_smps: 1\n", &c);
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 0);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_timeout_ms, 1);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_retries, 0);
	ck_assert_int_eq(discovery_conf_get(&c)->max_smps, 1);
	loaded("discovery:\n  interval: 5\n", &c);
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 5);
	loaded("discovery:\n  interval: 86400\n  timeout_ms: 60000\n  retries: 20\n"
	       "  max_smps: 1024\n  subnets:\n    - ca: a\n      port: 254\n", &c);
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 86400);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_timeout_ms, 60000);
	ck_assert_int_eq(discovery_conf_get(&c)->mad_retries, 20);
	ck_assert_int_eq(discovery_conf_get(&c)->max_smps, 1024);
	ck_assert_int_eq(discovery_conf_get(&c)->subnets[0].port, 254);
}
END_TEST

START_TEST(level_names_and_aliases)
{
	static const struct { const char *name; enum log_level level; } lv[] = {
		{ "error", LOG_LVL_ERR }, { "warning", LOG_LVL_WARNING },
		{ "notice", LOG_LVL_NOTICE }, { "info", LOG_LVL_INFO }, { "debug", LOG_LVL_DEBUG },
	};
	struct loom_config c;
	char text[64];

	for (size_t i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
		snprintf(text, sizeof(text), "log:\n  level: %s\n", lv[i].name);
		loaded(text, &c);
		ck_assert_int_eq(c.log_level, lv[i].level);
	}
	loaded("log: {level: \"info\", target: stderr}\n", &c); /* flow style is YAML too */
	ck_assert_int_eq(c.log_level, LOG_LVL_INFO);
}
END_TEST

/* ---- refusals: each names FILE:LINE: KEY ------------------------------------- */

static const struct { const char *text, *prefix; } bad[] = {
	/* every bound, below and above */
	{ "discovery:\n  interval: 4\n", "t.yaml:2: discovery.interval: 4 is out of range (0 or 5..86400)" },
	{ "discovery:\n  interval: 86401\n", "t.yaml:2: discovery.interval: 86401 is out of range" },
	{ "discovery:\n  interval: -1\n", "t.yaml:2: discovery.interval: -1 is out of range" },
	{ "discovery:\n  interval: 1000000\n", "t.yaml:2: discovery.interval: 1000000 is out of range (0 or 5..86400)" },
	{ "discovery:\n  timeout_ms: 0\n", "t.yaml:2: discovery.timeout_ms: 0 is out of range (1..60000)" },
	{ "discovery:\n  timeout_ms: 60001\n", "t.yaml:2: discovery.timeout_ms: 60001 is out of range" },
	{ "discovery:\n  retries: -1\n", "t.yaml:2: discovery.retries: -1 is out of range (0..20)" },
	{ "discovery:\n  retries: 21\n", "t.yaml:2: discovery.retries: 21 is out of range" },
	/* the control socket's bounds: below them loomd could not keep its reserve */
	{ "control:\n  max_clients: 8\n", "t.yaml:2: control.max_clients: 8 is out of range (16..512)" },
	{ "control:\n  max_clients_per_uid: 0\n", "t.yaml:2: control.max_clients_per_uid: 0 is out of range" },
	{ "control:\n  max_output_bytes: 4096\n", "t.yaml:2: control.max_output_bytes: 4096 is out of range" },
	{ "control:\n  stall_timeout_s: 0\n", "t.yaml:2: control.stall_timeout_s: 0 is out of range" },
	{ "control:\n  idle_timeout_s: 5\n", "t.yaml:2: control.idle_timeout_s: 5 is out of range" },
	/* the PMA detail attributes' reads (issue 42): 0 never, else every N */
	{ "telemetry:\n  details_every: -1\n", "t.yaml:2: telemetry.details_every: -1 is out of range (0 or 1..1000000)" },
	{ "telemetry:\n  details_every: 1000001\n", "t.yaml:2: telemetry.details_every: 1000001 is out of range" },
	/* the counters read's window (issue 44): 0 discovery.max_smps, else its own */
	{ "telemetry:\n  max_in_flight: -1\n", "t.yaml:2: telemetry.max_in_flight: -1 is out of range (0 or 1..1024)" },
	{ "telemetry:\n  max_in_flight: 1025\n", "t.yaml:2: telemetry.max_in_flight: 1025 is out of range" },
	{ "discovery:\n  max_smps: 0\n", "t.yaml:2: discovery.max_smps: 0 is out of range (1..1024)" },
	{ "discovery:\n  max_smps: 1025\n", "t.yaml:2: discovery.max_smps: 1025 is out of range" },
	{ "discovery:\n  walker: nope\n", "t.yaml:2: discovery.walker: \"nope\": must be loom or ibnetdisc" },
	{ "discovery:\n  subnets:\n    - ca: a\n      port: 0\n", "t.yaml:4: discovery.subnets[0].port: 0 is out of range (1..254)" },
	{ "discovery:\n  subnets:\n    - ca: a\n      port: 255\n", "t.yaml:4: discovery.subnets[0].port: 255 is out of range" },
	{ "discovery:\n  interval: 99999999999999999999999\n", "t.yaml:2: discovery.interval: 99999999999999999999999 is out of range" },
	/* integers: digits only */
	{ "discovery:\n  interval: 30s\n", "t.yaml:2: discovery.interval: \"30s\" is not a decimal integer" },
	{ "discovery:\n  interval: 0x10\n", "t.yaml:2: discovery.interval: \"0x10\" is not a decimal integer" },
	{ "discovery:\n  interval: 010\n", "t.yaml:2: discovery.interval: \"010\" is not a decimal integer" },
	{ "discovery:\n  interval: 1.5\n", "t.yaml:2: discovery.interval: \"1.5\" is not a decimal integer" },
	{ "discovery:\n  interval: +30\n", "t.yaml:2: discovery.interval: \"+30\" is not a decimal integer" },
	{ "discovery:\n  interval:\n", "t.yaml:2: discovery.interval: \"\" is not a decimal integer" },
	{ "discovery:\n  interval: \"300\"\n", "t.yaml:2: discovery.interval: expected an integer" },
	/* unknown keys, at every level */
	{ "discovery:\n  interval: 300\n  bogus_key: 1\n", "t.yaml:3: discovery.bogus_key: unknown key" },
	{ "\n\nlogging:\n  level: info\n", "t.yaml:3: logging: unknown key" },
	{ "log:\n  level: info\n  file: /x\n", "t.yaml:3: log.file: unknown key" },
	{ "discovery:\n  subnets:\n    - ca: a\n    - ca: b\n      lid: 3\n", "t.yaml:5: discovery.subnets[1].lid: unknown key" },
	{ "database:\n  interval: 5\n", "t.yaml:2: database.interval: unknown key" },
	/* wrong types */
	{ "log: 5\n", "t.yaml:1: log: expected a mapping, got the scalar \"5\"" },
	{ "log:\n  - level\n", "t.yaml:2: log: expected a mapping, got a sequence" },
	{ "log:\n  level: [debug]\n", "t.yaml:2: log.level: expected a scalar, got a sequence" },
	{ "discovery:\n  subnets:\n    ca: mlx5_0\n", "t.yaml:3: discovery.subnets: expected a sequence, got a mapping" },
	{ "discovery:\n  subnets: mlx5_0\n", "t.yaml:2: discovery.subnets: expected a sequence, got the scalar" },
	{ "discovery:\n  subnets:\n    - mlx5_0\n", "t.yaml:3: discovery.subnets[0]: expected a mapping" },
	{ "- log\n", "t.yaml:1: expected a mapping of sections" },
	{ "just a string\n", "t.yaml:1: expected a mapping of sections" },
	{ "log:\n  ? [a, b]\n  : 1\n", "t.yaml:2: log: keys must be scalars" },
	/* bad enum values */
	{ "log:\n  level: verbose\n", "t.yaml:2: log.level: \"verbose\" is not one of error, warning" },
	{ "log:\n  target: file\n", "t.yaml:2: log.target: \"file\" is not one of stderr, syslog" },
	/* duplicate keys */
	{ "discovery:\n  interval: 5\n  interval: 6\n", "t.yaml:3: discovery.interval: duplicate key (first on line 2)" },
	{ "log:\n  level: info\nlog:\n  target: stderr\n", "t.yaml:3: log: duplicate key (first on line 1)" },
	{ "discovery:\n  subnets:\n    - ca: a\n      ca: b\n", "t.yaml:4: discovery.subnets[0].ca: duplicate key" },
	/* paths and strings */
	{ "database:\n  path: loom.db\n", "t.yaml:2: database.path: \"loom.db\" is not an absolute path" },
	{ "database:\n  path:\n", "t.yaml:2: database.path: \"\" is not an absolute path" },
	{ "control:\n  socket: run/loomd.sock\n", "t.yaml:2: control.socket: \"run/loomd.sock\" is not an absolute path" },
	{ "control:\n  socket: /run/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "t.yaml:2: control.socket: longer than 107 bytes" },
	{ "control:\n  admin_group: gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg\n",
	  "t.yaml:2: control.admin_group: longer than 63 bytes" },
	{ "control:\n  admin_group: \"a\\nb\"\n", "t.yaml:2: control.admin_group: contains a control character" },
	{ "control:\n  admin_group: \"a\\0b\"\n", "t.yaml:2: control.admin_group: contains a control character" },
	/* subnets */
	{ "discovery:\n  subnets:\n    - ca: a\n\n    - name: x\n      port: 2\n", "t.yaml:5: discovery.subnets[1].ca: required key missing" },
	{ "discovery:\n  subnets:\n    - ca: \"\"\n", "t.yaml:3: discovery.subnets[0].ca: must not be empty" },
	{ "discovery:\n  subnets:\n    - name: x\n      ca: a\n    - name: x\n      ca: b\n",
	  "t.yaml:5: discovery.subnets[1].name: duplicate subnet name \"x\" (also discovery.subnets[0])" },
	{ "discovery:\n  subnets:\n    - ca: a\n      port: 2\n    - name: a/2\n      ca: b\n",
	  "t.yaml:5: discovery.subnets[1].name: duplicate subnet name \"a/2\"" },
	{ "tenants:\n  pkey_min: 5000\n  pkey_max: 4999\n",
	  "t.yaml:3: tenants.pkey_min: the PKey pool 0x1388..0x1387 is empty" },
	{ "tenants:\n  check_switch_ports: 1\n", "t.yaml:2: tenants.check_switch_ports: \"1\" is not true or false" },
	{ "tenants:\n  vlan_max: 100\n", "t.yaml:2: tenants.vlan_min: the VLAN pool 0x7d0..0x64 is empty" },
	{ "tenants:\n  vlan_min: 4095\n", "t.yaml:2: tenants.vlan_min: " },
	{ "tenants:\n  host_pattern: \"^(node\"\n",
	  "t.yaml:2: tenants.host_pattern: not an extended regular expression: " },
	{ "tenants:\n  host_pattern: \"^node[0-9]+\"\n",
	  "t.yaml:2: tenants.host_pattern: needs a group, ( ), around the host name" },
	{ "tenants:\n  static_partitions: p.conf\n",
	  "t.yaml:2: tenants.static_partitions: \"p.conf\" is not an absolute path" },
	{ "discovery:\n  subnets:\n    - ca: a\n      name: ethernet\n",
	  "t.yaml:4: discovery.subnets[0].name: \"ethernet\" is the name of the Ethernet switches' fabric" },
	{ "discovery:\n  subnets:\n    - name: x\n      ca: a\n    - name: y\n      ca: a\n      port: 1\n",
	  "t.yaml:5: discovery.subnets[1]: a port 1 is already discovery.subnets[0] (\"x\")" },
	{ "discovery:\n  subnets:\n    - ca: cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\n",
	  "t.yaml:3: discovery.subnets[0].name: the default name \"<ca>/<port>\" would be longer than 63 bytes" },
	/* ar: */
	{ "ar:\n  program: yes\n", "t.yaml:2: ar.program: \"yes\" is not true or false" },
	{ "ar:\n  mode: updown\n", "t.yaml:2: ar.mode: \"updown\" is not tree or lag" },
	{ "ar:\n  sls: [0, 16]\n", "t.yaml:2: ar.sls: " },
	{ "ar:\n  sls: [1, 1]\n", "t.yaml:2: ar.sls: SL 1 is listed twice" },
	{ "ar:\n  sls: []\n", "t.yaml:2: ar.sls: an empty list leaves AR on no SL" },
	{ "ar:\n  sls: some\n", "t.yaml:2: ar.sls: expected all or a list of SLs 0..15" },
	{ "ar:\n  shield: true\n  sheild: true\n", "t.yaml:3: ar.sheild: unknown key (program, mode, sls, shield, after_reroute_s)" },
	{ "ar:\n  after_reroute_s: 3601\n", "t.yaml:2: ar.after_reroute_s: " },
	{ "ar:\n  after_reroute_s: -1\n", "t.yaml:2: ar.after_reroute_s: " },
	{ "ar:\n  program: true\n  program: false\n", "t.yaml:3: ar.program: duplicate key (first on line 2)" },
	{ "ar: [program]\n", "t.yaml:1: ar: " },
	/* YAML itself */
	{ "log:\n  level: info\n target: stderr\n", "t.yaml:3: syntax error: " },
	{ "discovery:\n  interval: [5\n", "t.yaml:3: syntax error: " },
	{ "log:\n  level: \"info\n", "t.yaml:3: syntax error: " },
	{ "log: *nowhere\n", "t.yaml:1: syntax error: " },
	{ "log:\n  level: info\n---\nlog:\n  level: debug\n", "t.yaml:4: more than one YAML document" },
};

START_TEST(bad_value_is_refused_with_file_line_key)
{
	refused(bad[_i].text, bad[_i].prefix);
}
END_TEST

START_TEST(too_many_subnets_are_refused)
{
	char text[4096] = "discovery:\n  subnets:\n";
	size_t len = strlen(text);

	/* LOOM_MAX_SUBNETS fit; the next one is refused at its own line. */
	for (int i = 0; i <= LOOM_MAX_SUBNETS; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "    - ca: hca%d\n", i);
	char prefix[128];
	snprintf(prefix, sizeof(prefix), "t.yaml:%d: discovery.subnets[%d]: too many subnets",
		 3 + LOOM_MAX_SUBNETS, LOOM_MAX_SUBNETS);
	refused(text, prefix);

	struct loom_config c;
	*strrchr(text, '-') = '\0'; /* drop the last entry */
	loaded(text, &c);
	ck_assert_int_eq(discovery_conf_get(&c)->n_subnets, LOOM_MAX_SUBNETS);
}
END_TEST

START_TEST(refused_file_leaves_config_untouched)
{
	struct loom_config c, before;

	loaded(full, &c);
	memcpy(&before, &c, sizeof(c));
	/* Good keys come first, so a parser that wrote as it went would
	 * have changed c before it met the bad one. */
	ck_assert_int_eq(load("log:\n  level: error\ndiscovery:\n  interval: 7\n"
			      "  subnets:\n    - ca: z\n  retries: 99\n", &c), -EINVAL);
	ck_assert_msg(strstr(err, "t.yaml:7: discovery.retries:"), "%s", err);
	ck_assert(memcmp(&c, &before, sizeof(c)) == 0);
	ck_assert_int_eq(load("log: [\n", &c), -EINVAL);
	ck_assert(memcmp(&c, &before, sizeof(c)) == 0);
	ck_assert_int_eq(config_load("/nonexistent/loom.yaml", &c, err, sizeof(err)), -ENOENT);
	ck_assert(memcmp(&c, &before, sizeof(c)) == 0);
}
END_TEST

/* ---- files ----------------------------------------------------------------- */

START_TEST(missing_file_is_enoent)
{
	struct loom_config c;

	config_defaults(&c);
	ck_assert_int_eq(config_load("/nonexistent/loom.yaml", &c, err, sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, "/nonexistent/loom.yaml: No such file or directory");
}
END_TEST

START_TEST(directory_is_refused)
{
	struct loom_config c;

	ck_assert_int_eq(config_load("/", &c, err, sizeof(err)), -EISDIR);
	ck_assert_str_eq(err, "/: Is a directory");
}
END_TEST

START_TEST(file_errors_name_the_file)
{
	char path[] = "/tmp/loom-test-config.XXXXXX";
	int fd = mkstemp(path);
	struct loom_config c;
	char prefix[192];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "discovery:\n  interval: 300\n  bogus_key: 1\n", 42), 42);
	close(fd);
	ck_assert_int_eq(config_load(path, &c, err, sizeof(err)), -EINVAL);
	snprintf(prefix, sizeof(prefix), "%s:3: discovery.bogus_key: unknown key (interval, "
		 "timeout_ms, retries, max_smps, walker, follow, m_key_file, subnets)", path);
	ck_assert_str_eq(err, prefix);

	ck_assert_int_eq(truncate(path, 0), 0);
	config_defaults(&c);
	ck_assert_int_eq(config_load(path, &c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.path, path);
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 300);
	unlink(path);
}
END_TEST

/* ---- hostile and odd files --------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 100k "[" once kept libyaml busy for seconds (a reload blocks the event
 * loop that long): refused at the 65th level, at once, naming the line and
 * the section; 64 levels are still read as usual. */
START_TEST(deep_nesting_is_refused_at_once_naming_line_and_section)
{
	static const char head[] = "log:\n  level: error\ndiscovery:\n  subnets: ";
	size_t n = 100000;
	char *text = malloc(sizeof(head) + n + 1);
	struct loom_config c, before;
	double t0;

	ck_assert_ptr_nonnull(text);
	loaded(full, &c);
	memcpy(&before, &c, sizeof(c));
	memcpy(text, head, sizeof(head) - 1);
	memset(text + sizeof(head) - 1, '[', n);
	strcpy(text + sizeof(head) - 1 + n, "\n");
	t0 = now_s();
	ck_assert_int_eq(load(text, &c), -EINVAL);
	ck_assert_msg(now_s() - t0 < 1.0, "took %.1f s", now_s() - t0);
	ck_assert_str_eq(err, "t.yaml:4: discovery: nested deeper than 64 levels; "
			 "not a loom configuration");
	ck_assert(memcmp(&c, &before, sizeof(c)) == 0);

	/* The root mapping, discovery's and 62 sequences: 64, the limit. */
	memset(text + sizeof(head) - 1, '[', 62);
	memset(text + sizeof(head) - 1 + 62, ']', 62);
	strcpy(text + sizeof(head) - 1 + 124, "\n");
	ck_assert_int_eq(load(text, &c), -EINVAL);
	ck_assert_msg(strstr(err, "t.yaml:4: discovery.subnets[0]: expected a mapping"), "%s", err);
	free(text);
}
END_TEST

/* Over CONFIG_MAX_BYTES (1 MiB) is refused from a string as from a file,
 * naming the line where the limit is crossed; the config stays. */
START_TEST(oversized_file_is_refused_naming_the_line)
{
	size_t max = 1024 * 1024, len = max + 1;
	char *text = malloc(len + 1), expect[128];
	struct loom_config c, before;
	unsigned long line = 1;

	ck_assert_ptr_nonnull(text);
	loaded(full, &c);
	memcpy(&before, &c, sizeof(c));
	for (size_t i = 0; i < len; i++)
		text[i] = i % 64 == 63 ? '\n' : '#';  /* comments only: valid YAML */
	text[len] = '\0';
	for (size_t i = 0; i < max; i++)
		line += text[i] == '\n';
	memset(err, 0, sizeof(err));
	ck_assert_int_eq(config_load_string("t.yaml", text, len, &c, err, sizeof(err)), -EFBIG);
	snprintf(expect, sizeof(expect), "t.yaml:%lu: larger than %zu bytes; "
		 "not a loom configuration", line, max);
	ck_assert_str_eq(err, expect);
	ck_assert(memcmp(&c, &before, sizeof(c)) == 0);
	/* Exactly the limit is a configuration (of comments). */
	ck_assert_int_eq(config_load_string("t.yaml", text, max, &c, err, sizeof(err)), 0);
	free(text);
}
END_TEST

/* Editors on Windows start a file with a UTF-8 byte-order mark: it is read
 * as if absent, and error lines still count from the first line. */
START_TEST(utf8_byte_order_mark_is_accepted)
{
	char path[] = "/tmp/loom-test-bom.XXXXXX";
	static const char bom_file[] = "\xef\xbb\xbflog:\n  level: debug\n";
	struct loom_config c;
	int fd;

	loaded("\xef\xbb\xbflog:\n  level: debug\ndiscovery:\n  interval: 60\n", &c);
	ck_assert_int_eq(c.log_level, LOG_LVL_DEBUG);
	ck_assert_int_eq(discovery_conf_get(&c)->sweep_interval, 60);
	loaded("\xef\xbb\xbf---\nlog:\n  level: info\n", &c);
	ck_assert_int_eq(c.log_level, LOG_LVL_INFO);
	loaded("\xef\xbb\xbf", &c);
	refused("\xef\xbb\xbflog:\n  level: bogus\n", "t.yaml:2: log.level: ");

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bom_file, sizeof(bom_file) - 1), (ssize_t)sizeof(bom_file) - 1);
	close(fd);
	ck_assert_msg(config_load(path, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(c.log_level, LOG_LVL_DEBUG);
	unlink(path);
}
END_TEST

/* `loomd -n` checks what the start needs: a database in a directory whose
 * parent is missing is refused at its line (the start creates only one
 * level); one missing level is fine. */
START_TEST(host_check_refuses_a_database_the_start_cannot_create)
{
	char dir[] = "/tmp/loom-test-host.XXXXXX", path[256], text[512], expect[512];
	struct loom_config c;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/loom.yaml", dir);
	snprintf(text, sizeof(text), "log:\n  level: info\ndatabase:\n  path: %s/a/b/loom.db\n"
		 "control:\n  socket: %s/run/sock\nopensm:\n  report_socket: %s/osm.sock\n",
		 dir, dir, dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	ck_assert_msg(config_load(path, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(config_check_host(&c, err, sizeof(err)), -ENOENT);
	snprintf(expect, sizeof(expect), "%s:4: database.path: directory %s/a does not exist",
		 path, dir);
	ck_assert_msg(strncmp(err, expect, strlen(expect)) == 0, "%s", err);

	snprintf(c.db_path, sizeof(c.db_path), "%s/a/loom.db", dir);
	ck_assert_msg(config_check_host(&c, err, sizeof(err)) == 0, "%s", err);
	/* Not the file's value (an override): no line to name. */
	snprintf(c.db_path, sizeof(c.db_path), "%s/x/y/loom.db", dir);
	ck_assert_int_eq(config_check_host(&c, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strncmp(err, "database.path: ", 15) == 0, "%s", err);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* The example shipped in etc/ must load, and since it claims to hold the
 * defaults, it must give exactly the built-in configuration. */
START_TEST(example_file_loads_and_holds_the_defaults)
{
	const char *top = getenv("top_srcdir");
	char path[PATH_MAX], srcdir[PATH_MAX];
	struct loom_config c, d;

	if (!top) {
		/* Run by hand: find the tree from this file's own path. */
		snprintf(srcdir, sizeof(srcdir), "%s", __FILE__);
		char *cut = strstr(srcdir, "tests/unit/daemon/core/test_config.c");
		if (cut)
			*cut = '\0';
		snprintf(srcdir + strlen(srcdir), sizeof(srcdir) - strlen(srcdir), ".");
		top = srcdir;
	}
	snprintf(path, sizeof(path), "%s/etc/loom.yaml", top);
	ck_assert_msg(config_load(path, &c, err, sizeof(err)) == 0, "%s", err);
	config_defaults(&d);
	memcpy(d.path, c.path, sizeof(d.path));
	ck_assert_msg(memcmp(&c, &d, sizeof(c)) == 0, "%s is not the defaults", path);
}
END_TEST

/* ---- printing ---------------------------------------------------------------- */


/* ---- roce: and switches: ------------------------------------------------------ */

static const char roce_text[] =
	"roce:\n"                                 /* 1 */
	"  lossless_priorities: [3, 4]\n"
	"  dscp_to_tc: {24: 3, 26: 4, 48: 6}\n"
	"  default_tc: 1\n"
	"  cnp: {dscp: 48, priority: 6}\n"        /* 5 */
	"  ecn: {min_bytes: 100000, max_bytes: 400000, mark_percent: 20}\n"
	"  ets:\n"
	"    weights: {1: 40, 3: 30, 4: 30}\n"
	"    strict: [6]\n"
	"  pfc_watchdog: {detection_ms: 300, action: alert}\n"   /* 10 */
	"  headroom: {cable_m: 30}\n"
	"  interval: 60\n"
	"  reapply: true\n"
	"switches:\n"
	"  - name: leaf1\n"                       /* 15 */
	"    plugin: sonic\n"
	"    address: \"unix:/run/redis/leaf1.sock\"\n"
	"    credentials: /etc/loom/leaf1.pass\n"
	"    roce:\n"
	"      ecn: {max_bytes: 300000}\n"        /* 20 */
	"      dscp_to_tc: {46: 1}\n"
	"  - {name: spine1, plugin: eos, address: \"https://10.0.0.1\"}\n";

START_TEST(roce_policy_and_switches_are_read_with_their_overrides)
{
	struct loom_config c;
	struct qos_policy q;

	loaded(roce_text, &c);
	ck_assert_uint_eq(roce_conf_get(&c)->roce.lossless_mask, (1u << 3) | (1u << 4));
	ck_assert_uint_eq(qos_policy_tc(&roce_conf_get(&c)->roce, 26), 4);
	ck_assert_uint_eq(qos_policy_tc(&roce_conf_get(&c)->roce, 0), 1);   /* default_tc */
	ck_assert_uint_eq(qos_policy_tc(&roce_conf_get(&c)->roce, 46), 1);  /* the default map is gone */
	ck_assert_uint_eq(roce_conf_get(&c)->roce.ecn_max_bytes, 400000);
	ck_assert_uint_eq(roce_conf_get(&c)->roce.pfcwd_detection_ms, 300);
	ck_assert_uint_eq(roce_conf_get(&c)->roce.pfcwd_restoration_ms, 400);  /* not given: default */
	ck_assert_int_eq(roce_conf_get(&c)->roce.pfcwd_action, LP_PFCWD_ALERT);
	ck_assert_uint_eq(roce_conf_get(&c)->roce.cable_m, 30);
	ck_assert_int_eq(roce_conf_get(&c)->roce_interval, 60);
	ck_assert_int_eq(roce_conf_get(&c)->roce_reapply, 1);
	ck_assert_int_eq(switches_conf_get(&c)->n_switches, 2);
	ck_assert_str_eq(switches_conf_get(&c)->switches[0].plugin, "sonic");
	ck_assert_str_eq(switches_conf_get(&c)->switches[0].address, "unix:/run/redis/leaf1.sock");
	ck_assert_str_eq(switches_conf_get(&c)->switches[1].name, "spine1");
	q = roce_conf_get(&c)->roce;
	qos_policy_merge(&q, &switches_conf_get(&c)->switches[0].roce);
	ck_assert_uint_eq(q.ecn_max_bytes, 300000);
	ck_assert_uint_eq(q.ecn_min_bytes, 100000);   /* from the fabric's */
	ck_assert_uint_eq(qos_policy_tc(&q, 46), 1);
	ck_assert_uint_eq(qos_policy_tc(&q, 26), 4);
	ck_assert_uint_eq(switches_conf_get(&c)->switches[1].roce.set, 0);
}
END_TEST

START_TEST(roce_contradictions_are_refused_naming_line_and_key)
{
	refused("roce:\n  lossless_priorities: [3, 5]\n",
		"t.yaml:2: roce.lossless_priorities: priority 5 has PFC but no DSCP maps to "
		"traffic class 5");
	refused("roce:\n  ecn: {min_bytes: 5000, max_bytes: 5000}\n",
		"t.yaml:2: roce.ecn: min_bytes 5000 must be below max_bytes 5000");
	refused("roce:\n  ets: {weights: {0: 50, 3: 40, 6: 10}, strict: []}\n",
		"t.yaml:2: roce.cnp.priority: class 6 carries CNPs and must be strict");
	refused("roce:\n  headroom: {pause_threshold_bytes: 1000000}\n",
		"t.yaml:2: roce.ecn.max_bytes: 1500000 is at or above the pause threshold");
	refused("switches:\n  - name: a\n    plugin: sonic\n    address: x\n"
		"  - name: b\n    plugin: sonic\n    address: y\n"
		"    roce: {ecn: {min_bytes: 2000000}}\n",
		"t.yaml:5: switches[b].roce.ecn: min_bytes 2000000 must be below max_bytes 1500000");
}
END_TEST

START_TEST(roce_and_switch_typos_are_refused_naming_line_and_key)
{
	refused("roce:\n  ecn:\n    max_byte: 10\n",
		"t.yaml:3: roce.ecn.max_byte: unknown key (min_bytes, max_bytes, mark_percent)");
	refused("roce:\n  dscp_to_tc: {64: 3}\n", "t.yaml:2: roce.dscp_to_tc.64: 64 is out of range (0..63)");
	refused("roce:\n  pfc_watchdog: {action: pause}\n",
		"t.yaml:2: roce.pfc_watchdog.action: \"pause\" is not one of drop, forward, alert");
	refused("roce:\n  lossless_priorities: [3, 3]\n",
		"t.yaml:2: roce.lossless_priorities: 3 is listed twice");
	refused("switches:\n  - name: a\n    address: x\n",
		"t.yaml:2: switches[0]: plugin: required");
	refused("switches:\n  - {name: a, plugin: sonic, address: x}\n"
		"  - {name: a, plugin: eos, address: y}\n",
		"t.yaml:3: switches[1]: name \"a\" is used twice");
	refused("switches:\n  - {name: a, plugin: ../x, address: x}\n",
		"t.yaml:2: switches[0]: plugin: required, 1..63 of a-z");
	refused("switches:\n  - {name: a, plugin: sonic, address: x, roce: {interval: 5}}\n",
		"t.yaml:2: switches[0].roce.interval: unknown key");
	refused("events:\n  forward:\n    - {type: snmp}\n",
		"t.yaml:3: events.forward[0].type: \"snmp\": syslog or webhook");
	refused("events:\n  forward:\n    - {type: webhook, url: ftp://x}\n",
		"t.yaml:3: events.forward[0].url: \"ftp://x\": an http:// or https:// URL");
	refused("events:\n  forward:\n    - {type: syslog, address: udp://h}\n",
		"t.yaml:3: events.forward[0].address: \"udp://h\": the port is missing");
	refused("events:\n  forward:\n    - type: syslog\n      min_severity: loud\n",
		"t.yaml:4: events.forward[0].min_severity: \"loud\": info, notice, warning or error");
	/* issue 43 */
	refused("validation:\n  keys: yes\n",
		"t.yaml:2: validation.keys: \"yes\": off, report or required");
	refused("validation:\n  sm_allowed: sm-1\n",
		"t.yaml:2: validation.sm_allowed: expected a sequence, got the scalar \"sm-1\"");
}
END_TEST

START_TEST(print_then_load_gives_the_same_config)
{
	round_trip("");
	round_trip(full);
	round_trip("discovery:\n  interval: 0\n  subnets: []\n");
	round_trip(roce_text);
	/* issue 43: the partitions keys */
	round_trip("validation:\n  default_partition: limited\n  default_full: [mgmt-01, "
		   "\"rack 1 sm\", 0x0002c903000a0b0c]\n  partition_enforcement: false\n");
}
END_TEST

/* issue 43: validation's partitions keys refused with file:line: key */
START_TEST(validation_partitions_keys_are_checked)
{
	refused("validation:\n  default_partition: maybe\n",
		"t.yaml:2: validation.default_partition: \"maybe\": limited, full or off");
	refused("validation:\n  default_full: [a, \"\"]\n",
		"t.yaml:2: validation.default_full[1]: a port or node GUID, or a node name");
	round_trip("validation:\n  sm_allowed: [sm-1, \"0x0002c90300001234\"]\n  keys: required\n");
}
END_TEST

START_TEST(awkward_strings_survive_the_round_trip)
{
	struct loom_config c;
	char *p;

	round_trip("control:\n  admin_group: \"a: b # c\"\n"
		   "database:\n  path: \"/var/lib/my loom/db #1: x\"\n"
		   "discovery:\n  subnets:\n"
		   "    - name: \"yes\"\n      ca: \"~\"\n"
		   "    - name: \" lead\\\\ \\\"q\\\" \"\n      ca: \"123\"\n"
		   "    - name: \"caf\\u00e9 \\u2028 \\U0001F600\"\n      ca: \"-x\"\n"
		   "    - name: \"[x]{y}&z*!|>%@`'\"\n      ca: null_\n");
	loaded("database:\n  path: \"/a: b\"\ncontrol:\n  admin_group: \"#x\"\n", &c);
	p = print(&c);
	ck_assert_msg(strstr(p, "  path: \"/a: b\"\n"), "%s", p);
	ck_assert_msg(strstr(p, "  admin_group: \"#x\"\n"), "%s", p);
	free(p);
}
END_TEST

START_TEST(print_writes_every_key_in_order)
{
	struct loom_config c;
	char *p;

	config_defaults(&c);
	p = print(&c);
	ck_assert_str_eq(p,
			 "log:\n"
			 "  level: notice\n"
			 "  target: stderr\n"
			 "database:\n"
			 "  path: \"" LOOM_DEFAULT_DB "\"\n"
			 "control:\n"
			 "  socket: \"" LOOM_DEFAULT_SOCKET "\"\n"
			 "  admin_group: \"\"\n"
			 "  max_clients: 64\n"
			 "  max_clients_per_uid: 16\n"
			 "  max_output_bytes: 4194304\n"
			 "  stall_timeout_s: 30\n"
			 "  idle_timeout_s: 300\n"
			 "  read_rate_s: 10\n"
			 "discovery:\n"
			 "  interval: 300\n"
			 "  timeout_ms: 200\n"
			 "  retries: 3\n"
			 "  max_smps: 64\n"
			 "  walker: \"loom\"\n"
			 "  follow: true\n"
			 "  m_key_file: \"\"\n"
			 "  subnets: []\n"
			 "opensm:\n"
			 "  report_socket: \"" LOOM_DEFAULT_OSM_SOCKET "\"\n"
			 "  threads: 0\n"
			 "  read_tables: false\n"
			 "plugins:\n"
			 "  dir: \"" LOOM_DEFAULT_PLUGIN_DIR "\"\n"
			 "tenants:\n"
			 "  partitions_file: \"" LOOM_DEFAULT_PARTITIONS "\"\n"
			 "  static_partitions: \"\"\n"
			 "  opensm_pid_file: \"\"\n"
			 "  pkey_min: 4096\n"
			 "  pkey_max: 32766\n"
			 "  timeout_s: 60\n"
			 "  interval: 0\n"
			 "  vlan_min: 2000\n"
			 "  vlan_max: 2999\n"
			 "  users: \"\"\n"
			 "  groups: \"\"\n"
			 "  host_pattern: \"" HOSTMAP_DEFAULT_PATTERN "\"\n"
			 "  host_map: \"\"\n"
			 "  host_identity: map\n"
			 "  check_switch_ports: true\n"
			 "roce:\n"
			 "  lossless_priorities: [3]\n"
			 "  dscp_to_tc:\n"
			 "    26: 3\n"
			 "    48: 6\n"
			 "  default_tc: 0\n"
			 "  cnp:\n"
			 "    dscp: 48\n"
			 "    priority: 6\n"
			 "  ecn:\n"
			 "    min_bytes: 150000\n"
			 "    max_bytes: 1500000\n"
			 "    mark_percent: 10\n"
			 "  ets:\n"
			 "    weights:\n"
			 "      0: 50\n"
			 "      3: 50\n"
			 "    strict: [6]\n"
			 "  pfc_watchdog:\n"
			 "    enabled: true\n"
			 "    detection_ms: 200\n"
			 "    restoration_ms: 400\n"
			 "    action: drop\n"
			 "  headroom:\n"
			 "    mtu: 9216\n"
			 "    cable_m: 5\n"
			 "    pause_threshold_bytes: 0\n"
			 "  interval: 300\n"
			 "  reapply: false\n"
			 "switches: []\n"
			 "ar:\n"
			 "  program: false\n"
			 "  mode: tree\n"
			 "  sls: all\n"
			 "  shield: false\n"
			 "  after_reroute_s: 5\n"
			 "telemetry:\n"
			 "  interval_s: 10\n"
			 "  clear_counters: false\n"
			 "  max_answer_ports: 20000\n"
			 "  window_s: 3600\n"
			 "  history_reads: 60\n"
			 "  history_mib: 128\n"
			 "  details_every: 1\n"
			 "  max_in_flight: 0\n"
			 "  thresholds:\n"
			 "    errors: 1\n"
			 "    ber_exp: 12\n"
			 "    xmit_wait_per_s: 1000000\n"
			 "    link_downed: 1\n"
			 "    clear_after: 3\n"
			 "    pfc_pause_per_s: 10000\n"
			 "    pfc_watchdog: 1\n"
			 "    ecn_marked_per_s: 10000\n"
			 "http:\n"
			 "  listen: []\n"
			 "  allow_remote: false\n"
			 "  max_connections: 1024\n"
			 "  timeout_s: 10\n"
			 "  max_header_bytes: 8192\n"
			 "  max_body_bytes: 4096\n"
			 "  metrics_ports: all\n"
			 "  metrics_auth: false\n"
			 "  metrics_min_xmit_wait_per_s: 0\n"
			 "  web_root: \"" LOOM_DEFAULT_WEB_DIR "\"\n"
			 "  max_connections_per_peer: 32\n"
			 "  header_timeout_s: 5\n"
			 "  listen_backlog: 1024\n"
			 "  tls:\n"
			 "    cert: \"\"\n"
			 "    key: \"\"\n"
			 "    client_ca: \"\"\n"
			 "    client_cert: optional\n"
			 "    ciphers: \"ECDHE+AESGCM:ECDHE+CHACHA20:DHE+AESGCM:DHE+CHACHA20:!aNULL:!PSK\"\n"
			 "  tokens_file: \"" LOOM_DEFAULT_TOKENS "\"\n"
			 "  user: \"nobody\"\n"
			 "  prometheus_url: \"\"\n"
			 "ha:\n"
			 "  endpoints: []\n"
			 "  name: \"\"\n"
			 "  advertise: \"\"\n"
			 "  cluster: \"loom\"\n"
			 "  ttl_s: 5\n"
			 "  timeout_ms: 1000\n"
			 "  poll_ms: 500\n"
			 "  follower_discovery_interval: 0\n"
			 "  tls:\n"
			 "    ca: \"\"\n"
			 "    cert: \"\"\n"
			 "    key: \"\"\n"
			 "  user: \"\"\n"
			 "  password_file: \"\"\n"
			 "validation:\n"
			 "  enabled: true\n"
			 "  expected: \"\"\n"
			 "  fat_tree: auto\n"
			 "  partitions: true\n"
			 "  default_partition: off\n"
			 "  default_full: []\n"
			 "  partition_enforcement: true\n"
			 "  rails: off\n"
			 "  rail_pattern: \"\"\n"
			 "  sm_allowed: []\n"
			 "  keys: off\n"
			 "  multicast: true\n"
			 "  multicast_sm_key: 0x1\n"
			 "slurm:\n"
			 "  topology_file: \"\"\n"
			 "  topology_format: tree\n"
			 "  reconfigure: false\n"
			 "  subnet: \"\"\n"
			 "  scontrol: \"/usr/bin/scontrol\"\n"
			 "isolation:\n"
			 "  mode: off\n"
			 "  file: \"/var/lib/loom/isolated-links\"\n"
			 "  window_s: 3600\n"
			 "  errors: 100\n"
			 "  ber_exp: 12\n"
			 "  flaps: 3\n"
			 "  degraded: false\n"
			 "  findings: []\n"
			 "  exclude: []\n"
			 "  max_isolated: 8\n"
			 "  max_per_switch: 2\n"
			 "  min_paths: 1\n"
			 "  ebb_floor_pct: 0\n"
			 "  clean_for_s: 7200\n"
			 "  backoff: 2\n"
			 "  max_returns: 3\n"
			 "  drain_hosts: false\n"
			 "events:\n"
			 "  keep_days: 90\n"
			 "  max_rows: 1000000\n"
			 "  forward: []\n"
			 "names:\n"
			 "  node_name_map: \"\"\n");
	free(p);
	loaded("discovery:\n  subnets:\n    - {port: 2, ca: mlx5_0}\n", &c);
	p = print(&c);
	ck_assert_msg(strstr(p, "  subnets:\n"
			     "    - name: \"mlx5_0/2\"\n"
			     "      ca: \"mlx5_0\"\n"
			     "      port: 2\n"), "%s", p);
	free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	if (loomd_config_init() < 0)  /* every module's section of loom.yaml */
		return 1;
	tcase_add_test(tc, defaults_are_the_documented_values);
	tcase_add_test(tc, empty_or_comment_only_file_gives_defaults);
	tcase_add_test(tc, full_file_sets_every_field);
	tcase_add_test(tc, omitted_keys_keep_their_defaults);
	tcase_add_test(tc, control_bounds_are_set_by_their_keys);
	tcase_add_test(tc, subnet_name_defaults_to_ca_slash_port);
	tcase_add_test(tc, bounds_are_inclusive_and_interval_zero_means_on_demand);
	tcase_add_test(tc, level_names_and_aliases);
	tcase_add_loop_test(tc, bad_value_is_refused_with_file_line_key, 0,
			    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, too_many_subnets_are_refused);
	tcase_add_test(tc, refused_file_leaves_config_untouched);
	tcase_add_test(tc, missing_file_is_enoent);
	tcase_add_test(tc, directory_is_refused);
	tcase_add_test(tc, file_errors_name_the_file);
	tcase_add_test(tc, example_file_loads_and_holds_the_defaults);
	tcase_add_test(tc, deep_nesting_is_refused_at_once_naming_line_and_section);
	tcase_add_test(tc, oversized_file_is_refused_naming_the_line);
	tcase_add_test(tc, utf8_byte_order_mark_is_accepted);
	tcase_add_test(tc, host_check_refuses_a_database_the_start_cannot_create);
	tcase_add_test(tc, roce_policy_and_switches_are_read_with_their_overrides);
	tcase_add_test(tc, roce_contradictions_are_refused_naming_line_and_key);
	tcase_add_test(tc, roce_and_switch_typos_are_refused_naming_line_and_key);
	tcase_add_test(tc, print_then_load_gives_the_same_config);
	tcase_add_test(tc, validation_partitions_keys_are_checked);
	tcase_add_test(tc, awkward_strings_survive_the_round_trip);
	tcase_add_test(tc, print_writes_every_key_in_order);
	suite_add_tcase(s, tc);
	return check_run(s);
}
