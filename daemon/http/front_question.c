/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_question.c: a front end's message checked field by
 * field (front_question.h). The front end is the process that holds the
 * network's input: the core takes what it says as no more trusted than
 * that, except for the principal a token check gave. */
#include "autoconf.h"
#include "daemon/http/front_question.h"

#include <errno.h>
#include <string.h>

#define CMD_MAX 64   /* longer than any command's name (lib/util/commands.c) */

/* W of front_proto.h into who: 0, or -EINVAL. */
static int who_parse(json_t *w, struct authz_principal *who)
{
	const char *kind = json_string_value(json_object_get(w, "kind"));
	const char *name = json_string_value(json_object_get(w, "name"));
	const char *role = json_string_value(json_object_get(w, "role"));
	enum authz_role r;

	if (!kind || (strcmp(kind, "token") && strcmp(kind, "cert")) || !name || !name[0] ||
	    strlen(name) >= AUTHZ_NAME_LEN || !role || authz_role_parse(role, &r) < 0)
		return -EINVAL;
	authz_principal_named(who, kind, name, r);
	return 0;
}

static int cmd_parse(json_t *m, struct front_question *q)
{
	q->cmd = json_string_value(json_object_get(m, "cmd"));
	if (!q->cmd || !q->cmd[0] || strlen(q->cmd) >= CMD_MAX)
		return -EINVAL;
	return who_parse(json_object_get(m, "who"), &q->who);
}

int front_question_parse(json_t *m, struct front_question *q)
{
	const char *op = json_string_value(json_object_get(m, "op"));
	json_t *id = json_object_get(m, "id"), *v;

	memset(q, 0, sizeof(*q));
	if (!op)
		return -EINVAL;
	if (!strcmp(op, "hello")) {
		q->op = FQ_HELLO;
		return 0;
	}
	if (!strcmp(op, "failed")) {
		q->op = FQ_FAILED;
		q->error = json_string_value(json_object_get(m, "error"));
		return 0;
	}
	if (!json_is_integer(id))
		return -EINVAL;
	q->id = json_integer_value(id);
	if (!strcmp(op, "call")) {
		q->op = FQ_CALL;
		q->args = json_object_get(m, "args");
		if (q->args && !json_is_object(q->args))
			return -EINVAL;
		q->ack = json_is_true(json_object_get(m, "ack"));
		return cmd_parse(m, q);
	}
	if (!strcmp(op, "version")) {
		q->op = FQ_VERSION;
		return cmd_parse(m, q);
	}
	if (!strcmp(op, "metrics")) {
		q->op = FQ_METRICS;
		v = json_object_get(m, "auth_failures");
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return -EINVAL;
		q->auth_failures = (unsigned long long)json_integer_value(v);
		q->gzip = json_is_true(json_object_get(m, "gzip"));
		return 0;
	}
	if (!strcmp(op, "ready")) {
		q->op = FQ_READY;
		return 0;
	}
	return -EINVAL;
}
