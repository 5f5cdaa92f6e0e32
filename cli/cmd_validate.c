/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_validate.c: `loomctl fabric validate` and `loomctl fabric issues`
 * (issue 22). validate: loomd checks the last swept fabric now, against
 * validation.expected and the fabric's rules; with --expected FILE the plan
 * is the client's file, checked here against the fabric loomd sends (a plan
 * of thousands of cables does not fit a request), the rules still loomd's;
 * with --topology FILE no loomd at all: a topology file (ibnetdiscover's
 * output) is the fabric. issues: the findings open since the checks after
 * the sweeps, with when each was first seen.
 *
 * Nodes are named by the site's names (the node-name-map, issue 39): with
 * --node-name-map FILE that file's, else loomd's names.node_name_map, sent
 * with the fabric (offline: none without the option); a plan's node is
 * matched by GUID, that name or description, and `fabric plan` writes the
 * names, so that the plan it prints reads back the same.
 *
 * Text is for the technician: errors then warnings, each finding with its
 * ports as the plan names them, then one summary line; --summary prints
 * only that line; --json the answer. The exit status says what was found:
 * 0 nothing, 4 warnings only, 5 errors (1: the command failed). */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/etcd/etcd_codec.h"
#include "lib/fabric/fabric.h"
#include "lib/fabric/fabric_wire.h"
#include "lib/fabric/ibtypes.h"
#include "lib/fabric/nodename.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/cabling.h"
#include "lib/validate/health.h"
#include "lib/validate/plan.h"
#include "lib/validate/report.h"
#include "lib/validate/report_json.h"

enum { EXIT_WARNINGS = 4, EXIT_ERRORS = 5 };

/* ---- printing ---------------------------------------------------------------------------- */

static void print_finding(FILE *out, const json_t *f)
{
	const char *want = output_str(f, "want"), *got = output_str(f, "got");
	long long line = output_int(f, "line");

	fprintf(out, "  %-14s %s", output_str(f, "code"), output_str(f, "subject"));
	if (*want && *got)
		fprintf(out, ": want %s, got %s", want, got);
	else if (*want)
		fprintf(out, ": want %s", want);
	else if (*got)
		fprintf(out, ": %s", got);
	if (line > 0)
		fprintf(out, " (plan line %lld)", line);
	if (*output_str(f, "since"))
		fprintf(out, " [since %s]", output_str(f, "since"));
	fputc('\n', out);
}

/* The findings (or issues) of one list, errors first then warnings, under
 * a heading each. */
static void print_grouped(FILE *out, const json_t *list)
{
	static const char *const sev[] = { "error", "warning" };
	size_t i;
	json_t *f;

	for (int s = 0; s < 2; s++) {
		size_t n = 0;

		json_array_foreach(list, i, f)
			n += !strcmp(output_str(f, "severity"), sev[s]);
		if (!n)
			continue;
		fprintf(out, "%s (%zu):\n", s ? "WARNINGS" : "ERRORS", n);
		json_array_foreach(list, i, f)
			if (!strcmp(output_str(f, "severity"), sev[s]))
				print_finding(out, f);
	}
}

static void print_summary(FILE *out, const json_t *r)
{
	const char *subnet = output_str(r, "subnet");
	long long errors = output_int(r, "errors"), warnings = output_int(r, "warnings");

	fprintf(out, "%s%s%s: %lld nodes, %lld links", errors ? "FAIL" : warnings ? "WARN" : "OK",
		*subnet ? " " : "", subnet, output_int(r, "nodes"), output_int(r, "links"));
	if (output_int(r, "cables") > 0)
		fprintf(out, ", %lld of %lld planned cables as planned", output_int(r, "cables_ok"),
			output_int(r, "cables"));
	if (output_int(r, "not_seen") > 0)   /* issue 43: Ethernet rows LLDP cannot see */
		fprintf(out, ", %lld planned cables not seen by LLDP", output_int(r, "not_seen"));
	fprintf(out, ": %lld errors, %lld warnings\n", errors, warnings);
}

static int status_of(const json_t *reports)
{
	int worst = LOOMCTL_EXIT_OK;
	size_t i;
	json_t *r;

	json_array_foreach(reports, i, r) {
		if (output_int(r, "errors") > 0)
			return EXIT_ERRORS;
		if (output_int(r, "warnings") > 0)
			worst = EXIT_WARNINGS;
	}
	return worst;
}

/* The subnet managers the sweep met (issue 43): one line each. */
static void print_sms(FILE *out, const json_t *r)
{
	const json_t *sms = json_object_get(r, "subnet_managers");
	size_t i;
	json_t *sm;

	int sa_answered = 0;

	if (!json_is_array(sms))
		return;
	json_array_foreach(sms, i, sm)
		sa_answered |= json_is_true(json_object_get(sm, "sa"));
	fprintf(out, "subnet managers (%zu%s):\n", json_array_size(sms),
		sa_answered ? "" : "; the SA's list not read");
	json_array_foreach(sms, i, sm) {
		const char *where = output_str(sm, "where");
		int sa = json_is_true(json_object_get(sm, "sa")),
		    port = json_is_true(json_object_get(sm, "is_sm_port"));

		if (json_is_true(json_object_get(sm, "answered")))
			fprintf(out, "  %s %-20s priority %2lld %-11s act count %lld%s\n",
				output_str(sm, "guid"), where, output_int(sm, "priority"),
				output_str(sm, "state"), output_int(sm, "act_count"),
				sa && port ? "" : sa ? " (the SA's list only)" :
				sa_answered ? " (not in the SA's list)" : "");
		else
			fprintf(out, "  %-18s %-20s no answer to SMInfo\n", "?", where);
	}
}

/* issue 43: the multicast groups the check read, or why none were */
static void print_multicast(FILE *out, const json_t *r)
{
	const json_t *mc = json_object_get(r, "multicast"), *g;
	const char *warning = output_str(r, "multicast_warning");
	size_t i;

	if (*warning)
		fprintf(out, "%s\n", warning);
	if (!mc)
		return;
	fprintf(out, "multicast: %zu groups (%lld MADs read)\n",
		json_array_size(json_object_get(mc, "groups")), output_int(mc, "mads"));
	json_array_foreach(json_object_get(mc, "groups"), i, g)
		fprintf(out, "  %s mlid 0x%04llx: %lld members\n", output_str(g, "mgid"),
			output_int(g, "mlid"), output_int(g, "members"));
}

static void print_reports(const json_t *reports, int summary)
{
	size_t i;
	json_t *r;

	json_array_foreach(reports, i, r) {
		const char *plan = output_str(r, "plan"), *perr = output_str(r, "plan_error");

		if (!summary) {
			print_grouped(stdout, json_object_get(r, "findings"));
			if (*perr)
				printf("plan not checked: %s\n", perr);
			else if (!*plan)
				printf("no cabling plan: the fabric's rules only (validation.expected, "
				       "or --expected FILE)\n");
			/* what was not checked (BER alarms, partitions: issue 43) */
			if (*output_str(r, "warning"))
				printf("warning: %s\n", output_str(r, "warning"));
			print_sms(stdout, r);
			print_multicast(stdout, r);
		}
		print_summary(stdout, r);
	}
}

/* ---- the plan checked here ----------------------------------------------------------------- */

/* The fabric loomd sent with a report ("fabric": base64 of the wire form). */
static struct fab *fabric_of(struct loomctl *lc, const json_t *r)
{
	const char *b64 = output_str(r, "fabric");
	char *bin = NULL, err[512] = "";
	size_t len = 0;
	struct fab *fab;

	if (etcd_b64_decode(b64, strlen(b64), &bin, &len) < 0) {
		loomctl_error(lc, "loomd's fabric of subnet %s cannot be read", output_str(r, "subnet"));
		return NULL;
	}
	fab = fab_wire_read(bin, len, err, sizeof(err));
	free(bin);
	if (!fab)
		loomctl_error(lc, "loomd's fabric of subnet %s: %s", output_str(r, "subnet"), err);
	return fab;
}

/* The site's names for a fabric loomd sent with report r: --node-name-map
 * FILE's, else loomd's ("names": {"0x...": "name"}; none: NULL). 0, or -1
 * when told. */
static int names_of(struct loomctl *lc, const json_t *r, struct nodename_map **out)
{
	const json_t *names = json_object_get(r, "names");
	const char *guid;
	json_t *v;

	*out = NULL;
	if (lc->node_name_map)
		return loomctl_names(lc, out) < 0 ? -1 : 0;
	if (!json_object_size(names))
		return 0;
	if (!(*out = nodename_map_new())) {
		loomctl_error(lc, "out of memory");
		return -1;
	}
	json_object_foreach((json_t *)names, guid, v) {
		uint64_t g;

		if (ibt_guid_parse(guid, &g) < 0 || !json_is_string(v) ||
		    nodename_map_add(*out, g, json_string_value(v)) == -ENOMEM)
			continue;   /* loomd's own; a bad line is no name */
	}
	nodename_map_seal(*out);
	return 0;
}

/* The plan's findings added to loomd's report r of the same fabric, and
 * the whole settled as loomd settles its own (one fault, one finding; its
 * order); the counts set. -1 when told. */
static int add_plan(struct loomctl *lc, json_t *r, const struct plan *plan, const struct fab *fab)
{
	struct val_report all = { 0 };
	struct nodename_map *names;
	char err[512] = "";
	json_t *mine;
	int rc;

	if (names_of(lc, r, &names) < 0)
		return -1;
	rc = cabling_check(plan, fab, names, &all, err, sizeof(err));
	nodename_map_free(names);
	json_object_set_new(r, "plan", json_string(plan->source));
	json_object_del(r, "fabric");
	json_object_del(r, "names");
	if (rc == -EINVAL) {
		json_object_set_new(r, "plan_error", json_string(err));
		val_report_clear(&all);
		return 0;
	}
	if (rc == 0 && (rc = val_report_add_json(&all, json_object_get(r, "findings"))) < 0)
		snprintf(err, sizeof(err), "loomd's findings cannot be read: %s", strerror(-rc));
	if (rc < 0) {
		loomctl_error(lc, "%s", err);
		val_report_clear(&all);
		return -1;
	}
	val_report_settle(&all);
	if (!(mine = val_report_json(&all))) {
		loomctl_error(lc, "out of memory");
		val_report_clear(&all);
		return -1;
	}
	for (const char *const *k = (const char *const[]){ "findings", "errors", "warnings",
							  "cables", "cables_ok", "plan_nodes",
							  "nodes_matched", NULL }; *k; k++)
		json_object_set(r, *k, json_object_get(mine, *k));
	json_decref(mine);
	val_report_clear(&all);
	return 0;
}

/* No loomd: the topology file is the fabric, every check here. */
static json_t *validate_offline(struct loomctl *lc, const char *topo, const struct plan *plan)
{
	char err[512] = "";
	struct nodename_map *names = NULL;
	struct fab *fab;
	struct health_opts o = { .fat_tree = -1, .sm_active = 0 };
	struct val_report r = { 0 };
	json_t *rep = NULL;

	if (loomctl_names(lc, &names) < 0)
		return NULL;
	if (!(fab = topo_file_read(topo, "file", err, sizeof(err)))) {
		loomctl_error(lc, "%s", err);
		nodename_map_free(names);
		return NULL;
	}
	o.names = names;
	r.nodes = fab->n_nodes;
	r.links = fab_count_links(fab);
	if (plan) {
		int rc = cabling_check(plan, fab, names, &r, err, sizeof(err));

		if (rc < 0) {
			loomctl_error(lc, "%s", err);
			goto out;
		}
	}
	if (health_check(fab, &o, &r, err, sizeof(err)) < 0) {
		loomctl_error(lc, "%s", err);
		goto out;
	}
	val_report_settle(&r);
	if ((rep = val_report_json(&r))) {
		json_object_set_new(rep, "subnet", json_string(topo));
		json_object_set_new(rep, "plan", plan ? json_string(plan->source) : json_null());
	}
out:
	val_report_clear(&r);
	fab_free(fab);
	nodename_map_free(names);
	return rep;
}

/* ---- the commands ---------------------------------------------------------------------------- */

static int cmd_validate(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expected", required_argument, NULL, 'e' },
		{ "topology", required_argument, NULL, 't' },
		{ "subnet", required_argument, NULL, 's' },
		{ "summary", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *expected = NULL, *topo = NULL, *subnet = NULL;
	struct plan *plan = NULL;
	json_t *result = NULL, *reports;
	int c, summary = 0, rc = LOOMCTL_EXIT_FAILED;
	char err[512] = "";
	size_t i;
	json_t *r;

	while ((c = getopt_long(argc, argv, "e:t:s:S", opts, NULL)) != -1) {
		switch (c) {
		case 'e': expected = optarg; break;
		case 't': topo = optarg; break;
		case 's': subnet = optarg; break;
		case 'S': summary = 1; break;
		default: return loomctl_usage_hint();
		}
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "fabric validate", "unexpected argument \"%s\"",
					   argv[optind]);
	if (topo && subnet)
		return loomctl_usage_error(lc, "fabric validate", "--topology is the fabric: no "
					   "--subnet with it");
	/* The plan first: a broken one is said before loomd is asked. */
	if (expected && !(plan = plan_read(expected, err, sizeof(err)))) {
		loomctl_error(lc, "%s", err);
		return LOOMCTL_EXIT_FAILED;
	}
	if (topo) {
		if (!(r = validate_offline(lc, topo, plan)))
			goto out;
		result = json_pack("{s:[o]}", "subnets", r);
	} else {
		json_t *args = json_pack("{s:b, s:b}", "plan", !plan, "fabric", plan != NULL);

		if (subnet)
			json_object_set_new(args, "subnet", json_string(subnet));
		if (loomctl_call(lc, "fabric-validate", args, &result) < 0) {
			rc = LOOMCTL_EXIT_FAILED;
			goto out;
		}
	}
	reports = json_object_get(result, "subnets");
	json_array_foreach(reports, i, r) {
		struct fab *fab;

		if (!plan || topo)
			continue;
		if (!(fab = fabric_of(lc, r)))
			goto out;
		c = add_plan(lc, r, plan, fab);
		fab_free(fab);
		if (c < 0)
			goto out;
	}
	if (lc->json)
		output_json(result, stdout);
	else
		print_reports(reports, summary);
	rc = status_of(reports);
out:
	json_decref(result);
	plan_free(plan);
	return rc;
}

static int cmd_issues(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "subnet", required_argument, NULL, 's' },
		{ "summary", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args = json_object(), *result = NULL, *list;
	int c, summary = 0, rc;

	while ((c = getopt_long(argc, argv, "s:S", opts, NULL)) != -1) {
		switch (c) {
		case 's': json_object_set_new(args, "subnet", json_string(optarg)); break;
		case 'S': summary = 1; break;
		default: json_decref(args); return loomctl_usage_hint();
		}
	}
	if (optind < argc) {
		json_decref(args);
		return loomctl_usage_error(lc, "fabric issues", "unexpected argument \"%s\"",
					   argv[optind]);
	}
	if (loomctl_call(lc, "fabric-issues", args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	list = json_object_get(result, "issues");
	if (lc->json) {
		output_json(result, stdout);
	} else {
		if (!summary)
			print_grouped(stdout, list);
		printf("%s: %lld open issues: %lld errors, %lld warnings\n",
		       output_int(result, "errors") ? "FAIL" :
		       output_int(result, "warnings") ? "WARN" : "OK",
		       output_int(result, "errors") + output_int(result, "warnings"),
		       output_int(result, "errors"), output_int(result, "warnings"));
	}
	rc = output_int(result, "errors") > 0 ? EXIT_ERRORS :
	     output_int(result, "warnings") > 0 ? EXIT_WARNINGS : LOOMCTL_EXIT_OK;
	json_decref(result);
	return rc;
}

/* The cabling CSV of a fabric as it is: a topology file's, or the last
 * swept fabric's (one subnet), for an operator to keep as the plan. */
static int cmd_plan(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "subnet", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *topo = NULL, *subnet = NULL;
	struct nodename_map *names = NULL;
	struct plan *plan = NULL;
	json_t *result = NULL, *reports;
	char err[512] = "";
	int c, rc = LOOMCTL_EXIT_FAILED;

	while ((c = getopt_long(argc, argv, "t:s:", opts, NULL)) != -1) {
		switch (c) {
		case 't': topo = optarg; break;
		case 's': subnet = optarg; break;
		default: return loomctl_usage_hint();
		}
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "fabric plan", "unexpected argument \"%s\"",
					   argv[optind]);
	if (topo) {
		if (!(plan = plan_read(topo, err, sizeof(err)))) {
			loomctl_error(lc, "%s", err);
			return LOOMCTL_EXIT_FAILED;
		}
		if (loomctl_names(lc, &names) < 0)
			goto out;
		plan_rename(plan, names);
	} else {
		json_t *args = json_pack("{s:b, s:b}", "plan", 0, "fabric", 1);
		struct fab *fab;

		if (subnet)
			json_object_set_new(args, "subnet", json_string(subnet));
		if (loomctl_call(lc, "fabric-validate", args, &result) < 0)
			return LOOMCTL_EXIT_FAILED;
		reports = json_object_get(result, "subnets");
		if (json_array_size(reports) != 1) {
			loomctl_error(lc, "%zu subnets were swept: name one with --subnet",
				      json_array_size(reports));
			goto out;
		}
		if (names_of(lc, json_array_get(reports, 0), &names) < 0 ||
		    !(fab = fabric_of(lc, json_array_get(reports, 0))))
			goto out;
		plan = plan_from_fab(fab, names, output_str(json_array_get(reports, 0), "subnet"),
				     err, sizeof(err));
		fab_free(fab);
		if (!plan) {
			loomctl_error(lc, "%s", err);
			goto out;
		}
	}
	if (plan_write_csv(plan, stdout, err, sizeof(err)) < 0)
		loomctl_error(lc, "%s", err);
	else
		rc = LOOMCTL_EXIT_OK;
out:
	plan_free(plan);
	nodename_map_free(names);
	json_decref(result);
	return rc;
}

int cmd_fabric(struct loomctl *lc, int argc, char **argv)
{
	if (argc < 2)
		return loomctl_usage_error(lc, "fabric", "validate, issues or plan?");
	if (!strcmp(argv[1], "validate"))
		return cmd_validate(lc, argc - 1, argv + 1);
	if (!strcmp(argv[1], "issues"))
		return cmd_issues(lc, argc - 1, argv + 1);
	if (!strcmp(argv[1], "plan"))
		return cmd_plan(lc, argc - 1, argv + 1);
	return loomctl_usage_error(lc, "fabric", "unknown subcommand \"%s\": validate, issues "
				   "or plan", argv[1]);
}
