/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/linuxdcb/test_linuxdcb.c: the linuxdcb switch plugin (plugins/linuxdcb/)
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
 * here; the program says so in its output.
 *
 * ECN (ecn=auto|tc|off): with ecn=tc the plugin writes a root ets and a
 * red ... ecn qdisc on the lossless class's band; the tests read them back
 * with the real `tc -j -d qdisc show` and parse its output. A kernel
 * without sch_ets / sch_red (probed first on a scratch netdev) runs the
 * refusal path instead (ENOENT named with the netdev) and says that the
 * written-qdisc tests were skipped and why. */
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

#include "daemon/core/plugin.h"
#include "lib/qos/qos_policy.h"
#include "tests/unit/fixtures/check_run.h"

#ifndef LINUXDCB_PLUGIN_DIR
#error LINUXDCB_PLUGIN_DIR must name the directory of linuxdcb.so
#endif

static char err[1024];
static struct plugin *plugin;
static const struct loom_plugin_v1 *ops;
static struct lp_switch *sw;
static char kind[16];              /* "dummy" or "veth" */
static char no_qdiscs[256];        /* why ets/red cannot be added here, "" if they can */
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
	size_t tc, tc_done, root, min3;
	char min3_before[32], min3_after[32];
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
	if (!strncmp(c->key, "tc ", 3)) {
		s->tc++;
		s->tc_done += c->done != 0;
	}
	s->root += !strcmp(c->key, "tc ets ldcb0") && !strcmp(c->field, "root");
	if (!strcmp(c->key, "tc red ldcb0 tc3") && !strcmp(c->field, "min")) {
		s->min3++;
		snprintf(s->min3_before, sizeof(s->min3_before), "%s", c->before);
		snprintf(s->min3_after, sizeof(s->min3_after), "%s", c->after);
	}
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
	ck_assert_int_eq(open_sw("ldcb0", "ecn=maybe", &s2), -EINVAL);
	ck_assert_msg(strstr(err, "ecn=maybe") && strstr(err, "ecn=auto|tc|off"), "err: %s", err);
	ck_assert_int_eq(open_sw("ldcb0", "ecn=tc,speed=1", &s2), -EINVAL);
	ck_assert_int_eq(open_sw("ldcb0", "ecn=off", &s2), 0);
	ops->close(s2);
	ck_assert_int_eq(open_sw("ldcb0", "ecn=tc", &s2), 0);
	ops->close(s2);
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

/* ---- counters ---------------------------------------------------------------- */

struct cgot {
	size_t n, errors;
	unsigned long long in_octets, out_octets;
	char error[256];
};

static int cgot_counter(void *ctx, const struct lp_counter *c)
{
	struct cgot *g = ctx;

	g->n++;
	if (!strcmp(c->name, "in_octets"))
		g->in_octets = c->value;
	if (!strcmp(c->name, "out_octets"))
		g->out_octets = c->value;
	return 0;
}

static int cgot_error(void *ctx, const char *port, const char *reason)
{
	struct cgot *g = ctx;

	g->errors++;
	snprintf(g->error, sizeof(g->error), "%s: %s", port, reason);
	return 0;
}

/* The kernel's transmitted bytes of dev, as `ip -s` reads them (netlink). */
static unsigned long long ip_tx_bytes(const char *dev)
{
	char cmd[160], buf[64] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip -s -j link show dev %s | sed -n "
		 "'s/.*\"tx\":{\"bytes\":\\([0-9]*\\).*/\\1/p'", dev);
	ck_assert_ptr_nonnull(f = popen(cmd, "r"));
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	pclose(f);
	return strtoull(buf, NULL, 10);
}

START_TEST(linuxdcb_counters_read_gives_what_the_kernel_counts_for_the_netdev)
{
	struct cgot g = { 0 };
	struct lp_counter_sink sink = { &g, cgot_counter, cgot_error };
	lp_counters_read_fn fn = plugin_counters_op(ops);
	unsigned long long want;

	ck_assert_ptr_nonnull(fn);
	/* traffic the kernel counts: the netdev up with an address, packets out */
	/* no IPv6 (its neighbour discovery would send between the reads) */
	sh("sysctl -qw net.ipv6.conf.ldcb0.disable_ipv6=1 2>/dev/null");
	if (!strcmp(kind, "veth"))
		ck_assert_int_eq(sh("ip link set ldcb0p up"), 0);   /* a carrier */
	ck_assert_int_eq(sh("ip link set ldcb0 up && ip addr add 192.0.2.1/24 dev ldcb0 "
			    "2>/dev/null; python3 -c 'import socket; s = socket.socket(socket.AF_INET, "
			    "socket.SOCK_DGRAM); s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1); "
			    "[s.sendto(bytes(100), (\"192.0.2.255\", 9)) for i in range(3)]'"), 0);
	want = ip_tx_bytes("ldcb0");
	ck_assert_msg(fn(sw, &sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(g.errors, 0);
	/* a dummy or veth has no statistics loom maps: the kernel's six */
	ck_assert_uint_eq(g.n, 6);
	ck_assert_msg(want > 0, "no traffic was counted on ldcb0 (%s)", kind);
	ck_assert_uint_eq(g.out_octets, want);
	sh("ip addr flush dev ldcb0; ip link set ldcb0 down; ip link set ldcb0p down 2>/dev/null");
}
END_TEST

START_TEST(linuxdcb_counters_read_reports_a_netdev_gone_as_a_port_error)
{
	struct lp_switch *s2;
	struct cgot g = { 0 };
	struct lp_counter_sink sink = { &g, cgot_counter, cgot_error };

	ck_assert_int_eq(make_netdev("ldcb8"), 0);
	ck_assert_int_eq(open_sw("ldcb0,ldcb8", NULL, &s2), 0);
	ck_assert_int_eq(sh("ip link del ldcb8"), 0);
	ck_assert_msg(plugin_counters_op(ops)(s2, &sink, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(g.errors, 1);
	ck_assert_msg(strstr(g.error, "ldcb8: the netdev is gone"), "%s", g.error);
	ck_assert_uint_eq(g.n, 6);
	ops->close(s2);
}
END_TEST

/* ---- ECN through tc ---------------------------------------------------------- */

/* `tc -j -d qdisc show dev DEV` into out ("" when tc fails). */
static void tc_show(const char *dev, char *out, size_t len)
{
	char cmd[128];
	size_t n = 0;
	FILE *f;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "tc -j -d qdisc show dev %s 2>/dev/null", dev);
	if (!(f = popen(cmd, "r")))
		return;
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	pclose(f);
}

/* The JSON object of the qdisc whose parent is `parent` ("10:5"), copied
 * into obj; 0, or -1 when there is none. */
static int tc_qdisc_at(const char *json, const char *parent, char *obj, size_t len)
{
	char key[48];
	const char *p, *start, *end;

	snprintf(key, sizeof(key), "\"parent\":\"%s\"", parent);
	if (!(p = strstr(json, key)))
		return -1;
	for (start = p; start > json && strncmp(start, "{\"kind\":", 8); start--)
		;
	end = strstr(p, "{\"kind\":");
	snprintf(obj, len, "%.*s", (int)((end ? end : p + strlen(p)) - start), start);
	return 0;
}

static int count_of(const char *json, const char *what)
{
	int n = 0;

	for (const char *p = json; (p = strstr(p, what)); p++)
		n++;
	return n;
}

START_TEST(linuxdcb_ecn_auto_on_a_netdev_that_is_not_switchdev_leaves_qdiscs_alone)
{
	static const char *const p[] = { "ldcb0" };
	static char before[8192], after[8192];
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };

	tc_show("ldcb0", before, sizeof(before));
	ops->qos_apply(sw, default_qos(p, 1), 0, &sink, err, sizeof(err));
	tc_show("ldcb0", after, sizeof(after));
	ck_assert_str_eq(before, after);
	ck_assert_uint_eq(s.tc, 0);
	ck_assert_msg(strstr(logs, "ldcb0: ECN marking on traffic class 3 is not set by linuxdcb "
			     "(EOPNOTSUPP): not a switchdev port (no IFLA_PHYS_SWITCH_ID)"),
		      "logs: %s", logs);
}
END_TEST

START_TEST(linuxdcb_ecn_off_leaves_qdiscs_alone_and_says_so)
{
	static const char *const p[] = { "ldcb0" };
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };
	struct lp_switch *s2;

	ck_assert_int_eq(open_sw("ldcb0", "ecn=off", &s2), 0);
	ops->qos_apply(s2, default_qos(p, 1), 0, &sink, err, sizeof(err));
	ck_assert_uint_eq(s.tc, 0);
	ck_assert_msg(strstr(logs, "ldcb0: ECN marking on traffic class 3 is not set by linuxdcb "
			     "(ecn=off)"), "logs: %s", logs);
	ops->close(s2);
}
END_TEST

/* This kernel has no ets or red qdisc: the refusal, named. */
START_TEST(linuxdcb_ecn_tc_on_a_kernel_without_the_qdiscs_reports_enoent_naming_the_netdev)
{
	static const char *const p[] = { "ldcb0" };
	static char after[8192];
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };
	struct lp_switch *s2;

	ck_assert_int_eq(open_sw("ldcb0", "ecn=tc", &s2), 0);
	ck_assert_int_eq(ops->qos_apply(s2, default_qos(p, 1), 0, &sink, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "ldcb0: RTM_NEWQDISC root 10: ets") && strstr(err, "(ENOENT)") &&
		      strstr(err, "no `ets` qdisc"), "err: %s", err);
	ck_assert_uint_eq(s.tc, 1 + 4);        /* root; min max probability ecn of class 3 */
	ck_assert_uint_eq(s.root, 1);
	ck_assert_uint_eq(s.min3, 1);
	ck_assert_uint_eq(s.done, 0);          /* nothing landed: not the qdiscs, not DCB */
	ck_assert_uint_eq(s.n, 5 + 96);
	tc_show("ldcb0", after, sizeof(after));
	ck_assert_msg(!strstr(after, "\"ets\"") && !strstr(after, "\"red\""), "tc: %s", after);
	printf("test_linuxdcb: ecn=tc on %s ldcb0 here: %s\n", kind, err);
	ops->close(s2);
}
END_TEST

/* This kernel has them: written, shown by tc, idempotent, drift seen. */
START_TEST(linuxdcb_ecn_tc_writes_red_ecn_on_the_lossless_classs_band)
{
	static const char *const p[] = { "ldcb0" };
	static char json[16384], obj[4096];
	struct changes s = { 0 };
	struct lp_change_sink sink = { &s, on_change };
	const struct lp_qos *q = default_qos(p, 1);
	struct lp_switch *s2;
	int rc;

	ck_assert_int_eq(open_sw("ldcb0", "ecn=tc", &s2), 0);
	rc = ops->qos_apply(s2, q, 0, &sink, err, sizeof(err));
	/* the qdiscs land; the netdev's missing DCB is still reported */
	ck_assert_msg(rc == 0 || (rc == -EOPNOTSUPP && strstr(err, "no DCB support")), "%d %s",
		      rc, err);
	ck_assert_uint_eq(s.tc, 5);
	ck_assert_uint_eq(s.tc_done, 5);
	tc_show("ldcb0", json, sizeof(json));
	ck_assert_msg(strstr(json, "\"kind\":\"ets\"") && strstr(json, "\"handle\":\"10:\""),
		      "tc: %s", json);
	/* class 3 = band 4 = class id 10:5 */
	ck_assert_msg(tc_qdisc_at(json, "10:5", obj, sizeof(obj)) == 0, "tc: %s", json);
	ck_assert_msg(strstr(obj, "\"kind\":\"red\""), "10:5: %s", obj);
	ck_assert_msg(strstr(obj, "\"min\":150000"), "10:5: %s", obj);
	ck_assert_msg(strstr(obj, "\"max\":1500000"), "10:5: %s", obj);
	ck_assert_msg(strstr(obj, "\"ecn\":true"), "10:5: %s", obj);
	ck_assert_msg(strstr(obj, "\"probability\":0.1"), "10:5: %s", obj);
	ck_assert_msg(!strstr(obj, "\"harddrop\":true"), "10:5: %s", obj);
	ck_assert_int_eq(count_of(json, "\"kind\":\"red\""), 1);   /* class 3's only */
	ck_assert_msg(tc_qdisc_at(json, "10:4", obj, sizeof(obj)) != 0 ||
		      !strstr(obj, "\"kind\":\"red\""), "no RED on class 4: %s", json);
	printf("test_linuxdcb: ecn=tc on ldcb0: %s\n", json);

	/* again: nothing to do */
	memset(&s, 0, sizeof(s));
	ops->qos_apply(s2, q, 0, &sink, err, sizeof(err));
	ck_assert_uint_eq(s.tc, 0);

	/* behind loom's back: drift, seen by a dry run, put back by an apply */
	ck_assert_int_eq(sh("tc qdisc change dev ldcb0 parent 10:5 handle 105: red limit 6000000 "
			    "min 100000 max 1500000 avpkt 1000 burst 101 probability 0.1 ecn "
			    "2>/dev/null"), 0);
	memset(&s, 0, sizeof(s));
	ops->qos_apply(s2, q, 1, &sink, err, sizeof(err));
	ck_assert_uint_eq(s.tc, 1);
	ck_assert_uint_eq(s.min3, 1);
	ck_assert_str_eq(s.min3_before, "100000");
	ck_assert_str_eq(s.min3_after, "150000");
	ck_assert_uint_eq(s.tc_done, 0);
	memset(&s, 0, sizeof(s));
	ops->qos_apply(s2, q, 0, &sink, err, sizeof(err));
	ck_assert_uint_eq(s.tc_done, 1);
	tc_show("ldcb0", json, sizeof(json));
	ck_assert_int_eq(tc_qdisc_at(json, "10:5", obj, sizeof(obj)), 0);
	ck_assert_msg(strstr(obj, "\"min\":150000"), "10:5: %s", obj);
	ck_assert_int_eq(sh("tc qdisc del dev ldcb0 root 2>/dev/null"), 0);
	ops->close(s2);
}
END_TEST

/* ---- DCQCN through a sysfs tree of mlx5's layout (dcqcn=, sysfs=) ------------ */

static char sysfs_root[64];

/* ROOT/ldcb0/ecn/... as MLNX_OFED's mlx5_core makes it, every file "0". */
static void make_ecn_tree(void)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "/tmp/test_linuxdcb.%d", (int)getpid());
	ck_assert_int_eq(sh("rm -rf %s && for s in roce_np roce_rp; do "
			    "mkdir -p %s/ldcb0/ecn/$s/enable && for p in 0 1 2 3 4 5 6 7; do "
			    "echo 0 > %s/ldcb0/ecn/$s/enable/$p; done; done && "
			    "echo 0 > %s/ldcb0/ecn/roce_np/cnp_dscp && "
			    "echo 7 > %s/ldcb0/ecn/roce_np/cnp_802p_prio", sysfs_root, sysfs_root,
			    sysfs_root, sysfs_root, sysfs_root), 0);
}

static int knob(const char *rel)
{
	char path[256], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/ldcb0/ecn/%s", sysfs_root, rel);
	if (!(f = fopen(path, "r")))
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return atoi(buf);
}

struct dcqcn_changes {
	size_t n, done, np3, cnp_dscp;
	char np3_before[8], np3_after[8];
};

static int on_dcqcn(void *ctx, const struct lp_change *c)
{
	struct dcqcn_changes *d = ctx;

	if (strcmp(c->key, "dcqcn ldcb0"))
		return 0;
	d->n++;
	d->done += c->done != 0;
	if (!strcmp(c->field, "roce_np enable 3")) {
		d->np3++;
		snprintf(d->np3_before, sizeof(d->np3_before), "%s", c->before);
		snprintf(d->np3_after, sizeof(d->np3_after), "%s", c->after);
	}
	d->cnp_dscp += !strcmp(c->field, "roce_np cnp_dscp") && !strcmp(c->after, "48");
	return 0;
}

/* The policy's lossless class 3 has ECN: DCQCN on priority 3 at both ends,
 * off elsewhere, CNPs on DSCP 48 / priority 6 (roce.cnp's defaults). Written
 * before DCB (which this netdev refuses), read back, then drift shown by the
 * dry run that `loomctl qos status` uses. */
START_TEST(linuxdcb_dcqcn_writes_the_ecn_priorities_and_cnps_and_shows_drift)
{
	static const char *const p[] = { "ldcb0" };
	struct dcqcn_changes d = { 0 };
	struct lp_change_sink sink = { &d, on_dcqcn };
	struct lp_switch *s2;
	char opts[128];

	make_ecn_tree();
	snprintf(opts, sizeof(opts), "dcqcn=on,sysfs=%s", sysfs_root);
	ck_assert_msg(open_sw("ldcb0", opts, &s2) == 0, "open: %s", err);
	ck_assert_int_eq(ops->qos_apply(s2, default_qos(p, 1), 0, &sink, err, sizeof(err)),
			 -EOPNOTSUPP);  /* DCB, after DCQCN */
	ck_assert_uint_eq(d.n, 4);     /* np 3, rp 3, cnp_dscp, cnp_802p_prio */
	ck_assert_uint_eq(d.done, 4);
	ck_assert_str_eq(d.np3_before, "0");
	ck_assert_str_eq(d.np3_after, "1");
	ck_assert_uint_eq(d.cnp_dscp, 1);
	for (int prio = 0; prio < 8; prio++) {
		char np[32], rp[32];

		snprintf(np, sizeof(np), "roce_np/enable/%d", prio);
		snprintf(rp, sizeof(rp), "roce_rp/enable/%d", prio);
		ck_assert_int_eq(knob(np), prio == 3);
		ck_assert_int_eq(knob(rp), prio == 3);
	}
	ck_assert_int_eq(knob("roce_np/cnp_dscp"), 48);
	ck_assert_int_eq(knob("roce_np/cnp_802p_prio"), 6);
	/* in policy: a dry run reports nothing for dcqcn */
	memset(&d, 0, sizeof(d));
	ops->qos_apply(s2, default_qos(p, 1), 1, &sink, err, sizeof(err));
	ck_assert_uint_eq(d.n, 0);
	/* drift behind loom's back: the dry run names it, writes nothing */
	sh("echo 0 > %s/ldcb0/ecn/roce_np/enable/3", sysfs_root);
	ops->qos_apply(s2, default_qos(p, 1), 1, &sink, err, sizeof(err));
	ck_assert_uint_eq(d.n, 1);
	ck_assert_uint_eq(d.done, 0);
	ck_assert_str_eq(d.np3_before, "0");
	ck_assert_int_eq(knob("roce_np/enable/3"), 0);
	ops->close(s2);
	sh("rm -rf %s", sysfs_root);
}
END_TEST

/* A NIC without one of the knobs: the apply fails naming the file, and the
 * file is not created (no fake accepts what the kernel would refuse). */
START_TEST(linuxdcb_dcqcn_missing_file_is_an_error_naming_its_path)
{
	static const char *const p[] = { "ldcb0" };
	struct dcqcn_changes d = { 0 };
	struct lp_change_sink sink = { &d, on_dcqcn };
	struct lp_switch *s2;
	char opts[128], want[160];

	make_ecn_tree();
	sh("rm %s/ldcb0/ecn/roce_rp/enable/5", sysfs_root);
	snprintf(opts, sizeof(opts), "dcqcn=auto,sysfs=%s", sysfs_root);
	ck_assert_msg(open_sw("ldcb0", opts, &s2) == 0, "open: %s", err);
	ck_assert_int_eq(ops->qos_apply(s2, default_qos(p, 1), 0, &sink, err, sizeof(err)),
			 -ENOENT);
	snprintf(want, sizeof(want), "%s/ldcb0/ecn/roce_rp/enable/5: No such file or directory",
		 sysfs_root);
	ck_assert_msg(strstr(err, want) == err, "err: %s", err);
	ck_assert_int_eq(knob("roce_rp/enable/5"), -1);
	ck_assert_int_eq(knob("roce_np/enable/3"), 0);  /* read all before writing any */
	ck_assert_uint_eq(d.n, 0);
	ops->close(s2);
	/* dcqcn=on on a NIC with no ecn directory at all: the same, named */
	sh("rm -rf %s/ldcb0", sysfs_root);
	snprintf(opts, sizeof(opts), "dcqcn=on,sysfs=%s", sysfs_root);
	ck_assert_msg(open_sw("ldcb0", opts, &s2) == 0, "open: %s", err);
	ck_assert_int_eq(ops->qos_apply(s2, default_qos(p, 1), 0, &sink, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "/ldcb0/ecn/roce_np/enable/0: No such file"), "err: %s", err);
	ops->close(s2);
	/* auto there: left alone, and said */
	logs[0] = '\0';
	snprintf(opts, sizeof(opts), "dcqcn=auto,sysfs=%s", sysfs_root);
	ck_assert_msg(open_sw("ldcb0", opts, &s2) == 0, "open: %s", err);
	ops->qos_apply(s2, default_qos(p, 1), 0, &sink, err, sizeof(err));
	ck_assert_msg(strstr(err, "EOPNOTSUPP"), "err: %s", err);  /* DCB's, not DCQCN's */
	ck_assert_msg(strstr(logs, "ldcb0: no DCQCN files under"), "logs: %s", logs);
	ops->close(s2);
	ck_assert_int_eq(open_sw("ldcb0", "dcqcn=maybe", &s2), -EINVAL);
	ck_assert_msg(strstr(err, "dcqcn=auto|on|off"), "err: %s", err);
	ck_assert_int_eq(open_sw("ldcb0", "sysfs=relative/path", &s2), -EINVAL);
	sh("rm -rf %s", sysfs_root);
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
	/* can this kernel hold the qdiscs ecn=tc writes? (a scratch netdev) */
	if (make_netdev("ldcbq") != 0)
		snprintf(no_qdiscs, sizeof(no_qdiscs), "cannot create a scratch netdev");
	else if (sh("tc qdisc add dev ldcbq root handle 10: ets bands 8 2>/dev/null") != 0)
		snprintf(no_qdiscs, sizeof(no_qdiscs), "`tc qdisc add ... ets` fails: this kernel "
			 "has no sch_ets (CONFIG_NET_SCH_ETS)");
	else if (sh("tc qdisc add dev ldcbq parent 10:1 red limit 400000 min 30000 max 100000 "
		    "avpkt 1000 2>/dev/null") != 0)
		snprintf(no_qdiscs, sizeof(no_qdiscs), "`tc qdisc add ... red` fails: this kernel "
			 "has no sch_red (CONFIG_NET_SCH_RED)");
	sh("ip link del ldcbq 2>/dev/null");
	if (no_qdiscs[0])
		printf("test_linuxdcb: SKIP the written-qdisc ECN test (shown by tc, idempotent, "
		       "drift): %s; the refusal path runs instead\n", no_qdiscs);
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
	tcase_add_test(tc, linuxdcb_ecn_auto_on_a_netdev_that_is_not_switchdev_leaves_qdiscs_alone);
	tcase_add_test(tc, linuxdcb_ecn_off_leaves_qdiscs_alone_and_says_so);
	if (no_qdiscs[0])
		tcase_add_test(tc,
			linuxdcb_ecn_tc_on_a_kernel_without_the_qdiscs_reports_enoent_naming_the_netdev);
	else
		tcase_add_test(tc, linuxdcb_ecn_tc_writes_red_ecn_on_the_lossless_classs_band);
	tcase_add_test(tc, linuxdcb_counters_read_gives_what_the_kernel_counts_for_the_netdev);
	tcase_add_test(tc, linuxdcb_counters_read_reports_a_netdev_gone_as_a_port_error);
	tcase_add_test(tc, linuxdcb_dcqcn_writes_the_ecn_priorities_and_cnps_and_shows_drift);
	tcase_add_test(tc, linuxdcb_dcqcn_missing_file_is_an_error_naming_its_path);
	tcase_add_test(tc, linuxdcb_plugin_exports_only_loom_plugin_v1);
	suite_add_tcase(s, tc);
	return check_run(s);
}
