/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_config_writable.c: `loomd -n -u USER`'s judgement of
 * whether USER could write a path (daemon/core/config_writable.h): owner,
 * group and other bits as the kernel picks them, supplementary groups,
 * every directory from / searchable, the nearest existing directory of a
 * path loomd creates, in-place writes, sticky directories, root; and the
 * warnings for a whole configuration, with and without the unit's rules.
 * The users are made up (uids no file here has), so the test means the
 * same as root or not. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/core/config.h"
#include "daemon/core/config_parse.h"
#include "daemon/core/config_writable.h"
#include "daemon/loomd.h"
#include "tests/unit/fixtures/check_run.h"
#include "tests/unit/fixtures/fixture_config.h"

static char top[PATH_MAX];
static uid_t owner_uid;
static gid_t owner_gid;
static char why[4096];

/* A directory or file under top with this mode, owned by 4242:4343 when
 * the test runs as root (so that no made-up user is its owner by chance),
 * else by the test's user. */
static const char *make(const char *name, int dir, mode_t mode)
{
	static char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	if (dir)
		ck_assert_int_eq(mkdir(path, 0700), 0);
	else
		ck_assert_int_ge(close(open(path, O_CREAT | O_WRONLY, 0600)), 0);
	if (geteuid() == 0)
		ck_assert_int_eq(chown(path, 4242, 4343), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	owner_uid = st.st_uid;
	owner_gid = st.st_gid;
	return path;
}

static struct cfg_user user(const char *name, uid_t uid, gid_t gid, gid_t extra)
{
	struct cfg_user u = { .uid = uid, .gid = gid, .n_groups = 2 };

	snprintf(u.name, sizeof(u.name), "%s", name);
	u.groups[0] = gid;
	u.groups[1] = extra;
	return u;
}

/* Made-up users: the owner of the last made file, a member of its group
 * (through a supplementary group) and someone else. */
#define OWNER user("owner", owner_uid, 88888, 88888)
#define MEMBER user("member", 77777, 88888, owner_gid)
#define OTHER user("other", 77777, 88888, 88889)

static void setup(void)
{
	snprintf(top, sizeof(top), "/tmp/loom-writable.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(top));
	ck_assert_int_eq(chmod(top, 0755), 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

static int may(struct cfg_user u, const char *name, int how)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", top, name);
	why[0] = '\0';
	return cfg_user_may_write(&u, path, how, why, sizeof(why));
}

START_TEST(group_write_lets_a_supplementary_member_create_files_and_not_others)
{
	make("d", 1, 0775);
	ck_assert_int_eq(may(MEMBER, "d/topology.conf", CFG_WRITE_REPLACE), 0);
	ck_assert_int_eq(may(OWNER, "d/topology.conf", CFG_WRITE_REPLACE), 0);
	ck_assert_int_eq(may(OTHER, "d/topology.conf", CFG_WRITE_REPLACE), -EACCES);
	ck_assert_msg(strstr(why, "user other cannot create files in directory") &&
		      strstr(why, "/d (") && strstr(why, " 0775)"), "why: %s", why);
}
END_TEST

START_TEST(the_owner_class_decides_for_the_owner_even_when_the_group_may)
{
	make("d", 1, 0570);
	ck_assert_int_eq(may(OWNER, "d/f", CFG_WRITE_REPLACE), -EACCES);
	ck_assert_int_eq(may(MEMBER, "d/f", CFG_WRITE_REPLACE), 0);
}
END_TEST

START_TEST(a_missing_path_is_judged_at_its_nearest_existing_directory)
{
	make("d", 1, 0770);
	ck_assert_int_eq(may(MEMBER, "d/a/b/loomd.sock", CFG_WRITE_REPLACE), 0);
	ck_assert_int_eq(chmod(make("e", 1, 0750), 0750), 0);
	ck_assert_int_eq(may(MEMBER, "e/a/b/loomd.sock", CFG_WRITE_REPLACE), -EACCES);
	ck_assert_msg(strstr(why, "/e (") != NULL, "why names the wrong directory: %s", why);
}
END_TEST

START_TEST(every_directory_above_must_be_searchable)
{
	make("d", 1, 0700);
	make("d/open", 1, 0777);
	ck_assert_int_eq(may(OTHER, "d/open/f", CFG_WRITE_REPLACE), -EACCES);
	ck_assert_msg(strstr(why, "cannot enter directory") && strstr(why, "/d ("), "why: %s", why);
}
END_TEST

START_TEST(a_file_written_in_place_needs_its_own_write_bit)
{
	make("d", 1, 0770);
	make("d/loom.db", 0, 0640);
	ck_assert_int_eq(may(MEMBER, "d/loom.db", CFG_WRITE_REPLACE), 0);
	ck_assert_int_eq(may(MEMBER, "d/loom.db", CFG_WRITE_IN_PLACE), -EACCES);
	ck_assert_msg(strstr(why, "cannot write") && strstr(why, "loom.db"), "why: %s", why);
	ck_assert_int_eq(may(OWNER, "d/loom.db", CFG_WRITE_IN_PLACE), 0);
}
END_TEST

START_TEST(a_sticky_directory_keeps_others_from_replacing_a_file)
{
	make("t", 1, 01777);
	make("t/partitions.conf", 0, 0666);
	ck_assert_int_eq(may(OTHER, "t/partitions.conf", CFG_WRITE_REPLACE), -EACCES);
	ck_assert_msg(strstr(why, "sticky") != NULL, "why: %s", why);
	ck_assert_int_eq(may(OTHER, "t/new.conf", CFG_WRITE_REPLACE), 0);
	ck_assert_int_eq(may(OWNER, "t/partitions.conf", CFG_WRITE_REPLACE), 0);
}
END_TEST

START_TEST(root_passes_the_mode_checks)
{
	make("d", 1, 0);
	ck_assert_int_eq(may(user("root", 0, 0, 0), "d/loom.db", CFG_WRITE_IN_PLACE), 0);
}
END_TEST

START_TEST(users_are_looked_up_with_their_groups_or_refused)
{
	struct cfg_user u;
	char e[256];

	ck_assert_int_eq(cfg_user_lookup("root", &u, e, sizeof(e)), 0);
	ck_assert_int_eq(u.uid, 0);
	ck_assert_int_ge(u.n_groups, 1);
	ck_assert_int_eq(u.groups[0], 0);
	ck_assert_int_eq(cfg_user_lookup("0", &u, e, sizeof(e)), 0);
	ck_assert_str_eq(u.name, "root");
	ck_assert_int_eq(cfg_user_lookup("no-such-user-loom", &u, e, sizeof(e)), -ENOENT);
	ck_assert_msg(strstr(e, "no-such-user-loom") != NULL, "err: %s", e);
	ck_assert_int_eq(cfg_user_lookup(NULL, &u, e, sizeof(e)), 0);
	ck_assert_int_eq(u.uid, geteuid());
}
END_TEST

/* The warnings for a configuration, into a string. */
static char *warnings(const char *yaml, struct cfg_user u, int unit, int *n)
{
	static struct loom_config c;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	config_defaults(&c);
	loaded(yaml, &c);
	*n = config_warn_unwritable(&c, &u, unit, out);
	fclose(out);
	return text;
}

START_TEST(the_check_names_each_written_path_the_user_cannot_write)
{
	char yaml[4 * PATH_MAX];
	char *out;
	int n;

	make("state", 1, 0750);
	make("slurm", 1, 0775);
	snprintf(yaml, sizeof(yaml),
		 "database:\n  path: %s/state/loom.db\n"
		 "control:\n  socket: %s/state/run/loomd.sock\n"
		 "opensm:\n  report_socket: %s/state/osm.sock\n"
		 "tenants:\n  partitions_file: %s/state/partitions.conf\n"
		 "slurm:\n  topology_file: %s/slurm/topology.conf\n"
		 "ib_qos:\n  opensm_config: %s/slurm/opensm.conf\n", top, top, top, top, top, top);
	/* Only the group's members may write in slurm/; nobody but the owner in state/. */
	out = warnings(yaml, MEMBER, 0, &n);
	ck_assert_msg(n == 4, "%d warnings:\n%s", n, out);
	ck_assert_msg(strstr(out, "loomd: warning: database.path: ") &&
		      strstr(out, "loomd: warning: control.socket: ") &&
		      strstr(out, "loomd: warning: opensm.report_socket: ") &&
		      strstr(out, "loomd: warning: tenants.partitions_file: ") &&
		      !strstr(out, "slurm.topology_file") && !strstr(out, "ib_qos"), "%s", out);
	free(out);
	out = warnings(yaml, OTHER, 0, &n);
	ck_assert_msg(n == 6 && strstr(out, "slurm.topology_file") &&
		      strstr(out, "ib_qos.opensm_config"), "%d warnings:\n%s", n, out);
	free(out);
	out = warnings(yaml, OWNER, 0, &n);
	ck_assert_msg(n == 0, "%d warnings:\n%s", n, out);
	free(out);
}
END_TEST

START_TEST(for_the_unit_only_its_own_directories_are_writable)
{
	char yaml[2 * PATH_MAX];
	char *out;
	int n;

	make("slurm", 1, 0777);
	/* The defaults: the database, sockets and partitions under
	 * /var/lib/loom and /run/loom (systemd's, given to User=); one
	 * topology file elsewhere, writable, but read-only under the unit. */
	snprintf(yaml, sizeof(yaml), "slurm:\n  topology_file: %s/slurm/topology.conf\n", top);
	out = warnings(yaml, OTHER, 1, &n);
	ck_assert_msg(n == 1 && strstr(out, "slurm.topology_file") &&
		      strstr(out, "loomd.service lets loomd write only under /var/lib/loom and "
			     "/run/loom"), "%d warnings:\n%s", n, out);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config_writable");
	TCase *tc = tcase_create("writable");

	if (loomd_config_init() < 0)  /* every module's section of loom.yaml */
		return EXIT_FAILURE;
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, group_write_lets_a_supplementary_member_create_files_and_not_others);
	tcase_add_test(tc, the_owner_class_decides_for_the_owner_even_when_the_group_may);
	tcase_add_test(tc, a_missing_path_is_judged_at_its_nearest_existing_directory);
	tcase_add_test(tc, every_directory_above_must_be_searchable);
	tcase_add_test(tc, a_file_written_in_place_needs_its_own_write_bit);
	tcase_add_test(tc, a_sticky_directory_keeps_others_from_replacing_a_file);
	tcase_add_test(tc, root_passes_the_mode_checks);
	tcase_add_test(tc, users_are_looked_up_with_their_groups_or_refused);
	tcase_add_test(tc, the_check_names_each_written_path_the_user_cannot_write);
	tcase_add_test(tc, for_the_unit_only_its_own_directories_are_writable);
	suite_add_tcase(s, tc);
	return check_run(s);
}
