/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_frame.c: a response queued on a client's connection as
 * one frame of the control protocol (lib/util/proto.h).
 *
 * The fabric queries answer every client that asked the same thing at the
 * same data version with one result (daemon/fabric/queries.c). Encoding it
 * again for each of them, and copying it into each connection's output,
 * would cost a hundred pollers of a 10k-host node list a hundred encodes
 * on the loop and a hundred copies of 4 MB. So a large result is encoded
 * once, kept with the value it came from (one at a time: the last), and
 * each frame is the client's own head ({"v","id","ok") followed by a
 * reference to those shared bytes. */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "daemon/core/ctl_impl.h"
#include "lib/util/proto.h"

#define SHARE_MIN_ITEMS 256    /* a result this long is worth sharing */

struct ctl_text {
	size_t refs;
	size_t len;
	char p[];
};

static void text_unref(struct ctl_text *t)
{
	if (t && --t->refs == 0)
		free(t);
}

static void text_cleanup(const void *data, size_t len, void *extra)
{
	(void)data;
	(void)len;
	text_unref(extra);
}

void ctl_frames_release(struct ctl_frames *f)
{
	json_decref(f->result);
	text_unref(f->text);
	f->result = NULL;
	f->text = NULL;
}

/* The result's text, encoded now or kept from the last time: 0 with *out,
 * -EMSGSIZE (over max) or -ENOMEM. */
static int shared_text(struct ctl_frames *f, json_t *result, size_t max,
		       struct ctl_text **out)
{
	char *s;
	size_t len;
	struct ctl_text *t;

	if (f->result == result) {
		*out = f->text;
		return 0;
	}
	if (!(s = json_dumps(result, JSON_COMPACT)))
		return -ENOMEM;
	len = strlen(s);
	if (len > max || !(t = malloc(sizeof(*t) + len))) {
		free(s);
		return len > max ? -EMSGSIZE : -ENOMEM;
	}
	t->refs = 1;
	t->len = len;
	memcpy(t->p, s, len);
	free(s);
	ctl_frames_release(f);
	f->result = json_incref(result);
	f->text = t;
	*out = t;
	return 0;
}

int ctl_frame_queue(struct ctl_frames *f, struct evbuffer *out, json_t *resp, size_t max)
{
	json_t *result = json_object_get(resp, "result"), *head;
	struct ctl_text *t;
	const char *key;
	json_t *v;
	char *h, *buf;
	size_t len, hlen, n;
	unsigned char be[PROTO_HEADER_LEN];
	int rc;

	if (!result || json_array_size(result) + json_object_size(result) < SHARE_MIN_ITEMS) {
		if ((rc = proto_frame_new(resp, max, &buf, &len)) < 0)
			return rc;
		rc = evbuffer_add(out, buf, len) < 0 ? -ENOMEM : 0;
		free(buf);
		return rc;
	}
	if ((rc = shared_text(f, result, max, &t)) < 0)
		return rc;
	if (!(head = json_object()))
		return -ENOMEM;
	json_object_foreach(resp, key, v)
		if (strcmp(key, "result"))
			json_object_set(head, key, v);
	h = json_dumps(head, JSON_COMPACT);
	json_decref(head);
	if (!h)
		return -ENOMEM;
	/* "{...}" without its "}", then ,"result":TEXT} */
	hlen = strlen(h) - 1;
	n = hlen + (hlen > 1) + strlen("\"result\":") + t->len + 1;
	if (n > max || n > UINT32_MAX) {
		free(h);
		return -EMSGSIZE;
	}
	be[0] = (unsigned char)(n >> 24);
	be[1] = (unsigned char)(n >> 16);
	be[2] = (unsigned char)(n >> 8);
	be[3] = (unsigned char)n;
	rc = evbuffer_add(out, be, sizeof(be)) < 0 || evbuffer_add(out, h, hlen) < 0 ||
	     (hlen > 1 && evbuffer_add(out, ",", 1) < 0) ||
	     evbuffer_add(out, "\"result\":", strlen("\"result\":")) < 0 ? -ENOMEM : 0;
	free(h);
	if (rc == 0) {
		t->refs++;
		if (evbuffer_add_reference(out, t->p, t->len, text_cleanup, t) < 0) {
			t->refs--;
			rc = -ENOMEM;
		}
	}
	if (rc == 0 && evbuffer_add(out, "}", 1) < 0)
		rc = -ENOMEM;
	return rc;   /* -ENOMEM: the frame is cut; the caller closes */
}
