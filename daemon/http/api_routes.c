/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_routes.c: see api_routes.h. */
#include "autoconf.h"
#include "daemon/http/api_routes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <event2/http.h>

static unsigned method_of(enum cmds_method m)
{
	return m == CMDS_HTTP_GET ? EVHTTP_REQ_GET : m == CMDS_HTTP_POST ? EVHTTP_REQ_POST :
	       EVHTTP_REQ_DELETE;
}

static char type_of(enum cmds_arg_type t)
{
	return t == CMDS_ARG_STRING ? 's' : t == CMDS_ARG_INT ? 'i' : t == CMDS_ARG_NUMBER ? 'n' : 'b';
}

/* r's "NAME:TYPE ..." from the names of query, typed by d's arguments. */
static int params_of(const struct cmds_decl *d, const char *query, struct api_route *r,
		     char *err, size_t errlen)
{
	size_t off = 0;

	for (const char *p = query; *p;) {
		size_t len = strcspn(p, " ");
		char name[64];
		const struct cmds_arg *a;
		int w;

		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (!(a = cmds_arg_find(d->args, name))) {
			snprintf(err, errlen, "%s: query parameter \"%s\" is not an argument of the "
				 "command", d->name, name);
			return -EINVAL;
		}
		w = snprintf(r->params_buf + off, sizeof(r->params_buf) - off, "%s%s:%c",
			     off ? " " : "", name, type_of(a->type));
		if (w < 0 || (size_t)w >= sizeof(r->params_buf) - off) {
			snprintf(err, errlen, "%s: too many query parameters", d->name);
			return -EINVAL;
		}
		off += (size_t)w;
		p += len;
		p += *p == ' ';
	}
	r->params = r->params_buf;
	return 0;
}

static int add(const struct cmds_decl *d, const struct cmds_route *cr, struct api_route *out,
	       size_t max, size_t *n, char *err, size_t errlen)
{
	struct api_route *r;

	if (*n >= max) {
		snprintf(err, errlen, "%s: more than %zu routes", d->name, max);
		return -EINVAL;
	}
	if (cr->seg_arg && !cmds_arg_find(d->args, cr->seg_arg)) {
		snprintf(err, errlen, "%s: the path's \"%s\" is not an argument of the command",
			 d->name, cr->seg_arg);
		return -EINVAL;
	}
	r = &out[(*n)++];
	memset(r, 0, sizeof(*r));
	*r = (struct api_route){ .method = method_of(cr->method), .path = cr->path,
				 .cmd = d->name, .seg_arg = cr->seg_arg, .flags = cr->flags,
				 .fixed = cr->fixed };
	return cr->query ? params_of(d, cr->query, r, err, errlen) : 0;
}

int api_routes_build(const struct cmds_decl *decls, struct api_route *out, size_t max,
		     size_t *n, char *err, size_t errlen)
{
	static const struct api_route own[] = {
		{ .method = EVHTTP_REQ_POST, .path = "call", .flags = API_R_CALL },
		{ .method = EVHTTP_REQ_GET, .path = "jobs/{}", .flags = API_R_JOBS },
	};

	*n = 0;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]) && i < max; i++)
		out[(*n)++] = own[i];
	/* the reads first, then the changes (a path's Allow lists them so) */
	for (int gets = 1; gets >= 0; gets--)
		for (const struct cmds_decl *d = decls; d->name; d++)
			for (size_t k = 0; k < CMDS_ROUTES_MAX; k++) {
				const struct cmds_route *cr = &d->http[k];
				int rc;

				if (cr->method == CMDS_HTTP_NONE ||
				    (cr->method == CMDS_HTTP_GET) != gets)
					continue;
				if ((rc = add(d, cr, out, max, n, err, errlen)) < 0)
					return rc;
			}
	return 0;
}

int api_routes_match(const char *pat, const char *rel, char *seg, size_t seglen)
{
	while (*pat && *rel) {
		if (!strncmp(pat, "{}", 2)) {
			size_t n = strcspn(rel, "/");

			if (n == 0 || n >= seglen)
				return 0;
			memcpy(seg, rel, n);
			seg[n] = '\0';
			pat += 2;
			rel += n;
			continue;
		}
		if (*pat != *rel)
			return 0;
		pat++;
		rel++;
	}
	return !*pat && (!*rel || !strcmp(rel, "/"));
}

char api_routes_param_type(const char *params, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = params; p && *p;) {
		size_t n = strcspn(p, ":");

		if (n == len && !strncmp(p, name, n) && p[n] == ':')
			return p[n + 1];
		p += strcspn(p, " ");
		p += *p == ' ';
	}
	return 0;
}
