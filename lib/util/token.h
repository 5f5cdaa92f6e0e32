/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/token.h: the secrets of the HTTP API's bearer tokens (issue 20),
 * shared by loomd (which keeps only their hashes, daemon/http/api_tokens.h)
 * and loomctl (which makes the lines of the tokens file: `token hash`).
 * SHA-256 is OpenSSL's libcrypto. */
#ifndef LOOM_TOKEN_H
#define LOOM_TOKEN_H

#include <stddef.h>

#define TOKEN_HASH_LEN 32                       /* SHA-256 */
#define TOKEN_HASH_HEX (2 * TOKEN_HASH_LEN + 1) /* its hex, with the NUL */
#define TOKEN_SECRET_MAX 256                    /* a secret's bytes at most */
/* A secret's bytes at least (issue 37). loomctl makes 32 random bytes as
 * 69 characters; a secret of one's own (--stdin) of 32 characters is 128
 * bits as hex (openssl rand -hex 16), 192 as base64: a guess per request
 * (at most 10 a minute per address: api_rate.h) never gets there. */
#define TOKEN_SECRET_MIN 32

/* The SHA-256 of secret[0..len) into hash. 0, or -EIO (libcrypto failed). */
int token_hash(const char *secret, size_t len, unsigned char hash[TOKEN_HASH_LEN]);
/* Can secret[0..len) be a bearer token: TOKEN_SECRET_MIN to
 * TOKEN_SECRET_MAX bytes, each visible ASCII (no space, no control byte,
 * no NUL: an HTTP header holds it whole)? 0, or -EINVAL. */
int token_secret_check(const char *secret, size_t len);
/* Its lowercase hex into hex. */
void token_hash_hex(const unsigned char hash[TOKEN_HASH_LEN], char hex[TOKEN_HASH_HEX]);
/* A new random secret (getrandom, 32 bytes) as "loom_" and 64 hex digits
 * into out (at least 70 bytes). 0 or -errno. */
int token_generate(char *out, size_t len);
/* Are a and b equal, in a time that does not depend on where they differ? */
int token_hash_equal(const unsigned char a[TOKEN_HASH_LEN], const unsigned char b[TOKEN_HASH_LEN]);

#endif
