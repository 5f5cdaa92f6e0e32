/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_impl.h: what the api*.c files share, not the daemon. */
#ifndef LOOMD_API_IMPL_H
#define LOOMD_API_IMPL_H

#include <jansson.h>

struct evhttp_request;

#define API_RETRY_AFTER_S "5"  /* a 503's Retry-After */

/* The headers of every API answer (issue 37): Cache-Control: private,
 * no-store (each is the principal's: no shared cache keeps it, no browser
 * writes it to disk; a client that keeps one asks with If-None-Match) and
 * X-Content-Type-Options: nosniff. */
void api_send_headers(struct evhttp_request *req);
/* Answer req with v (borrowed) as the JSON body and `status`; an answer
 * over the protocol's limit becomes the too-large error, as on the socket. */
void api_send_json(struct evhttp_request *req, int status, const json_t *v);
/* Answer req with the error `code` (its status: api_status) and a message. */
void api_send_error(struct evhttp_request *req, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A protocol error answer {"ok":false,"error":{...}} as an HTTP error. */
void api_send_answer_error(struct evhttp_request *req, json_t *answer);

#endif
