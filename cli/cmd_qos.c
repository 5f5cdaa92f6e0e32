/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_qos.c: `loomctl qos plan|status|apply [--switch NAME]`: the
 * lossless RoCE policy of loom.yaml on the Ethernet switches, through their
 * plugins. plan: every object applying would create, change or delete,
 * marked SHARED where ports loom does not manage use it too (or it is the
 * whole switch's), then what would change key by key; status: each
 * switch in policy, drifted or unreachable; apply: apply, then read back.
 * status and apply exit 1 unless every switch is in policy. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* "  create  DSCP_TO_TC_MAP|LOOM" ... "  change  CABLE_LENGTH|AZURE  SHARED:
 * switch-wide" (none from a plugin without the qos_objects op). */
static void print_objects(const json_t *objs)
{
	size_t n[3] = { 0 }, shared = 0, i;
	static const char *const acts[] = { "create", "change", "delete" };
	json_t *o;

	if (!json_array_size(objs))
		return;
	json_array_foreach(objs, i, o) {
		const json_t *sw = json_object_get(o, "shared_with");
		const char *act = output_str(o, "action");

		for (unsigned a = 0; a < 3; a++)
			n[a] += !strcmp(act, acts[a]);
		shared += json_is_string(sw) && *json_string_value(sw);
	}
	printf("  %zu objects: %zu to create, %zu to change, %zu to delete; %zu shared (used by "
	       "ports loom does not manage, or switch-wide)\n", json_array_size(objs), n[0], n[1],
	       n[2], shared);
	json_array_foreach(objs, i, o) {
		const json_t *sw = json_object_get(o, "shared_with");

		printf("  %-7s %s", output_str(o, "action"), output_str(o, "key"));
		if (json_is_string(sw) && *json_string_value(sw))
			printf("  SHARED: %s", json_string_value(sw));
		putchar('\n');
	}
	putchar('\n');
}

static int print_switches(const json_t *res, int keys)
{
	static const char *const hdr[] = { "SWITCH", "PLUGIN", "STATE", "PORTS", "CHANGES",
					   "LANDED", "ERROR" };
	struct output_table *t = output_table_new(7, hdr);
	const json_t *list = json_object_get(res, "switches");
	size_t i;
	json_t *s;
	int rc;

	json_array_foreach(list, i, s) {
		char ports[24], changes[24], landed[24];

		snprintf(ports, sizeof(ports), "%lld", output_int(s, "ports"));
		snprintf(changes, sizeof(changes), "%lld", output_int(s, "changes"));
		snprintf(landed, sizeof(landed), "%lld", output_int(s, "landed"));
		const char *row[] = { output_str(s, "name"), output_str(s, "plugin"),
				      output_str(s, "state"), ports, changes, landed,
				      output_str(s, "error") };
		output_table_add(t, row);
	}
	if ((rc = output_table_flush(t, stdout)) < 0 || !keys)
		return rc;
	/* Then, switch by switch, the objects (plan) and every key: "key
	 * field: before -> after". */
	json_array_foreach(list, i, s) {
		const json_t *ks = json_object_get(s, "keys");
		size_t k;
		json_t *c;

		if (!json_array_size(ks) && !json_array_size(json_object_get(s, "objects")))
			continue;
		printf("\n%s:\n", output_str(s, "name"));
		print_objects(json_object_get(s, "objects"));
		json_array_foreach(ks, k, c) {
			const char *before = output_str(c, "before"), *after = output_str(c, "after");

			printf("  %s %s: %s -> %s%s\n", output_str(c, "key"), output_str(c, "field"),
			       *before ? before : "(none)", *after ? after : "(none)",
			       json_is_false(json_object_get(c, "done")) &&
			       !strcmp(output_str(res, "mode"), "apply") ? "  NOT APPLIED" : "");
		}
	}
	return 0;
}

int cmd_qos(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "switch", required_argument, NULL, 's' },
		{ "ib", no_argument, NULL, 'i' },
		{ "ib-cc", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	int ib = 0;
	const char *what, *one = NULL, *cmd;
	json_t *result = NULL, *args;
	int c, rc, all_in;

	if (argc < 2)
		return loomctl_usage_error(lc, "qos", "plan, status or apply?");
	what = argv[1];
	if (!strcmp(what, "plan"))
		cmd = "qos-plan";
	else if (!strcmp(what, "status"))
		cmd = "qos-status";
	else if (!strcmp(what, "apply"))
		cmd = "qos-apply";
	else
		return loomctl_usage_error(lc, "qos", "\"%s\": not plan, status or apply", what);
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			one = optarg;
			break;
		case 'i':
			ib = 1;
			break;
		case 'c':
			ib = 2;
			break;
		default:
			return loomctl_usage_hint();
		}
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "qos", "unexpected argument \"%s\"", argv[optind]);
	if (ib && one)
		return loomctl_usage_error(lc, "qos", "--ib is the InfiniBand fabric, not a switch");
	if (ib == 2)
		return cmd_qos_ibcc(lc, what);
	if (ib)
		return cmd_qos_ib(lc, what);
	if (lc->db_path)
		return loomctl_usage_error(lc, "qos", "asks the switches: needs loomd, not --db");
	args = one ? json_pack("{s:s}", "switch", one) : json_object();
	if (loomctl_call(lc, cmd, args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print_switches(result, strcmp(what, "status"));
	all_in = output_int(result, "in_policy") == output_int(result, "switches_total");
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return strcmp(what, "plan") && !all_in ? LOOMCTL_EXIT_FAILED : LOOMCTL_EXIT_OK;
}
