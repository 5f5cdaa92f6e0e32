/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/tls.c: TLS for loomd's HTTP listener (issue 20), with
 * libevent's OpenSSL bufferevents.
 *
 * One SSL_CTX serves every listener (http.tls is one for the section).
 * It is made from http.tls.cert/key (and client_ca) at the config check,
 * to refuse a bad file by its name, and again by http_new/http_reconfigure;
 * a connection's SSL holds a reference to the context it was made from, so
 * a reload swaps the context for new connections while open ones go on
 * with the old one until they close.
 *
 * The rules: TLS 1.2 and later; for TLS 1.2, the suites of
 * http.tls.ciphers, by default those with forward secrecy and an AEAD
 * cipher only (ECDHE or DHE, AES-GCM or ChaCha20-Poly1305: no static RSA
 * key exchange, no CBC with SHA-1; TLS 1.3's suites all have both and are
 * OpenSSL's defaults), DHE with OpenSSL's own groups sized to the key;
 * OpenSSL's default security level (2 on Debian: no RSA keys under 2048
 * bits, no SHA-1 signatures); no renegotiation; no compression; a key
 * with a passphrase is refused (loomd runs unattended, nobody answers a
 * prompt). A client certificate is asked for only when client_ca is set;
 * one that is presented must verify (expired, another CA: the handshake
 * fails), even when client_cert is optional. */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/http.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "daemon/http/config_http.h"
#include "daemon/http/http_impl.h"

/* OpenSSL's last error, as text (or what, when it has none). */
static const char *ssl_why(char *buf, size_t len, const char *what)
{
	unsigned long e = ERR_peek_last_error();

	if (!e)
		return what;
	ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

/* A file that cannot be opened says why in errno's words, before OpenSSL's
 * less plain ones. */
static int readable(const char *key, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (f) {
		fclose(f);
		return 0;
	}
	snprintf(err, errlen, "%s: cannot read %s: %s", key, path, strerror(errno));
	return -1;
}

static int no_passphrase(char *buf, int size, int rwflag, void *arg)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)arg;
	return -1;
}

int http_tls_ciphers_check(const char *list, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	char why[256];
	int rc = 0;

	if (!ctx) {
		snprintf(err, errlen, "cannot make a TLS context: out of memory");
		return -ENOMEM;
	}
	ERR_clear_error();
	if (SSL_CTX_set_cipher_list(ctx, list) != 1) {
		snprintf(err, errlen, "\"%s\" names no cipher suite OpenSSL knows (%s)", list,
			 ssl_why(why, sizeof(why), "no match"));
		rc = -EINVAL;
	}
	SSL_CTX_free(ctx);
	ERR_clear_error();
	return rc;
}

SSL_CTX *http_tls_ctx_new(const struct http_conf *c, char *err, size_t errlen)
{
	SSL_CTX *ctx;
	char why[256];

	if (readable("http.tls.cert", c->http_tls_cert, err, errlen) < 0 ||
	    readable("http.tls.key", c->http_tls_key, err, errlen) < 0 ||
	    (c->http_tls_client_ca[0] &&
	     readable("http.tls.client_ca", c->http_tls_client_ca, err, errlen) < 0))
		return NULL;
	ERR_clear_error();
	if (!(ctx = SSL_CTX_new(TLS_server_method()))) {
		snprintf(err, errlen, "cannot make a TLS context: %s",
			 ssl_why(why, sizeof(why), "out of memory"));
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
			    SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_IGNORE_UNEXPECTED_EOF);
	SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
	/* TLS 1.2's suites (1.3's are OpenSSL's, all with forward secrecy). */
	if (SSL_CTX_set_cipher_list(ctx, c->http_tls_ciphers[0] ? c->http_tls_ciphers :
				    LOOM_HTTP_TLS_CIPHERS) != 1) {
		snprintf(err, errlen, "http.tls.ciphers: \"%s\" names no cipher suite OpenSSL "
			 "knows: %s", c->http_tls_ciphers, ssl_why(why, sizeof(why), "no match"));
		goto fail;
	}
	SSL_CTX_set_dh_auto(ctx, 1);
	/* Sessions resumed with a client certificate need an id context. */
	SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"loomd", 5);
	if (SSL_CTX_use_certificate_chain_file(ctx, c->http_tls_cert) != 1) {
		snprintf(err, errlen, "http.tls.cert: %s is no PEM certificate loomd can use: %s",
			 c->http_tls_cert, ssl_why(why, sizeof(why), "unknown error"));
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, c->http_tls_key, SSL_FILETYPE_PEM) != 1 &&
	    ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
		snprintf(err, errlen, "http.tls.key: %s does not match the certificate %s",
			 c->http_tls_key, c->http_tls_cert);
		goto fail;
	}
	if (!SSL_CTX_get0_privatekey(ctx)) {
		snprintf(err, errlen, "http.tls.key: %s is no PEM private key loomd can use "
			 "(one with a passphrase is not): %s", c->http_tls_key,
			 ssl_why(why, sizeof(why), "unknown error"));
		goto fail;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		snprintf(err, errlen, "http.tls.key: %s does not match the certificate %s",
			 c->http_tls_key, c->http_tls_cert);
		goto fail;
	}
	if (c->http_tls_client_ca[0]) {
		STACK_OF(X509_NAME) *names;

		if (SSL_CTX_load_verify_locations(ctx, c->http_tls_client_ca, NULL) != 1 ||
		    !(names = SSL_load_client_CA_file(c->http_tls_client_ca))) {
			snprintf(err, errlen, "http.tls.client_ca: %s holds no PEM certificate: %s",
				 c->http_tls_client_ca, ssl_why(why, sizeof(why), "empty"));
			goto fail;
		}
		SSL_CTX_set_client_CA_list(ctx, names);
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | (c->http_tls_client_required ?
							   SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
				   NULL);
	}
	ERR_clear_error();
	return ctx;
fail:
	SSL_CTX_free(ctx);
	ERR_clear_error();
	return NULL;
}

void http_tls_ctx_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);   /* NULL is fine; open connections keep their reference */
}

int http_tls_check(const struct http_conf *c, char *err, size_t errlen)
{
	SSL_CTX *ctx = http_tls_ctx_new(c, err, errlen);

	if (!ctx)
		return -EINVAL;
	SSL_CTX_free(ctx);
	return 0;
}

struct bufferevent *http_tls_bev_new(struct event_base *base, SSL_CTX *ctx)
{
	struct bufferevent *bev;
	SSL *ssl = SSL_new(ctx);

	if (!ssl)
		return NULL;
	/* CLOSE_ON_FREE also frees the SSL. evhttp sets the socket later. */
	if (!(bev = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
						   BEV_OPT_CLOSE_ON_FREE))) {
		SSL_free(ssl);
		return NULL;
	}
	/* A client that closes without close_notify is an end of file, as
	 * for plain HTTP, not an error. */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

int http_tls_hello_seen(struct bufferevent *bev)
{
	SSL *ssl = bev ? bufferevent_openssl_get_ssl(bev) : NULL;

	return !ssl || SSL_get_state(ssl) != TLS_ST_BEFORE;
}

int http_tls_request_is_tls(struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;

	return bev && bufferevent_openssl_get_ssl(bev) != NULL;
}

int http_tls_peer_name(struct evhttp_request *req, char *out, size_t len)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	SSL *ssl = bev ? bufferevent_openssl_get_ssl(bev) : NULL;
	X509 *cert;
	X509_NAME *name;
	unsigned char *utf8 = NULL;
	int i, n, rc = -ENOENT;

	if (!ssl || !(cert = SSL_get1_peer_certificate(ssl)))
		return -ENOENT;
	if (SSL_get_verify_result(ssl) != X509_V_OK || !(name = X509_get_subject_name(cert)))
		goto out;
	/* Exactly one CN: a name with two has no one meaning. */
	if ((i = X509_NAME_get_index_by_NID(name, NID_commonName, -1)) < 0 ||
	    X509_NAME_get_index_by_NID(name, NID_commonName, i) >= 0)
		goto out;
	n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i)));
	rc = -EINVAL;
	if (n <= 0 || memchr(utf8, '\0', (size_t)n))
		goto out;
	rc = -ENAMETOOLONG;
	if ((size_t)n >= len)
		goto out;
	memcpy(out, utf8, (size_t)n);
	out[n] = '\0';
	rc = 0;
out:
	OPENSSL_free(utf8);
	X509_free(cert);
	return rc;
}

int http_tls_error(struct evhttp_connection *evcon, char *out, size_t len)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(evcon);
	unsigned long e;
	size_t n = 0;

	if (!bev || !bufferevent_openssl_get_ssl(bev) || !len)
		return 0;
	out[0] = '\0';
	/* libevent queues SSL_get_error()'s code (a small number: 1 protocol,
	 * 5 system call), then OpenSSL's own errors. */
	while ((e = bufferevent_get_openssl_error(bev)) && n + 1 < len) {
		char one[160];

		if (e < 16)
			snprintf(one, sizeof(one), "%s", e == SSL_ERROR_SSL ? "protocol error" :
				 e == SSL_ERROR_SYSCALL ? "connection lost" : "error");
		else
			ERR_error_string_n(e, one, sizeof(one));
		n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "; " : "", one);
	}
	return out[0] != '\0';
}
