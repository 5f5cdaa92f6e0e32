/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_config_sections.c: the sections of loom.yaml that the
 * modules own (ar:, http:, telemetry:, ha:, validation:, slurm:, discovery's
 * m_key_file): their defaults, refusals naming file:line and key, and the round trip through config_print. The
 * core and the file itself: test_config.c. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/core/config.h"
#include "daemon/loomd.h"
#include "lib/ar/ar_plan.h"
#include "lib/ar/route_ar.h"
#include "lib/util/log.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_config.h"
#include "daemon/ar/config_ar.h"
#include "daemon/ib/config_discovery.h"
#include "daemon/ha/config_ha.h"
#include "daemon/http/config_http.h"
#include "daemon/slurm/config_slurm.h"
#include "daemon/isolation/config_isolation.h"
#include "lib/validate/report.h"
#include "daemon/telemetry/config_telemetry.h"
#include "daemon/validate/config_validate.h"

/* ar: off by default (program false: the attribute modifiers are not
 * confirmed), tree groups on every SL without SHIELD; each key read. */
START_TEST(ar_section_defaults_to_not_programming_and_reads_every_key)
{
	struct loom_config c;

	config_defaults(&c);
	ck_assert_int_eq(ar_conf_get(&c)->ar_program, 0);
	ck_assert_int_eq(ar_conf_get(&c)->ar_mode, RT_AR_TREE);
	ck_assert_uint_eq(ar_conf_get(&c)->ar_sl_mask, AR_PLAN_ALL_SLS);
	ck_assert_int_eq(ar_conf_get(&c)->ar_shield, 0);
	ck_assert_int_eq(ar_conf_get(&c)->ar_after_reroute_s, 5);
	loaded("ar:\n  program: true\n  mode: lag\n  sls: [0, 3, 15]\n  shield: true\n"
	       "  after_reroute_s: 0\n", &c);
	ck_assert_int_eq(ar_conf_get(&c)->ar_after_reroute_s, 0);
	ck_assert_int_eq(ar_conf_get(&c)->ar_program, 1);
	ck_assert_int_eq(ar_conf_get(&c)->ar_mode, RT_AR_LAG);
	ck_assert_uint_eq(ar_conf_get(&c)->ar_sl_mask, 0x8009);
	ck_assert_int_eq(ar_conf_get(&c)->ar_shield, 1);
	loaded("ar: {program: true}\n", &c);
	ck_assert_int_eq(ar_conf_get(&c)->ar_program, 1);
	ck_assert_int_eq(ar_conf_get(&c)->ar_mode, RT_AR_TREE);
	ck_assert_uint_eq(ar_conf_get(&c)->ar_sl_mask, AR_PLAN_ALL_SLS);
	loaded("ar:\n", &c);
	ck_assert_int_eq(ar_conf_get(&c)->ar_program, 0);
	round_trip("ar:\n  program: true\n  mode: lag\n  sls: [2, 5]\n  shield: true\n"
		   "  after_reroute_s: 30\n");
	round_trip("ar: {sls: all}\n");
}
END_TEST

/* http: no listener by default; plain HTTP on loopback only (allow_remote
 * no longer opens the rest: TLS does), refused with the key and its line.
 * Certificates that load are tests/integration/http_tls.sh's. */
START_TEST(http_listens_nowhere_by_default_and_off_loopback_only_with_tls)
{
	struct loom_config c;

	config_defaults(&c);
	ck_assert_int_eq(http_conf_get(&c)->http_n_listen, 0);
	loaded("http:\n  listen: 127.0.0.1:9477\n", &c);
	ck_assert_int_eq(http_conf_get(&c)->http_n_listen, 1);
	ck_assert_str_eq(http_conf_get(&c)->http_listen[0], "127.0.0.1:9477");
	loaded("http:\n  listen: [\"localhost:1\", \"[::1]:2\", \"127.1.2.3:3\"]\n"
	       "  metrics_ports: errors\n  metrics_min_xmit_wait_per_s: 5000\n", &c);
	ck_assert_int_eq(http_conf_get(&c)->http_n_listen, 3);
	ck_assert_int_eq(http_conf_get(&c)->http_metrics_ports, 1);
	ck_assert_int_eq(http_conf_get(&c)->http_metrics_min_xmit_wait, 5000);
	refused("log:\n  level: info\nhttp:\n  listen: [\"0.0.0.0:9477\"]\n",
		"t.yaml:4: http.listen: \"0.0.0.0:9477\" is not a loopback address");
	refused("http:\n  listen: \"[::]:9477\"\n", "t.yaml:2: http.listen: \"[::]:9477\" is not");
	refused("http:\n  listen: [\"0.0.0.0:9477\", \"10.0.0.1:80\"]\n  allow_remote: true\n",
		"t.yaml:2: http.listen: \"0.0.0.0:9477\" is not a loopback address: plain HTTP is "
		"for loopback only; set http.tls.cert and http.tls.key");
	ck_assert_int_eq(http_conf_get(&c)->http_max_per_peer, 32);
	ck_assert_int_eq(http_conf_get(&c)->http_header_timeout_s, 5);
	ck_assert_int_eq(http_conf_get(&c)->http_max_connections, 1024);
	ck_assert_int_eq(http_conf_get(&c)->http_listen_backlog, 1024);
	ck_assert_str_eq(http_conf_get(&c)->http_tls_cert, "");
	refused("http:\n  tls:\n    cert: /nonexistent/loomd.crt\n",
		"t.yaml:2: http.tls.key: missing: TLS needs both");
	refused("http:\n  tls:\n    cert: /nonexistent/loomd.crt\n    key: /nonexistent/k\n",
		"t.yaml:2: http.tls.cert: cannot read /nonexistent/loomd.crt: No such file");
	refused("http:\n  tls:\n    cert: loomd.crt\n", "t.yaml:3: http.tls.cert");
	refused("http:\n  tls:\n    client_cert: sometimes\n",
		"t.yaml:3: http.tls.client_cert: expected optional or required");
	refused("http:\n  tls:\n    client_ca: /nonexistent/ca.crt\n",
		"t.yaml:2: http.tls.client_ca: needs http.tls.cert and key");
	refused("http:\n  tls: {cert: /a, key: /b, client_cert: required}\n",
		"t.yaml:2: http.tls.client_cert: required needs http.tls.client_ca");
	refused("http:\n  tls: {cert: /a, kye: /b}\n", "t.yaml:2: http.tls.kye: unknown key");
	refused("http:\n  max_connections_per_peer: 0\n", "t.yaml:2: http.max_connections_per_peer");
	refused("http:\n  header_timeout_s: 0\n", "t.yaml:2: http.header_timeout_s");
	refused("http:\n  listen_backlog: 0\n", "t.yaml:2: http.listen_backlog");
	refused("http:\n  max_connections: 65537\n", "t.yaml:2: http.max_connections");
	refused("http:\n  tls:\n    ciphers: NO-SUCH-SUITE\n",
		"t.yaml:3: http.tls.ciphers: \"NO-SUCH-SUITE\" names no cipher suite");
	refused("http:\n  listen: 127.0.0.1\n", "t.yaml:2: http.listen: \"127.0.0.1\" is not ADDR:PORT");
	refused("http:\n  listen: 127.0.0.1:0\n", "t.yaml:2: http.listen: \"127.0.0.1:0\": the port");
	refused("http:\n  listen: host.example:80\n", "t.yaml:2: http.listen: \"host.example:80\": "
		"the address must be numeric");
	refused("http:\n  listen: [\"127.0.0.1:1\", \"127.0.0.1:1\"]\n",
		"t.yaml:2: http.listen[1]: \"127.0.0.1:1\" is listed twice");
	refused("http:\n  metrics_ports: some\n", "t.yaml:2: http.metrics_ports: expected all or errors");
	refused("http:\n  max_connections: 0\n", "t.yaml:2: http.max_connections");
	round_trip("http:\n  listen: [\"127.0.0.1:9477\", \"[::1]:9477\"]\n  metrics_ports: errors\n");
	round_trip("http:\n  listen: [\"127.0.0.1:1\"]\n  max_connections_per_peer: 2\n"
		   "  header_timeout_s: 5\n  tls: {}\n");
	round_trip("http:\n  max_connections: 4096\n  listen_backlog: 4096\n"
		   "  tls: {ciphers: \"ECDHE+AESGCM\"}\n");
}
END_TEST

START_TEST(telemetry_thresholds_keep_their_defaults_and_refuse_bad_keys_by_line)
{
	struct loom_config c;

	loaded("telemetry:\n  thresholds:\n    errors: 20\n    xmit_wait_per_s: 0\n", &c);
	ck_assert_int_eq(telemetry_conf_get(&c)->telemetry_thresholds.errors, 20);
	ck_assert_int_eq(telemetry_conf_get(&c)->telemetry_thresholds.xmit_wait_per_s, 0);
	ck_assert_int_eq(telemetry_conf_get(&c)->telemetry_thresholds.link_downed, 1);
	ck_assert_int_eq(telemetry_conf_get(&c)->telemetry_thresholds.clear_after, 3);
	loaded("telemetry:\n  interval_s: 5\n", &c);
	ck_assert_int_eq(telemetry_conf_get(&c)->telemetry_thresholds.errors, 1);
	ck_assert_int_eq(telemetry_conf_get(&c)->telemetry_thresholds.ber_exp, 12);
	refused("telemetry:\n  thresholds:\n    error: 5\n",
		"t.yaml:3: telemetry.thresholds.error: unknown key");
	refused("telemetry:\n  thresholds:\n    clear_after: 0\n",
		"t.yaml:3: telemetry.thresholds.clear_after:");
	refused("telemetry:\n  thresholds:\n    ber_exp: 31\n",
		"t.yaml:3: telemetry.thresholds.ber_exp:");
	refused("telemetry:\n  thresholds: 5\n", "t.yaml:2: telemetry.thresholds:");
}
END_TEST

/* ha: off without endpoints; a list or a comma string; checked names, URLs
 * and the timeout against the lease; printed so that it reads back. */
START_TEST(ha_section_is_checked_and_round_trips)
{
	struct loom_config c;

	loaded("ha:\n  ttl_s: 9\n", &c);
	ck_assert_str_eq(ha_conf_get(&c)->ha_endpoints, "");
	loaded("ha:\n  endpoints: [http://10.0.0.1:2379, https://m2:2379]\n  name: mgmt1\n", &c);
	ck_assert_str_eq(ha_conf_get(&c)->ha_endpoints, "http://10.0.0.1:2379,https://m2:2379");
	ck_assert_str_eq(ha_conf_get(&c)->ha_cluster, "loom");
	ck_assert_int_eq(ha_conf_get(&c)->ha_ttl_s, 5);
	loaded("ha:\n  endpoints: http://a:1,http://b:2\n", &c);
	ck_assert_str_eq(ha_conf_get(&c)->ha_endpoints, "http://a:1,http://b:2");
	round_trip("ha:\n  endpoints: [http://a:1, http://b:2]\n  name: n1\n  advertise: "
		   "https://n1:9477\n  cluster: c-1\n  ttl_s: 6\n  timeout_ms: 500\n"
		   "  tls: {ca: /etc/ca.pem, cert: /etc/c.pem, key: /etc/c.key}\n"
		   "  user: loom\n  password_file: /etc/loom/etcd-pw\n");
	refused("ha:\n  endpoints: [10.0.0.1:2379]\n", "t.yaml:2: ha.endpoints: etcd endpoint");
	refused("ha:\n  endpoints: [http://a:1]\n  cluster: \"a/b\"\n", "t.yaml:3: ha.cluster:");
	refused("ha:\n  endpoints: [http://a:1]\n  ttl_s: 3\n  timeout_ms: 1500\n",
		"t.yaml:4: ha.timeout_ms: 1500 ms is over a third");
	refused("ha:\n  endpoints: [http://a:1]\n  user: loom\n", "t.yaml:3: ha.password_file:");
	refused("ha:\n  endpoints: [http://a:1]\n  tls: {cert: /etc/c.pem}\n",
		"t.yaml:2: ha.endpoints: an etcd client certificate needs its key");
	refused("ha:\n  endpoint: [http://a:1]\n", "t.yaml:2: ha.endpoint: unknown key");
}
END_TEST

/* validation: on by default with no plan and fat_tree auto; the plan is
 * read with the file, and one that does not parse refuses the whole file
 * naming loom.yaml's line and the plan's; printed so that it reads back. */
START_TEST(validation_reads_its_plan_with_the_file_and_refuses_a_broken_one)
{
	char good[] = "/tmp/loom-test-plan-XXXXXX", bad[] = "/tmp/loom-test-plan-XXXXXX";
	char yaml[512], want[512];
	struct loom_config c;
	int fd;
	FILE *f;

	loaded("log:\n  level: info\n", &c);
	ck_assert_int_eq(validate_conf_get(&c)->validation_enabled, 1);
	ck_assert_str_eq(validate_conf_get(&c)->validation_expected, "");
	ck_assert_int_eq(validate_conf_get(&c)->validation_fat_tree, -1);
	ck_assert((fd = mkstemp(good)) >= 0);
	ck_assert((f = fdopen(fd, "w")) != NULL);
	fputs("node,port,peer,peer_port\nsw1,1,h1,1\n", f);
	fclose(f);
	ck_assert((fd = mkstemp(bad)) >= 0);
	ck_assert((f = fdopen(fd, "w")) != NULL);
	fputs("node,port,peer,peer_port\nsw1,1,h1,1\nsw1,1,h2,1\n", f);
	fclose(f);
	snprintf(yaml, sizeof(yaml), "validation:\n  expected: %s\n  fat_tree: no\n", good);
	loaded(yaml, &c);
	ck_assert_str_eq(validate_conf_get(&c)->validation_expected, good);
	ck_assert_int_eq(validate_conf_get(&c)->validation_fat_tree, 0);
	round_trip(yaml);
	snprintf(yaml, sizeof(yaml), "validation:\n  enabled: false\n  expected: %s\n", bad);
	snprintf(want, sizeof(want), "t.yaml:3: validation.expected: %s:3:", bad);
	refused(yaml, want);
	refused("validation:\n  fat_tree: maybe\n", "t.yaml:2: validation.fat_tree:");
	refused("validation:\n  expected: relative.csv\n", "t.yaml:2: validation.expected:");
	unlink(good);
	unlink(bad);
}
END_TEST

/* Write text into a new file of mode `mode` made from tmpl. */
static void secret_file(char *tmpl, const char *text, mode_t mode)
{
	int fd = mkstemp(tmpl);
	FILE *f;

	ck_assert(fd >= 0);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	ck_assert((f = fdopen(fd, "w")) != NULL);
	fputs(text, f);
	fclose(f);
}

/* discovery.m_key_file (issue 43): the M_Key is read from an owner-only
 * file when loom.yaml is loaded, hex or decimal; the printed configuration
 * names the file, never the key; a file others can read, a key that is not
 * one, or 0 are refused naming the line and key. */
START_TEST(discovery_m_key_comes_from_an_owner_only_file_and_is_never_printed)
{
	char hex[] = "/tmp/loom-test-mkey-XXXXXX", dec[] = "/tmp/loom-test-mkey-XXXXXX";
	char open_[] = "/tmp/loom-test-mkey-XXXXXX", junk[] = "/tmp/loom-test-mkey-XXXXXX";
	char zero[] = "/tmp/loom-test-mkey-XXXXXX";
	char yaml[512], want[512], *text;
	struct loom_config c;

	loaded("log:\n  level: info\n", &c);
	ck_assert_uint_eq(discovery_conf_get(&c)->m_key, 0);
	secret_file(hex, "0x00000000DEADBEEF\n", 0600);
	secret_file(dec, "12345678901234567890\n", 0400);
	secret_file(open_, "0x1\n", 0644);
	secret_file(junk, "deadbeef\n", 0600);
	secret_file(zero, "0\n", 0600);
	snprintf(yaml, sizeof(yaml), "discovery:\n  interval: 60\n  m_key_file: %s\n", hex);
	loaded(yaml, &c);
	ck_assert_uint_eq(discovery_conf_get(&c)->m_key, 0xdeadbeefULL);
	text = print(&c);
	ck_assert_ptr_nonnull(strstr(text, hex));
	ck_assert_msg(!strcasestr(text, "deadbeef") && !strstr(text, "3735928559"), "%s", text);
	free(text);
	round_trip(yaml);
	snprintf(yaml, sizeof(yaml), "discovery:\n  m_key_file: %s\n", dec);
	loaded(yaml, &c);
	ck_assert_uint_eq(discovery_conf_get(&c)->m_key, 12345678901234567890ULL);
	snprintf(yaml, sizeof(yaml), "discovery:\n  interval: 60\n  m_key_file: %s\n", open_);
	snprintf(want, sizeof(want), "t.yaml:3: discovery.m_key_file: %s: mode 0644", open_);
	refused(yaml, want);
	snprintf(yaml, sizeof(yaml), "discovery:\n  m_key_file: %s\n", junk);
	snprintf(want, sizeof(want), "t.yaml:2: discovery.m_key_file: %s: its first line", junk);
	refused(yaml, want);
	ck_assert_msg(!strstr(err, "deadbeef"), "the error shows the file's text: %s", err);
	snprintf(yaml, sizeof(yaml), "discovery:\n  m_key_file: %s\n", zero);
	snprintf(want, sizeof(want), "t.yaml:2: discovery.m_key_file: %s: an M_Key of 0", zero);
	refused(yaml, want);
	refused("discovery:\n  m_key_file: /nonexistent/m_key\n",
		"t.yaml:2: discovery.m_key_file: /nonexistent/m_key: No such file");
	refused("discovery:\n  m_key_file: m_key\n", "t.yaml:2: discovery.m_key_file:");
	unlink(hex);
	unlink(dec);
	unlink(open_);
	unlink(junk);
	unlink(zero);
}
END_TEST

/* validation.rails (issue 43): off by default; device, port or pattern;
 * pattern wants a rail_pattern of one capture group; another word, no
 * pattern or a bad one refused naming line and key. */
START_TEST(validation_rails_refuses_what_it_cannot_judge)
{
	struct loom_config c;

	loaded("log:\n  level: info\n", &c);
	ck_assert_int_eq(validate_conf_get(&c)->validation_rails, 0);
	loaded("validation:\n  rails: device\n", &c);
	ck_assert_int_eq(validate_conf_get(&c)->validation_rails, 1);
	round_trip("validation:\n  rails: port\n");
	loaded("validation:\n  rails: pattern\n  rail_pattern: 'mlx5_([0-9]+)$'\n", &c);
	ck_assert_str_eq(validate_conf_get(&c)->validation_rail_pattern, "mlx5_([0-9]+)$");
	round_trip("validation:\n  rails: pattern\n  rail_pattern: 'mlx5_([0-9]+)$'\n");
	refused("validation:\n  rails: plan\n", "t.yaml:2: validation.rails: \"plan\"");
	refused("validation:\n  rails: pattern\n", "t.yaml:2: validation.rails: pattern: "
		"validation.rail_pattern is not set");
	refused("validation:\n  rails: pattern\n  rail_pattern: 'mlx5_[0-9]'\n",
		"t.yaml:3: validation.rail_pattern: \"mlx5_[0-9]\": 0 capture groups");
}
END_TEST

/* validation's multicast keys (issue 43): on, OpenSM's SM_Key 0x1 by
 * default; a key in hex or decimal reads back; a key that is no number,
 * or too large, refused naming line and key. */
START_TEST(validation_multicast_keys)
{
	struct loom_config c;

	loaded("log:\n  level: info\n", &c);
	ck_assert_int_eq(validate_conf_get(&c)->validation_multicast, 1);
	ck_assert_uint_eq(validate_conf_get(&c)->validation_mc_sm_key, 1);
	loaded("validation:\n  multicast: false\n  multicast_sm_key: 0xfeedface00000001\n", &c);
	ck_assert_int_eq(validate_conf_get(&c)->validation_multicast, 0);
	ck_assert_uint_eq(validate_conf_get(&c)->validation_mc_sm_key, 0xfeedface00000001ULL);
	round_trip("validation:\n  multicast_sm_key: 0xfeedface00000001\n");
	loaded("validation:\n  multicast_sm_key: 12\n", &c);
	ck_assert_uint_eq(validate_conf_get(&c)->validation_mc_sm_key, 12);
	refused("validation:\n  multicast_sm_key: key\n", "t.yaml:2: validation.multicast_sm_key:");
	refused("validation:\n  multicast_sm_key: 0x10000000000000000\n",
		"t.yaml:2: validation.multicast_sm_key:");
}
END_TEST

/* slurm: no file by default; the format by name; a file in a directory
 * that does not exist, reconfigure without a file or without scontrol, a
 * format Slurm has no plugin for: refused naming line and key; scontrol ""
 * (no scontrol run) taken. */
START_TEST(slurm_section_refuses_what_it_cannot_keep)
{
	struct loom_config c;

	loaded("log:\n  level: info\n", &c);
	ck_assert_str_eq(slurm_conf_get(&c)->slurm_topology_file, "");
	ck_assert_int_eq(slurm_conf_get(&c)->slurm_topology_format, 0);   /* tree */
	ck_assert_int_eq(slurm_conf_get(&c)->slurm_reconfigure, 0);
	ck_assert_str_eq(slurm_conf_get(&c)->slurm_scontrol, "/usr/bin/scontrol");
	loaded("slurm:\n  topology_file: /tmp/topology.conf\n  topology_format: block\n"
	       "  reconfigure: true\n  subnet: ib0\n", &c);
	ck_assert_str_eq(slurm_conf_get(&c)->slurm_topology_file, "/tmp/topology.conf");
	ck_assert_int_eq(slurm_conf_get(&c)->slurm_topology_format, 1);   /* block */
	ck_assert_int_eq(slurm_conf_get(&c)->slurm_reconfigure, 1);
	ck_assert_str_eq(slurm_conf_get(&c)->slurm_subnet, "ib0");
	round_trip("slurm:\n  topology_file: /tmp/topology.conf\n  topology_format: block\n");
	refused("slurm:\n  topology_format: torus\n", "t.yaml:2: slurm.topology_format:");
	refused("slurm:\n  topology_file: /no/such/dir/topology.conf\n",
		"t.yaml:2: slurm.topology_file: /no/such/dir/topology.conf: its directory");
	refused("slurm:\n  reconfigure: true\n", "t.yaml:2: slurm.reconfigure: needs");
	/* scontrol "": no scontrol run (drains refused, slurm_drain.h); a path stays absolute */
	loaded("slurm:\n  scontrol: \"\"\n", &c);
	ck_assert_str_eq(slurm_conf_get(&c)->slurm_scontrol, "");
	refused("slurm:\n  scontrol: scontrol\n", "t.yaml:2: slurm.scontrol:");
	refused("slurm:\n  topology_file: /tmp/topology.conf\n  reconfigure: true\n"
		"  scontrol: \"\"\n", "t.yaml:3: slurm.reconfigure: needs slurm.scontrol");
}
END_TEST

/* isolation: off by default; every key read and printed back; a mode,
 * an exclusion or a file it cannot keep refused naming line and key. */
START_TEST(isolation_section_reads_its_bounds_and_refuses_what_it_cannot_keep)
{
	struct loom_config c;
	const struct isolation_conf *ic;

	loaded("log:\n  level: info\n", &c);
	ic = isolation_conf_get(&c);
	ck_assert_int_eq(ic->iso_mode, ISO_MODE_OFF);
	ck_assert_int_eq(ic->iso_clean_for_s, 7200);
	ck_assert_int_eq(ic->iso_n_exclude, 0);
	loaded("isolation:\n  mode: dry-run\n  file: /tmp/isolated-links\n  errors: 5\n"
	       "  exclude:\n    - 0x0002c90300001234\n    - \"0x0002c90300005678:17\"\n"
	       "    - {port: \"0x0002c9030000aaaa:3\", until: \"2026-12-31T00:00:00Z\"}\n"
	       "  clean_for_s: 60\n  drain_hosts: true\n", &c);
	ic = isolation_conf_get(&c);
	ck_assert_int_eq(ic->iso_mode, ISO_MODE_DRY_RUN);
	ck_assert_int_eq(ic->iso_errors, 5);
	ck_assert_int_eq(ic->iso_n_exclude, 3);
	ck_assert_uint_eq(ic->iso_exclude[1].guid, 0x0002c90300005678ULL);
	ck_assert_int_eq(ic->iso_exclude[1].port, 17);
	ck_assert_int_eq(ic->iso_exclude[0].port, 0);
	ck_assert_double_eq(ic->iso_exclude[2].until, 1798675200.0);
	round_trip("isolation:\n  mode: on\n  file: /tmp/isolated-links\n  exclude:\n"
		   "    - {port: \"0x0002c9030000aaaa:3\", until: \"2026-12-31T00:00:00Z\"}\n");
	loaded("isolation:\n  findings: [miswired, mtu-mismatch]\n", &c);
	ck_assert_uint_eq(isolation_conf_get(&c)->iso_findings,
			  (1ULL << VAL_MISWIRED) | (1ULL << VAL_MTU_MISMATCH));
	round_trip("isolation:\n  findings: [miswired, ber]\n");
	refused("isolation:\n  findings: [dup-desc]\n", "t.yaml:2: isolation.findings: \"dup-desc\": "
		"not a validation code of one cable");
	refused("isolation:\n  mode: maybe\n", "t.yaml:2: isolation.mode: \"maybe\": off, dry-run or on");
	refused("isolation:\n  exclude: [leaf-1]\n", "t.yaml:2: isolation.exclude: \"leaf-1\"");
	refused("isolation:\n  exclude:\n    - \"0x12:300\"\n", "t.yaml:3: isolation.exclude:");
	refused("isolation:\n  exclude:\n    - {port: \"0x12\", until: tomorrow}\n",
		"t.yaml:3: isolation.exclude: until \"tomorrow\"");
	refused("isolation:\n  mode: on\n  file: /no/such/dir/isolated\n",
		"t.yaml:3: isolation.file: /no/such/dir/isolated: its directory");
	refused("isolation:\n  mode: on\n  file: /tmp/x\n  errors: 0\n  ber_exp: 0\n  flaps: 0\n",
		"t.yaml:2: isolation.mode: on with every rule off");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config_sections");
	TCase *tc = tcase_create("sections");

	if (loomd_config_init() < 0)  /* every module's section of loom.yaml */
		return 1;
	tcase_add_test(tc, ar_section_defaults_to_not_programming_and_reads_every_key);
	tcase_add_test(tc, http_listens_nowhere_by_default_and_off_loopback_only_with_tls);
	tcase_add_test(tc, telemetry_thresholds_keep_their_defaults_and_refuse_bad_keys_by_line);
	tcase_add_test(tc, ha_section_is_checked_and_round_trips);
	tcase_add_test(tc, validation_reads_its_plan_with_the_file_and_refuses_a_broken_one);
	tcase_add_test(tc, validation_rails_refuses_what_it_cannot_judge);
	tcase_add_test(tc, discovery_m_key_comes_from_an_owner_only_file_and_is_never_printed);
	tcase_add_test(tc, validation_multicast_keys);
	tcase_add_test(tc, slurm_section_refuses_what_it_cannot_keep);
	tcase_add_test(tc, isolation_section_reads_its_bounds_and_refuses_what_it_cannot_keep);
	suite_add_tcase(s, tc);
	return check_run(s);
}
