/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/util/test_commands.c: the one list of commands (lib/util/commands.c)
 * and what reads it: each name declared once and of one kind; the REST
 * routes built from it (daemon/http/api_routes.c) exactly the API's
 * resources of docs/api.md, a route naming an argument its command does
 * not take refused; loomctl --db's runners (cli/local_run.c) exactly the
 * commands marked CMDS_DB. (Every loomd command has a handler: loomd does
 * not start otherwise, ctl_unhandled; tests/unit/daemon/core/test_ctl.c.) */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>

#include "cli/local_run.h"
#include "daemon/http/api_routes.h"
#include "lib/util/commands.h"
#include "tests/unit/fixtures/check_run.h"

START_TEST(each_command_is_declared_once_and_of_one_kind)
{
	size_t n = 0;

	for (const struct cmds_decl *d = cmds_table(); d->name; d++, n++) {
		ck_assert_msg(cmds_find(cmds_table(), d->name) == d, "%s declared twice", d->name);
		ck_assert_msg(!(d->flags & CMDS_LOOMD) != !(d->flags & CMDS_LOOMCTL),
			      "%s: loomd's or loomctl's, one of them", d->name);
		ck_assert_msg(!(d->flags & CMDS_DB) || (d->flags & CMDS_LOOMD),
			      "%s: --db answers only loomd's commands", d->name);
		ck_assert_msg(d->args && d->usage && *d->usage && d->help, "%s: no usage", d->name);
		if (d->flags & CMDS_LOOMCTL)
			ck_assert_msg(d->http[0].method == CMDS_HTTP_NONE && !d->args[0].key,
				      "%s: loomctl's alone, yet a route or arguments", d->name);
	}
	ck_assert_uint_ge(n, 40);
	ck_assert_ptr_null(cmds_find(cmds_table(), "frobnicate"));
}
END_TEST

/* A route as one line: method path command segment [params] flags fixed. */
static void route_line(const struct api_route *r, char *out, size_t len)
{
	snprintf(out, len, "%s %s %s %s [%s] %s%s%s%s%s%s %s",
		 r->method == EVHTTP_REQ_GET ? "GET" : r->method == EVHTTP_REQ_POST ? "POST" :
		 r->method == EVHTTP_REQ_DELETE ? "DELETE" : "?", r->path, r->cmd ? r->cmd : "-",
		 r->seg_arg ? r->seg_arg : "-", r->params ? r->params : "-",
		 r->flags ? "" : "0", (r->flags & API_R_LIST) ? "LIST" : "",
		 (r->flags & API_R_BODY) ? "BODY" : "", (r->flags & API_R_JOB) ? "JOB" : "",
		 (r->flags & API_R_CALL) ? "CALL" : "", (r->flags & API_R_JOBS) ? "JOBS" : "",
		 r->fixed ? r->fixed : "-");
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The resources the API had before its routes came from the declarations
 * (docs/api.md): the same paths, commands, parameters and types. */
static const char *const api_resources[] = {
	"POST call - - [-] CALL -",
	"GET jobs/{} - - [-] JOBS -",
	"GET status status - [-] 0 -",
	"GET nodes nodes - [type:s] LIST -",
	"GET nodes/{} node id [-] 0 -",
	"GET nodes/{}/ports ports node [-] LIST -",
	"GET ports ports - [node:s] LIST -",
	"GET links links - [-] LIST -",
	"GET find find - [q:s limit:i] 0 -",
	"GET events events - [since:n kind:s] LIST -",
	"GET routing/runs route-runs - [-] LIST -",
	"GET routing/check route-check - [subnet:s cached:b shifts:i random:i seed:i bisections:i] 0 -",
	"GET routing/trace route-trace - [subnet:s cached:b src:s dst:s] 0 -",
	"GET tenants tenant-list - [-] LIST -",
	"GET tenants/{} tenant-show name [-] 0 -",
	"GET tenants/{}/verify tenant-verify name [-] 0 -",
	"GET qos/plan qos-plan - [switch:s] 0 -",
	"GET qos/status qos-status - [switch:s] 0 -",
	"GET qos/ib/status qos-ib-status - [-] 0 -",
	"GET qos/ib-cc/status qos-ib-cc-status - [-] 0 -",
	"GET ar/status ar-status - [subnet:s cached:b] 0 -",
	"GET switches switches - [-] LIST -",
	"GET switches/{} switches name [-] 0 -",
	"GET counters counters - [node:s port:i subnet:s top:i sort:s now:b] 0 -",
	"GET eth-counters switch_counters - [switch:s port:s now:b] 0 -",
	"GET health health - [subnet:s top:i window_s:i] 0 -",
	"GET ports/{}/history port-history node [port:i since:n] 0 -",
	"GET impact/{} job job [subnet:s top:i] 0 -",
	"GET impact job - [hosts:s subnet:s top:i seed:i] 0 -",
	"GET impact/{}/history job-history job [subnet:s from:n to:n] 0 -",
	"GET fabric/validate fabric-validate - [subnet:s plan:b fabric:b] 0 -",
	"GET isolation/links link-isolated - [subnet:s] 0 -",
	"GET fabric/issues fabric-issues - [subnet:s] 0 -",
	"GET slurm/topology slurm-topology - [format:s subnet:s] 0 -",
	"POST discover discover - [-] JOB {\"wait\": true}",
	"POST isolation/links link-isolate - [-] BODY -",
	"DELETE isolation/links link-restore - [-] BODY -",
	"POST tenants tenant-create - [-] BODY -",
	"DELETE tenants/{} tenant-delete name [-] 0 -",
	"POST tenants/{}/hosts tenant-add-hosts name [-] BODY -",
	"DELETE tenants/{}/hosts tenant-remove-hosts name [-] BODY -",
	"POST qos/apply qos-apply - [-] BODY -",
	"POST qos/ib/apply qos-ib-apply - [-] 0 -",
	"POST qos/ib-cc/apply qos-ib-cc-apply - [-] 0 -",
	"POST ar/program ar-program - [-] BODY -",
};
#define N_RESOURCES (sizeof(api_resources) / sizeof(api_resources[0]))

START_TEST(the_rest_routes_from_the_declarations_are_the_apis_resources)
{
	static struct api_route routes[API_MAX_ROUTES];
	char err[256] = "", *got[API_MAX_ROUTES];
	const char *want[N_RESOURCES];
	size_t n = 0;
	int changes = 0;

	ck_assert_int_eq(api_routes_build(cmds_table(), routes, API_MAX_ROUTES, &n, err,
					  sizeof(err)), 0);
	ck_assert_uint_eq(n, N_RESOURCES);
	for (size_t i = 0; i < n; i++) {
		got[i] = malloc(512);
		route_line(&routes[i], got[i], 512);
		/* the reads first: a path's Allow names GET before the changes */
		if (routes[i].method != EVHTTP_REQ_GET && i >= 2)
			changes = 1;
		ck_assert_msg(!changes || routes[i].method != EVHTTP_REQ_GET || i < 2,
			      "a read after the changes: %s", got[i]);
	}
	memcpy(want, api_resources, sizeof(want));
	qsort(got, n, sizeof(got[0]), by_text);
	qsort(want, N_RESOURCES, sizeof(want[0]), by_text);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(got[i], want[i]);
		free(got[i]);
	}
	/* tenants/{}/hosts: POST before DELETE, as its Allow says */
	for (size_t i = 0, post = 0; i < n; i++)
		if (!strcmp(routes[i].path, "tenants/{}/hosts")) {
			ck_assert_uint_eq(routes[i].method, post ? EVHTTP_REQ_DELETE : EVHTTP_REQ_POST);
			post = 1;
		}
}
END_TEST

START_TEST(a_route_naming_an_argument_its_command_lacks_is_refused)
{
	static const struct cmds_arg node[] = { CMDS_ARG_S("node"), CMDS_ARG_END };
	static const struct cmds_decl bad_query[] = {
		{ .name = "ports", .flags = CMDS_LOOMD, .args = node,
		  .http = { { CMDS_HTTP_GET, "ports", NULL, "node colour", 0, NULL } } },
		{ .name = NULL },
	};
	static const struct cmds_decl bad_seg[] = {
		{ .name = "ports", .flags = CMDS_LOOMD, .args = node,
		  .http = { { CMDS_HTTP_GET, "nodes/{}/ports", "id", NULL, 0, NULL } } },
		{ .name = NULL },
	};
	static struct api_route routes[8];
	char err[256] = "";
	size_t n;

	ck_assert_int_eq(api_routes_build(bad_query, routes, 8, &n, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "ports: query parameter \"colour\" is not an argument of the command");
	ck_assert_int_eq(api_routes_build(bad_seg, routes, 8, &n, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "ports: the path's \"id\" is not an argument of the command");
	ck_assert_int_eq(api_routes_build(bad_query, routes, 2, &n, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(db_answers_exactly_the_commands_marked_db)
{
	size_t marked = 0, runners = 0;

	for (const struct cmds_decl *d = cmds_table(); d->name; d++) {
		if (d->flags & CMDS_DB) {
			marked++;
			ck_assert_msg(local_runner_find(d->name), "%s is marked --db but has no "
				      "runner in cli/local_run.c", d->name);
		} else {
			ck_assert_msg(!local_runner_find(d->name), "%s has a --db runner but is not "
				      "marked CMDS_DB", d->name);
		}
	}
	for (const struct local_runner *r = local_runners(); r->cmd; r++, runners++) {
		const struct cmds_decl *d = cmds_find(cmds_table(), r->cmd);

		ck_assert_msg(d && (d->flags & CMDS_DB), "runner %s: no command marked CMDS_DB",
			      r->cmd);
	}
	ck_assert_uint_eq(marked, runners);
	ck_assert_uint_ge(marked, 16);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("commands");
	TCase *tc = tcase_create("commands");

	tcase_add_test(tc, each_command_is_declared_once_and_of_one_kind);
	tcase_add_test(tc, the_rest_routes_from_the_declarations_are_the_apis_resources);
	tcase_add_test(tc, a_route_naming_an_argument_its_command_lacks_is_refused);
	tcase_add_test(tc, db_answers_exactly_the_commands_marked_db);
	suite_add_tcase(s, tc);
	return check_run(s);
}
