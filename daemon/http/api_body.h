/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_body.h: the JSON bodies the REST API takes (issue 20),
 * decoded without the network (so that they can be fuzzed).
 *
 * POST /api/v1/call: {"cmd": "NAME", "args": {...}}; "args" may be absent
 * or null. A body that is not one JSON object, has a key twice, a field of
 * the wrong type or another field is refused, naming the field. */
#ifndef LOOMD_API_BODY_H
#define LOOMD_API_BODY_H

#include <stddef.h>
#include <jansson.h>

#define API_CMD_LEN 64

/* 0 with cmd (NUL-terminated, < API_CMD_LEN bytes) and *args (a new
 * reference, an object); -EINVAL with why in err. */
int api_body_call(const char *body, size_t len, char cmd[API_CMD_LEN], json_t **args,
		  char *err, size_t errlen);
/* A mutation's arguments: one JSON object (an empty body is {}). 0 with
 * *args (a new reference), or -EINVAL with err. */
int api_body_args(const char *body, size_t len, json_t **args, char *err, size_t errlen);

#endif
