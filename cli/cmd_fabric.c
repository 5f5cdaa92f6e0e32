/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_fabric.c: the fabric commands: nodes, node, ports, links, events.
 * Each builds the daemon's arguments, calls it (or the database, --db) and
 * prints the result as a table, or as JSON with --json. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/db/db_query.h"
#include "lib/fabric/nodename.h"

/* Commands without options still go through getopt, so that "--help" or a
 * mistyped option is a usage error rather than a node called "--help". */
static int no_options(const struct loomctl *lc, int argc, char **argv)
{
	static const struct option none[] = { { NULL, 0, NULL, 0 } };

	if (getopt_long(argc, argv, "", none, NULL) != -1)
		return loomctl_usage_hint();
	return 0;
}

/* Call `cmd` and print the result as JSON (--json) or through `print`. */
static int call_fabric(struct loomctl *lc, const char *cmd, json_t *args,
		       int (*print)(const json_t *result))
{
	json_t *result = NULL;
	int rc;

	/* json_pack refuses a string that is not UTF-8 (a GUID or description
	 * typed in another encoding): say so rather than send no argument. */
	if (!args) {
		loomctl_error(lc, "%s: the arguments are not valid UTF-8", cmd);
		return LOOMCTL_EXIT_FAILED;
	}
	rc = loomctl_call(lc, cmd, args, &result);
	if (rc < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) : print(result);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}

/* A node's identity in a table: its GUID (IB), else its MAC (Ethernet),
 * else "-". */
static const char *node_id(const json_t *o, const char *guid_key, const char *mac_key)
{
	const char *v = output_str(o, guid_key);

	if (!*v)
		v = output_str(o, mac_key);
	return *v ? v : "-";
}

/* A port number (IB) or name (Ethernet). */
static void fmt_port(char *buf, size_t len, const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
}

/* One end of a cable as iblinkinfo names it, NAME[PORT]: the site's name
 * (node-name-map), else the description, else the GUID or MAC; --json keeps
 * the GUIDs. */
static void fmt_end(char *buf, size_t len, const json_t *o, const char *name_key,
		    const char *desc_key, const char *port_key)
{
	const char *name = output_name(o, name_key, desc_key);
	char port[72];

	if (!*name)
		name = node_id(o, "guid", "node");
	fmt_port(port, sizeof(port), o, port_key);
	snprintf(buf, len, "%s[%s]", name, port);
}

static void fmt_int(char *buf, size_t len, long long v)
{
	/* 0 and missing (-1) print as "-": LID 0 or MTU 0 mean "none". */
	if (v > 0)
		snprintf(buf, len, "%lld", v);
	else
		buf[0] = '\0';
}

/* ---- nodes ------------------------------------------------------------------ */

static int print_nodes(const json_t *nodes)
{
	/* DESC last: it may contain blanks; scripts take LID as field 4. */
	static const char *const hdr[] = { "GUID", "TYPE", "PORTS", "LID", "DESC" };
	struct output_table *t = output_table_new(5, hdr);
	size_t i;
	json_t *n;

	json_array_foreach(nodes, i, n) {
		char ports[24], lid[24];

		fmt_int(ports, sizeof(ports), output_int(n, "ports"));
		fmt_int(lid, sizeof(lid), output_int(n, "lid"));
		const char *row[] = { node_id(n, "guid", "mac"), output_str(n, "type"), ports, lid,
				      output_name(n, "name", "desc") };
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_nodes(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	const char *type = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "t:", opts, NULL)) != -1) {
		if (c != 't')
			return loomctl_usage_hint();
		type = optarg;
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "nodes", "unexpected argument \"%s\"", argv[optind]);
	if (type && strcmp(type, "switch") && strcmp(type, "ca") && strcmp(type, "router") &&
	    strcmp(type, "host"))
		return loomctl_usage_error(lc, "nodes", "unknown node type \"%s\": use switch, ca, "
					   "router or host", type);
	return call_fabric(lc, "nodes", type ? json_pack("{s:s}", "type", type) : json_object(),
			   print_nodes);
}

/* ---- ports ------------------------------------------------------------------ */

static int print_ports(const json_t *ports)
{
	/* the cable last (names may have blanks): NAME[PORT] -> PEER[PORT] */
	static const char *const hdr[] = {
		"NODE-GUID", "PORT", "LID", "STATE", "PHYS", "WIDTH", "SPEED", "MTU",
		"NAME[PORT] -> PEER[PORT]",
	};
	struct output_table *t = output_table_new(9, hdr);
	size_t i;
	json_t *p;

	json_array_foreach(ports, i, p) {
		json_t *peer = json_object_get(p, "peer");
		char num[72], lid[24], mtu[24], end[NODENAME_LEN + 80], cable[2 * NODENAME_LEN + 170];

		fmt_port(num, sizeof(num), p, "port");
		fmt_int(lid, sizeof(lid), output_int(p, "lid"));
		fmt_int(mtu, sizeof(mtu), output_int(p, "mtu"));
		fmt_end(cable, sizeof(cable), p, "node_name", "node_desc", "port");
		if (json_is_object(peer)) {
			fmt_end(end, sizeof(end), peer, "name", "desc", "port");
			snprintf(cable + strlen(cable), sizeof(cable) - strlen(cable), " -> %s", end);
		}
		const char *row[] = {
			node_id(p, "node_guid", "node_mac"), num, lid, output_str(p, "state"),
			output_str(p, "phys_state"), output_str(p, "width"), output_str(p, "speed"),
			mtu, cable,
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_ports(struct loomctl *lc, int argc, char **argv)
{
	int rc = no_options(lc, argc, argv);

	if (rc)
		return rc;
	if (argc - optind > 1)
		return loomctl_usage_error(lc, "ports", "at most one node (GUID or description)");
	return call_fabric(lc, "ports", optind < argc ? json_pack("{s:s}", "node", argv[optind]) :
			   json_object(), print_ports);
}

/* ---- node ------------------------------------------------------------------- */

/* An Ethernet node: what its switch's reads tell of it. */
static int print_eth_node(const json_t *node)
{
	char ports[24];
	const char *kv[] = {
		"name", output_str(node, "desc"),
		"type", output_str(node, "type"),
		"mac", output_str(node, "mac"),
		"subnet", output_str(node, "subnet"),
		"ports", ports,
		"model", output_str(node, "model"),
		"os_version", output_str(node, "os_version"),
		"first_seen", output_str(node, "first_seen"),
		"last_seen", output_str(node, "last_seen"),
	};

	fmt_int(ports, sizeof(ports), output_int(node, "ports"));
	output_keyvals(stdout, kv, (int)(sizeof(kv) / sizeof(kv[0]) / 2));
	putchar('\n');
	return print_ports(json_object_get(node, "port_list"));
}

static int print_node(const json_t *node)
{
	char ports[24], lid[24];
	int skip;
	const char *kv[] = {
		"name", output_name(node, "name", "desc"),
		"guid", output_str(node, "guid"),
		"type", output_str(node, "type"),
		"desc", output_str(node, "desc"),
		"subnet", output_str(node, "subnet"),
		"lid", lid,
		"ports", ports,
		"sysimg_guid", output_str(node, "sysimg_guid"),
		"vendor_id", output_str(node, "vendor_id"),
		"device_id", output_str(node, "device_id"),
		"revision", output_str(node, "revision"),
		"first_seen", output_str(node, "first_seen"),
		"last_seen", output_str(node, "last_seen"),
	};

	if (!strcmp(output_str(node, "fabric"), "eth"))
		return print_eth_node(node);
	fmt_int(lid, sizeof(lid), output_int(node, "lid"));
	fmt_int(ports, sizeof(ports), output_int(node, "ports"));
	/* "name" only when the site's node-name-map gives one (else: as before) */
	skip = !strcmp(kv[1], output_str(node, "desc"));
	output_keyvals(stdout, kv + 2 * skip, (int)(sizeof(kv) / sizeof(kv[0]) / 2) - skip);
	putchar('\n');
	return print_ports(json_object_get(node, "port_list"));
}

int cmd_node(struct loomctl *lc, int argc, char **argv)
{
	int rc = no_options(lc, argc, argv);

	if (rc)
		return rc;
	if (argc - optind != 1)
		return loomctl_usage_error(lc, "node", "give one node: its GUID or description");
	return call_fabric(lc, "node", json_pack("{s:s}", "id", argv[optind]), print_node);
}

/* ---- links ------------------------------------------------------------------- */

/* A link's state when it is not up (issue 41), else "-". */
static const char *link_flag(const json_t *l)
{
	const char *st = output_str(l, "state");

	if (*st)
		return strcmp(st, "up") ? st : "-";
	return json_is_true(json_object_get(l, "degraded")) ? "degraded" : "-";
}

static int print_links(const json_t *links)
{
	/* as iblinkinfo, each end NAME[PORT]; last, since names may have
	 * blanks (the GUIDs are in --json) */
	static const char *const hdr[] = { "WIDTH", "SPEED", "FLAG", "A[PORT] -> B[PORT]" };
	struct output_table *t = output_table_new(4, hdr);
	size_t i;
	json_t *l;

	json_array_foreach(links, i, l) {
		json_t *a = json_object_get(l, "a"), *b = json_object_get(l, "b");
		char ae[NODENAME_LEN + 80], be[NODENAME_LEN + 80], ends[2 * NODENAME_LEN + 170];

		fmt_end(ae, sizeof(ae), a, "name", "desc", "port");
		fmt_end(be, sizeof(be), b, "name", "desc", "port");
		snprintf(ends, sizeof(ends), "%s -> %s", ae, be);
		const char *row[] = {
			output_str(l, "width"), output_str(l, "speed"), link_flag(l), ends,
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_links(struct loomctl *lc, int argc, char **argv)
{
	int rc = no_options(lc, argc, argv);

	if (rc)
		return rc;
	if (optind < argc)
		return loomctl_usage_error(lc, "links", "unexpected argument \"%s\"", argv[optind]);
	return call_fabric(lc, "links", json_object(), print_links);
}

/* ---- events ------------------------------------------------------------------ */

static int print_events(const json_t *events)
{
	static const char *const hdr[] = {
		"TIME", "SEVERITY", "KIND", "SUBJECT", "OLD -> NEW",
	};
	struct output_table *t = output_table_new(5, hdr);
	size_t i;
	json_t *e;

	json_array_foreach(events, i, e) {
		const char *old = output_str(e, "old"), *new = output_str(e, "new");
		char change[2 * 128 + 8] = "";

		if (*old || *new)
			snprintf(change, sizeof(change), "%s -> %s", *old ? old : "-",
				 *new ? new : "-");
		const char *row[] = {
			output_str(e, "time"), output_str(e, "severity"), output_str(e, "kind"),
			output_str(e, "subject"), change,
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_events(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "kind", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *args = json_object();
	double since;
	long limit;
	char *end;
	int c;

	if (!args) {
		loomctl_error(lc, "out of memory");
		return LOOMCTL_EXIT_FAILED;
	}
	while ((c = getopt_long(argc, argv, "s:l:k:", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			json_object_set_new(args, "kind", json_string(optarg));
			break;
		case 's':
			/* Parsed here, not by loomd: an age like "2h" counts back
			 * from the user's clock, and a typo is caught before any
			 * connection is made. */
			if (dbq_time_parse(optarg, (double)time(NULL), &since) < 0) {
				json_decref(args);
				return loomctl_usage_error(lc, "events", "--since: cannot read \"%s\" "
							   "as a time (unix seconds, "
							   "2026-11-22T15:00:00Z, 2026-11-22, or an "
							   "age like 90s, 15m, 2h, 7d)", optarg);
			}
			json_object_set_new(args, "since", json_real(since));
			break;
		case 'l':
			errno = 0;
			limit = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || limit < 1) {
				json_decref(args);
				return loomctl_usage_error(lc, "events", "--limit: \"%s\" is not a "
							   "positive number", optarg);
			}
			json_object_set_new(args, "limit", json_integer(limit));
			break;
		default:
			json_decref(args);
			return loomctl_usage_hint();
		}
	}
	if (optind < argc) {
		json_decref(args);
		return loomctl_usage_error(lc, "events", "unexpected argument \"%s\"", argv[optind]);
	}
	return call_fabric(lc, "events", args, print_events);
}
