/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_send.c: the REST API's answers: JSON bodies, errors
 * {"error":{"code","message"}} with the HTTP status their code means. */
#include "autoconf.h"
#include "daemon/http/api.h"
#include "daemon/http/api_impl.h"
#include "daemon/http/http.h"

#include <stdarg.h>
#include <string.h>
#include <stdio.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "lib/util/log.h"
#include "lib/util/proto.h"

int api_status(const char *code)
{
	static const struct {
		const char *code;
		int status;
	} map[] = {
		{ PROTO_ERR_BADREQ, 400 }, { PROTO_ERR_VERSION, 400 }, { PROTO_ERR_TOO_LARGE, 400 },
		{ PROTO_ERR_DENIED, 403 }, { PROTO_ERR_NOTFOUND, 404 }, { PROTO_ERR_UNKNOWN, 404 },
		{ PROTO_ERR_FAILED, 409 }, { PROTO_ERR_BUSY, 503 }, { PROTO_ERR_INTERNAL, 500 },
		{ "unauthorized", 401 }, { "method-not-allowed", 405 }, { "rate-limited", 429 },
		{ PROTO_ERR_NOT_LEADER, 503 }, { PROTO_ERR_NO_QUORUM, 503 },
	};

	for (size_t i = 0; code && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].code, code))
			return map[i].status;
	return 500;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 202: return "Accepted";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

struct sink {
	struct evbuffer *b;
	size_t len;
	int over;      /* the answer is over PROTO_MAX_RESPONSE */
};

static int sink_add(const char *buf, size_t size, void *data)
{
	struct sink *s = data;

	if (s->len + size > PROTO_MAX_RESPONSE) {
		s->over = 1;
		return -1;
	}
	s->len += size;
	return evbuffer_add(s->b, buf, size);
}

void api_send_headers(struct evhttp_request *req)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Cache-Control", "private, no-store");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
}

/* Send v (borrowed) as the JSON body with `status`. An answer over the
 * protocol's limit is replaced by the too-large error, as on the socket. */
void api_send_json(struct evhttp_request *req, int status, const json_t *v)
{
	struct sink s = { .b = evbuffer_new() };
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	if (!s.b) {
		evhttp_send_error(req, 500, NULL);
		return;
	}
	if (json_dump_callback(v, sink_add, &s, JSON_COMPACT | JSON_ENCODE_ANY) < 0) {
		evbuffer_free(s.b);
		if (s.over) {
			json_t *e = json_pack("{s:{s:s, s:s}}", "error", "code", PROTO_ERR_TOO_LARGE,
					      "message", "the answer is over the control protocol's "
					      "limit: ask for less (?limit=, ?node=)");

			log_warn("http: an API answer exceeds %u bytes; sending an error instead",
				 PROTO_MAX_RESPONSE);
			if (e)
				api_send_json(req, api_status(PROTO_ERR_TOO_LARGE), e);
			else
				evhttp_send_error(req, 500, NULL);
			json_decref(e);
			return;
		}
		evhttp_send_error(req, 500, NULL);
		return;
	}
	evbuffer_add(s.b, "\n", 1);
	evhttp_add_header(h, "Content-Type", "application/json");
	api_send_headers(req);
	if (status == 503)
		evhttp_add_header(h, "Retry-After", API_RETRY_AFTER_S);
	http_send(req, status, reason(status), s.b);
	evbuffer_free(s.b);
}

void api_send_error(struct evhttp_request *req, const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	json_t *e;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!(e = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg))) {
		evhttp_send_error(req, 500, NULL);
		return;
	}
	api_send_json(req, api_status(code), e);
	json_decref(e);
}

/* A protocol error answer {"ok":false,"error":{...}} as an HTTP error. */
void api_send_answer_error(struct evhttp_request *req, json_t *answer)
{
	json_t *e = json_object_get(answer, "error");
	json_t *body = json_pack("{s:O}", "error", e ? e : json_null());

	if (!body) {
		evhttp_send_error(req, 500, NULL);
		return;
	}
	api_send_json(req, api_status(json_string_value(json_object_get(e, "code"))), body);
	json_decref(body);
}

