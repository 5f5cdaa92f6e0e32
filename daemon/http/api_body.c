/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_body.c: see api_body.h. */
#include "autoconf.h"
#include "daemon/http/api_body.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int api_body_args(const char *body, size_t len, json_t **args, char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc;

	*args = NULL;
	if (len == 0) {
		*args = json_object();
		return *args ? 0 : -ENOMEM;
	}
	if (!(doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je))) {
		snprintf(err, errlen, "the body is not valid JSON: %s (at byte %d)", je.text,
			 je.position);
		return -EINVAL;
	}
	if (!json_is_object(doc)) {
		snprintf(err, errlen, "the body must be a JSON object");
		json_decref(doc);
		return -EINVAL;
	}
	*args = doc;
	return 0;
}

int api_body_call(const char *body, size_t len, char cmd[API_CMD_LEN], json_t **args,
		  char *err, size_t errlen)
{
	json_t *doc, *c, *a, *v;
	const char *key;
	int rc = api_body_args(body, len, &doc, err, errlen);

	*args = NULL;
	cmd[0] = '\0';
	if (rc < 0)
		return rc;
	json_object_foreach(doc, key, v) {
		if (strcmp(key, "cmd") && strcmp(key, "args")) {
			snprintf(err, errlen, "unknown field \"%.64s\": the body is {\"cmd\": "
				 "\"NAME\", \"args\": {...}}", key);
			goto bad;
		}
	}
	c = json_object_get(doc, "cmd");
	if (!c) {
		snprintf(err, errlen, "field \"cmd\" is required");
		goto bad;
	}
	if (!json_is_string(c) || json_string_length(c) == 0 ||
	    json_string_length(c) >= API_CMD_LEN || strlen(json_string_value(c)) !=
	    json_string_length(c)) {
		snprintf(err, errlen, "field \"cmd\" must be a command name (a string of 1 to "
			 "%d bytes)", API_CMD_LEN - 1);
		goto bad;
	}
	a = json_object_get(doc, "args");
	if (a && !json_is_null(a) && !json_is_object(a)) {
		snprintf(err, errlen, "field \"args\" must be an object");
		goto bad;
	}
	snprintf(cmd, API_CMD_LEN, "%s", json_string_value(c));
	*args = a && json_is_object(a) ? json_incref(a) : json_object();
	json_decref(doc);
	return *args ? 0 : -ENOMEM;
bad:
	json_decref(doc);
	return -EINVAL;
}
