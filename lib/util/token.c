/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/token.c: see token.h. */
#include "autoconf.h"
#include "lib/util/token.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

int token_hash(const char *secret, size_t len, unsigned char hash[TOKEN_HASH_LEN])
{
	unsigned int n = 0;

	if (!EVP_Digest(secret, len, hash, &n, EVP_sha256(), NULL) || n != TOKEN_HASH_LEN)
		return -EIO;
	return 0;
}

int token_secret_check(const char *secret, size_t len)
{
	if (len < TOKEN_SECRET_MIN || len > TOKEN_SECRET_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)secret[i] <= 0x20 || (unsigned char)secret[i] >= 0x7f)
			return -EINVAL;
	return 0;
}

void token_hash_hex(const unsigned char hash[TOKEN_HASH_LEN], char hex[TOKEN_HASH_HEX])
{
	for (size_t i = 0; i < TOKEN_HASH_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", hash[i]);
}

int token_generate(char *out, size_t len)
{
	unsigned char raw[32];
	size_t got = 0;

	if (len < 5 + 2 * sizeof(raw) + 1)
		return -ENOSPC;
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += (size_t)n;
	}
	memcpy(out, "loom_", 5);
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 5 + 2 * i, 3, "%02x", raw[i]);
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

int token_hash_equal(const unsigned char a[TOKEN_HASH_LEN], const unsigned char b[TOKEN_HASH_LEN])
{
	return CRYPTO_memcmp(a, b, TOKEN_HASH_LEN) == 0;
}
