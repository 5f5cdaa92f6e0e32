/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/http/test_api_tokens.c: the one authorization table
 * (daemon/core/authz.h), the tokens file (daemon/http/api_tokens.h: its
 * lines, its refusals naming file:line, the file's owner and mode) and the
 * REST API's bodies (daemon/http/api_body.h) and error statuses; issue 37:
 * the tokens' floor, role metrics, the per-address wrong-token budget. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/core/authz.h"
#include "daemon/http/api.h"
#include "daemon/http/api_body.h"
#include "daemon/http/api_rate.h"
#include "daemon/http/api_tokens.h"
#include "lib/util/proto.h"
#include "lib/util/token.h"
#include "tests/unit/fixtures/check_run.h"

#define SLURM "s3cret-slurm-0123456789abcdef0123456789"
#define OPS "s3cret-ops-0123456789abcdef0123456789"

/* "NAME ROLE sha256:HEX" for secret */
static void line_of(const char *name, const char *role, const char *secret, char *out,
		    size_t len)
{
	unsigned char h[TOKEN_HASH_LEN];
	char hex[TOKEN_HASH_HEX];

	ck_assert_int_eq(token_hash(secret, strlen(secret), h), 0);
	token_hash_hex(h, hex);
	snprintf(out, len, "%s %s sha256:%s\n", name, role, hex);
}

START_TEST(the_table_of_roles)
{
	/* read: reads; tenant: reads and tenant changes; admin: all */
	ck_assert(authz_allows(AUTHZ_READ, CTL_READ));
	ck_assert(!authz_allows(AUTHZ_READ, CTL_TENANT));
	ck_assert(!authz_allows(AUTHZ_READ, CTL_WRITE));
	ck_assert(authz_allows(AUTHZ_TENANT, CTL_READ));
	ck_assert(authz_allows(AUTHZ_TENANT, CTL_TENANT));
	ck_assert(!authz_allows(AUTHZ_TENANT, CTL_WRITE));
	ck_assert(authz_allows(AUTHZ_ADMIN, CTL_READ));
	ck_assert(authz_allows(AUTHZ_ADMIN, CTL_TENANT));
	ck_assert(authz_allows(AUTHZ_ADMIN, CTL_WRITE));
}
END_TEST

START_TEST(role_names_round_trip)
{
	enum authz_role r;

	for (int i = AUTHZ_READ; i <= AUTHZ_ADMIN; i++) {
		ck_assert_int_eq(authz_role_parse(authz_role_name((enum authz_role)i), &r), 0);
		ck_assert_int_eq(r, i);
	}
	ck_assert_int_eq(authz_role_parse("root", &r), -EINVAL);
	ck_assert_int_eq(authz_role_parse("Admin", &r), -EINVAL);
}
END_TEST

START_TEST(tokens_find_their_principal)
{
	char text[1024], a[160], b[160];
	struct api_tokens *t = NULL;
	struct authz_principal p;
	char err[256];

	line_of("slurm", "tenant", SLURM, a, sizeof(a));
	line_of("ops", "admin", OPS, b, sizeof(b));
	snprintf(text, sizeof(text), "# tokens\n\n  %s%s\tnode01 read cert\r\n", a, b);
	ck_assert_int_eq(api_tokens_parse(text, strlen(text), "/t", &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(api_tokens_count(t), 3);
	ck_assert_int_eq(api_tokens_by_secret(t, SLURM, strlen(SLURM), &p), 1);
	ck_assert_str_eq(p.name, "slurm");
	ck_assert_str_eq(p.how, "token slurm");
	ck_assert_int_eq(p.role, AUTHZ_TENANT);
	ck_assert_int_eq(p.uid, -1);
	ck_assert_int_eq(api_tokens_by_secret(t, OPS, strlen(OPS), &p), 1);
	ck_assert_int_eq(p.role, AUTHZ_ADMIN);
	/* a prefix, another secret, nothing: unknown */
	ck_assert_int_eq(api_tokens_by_secret(t, OPS, strlen(OPS) - 1, &p), 0);
	ck_assert_int_eq(api_tokens_by_secret(t, "node01", 6, &p), 0);
	ck_assert_int_eq(api_tokens_by_secret(t, "", 0, &p), 0);
	/* a certificate's CN, never as a token */
	ck_assert_int_eq(api_tokens_by_cert(t, "node01", &p), 1);
	ck_assert_str_eq(p.how, "cert node01");
	ck_assert_int_eq(p.role, AUTHZ_READ);
	ck_assert_int_eq(api_tokens_by_cert(t, "slurm", &p), 0);
	api_tokens_free(t);
}
END_TEST

START_TEST(bad_lines_are_refused_naming_file_and_line)
{
	static const struct {
		const char *line;
		const char *why;
	} bad[] = {
		{ "slurm tenant\n", "expected NAME ROLE" },
		{ "slurm tenant sha256:00 extra\n", "expected NAME ROLE" },
		{ "slurm root cert\n", "role \"root\"" },
		{ "sl/urm read cert\n", "the name must be" },
		{ "slurm read sha256:1234\n", "64 hex digits" },
		{ "slurm read md5:0123456789abcdef0123456789abcdef\n", "64 hex digits" },
		{ "slurm read sha256:zz23456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
		  "hex digits" },
	};
	char text[512], err[256];
	struct api_tokens *t = (struct api_tokens *)1;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "# ok\nnode01 read cert\n%s", bad[i].line);
		ck_assert_int_eq(api_tokens_parse(text, strlen(text), "/etc/loom/tokens", &t, err,
						  sizeof(err)), -EINVAL);
		ck_assert_ptr_null(t);
		ck_assert_msg(!strncmp(err, "/etc/loom/tokens:3: ", 20), "%s", err);
		ck_assert_msg(strstr(err, bad[i].why), "%s: %s", bad[i].line, err);
	}
	/* the same name twice (same kind), the same secret twice */
	char a[160], b[160];

	line_of("x", "read", "same-secret-0123456789", a, sizeof(a));
	line_of("y", "admin", "same-secret-0123456789", b, sizeof(b));
	snprintf(text, sizeof(text), "%s%s", a, b);
	ck_assert_int_eq(api_tokens_parse(text, strlen(text), "f", &t, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "f:2: token \"y\" has the hash of token \"x\""), "%s", err);
	snprintf(text, sizeof(text), "n read cert\nn admin cert\n");
	ck_assert_int_eq(api_tokens_parse(text, strlen(text), "f", &t, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "f:2: certificate \"n\" is listed twice"), "%s", err);
}
END_TEST

static char tmpdir[64];

static void file_with(const char *name, const char *text, mode_t mode, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", tmpdir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

START_TEST(the_file_must_be_private)
{
	char path[128], link[160], err[256];
	struct api_tokens *t = NULL;

	ck_assert_ptr_nonnull(mkdtemp(strcpy(tmpdir, "/tmp/loom-tokens.XXXXXX")));
	file_with("tokens", "a read cert\n", 0600, path, sizeof(path));
	ck_assert_int_eq(api_tokens_load(path, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(api_tokens_count(t), 1);
	api_tokens_free(t);
	for (mode_t m = 0604; m; m = m == 0604 ? 0640 : m == 0640 ? 0620 : m == 0620 ? 0602 : 0) {
		file_with("tokens", "a read cert\n", m, path, sizeof(path));
		ck_assert_int_eq(api_tokens_load(path, &t, err, sizeof(err)), -EPERM);
		ck_assert_ptr_null(t);
		ck_assert_msg(strstr(err, path) && strstr(err, "lets group or others"), "%s", err);
	}
	/* a symbolic link, a directory: refused; absent: no tokens */
	file_with("tokens", "a read cert\n", 0600, path, sizeof(path));
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_lt(api_tokens_load(link, &t, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, link), "%s", err);
	ck_assert_int_lt(api_tokens_load(tmpdir, &t, err, sizeof(err)), 0);
	snprintf(link, sizeof(link), "%s/absent", tmpdir);
	ck_assert_int_eq(api_tokens_load(link, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(api_tokens_count(t), 0);
	api_tokens_free(t);
	/* someone else's file (only root can make one here) */
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(api_tokens_load(path, &t, err, sizeof(err)), -EPERM);
		ck_assert_msg(strstr(err, "owned by uid 65534"), "%s", err);
	}
	unlink(path);
	unlink(strcat(strcpy(link, tmpdir), "/link"));
	rmdir(tmpdir);
}
END_TEST

START_TEST(call_bodies)
{
	char cmd[API_CMD_LEN], err[256];
	json_t *args = NULL;
	static const struct {
		const char *body;
		const char *why;
	} bad[] = {
		{ "", "\"cmd\" is required" },
		{ "{", "not valid JSON" },
		{ "[]", "must be a JSON object" },
		{ "{\"cmd\":1}", "field \"cmd\" must be" },
		{ "{\"cmd\":\"\"}", "field \"cmd\" must be" },
		{ "{\"cmd\":\"a\\u0000b\"}", "not valid JSON" },
		{ "{\"cmd\":\"nodes\",\"args\":[]}", "field \"args\" must be an object" },
		{ "{\"cmd\":\"nodes\",\"x\":1}", "unknown field \"x\"" },
		{ "{\"cmd\":\"nodes\",\"cmd\":\"links\"}", "not valid JSON" },
	};

	ck_assert_int_eq(api_body_call("{\"cmd\":\"nodes\",\"args\":{\"type\":\"ca\"}}", 36, cmd,
				       &args, err, sizeof(err)), 0);
	ck_assert_str_eq(cmd, "nodes");
	ck_assert_str_eq(json_string_value(json_object_get(args, "type")), "ca");
	json_decref(args);
	ck_assert_int_eq(api_body_call("{\"cmd\":\"links\",\"args\":null}", 27, cmd, &args, err,
				       sizeof(err)), 0);
	ck_assert(json_is_object(args) && json_object_size(args) == 0);
	json_decref(args);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(api_body_call(bad[i].body, strlen(bad[i].body), cmd, &args, err,
					       sizeof(err)), -EINVAL);
		ck_assert_ptr_null(args);
		ck_assert_msg(strstr(err, bad[i].why), "%s: %s", bad[i].body, err);
	}
}
END_TEST

START_TEST(error_codes_have_their_statuses)
{
	ck_assert_int_eq(api_status(PROTO_ERR_BADREQ), 400);
	ck_assert_int_eq(api_status(PROTO_ERR_VERSION), 400);
	ck_assert_int_eq(api_status(PROTO_ERR_TOO_LARGE), 400);
	ck_assert_int_eq(api_status(PROTO_ERR_DENIED), 403);
	ck_assert_int_eq(api_status(PROTO_ERR_NOTFOUND), 404);
	ck_assert_int_eq(api_status(PROTO_ERR_UNKNOWN), 404);
	ck_assert_int_eq(api_status(PROTO_ERR_FAILED), 409);
	ck_assert_int_eq(api_status(PROTO_ERR_BUSY), 503);
	ck_assert_int_eq(api_status(PROTO_ERR_INTERNAL), 500);
	ck_assert_int_eq(api_status("rate-limited"), 429);
	ck_assert_int_eq(api_status("something-new"), 500);
}
END_TEST

/* The commands that send MADs or switch requests, as their arguments say. */
START_TEST(what_spends_on_the_fabric)
{
	json_t *none = json_object(), *cached = json_pack("{s:b}", "cached", 1),
	       *now = json_pack("{s:b}", "now", 1);

	ck_assert_int_eq(api_rate_spends("ar-status", none), 1);
	ck_assert_int_eq(api_rate_spends("ar-status", cached), 0);
	ck_assert_int_eq(api_rate_spends("route-trace", none), 1);
	ck_assert_int_eq(api_rate_spends("route-trace", cached), 0);
	ck_assert_int_eq(api_rate_spends("counters", none), 0);
	ck_assert_int_eq(api_rate_spends("counters", now), 1);
	ck_assert_int_eq(api_rate_spends("switch_counters", now), 1);
	ck_assert_int_eq(api_rate_spends("qos-status", none), 1);
	ck_assert_int_eq(api_rate_spends("tenant-verify", none), 1);
	ck_assert_int_eq(api_rate_spends("nodes", none), 0);
	ck_assert_int_eq(api_rate_spends("health", now), 0);
	json_decref(none);
	json_decref(cached);
	json_decref(now);
}
END_TEST

/* Once per interval per principal; others are not held up by it; with
 * more principals than slots the oldest is forgotten. */
START_TEST(a_principal_spends_once_per_interval)
{
	static struct api_rate r;
	char who[32];

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(api_rate_take(&r, "grafana", 1000), 0);
	ck_assert_int_eq(api_rate_take(&r, "grafana", 1001), API_RATE_INTERVAL_S - 1);
	ck_assert_int_eq(api_rate_take(&r, "other", 1001), 0);
	ck_assert_int_eq(api_rate_take(&r, "grafana", 1000 + API_RATE_INTERVAL_S - 1), 1);
	ck_assert_int_eq(api_rate_take(&r, "grafana", 1000 + API_RATE_INTERVAL_S), 0);
	for (int i = 0; i < API_RATE_SLOTS; i++) {
		snprintf(who, sizeof(who), "p%d", i);
		ck_assert_int_eq(api_rate_take(&r, who, 2000 + i), 0);
	}
	/* grafana (the oldest) was forgotten: it may again */
	ck_assert_int_eq(api_rate_take(&r, "grafana", 2000 + API_RATE_SLOTS), 0);
	ck_assert_int_gt(api_rate_take(&r, "p63", 2000 + API_RATE_SLOTS), 0);
}
END_TEST

/* Issue 37: a secret under TOKEN_SECRET_MIN bytes, or with a byte no
 * header holds whole, is no token, even when the file lists its hash. */
START_TEST(short_secrets_match_nothing)
{
	static const char *const weak[] = {
		"0123456789abcdef0123456789abcde",        /* 31 bytes */
		"0123456789abcdef 0123456789abcdef",       /* a space */
		"0123456789abcdef\t0123456789abcdef",      /* a control byte */
		"0123456789abcdef\x7f0123456789abcdef",
	};
	char text[256], err[256];
	struct api_tokens *t = NULL;
	struct authz_principal p;

	ck_assert_int_eq(token_secret_check("0123456789abcdef0123456789abcdef", 32), 0);
	ck_assert_int_eq(token_secret_check("0123456789abcdef\0123456789abcdef", 33), -EINVAL);
	for (size_t i = 0; i < sizeof(weak) / sizeof(weak[0]); i++) {
		ck_assert_int_eq(token_secret_check(weak[i], strlen(weak[i])), -EINVAL);
		line_of("weak", "admin", weak[i], text, sizeof(text));
		ck_assert_int_eq(api_tokens_parse(text, strlen(text), "t", &t, err, sizeof(err)), 0);
		ck_assert_int_eq(api_tokens_by_secret(t, weak[i], strlen(weak[i]), &p), 0);
		ck_assert_int_eq(api_tokens_for_metrics(t, weak[i], strlen(weak[i])), 0);
		api_tokens_free(t);
	}
}
END_TEST

/* Role metrics: /metrics only, nothing of the API; any token opens /metrics. */
START_TEST(a_metrics_token_opens_metrics_only)
{
	char text[512], a[160], b[160];
	struct api_tokens *t = NULL;
	struct authz_principal p;

	line_of("prom", "metrics", SLURM, a, sizeof(a));
	line_of("ops", "admin", OPS, b, sizeof(b));
	snprintf(text, sizeof(text), "%s%sprom metrics cert\n", a, b);
	ck_assert_int_eq(api_tokens_parse(text, strlen(text), "t", &t, text, sizeof(text)), 0);
	ck_assert_int_eq(api_tokens_by_secret(t, SLURM, strlen(SLURM), &p), 0);
	ck_assert_int_eq(api_tokens_for_metrics(t, SLURM, strlen(SLURM)), 1);
	ck_assert_int_eq(api_tokens_for_metrics(t, OPS, strlen(OPS)), 1);
	ck_assert_int_eq(api_tokens_by_secret(t, OPS, strlen(OPS), &p), 1);
	ck_assert_int_eq(api_tokens_for_metrics(t, OPS, strlen(OPS) - 1), 0);
	ck_assert_int_eq(api_tokens_by_cert(t, "prom", &p), 0);
	ck_assert_int_eq(api_tokens_cert_for_metrics(t, "prom"), 1);
	ck_assert_int_eq(api_tokens_cert_for_metrics(t, "ops"), 0);
	api_tokens_free(t);
}
END_TEST

/* Wrong credentials: 10 a minute per address, then refused until the
 * minute is over; other addresses are not held up; one log line a
 * minute, counting what it covers. */
START_TEST(wrong_tokens_are_throttled_per_address)
{
	static struct api_fails f;
	unsigned long since = 0;
	char peer[32];

	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(api_fails_note(&f, "10.0.0.1", 1000, &since), 1);
	ck_assert_uint_eq(since, 1);
	for (int i = 1; i < API_FAILS_MAX; i++) {
		ck_assert_int_eq(api_fails_wait(&f, "10.0.0.1", 1000 + i), 0);
		ck_assert_int_eq(api_fails_note(&f, "10.0.0.1", 1000 + i, &since), 0);
	}
	ck_assert_int_eq(api_fails_wait(&f, "10.0.0.1", 1010), API_FAILS_WINDOW_S - 10);
	ck_assert_int_eq(api_fails_wait(&f, "10.0.0.2", 1010), 0);
	ck_assert_int_eq(api_fails_wait(&f, "10.0.0.1", 1000 + API_FAILS_WINDOW_S), 0);
	ck_assert_uint_eq(f.total, API_FAILS_MAX);
	ck_assert_int_eq(api_fails_note(&f, "10.0.0.2", 1000 + API_FAILS_LOG_S, &since), 1);
	ck_assert_uint_eq(since, API_FAILS_MAX);
	/* more addresses than slots: the oldest window is forgotten */
	for (int i = 0; i < API_FAILS_SLOTS; i++) {
		snprintf(peer, sizeof(peer), "10.1.%d.%d", i / 256, i % 256);
		api_fails_note(&f, peer, 2000 + i, &since);
	}
	ck_assert_int_eq(api_fails_wait(&f, "10.0.0.1", 2001), 0);
	ck_assert_uint_eq(f.total, API_FAILS_MAX + 1 + API_FAILS_SLOTS);
	/* an IPv6 host has its /64: one budget */
	api_fails_key("2001:db8:1:2:aaaa::1", peer, sizeof(peer));
	ck_assert_str_eq(peer, "2001:db8:1:2::/64");
	api_fails_key("2001:db8:1:2:bbbb:cccc:dddd:eeee", peer, sizeof(peer));
	ck_assert_str_eq(peer, "2001:db8:1:2::/64");
	api_fails_key("::1", peer, sizeof(peer));
	ck_assert_str_eq(peer, "::/64");
	api_fails_key("10.0.0.1", peer, sizeof(peer));
	ck_assert_str_eq(peer, "10.0.0.1");
	api_fails_key("::ffff:10.0.0.1", peer, sizeof(peer));
	ck_assert_str_eq(peer, "::ffff:10.0.0.1");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api_tokens");
	TCase *tc = tcase_create("api_tokens");

	tcase_add_test(tc, the_table_of_roles);
	tcase_add_test(tc, role_names_round_trip);
	tcase_add_test(tc, tokens_find_their_principal);
	tcase_add_test(tc, bad_lines_are_refused_naming_file_and_line);
	tcase_add_test(tc, the_file_must_be_private);
	tcase_add_test(tc, call_bodies);
	tcase_add_test(tc, error_codes_have_their_statuses);
	tcase_add_test(tc, what_spends_on_the_fabric);
	tcase_add_test(tc, a_principal_spends_once_per_interval);
	tcase_add_test(tc, short_secrets_match_nothing);
	tcase_add_test(tc, a_metrics_token_opens_metrics_only);
	tcase_add_test(tc, wrong_tokens_are_throttled_per_address);
	suite_add_tcase(s, tc);
	return check_run(s);
}
