/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/cmds_args.c: see cmds_args.h. */
#include "autoconf.h"
#include "lib/util/cmds_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* "a, b, c" of the spec's keys into buf. */
static void spec_keys(const struct cmds_arg *spec, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const struct cmds_arg *a = spec; a->key && off < len; a++) {
		int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", a->key);

		if (w > 0)
			off += (size_t)w;
	}
}

/* Is v of a's type (and within its bounds)? 0, or -EINVAL with err. */
static int arg_check(const struct cmds_arg *a, const json_t *v, char *err, size_t errlen)
{
	double d;

	switch (a->type) {
	case CMDS_ARG_STRING:
		if (json_is_null(v) || json_is_string(v))
			return 0;
		snprintf(err, errlen, "\"%s\" must be a string", a->key);
		return -EINVAL;
	case CMDS_ARG_BOOL:
		if (json_is_boolean(v))
			return 0;
		snprintf(err, errlen, "\"%s\" must be true or false", a->key);
		return -EINVAL;
	case CMDS_ARG_INT:
		if (json_is_null(v) || (json_is_integer(v) && json_integer_value(v) >= a->min &&
					json_integer_value(v) <= a->max))
			return 0;
		snprintf(err, errlen, "\"%s\" must be an integer from %lld to %lld", a->key,
			 (long long)a->min, (long long)a->max);
		return -EINVAL;
	case CMDS_ARG_NUMBER:
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

const struct cmds_arg *cmds_arg_find(const struct cmds_arg *spec, const char *key)
{
	for (const struct cmds_arg *a = spec; a && a->key; a++)
		if (!strcmp(a->key, key))
			return a;
	return NULL;
}

int cmds_args_check(const char *cmd, const struct cmds_arg *spec, const json_t *args,
		    char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(args)) {
		snprintf(err, errlen, "the arguments of \"%s\" must be an object", cmd);
		return -EINVAL;
	}
	json_object_foreach((json_t *)args, key, v) {
		const struct cmds_arg *a = spec;
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
