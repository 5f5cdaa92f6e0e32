/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_question.h: one message of the HTTP front end, as the
 * core reads it (front_proto.h's front end -> core messages), checked
 * field by field (front_question.c: pure, fuzzed by
 * tests/fuzz/fuzz_front_channel.c). front_serve.c acts on it. */
#ifndef LOOMD_FRONT_QUESTION_H
#define LOOMD_FRONT_QUESTION_H

#include <jansson.h>

#include "daemon/core/authz.h"

enum front_op { FQ_HELLO, FQ_FAILED, FQ_CALL, FQ_VERSION, FQ_METRICS, FQ_READY };

struct front_question {
	enum front_op op;
	json_int_t id;                   /* all but hello and failed */
	const char *cmd;                 /* call, version: borrowed from the message */
	json_t *args;                    /* call: an object, borrowed; NULL none */
	struct authz_principal who;      /* call, version: "token NAME" / "cert CN" */
	int ack;                         /* call: say when it has begun */
	int gzip;                        /* metrics */
	unsigned long long auth_failures; /* metrics */
	const char *error;               /* failed: its reason (borrowed; may be NULL) */
};

/* m into q: 0, or -EINVAL when m is not one of the messages (the caller
 * closes the channel; nothing of q is to be used then). */
int front_question_parse(json_t *m, struct front_question *q);

#endif
