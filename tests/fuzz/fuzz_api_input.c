/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_api_input.c: what the REST API reads from outside
 * (issue 20): the tokens file (api_tokens_parse, daemon/http/api_tokens.c,
 * run at start and at every reload on the operator's file) and the body
 * of POST /api/v1/call (api_body_call, daemon/http/api_body.c, run on
 * every remote client's bytes). The first byte chooses which.
 *
 * Invariants:
 *  - tokens: 0 with a set, or -EINVAL/-ENOMEM with one error that starts
 *    with the file's name and a line number ("t:N: "); never a set with
 *    an error. A set finds no principal for the empty secret, and every
 *    principal it finds has a role of authz.h and a name.
 *  - call body: 0 with a command of 1..63 bytes and an object of
 *    arguments, or -EINVAL with a message and no arguments.
 *
 * By hand: `make fuzz`, then tests/fuzz/bin/fuzz_api_input CORPUS_COPY. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "daemon/http/api_body.h"
#include "daemon/http/api_tokens.h"

const char fuzz_name[] = "fuzz_api_input";

static void tokens(const char *text, size_t len)
{
	struct api_tokens *t = NULL;
	struct authz_principal p;
	char err[512] = "";
	int rc = api_tokens_parse(text, len, "t", &t, err, sizeof(err));

	fuzz_check_rc(rc, err, "api_tokens_parse");
	if (rc < 0) {
		if (t)
			fuzz_bug("a refused file gave a set");
		if (strncmp(err, "t:", 2) || !strchr(err + 2, ':'))
			fuzz_bug("the error does not name t:LINE: %s", err);
		return;
	}
	if (!t)
		fuzz_bug("an accepted file gave no set");
	if (api_tokens_by_secret(t, "", 0, &p))
		fuzz_bug("the empty secret has a principal");
	/* the first word of every line, as a certificate name and a secret */
	for (const char *l = text; l && l < text + len;) {
		char w[80];
		size_t n = strcspn(l, " \t\n");

		if (n < sizeof(w)) {
			memcpy(w, l, n);
			w[n] = '\0';
			if ((api_tokens_by_cert(t, w, &p) || api_tokens_by_secret(t, w, n, &p)) &&
			    ((unsigned)p.role > AUTHZ_ADMIN || !p.name[0] || !p.how[0]))
				fuzz_bug("a principal without a role or a name");
		}
		l = memchr(l, '\n', (size_t)(text + len - l));
		l = l ? l + 1 : NULL;
	}
	api_tokens_free(t);
}

static void call_body(const char *body, size_t len)
{
	char cmd[API_CMD_LEN], err[512] = "";
	json_t *args = (json_t *)1;
	int rc = api_body_call(body, len, cmd, &args, err, sizeof(err));

	fuzz_check_rc(rc, err, "api_body_call");
	if (rc < 0) {
		if (args)
			fuzz_bug("a refused body gave arguments");
		return;
	}
	fuzz_check_terminated(cmd, sizeof(cmd), "cmd");
	if (!cmd[0] || !json_is_object(args))
		fuzz_bug("an accepted body without a command or an object of arguments");
	json_decref(args);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	if (!(s = fuzz_cstr(data + 1, size - 1)))
		return 0;
	if (data[0] & 1)
		tokens(s, size - 1);
	else
		call_body(s, size - 1);
	free(s);
	return 0;
}
