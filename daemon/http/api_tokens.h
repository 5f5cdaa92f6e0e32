/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_tokens.h: the HTTP API's credentials (issue 20), read
 * from http.tokens_file (default /etc/loom/tokens). One a line:
 *
 *   # comment
 *   NAME ROLE sha256:HEX   a bearer token: HEX is the SHA-256 of its secret
 *                          (`loomctl token hash NAME ROLE` makes the line)
 *   NAME ROLE cert         a TLS client certificate whose subject CN is NAME
 *
 * NAME: 1-63 of A-Z a-z 0-9 . _ @ -; ROLE: read, tenant or admin
 * (daemon/core/authz.h), or metrics: a token that opens /metrics (with
 * http.metrics_auth) and nothing of the API. A NAME appears once per
 * kind, a hash once. The file holds hashes only, so a secret's length is
 * checked when it is used: one under TOKEN_SECRET_MIN bytes matches no
 * line (lib/util/token.h; loomctl token hash refuses to make its line).
 *
 * The file must be a regular file owned by root or by loomd's user, and
 * neither group nor world may read or write it; otherwise it is refused,
 * naming the file. A bad line refuses the whole file, naming file:line.
 * An absent file is no credentials (the API then answers 401 to all). */
#ifndef LOOMD_API_TOKENS_H
#define LOOMD_API_TOKENS_H

#include <stddef.h>

#include "daemon/core/authz.h"

#define API_TOKENS_MAX_BYTES (1024 * 1024)

struct api_tokens;

/* Parse text[0..len) (named `path` in errors). 0 with *out, or -EINVAL /
 * -ENOMEM with err. */
int api_tokens_parse(const char *text, size_t len, const char *path, struct api_tokens **out,
		     char *err, size_t errlen);
/* Read and parse the file, after its checks. 0 with *out (empty when the
 * file does not exist), or -errno with err naming the file. */
int api_tokens_load(const char *path, struct api_tokens **out, char *err, size_t errlen);
void api_tokens_free(struct api_tokens *t);
/* How many credentials it holds. */
size_t api_tokens_count(const struct api_tokens *t);

/* The principal of a bearer secret: 1 with *p, or 0 (unknown). Every hash
 * is compared, in constant time. */
int api_tokens_by_secret(const struct api_tokens *t, const char *secret, size_t len,
			 struct authz_principal *p);
/* Does the bearer secret open /metrics (a token of any role, metrics
 * included)? 1 or 0. Every hash is compared, in constant time. */
int api_tokens_for_metrics(const struct api_tokens *t, const char *secret, size_t len);
/* Does a verified TLS client certificate of subject CN `cn` open /metrics
 * (a cert line of any role, metrics included)? 1 or 0. */
int api_tokens_cert_for_metrics(const struct api_tokens *t, const char *cn);
/* The principal of a verified TLS client certificate's CN: 1 or 0. */
int api_tokens_by_cert(const struct api_tokens *t, const char *cn, struct authz_principal *p);

#endif
