/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_front_channel.c: what the HTTP front end sends the core
 * (issue 40, daemon/http/front_proto.h), as the core reads it: frames of
 * the control protocol (at most FRONT_MAX_FRAME) taken off the front of
 * the buffer (proto_frame_decode), each checked by front_question_parse
 * (daemon/http/front_question.c) before front_serve.c acts on it. The
 * front end is the process that holds the network's input: a subverted
 * one may send anything.
 *
 * Invariants: a frame consumes 4 + its announced length, never more than
 * the buffer; a message that parses is one of the ops; a call or version
 * names a command of 1..63 bytes and a principal "token NAME" or "cert
 * NAME" of a name under AUTHZ_NAME_LEN with a role of authz.h; a call's
 * args are absent or an object; a metrics question carries a count.
 *
 * By hand: `make fuzz`, then tests/fuzz/bin/fuzz_front_channel CORPUS_COPY. */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "daemon/http/front_proto.h"
#include "daemon/http/front_question.h"

const char fuzz_name[] = "fuzz_front_channel";

static void check(json_t *m)
{
	struct front_question q;
	size_t n;

	if (front_question_parse(m, &q) < 0)
		return;
	switch (q.op) {
	case FQ_CALL:
		if (q.args && !json_is_object(q.args))
			fuzz_bug("call args that are no object");
		/* fall through */
	case FQ_VERSION:
		n = q.cmd ? strlen(q.cmd) : 0;
		if (n < 1 || n > 63)
			fuzz_bug("a command of %zu bytes", n);
		if (!q.who.name[0] || strlen(q.who.name) >= AUTHZ_NAME_LEN)
			fuzz_bug("a principal without a name");
		if (strncmp(q.who.how, "token ", 6) && strncmp(q.who.how, "cert ", 5))
			fuzz_bug("a principal of another kind: %s", q.who.how);
		if (q.who.role != AUTHZ_READ && q.who.role != AUTHZ_TENANT && q.who.role != AUTHZ_ADMIN)
			fuzz_bug("a role out of the table: %d", (int)q.who.role);
		if (q.who.uid != -1)
			fuzz_bug("a principal with a unix uid");
		break;
	case FQ_HELLO:
	case FQ_FAILED:
	case FQ_METRICS:
	case FQ_READY:
		break;
	default:
		fuzz_bug("an op out of the list: %d", (int)q.op);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		json_t *m = NULL;
		char err[256];
		ssize_t n = proto_frame_decode(data + off, size - off, FRONT_MAX_FRAME, &m, err,
					       sizeof(err));

		if (n <= 0)
			break;
		if ((size_t)n > size - off)
			fuzz_bug("a frame of %zd bytes in %zu", n, size - off);
		check(m);
		json_decref(m);
		off += (size_t)n;
	}
	return 0;
}
