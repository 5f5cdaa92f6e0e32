/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_ar.c: `loomctl ar status`: the adaptive routing capability of
 * every switch (issue 7) as loomd's ARInfo probe finds it now, or as the
 * last probe found it (--cached, --db). A switch without AR is not an
 * error: it stays on static routing, so the exit status is 0 whenever the
 * probe ran. `loomctl ar program [--dry-run]`: loomd programs AR where
 * switches support it (daemon/ar/ar_apply.h); exit 1 when any switch failed
 * (AR left off there), since that one needs the operator; unsupported and
 * refused switches were not touched and keep static routing. */
#include "autoconf.h"
#include "loomctl.h"

#include <getopt.h>
#include <string.h>

/* A boolean-or-null member: "yes", "no" or "" (printed "-": unknown). */
static const char *yes_no(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "";
}

static int print_status(const json_t *res)
{
	static const char *const hdr[] = { "SWITCH", "GUID", "SUPPORTED", "ENABLED",
					   "GROUPS-USED", "CAPACITY", "REASON" };
	const json_t *p = json_object_get(res, "probe");
	struct output_table *t;
	size_t i;
	json_t *s;

	printf("subnet:    %s: %lld switches, %lld with adaptive routing, %lld on static "
	       "routing only\n", output_str(res, "subnet"),
	       (long long)json_array_size(json_object_get(res, "switches")),
	       output_int(res, "supported"), output_int(res, "unsupported"));
	printf("probe:     %s%s, %lld ARInfo SMPs in %lld ms (%lld ms a try, %lld retries, "
	       "up to %lld in flight)\n", output_str(p, "time"),
	       json_is_true(json_object_get(p, "cached")) ? " (cached)" : "",
	       output_int(p, "smps"), output_int(p, "duration_ms"), output_int(p, "timeout_ms"),
	       output_int(p, "retries"), output_int(p, "in_flight"));
	t = output_table_new(7, hdr);
	json_array_foreach(json_object_get(res, "switches"), i, s) {
		char used[24], cap[24];
		const char *row[] = {
			output_str(s, "desc"), output_str(s, "guid"),
			json_is_true(json_object_get(s, "supported")) ? "yes" : "no",
			yes_no(s, "enabled"), output_count(s, "groups_used", "", used, sizeof(used)),
			output_count(s, "group_cap", "", cap, sizeof(cap)), output_str(s, "reason"),
		};

		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

/* Both subcommands' options: --subnet NAME and one flag (--FLAG, sent as
 * args[key] = true), no argument. -1 with the request's args in *args, or
 * the exit status of a usage error. */
static int parse_args(struct loomctl *lc, int argc, char **argv, const char *what,
		      const char *flag, const char *key, json_t **args)
{
	const struct option opts[] = {
		{ "subnet", required_argument, NULL, 'n' },
		{ flag, no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*args = json_object();
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'n') {
			json_object_set_new(*args, "subnet", json_string(optarg));
		} else if (c == 'f') {
			json_object_set_new(*args, key, json_true());
		} else {
			json_decref(*args);
			return loomctl_usage_hint();
		}
	}
	if (optind < argc) {
		json_decref(*args);
		return loomctl_usage_error(lc, what, "unexpected argument \"%s\"", argv[optind]);
	}
	return -1;
}

static int ar_status(struct loomctl *lc, int argc, char **argv)
{
	json_t *args = NULL, *result = NULL;
	int rc;

	if ((rc = parse_args(lc, argc, argv, "ar status", "cached", "cached", &args)) >= 0)
		return rc;
	if (loomctl_call(lc, "ar-status", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_status(result);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}

/* ---- ar program ---------------------------------------------------------------- */

static int print_program(const json_t *res)
{
	static const char *const hdr[] = { "SWITCH", "GUID", "RESULT", "GROUPS", "SMPS",
					   "SHIELD", "REASON" };
	const json_t *run = json_object_get(res, "run");
	int dry = json_is_true(json_object_get(res, "dry_run"));
	struct output_table *t;
	size_t i;
	json_t *s;
	int rc;

	t = output_table_new(7, hdr);
	json_array_foreach(json_object_get(res, "switches"), i, s) {
		char groups[24], smps[48];
		const char *row[] = {
			output_str(s, "desc"), output_str(s, "guid"), output_str(s, "result"),
			groups, smps, output_str(s, "shield"), output_str(s, "reason"),
		};

		snprintf(groups, sizeof(groups), "%lld", output_int(s, "groups"));
		/* A dry run's Sets were not sent: say both numbers. */
		if (dry)
			snprintf(smps, sizeof(smps), "%lld (+%lld)", output_int(s, "smps_sent"),
				 output_int(s, "sets"));
		else
			snprintf(smps, sizeof(smps), "%lld", output_int(s, "smps_sent"));
		output_table_add(t, row);
	}
	if ((rc = output_table_flush(t, stdout)) < 0)
		return rc;
	printf("%s%s: %lld switches: %lld programmed, %lld unsupported (static routing), "
	       "%lld refused, %lld failed%s; %lld SMPs in %.0f ms\n",
	       dry ? "dry run on " : "", output_str(res, "subnet"),
	       (long long)json_array_size(json_object_get(res, "switches")),
	       output_int(run, "programmed"), output_int(run, "unsupported"),
	       output_int(run, "refused"), output_int(run, "failed"),
	       dry ? " (no Set sent; SMPS shows sent (+Sets it would send))" : "",
	       output_int(run, "smps"),
	       (json_number_value(json_object_get(run, "finished")) -
		json_number_value(json_object_get(run, "started"))) * 1000.0);
	return 0;
}

/* 1 when any switch failed (its AR is off, or unknown), else 0. */
static int any_failed(const json_t *res)
{
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(res, "switches"), i, s)
		if (!strcmp(output_str(s, "result"), "failed"))
			return 1;
	return 0;
}

static int ar_program(struct loomctl *lc, int argc, char **argv)
{
	json_t *args = NULL, *result = NULL;
	int rc;

	if ((rc = parse_args(lc, argc, argv, "ar program", "dry-run", "dry_run", &args)) >= 0)
		return rc;
	if (lc->db_path) {  /* "ar" reads with --db; this subcommand writes */
		json_decref(args);
		return loomctl_usage_error(lc, "ar program", "needs a running loomd; it cannot "
					   "run on a database (--db)");
	}
	if (loomctl_call(lc, "ar-program", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_program(result);
	if (rc < 0) {
		json_decref(result);
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	rc = any_failed(result) ? LOOMCTL_EXIT_FAILED : LOOMCTL_EXIT_OK;
	json_decref(result);
	return rc;
}

int cmd_ar(struct loomctl *lc, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "status") == 0)
		return ar_status(lc, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "program") == 0)
		return ar_program(lc, argc - 1, argv + 1);
	return loomctl_usage_error(lc, "ar", argc < 2 ? "a subcommand is needed%s" :
				   "unknown subcommand \"%s\" (this version has: status, "
				   "program)", argc < 2 ? "" : argv[1]);
}
