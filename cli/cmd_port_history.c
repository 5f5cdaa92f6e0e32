/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_port_history.c: `loomctl port-history NODE PORT [--since TIME]`:
 * one port's last reads (daemon/telemetry/history.h), a table or --json. */
#include "autoconf.h"
#include "loomctl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/db/db_query.h"

/* A rate or "-" when unknown. */
static const char *num(const json_t *o, const char *key, char *buf, size_t len)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.0f", json_number_value(v));
	return buf;
}

static int print_history(const json_t *res)
{
	static const char *const hdr[] = {
		"TIME", "RX B/S", "TX B/S", "XMITWAIT/S", "ERRORS",
	};
	struct output_table *t = output_table_new(5, hdr);
	size_t i;
	json_t *s;

	printf("%s:%lld (%s, %s): %zu reads, from %s\n", output_str(res, "name"),
	       output_int(res, "port"), output_str(res, "guid"), output_str(res, "subnet"),
	       json_array_size(json_object_get(res, "samples")), output_str(res, "source"));
	json_array_foreach(json_object_get(res, "samples"), i, s) {
		char rx[32], tx[32], wait[32], errs[256] = "-";
		const char *k;
		json_t *v;
		size_t off = 0;

		json_object_foreach(json_object_get(s, "errors"), k, v) {
			int w = snprintf(errs + off, sizeof(errs) - off, "%s%s+%lld", off ? " " : "",
					 k, (long long)json_integer_value(v));

			if (w < 0 || (size_t)w >= sizeof(errs) - off)
				break;
			off += (size_t)w;
		}
		const char *row[] = {
			output_str(s, "time"), num(s, "rx_bytes_s", rx, sizeof(rx)),
			num(s, "tx_bytes_s", tx, sizeof(tx)), num(s, "xmit_wait_per_s", wait,
								   sizeof(wait)), errs,
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_port_history(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args, *result = NULL;
	double since = 0;
	long port;
	char *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "s:", opts, NULL)) != -1) {
		if (c != 's')
			return loomctl_usage_hint();
		if (dbq_time_parse(optarg, (double)time(NULL), &since) < 0)
			return loomctl_usage_error(lc, "port-history", "--since: \"%s\" is not a "
						   "time", optarg);
	}
	if (argc - optind != 2)
		return loomctl_usage_error(lc, "port-history", "give a NODE (GUID or name) and "
					   "a PORT number");
	port = strtol(argv[optind + 1], &end, 10);
	if (*end || port < 0 || port > 255)
		return loomctl_usage_error(lc, "port-history", "PORT: a number from 0 to 255");
	if (!(args = json_pack("{s:s, s:i}", "node", argv[optind], "port", (int)port))) {
		loomctl_error(lc, "port-history: the node is not valid UTF-8");
		return LOOMCTL_EXIT_FAILED;
	}
	if (since > 0)
		json_object_set_new(args, "since", json_real(since));
	if (loomctl_call(lc, "port-history", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_history(result);
	json_decref(result);
	return rc < 0 ? LOOMCTL_EXIT_FAILED : LOOMCTL_EXIT_OK;
}
