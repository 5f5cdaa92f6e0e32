/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_routes.h: the REST API's table of routes (docs/api.md),
 * built from the commands' declarations (lib/util/commands.h): each
 * declared route of a command, GETs first then the changes, each in the
 * declarations' order, after the API's own two (POST call, GET jobs/{}).
 * A route's query parameters are typed by the command's arguments. Pure:
 * no request, no loop. */
#ifndef LOOMD_API_ROUTES_H
#define LOOMD_API_ROUTES_H

#include <stddef.h>

#include "lib/util/commands.h"

enum {
	API_R_LIST = CMDS_R_LIST,   /* the result is an array: ?limit=&offset= pages it */
	API_R_BODY = CMDS_R_BODY,   /* the arguments come from the JSON body */
	API_R_JOB = CMDS_R_JOB,     /* long: 202 and a job to poll */
	API_R_CALL = 1 << 8,        /* POST /api/v1/call */
	API_R_JOBS = 1 << 9,        /* GET /api/v1/jobs/{id} */
};

#define API_PARAMS_LEN 192
#define API_MAX_ROUTES 64

struct api_route {
	unsigned method;       /* EVHTTP_REQ_GET, ... */
	const char *path;      /* under /api/v1/; "{}" is one segment */
	const char *cmd;
	const char *seg_arg;   /* the argument "{}" becomes */
	const char *params;    /* the query parameters a GET takes, "NAME:TYPE" separated by
				* spaces (s string, i integer >= 0, n number, b true/false);
				* NULL none */
	unsigned flags;
	const char *fixed;     /* arguments always given (JSON), or NULL */
	char params_buf[API_PARAMS_LEN];
};

/* The routes of the declarations `decls` into out[0..max): 0 with *n, or
 * -EINVAL with err naming the command whose route is wrong (a query
 * parameter or segment argument it does not declare, a route too many). */
int api_routes_build(const struct cmds_decl *decls, struct api_route *out, size_t max,
		     size_t *n, char *err, size_t errlen);
/* Does `rel` (the path under /api/v1/) match the pattern? The "{}"
 * segment is copied into seg. */
int api_routes_match(const char *pat, const char *rel, char *seg, size_t seglen);
/* Is `name` among the route's parameters? Its type, or 0. */
char api_routes_param_type(const char *params, const char *name);

#endif
