/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/http/test_http_tls.c: http_tls_peer_name() (daemon/http/tls.c),
 * the name the API's authentication maps to a role: the HTTP module runs
 * on a loop of the test's with TLS and a client CA, a route of the test's
 * own answers what the function says for the request, and a client on
 * the same loop (libevent's OpenSSL bufferevent) asks with a certificate
 * of the CA (its CN), without one (-ENOENT), over plain HTTP to a module
 * without TLS (-ENOENT), and into a buffer too short (-ENAMETOOLONG).
 * The certificates (EC P-256) are made here with OpenSSL, in a temporary
 * directory.
 *
 * Issue 37: TLS 1.2 suites without forward secrecy or with CBC and SHA-1
 * are refused, an ECDHE AES-GCM one taken; answers over TLS carry
 * Strict-Transport-Security, plain ones do not; a nonsense cipher list is
 * refused; at http.max_connections a new connection closes the oldest
 * one that sent no request (the next one still open), a TLS one stalled
 * before its whole ClientHello before an older one loomd answered, and a
 * connection whose request is under way is never closed for a new one:
 * the new one waits until that answer is sent, then closes the idle
 * keep-alive. */
#include "autoconf.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "daemon/core/config.h"
#include "daemon/http/http.h"
#include "daemon/http/http_impl.h"
#include "daemon/loomd.h"
#include "tests/unit/fixtures/check_run.h"
#include "daemon/http/config_http.h"

static char dir[] = "/tmp/test_http_tls.XXXXXX";
static char path_buf[8][PATH_MAX];
static int n_paths;

static const char *path(const char *name)
{
	char *p = path_buf[n_paths++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

/* ---- a test PKI ------------------------------------------------------------------ */

/* Made before the tests run, where check's asserts cannot report. */
#define NEED(x) do { if (!(x)) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, \
					 __LINE__, #x); abort(); } } while (0)

struct pair {
	EVP_PKEY *key;
	X509 *cert;
};

/* A certificate for cn, signed by ca (self-signed when NULL). */
static struct pair make_cert(const char *cn, const struct pair *ca, int is_ca)
{
	struct pair p = { EVP_EC_gen("P-256"), X509_new() };
	X509_NAME *name = X509_NAME_new();
	X509V3_CTX v3;
	X509_EXTENSION *ext;

	NEED(p.key);
	X509_set_version(p.cert, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(p.cert), (long)(n_paths + 1000 + rand() % 1000));
	X509_gmtime_adj(X509_getm_notBefore(p.cert), -3600);
	X509_gmtime_adj(X509_getm_notAfter(p.cert), 86400);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_set_subject_name(p.cert, name);
	X509_set_issuer_name(p.cert, ca ? X509_get_subject_name(ca->cert) : name);
	X509_set_pubkey(p.cert, p.key);
	X509V3_set_ctx(&v3, ca ? ca->cert : p.cert, p.cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints,
				  is_ca ? "critical,CA:TRUE" : "CA:FALSE");
	X509_add_ext(p.cert, ext, -1);
	X509_EXTENSION_free(ext);
	if (!is_ca) {
		ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, "IP:127.0.0.1");
		X509_add_ext(p.cert, ext, -1);
		X509_EXTENSION_free(ext);
	}
	NEED(X509_sign(p.cert, ca ? ca->key : p.key, EVP_sha256()) > 0);
	X509_NAME_free(name);
	return p;
}

static void write_pair(const struct pair *p, const char *crt, const char *key)
{
	FILE *f = fopen(path(crt), "w");

	NEED(f);
	PEM_write_X509(f, p->cert);
	fclose(f);
	NEED(f = fopen(path(key), "w"));
	PEM_write_PrivateKey(f, p->key, NULL, NULL, 0, NULL, NULL);
	fclose(f);
}

static void free_pair(struct pair *p)
{
	EVP_PKEY_free(p->key);
	X509_free(p->cert);
}

static void make_pki(void)
{
	struct pair ca, srv, alice, longname;

	NEED(mkdtemp(dir));
	ca = make_cert("test ca", NULL, 1);
	srv = make_cert("127.0.0.1", &ca, 0);
	alice = make_cert("alice", &ca, 0);
	longname = make_cert("a-client-name-longer-than-sixteen", &ca, 0);
	write_pair(&ca, "ca.crt", "ca.key");
	write_pair(&srv, "srv.crt", "srv.key");
	write_pair(&alice, "alice.crt", "alice.key");
	write_pair(&longname, "long.crt", "long.key");
	free_pair(&ca);
	free_pair(&srv);
	free_pair(&alice);
	free_pair(&longname);
}

static void remove_pki(void)
{
	const char *names[] = { "ca.crt", "ca.key", "srv.crt", "srv.key", "alice.crt",
				"alice.key", "long.crt", "long.key" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(path(names[i]));
	rmdir(dir);
}

/* ---- loomd's side ------------------------------------------------------------------ */

static struct event_base *base;
static int max_conns;               /* http.max_connections for start(); 0: default */
static const char *client_ciphers;  /* ask(): TLS 1.2 with these suites; NULL: any */
static struct evhttp_request *held; /* /hold's request, not answered yet */

/* The route under test: what http_tls_peer_name says, into a buffer of
 * (size_t)arg bytes. */
static void on_whoami(struct evhttp_request *req, void *arg)
{
	char name[128];
	int rc = http_tls_peer_name(req, name, (size_t)arg);

	if (rc == 0)
		http_reply_text(req, HTTP_OK, "OK", "name=%s", name);
	else
		http_reply_text(req, HTTP_OK, "OK", "rc=%d", rc);
}

static unsigned free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
	close(s);
	return ntohs(a.sin_port);
}

/* A request whose answer is under way (until release_held()). */
static void on_hold(struct evhttp_request *req, void *arg)
{
	(void)arg;
	held = req;
}

static void release_held(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (held)
		http_reply_text(held, HTTP_OK, "OK", "held");
	held = NULL;
}

static struct http_mod *start(int tls, unsigned *port)
{
	static struct loom_config c;
	struct http_conf *h;
	struct http_mod *m;
	char err[PATH_MAX + 256];

	config_defaults(&c);
	h = config_section_edit(&c, &http_config);
	*port = free_port();
	h->http_n_listen = 1;
	if (max_conns)
		h->http_max_connections = max_conns;
	snprintf(h->http_listen[0], sizeof(h->http_listen[0]), "127.0.0.1:%u", *port);
	if (tls) {
		snprintf(h->http_tls_cert, sizeof(h->http_tls_cert), "%s", path("srv.crt"));
		snprintf(h->http_tls_key, sizeof(h->http_tls_key), "%s", path("srv.key"));
		snprintf(h->http_tls_client_ca, sizeof(h->http_tls_client_ca), "%s", path("ca.crt"));
	}
	m = http_new(base, h, err, sizeof(err));
	ck_assert_msg(m != NULL, "http_new: %s", err);
	ck_assert_int_eq(http_route(m, "/whoami", HTTP_M_GET, on_whoami, (void *)(size_t)128), 0);
	ck_assert_int_eq(http_route(m, "/short", HTTP_M_GET, on_whoami, (void *)(size_t)16), 0);
	ck_assert_int_eq(http_route(m, "/hold", HTTP_M_GET, on_hold, NULL), 0);
	return m;
}

/* ---- the client, on the same loop ---------------------------------------------------- */

struct answer {
	int code;
	char body[256];
	char hsts[64];      /* its Strict-Transport-Security */
};

static void on_answer(struct evhttp_request *req, void *arg)
{
	struct answer *a = arg;

	if (req) {
		struct evbuffer *b = evhttp_request_get_input_buffer(req);
		size_t n = evbuffer_get_length(b);
		const char *h = evhttp_find_header(evhttp_request_get_input_headers(req),
						   "Strict-Transport-Security");

		snprintf(a->hsts, sizeof(a->hsts), "%s", h ? h : "");

		a->code = evhttp_request_get_response_code(req);
		if (n >= sizeof(a->body))
			n = sizeof(a->body) - 1;
		evbuffer_remove(b, a->body, n);
		a->body[n] = '\0';
		a->body[strcspn(a->body, "\n")] = '\0';
	}
	event_base_loopexit(base, NULL);
}

/* GET uri over TLS (with client certificate `who`, or none when NULL) or
 * plain HTTP (tls 0): the answer's body. */
static struct answer ask(unsigned port, int tls, const char *who, const char *uri)
{
	struct answer a = { 0, "", "" };
	struct timeval limit = { 10, 0 };
	SSL_CTX *ctx = NULL;
	struct bufferevent *bev;
	struct evhttp_connection *evcon;
	struct evhttp_request *req;

	if (tls) {
		ck_assert_ptr_nonnull(ctx = SSL_CTX_new(TLS_client_method()));
		ck_assert_int_eq(SSL_CTX_load_verify_locations(ctx, path("ca.crt"), NULL), 1);
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		if (client_ciphers) {
			SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
			ck_assert_int_eq(SSL_CTX_set_cipher_list(ctx, client_ciphers), 1);
		}
		if (who) {
			char crt[64], key[64];

			snprintf(crt, sizeof(crt), "%s.crt", who);
			snprintf(key, sizeof(key), "%s.key", who);
			ck_assert_int_eq(SSL_CTX_use_certificate_file(ctx, path(crt),
								      SSL_FILETYPE_PEM), 1);
			ck_assert_int_eq(SSL_CTX_use_PrivateKey_file(ctx, path(key),
								     SSL_FILETYPE_PEM), 1);
		}
		bev = bufferevent_openssl_socket_new(base, -1, SSL_new(ctx),
						     BUFFEREVENT_SSL_CONNECTING,
						     BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
		bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	} else {
		bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	}
	ck_assert_ptr_nonnull(bev);
	evcon = evhttp_connection_base_bufferevent_new(base, NULL, bev, "127.0.0.1",
						       (unsigned short)port);
	ck_assert_ptr_nonnull(evcon);
	ck_assert_ptr_nonnull(req = evhttp_request_new(on_answer, &a));
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host", "127.0.0.1");
	ck_assert_int_eq(evhttp_make_request(evcon, req, EVHTTP_REQ_GET, uri), 0);
	event_base_loopexit(base, &limit);
	event_base_dispatch(base);
	evhttp_connection_free(evcon);
	SSL_CTX_free(ctx);
	return a;
}

/* ---- the tests ------------------------------------------------------------------------- */

START_TEST(a_verified_client_certificate_gives_its_cn)
{
	unsigned port;
	struct http_mod *m = start(1, &port);
	struct answer a = ask(port, 1, "alice", "/whoami");

	ck_assert_int_eq(a.code, 200);
	ck_assert_str_eq(a.body, "name=alice");
	http_free(m);
}
END_TEST

START_TEST(no_client_certificate_is_enoent)
{
	unsigned port;
	struct http_mod *m = start(1, &port);
	struct answer a = ask(port, 1, NULL, "/whoami");
	char want[32];

	snprintf(want, sizeof(want), "rc=%d", -ENOENT);
	ck_assert_int_eq(a.code, 200);
	ck_assert_str_eq(a.body, want);
	http_free(m);
}
END_TEST

START_TEST(plain_http_is_enoent)
{
	unsigned port;
	struct http_mod *m = start(0, &port);
	struct answer a = ask(port, 0, NULL, "/whoami");
	char want[32];

	snprintf(want, sizeof(want), "rc=%d", -ENOENT);
	ck_assert_int_eq(a.code, 200);
	ck_assert_str_eq(a.body, want);
	http_free(m);
}
END_TEST

START_TEST(a_cn_longer_than_the_buffer_is_refused_not_cut)
{
	unsigned port;
	struct http_mod *m = start(1, &port);
	struct answer a = ask(port, 1, "long", "/short");
	char want[32];

	snprintf(want, sizeof(want), "rc=%d", -ENAMETOOLONG);
	ck_assert_str_eq(a.body, want);
	a = ask(port, 1, "long", "/whoami");
	ck_assert_str_eq(a.body, "name=a-client-name-longer-than-sixteen");
	http_free(m);
}
END_TEST

START_TEST(tls12_takes_forward_secret_aead_suites_only)
{
	unsigned port;
	struct http_mod *m = start(1, &port);
	struct answer a;
	char err[256];

	client_ciphers = "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA";   /* CBC, SHA-1 */
	a = ask(port, 1, NULL, "/whoami");
	ck_assert_int_eq(a.code, 0);
	client_ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256";
	a = ask(port, 1, NULL, "/whoami");
	ck_assert_int_eq(a.code, 200);
	client_ciphers = NULL;
	ck_assert_int_eq(http_tls_ciphers_check(LOOM_HTTP_TLS_CIPHERS, err, sizeof(err)), 0);
	ck_assert_int_eq(http_tls_ciphers_check("NO-SUCH-SUITE", err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "names no cipher suite"));
	http_free(m);
}
END_TEST

START_TEST(tls_answers_carry_hsts_plain_ones_do_not)
{
	unsigned port;
	struct http_mod *m = start(1, &port);
	struct answer a = ask(port, 1, NULL, "/whoami");

	ck_assert_int_eq(a.code, 200);
	ck_assert_str_eq(a.hsts, "max-age=31536000");
	a = ask(port, 1, NULL, "/nowhere");
	ck_assert_int_eq(a.code, 404);
	ck_assert_str_eq(a.hsts, "max-age=31536000");
	http_free(m);
	m = start(0, &port);
	a = ask(port, 0, NULL, "/whoami");
	ck_assert_int_eq(a.code, 200);
	ck_assert_str_eq(a.hsts, "");
	http_free(m);
}
END_TEST

static int raw_connect(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	return s;
}

/* 1: loomd closed it; 0: still open (what it sent is read and dropped). */
static int raw_closed(int s)
{
	char buf[4096];
	ssize_t n;

	while ((n = recv(s, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		;
	return n == 0;
}

static void run_for_ms(int ms)
{
	struct timeval tv = { 0, ms * 1000 };

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

START_TEST(a_full_table_closes_the_oldest_connection_without_a_request)
{
	unsigned port;
	struct http_mod *m;
	struct answer a;
	int s1, s2;

	max_conns = 2;
	m = start(0, &port);
	s1 = raw_connect(port);
	run_for_ms(50);
	s2 = raw_connect(port);
	ck_assert_int_eq(send(s2, "GET /who", 8, 0), 8);     /* a request, not whole */
	run_for_ms(50);
	a = ask(port, 0, NULL, "/whoami");
	ck_assert_int_eq(a.code, 200);
	ck_assert_int_eq(raw_closed(s1), 1);
	ck_assert_int_eq(raw_closed(s2), 0);
	close(s1);
	close(s2);
	http_free(m);
	max_conns = 0;
}
END_TEST

START_TEST(a_stalled_handshake_is_closed_before_an_older_one_that_progressed)
{
	unsigned port;
	struct http_mod *m;
	struct answer a;
	SSL_CTX *cctx;
	SSL *ssl;
	int s1, s2;

	max_conns = 2;
	m = start(1, &port);
	/* The older: a whole ClientHello (loomd answers it), then silence. */
	s2 = raw_connect(port);
	ck_assert_ptr_nonnull(cctx = SSL_CTX_new(TLS_client_method()));
	ck_assert_ptr_nonnull(ssl = SSL_new(cctx));
	SSL_set_fd(ssl, s2);
	ck_assert_int_eq(fcntl(s2, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(SSL_connect(ssl), -1);
	run_for_ms(50);
	/* The newer: nothing. */
	s1 = raw_connect(port);
	run_for_ms(50);
	a = ask(port, 1, NULL, "/whoami");
	ck_assert_int_eq(a.code, 200);
	ck_assert_int_eq(raw_closed(s1), 1);
	ck_assert_int_eq(raw_closed(s2), 0);
	SSL_free(ssl);
	SSL_CTX_free(cctx);
	close(s1);
	close(s2);
	http_free(m);
	max_conns = 0;
}
END_TEST

static void on_held_answer(struct evhttp_request *req, void *arg)
{
	struct answer *a = arg;

	a->code = req ? evhttp_request_get_response_code(req) : -1;
}

START_TEST(a_request_under_way_is_never_closed_for_a_new_connection)
{
	unsigned port;
	struct http_mod *m;
	struct answer first = { 0, "", "" }, second;
	struct evhttp_connection *evcon;
	struct evhttp_request *req;
	struct timeval later = { 0, 300000 };

	max_conns = 1;
	m = start(0, &port);
	ck_assert_ptr_nonnull(evcon = evhttp_connection_base_new(base, NULL, "127.0.0.1",
								 (unsigned short)port));
	ck_assert_ptr_nonnull(req = evhttp_request_new(on_held_answer, &first));
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host", "127.0.0.1");
	ck_assert_int_eq(evhttp_make_request(evcon, req, EVHTTP_REQ_GET, "/hold"), 0);
	run_for_ms(100);
	ck_assert_ptr_nonnull(held);
	/* The only slot is busy: the new connection waits for its answer (then
	 * closes the idle keep-alive), it does not cut it. */
	event_base_once(base, -1, EV_TIMEOUT, release_held, NULL, &later);
	second = ask(port, 0, NULL, "/whoami");
	run_for_ms(100);
	ck_assert_int_eq(first.code, 200);
	ck_assert_int_eq(second.code, 200);
	evhttp_connection_free(evcon);
	http_free(m);
	max_conns = 0;
}
END_TEST

static void setup(void)
{
	ck_assert_ptr_nonnull(base = event_base_new());
}

static void teardown(void)
{
	event_base_free(base);
}

int main(void)
{
	Suite *s = suite_create("http_tls");
	TCase *tc = tcase_create("peer_name");
	int rc;

	signal(SIGPIPE, SIG_IGN);   /* as loomd: a closed peer is an error, not a death */
	if (loomd_config_init() < 0)
		return EXIT_FAILURE;
	make_pki();
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, a_verified_client_certificate_gives_its_cn);
	tcase_add_test(tc, no_client_certificate_is_enoent);
	tcase_add_test(tc, plain_http_is_enoent);
	tcase_add_test(tc, a_cn_longer_than_the_buffer_is_refused_not_cut);
	tcase_add_test(tc, tls12_takes_forward_secret_aead_suites_only);
	tcase_add_test(tc, tls_answers_carry_hsts_plain_ones_do_not);
	tcase_add_test(tc, a_full_table_closes_the_oldest_connection_without_a_request);
	tcase_add_test(tc, a_request_under_way_is_never_closed_for_a_new_connection);
	tcase_add_test(tc, a_stalled_handshake_is_closed_before_an_older_one_that_progressed);
	suite_add_tcase(s, tc);
	rc = check_run(s);
	remove_pki();
	return rc;
}
