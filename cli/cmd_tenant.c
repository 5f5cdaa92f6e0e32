/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_tenant.c: `loomctl tenant ...`: a job's hosts in their own IB
 * partition and RoCE VLAN (daemon/tenants/tenants.h). The changes return once
 * loomd has read the partition keys and switch ports back from the fabric
 * (or with the error, rolled back).
 *   tenant create NAME --hosts LIST [--pkey P] [--limited] [--class CLASS]
 *   tenant add-hosts NAME LIST | remove-hosts NAME LIST
 *   tenant delete NAME | verify NAME | show NAME | list
 *   tenant hosts [--map]  (what names each port; --map: a host map to check
 *                          and keep as tenants.host_map) */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* "0x1002" / "2000", or "-" for a tenant without one. */
static const char *id_text(const json_t *x, const char *key, int hex, char *buf, size_t len)
{
	if (!json_is_integer(json_object_get(x, key)))
		return "-";
	snprintf(buf, len, hex ? "0x%04llx" : "%lld", output_int(x, key));
	return buf;
}

static int print_list(const json_t *list)
{
	static const char *const hdr[] = { "TENANT", "PKEY", "VLAN", "MEMBERSHIP", "STATE",
					   "HOSTS", "HCA-PORTS", "SWITCH-PORTS", "CREATED",
					   "ERROR" };
	struct output_table *t = output_table_new(10, hdr);
	size_t i;
	json_t *x;

	json_array_foreach(list, i, x) {
		char pkey[16], vlan[16], hosts[24], ports[24], eth[24];

		snprintf(hosts, sizeof(hosts), "%lld", output_int(x, "n_hosts"));
		snprintf(ports, sizeof(ports), "%lld", output_int(x, "n_ports"));
		snprintf(eth, sizeof(eth), "%lld", output_int(x, "n_eth_ports"));
		const char *row[] = { output_str(x, "name"),
				      id_text(x, "pkey", 1, pkey, sizeof(pkey)),
				      id_text(x, "vlan", 0, vlan, sizeof(vlan)),
				      output_str(x, "membership"), output_str(x, "state"), hosts,
				      ports, eth, output_str(x, "created"), output_str(x, "error") };
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

static int print_tenant(const json_t *x)
{
	char pkey[16] = "", vlan[16] = "", by[160], took[32] = "";
	const json_t *hosts = json_object_get(x, "hosts");
	struct output_table *t;
	size_t i;
	json_t *p;
	int rc;

	if (json_is_integer(json_object_get(x, "pkey")))
		snprintf(pkey, sizeof(pkey), "0x%04llx", output_int(x, "pkey"));
	if (json_is_integer(json_object_get(x, "vlan")))
		snprintf(vlan, sizeof(vlan), "%lld", output_int(x, "vlan"));
	/* who as the audit log names it; the uid alone before schema 014 */
	if (*output_str(x, "creator"))
		snprintf(by, sizeof(by), "%s", output_str(x, "creator"));
	else
		snprintf(by, sizeof(by), "uid %lld", output_int(x, "created_by"));
	if (json_is_number(json_object_get(x, "took_s")))
		snprintf(took, sizeof(took), "%.1f s", json_number_value(json_object_get(x, "took_s")));
	const char *kv[] = {
		"tenant", output_str(x, "name"), "state", output_str(x, "state"),
		"pkey", pkey, "vlan", vlan, "membership", output_str(x, "membership"),
		"class", output_str(x, "class"),
		"hosts", "", "created", output_str(x, "created"), "by", by,
		"updated", output_str(x, "updated"), "confirmed in", took,
		"error", output_str(x, "error"), "note", output_str(x, "note"),
	};
	char *hl = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&hl, &len);

	json_array_foreach(hosts, i, p)
		fprintf(mem, "%s%s", i ? " " : "", json_string_value(p));
	fclose(mem);
	kv[13] = hl ? hl : "";
	output_keyvals(stdout, kv, (int)(sizeof(kv) / sizeof(kv[0]) / 2));
	free(hl);
	if (!json_array_size(json_object_get(x, "ports")) &&
	    !json_array_size(json_object_get(x, "eth_ports")))
		return 0;
	putchar('\n');
	{
		static const char *const hdr[] = { "HOST", "PORT" };

		t = output_table_new(2, hdr);
	}
	json_array_foreach(json_object_get(x, "ports"), i, p) {
		const char *row[] = { output_str(p, "host"), output_str(p, "guid") };

		output_table_add(t, row);
	}
	json_array_foreach(json_object_get(x, "eth_ports"), i, p) {
		char sp[2 * 64 + 2];

		snprintf(sp, sizeof(sp), "%s %s", output_str(p, "switch"), output_str(p, "port"));
		const char *row[] = { output_str(p, "host"), sp };

		output_table_add(t, row);
	}
	rc = output_table_flush(t, stdout);
	return rc;
}

static int call(struct loomctl *lc, const char *cmd, json_t *args, int (*print)(const json_t *))
{
	json_t *result = NULL;
	int rc;

	if (!args) {
		loomctl_error(lc, "tenant: the arguments are not valid UTF-8");
		return LOOMCTL_EXIT_FAILED;
	}
	if (loomctl_call(lc, cmd, args, &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print(result);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}

static int create(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "pkey", required_argument, NULL, 'p' },
		{ "limited", no_argument, NULL, 'l' },
		{ "class", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *hosts = NULL, *cls = "";
	long pkey = 0;
	int limited = 0, c;
	char *end;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'H': hosts = optarg; break;
		case 'l': limited = 1; break;
		case 'c': cls = optarg; break;
		case 'p':
			errno = 0;
			pkey = strtol(optarg, &end, 0);
			if (errno || *end || pkey < 1 || pkey > 0xffff || (pkey & 0x7fff) == 0x7fff)
				return loomctl_usage_error(lc, "tenant", "--pkey %s: a partition key "
							   "0x0001..0x7ffe", optarg);
			break;
		default:
			return loomctl_usage_hint();
		}
	}
	if (argc - optind != 1 || !hosts)
		return loomctl_usage_error(lc, "tenant", "create NAME --hosts LIST");
	return call(lc, "tenant-create", json_pack("{s:s, s:s, s:I, s:b, s:s}", "name",
						   argv[optind], "hosts", hosts, "pkey",
						   (json_int_t)(pkey & 0x7fff), "limited", limited,
						   "class", cls), print_tenant);
}

/* tenant hosts: every CA port and host-facing switch port, the host the
 * identity rule gives it and the one its description or LLDP name claims. */
static int print_hosts(const json_t *x)
{
	static const char *const hdr[] = { "PORT", "DESCRIPTION", "HOST", "CLAIMS", "NOTE" };
	struct output_table *t = output_table_new(5, hdr);
	json_t *p;
	size_t i;

	printf("host identity: %s%s%s\n", output_str(x, "identity"),
	       *output_str(x, "host_map") ? ", map " : " (no tenants.host_map)",
	       output_str(x, "host_map"));
	json_array_foreach(json_object_get(x, "ib"), i, p) {
		const char *host = output_str(p, "host"), *claim = output_str(p, "claim");
		const char *note = json_is_true(json_object_get(p, "conflict")) ?
			"claimed by two systems" : *claim && strcmp(claim, host) ?
			"claim not granted" : "";
		const char *row[] = { output_str(p, "guid"), output_str(p, "desc"),
				      *host ? host : "-", *claim ? claim : "-", note };

		output_table_add(t, row);
	}
	json_array_foreach(json_object_get(x, "eth"), i, p) {
		char port[160];
		const char *host = output_str(p, "host"), *lldp = output_str(p, "lldp");
		const char *row[] = { port, "(LLDP neighbour)", *host ? host : "-", lldp,
				      strcmp(lldp, host) ? "claim not granted" : "" };

		snprintf(port, sizeof(port), "%s %s", output_str(p, "switch"), output_str(p, "port"));
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

/* tenant hosts --map: a host map of the fabric as the map and the
 * descriptions name it, to check and keep as tenants.host_map. */
static int print_map(const json_t *x)
{
	json_t *p;
	size_t i;

	printf("# tenants.host_map from loomd's fabric: the map's hosts, then the others as\n"
	       "# their node descriptions and LLDP names (which each host's root sets) name\n"
	       "# them. Check every line before keeping it.\n");
	json_array_foreach(json_object_get(x, "ib"), i, p) {
		const char *host = output_str(p, "host"), *claim = output_str(p, "claim");

		if (json_is_true(json_object_get(p, "conflict")) && strcmp(host, claim))
			printf("# %s %s  # \"%s\": claimed by two systems' CAs\n", claim,
			       output_str(p, "guid"), output_str(p, "desc"));
		else if (*host || *claim)
			printf("%s %s  # \"%s\"\n", *host ? host : claim, output_str(p, "guid"),
			       output_str(p, "desc"));
	}
	json_array_foreach(json_object_get(x, "eth"), i, p) {
		const char *host = output_str(p, "host");

		printf("%s %s %s  # LLDP %s\n", *host ? host : output_str(p, "lldp"),
		       output_str(p, "switch"), output_str(p, "port"), output_str(p, "lldp"));
	}
	return 0;
}

static int hosts(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "map", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int map = 0, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'm')
			return loomctl_usage_hint();
		map = 1;
	}
	if (argc != optind)
		return loomctl_usage_error(lc, "tenant", "hosts [--map]");
	return call(lc, "tenant-hosts", json_object(), map ? print_map : print_hosts);
}

int cmd_tenant(struct loomctl *lc, int argc, char **argv)
{
	static const struct option none[] = { { NULL, 0, NULL, 0 } };
	const char *what;

	if (argc < 2)
		return loomctl_usage_error(lc, "tenant", "create, add-hosts, remove-hosts, delete, "
					   "verify, show, list or hosts?");
	what = argv[1];
	argc--;
	argv++;
	if (!strcmp(what, "create"))
		return create(lc, argc, argv);
	if (!strcmp(what, "hosts"))
		return lc->db_path ? loomctl_usage_error(lc, "tenant", "hosts needs loomd (its "
							 "host rule), not --db") :
			hosts(lc, argc, argv);
	if (getopt_long(argc, argv, "", none, NULL) != -1)
		return loomctl_usage_hint();
	if (lc->db_path && strcmp(what, "show") && strcmp(what, "list"))
		return loomctl_usage_error(lc, "tenant", "%s changes or reads the fabric: needs "
					   "loomd, not --db", what);
	if (!strcmp(what, "list")) {
		if (optind != argc)
			return loomctl_usage_error(lc, "tenant", "list takes no argument");
		return call(lc, "tenant-list", json_object(), print_list);
	}
	if (!strcmp(what, "add-hosts") || !strcmp(what, "remove-hosts")) {
		char cmd[32];

		if (argc - optind != 2)
			return loomctl_usage_error(lc, "tenant", "%s NAME LIST", what);
		snprintf(cmd, sizeof(cmd), "tenant-%s", what);
		return call(lc, cmd, json_pack("{s:s, s:s}", "name", argv[optind], "hosts",
					       argv[optind + 1]), print_tenant);
	}
	if (!strcmp(what, "delete") || !strcmp(what, "verify") || !strcmp(what, "show")) {
		char cmd[32];

		if (argc - optind != 1)
			return loomctl_usage_error(lc, "tenant", "%s NAME", what);
		snprintf(cmd, sizeof(cmd), "tenant-%s", what);
		return call(lc, cmd, json_pack("{s:s}", "name", argv[optind]), print_tenant);
	}
	return loomctl_usage_error(lc, "tenant", "\"%s\": not create, add-hosts, remove-hosts, "
				   "delete, verify, show, list or hosts", what);
}
