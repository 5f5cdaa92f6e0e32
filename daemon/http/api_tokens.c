/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_tokens.c: the tokens file (see api_tokens.h). */
#include "autoconf.h"
#include "daemon/http/api_tokens.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/token.h"

struct cred {
	char name[AUTHZ_NAME_LEN];
	enum authz_role role;
	int cert;                            /* 1: by certificate, 0: by token */
	int metrics;                         /* role metrics: /metrics only */
	unsigned char hash[TOKEN_HASH_LEN];
};

struct api_tokens {
	struct cred *c;
	size_t n, cap;
};

void api_tokens_free(struct api_tokens *t)
{
	if (!t)
		return;
	free(t->c);
	free(t);
}

size_t api_tokens_count(const struct api_tokens *t)
{
	return t ? t->n : 0;
}

static int name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= AUTHZ_NAME_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-",
			    s[i]) || !s[i])
			return 0;
	return 1;
}

static int hex_val(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The next word of line[0..len) from *pos: its start and length (0: none). */
static size_t word(const char *line, size_t len, size_t *pos, const char **w)
{
	size_t i = *pos, start;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	start = i;
	while (i < len && line[i] != ' ' && line[i] != '\t')
		i++;
	*pos = i;
	*w = line + start;
	return i - start;
}

/* One line that is not a comment: 0, or -EINVAL with why. */
static int parse_line(struct api_tokens *t, const char *line, size_t len, char *why,
		      size_t whylen)
{
	const char *w[4];
	size_t n[4], pos = 0;
	struct cred c = { 0 };
	char role[16];

	for (int i = 0; i < 4; i++)
		n[i] = word(line, len, &pos, &w[i]);
	if (!n[1] || !n[2] || n[3]) {
		snprintf(why, whylen, "expected NAME ROLE sha256:HEX or NAME ROLE cert");
		return -EINVAL;
	}
	if (!name_ok(w[0], n[0])) {
		snprintf(why, whylen, "the name must be 1-%d of A-Z a-z 0-9 . _ @ -",
			 AUTHZ_NAME_LEN - 1);
		return -EINVAL;
	}
	memcpy(c.name, w[0], n[0]);
	snprintf(role, sizeof(role), "%.*s", (int)(n[1] < sizeof(role) ? n[1] : 0), w[1]);
	c.metrics = !strcmp(role, "metrics");
	if (!c.metrics && authz_role_parse(role, &c.role) < 0) {
		snprintf(why, whylen, "role \"%.*s\": expected read, tenant, admin or metrics",
			 (int)(n[1] < 32 ? n[1] : 32), w[1]);
		return -EINVAL;
	}
	if (n[2] == 4 && !memcmp(w[2], "cert", 4)) {
		c.cert = 1;
	} else if (n[2] == 7 + 2 * TOKEN_HASH_LEN && !memcmp(w[2], "sha256:", 7)) {
		for (size_t i = 0; i < TOKEN_HASH_LEN; i++) {
			int hi = hex_val(w[2][7 + 2 * i]), lo = hex_val(w[2][8 + 2 * i]);

			if (hi < 0 || lo < 0) {
				snprintf(why, whylen, "the hash must be sha256: and 64 hex digits");
				return -EINVAL;
			}
			c.hash[i] = (unsigned char)(hi << 4 | lo);
		}
	} else {
		snprintf(why, whylen, "expected sha256: and 64 hex digits (the SHA-256 of the "
			 "token; loomctl token hash makes it) or cert");
		return -EINVAL;
	}
	for (size_t i = 0; i < t->n; i++) {
		if (t->c[i].cert == c.cert && !strcmp(t->c[i].name, c.name)) {
			snprintf(why, whylen, "%s \"%s\" is listed twice", c.cert ? "certificate" :
				 "token", c.name);
			return -EINVAL;
		}
		if (!c.cert && !t->c[i].cert && !memcmp(t->c[i].hash, c.hash, TOKEN_HASH_LEN)) {
			snprintf(why, whylen, "token \"%s\" has the hash of token \"%s\"", c.name,
				 t->c[i].name);
			return -EINVAL;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct cred *bigger = realloc(t->c, cap * sizeof(*bigger));

		if (!bigger) {
			snprintf(why, whylen, "out of memory");
			return -ENOMEM;
		}
		t->c = bigger;
		t->cap = cap;
	}
	t->c[t->n++] = c;
	return 0;
}

int api_tokens_parse(const char *text, size_t len, const char *path, struct api_tokens **out,
		     char *err, size_t errlen)
{
	struct api_tokens *t = calloc(1, sizeof(*t));
	size_t off = 0;
	unsigned lineno = 0;

	*out = NULL;
	if (!t) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (off < len) {
		const char *line = text + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off, lead = 0;
		char why[160];
		int rc;

		off += n + (nl != NULL);
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		while (lead < n && (line[lead] == ' ' || line[lead] == '\t'))
			lead++;
		if (lead == n || line[lead] == '#')
			continue;
		if (memchr(line, '\0', n)) {
			snprintf(err, errlen, "%s:%u: a NUL byte", path, lineno);
			api_tokens_free(t);
			return -EINVAL;
		}
		if ((rc = parse_line(t, line, n, why, sizeof(why))) < 0) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			api_tokens_free(t);
			return rc;
		}
	}
	*out = t;
	return 0;
}

int api_tokens_load(const char *path, struct api_tokens **out, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0) {
		if (errno == ENOENT)
			return api_tokens_parse("", 0, path, out, err, errlen);
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, errno == ELOOP ? "a symbolic link: refused" :
			 strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = -EPERM;
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file: refused", path);
		goto out;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: owned by uid %u, not root nor loomd's uid %u: refused "
			 "(the tokens give rights on the fabric)", path, (unsigned)st.st_uid,
			 (unsigned)geteuid());
		goto out;
	}
	if (st.st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)) {
		snprintf(err, errlen, "%s: mode %04o lets group or others read or write it: "
			 "refused (chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_size > API_TOKENS_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %d bytes: refused", path,
			 API_TOKENS_MAX_BYTES);
		goto out;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = api_tokens_parse(buf, len, path, out, err, errlen);
out:
	if (buf) {
		memset(buf, 0, len);
		free(buf);
	}
	close(fd);
	return rc;
}

/* The token credential of secret, or NULL. A secret too short (or with
 * a byte no token has) matches none. */
static const struct cred *by_secret(const struct api_tokens *t, const char *secret, size_t len)
{
	unsigned char h[TOKEN_HASH_LEN];
	const struct cred *found = NULL;

	if (!t || token_secret_check(secret, len) < 0 || token_hash(secret, len, h) < 0)
		return NULL;
	/* Every hash, whatever matched: the time says nothing of which. */
	for (size_t i = 0; i < t->n; i++)
		if (!t->c[i].cert && token_hash_equal(t->c[i].hash, h))
			found = &t->c[i];
	return found;
}

int api_tokens_by_secret(const struct api_tokens *t, const char *secret, size_t len,
			 struct authz_principal *p)
{
	const struct cred *found;

	if (!(found = by_secret(t, secret, len)) || found->metrics)
		return 0;
	authz_principal_named(p, "token", found->name, found->role);
	return 1;
}

int api_tokens_for_metrics(const struct api_tokens *t, const char *secret, size_t len)
{
	return by_secret(t, secret, len) != NULL;
}

int api_tokens_cert_for_metrics(const struct api_tokens *t, const char *cn)
{
	for (size_t i = 0; t && cn && i < t->n; i++)
		if (t->c[i].cert && !strcmp(t->c[i].name, cn))
			return 1;
	return 0;
}

int api_tokens_by_cert(const struct api_tokens *t, const char *cn, struct authz_principal *p)
{
	for (size_t i = 0; t && cn && i < t->n; i++)
		if (t->c[i].cert && !t->c[i].metrics && !strcmp(t->c[i].name, cn)) {
			authz_principal_named(p, "cert", t->c[i].name, t->c[i].role);
			return 1;
		}
	return 0;
}
