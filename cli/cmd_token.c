/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_token.c: loomctl token hash NAME ROLE [--stdin]: a line of loomd's
 * tokens file (http.tokens_file, docs/api.md). The token itself is made
 * here from getrandom and shown once, on stderr, so that stdout can go
 * straight into the file; or it is read from stdin (its first line). Only
 * its SHA-256 is in the line: the file does not hold the secret. A token
 * of one's own must pass token_secret_check (lib/util/token.h: 32 to 256
 * visible ASCII characters), as loomd checks each token sent: the file
 * cannot say how long a secret was. ROLE metrics makes a token for
 * /metrics alone (http.metrics_auth). */
#include "autoconf.h"
#include "loomctl.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lib/util/token.h"

static int role_ok(const char *r)
{
	return !strcmp(r, "read") || !strcmp(r, "tenant") || !strcmp(r, "admin") ||
	       !strcmp(r, "metrics");
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < 64 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789._@-") == n;
}

int cmd_token(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = { { "stdin", no_argument, NULL, 'i' },
					      { NULL, 0, NULL, 0 } };
	char secret[TOKEN_SECRET_MAX + 2], hex[TOKEN_HASH_HEX];
	unsigned char h[TOKEN_HASH_LEN];
	int c, from_stdin = 0;
	size_t n;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'i')
			return loomctl_usage_hint();
		from_stdin = 1;
	}
	if (argc - optind != 3 || strcmp(argv[optind], "hash"))
		return loomctl_usage_error(lc, "token", "expected: token hash NAME ROLE [--stdin]");
	if (!name_ok(argv[optind + 1]))
		return loomctl_usage_error(lc, "token", "the name must be 1-63 of A-Z a-z 0-9 . _ "
					   "@ -");
	if (!role_ok(argv[optind + 2]))
		return loomctl_usage_error(lc, "token", "role \"%s\": expected read, tenant, "
					   "admin or metrics", argv[optind + 2]);
	if (from_stdin) {
		if (!fgets(secret, sizeof(secret), stdin))
			secret[0] = '\0';
		n = strcspn(secret, "\r\n");
		secret[n] = '\0';
		if (token_secret_check(secret, n) < 0) {
			loomctl_error(lc, "the token on stdin must be %d to %d visible ASCII "
				      "characters on one line (no space, no control byte)",
				      TOKEN_SECRET_MIN, TOKEN_SECRET_MAX);
			memset(secret, 0, sizeof(secret));
			return LOOMCTL_EXIT_FAILED;
		}
	} else if (token_generate(secret, sizeof(secret)) < 0) {
		loomctl_error(lc, "cannot make a random token");
		return LOOMCTL_EXIT_FAILED;
	}
	if (token_hash(secret, strlen(secret), h) < 0) {
		loomctl_error(lc, "cannot hash the token (libcrypto)");
		return LOOMCTL_EXIT_FAILED;
	}
	token_hash_hex(h, hex);
	if (!from_stdin)
		fprintf(stderr, "token for %s (shown once, keep it secret): %s\n",
			argv[optind + 1], secret);
	printf("%s %s sha256:%s\n", argv[optind + 1], argv[optind + 2], hex);
	memset(secret, 0, sizeof(secret));
	return fflush(stdout) == 0 ? LOOMCTL_EXIT_OK : LOOMCTL_EXIT_FAILED;
}
