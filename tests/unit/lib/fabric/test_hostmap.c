/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/fabric/test_hostmap.c: which host a CA port is, and who may say so
 * (lib/fabric/hostmap.c, tenants.host_identity). */
#include "autoconf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fabric/hostmap.h"
#include "tests/unit/fixtures/check_run.h"

/* A host map file of `text` (unlinked at exit of the test process). */
static const char *map_file(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_hostmap.XXXXXX");
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	fputs(text, f);
	fclose(f);
	return path;
}

static void load(struct hostmap *hm, const char *map_text)
{
	char err[256] = "";
	const char *path = map_text ? map_file(map_text) : "";

	ck_assert_msg(hostmap_load(hm, HOSTMAP_DEFAULT_PATTERN, path, err, sizeof(err)) == 0,
		      "%s", err);
	if (path[0])
		unlink(path);
}

START_TEST(identity_names_parse_and_print_back)
{
	int id = -1;

	ck_assert_int_eq(hostmap_identity_parse("map", &id), 0);
	ck_assert_int_eq(id, HOSTMAP_ID_MAP);
	ck_assert_str_eq(hostmap_identity_name(id), "map");
	ck_assert_int_eq(hostmap_identity_parse("description", &id), 0);
	ck_assert_int_eq(id, HOSTMAP_ID_DESCRIPTION);
	ck_assert_str_eq(hostmap_identity_name(id), "description");
	ck_assert_int_lt(hostmap_identity_parse("Map", &id), 0);
	ck_assert_int_lt(hostmap_identity_parse("", &id), 0);
}
END_TEST

/* Under map a description names nobody: the port maps to no host, and its
 * claim is told apart so that the caller can report it. */
START_TEST(map_gives_only_the_maps_ports_and_reports_the_claims)
{
	struct hostmap hm;
	char host[64], claim[64];

	load(&hm, "n1 0x0000000000000011\n");
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_MAP, 0x11, "n1 mlx5_0", host,
					 sizeof(host), claim, sizeof(claim)), 2);
	ck_assert_str_eq(host, "n1");
	ck_assert_str_eq(claim, "n1");
	/* an impostor describing itself as n1's second rail */
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_MAP, 0x99, "n1 mlx5_9", host,
					 sizeof(host), claim, sizeof(claim)), 0);
	ck_assert_str_eq(claim, "n1");
	/* a host the map does not name is nobody's under map */
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_MAP, 0x22, "n2 mlx5_0", host,
					 sizeof(host), claim, sizeof(claim)), 0);
	ck_assert_str_eq(claim, "n2");
	/* the map's port described as another host: the map's host, the claim differs */
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_MAP, 0x11, "n7", host, sizeof(host),
					 claim, sizeof(claim)), 2);
	ck_assert_str_eq(host, "n1");
	ck_assert_str_eq(claim, "n7");
	hostmap_clear(&hm);
}
END_TEST

/* description: the map's hosts keep only the map's ports; the others are
 * found by their descriptions. */
START_TEST(description_finds_unmapped_hosts_but_never_a_mapped_one)
{
	struct hostmap hm;
	char host[64], claim[64];

	load(&hm, "n1 0x0000000000000011\n");
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_DESCRIPTION, 0x22, "n2 mlx5_0", host,
					 sizeof(host), claim, sizeof(claim)), 1);
	ck_assert_str_eq(host, "n2");
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_DESCRIPTION, 0x99, "n1 mlx5_9", host,
					 sizeof(host), claim, sizeof(claim)), 0);
	ck_assert_str_eq(claim, "n1");
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_DESCRIPTION, 0x33, "", host,
					 sizeof(host), claim, sizeof(claim)), 0);
	ck_assert_str_eq(claim, "");
	hostmap_clear(&hm);
	/* no map at all: descriptions only */
	load(&hm, NULL);
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_DESCRIPTION, 0x99, "n1 mlx5_9", host,
					 sizeof(host), NULL, 0), 1);
	ck_assert_str_eq(host, "n1");
	ck_assert_int_eq(hostmap_host_as(&hm, HOSTMAP_ID_MAP, 0x99, "n1 mlx5_9", host,
					 sizeof(host), NULL, 0), 0);
	hostmap_clear(&hm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostmap");
	TCase *tc = tcase_create("hostmap");

	tcase_add_test(tc, identity_names_parse_and_print_back);
	tcase_add_test(tc, map_gives_only_the_maps_ports_and_reports_the_claims);
	tcase_add_test(tc, description_finds_unmapped_hosts_but_never_a_mapped_one);
	suite_add_tcase(s, tc);
	return check_run(s);
}
