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

/* The SHA-256 of secret[0..len) into hash. 0, or -EIO (libcrypto failed). */
int token_hash(const char *secret, size_t len, unsigned char hash[TOKEN_HASH_LEN]);
/* Its lowercase hex into hex. */
void token_hash_hex(const unsigned char hash[TOKEN_HASH_LEN], char hex[TOKEN_HASH_HEX]);
/* A new random secret (getrandom, 32 bytes) as "loom_" and 64 hex digits
 * into out (at least 70 bytes). 0 or -errno. */
int token_generate(char *out, size_t len);
/* Are a and b equal, in a time that does not depend on where they differ? */
int token_hash_equal(const unsigned char a[TOKEN_HASH_LEN], const unsigned char b[TOKEN_HASH_LEN]);

#endif
