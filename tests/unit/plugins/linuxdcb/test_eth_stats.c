/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/plugins/linuxdcb/test_eth_stats.c: the linuxdcb plugin's mapping of what the
 * kernel gives (plugins/linuxdcb/eth_stats.c, pure) to loom's counter
 * names: an mlx5 ethtool string set as en_stats.c builds it (per-priority
 * PFC pauses and durations, per-class ECN marks, pause storm events,
 * physical port octets and discards, and names loom does not map), a
 * kernel whose mlx5 wrote "tx_pause_storm_warning_events " with a trailing
 * blank, and /proc/net/dev's text (the kernel's own counters). The real
 * netdev read is test_linuxdcb's. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "eth_stats.h"
#include "tests/unit/fixtures/check_run.h"

struct got {
	char line[64][80];
	size_t n;
};

static int on_counter(void *ctx, const struct lp_counter *c)
{
	struct got *g = ctx;

	ck_assert_uint_lt(g->n, 64);
	ck_assert_uint_eq(c->bits, 64);
	ck_assert_uint_eq(c->gauge, 0);
	snprintf(g->line[g->n++], sizeof(g->line[0]), "%s %s %c%u %llu", c->port, c->name,
		 c->scope == LP_COUNTER_PORT ? '-' : c->scope == LP_COUNTER_PRIORITY ? 'p' : 'q',
		 c->index, (unsigned long long)c->value);
	return 0;
}

static int has(const struct got *g, const char *line)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->line[i], line))
			return 1;
	return 0;
}

#define HAS(g, l) ck_assert_msg(has(g, l), "missing: %s", l)

/* An mlx5 string set: names padded to ETH_GSTRING_LEN, not NUL-ended
 * where they fill it. */
static size_t mlx5_set(char (*names)[LDS_NAME_LEN], uint64_t *vals, int trailing_blank)
{
	static const char *const fixed[] = {
		"rx_packets", "rx_bytes", "tx_bytes", "rx_bytes_phy", "tx_bytes_phy",
		"rx_discards_phy", "tx_discards_phy", "tx_errors_phy", "rx_crc_errors_phy",
		"rx_global_pause", "tx_global_pause", "tx_pause_storm_error_events",
		"rx_vport_rdma_unicast_bytes",
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		memset(names[n], 0, LDS_NAME_LEN);
		memcpy(names[n], fixed[i], strlen(fixed[i]));
		vals[n] = 1000 + i;
		n++;
	}
	memset(names[n], 0, LDS_NAME_LEN);
	memcpy(names[n], trailing_blank ? "tx_pause_storm_warning_events " :
	       "tx_pause_storm_warning_events", trailing_blank ? 30 : 29);
	vals[n++] = 55;
	for (unsigned p = 0; p < 8; p++) {
		static const char *const fmt[] = { "rx_prio%u_pause", "rx_prio%u_pause_duration",
						   "tx_prio%u_pause", "tx_prio%u_pause_duration",
						   "rx_prio%u_pause_transition", "rx_prio%u_marked",
						   "rx_prio%u_bytes" };

		for (unsigned f = 0; f < sizeof(fmt) / sizeof(fmt[0]); f++) {
			char s[64];

			snprintf(s, sizeof(s), fmt[f], p);
			memset(names[n], 0, LDS_NAME_LEN);
			memcpy(names[n], s, strlen(s));
			vals[n++] = 10000 * (f + 1) + p;
		}
	}
	return n;
}

START_TEST(eth_stats_maps_mlx5_names_to_looms_and_leaves_the_others_out)
{
	static char names[128][LDS_NAME_LEN];
	static uint64_t vals[128];
	static struct got g;
	struct lp_counter_sink sink = { &g, on_counter, NULL };
	struct lds_kernel k = { 1, 2, 3, 4, 5, 6 };
	size_t n = mlx5_set(names, vals, 0);

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(lds_report("eth2", &k, (const char (*)[LDS_NAME_LEN])names, vals, n,
				    &sink), 0);
	HAS(&g, "eth2 pfc_rx_pause p3 10003");
	HAS(&g, "eth2 pfc_rx_pause_duration_us p3 20003");
	HAS(&g, "eth2 pfc_tx_pause p4 30004");
	HAS(&g, "eth2 pfc_tx_pause_duration_us p7 40007");
	HAS(&g, "eth2 ecn_marked q3 60003");
	HAS(&g, "eth2 pause_storm_warning -0 55");
	HAS(&g, "eth2 pause_storm_error -0 1011");
	/* the physical port's octets and discards replace the kernel's */
	HAS(&g, "eth2 in_octets -0 1003");
	HAS(&g, "eth2 out_octets -0 1004");
	HAS(&g, "eth2 in_discards -0 1005");
	HAS(&g, "eth2 out_discards -0 1006");
	HAS(&g, "eth2 out_errors -0 1007");
	/* the kernel's where the driver has none */
	HAS(&g, "eth2 in_errors -0 2");
	/* 6 port + 2 storm + 8 x (4 pause + 1 ecn); transitions, per-priority
	 * bytes, global pause, CRC errors and vport RDMA bytes are not mapped */
	ck_assert_uint_eq(g.n, 6 + 2 + 8 * 5);
}
END_TEST

START_TEST(eth_stats_reads_a_name_with_a_trailing_blank)
{
	static char names[128][LDS_NAME_LEN];
	static uint64_t vals[128];
	static struct got g;
	struct lp_counter_sink sink = { &g, on_counter, NULL };
	size_t n = mlx5_set(names, vals, 1);

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(lds_report("eth2", NULL, (const char (*)[LDS_NAME_LEN])names, vals, n,
				    &sink), 0);
	HAS(&g, "eth2 pause_storm_warning -0 55");
}
END_TEST

START_TEST(eth_stats_without_driver_statistics_gives_the_kernels_counters)
{
	static struct got g;
	struct lp_counter_sink sink = { &g, on_counter, NULL };
	struct lds_kernel k = { 100, 2, 3, 200, 5, 6 };

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(lds_report("dummy0", &k, NULL, NULL, 0, &sink), 0);
	ck_assert_uint_eq(g.n, 6);
	HAS(&g, "dummy0 in_octets -0 100");
	HAS(&g, "dummy0 out_octets -0 200");
	HAS(&g, "dummy0 in_discards -0 3");
	HAS(&g, "dummy0 out_discards -0 6");
}
END_TEST

static const char proc[] =
	"Inter-|   Receive                                                |  Transmit\n"
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
	"errs drop fifo colls carrier compressed\n"
	"    lo:   12345      10    0    0    0     0          0         0    12345      10 "
	"   0    0    0     0       0          0\n"
	"  eth2: 18446744073709551615 2 3 4 5 6 7 8 900 10 11 12 13 14 15 16\n"
	"  eth20: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
	"  bad0: 1 2 3 x 5 6 7 8 9 10 11 12 13 14 15 16\n";

START_TEST(eth_stats_parses_proc_net_dev)
{
	struct lds_kernel k;
	char err[256] = "";

	ck_assert_int_eq(lds_proc_net_dev(proc, "eth2", &k, err, sizeof(err)), 0);
	ck_assert_uint_eq(k.rx_bytes, UINT64_MAX);
	ck_assert_uint_eq(k.rx_errors, 3);
	ck_assert_uint_eq(k.rx_dropped, 4);
	ck_assert_uint_eq(k.tx_bytes, 900);
	ck_assert_uint_eq(k.tx_errors, 11);
	ck_assert_uint_eq(k.tx_dropped, 12);
	ck_assert_int_eq(lds_proc_net_dev(proc, "eth20", &k, err, sizeof(err)), 0);
	ck_assert_uint_eq(k.rx_bytes, 1);
	ck_assert_int_eq(lds_proc_net_dev(proc, "eth", &k, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "/proc/net/dev has no eth"), "%s", err);
	ck_assert_int_eq(lds_proc_net_dev(proc, "bad0", &k, err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "bad0: field 4 is not a number"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eth_stats");
	TCase *tc = tcase_create("eth_stats");

	tcase_add_test(tc, eth_stats_maps_mlx5_names_to_looms_and_leaves_the_others_out);
	tcase_add_test(tc, eth_stats_reads_a_name_with_a_trailing_blank);
	tcase_add_test(tc, eth_stats_without_driver_statistics_gives_the_kernels_counters);
	tcase_add_test(tc, eth_stats_parses_proc_net_dev);
	suite_add_tcase(s, tc);
	return check_run(s);
}
