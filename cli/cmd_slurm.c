/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cli/cmd_slurm.c: `loomctl slurm topology` (issue 24): Slurm's
 * topology.conf from the fabric loomd swept last (the `slurm-topology`
 * command of daemon/slurm), or with --topology FILE from a topology file
 * (ibsim net or ibnetdiscover output), no loomd, with the host rule given
 * here (--host-pattern, --host-map; tenants.host_pattern's default). The
 * file is printed as Slurm reads it (loom's comment lines on top; loomd's
 * slurm.topology_format unless --format, tree with --topology); --json
 * prints the answer: the switches, the counts and the text. */
#include "autoconf.h"
#include "loomctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric/hostmap.h"
#include "lib/fabric/topo_file.h"
#include "lib/fabric/nodename.h"
#include "lib/slurm/slurm_topo.h"

static json_t *topology_offline(struct loomctl *lc, const char *topo, int format,
				const char *pattern, const char *map)
{
	char err[1024] = "";
	struct fab *fab = topo_file_read(topo, "file", err, sizeof(err));
	struct slurm_topo t;
	struct hostmap hm;
	struct nodename_map *names;
	char *head = NULL, *body = NULL;
	json_t *o = NULL;
	int rc;

	if (!fab) {
		loomctl_error(lc, "%s", err);
		return NULL;
	}
	if (hostmap_load(&hm, pattern, map, err, sizeof(err)) < 0) {
		loomctl_error(lc, "%s", err);
		fab_free(fab);
		return NULL;
	}
	if (loomctl_names(lc, &names) < 0) {
		hostmap_clear(&hm);
		fab_free(fab);
		return NULL;
	}
	rc = slurm_topo_build(fab, &hm, names, &t, err, sizeof(err));
	nodename_map_free(names);
	if (rc < 0) {
		loomctl_error(lc, "%s: %s", topo, err);
	} else if ((o = slurm_topo_json(&t, format)) &&
		   (head = slurm_topo_header(&t, format, topo)) &&
		   (body = slurm_topo_text(&t, format))) {
		json_object_set_new(o, "subnet", json_string(topo));
		json_object_set_new(o, "header", json_string(head));
		json_object_set_new(o, "text", json_string(body));
	} else {
		loomctl_error(lc, "out of memory");
		json_decref(o);
		o = NULL;
	}
	free(head);
	free(body);
	if (t.sw || t.n_nodes)
		slurm_topo_clear(&t);
	hostmap_clear(&hm);
	fab_free(fab);
	return o;
}

static int cmd_topology(struct loomctl *lc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "subnet", required_argument, NULL, 's' },
		{ "topology", required_argument, NULL, 't' },
		{ "host-pattern", required_argument, NULL, 'p' },
		{ "host-map", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmt = NULL, *subnet = NULL, *topo = NULL, *pattern = NULL, *map = NULL;
	json_t *args, *res = NULL;
	int c, format = SLURM_TOPO_TREE;

	while ((c = getopt_long(argc, argv, "f:s:t:p:m:", opts, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 's': subnet = optarg; break;
		case 't': topo = optarg; break;
		case 'p': pattern = optarg; break;
		case 'm': map = optarg; break;
		default: return loomctl_usage_hint();
		}
	}
	if (optind < argc)
		return loomctl_usage_error(lc, "slurm topology", "unexpected argument \"%s\"",
					   argv[optind]);
	if (fmt && slurm_topo_format_parse(fmt, &format) < 0)
		return loomctl_usage_error(lc, "slurm topology", "--format %s: tree or block", fmt);
	if (topo && subnet)
		return loomctl_usage_error(lc, "slurm topology", "--topology is the fabric: no "
					   "--subnet with it");
	if (!topo && (pattern || map))
		return loomctl_usage_error(lc, "slurm topology", "--host-pattern and --host-map "
					   "go with --topology (loomd uses tenants.host_pattern "
					   "and tenants.host_map)");
	if (topo) {
		if (!(res = topology_offline(lc, topo, format, pattern ? pattern :
					     HOSTMAP_DEFAULT_PATTERN, map)))
			return LOOMCTL_EXIT_FAILED;
	} else {
		/* no --format: loomd's slurm.topology_format, the file's */
		args = json_object();
		if (fmt)
			json_object_set_new(args, "format",
					    json_string(slurm_topo_format_name(format)));
		if (subnet)
			json_object_set_new(args, "subnet", json_string(subnet));
		if (loomctl_call(lc, "slurm-topology", args, &res) < 0)
			return lc->unreachable ? LOOMCTL_EXIT_UNREACHABLE : LOOMCTL_EXIT_FAILED;
	}
	if (lc->json)
		output_json(res, stdout);
	else
		printf("%s%s", output_str(res, "header"), output_str(res, "text"));
	json_decref(res);
	return LOOMCTL_EXIT_OK;
}

int cmd_slurm(struct loomctl *lc, int argc, char **argv)
{
	if (argc < 2)
		return loomctl_usage_error(lc, "slurm", "topology?");
	if (!strcmp(argv[1], "topology"))
		return cmd_topology(lc, argc - 1, argv + 1);
	return loomctl_usage_error(lc, "slurm", "unknown subcommand \"%s\": topology", argv[1]);
}
