/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_args.c: a handler's readers of its request's arguments
 * (ctl.h's ctl_arg_*): a bad one is answered "bad-request" naming the key.
 * The keys and types a command declares were checked before the handler
 * ran (lib/util/cmds_args.c, from ctl.c's run_request()); these then only copy. */
#include "autoconf.h"
#include "daemon/core/ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/util/proto.h"

int ctl_arg_string(struct ctl_req *req, json_t *args, const char *key, char *out, size_t len,
		   int required)
{
	json_t *v = json_object_get(args, key);

	if (!v || json_is_null(v)) {
		if (required)
			ctl_reply_err(req, PROTO_ERR_BADREQ, "\"%s\" is required", key);
		return required ? -EINVAL : 0;
	}
	if (!json_is_string(v) || json_string_length(v) >= len) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"%s\" must be a string of less than "
			      "%zu bytes", key, len);
		return -EINVAL;
	}
	snprintf(out, len, "%s", json_string_value(v));
	return 1;
}

int ctl_arg_count(struct ctl_req *req, json_t *args, const char *key, json_int_t max,
		  json_int_t *out)
{
	json_t *v = json_object_get(args, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"%s\" must be an integer from 0 to %lld",
			      key, (long long)max);
		return -EINVAL;
	}
	*out = json_integer_value(v);
	return 0;
}

int ctl_arg_bool(struct ctl_req *req, json_t *args, const char *key, int *out)
{
	json_t *v = json_object_get(args, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_boolean(v)) {
		ctl_reply_err(req, PROTO_ERR_BADREQ, "\"%s\" must be true or false", key);
		return -EINVAL;
	}
	*out = json_is_true(v);
	return 0;
}
