/* daemon/core/ctl_args.c: a control request's arguments, checked (ctl.h's
 * ctl_arg_* and ctl_args_check): a bad one is answered "bad-request" naming
 * the key. ctl_args_check is the one place where every command's keys and
 * their types are held against what a client sent, before the handler
 * runs (ctl.c's run_request()); the ctl_arg_* readers then only copy. */
#include "autoconf.h"
#include "daemon/core/ctl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* "a, b, c" of the spec's keys into buf. */
static void spec_keys(const struct ctl_arg *spec, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const struct ctl_arg *a = spec; a->key && off < len; a++) {
		int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", a->key);

		if (w > 0)
			off += (size_t)w;
	}
}

/* Is v of a's type (and within its bounds)? 0, or -EINVAL with err. */
static int arg_check(const struct ctl_arg *a, const json_t *v, char *err, size_t errlen)
{
	double d;

	switch (a->type) {
	case CTL_ARG_STRING:
		if (json_is_null(v) || json_is_string(v))
			return 0;
		snprintf(err, errlen, "\"%s\" must be a string", a->key);
		return -EINVAL;
	case CTL_ARG_BOOL:
		if (json_is_boolean(v))
			return 0;
		snprintf(err, errlen, "\"%s\" must be true or false", a->key);
		return -EINVAL;
	case CTL_ARG_INT:
		if (json_is_null(v) || (json_is_integer(v) && json_integer_value(v) >= a->min &&
					json_integer_value(v) <= a->max))
			return 0;
		snprintf(err, errlen, "\"%s\" must be an integer from %lld to %lld", a->key,
			 (long long)a->min, (long long)a->max);
		return -EINVAL;
	case CTL_ARG_NUMBER:
		d = json_number_value(v);
		if (json_is_null(v) || (json_is_number(v) && isfinite(d) && d >= (double)a->min &&
					d <= (double)a->max))
			return 0;
		snprintf(err, errlen, "\"%s\" must be a number from %lld to %lld", a->key,
			 (long long)a->min, (long long)a->max);
		return -EINVAL;
	}
	snprintf(err, errlen, "\"%s\": no such type", a->key);
	return -EINVAL;
}

int ctl_args_check(const char *cmd, const struct ctl_arg *spec, const json_t *args, char *err,
		   size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(args)) {
		snprintf(err, errlen, "the arguments of \"%s\" must be an object", cmd);
		return -EINVAL;
	}
	json_object_foreach((json_t *)args, key, v) {
		const struct ctl_arg *a = spec;
		char keys[256];

		while (a->key && strcmp(a->key, key))
			a++;
		if (a->key) {
			if (arg_check(a, v, err, errlen) < 0)
				return -EINVAL;
			continue;
		}
		spec_keys(spec, keys, sizeof(keys));
		if (keys[0])
			snprintf(err, errlen, "unknown argument \"%.64s\": \"%s\" takes %s", key,
				 cmd, keys);
		else
			snprintf(err, errlen, "unknown argument \"%.64s\": \"%s\" takes none", key,
				 cmd);
		return -EINVAL;
	}
	return 0;
}

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
