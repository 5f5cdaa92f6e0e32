/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_proto.c: a client's bytes into the control protocol's
 * decoder (lib/util/proto.c), as loomd applies it to what a connection sent:
 * frames (4-byte big-endian length + one JSON object, at most
 * PROTO_MAX_REQUEST) taken off the front of the buffer one after another,
 * each then validated as a request (proto_request_parse).
 *
 * Invariants: a frame consumes exactly 4 + its announced length, never more
 * than the buffer; one byte less of it asks for more (0); the message is an
 * object; encoding it again (proto_frame_new) and decoding that gives an
 * equal object; a request that parses has a cmd and an object for args, and
 * parses the same after the round trip.
 *
 * By hand (BUILD is a configured build directory, it holds autoconf.h; `make
 * fuzz` does the same with every library compiled with the sanitizers):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_proto.c lib/util/proto.c \
 *       -ljansson -o fuzz_proto
 *   cp -r tests/fuzz/corpus/proto work && ./fuzz_proto work */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "lib/util/proto.h"

const char fuzz_name[] = "fuzz_proto";

static void check_request(json_t *msg, json_t *again)
{
	const char *cmd = NULL, *cmd2 = NULL;
	json_t *args = NULL, *args2 = NULL;
	json_int_t id = 0, id2 = 0;
	char err[256], err2[256];
	int rc = proto_request_parse(msg, &cmd, &args, &id, err, sizeof(err));
	int rc2 = proto_request_parse(again, &cmd2, &args2, &id2, err2, sizeof(err2));

	if (rc != rc2)
		fuzz_bug("request parse differs after a round trip (%d, %d)", rc, rc2);
	if (rc < 0) {
		if (rc != -EPROTO && rc != -EBADMSG)
			fuzz_bug("request parse returned %d", rc);
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			fuzz_bug("refused request without a reason");
		return;
	}
	if (!cmd || !json_is_object(args) || !cmd2 || strcmp(cmd, cmd2) || id != id2 ||
	    !json_equal(args, args2))
		fuzz_bug("parsed request: cmd or args wrong");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		json_t *msg = NULL, *again = NULL;
		char err[256] = "";
		ssize_t n = proto_frame_decode(data + off, size - off, PROTO_MAX_REQUEST, &msg, err,
					       sizeof(err));
		char *buf = NULL;
		size_t len = 0;
		uint32_t be;

		if (n <= 0) {
			if (msg)
				fuzz_bug("a message returned with %zd", n);
			if (n < 0 && n != -EMSGSIZE && n != -EBADMSG)
				fuzz_bug("decode returned %zd", n);
			break;
		}
		if ((size_t)n > size - off || (size_t)n < PROTO_HEADER_LEN)
			fuzz_bug("consumed %zd of %zu bytes", n, size - off);
		memcpy(&be, data + off, 4);
		if ((size_t)n != PROTO_HEADER_LEN + ntohl(be) || ntohl(be) > PROTO_MAX_REQUEST)
			fuzz_bug("consumed %zd bytes for a frame of %u", n, ntohl(be));
		if (!json_is_object(msg))
			fuzz_bug("decoded a frame that is not an object");
		{
			json_t *none = NULL;
			ssize_t m = proto_frame_decode(data + off, (size_t)n - 1, PROTO_MAX_REQUEST,
						       &none, err, sizeof(err));

			if (m != 0 || none)
				fuzz_bug("a frame less one byte gave %zd, not 0", m);
		}
		/* The round trip, with room for what re-encoding may grow
		 * (escapes): a response-sized limit. */
		if (proto_frame_new(msg, PROTO_MAX_RESPONSE, &buf, &len) < 0)
			fuzz_bug("a decoded message does not encode");
		if (proto_frame_decode(buf, len, PROTO_MAX_RESPONSE, &again, err, sizeof(err)) !=
		    (ssize_t)len)
			fuzz_bug("an encoded message does not decode: %s", err);
		if (!json_equal(msg, again))
			fuzz_bug("decode(encode(x)) != x");
		check_request(msg, again);
		free(buf);
		json_decref(again);
		json_decref(msg);
		off += (size_t)n;
	}
	return 0;
}
