/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/etcd/test_etcd.c: etcd's v3 JSON gateway (lib/etcd/). Without a
 * server: base64, the request bodies as etcd 3.4's gateway takes them, the
 * answers (int64 as strings, empty fields left out), etcd's errors, the
 * endpoint list. With LOOM_ETCD_ENDPOINTS set (tests/integration/
 * etcd_client.sh starts a real 3-member cluster and runs this binary), the
 * same calls against it: put/range/delete, a txn's compares and branches,
 * leases, failover to the next endpoint, and (LOOM_ETCD_USER,
 * LOOM_ETCD_PASSWORD) authentication. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/etcd/etcd.h"
#include "tests/unit/fixtures/check_run.h"

static char *body_text(json_t *j)
{
	static char buf[4096];
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

	ck_assert_ptr_nonnull(s);
	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	return buf;
}

START_TEST(base64_round_trips_every_length_and_binary)
{
	static const struct {
		const char *in, *out;
	} known[] = { { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		      { "foob", "Zm9vYg==" }, { "/loom/c/leader", "L2xvb20vYy9sZWFkZXI=" } };
	unsigned char bin[256];

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		char *e = etcd_b64_encode(known[i].in, strlen(known[i].in)), *d;
		size_t n;

		ck_assert_str_eq(e, known[i].out);
		ck_assert_int_eq(etcd_b64_decode(e, strlen(e), &d, &n), 0);
		ck_assert_uint_eq(n, strlen(known[i].in));
		ck_assert_str_eq(d, known[i].in);
		free(e);
		free(d);
	}
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(255 - i);
	for (size_t len = 0; len <= sizeof(bin); len += 37) {
		char *e = etcd_b64_encode(bin, len), *d;
		size_t n;

		ck_assert_int_eq(etcd_b64_decode(e, strlen(e), &d, &n), 0);
		ck_assert_uint_eq(n, len);
		ck_assert(memcmp(d, bin, len) == 0);
		free(e);
		free(d);
	}
}
END_TEST

START_TEST(bad_base64_is_refused)
{
	static const char *bad[] = { "Zg=", "Z===", "Zm9v!A==", "Z=9v", "Zm9vY===" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *d = (char *)1;
		size_t n = 7;

		ck_assert_msg(etcd_b64_decode(bad[i], strlen(bad[i]), &d, &n) == -EINVAL, "%s",
			      bad[i]);
		ck_assert_ptr_null(d);
	}
}
END_TEST

START_TEST(a_prefix_range_ends_after_the_last_key_with_it)
{
	char *e = etcd_prefix_end("/loom/c/");

	ck_assert_str_eq(e, "/loom/c0");
	free(e);
	e = etcd_prefix_end("a\xff");
	ck_assert_str_eq(e, "b");
	free(e);
	e = etcd_prefix_end("");
	ck_assert_str_eq(e, "");
	free(e);
}
END_TEST

START_TEST(requests_are_what_the_gateway_takes)
{
	json_t *j = etcd_put_body("foo", "bar", 3, 991251619137153542LL);

	ck_assert_str_eq(body_text(j),
			 "{\"key\":\"Zm9v\",\"lease\":\"991251619137153542\",\"value\":\"YmFy\"}");
	json_decref(j);
	j = etcd_put_body("foo", "", 0, 0);
	ck_assert_str_eq(body_text(j), "{\"key\":\"Zm9v\",\"value\":\"\"}");
	json_decref(j);
	j = etcd_range_body("/a/", "/a0", 1);
	ck_assert_str_eq(body_text(j), "{\"key\":\"L2Ev\",\"range_end\":\"L2Ew\",\"serializable\":true}");
	json_decref(j);
	j = etcd_grant_body(5);
	ck_assert_str_eq(body_text(j), "{\"TTL\":\"5\"}");
	json_decref(j);
	j = etcd_lease_body(42);
	ck_assert_str_eq(body_text(j), "{\"ID\":\"42\"}");
	json_decref(j);
}
END_TEST

START_TEST(a_txn_holds_its_compares_and_both_branches)
{
	struct etcd_txn *t = etcd_txn_new();

	ck_assert_int_eq(etcd_txn_compare(t, "k", ETCD_CREATE, ETCD_EQUAL, 0), 0);
	ck_assert_int_eq(etcd_txn_compare(t, "k", ETCD_LEASE, ETCD_NOT_EQUAL, 7), 0);
	ck_assert_int_eq(etcd_txn_compare_value(t, "v", ETCD_GREATER, "x", 1), 0);
	ck_assert_int_eq(etcd_txn_put(t, ETCD_THEN, "k", "1", 1, 7), 0);
	ck_assert_int_eq(etcd_txn_delete(t, ETCD_THEN, "d/", "d0"), 0);
	ck_assert_int_eq(etcd_txn_range(t, ETCD_ELSE, "k", NULL), 0);
	ck_assert_str_eq(body_text(etcd_txn_body(t)),
			 "{\"compare\":["
			 "{\"create_revision\":\"0\",\"key\":\"aw==\",\"result\":\"EQUAL\",\"target\":\"CREATE\"},"
			 "{\"key\":\"aw==\",\"lease\":\"7\",\"result\":\"NOT_EQUAL\",\"target\":\"LEASE\"},"
			 "{\"key\":\"dg==\",\"result\":\"GREATER\",\"target\":\"VALUE\",\"value\":\"eA==\"}],"
			 "\"failure\":[{\"request_range\":{\"key\":\"aw==\"}}],"
			 "\"success\":[{\"request_put\":{\"key\":\"aw==\",\"lease\":\"7\",\"value\":\"MQ==\"}},"
			 "{\"request_delete_range\":{\"key\":\"ZC8=\",\"range_end\":\"ZDA=\"}}]}");
	etcd_txn_free(t);
}
END_TEST

/* Answers as etcd 3.4.23's gateway wrote them (tests by hand, issue 21). */
START_TEST(answers_decode_with_int64_strings_and_missing_fields)
{
	const char *range = "{\"header\":{\"cluster_id\":\"14567899295270495089\",\"member_id\":"
			    "\"354996225397780974\",\"revision\":\"2\",\"raft_term\":\"2\"},\"kvs\":"
			    "[{\"key\":\"Zm9v\",\"create_revision\":\"2\",\"mod_revision\":\"2\","
			    "\"version\":\"1\",\"value\":\"YmFy\"},{\"key\":\"Zm9w\","
			    "\"create_revision\":\"3\",\"mod_revision\":\"4\",\"version\":\"2\","
			    "\"lease\":\"991251619137153542\"}],\"count\":\"2\"}";
	const char *txn = "{\"header\":{\"revision\":\"2\"},\"responses\":[{\"response_range\":"
			  "{\"header\":{\"revision\":\"2\"},\"kvs\":[{\"key\":\"Zm9v\","
			  "\"create_revision\":\"2\",\"mod_revision\":\"2\",\"version\":\"1\","
			  "\"value\":\"YmFy\"}],\"count\":\"1\"}}]}";
	const char *grant = "{\"header\":{\"revision\":\"2\"},\"ID\":\"991251619137153542\","
			    "\"TTL\":\"5\"}";
	json_t *j = json_loads(range, 0, NULL);
	struct etcd_kvs kvs;
	int64_t id, ttl;
	char err[256];
	int ok = 7;

	ck_assert_int_eq(etcd_range_decode(j, &kvs, err, sizeof(err)), 0);
	ck_assert_uint_eq(kvs.n, 2);
	ck_assert_int_eq(kvs.revision, 2);
	ck_assert_str_eq(kvs.kv[0].key, "foo");
	ck_assert_str_eq(kvs.kv[0].value, "bar");
	ck_assert_int_eq(kvs.kv[0].lease, 0);
	ck_assert_str_eq(kvs.kv[1].key, "fop");
	ck_assert_uint_eq(kvs.kv[1].value_len, 0);  /* "value" left out: empty */
	ck_assert_int_eq(kvs.kv[1].mod_revision, 4);
	ck_assert_int_eq(kvs.kv[1].lease, 991251619137153542LL);
	etcd_kvs_clear(&kvs);
	json_decref(j);

	j = json_loads(txn, 0, NULL);  /* "succeeded" left out: false */
	ck_assert_int_eq(etcd_txn_decode(j, &ok, &kvs, err, sizeof(err)), 0);
	ck_assert_int_eq(ok, 0);
	ck_assert_uint_eq(kvs.n, 1);
	ck_assert_str_eq(kvs.kv[0].value, "bar");
	etcd_kvs_clear(&kvs);
	json_decref(j);

	j = json_loads(grant, 0, NULL);
	ck_assert_int_eq(etcd_grant_decode(j, &id, &ttl, err, sizeof(err)), 0);
	ck_assert_int_eq(id, 991251619137153542LL);
	ck_assert_int_eq(ttl, 5);
	json_decref(j);

	/* keepalive: a stream message; a lease that is gone has no TTL */
	j = json_loads("{\"result\":{\"header\":{},\"ID\":\"123\",\"TTL\":\"5\"}}", 0, NULL);
	ck_assert_int_eq(etcd_keepalive_decode(j, &ttl, err, sizeof(err)), 0);
	ck_assert_int_eq(ttl, 5);
	json_decref(j);
	j = json_loads("{\"result\":{\"header\":{},\"ID\":\"123\"}}", 0, NULL);
	ck_assert_int_eq(etcd_keepalive_decode(j, &ttl, err, sizeof(err)), -ENOENT);
	json_decref(j);
}
END_TEST

START_TEST(bad_answers_are_refused_not_half_read)
{
	static const char *bad[] = {
		"{\"kvs\":{}}", "{\"kvs\":[{\"key\":\"!!!!\"}]}",
		"{\"kvs\":[{\"key\":\"Zm9v\",\"version\":\"x\"}]}",
		"{\"header\":{\"revision\":true}}",
		"{\"kvs\":[{\"key\":\"Zm9v\"},{\"key\":\"AA==\"}]}", /* a key with a NUL */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i], 0, NULL);
		struct etcd_kvs kvs;
		char err[256] = "";

		ck_assert_ptr_nonnull(j);
		ck_assert_msg(etcd_range_decode(j, &kvs, err, sizeof(err)) == -EINVAL, "%s", bad[i]);
		ck_assert_uint_eq(kvs.n, 0);
		ck_assert_ptr_null(kvs.kv);
		ck_assert(err[0]);
		json_decref(j);
	}
}
END_TEST

START_TEST(etcd_errors_give_their_text_and_code)
{
	const char *e1 = "{\"error\":\"etcdserver: authentication is not enabled\",\"message\":"
			 "\"etcdserver: authentication is not enabled\",\"code\":9}";
	const char *e2 = "{\"error\":{\"grpc_code\":5,\"http_code\":404,\"message\":"
			 "\"etcdserver: requested lease not found\",\"http_status\":\"Not Found\"}}";
	char out[256];
	int code;

	ck_assert_int_eq(etcd_error_text(e1, strlen(e1), out, sizeof(out), &code), 1);
	ck_assert_str_eq(out, "etcdserver: authentication is not enabled");
	ck_assert_int_eq(code, 9);
	ck_assert_int_eq(etcd_code_errno(code), -EINVAL);
	ck_assert_int_eq(etcd_error_text(e2, strlen(e2), out, sizeof(out), &code), 1);
	ck_assert_str_eq(out, "etcdserver: requested lease not found");
	ck_assert_int_eq(code, 5);
	ck_assert_int_eq(etcd_code_errno(code), -ENOENT);
	ck_assert_int_eq(etcd_error_text("bad gateway\nmore", 16, out, sizeof(out), &code), 0);
	ck_assert_str_eq(out, "bad gateway");
	ck_assert_int_eq(code, -1);
}
END_TEST

START_TEST(endpoints_are_checked_before_any_request)
{
	static const char *bad[] = { "", "127.0.0.1:2379", "ftp://a:1", "http://a", "http://a:x",
				     "http://u@a:1", "http://a:1/v3", "http://:1" };
	struct etcd_conf c = { .timeout_ms = 100 };
	struct etcd *e;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c.endpoints = bad[i];
		err[0] = '\0';
		ck_assert_msg(etcd_new(&c, err, sizeof(err)) == NULL, "%s", bad[i]);
		ck_assert(err[0]);
	}
	c.endpoints = "http://127.0.0.1:1, https://[::1]:2379/,http://a.b:2";
	e = etcd_new(&c, err, sizeof(err));
	ck_assert_msg(e != NULL, "%s", err);
	ck_assert_str_eq(etcd_endpoint(e), "http://127.0.0.1:1");
	etcd_free(e);
	c.endpoints = "http://127.0.0.1:1";
	c.cert = "/etc/ssl/c.pem";
	ck_assert_ptr_null(etcd_new(&c, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "key"));
}
END_TEST

/* Nothing listens on a port we bound and closed: the error names it. */
START_TEST(an_unreachable_endpoint_is_named_in_the_error)
{
	struct etcd_conf c = { .endpoints = "http://127.0.0.1:1,http://127.0.0.1:2",
			       .timeout_ms = 500 };
	char err[512];
	struct etcd *e = etcd_new(&c, err, sizeof(err));
	struct etcd_kvs kvs;

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(etcd_range(e, "k", NULL, 0, &kvs, err, sizeof(err)), -ECONNREFUSED);
	/* both were tried; the last one's error is reported */
	ck_assert_msg(strstr(err, "http://127.0.0.1:2/v3/kv/range") != NULL, "%s", err);
	etcd_free(e);
}
END_TEST

/* ---- against a real cluster (LOOM_ETCD_ENDPOINTS) ------------------------------------ */

static struct etcd *live(const char *endpoints)
{
	struct etcd_conf c = { .endpoints = endpoints, .timeout_ms = 2000,
			       .user = getenv("LOOM_ETCD_USER"),
			       .password = getenv("LOOM_ETCD_PASSWORD") };
	char err[256];
	struct etcd *e = etcd_new(&c, err, sizeof(err));

	ck_assert_msg(e != NULL, "%s", err);
	return e;
}

START_TEST(live_kv_put_range_delete)
{
	struct etcd *e = live(getenv("LOOM_ETCD_ENDPOINTS"));
	struct etcd_kvs kvs;
	int64_t deleted;
	char err[512];
	char *end = etcd_prefix_end("/t/kv/");

	ck_assert_msg(etcd_put(e, "/t/kv/a", "1", 1, 0, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(etcd_put(e, "/t/kv/b", "two\0bytes", 9, 0, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(etcd_range(e, "/t/kv/", end, 0, &kvs, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(kvs.n, 2);
	ck_assert_str_eq(kvs.kv[0].key, "/t/kv/a");
	ck_assert_uint_eq(kvs.kv[1].value_len, 9);
	ck_assert(memcmp(kvs.kv[1].value, "two\0bytes", 9) == 0);
	ck_assert_int_gt(kvs.kv[1].create_revision, 0);
	etcd_kvs_clear(&kvs);
	ck_assert_msg(etcd_delete(e, "/t/kv/", end, &deleted, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(deleted, 2);
	ck_assert_int_eq(etcd_range(e, "/t/kv/a", NULL, 1, &kvs, err, sizeof(err)), 0);
	ck_assert_uint_eq(kvs.n, 0);
	free(end);
	etcd_free(e);
}
END_TEST

START_TEST(live_txn_creates_a_key_once_and_reads_it_else)
{
	struct etcd *e = live(getenv("LOOM_ETCD_ENDPOINTS"));
	struct etcd_kvs kvs;
	int64_t lease, ttl;
	char err[512];
	int ok;

	(void)etcd_delete(e, "/t/leader", NULL, NULL, err, sizeof(err));
	ck_assert_msg(etcd_lease_grant(e, 5, &lease, &ttl, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(ttl, 5);
	for (int round = 0; round < 2; round++) {
		struct etcd_txn *t = etcd_txn_new();
		char me[32];

		snprintf(me, sizeof(me), "node-%d", round);
		etcd_txn_compare(t, "/t/leader", ETCD_CREATE, ETCD_EQUAL, 0);
		etcd_txn_put(t, ETCD_THEN, "/t/leader", me, strlen(me), lease);
		etcd_txn_range(t, ETCD_ELSE, "/t/leader", NULL);
		ck_assert_msg(etcd_txn(e, t, &ok, &kvs, err, sizeof(err)) == 0, "%s", err);
		/* the first creates it; the second finds the first's */
		ck_assert_int_eq(ok, round == 0);
		ck_assert_uint_eq(kvs.n, round == 0 ? 0 : 1);
		if (round == 1) {
			ck_assert_str_eq(kvs.kv[0].value, "node-0");
			ck_assert_int_eq(kvs.kv[0].lease, lease);
		}
		etcd_kvs_clear(&kvs);
		etcd_txn_free(t);
	}
	ck_assert_msg(etcd_lease_keepalive(e, lease, &ttl, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(ttl, 5);
	/* revoking the lease deletes the key it holds */
	ck_assert_msg(etcd_lease_revoke(e, lease, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(etcd_range(e, "/t/leader", NULL, 0, &kvs, err, sizeof(err)), 0);
	ck_assert_uint_eq(kvs.n, 0);
	ck_assert_int_eq(etcd_lease_keepalive(e, lease, &ttl, err, sizeof(err)), -ENOENT);
	etcd_free(e);
}
END_TEST

START_TEST(live_a_lease_not_kept_alive_expires_with_its_key)
{
	struct etcd *e = live(getenv("LOOM_ETCD_ENDPOINTS"));
	struct etcd_kvs kvs;
	int64_t lease, ttl;
	char err[512];

	ck_assert_msg(etcd_lease_grant(e, 2, &lease, &ttl, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(etcd_put(e, "/t/eph", "x", 1, lease, err, sizeof(err)), 0);
	sleep(4);
	ck_assert_int_eq(etcd_range(e, "/t/eph", NULL, 0, &kvs, err, sizeof(err)), 0);
	ck_assert_uint_eq(kvs.n, 0);
	ck_assert_int_eq(etcd_lease_keepalive(e, lease, &ttl, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(etcd_lease_revoke(e, lease, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "lease not found") != NULL, "%s", err);
	etcd_free(e);
}
END_TEST

/* A dead endpoint first in the list: the call goes on to the next. */
START_TEST(live_a_dead_endpoint_is_skipped)
{
	char eps[1024];
	struct etcd *e;
	char err[512];

	snprintf(eps, sizeof(eps), "http://127.0.0.1:1,%s", getenv("LOOM_ETCD_ENDPOINTS"));
	e = live(eps);
	ck_assert_msg(etcd_put(e, "/t/skip", "1", 1, 0, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_ne(etcd_endpoint(e), "http://127.0.0.1:1");
	etcd_free(e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("etcd");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, base64_round_trips_every_length_and_binary);
	tcase_add_test(tc, bad_base64_is_refused);
	tcase_add_test(tc, a_prefix_range_ends_after_the_last_key_with_it);
	tcase_add_test(tc, requests_are_what_the_gateway_takes);
	tcase_add_test(tc, a_txn_holds_its_compares_and_both_branches);
	tcase_add_test(tc, answers_decode_with_int64_strings_and_missing_fields);
	tcase_add_test(tc, bad_answers_are_refused_not_half_read);
	tcase_add_test(tc, etcd_errors_give_their_text_and_code);
	tcase_add_test(tc, endpoints_are_checked_before_any_request);
	tcase_add_test(tc, an_unreachable_endpoint_is_named_in_the_error);
	suite_add_tcase(s, tc);
	if (getenv("LOOM_ETCD_ENDPOINTS")) {
		TCase *lv = tcase_create("live");

		tcase_set_timeout(lv, 30);
		tcase_add_test(lv, live_kv_put_range_delete);
		tcase_add_test(lv, live_txn_creates_a_key_once_and_reads_it_else);
		tcase_add_test(lv, live_a_lease_not_kept_alive_expires_with_its_key);
		tcase_add_test(lv, live_a_dead_endpoint_is_skipped);
		suite_add_tcase(s, lv);
	}
	return check_run(s);
}
