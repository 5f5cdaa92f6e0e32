/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/eos/eos_rpc.h: eAPI access for the eos plugin: one libcurl easy
 * handle per switch (kept, so HTTP keep-alive reuses the connection),
 * address / credentials / options parsing, and runCmds as a JSON-RPC 2.0
 * call whose errors come back as -errno plus one line in eAPI's own words.
 * Not installed, not seen by loomd. */
#ifndef EOS_RPC_H
#define EOS_RPC_H

#include <stddef.h>

#include <curl/curl.h>
#include <jansson.h>

#include "loom/loom_plugin.h"

struct eos_conn {
	CURL *curl;
	struct curl_slist *headers;
	char url[320];             /* "<address>/command-api" */
	char user[128], password[256];
	char cacert[256];          /* option cacert=, "" none */
	int insecure;              /* option insecure: no certificate checks */
	int timeout_ms;
	unsigned long id;          /* JSON-RPC ids, one per call */
};

/* Parse ep (address "http[s]://host[:port]", credentials "user:password"
 * on the first line, options "insecure", "cacert=/path") and make the curl
 * handle: 0, or -EINVAL / -ENOMEM with the reason in err. */
int eos_conn_init(struct eos_conn *c, const struct lp_endpoint *ep, char *err, size_t errlen);
void eos_conn_fini(struct eos_conn *c);

/* runCmds version 1 with cmds[0..n) in format "json" or "text". 0 and
 * *result (the JSON-RPC result array, one entry per command; the caller
 * json_decref()s it), or:
 *   -EACCES     HTTP 401/403 (credentials refused)
 *   -ETIMEDOUT  no answer within timeout_ms
 *   -ECONNREFUSED / -EHOSTUNREACH  nothing to talk to
 *   -EPROTO     not a JSON-RPC answer (HTTP status other than 200, bad JSON)
 *   -EIO        eAPI refused a command: err = "command <i> of <n> '<cmd>':
 *               <eAPI's errors>" (i 1-based, as eAPI counts), *failed (if
 *               not NULL) the 0-based index. */
int eos_run(struct eos_conn *c, const char *const *cmds, size_t n, const char *format,
	    json_t **result, int *failed, char *err, size_t errlen);

/* The HTTP body of a 200 answer to runCmds cmds[0..n) (len bytes, need not
 * be NUL-terminated), decoded as eos_run returns it: 0 and *result, the
 * "result" array of exactly n entries (json_decref it), or -EPROTO (not a
 * JSON-RPC answer, another number of results) or -EIO (eAPI's "error",
 * with *failed as eos_run says), with err naming url. eos_reply.c; no I/O. */
int eos_rpc_decode(const char *body, size_t len, const char *url, const char *const *cmds,
		   size_t n, json_t **result, int *failed, char *err, size_t errlen);

#endif
