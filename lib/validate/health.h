/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/health.h: the rules of a healthy fabric (issue 22), checked
 * on a fabric graph without any plan: what ibdiagnet reports on a fabric it
 * knows nothing about. A pure function of a swept fabric (and, for BER, the
 * symbol errors the telemetry read saw); findings go to a val_report with
 * the codes of report.h:
 *   degraded        a link below the best width or speed both ends support
 *                   (narrowed to what their nodes enable on their linked
 *                   ports: ibsim says every port could run 12x QDR)
 *   dup-node-guid   one node GUID on two nodes (from discovery: fab->dups)
 *   dup-port-guid   one port GUID on two ports
 *   dup-desc, empty-desc   node descriptions (switches and CAs alike)
 *   lid-conflict    one LID on two ports (a switch's ports share port 0's)
 *   lid-unassigned  an ACTIVE port that needs a LID (CA port, switch port 0)
 *                   with LID 0
 *   port-stuck      a linked port in INIT or ARMED (only when the subnet
 *                   has an SM: opts->sm_active; before SUBNET UP every
 *                   port is INIT and that is no fault)
 *   mtu-mismatch, vl-mismatch   the two ends of a link (VLs: of a link
 *                   between switches; an HCA's 4 against a switch's 8 is normal)
 *   port-count      a switch whose port count differs from the most common
 *                   one of its level (fat trees)
 *   leaf-uplinks, leaf-link, unreachable   a fat tree's structure: levels
 *                   by hop distance from the CAs; every leaf has the same
 *                   number of up links, no leaf cabled to a leaf, and every
 *                   leaf reaches every other going up then down only
 *   ber             symbol errors over the interval / (link rate x interval)
 *                   above opts->ber_threshold
 * Subjects name nodes by the site's name (opts->names, the node-name-map,
 * lib/fabric/nodename.h) else by description, and ports in brackets, and
 * stay the same while the fault does (report.h) and the names do. */
#ifndef LOOM_VALIDATE_HEALTH_H
#define LOOM_VALIDATE_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/report.h"

/* A port's symbol errors over an interval (from the telemetry read). */
struct health_port_errors {
	uint64_t node_guid;
	uint8_t port;
	uint64_t symbol_errors;
	double seconds;
};

struct health_opts {
	int fat_tree;              /* -1: the rules when the fabric looks like a fat
				    * tree (every CA on a switch, switches in levels),
				    * 0: never, 1: always */
	int sm_active;             /* an SM has brought the subnet up: INIT/ARMED is stuck */
	double ber_threshold;      /* 0: no BER check (default 1e-12) */
	const struct health_port_errors *errs;
	size_t n_errs;
	const struct nodename_map *names;  /* the site's names (NULL: none) */
};

#define HEALTH_BER_DEFAULT 1e-12

/* Add the findings to *r; 0, or -ENOMEM with err. */
int health_check(const struct fab *fab, const struct health_opts *opts, struct val_report *r,
		 char *err, size_t errlen);

#endif
