/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/cabling.h: a fabric against its cabling plan (issue 22): what
 * a technician has to fix, cable by cable, as ibdiagnet's and UFM's cable
 * validation report it. A pure function of a plan (lib/validate/plan.h) and
 * a fabric graph (a sweep, or a topology file).
 *
 * A plan's node is the fabric's node of its GUID (when the plan has one and
 * the fabric that GUID), else the node the site's node-name-map gives that
 * name (names: lib/fabric/nodename.h, NULL: none), else the node of that
 * description: a site writes its plan in its own names. Each finding names
 * the ports the way the plan does ("leaf-3[12]"), a node the map names by
 * the map's name (and so does what the fabric has: "got", extra links):
 *   missing     a planned cable is not there: neither end has a link
 *   swapped     two planned cables crosswise (A[a]-D[d] and C[c]-B[b] where
 *               the plan has A[a]-B[b] and C[c]-D[d]): one finding, not four
 *   miswired    the right two nodes, another port at one end
 *   wrong-peer  a planned port is cabled to another node
 *   extra       a link the plan does not have, on a node the plan has
 *   slow        below the plan's width or speed (warning)
 * (codes and severities: report.h)
 *   unknown-node  a node of the plan that no node of the fabric is named or
 *               described by (or that two are), its cables unchecked
 * A plan whose nodes are mostly not in the fabric is refused as a whole
 * (-EINVAL, one message): it is a plan for another fabric, and ten
 * thousand findings would say nothing more. A plan's Ethernet rows
 * (named ports) are not this check's: eth_cabling.h judges them. */
#ifndef LOOM_VALIDATE_CABLING_H
#define LOOM_VALIDATE_CABLING_H

#include <stddef.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"
#include "lib/validate/plan.h"
#include "lib/validate/report.h"

/* 0 with the findings added to *r (zeroed or holding other checks'
 * findings; val_report_clear() it) and its cables/plan_nodes counts set;
 * -EINVAL when the plan is for another fabric, -ENOMEM, with nothing
 * added; err says why. */
int cabling_check(const struct plan *p, const struct fab *fab, const struct nodename_map *names,
		  struct val_report *r, char *err, size_t errlen);

/* How findings write a port (issue 43): name(arg, node, port) gives its
 * text, or NULL for its number. An Ethernet fabric made into a graph
 * (eth_cabling.c) numbers its named ports and names them back here. */
struct cabling_ports {
	const char *(*name)(const void *arg, const struct fab_node *node, unsigned port);
	const void *arg;
};

/* cabling_check of every row of p (numbered ports) with findings writing
 * ports as ports says (NULL: numbers): the judging both fabrics share. */
int cabling_check_ports(const struct plan *p, const struct fab *fab,
			const struct nodename_map *names, const struct cabling_ports *ports,
			struct val_report *r, char *err, size_t errlen);

#endif
