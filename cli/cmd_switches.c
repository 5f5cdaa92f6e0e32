/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_switches.c: `loomctl switches [NAME]`: the Ethernet switches as
 * loomd last read them through their plugins (model, OS, ports up, LLDP
 * neighbours, QoS state); with NAME, that switch's ports and who is at the
 * other end of each. Works from the database alone too (--db). */
#include "autoconf.h"
#include "loomctl.h"

#include <string.h>

static int print_list(const json_t *list)
{
	static const char *const hdr[] = { "SWITCH", "PLUGIN", "MODEL", "OS", "PORTS-UP",
					   "NEIGHBORS", "QOS", "LAST-SEEN" };
	struct output_table *t = output_table_new(8, hdr);
	size_t i;
	json_t *s;

	json_array_foreach(list, i, s) {
		char up[48], nb[24];

		snprintf(up, sizeof(up), "%lld/%lld", output_int(s, "ports_up"), output_int(s, "ports"));
		snprintf(nb, sizeof(nb), "%lld", output_int(s, "neighbors"));
		const char *row[] = { output_str(s, "name"), output_str(s, "plugin"),
				      output_str(s, "model"), output_str(s, "os_version"), up, nb,
				      output_str(s, "qos_state"), output_str(s, "last_seen") };
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

static int print_one(const json_t *s)
{
	static const char *const hdr[] = { "PORT", "ALIAS", "SPEED", "MTU", "ADMIN", "OPER",
					   "NEIGHBOR", "NEIGHBOR-PORT" };
	const char *kv[] = {
		"switch", output_str(s, "name"), "plugin", output_str(s, "plugin"),
		"address", output_str(s, "address"), "hostname", output_str(s, "hostname"),
		"model", output_str(s, "model"), "os", output_str(s, "os_version"),
		"mac", output_str(s, "mac"), "qos", output_str(s, "qos_state"),
		"last seen", output_str(s, "last_seen"),
	};
	struct output_table *t;
	size_t i;
	json_t *p;

	output_keyvals(stdout, kv, (int)(sizeof(kv) / sizeof(kv[0]) / 2));
	if (*output_str(s, "qos_error"))
		printf("error:     %s\n", output_str(s, "qos_error"));
	putchar('\n');
	t = output_table_new(8, hdr);
	json_array_foreach(json_object_get(s, "port_list"), i, p) {
		char speed[24], mtu[24];

		snprintf(speed, sizeof(speed), "%lldG", output_int(p, "speed_mbps") / 1000);
		snprintf(mtu, sizeof(mtu), "%lld", output_int(p, "mtu"));
		const char *row[] = {
			output_str(p, "name"), output_str(p, "alias"), speed, mtu,
			json_is_true(json_object_get(p, "admin_up")) ? "up" : "down",
			json_is_true(json_object_get(p, "oper_up")) ? "up" : "down",
			output_str(p, "peer_name"), output_str(p, "peer_port"),
		};
		output_table_add(t, row);
	}
	return output_table_flush(t, stdout);
}

int cmd_switches(struct loomctl *lc, int argc, char **argv)
{
	json_t *result = NULL;
	int rc;

	if (argc > 2)
		return loomctl_usage_error(lc, "switches", "unexpected argument \"%s\"", argv[2]);
	if (argc == 2 && argv[1][0] == '-')
		return loomctl_usage_error(lc, "switches", "unknown option \"%s\"", argv[1]);
	if (loomctl_call(lc, "switches", argc == 2 ? json_pack("{s:s}", "name", argv[1]) :
			 json_object(), &result) < 0)
		return LOOMCTL_EXIT_FAILED;
	rc = lc->json ? output_json(result, stdout) :
	     argc == 2 ? print_one(result) : print_list(result);
	json_decref(result);
	if (rc < 0) {
		loomctl_error(lc, "cannot print the result: %s", strerror(-rc));
		return LOOMCTL_EXIT_FAILED;
	}
	return LOOMCTL_EXIT_OK;
}
