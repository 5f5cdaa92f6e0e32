/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_fabric_wire.c: a fabric survives the trip from the walker
 * process to loomd exactly, and a damaged stream is refused, never half read. */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/fabric_diff.h"
#include "lib/fabric/fabric_wire.h"
#include "tests/unit/fixtures/fixture_fabric.h"
#include "tests/unit/fixtures/check_run.h"

#define SW1 0x0002c90000000010ULL
#define SW2 0x0002c90000000040ULL
#define CA_A 0x0002c90000000020ULL
#define CA_B 0x0002c90000000030ULL

static struct fab *sample(void)
{
	struct fab *f = fab_new("rail-0");

	ck_assert_ptr_nonnull(f);
	fixture_node(f, IBT_NODE_SWITCH, SW1, 36, "leaf-1", 1);
	fixture_node(f, IBT_NODE_SWITCH, SW2, 36, "spine-1", 2);
	fixture_node(f, IBT_NODE_CA, CA_A, 2, "hostA mlx5_0", 5);
	fixture_node(f, IBT_NODE_CA, CA_B, 1, "hostB mlx5_0", 6);
	fixture_link(f, SW1, 1, CA_A, 1);
	fixture_link(f, SW1, 2, CA_B, 1);
	fixture_link(f, SW1, 35, SW2, 36);
	fab_find(f, CA_A)->ports[2].present = 0;  /* a port that was not found */
	fab_find(f, SW1)->ports[35].width_active = IBT_WIDTH_1X;
	fab_sort(f);
	return f;
}

/* Encode f into a new buffer. */
static char *encode(const struct fab *f, size_t *len)
{
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(fab_wire_write(f, mem), 0);
	fclose(mem);
	return buf;
}

START_TEST(round_trip_keeps_every_node_port_and_link)
{
	struct fab *f = sample(), *g;
	char err[256] = "";
	size_t len;
	char *buf = encode(f, &len);
	struct fab_diff *d;

	g = fab_wire_read(buf, len, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_str_eq(g->subnet, "rail-0");
	ck_assert_uint_eq(g->n_nodes, f->n_nodes);
	ck_assert_uint_eq(fab_count_ports(g), fab_count_ports(f));
	ck_assert_uint_eq(fab_count_links(g), fab_count_links(f));
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fab_node *a = f->nodes[i], *b = fab_find(g, a->guid);

		ck_assert_ptr_nonnull(b);
		ck_assert_str_eq(a->desc, b->desc);
		ck_assert_uint_eq(a->nports, b->nports);
		ck_assert_int_eq(a->type, b->type);
		for (unsigned p = 0; p <= a->nports; p++) {
			ck_assert_uint_eq(a->ports[p].present, b->ports[p].present);
			ck_assert_uint_eq(a->ports[p].num, b->ports[p].num);
			ck_assert_uint_eq(a->ports[p].lid, b->ports[p].lid);
			ck_assert_uint_eq(a->ports[p].width_active, b->ports[p].width_active);
			ck_assert_uint_eq(a->ports[p].peer_guid, b->ports[p].peer_guid);
		}
	}
	d = fab_diff_new(f, g, NULL);
	ck_assert_uint_eq(d->n_events, 0);
	fab_diff_free(d);
	fab_free(g);
	fab_free(f);
	free(buf);
}
END_TEST

START_TEST(empty_fabric_round_trips)
{
	struct fab *f = fab_new("empty"), *g;
	char err[256] = "";
	size_t len;
	char *buf = encode(f, &len);

	g = fab_wire_read(buf, len, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_uint_eq(g->n_nodes, 0);
	fab_free(g);
	fab_free(f);
	free(buf);
}
END_TEST

START_TEST(every_truncation_is_refused)
{
	struct fab *f = sample();
	char err[256];
	size_t len;
	char *buf = encode(f, &len);

	for (size_t cut = 0; cut < len; cut++) {
		err[0] = '\0';
		ck_assert_msg(fab_wire_read(buf, cut, err, sizeof(err)) == NULL,
			      "a stream cut at %zu of %zu bytes was accepted", cut, len);
		ck_assert(err[0] != '\0');
	}
	fab_free(f);
	free(buf);
}
END_TEST

START_TEST(foreign_or_inconsistent_streams_are_refused)
{
	struct fab *f = sample();
	char err[256] = "";
	size_t len;
	char *buf = encode(f, &len);
	char *copy = malloc(len + 1);

	/* Another layout (the port size in the header). */
	memcpy(copy, buf, len);
	copy[8] ^= 0x40;
	ck_assert_ptr_null(fab_wire_read(copy, len, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "not a fabric stream"));
	/* Trailing bytes. */
	memcpy(copy, buf, len);
	copy[len] = 'x';
	ck_assert_ptr_null(fab_wire_read(copy, len + 1, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "stray"));
	free(copy);
	fab_free(f);
	free(buf);

	/* A peer that does not point back fails fab_check(). */
	f = sample();
	fab_find(f, CA_B)->ports[1].peer_port = 7;
	buf = encode(f, &len);
	ck_assert_ptr_null(fab_wire_read(buf, len, err, sizeof(err)));
	fab_free(f);
	free(buf);
}
END_TEST

/* The duplicate GUIDs discovery met reach loomd with the fabric. */
START_TEST(duplicate_guids_cross_the_wire)
{
	struct fab *f = sample(), *g;
	char err[256] = "";
	size_t len;
	char *buf;

	ck_assert_int_eq(fab_add_dup(f, CA_A, 0, "hostA mlx5_0 (on leaf-1[1])",
				     "hostC mlx5_0 (on leaf-9[4])"), 0);
	ck_assert_int_eq(fab_add_dup(f, CA_B + 1, 1, "hostB mlx5_0[1]", "hostD mlx5_0[1]"), 0);
	buf = encode(f, &len);
	g = fab_wire_read(buf, len, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_uint_eq(g->n_nodes, f->n_nodes);
	ck_assert_uint_eq(g->n_dups, 2);
	ck_assert_uint_eq(g->dups[0].guid, CA_A);
	ck_assert_uint_eq(g->dups[0].is_port, 0);
	ck_assert_str_eq(g->dups[0].first, "hostA mlx5_0 (on leaf-1[1])");
	ck_assert_str_eq(g->dups[0].second, "hostC mlx5_0 (on leaf-9[4])");
	ck_assert_uint_eq(g->dups[1].guid, CA_B + 1);
	ck_assert_uint_eq(g->dups[1].is_port, 1);
	ck_assert_str_eq(g->dups[1].first, "hostB mlx5_0[1]");
	ck_assert_str_eq(g->dups[1].second, "hostD mlx5_0[1]");
	fab_free(g);
	/* Cut anywhere, the stream is refused, never read without its dups. */
	for (size_t cut = 0; cut < len; cut++)
		ck_assert_msg(fab_wire_read(buf, cut, err, sizeof(err)) == NULL,
			      "a stream with dups cut at %zu of %zu bytes was accepted", cut, len);
	fab_free(f);
	free(buf);
}
END_TEST

/* A fabric without duplicates is written as before the dups section
 * existed: same bytes, so streams of clean fabrics do not change. */
START_TEST(a_fabric_without_dups_has_no_dup_section)
{
	struct fab *f = sample();
	size_t len, len2;
	char *buf = encode(f, &len), *buf2;

	ck_assert_ptr_null(memmem(buf, len, "LOOMDUP1", 8));
	ck_assert_int_eq(fab_add_dup(f, CA_A, 0, "a", "b"), 0);
	buf2 = encode(f, &len2);
	ck_assert_ptr_nonnull(memmem(buf2, len2, "LOOMDUP1", 8));
	ck_assert_uint_gt(len2, len);
	/* Everything before the section is the clean stream's. */
	ck_assert_int_eq(memcmp(buf, buf2, len - 8), 0);
	fab_free(f);
	free(buf);
	free(buf2);
}
END_TEST

/* issue 44: the walk's SMP counts reach loomd, an unknown count stays
 * unknown (libibnetdisc's walk: no retries, no losses), a fabric without
 * counts is written as it always was, and a copy (fab_dup) is no sweep. */
START_TEST(walk_smp_counts_cross_the_wire)
{
	struct fab *f = sample(), *g, *c;
	char err[256] = "";
	size_t len, len2;
	char *buf = encode(f, &len), *buf2;

	ck_assert_ptr_null(memmem(buf, len, "LOOMSMP1", 8));
	g = fab_wire_read(buf, len, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert(g->smps.sent == FAB_COUNT_UNKNOWN && g->smps.retries == FAB_COUNT_UNKNOWN &&
		  g->smps.lost == FAB_COUNT_UNKNOWN);
	fab_free(g);
	f->smps.sent = 1234;
	f->smps.retries = 17;
	f->smps.lost = 2;
	buf2 = encode(f, &len2);
	ck_assert_int_eq(memcmp(buf, buf2, len - 8), 0);
	g = fab_wire_read(buf2, len2, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_uint_eq(g->smps.sent, 1234);
	ck_assert_uint_eq(g->smps.retries, 17);
	ck_assert_uint_eq(g->smps.lost, 2);
	ck_assert_uint_eq(g->n_nodes, f->n_nodes);
	c = fab_dup(g);
	ck_assert(c->smps.sent == FAB_COUNT_UNKNOWN);
	fab_free(c);
	fab_free(g);
	/* every cut of the section is refused */
	for (size_t cut = len - 8; cut < len2; cut++)
		ck_assert_ptr_null(fab_wire_read(buf2, cut, err, sizeof(err)));
	free(buf2);
	f->smps.retries = f->smps.lost = FAB_COUNT_UNKNOWN;
	buf2 = encode(f, &len2);
	g = fab_wire_read(buf2, len2, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_uint_eq(g->smps.sent, 1234);
	ck_assert(g->smps.retries == FAB_COUNT_UNKNOWN && g->smps.lost == FAB_COUNT_UNKNOWN);
	fab_free(g);
	fab_free(f);
	free(buf);
	free(buf2);
}
END_TEST

/* A port GUID on two nodes is one duplicate naming both ports; a switch's
 * ports, which share a GUID in real fabrics, are not duplicates. */
/* issue 43: the SMs the walker asked and the ports' keys reach loomd, and
 * fab_dup keeps them (marked as an earlier sweep's). */
START_TEST(subnet_managers_and_keys_cross_the_wire)
{
	struct fab *f = sample(), *g, *c;
	struct fab_sm sm = { .node_guid = CA_A, .port = 1, .answered = 1, .priority = 15,
			     .state = FAB_SM_MASTER, .act_count = 1234, .guid = CA_A + 1 };
	struct fab_sm silent = { .node_guid = CA_B, .port = 1 };
	char err[256] = "";
	size_t len;
	char *buf;

	fab_find(f, CA_A)->ports[1].capmask = FAB_CAP_IS_SM;
	fab_find(f, CA_A)->ports[1].m_key = 0x1122334455667788ULL;
	fab_find(f, CA_A)->ports[1].m_key_protect = 2;
	fab_find(f, CA_A)->ports[1].m_key_lease = 60;
	ck_assert_int_eq(fab_add_sm(f, &sm), 0);
	ck_assert_int_eq(fab_add_sm(f, &silent), 0);
	f->sm_read = FAB_SM_READ;
	buf = encode(f, &len);
	g = fab_wire_read(buf, len, err, sizeof(err));
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_int_eq(g->sm_read, FAB_SM_READ);
	ck_assert_uint_eq(g->n_sms, 2);
	ck_assert_int_eq(memcmp(&g->sms[0], &sm, sizeof(sm)), 0);
	ck_assert_int_eq(g->sms[1].answered, 0);
	ck_assert_uint_eq(fab_find(g, CA_A)->ports[1].m_key, 0x1122334455667788ULL);
	ck_assert_uint_eq(fab_find(g, CA_A)->ports[1].m_key_protect, 2);
	ck_assert_uint_eq(fab_find(g, CA_A)->ports[1].capmask, FAB_CAP_IS_SM);
	c = fab_dup(g);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->sm_read, FAB_SM_COPIED);
	ck_assert_uint_eq(c->n_sms, 2);
	ck_assert_uint_eq(c->sms[0].act_count, 1234);
	for (size_t cut = 0; cut < len; cut += 7)  /* cut short anywhere: refused */
		ck_assert_ptr_null(fab_wire_read(buf, cut, err, sizeof(err)));
	fab_free(c);
	fab_free(g);
	fab_free(f);
	free(buf);
}
END_TEST

START_TEST(a_port_guid_on_two_nodes_is_one_duplicate)
{
	struct fab *f = sample();
	struct fab_node *sw = fab_find(f, SW1);

	for (unsigned p = 1; p <= sw->nports; p++)
		sw->ports[p].guid = sw->ports[0].guid;
	ck_assert_int_eq(fab_find_port_dups(f), 0);
	ck_assert_uint_eq(f->n_dups, 0);

	fab_find(f, CA_B)->ports[1].guid = fab_find(f, CA_A)->ports[1].guid;
	ck_assert_int_eq(fab_find_port_dups(f), 0);
	ck_assert_uint_eq(f->n_dups, 1);
	ck_assert_uint_eq(f->dups[0].is_port, 1);
	ck_assert_uint_eq(f->dups[0].guid, CA_A + 1);
	ck_assert_str_eq(f->dups[0].first, "hostA mlx5_0[1]");
	ck_assert_str_eq(f->dups[0].second, "hostB mlx5_0[1]");
	fab_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fabric_wire");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, round_trip_keeps_every_node_port_and_link);
	tcase_add_test(tc, empty_fabric_round_trips);
	tcase_add_test(tc, every_truncation_is_refused);
	tcase_add_test(tc, foreign_or_inconsistent_streams_are_refused);
	tcase_add_test(tc, duplicate_guids_cross_the_wire);
	tcase_add_test(tc, a_fabric_without_dups_has_no_dup_section);
	tcase_add_test(tc, a_port_guid_on_two_nodes_is_one_duplicate);
	tcase_add_test(tc, subnet_managers_and_keys_cross_the_wire);
	tcase_add_test(tc, walk_smp_counts_cross_the_wire);
	suite_add_tcase(s, tc);
	return check_run(s);
}
