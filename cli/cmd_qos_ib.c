/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_qos_ib.c: `loomctl qos status --ib` and `loomctl qos apply --ib`
 * (and their --ib-cc twins for ib_cc, congestion control):
 * loom.yaml's ib_qos policy on the InfiniBand fabric (daemon/qos/qos_ib.h).
 * status: every CA port and cabled switch port, "in policy" or the first
 * entry of its SL2VL or VLArbitration tables that differs; apply: the
 * policy written as OpenSM options, OpenSM asked to re-read them (through
 * libloomosm.so, else a signal). Both exit 1 unless
 * every port is in policy (status) or the apply was made (apply). */
#include "autoconf.h"
#include "loomctl.h"

#include <stdio.h>
#include <string.h>

/* An apply's answer: how OpenSM was asked to re-read the file, the text
 * before opensm_how's (closed by a parenthesis). */
static const char *opensm_asked(const json_t *res)
{
	return json_is_true(json_object_get(res, "opensm_asked")) ?
	       ", OpenSM re-reads it (" : "; OpenSM NOT asked to re-read it (";
}

/* How the classes share SLs and VLs with the routing's VL layers. */
static void print_layering(const json_t *l)
{
	const json_t *map = json_object_get(l, "sl2vl");
	size_t i;
	json_t *v;

	if (!json_is_object(l))
		return;
	printf("routing on %lld VL layers: SL = layer x %lld + class SL, VL = layer x %lld + "
	       "class VL; SL2VL", output_int(l, "layers"), output_int(l, "sls_per_layer"),
	       output_int(l, "class_vls"));
	json_array_foreach(map, i, v)
		printf("%s%lld", i ? "," : " ", (long long)json_integer_value(v));
	printf("\n");
}

static int print_status(const json_t *res)
{
	static const char *const hdr[] = { "SUBNET", "NODE", "GUID", "TYPE", "PORT", "STATE" };
	struct output_table *t = output_table_new(6, hdr);
	const json_t *list = json_object_get(res, "ports");
	const char *why = output_str(res, "not_applicable");
	size_t i;
	json_t *p;
	int rc;

	json_array_foreach(list, i, p) {
		char port[16];
		const char *diff = output_str(p, "first_diff");

		snprintf(port, sizeof(port), "%lld", output_int(p, "port"));
		const char *row[] = { output_str(p, "subnet"), output_str(p, "node"),
				      output_str(p, "guid"), output_str(p, "type"), port,
				      json_is_true(json_object_get(p, "in_policy")) ? "in policy" : diff };
		output_table_add(t, row);
	}
	if ((rc = output_table_flush(t, stdout)) < 0)
		return rc;
	printf("\n%lld of %lld ports in policy\n", output_int(res, "in_policy"),
	       output_int(res, "ports_total"));
	if (*why)
		printf("note: %s\n", why);
	print_layering(json_object_get(res, "layering"));
	return 0;
}

int cmd_qos_ib(struct loomctl *lc, const char *what)
{
	json_t *result = NULL;
	int rc, ok;

	if (strcmp(what, "status") && strcmp(what, "apply"))
		return loomctl_usage_error(lc, "qos", "--ib goes with status or apply");
	if (lc->db_path)
		return loomctl_usage_error(lc, "qos", "reads the ports: needs loomd, not --db");
	if (loomctl_call(lc, strcmp(what, "status") ? "qos-ib-apply" : "qos-ib-status",
			 json_object(), &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	if (lc->json)
		rc = output_json(result, stdout);
	else if (!strcmp(what, "status"))
		rc = print_status(result);
	else
		rc = printf("written to %s%s%s%s\n%s", output_str(result, "file"),
			    opensm_asked(result), output_str(result, "opensm_how"),
			    *output_str(result, "opensm_how") ? ")" : "",
			    output_str(result, "options")) < 0 ? -1 : 0;
	if (!lc->json && strcmp(what, "status") && rc == 0)
		print_layering(json_object_get(result, "layering"));
	ok = strcmp(what, "status") ||
	     output_int(result, "in_policy") == output_int(result, "ports_total");
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result");
		return LOOMCTL_EXIT_FAILED;
	}
	return ok ? LOOMCTL_EXIT_OK : LOOMCTL_EXIT_FAILED;
}

/* `qos status|apply --ib-cc`: ib_cc's block of OpenSM's options file. */
int cmd_qos_ibcc(struct loomctl *lc, const char *what)
{
	json_t *result = NULL;
	int rc, ok, status = !strcmp(what, "status");

	if (!status && strcmp(what, "apply"))
		return loomctl_usage_error(lc, "qos", "--ib-cc goes with status or apply");
	if (lc->db_path)
		return loomctl_usage_error(lc, "qos", "reads OpenSM's options: needs loomd, not --db");
	if (loomctl_call(lc, status ? "qos-ib-cc-status" : "qos-ib-cc-apply", json_object(),
			 &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	if (lc->json)
		rc = output_json(result, stdout);
	else if (status)
		rc = printf("%s: %s%s\ncongestion control %s; ports: %s\n", output_str(result, "file"),
			    json_is_true(json_object_get(result, "in_policy")) ? "in policy" :
			    "drifted: ", output_str(result, "drift"),
			    json_is_true(json_object_get(result, "enable")) ? "on" : "off",
			    output_str(result, "ports")) < 0 ? -1 : 0;
	else
		rc = printf("written to %s%s%s%s\n%snote: %s\n%s%s%s", output_str(result, "file"),
			    opensm_asked(result), output_str(result, "opensm_how"),
			    *output_str(result, "opensm_how") ? ")" : "",
			    output_str(result, "options"),
			    output_str(result, "note"),
			    *output_str(result, "overridden") ? "warning: " : "",
			    output_str(result, "overridden"),
			    *output_str(result, "overridden") ? "\n" : "") < 0 ? -1 : 0;
	ok = !status || json_is_true(json_object_get(result, "in_policy"));
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result");
		return LOOMCTL_EXIT_FAILED;
	}
	return ok ? LOOMCTL_EXIT_OK : LOOMCTL_EXIT_FAILED;
}
