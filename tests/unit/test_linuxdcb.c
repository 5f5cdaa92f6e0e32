/* tests/unit/test_linuxdcb.c: the linuxdcb switch plugin (plugins/linuxdcb/)
 * loaded through plugin_load() like loomd does, against real netdevs in a
 * private network namespace this program makes (unshare(CLONE_NEWNET):
 * root needed, else the program skips with exit 77 and says why).
 *
 * The netdevs are a dummy (or, where the kernel has no dummy driver, a veth
 * pair): neither has dcbnl_ops, so the kernel answers every DCB request
 * with EOPNOTSUPP. What is tested against the kernel is therefore the
 * no-DCB path: the plugin names the netdev and the errno, reports every
 * change it could not write with done = 0, and inventory, health, LLDP and
 * the VLAN refusals work. The messages themselves, and the diff against a
 * netdev that does hold DCB state, are test_dcb_msg's (pure). A netdev
 * with real DCB support (mlx5, ice, bnxt, mlxsw, ...) is not available
 * here; the program says so in its output. */
#include "autoconf.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "plugin.h"
#include "qos_policy.h"

#ifndef LINUXDCB_PLUGIN_DIR
#error LINUXDCB_PLUGIN_DIR must name the directory of linuxdcb.so
#endif

static char err[1024];
static struct plugin *plugin;
static const struct loom_plugin_v1 *ops;
static struct lp_switch *sw;
static char kind[16];              /* "dummy" or "veth" */
static char logs[4096];

static void host_log(enum lp_log_level level, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void host_log(enum lp_log_level level, const char *name, const char *fmt, ...)
{
	size_t o = strlen(logs);
	va_list ap;

	(void)level;
	(void)name;
	if (o + 2 >= sizeof(logs))
		return;
	va_start(ap, fmt);
	vsnprintf(logs + o, sizeof(logs) - o - 1, fmt, ap);
	va_end(ap);
	strcat(logs, "\n");
}

static const struct lp_host host = { host_log };

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* A netdev NAME of the kind this kernel has (veth: NAME and NAME-p). */
static int make_netdev(const char *name)
{
	if (!strcmp(kind, "dummy"))
		return sh("ip link add %s type dummy 2>/dev/null", name);
	return sh("ip link add %s type veth peer name %sp 2>/dev/null", name, name);
}

static int open_sw(const char *address, const char *options, struct lp_switch **out)
{
	struct lp_endpoint ep = { "host1", address, NULL, options, 2000 };

	err[0] = '\0';
	return ops->open(&ep, &host, out, err, sizeof(err));
}

static void setup(void)
{
	logs[0] = '\0';
	ck_assert_msg(plugin_load(LINUXDCB_PLUGIN_DIR, "linuxdcb", &plugin, err, sizeof(err)) == 0,
		      "plugin_load: %s", err);
	ops = plugin_ops(plugin);
	ck_assert_msg(open_sw("ldcb0", NULL, &sw) == 0, "open: %s", err);
}

static void teardown(void)
{
	if (sw)
		ops->close(sw);
	sw = NULL;
	plugin_free(plugin);
	plugin = NULL;
}

/* ---- change sink --------------------------------------------------------- */

struct changes {
	size_t n, done;
	size_t pfc3_on, app26, ldcb1;
};

static int on_change(void *ctx, const struct lp_change *c)
{
	struct changes *s = ctx;

	s->n++;
	s->done += c->done != 0;
	if (!strcmp(c->key, "dcb pfc ldcb0") && !strcmp(c->field, "prio-pfc 3") &&
	    !strcmp(c->before, "") && !strcmp(c->after, "on"))
		s->pfc3_on++;
	if (!strcmp(c->key, "dcb app ldcb0") && !strcmp(c->field, "app dscp 26") &&
	    !strcmp(c->after, "3"))
		s->app26++;
	if (strstr(c->key, "ldcb1"))
		s->ldcb1++;
	return 0;
}

static struct lp_qos *default_qos(const char *const *ports, size_t n)
{
	static struct lp_qos q;
	struct lp_port p[4];
	struct qos_policy pol;

	memset(p, 0, sizeof(p));
	for (size_t i = 0; i < n; i++)
		snprintf(p[i].name, sizeof(p[i].name), "%s", ports[i]);
	qos_policy_defaults(&pol);
	ck_assert_int_eq(qos_policy_resolve(&pol, p, n, &q), 0);
	return &q;
}

/* ---- tests ------------------------------------------------------------------ */

START_TEST(linuxdcb_open_refuses_unknown_netdevs_options_and_empty_addresses)
{
	struct lp_switch *s2 = NULL;

	ck_assert_int_eq(open_sw("ldcb0,nosuch9", NULL, &s2), -ENODEV);
	ck_assert_ptr_null(s2);
	ck_assert_msg(strstr(err, "nosuch9"), "err: %s", err);
	ck_assert_int_eq(open_sw("ldcb0", "speed=1", &s2), -EINVAL);
	ck_assert_msg(strstr(err, "speed=1"), "err: %s", err);
	ck_assert_int_eq(open_sw("", NULL, &s2), -EINVAL);
	ck_assert_int_eq(open_sw(" , ", NULL, &s2), -EINVAL);
	ck_assert_int_eq(open_sw("a-name-longer-than-15", NULL, &s2), -EINVAL);
	ck_assert_int_eq(open_sw(" ldcb0 , ldcb1 ", NULL, &s2), 0);
	ops->close(s2);
}
END_TEST

struct ports {
	size_t n;
	struct lp_port p[4];
};

static int on_port(void *ctx, const struct lp_port *p)
{
	struct ports *ps = ctx;

	if (ps->n < 4)
		ps->p[ps->n] = *p;
	ps->n++;
	return 0;
}

START_TEST(linuxdcb_inventory_names_the_host_and_its_netdevs)
{
	struct ports ps = { 0 };
	struct lp_port_sink sink = { &ps, on_port };
	struct lp_inventory inv;
	struct lp_switch *s2;
	struct utsname u;

	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_eq(open_sw("ldcb0,ldcb1", NULL, &s2), 0);
	ck_assert_msg(ops->inventory(s2, &inv, &sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(inv.hostname, u.nodename);
	ck_assert_msg(!strncmp(inv.model, "Linux ", 6) && strstr(inv.model, u.release),
		      "model %s", inv.model);
	if (access("/etc/os-release", R_OK) == 0)
		ck_assert_msg(inv.os_version[0], "no PRETTY_NAME read");
	ck_assert_uint_eq(strlen(inv.mac), 17);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_str_eq(ps.p[0].name, "ldcb0");
	ck_assert_str_eq(ps.p[1].name, "ldcb1");
	ck_assert_uint_eq(ps.p[0].mtu, 9000);
	ck_assert_uint_eq(ps.p[0].admin_up, 1);
	ck_assert_uint_eq(ps.p[1].admin_up, 0);
	ck_assert_uint_eq(ps.p[1].oper_up, 0);
	printf("test_linuxdcb: inventory: %s, %s, %s; ldcb0 mtu %u speed %u Mb/s up %u/%u\n",
	       inv.hostname, inv.model, inv.os_version, ps.p[0].mtu, ps.p[0].speed_mbps,
	       ps.p[0].admin_up, ps.p[0].oper_up);
	ops->close(s2);
}
END_TEST

static int on_neighbor(void *ctx, const struct lp_neighbor *n)
{
	(*(int *)ctx)++;
	return 0;
}

START_TEST(linuxdcb_lldp_reports_no_neighbour)
{
	int n = 0;
	struct lp_neighbor_sink sink = { &n, on_neighbor };

	ck_assert_int_eq(ops->lldp_neighbors(sw, &sink, err, sizeof(err)), 0);
	ck_assert_int_eq(n, 0);
}
END_TEST

START_TEST(linuxdcb_qos_read_names_the_netdev_without_dcb_support)
{
	static struct lp_qos q;

	memset(&q, 0, sizeof(q));
	ck_assert_int_eq(ops->qos_read(sw, &q, err, sizeof(err)), -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "ldcb0: the driver has no DCB support (EOPNOTSUPP)"), "err: %s",
		      err);
}
END_TEST

START_TEST(linuxdcb_apply_on_a_netdev_without_dcb_reports_eopnotsupp_and_nothing_done)
{
	static const char *const p[] = { "ldcb0" };
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };

	ck_assert_int_eq(ops->qos_apply(sw, default_qos(p, 1), 0, &sink, err, sizeof(err)),
			 -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "ldcb0: the driver has no DCB support (EOPNOTSUPP)"), "err: %s",
		      err);
	ck_assert_uint_eq(s.n, 8 + 8 + 8 + 8 + 64);
	ck_assert_uint_eq(s.done, 0);
	ck_assert_uint_eq(s.pfc3_on, 1);
	ck_assert_uint_eq(s.app26, 1);
	ck_assert_msg(strstr(logs, "ECN marking on traffic class 3 is not set by linuxdcb"),
		      "logs: %s", logs);
	ck_assert_msg(strstr(logs, "ldcb0: the driver has no DCB support"), "logs: %s", logs);
	printf("test_linuxdcb: apply on %s ldcb0: %s; %zu changes, %zu done\n", kind, err, s.n,
	       s.done);
}
END_TEST

START_TEST(linuxdcb_dry_run_on_a_netdev_without_dcb_reports_the_same)
{
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };

	ck_assert_int_eq(ops->qos_apply(sw, default_qos(NULL, 0), 1, &sink, err, sizeof(err)),
			 -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "ldcb0") && strstr(err, "EOPNOTSUPP"), "err: %s", err);
	ck_assert_uint_eq(s.n, 96);
	ck_assert_uint_eq(s.done, 0);
}
END_TEST

START_TEST(linuxdcb_apply_on_two_netdevs_reports_both_netdevs_changes_undone)
{
	static const char *const p[] = { "ldcb0", "ldcb1" };
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };
	struct lp_switch *s2;

	ck_assert_int_eq(open_sw("ldcb0,ldcb1", NULL, &s2), 0);
	ck_assert_int_eq(ops->qos_apply(s2, default_qos(p, 2), 0, &sink, err, sizeof(err)),
			 -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "ldcb0: the driver has no DCB support"), "err: %s", err);
	ck_assert_uint_eq(s.n, 2 * 96);
	ck_assert_uint_eq(s.ldcb1, 96);
	ck_assert_uint_eq(s.done, 0);
	ops->close(s2);
}
END_TEST

static int stop_after_one(void *ctx, const struct lp_change *c)
{
	(*(int *)ctx)++;
	return 7;
}

START_TEST(linuxdcb_apply_stops_when_the_sink_asks)
{
	static const char *const p[] = { "ldcb0", "ldcb1" };
	struct lp_change_sink sink;
	struct lp_switch *s2;
	int n = 0;

	sink.ctx = &n;
	sink.change = stop_after_one;
	ck_assert_int_eq(open_sw("ldcb0,ldcb1", NULL, &s2), 0);
	ck_assert_int_eq(ops->qos_apply(s2, default_qos(p, 2), 1, &sink, err, sizeof(err)), 7);
	ck_assert_int_eq(n, 1);
	ops->close(s2);
}
END_TEST

START_TEST(linuxdcb_apply_refuses_ports_that_are_not_the_handles)
{
	static const char *const p[] = { "ldcb0", "eth99" };
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };

	ck_assert_int_eq(ops->qos_apply(sw, default_qos(p, 2), 0, &sink, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "eth99"), "err: %s", err);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(linuxdcb_vlans_are_refused_with_eopnotsupp)
{
	uint16_t vid;

	ck_assert_int_eq(ops->vlan_set(sw, "ldcb0", 100, err, sizeof(err)), -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "ldcb0") && strstr(err, "not a switch access port"), "%s", err);
	ck_assert_int_eq(ops->vlan_clear(sw, "ldcb0", err, sizeof(err)), -EOPNOTSUPP);
	vid = 7;
	ck_assert_int_eq(ops->vlan_get(sw, "ldcb0", &vid, err, sizeof(err)), -EOPNOTSUPP);
	ck_assert_uint_eq(vid, 0);
}
END_TEST

START_TEST(linuxdcb_health_fails_once_a_netdev_is_gone)
{
	struct lp_switch *s2;

	ck_assert_int_eq(make_netdev("ldcb9"), 0);
	ck_assert_int_eq(open_sw("ldcb0,ldcb9", NULL, &s2), 0);
	ck_assert_int_eq(ops->health(s2, err, sizeof(err)), 0);
	ck_assert_int_eq(sh("ip link del ldcb9"), 0);
	ck_assert_int_eq(ops->health(s2, err, sizeof(err)), -ENODEV);
	ck_assert_msg(strstr(err, "ldcb9: the netdev is gone"), "err: %s", err);
	ops->close(s2);
}
END_TEST

START_TEST(linuxdcb_plugin_exports_only_loom_plugin_v1)
{
	void *dl = dlopen(LINUXDCB_PLUGIN_DIR "/linuxdcb.so", RTLD_NOW | RTLD_LOCAL);

	ck_assert_msg(dl, "dlopen: %s", dlerror());
	ck_assert_ptr_nonnull(dlsym(dl, "loom_plugin_v1"));
	ck_assert_ptr_null(dlsym(dl, "dcbm_build"));
	ck_assert_ptr_null(dlsym(dl, "dcbm_diff"));
	dlclose(dl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linuxdcb");
	TCase *tc = tcase_create("linuxdcb");
	SRunner *sr;
	int failed;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("test_linuxdcb: SKIP: not root: a private network namespace with test "
		       "netdevs needs CAP_SYS_ADMIN and CAP_NET_ADMIN\n");
		return 77;
	}
	if (unshare(CLONE_NEWNET) != 0) {
		printf("test_linuxdcb: SKIP: unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return 77;
	}
	snprintf(kind, sizeof(kind), "dummy");
	if (make_netdev("ldcb0") != 0) {
		snprintf(kind, sizeof(kind), "veth");
		if (make_netdev("ldcb0") != 0) {
			printf("test_linuxdcb: SKIP: cannot create a dummy or veth netdev "
			       "(no `ip`, or no such drivers in this kernel)\n");
			return 77;
		}
	}
	if (make_netdev("ldcb1") != 0 || sh("ip link set ldcb0 mtu 9000 up") != 0) {
		printf("test_linuxdcb: cannot set up the test netdevs\n");
		return EXIT_FAILURE;
	}
	printf("test_linuxdcb: test netdevs are %s (no dcbnl_ops); a netdev with real DCB "
	       "support was not available here, so only the no-DCB paths run against the "
	       "kernel (the DCB messages and diff are test_dcb_msg's)\n", kind);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, linuxdcb_open_refuses_unknown_netdevs_options_and_empty_addresses);
	tcase_add_test(tc, linuxdcb_inventory_names_the_host_and_its_netdevs);
	tcase_add_test(tc, linuxdcb_lldp_reports_no_neighbour);
	tcase_add_test(tc, linuxdcb_qos_read_names_the_netdev_without_dcb_support);
	tcase_add_test(tc, linuxdcb_apply_on_a_netdev_without_dcb_reports_eopnotsupp_and_nothing_done);
	tcase_add_test(tc, linuxdcb_dry_run_on_a_netdev_without_dcb_reports_the_same);
	tcase_add_test(tc, linuxdcb_apply_on_two_netdevs_reports_both_netdevs_changes_undone);
	tcase_add_test(tc, linuxdcb_apply_refuses_ports_that_are_not_the_handles);
	tcase_add_test(tc, linuxdcb_apply_stops_when_the_sink_asks);
	tcase_add_test(tc, linuxdcb_vlans_are_refused_with_eopnotsupp);
	tcase_add_test(tc, linuxdcb_health_fails_once_a_netdev_is_gone);
	tcase_add_test(tc, linuxdcb_plugin_exports_only_loom_plugin_v1);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
