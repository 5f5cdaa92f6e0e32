/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/slurm/config_slurm.c: loom.yaml's `slurm:` section (issue 24).
 *
 *   slurm:
 *     topology_file: /etc/slurm/topology.conf  # loom keeps it true ("" or
 *                          # absent: none; `loomctl slurm topology` still works)
 *     topology_format: tree  # tree (topology/tree) or block (topology/block,
 *                          # Slurm 23.11+: one block per leaf)
 *     reconfigure: false   # run `scontrol reconfigure` after each rewrite;
 *                          # when it fails the previous file is put back
 *     subnet: ""           # whose fabric, when loomd sweeps several subnets
 *                          # ("": the only one swept)
 *     scontrol: /usr/bin/scontrol  # for reconfigure and for drains and resumes
 *                          # (slurm_drain.h; also without a topology_file);
 *                          # "": loom runs no scontrol (drains: -ENOTSUP)
 *
 * The Slurm node names are the tenants' hosts: tenants.host_pattern on the
 * CA node descriptions, or tenants.host_map (lib/fabric/hostmap.h). The
 * check refuses a topology_file whose directory does not exist. */
#include "autoconf.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/core/config_parse.h"
#include "daemon/slurm/config_slurm.h"
#include "lib/slurm/slurm_topo.h"

#define CFG_SECTION_TYPE struct slurm_conf

static int parse_format(struct parse *p, const yaml_node_t *v, const char *key, void *sec)
{
	struct slurm_conf *c = sec;
	const char *s = cfg_scalar(v);

	if (!s || slurm_topo_format_parse(s, &c->slurm_topology_format) < 0)
		return cfg_fail(p, cfg_line(v), key, "\"%s\": tree or block", s ? s : "");
	return 0;
}

static void print_format(FILE *out, const void *sec)
{
	const struct slurm_conf *c = sec;

	fprintf(out, " %s\n", slurm_topo_format_name(c->slurm_topology_format));
}

static int check_slurm(struct parse *p, void *sec)
{
	const struct slurm_conf *c = sec;
	char dir[PATH_MAX];
	struct stat st;

	if (c->slurm_reconfigure && !c->slurm_scontrol[0])
		return cfg_fail(p, cfg_key_line(p, "slurm", "reconfigure"), "slurm.reconfigure",
				"needs slurm.scontrol");
	if (!c->slurm_topology_file[0]) {
		if (c->slurm_reconfigure)
			return cfg_fail(p, cfg_key_line(p, "slurm", "reconfigure"), "slurm.reconfigure",
					"needs slurm.topology_file");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s", c->slurm_topology_file);
	if (stat(dirname(dir), &st) < 0 || !S_ISDIR(st.st_mode))
		return cfg_fail(p, cfg_key_line(p, "slurm", "topology_file"), "slurm.topology_file",
				"%s: its directory %s does not exist", c->slurm_topology_file, dir);
	return 0;
}

static const struct cfg_key slurm_keys[] = {
	CFG_KEY_STR("topology_file", CFG_OPT_PATH, slurm_topology_file, NULL),
	CFG_KEY_CUSTOM("topology_format", parse_format, print_format),
	CFG_KEY_BOOL("reconfigure", slurm_reconfigure, 0),
	CFG_KEY_STR("subnet", CFG_STRING, slurm_subnet, NULL),
	CFG_KEY_STR("scontrol", CFG_OPT_PATH, slurm_scontrol, "/usr/bin/scontrol"),
};

const struct slurm_conf *slurm_conf_get(const struct loom_config *c)
{
	return config_section_get(c, &slurm_config);
}

static void slurm_written(const void *sec, cfg_written_fn *add, void *ctx)
{
	const struct slurm_conf *c = sec;

	if (c->slurm_topology_file[0])
		add(ctx, "slurm.topology_file", c->slurm_topology_file, CFG_WRITE_REPLACE);
}

const struct config_section slurm_config = {
	.name = "slurm", .size = sizeof(struct slurm_conf), .keys = slurm_keys,
	.n_keys = sizeof(slurm_keys) / sizeof(slurm_keys[0]),
	.check = check_slurm, .written = slurm_written,
};
