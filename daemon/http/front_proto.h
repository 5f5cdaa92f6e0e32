/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_proto.h: what the core and its HTTP front end say to
 * each other over their socketpair (issue 40; docs/privileges.md).
 *
 * Frames are the control protocol's (lib/util/proto.h: a 4-byte length,
 * one JSON object). A frame announcing "bytes":N is followed by N raw
 * bytes (the configuration, a /metrics text): no escaping of 100 MB.
 *
 * core -> front end, once, first:
 *   {"op":"config","bytes":sizeof(struct http_conf),"listeners":N,
 *    "log_level":L,"log_target":T,"user":"nobody"} + the struct's bytes
 *   (the front end is this same executable, /proc/self/exe: same layout);
 *   the listening sockets are its descriptors FRONT_FD_LISTEN.. .
 * front end -> core:
 *   {"op":"hello"}                      set up and sandboxed: it serves
 *   {"op":"failed","error":"..."}       it cannot serve (then exits)
 *   {"id":N,"op":"call","cmd":C,"args":{..},"who":W,"ack":B}
 *   {"id":N,"op":"version","cmd":C,"who":W}
 *   {"id":N,"op":"metrics","gzip":B,"auth_failures":K}
 *   {"id":N,"op":"ready"}
 *   W = {"kind":"token"|"cert","name":NAME,"role":"read"|"tenant"|"admin"}
 * core -> front end, answers, by id:
 *   {"id":N,"answer":{"ok":..},"sync":B}  (sync: answered within the call)
 *   {"id":N,"started":true}               (ack: the command has begun)
 *   {"id":N,"version":V} or {"id":N,"version":null}
 *   {"id":N,"bytes":L,"gzip":B} + L bytes, or {"id":N,"error":"..."}
 *   {"id":N,"ready":B,"why":"..."}
 *
 * The core checks every field as it checks a control client's request:
 * the front end is the one that holds remote input, so the core takes it
 * as no more trusted than that input, except for the principal a token
 * check gave (it is the front end's word: docs/privileges.md says why). */
#ifndef LOOMD_FRONT_PROTO_H
#define LOOMD_FRONT_PROTO_H

#include "lib/util/proto.h"

/* The front end's descriptors: the channel, then the listeners. */
#define FRONT_FD_CHANNEL 3
#define FRONT_FD_LISTEN 4
/* loomd's argv[1] for the front end (daemon/main.c). */
#define FRONT_MODE "--http-front"
/* A frame from the front end: a call's arguments come from a request
 * body (http.max_body_bytes, at most 512 KiB). */
#define FRONT_MAX_FRAME (1024u * 1024u)
/* How long the core waits for a new front end's first word. */
#define FRONT_START_WAIT_S 15
/* Questions the core answers for one front end at once (the API's own
 * cap, API_MAX_CALLS, plus /metrics scrapes and /readyz). */
#define FRONT_MAX_PENDING 8192u
/* Bytes the core queues for a front end that does not read: over this
 * it is restarted (a hostile or stuck front end cannot make loomd grow). */
#define FRONT_MAX_QUEUED (1024u << 20)

#endif
