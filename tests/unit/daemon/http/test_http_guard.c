/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/http/test_http_guard.c: the names a loopback listener answers to
 * (daemon/http/http_guard.h, issue 37: DNS rebinding). */
#include "autoconf.h"

#include <check.h>

#include "daemon/http/http_guard.h"
#include "tests/unit/fixtures/check_run.h"

START_TEST(loopback_names_are_taken)
{
	static const char *const ok[] = {
		"localhost", "localhost:9477", "LocalHost", "localhost.", "127.0.0.1",
		"127.0.0.1:9477", "127.255.0.9:1", "[::1]", "[::1]:9477", "[0:0::1]:80",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(http_guard_host_ok(ok[i], "127.0.0.1"), "%s", ok[i]);
}
END_TEST

START_TEST(other_names_are_refused)
{
	static const char *const bad[] = {
		"evil.example", "evil.example:9477", "127.0.0.1.evil.example", "localhost.evil",
		"128.0.0.1", "10.0.0.1:9477", "127.1", "[::2]", "[::1", "[::1]x", "::1",
		"localhost:", "localhost:abc", "localhost:123456", "", ":9477", "0.0.0.0",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!http_guard_host_ok(bad[i], "127.0.0.1"), "%s", bad[i]);
}
END_TEST

START_TEST(the_listeners_own_address_is_taken)
{
	ck_assert(http_guard_host_ok("[::1]:9", "::1"));
	ck_assert(http_guard_host_ok("127.0.0.2:9", "127.0.0.2"));
	ck_assert(!http_guard_host_ok("[::2]", NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("http_guard");
	TCase *tc = tcase_create("http_guard");

	tcase_add_test(tc, loopback_names_are_taken);
	tcase_add_test(tc, other_names_are_refused);
	tcase_add_test(tc, the_listeners_own_address_is_taken);
	suite_add_tcase(s, tc);
	return check_run(s);
}
