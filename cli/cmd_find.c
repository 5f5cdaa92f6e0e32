/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_find.c: `loomctl find TEXT [--limit N]`: what TEXT names in the
 * fabric, best first (lib/db/find_db.h), as a table or --json. */
#include "autoconf.h"
#include "loomctl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_find(const json_t *hits)
{
	static const char *const hdr[] = {
		"KIND", "NAME", "GUID", "PORT", "LID", "MATCHED", "LEAF",
	};
	struct output_table *t = output_table_new(7, hdr);
	size_t i;
	json_t *h;

	json_array_foreach(hits, i, h) {
		json_t *leaf = json_object_get(h, "leaf");
		char port[16] = "-", lid[16] = "-", where[160] = "-";

		if (json_is_integer(json_object_get(h, "port")))
			snprintf(port, sizeof(port), "%lld", output_int(h, "port"));
		if (json_is_integer(json_object_get(h, "lid")))
			snprintf(lid, sizeof(lid), "%lld", output_int(h, "lid"));
		if (json_is_object(leaf))
			snprintf(where, sizeof(where), "%s:%lld", output_str(leaf, "name"),
				 output_int(leaf, "port"));
		const char *row[] = {
			output_str(h, "kind"), output_str(h, "name"),
			*output_str(h, "guid") ? output_str(h, "guid") : "-", port, lid,
			output_str(h, "matched"), where,
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_find(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "limit", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args, *result = NULL;
	long limit = 0;
	char *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "l:", opts, NULL)) != -1) {
		if (c != 'l')
			return loomctl_usage_hint();
		limit = strtol(optarg, &end, 10);
		if (*end || limit < 1 || limit > 200)
			return loomctl_usage_error(lc, "find", "--limit: a count from 1 to 200");
	}
	if (argc - optind != 1)
		return loomctl_usage_error(lc, "find", "give one TEXT to find");
	if (!(args = json_pack("{s:s}", "q", argv[optind]))) {
		loomctl_error(lc, "find: the text is not valid UTF-8");
		return LOOMCTL_EXIT_FAILED;
	}
	if (limit)
		json_object_set_new(args, "limit", json_integer(limit));
	if (loomctl_call(lc, "find", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_find(result);
	json_decref(result);
	return rc < 0 ? LOOMCTL_EXIT_FAILED : LOOMCTL_EXIT_OK;
}
