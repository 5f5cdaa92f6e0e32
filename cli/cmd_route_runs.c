/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_route_runs.c: `loomctl route runs`: the history of OpenSM's
 * routing runs with loom's engines, as libloomosm.so reported them to loomd
 * (engine asked for, engine that routed, time taken, VLs, and the metrics
 * of the tables it made), newest first. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* Runs shown without --limit: a screenful. */
#define ROUTE_RUNS_DEFAULT_LIMIT 20

static long long mint(const json_t *m, const char *key)
{
	const json_t *v = json_object_get(m, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static int print_runs(const json_t *runs)
{
	static const char *const hdr[] = {
		"TIME", "ENGINE", "ROUTED-BY", "DURATION", "VLS", "PAIRS", "LOOPS", "SHIFT",
		"RANDOM", "RESULT",
	};
	struct output_table *t = output_table_new(10, hdr);
	size_t i;
	json_t *r;

	json_array_foreach(runs, i, r) {
		const json_t *m = json_object_get(r, "metrics");
		char dur[32], vls[16], pairs[48] = "", loops[24] = "", shift[24] = "",
		     rnd[24] = "", result[300];
		const char *reason = output_str(r, "reason");

		snprintf(dur, sizeof(dur), "%.1fms",
			 json_number_value(json_object_get(r, "duration_ms")));
		snprintf(vls, sizeof(vls), "%lld", output_int(r, "vls"));
		/* Without metrics (a failed run, or a worker still busy in the
		 * plugin) those cells print as "-". */
		if (json_is_object(m)) {
			snprintf(pairs, sizeof(pairs), "%lld/%lld", mint(m, "delivered"),
				 mint(m, "pairs"));
			snprintf(loops, sizeof(loops), "%lld", mint(m, "loops"));
			snprintf(shift, sizeof(shift), "%lld", mint(m, "shift_max_load"));
			snprintf(rnd, sizeof(rnd), "%lld", mint(m, "random_max_load"));
		}
		snprintf(result, sizeof(result), "%s%s%s", output_str(r, "result"),
			 *reason ? ": " : "", reason);
		const char *row[] = {
			output_str(r, "time"), output_str(r, "engine"), output_str(r, "routed_by"),
			dur, vls, pairs, loops, shift, rnd, result,
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_route_runs(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "limit", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	long limit = ROUTE_RUNS_DEFAULT_LIMIT;
	json_t *result = NULL;
	char *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "l:", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			errno = 0;
			limit = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || limit < 1)
				return loomctl_usage_error(lc, "route runs", "--limit: \"%s\" is not "
							   "a positive number", optarg);
			break;
		default:
			return loomctl_usage_hint();
		}
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "route runs", "unexpected argument \"%s\"",
					   argv[optind]);
	if (loomctl_call(lc, "route-runs", json_pack("{s:I}", "limit", (json_int_t)limit),
			 &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_runs(result);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}
