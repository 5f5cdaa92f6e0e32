/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/hostmap.h: which host a CA port belongs to, the one rule the
 * tenants (daemon/tenants/tenants_hosts.c) and Slurm's topology
 * (lib/slurm/slurm_topo.h) share:
 *   - the host's name is the first group of a pattern (tenants.host_pattern,
 *     an extended regular expression) matched on the CA's node description
 *     ("node001 mlx5_0" -> "node001" with "^([^ ]+)");
 *   - a host named in a host map file takes exactly the ports the map gives
 *     it instead (and the pattern no longer gives it any):
 *         # HOST  PORT_GUID            (an HCA port)
 *         node001 0x0002c90300a1b2c3
 *         # HOST  SWITCH  PORT         (a port of an Ethernet switch)
 *         node001 leaf1   Ethernet0
 *     (each name at most 63 bytes, a line at most 511: longer is an error
 *     naming the line)
 * Pure: the file is read when asked, nothing is kept between calls. */
#ifndef LOOM_HOSTMAP_H
#define LOOM_HOSTMAP_H

#include <limits.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"

#define HOSTMAP_NAME_LEN 64
/* The pattern when none is configured (tenants.host_pattern's default, and
 * loomctl's without loomd): the first word ("node001 mlx5_0" -> "node001"). */
#define HOSTMAP_DEFAULT_PATTERN "^([^ ]+)"

enum hostmap_kind { HOSTMAP_NONE, HOSTMAP_IB, HOSTMAP_ETH };

/* One line of a host map. */
struct hostmap_line {
	int kind;                        /* enum hostmap_kind */
	unsigned long line;              /* its line number in the file */
	char host[HOSTMAP_NAME_LEN];
	uint64_t guid;                   /* HOSTMAP_IB: the port GUID */
	char sw[HOSTMAP_NAME_LEN];       /* HOSTMAP_ETH: switch and port */
	char port[HOSTMAP_NAME_LEN];
};

/* Every line of the host map file at path (blank and comment lines left
 * out) into *lines (free it): 0, or -errno with err "PATH: why" or
 * "PATH:LINE: what a line must be". */
int hostmap_read(const char *path, struct hostmap_line **lines, size_t *n, char *err,
		 size_t errlen);

/* The host in a node description: group 1 of re (compiled REG_EXTENDED),
 * non-empty and shorter than len. 1 with host set, 0 when it does not match. */
int hostmap_desc_host(const regex_t *re, const char *desc, char *host, size_t len);

/* Where a host's ports come from (tenants.host_identity, loom.yaml(5)):
 *   HOSTMAP_ID_MAP: only the map (the operator's file): a node description
 *     or an LLDP system name, which each host's root sets, names no host;
 *   HOSTMAP_ID_DESCRIPTION: the map for the hosts it names, the pattern on
 *     node descriptions for the others (self-asserted: permissive).
 * Tenants (membership) follow it; reports (topology.conf, job impact) name
 * hosts by map then description whatever it is. */
enum hostmap_identity { HOSTMAP_ID_MAP, HOSTMAP_ID_DESCRIPTION };

/* Where a site's host names come from (loom.yaml's tenants.host_pattern,
 * host_map and host_identity): what the tenants own and the reports
 * (topology.conf, job impact) are handed. */
#define HOSTMAP_PATTERN_LEN 128
struct hostmap_rule {
	char pattern[HOSTMAP_PATTERN_LEN]; /* ERE on node descriptions, group 1 = host */
	char map[PATH_MAX];                /* explicit map file, "" none */
	int identity;                      /* enum hostmap_identity */
};

/* "map" / "description" -> identity: 0, or -EINVAL. */
int hostmap_identity_parse(const char *s, int *identity);
const char *hostmap_identity_name(int identity);

/* The CA port -> host rule over a fabric: pattern plus an optional map. */
struct hostmap {
	regex_t re;
	size_t n;                        /* the map's HCA ports, by GUID */
	struct hostmap_port { uint64_t guid; char host[HOSTMAP_NAME_LEN]; } *ports;
	size_t n_hosts;                  /* the hosts the map names (sorted) */
	char (*hosts)[HOSTMAP_NAME_LEN];
};

/* pattern: an ERE with one group; map: a host map file or NULL/"". 0, or
 * -EINVAL/-ENOENT/-ENOMEM with err naming the pattern or the file and line. */
int hostmap_load(struct hostmap *hm, const char *pattern, const char *map, char *err,
		 size_t errlen);
void hostmap_clear(struct hostmap *hm);
/* The host of the CA port with GUID port_guid on a node described desc: 1
 * with host set, 0 when it maps to none. */
int hostmap_host(const struct hostmap *hm, uint64_t port_guid, const char *desc, char *host,
		 size_t len);
/* The host of a CA port under `identity` (hostmap_host's rule, without the
 * pattern under HOSTMAP_ID_MAP): 2 with host set by the map, 1 by the
 * description, 0 when none; and in
 * claim (claimlen > 0) the host its description names by the pattern, ""
 * when none: a claim that differs from host, or that gave nothing, is one
 * the rule did not grant (a host naming itself after another). */
int hostmap_host_as(const struct hostmap *hm, int identity, uint64_t port_guid,
		    const char *desc, char *host, size_t len, char *claim, size_t claimlen);
/* The same for port `port` of CA `ca`. */
int hostmap_port_host(const struct hostmap *hm, const struct fab_node *ca,
		      const struct fab_port *port, char *host, size_t len);

#endif
