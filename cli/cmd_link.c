/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_link.c: `loomctl link isolated|isolate|restore` (issue 42): the
 * cables loomd took out of the routes while they stay up, and an
 * operator's own (daemon/isolation/). A table, or --json. */
#include "autoconf.h"
#include "loomctl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void when(double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "-");
}

static int print_isolated(const json_t *res)
{
	static const char *const hdr[] = {
		"STATE", "KIND", "LINK", "SINCE", "BY", "RULES", "LEFT", "WHY",
	};
	struct output_table *t = output_table_new(8, hdr);
	json_t *links = json_object_get(res, "links"), *l;
	size_t i;

	printf("mode %s, set version %lld, %zu out of the routes\n", output_str(res, "mode"),
	       output_int(res, "version"), json_array_size(links));
	json_array_foreach(links, i, l) {
		char link[128], since[32], left[32] = "-";
		json_t *lf = json_object_get(l, "probation_left_s");

		snprintf(link, sizeof(link), "%s[%lld] <-> %s[%lld]", output_str(l, "guid"),
			 output_int(l, "port"), output_str(l, "peer_guid"), output_int(l, "peer_port"));
		when(json_number_value(json_object_get(l, "since")), since, sizeof(since));
		if (json_is_number(lf))
			snprintf(left, sizeof(left), "%.0fs", json_number_value(lf));
		const char *row[] = {
			output_str(l, "state"), output_str(l, "kind"), link, since, output_str(l, "by"),
			output_str(l, "rules"), left, output_str(l, "reason"),
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

static int isolated(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "subnet", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args = json_object(), *res = NULL;
	int c, rc;

	while ((c = getopt_long(argc, argv, "s:", opts, NULL)) != -1) {
		if (c != 's') {
			json_decref(args);
			return loomctl_usage_hint();
		}
		json_object_set_new(args, "subnet", json_string(optarg));
	}
	if (optind != argc) {
		json_decref(args);
		return loomctl_usage_error(lc, "link isolated", "no argument expected");
	}
	if (loomctl_call(lc, "link-isolated", args, &res) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(res, stdout) : print_isolated(res);
	json_decref(res);
	return rc < 0 ? LOOMCTL_EXIT_FAILED : LOOMCTL_EXIT_OK;
}

/* isolate NODE:PORT --reason TEXT [--force], restore NODE:PORT. */
static int change(struct loomctl *lc, int argc, char **argv, int isolate)
{
	static const struct option opts[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "subnet", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *what = isolate ? "link isolate" : "link restore";
	json_t *args = json_object(), *res = NULL;
	int c, rc;

	while ((c = getopt_long(argc, argv, "r:fs:", opts, NULL)) != -1) {
		if (c == 's') {
			json_object_set_new(args, "subnet", json_string(optarg));
		} else if (isolate && c == 'r') {
			json_object_set_new(args, "reason", json_string(optarg));
		} else if (isolate && c == 'f') {
			json_object_set_new(args, "force", json_true());
		} else {
			json_decref(args);
			return loomctl_usage_hint();
		}
	}
	if (argc - optind != 1) {
		json_decref(args);
		return loomctl_usage_error(lc, what, "give one NODE:PORT");
	}
	if (isolate && !json_object_get(args, "reason")) {
		json_decref(args);
		return loomctl_usage_error(lc, what, "--reason TEXT: say why (it is in the events)");
	}
	json_object_set_new(args, "port", json_string(argv[optind]));
	if (loomctl_call(lc, isolate ? "link-isolate" : "link-restore", args, &res) < 0)
		return LOOMCTL_EXIT_FAILED;
	if (lc->json)
		rc = output_json(res, stdout);
	else if (isolate)
		rc = printf("%s is out of the routes%s; %s%s%s\n", argv[optind],
			    json_is_true(json_object_get(res, "forced")) ? " (forced)" : "",
			    output_str(res, "loss"), *output_str(res, "jobs") ? "; jobs: " : "",
			    output_str(res, "jobs"));
	else
		rc = printf("%s is back in the routes (it was %s)\n", argv[optind],
			    output_str(res, "was"));
	json_decref(res);
	return rc < 0 ? LOOMCTL_EXIT_FAILED : LOOMCTL_EXIT_OK;
}

int cmd_link(struct loomctl *lc, int argc, char **argv)
{
	if (argc < 2)
		return loomctl_usage_error(lc, "link", "isolated, isolate or restore?");
	if (!strcmp(argv[1], "isolated"))
		return isolated(lc, argc - 1, argv + 1);
	if (!strcmp(argv[1], "isolate"))
		return change(lc, argc - 1, argv + 1, 1);
	if (!strcmp(argv[1], "restore"))
		return change(lc, argc - 1, argv + 1, 0);
	return loomctl_usage_error(lc, "link", "unknown subcommand \"%s\": isolated, isolate, "
				   "restore", argv[1]);
}
