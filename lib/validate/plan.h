/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/plan.h: the cabling plan a fabric is checked against (issue
 * 22): the cables that should be there, end to end by node and port number
 * (names are what cabling plans use: a node's description, or its name in
 * the site's node-name-map, lib/fabric/nodename.h, issue 39), with the
 * width and speed each should train at when the plan says.
 *
 * Read from the forms operators have, told apart by their content:
 * - a cabling CSV, one cable a line: `node,port,peer,peer_port[,width[,speed]]`
 *   (width "4x", speed "HDR" as iblinkinfo names them; either may be empty).
 *   A first line starting with "node" is a header; `#` starts a comment;
 *   blank lines are skipped. A cable is written once, from either end.
 * - a topology file (an ibnetdiscover output of a known-good fabric, or an
 *   ibsim net file, lib/fabric/topo_file.h): every link, with the width and
 *   speed it ran at as the expected ones; from ibnetdiscover's output the
 *   node GUIDs too, which match before descriptions (a node found by its
 *   GUID under another description is `renamed`; a GUID not in the fabric,
 *   a replaced card, falls back to the description).
 * - Ethernet rows in the same CSV (issue 43): a cable whose two ports are
 *   names, not numbers (`spine-1,Ethernet0,leaf-1,Ethernet48`: a switch's
 *   port names as its OS and LLDP say them, letters first, up to 31 of
 *   [A-Za-z0-9/:._-]), checked against the switches' LLDP neighbours
 *   (eth_cabling.h); the InfiniBand check (cabling.h) skips them.
 * Refused, naming the file and line: a field that does not parse, a port
 * out of 1..254, one port named and the other numbered, a cable from a port to itself, the same cable twice, and a
 * port in two different cables. */
#ifndef LOOM_VALIDATE_PLAN_H
#define LOOM_VALIDATE_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fabric/fabric.h"
#include "lib/fabric/nodename.h"

#define PLAN_PORT_LEN 32             /* an Ethernet port's name, with its NUL */

struct plan_cable {
	char a[NODENAME_LEN];       /* node of one end: the site's name or description */
	unsigned a_port;
	char b[NODENAME_LEN];       /* and of the other */
	unsigned b_port;
	uint64_t a_guid, b_guid;    /* node GUIDs where the plan has them (an ibnetdiscover
				     * file); 0: matched by description alone */
	unsigned width;             /* IBT_WIDTH_* it should run at; 0: not said */
	unsigned speed;             /* IBT_SPEED_*; 0: not said */
	unsigned line;              /* the CSV line (0: from a topology file) */
	/* issue 43: an Ethernet row, its ports by name (a_port, b_port 0) */
	int eth;
	char a_pname[PLAN_PORT_LEN], b_pname[PLAN_PORT_LEN];
};

struct plan {
	char source[256];           /* the file, for messages */
	size_t n;
	struct plan_cable *cables;
	size_t n_eth;               /* of which Ethernet rows (issue 43) */
	/* private: */
	size_t cap;
};

/* The plan in the file at path (CSV or topology, by content). NULL with
 * "file:line: what" in err. */
struct plan *plan_read(const char *path, char *err, size_t errlen);
/* The same on text in memory; name is what messages call the file. */
struct plan *plan_parse(const char *name, const char *text, size_t len, char *err,
			size_t errlen);
/* Every link of a fabric as a cable (its active width and speed expected,
 * its nodes' GUIDs), its nodes named by names (the site's node-name-map,
 * NULL: none) else by description. */
struct plan *plan_from_fab(const struct fab *fab, const struct nodename_map *names,
			   const char *source, char *err, size_t errlen);
void plan_free(struct plan *p);
/* A new plan of p's InfiniBand rows (eth 0) or its Ethernet rows (eth 1),
 * or NULL (ENOMEM). (issue 43) */
struct plan *plan_only(const struct plan *p, int eth);
/* "12" or "Ethernet0": how messages write one end's port. */
const char *plan_port_text(const struct plan_cable *c, int b_end, char *buf, size_t len);
/* Each end of p whose GUID the site's names name (a topology file's plan)
 * renamed by them: the plan as plan_from_fab would give it with names. */
void plan_rename(struct plan *p, const struct nodename_map *names);
/* The plan as a cabling CSV that plan_parse reads back (with its header,
 * width and speed where the plan has them; no GUIDs: a CSV names nodes).
 * 0; -EINVAL (nothing written) when a node has no name or two nodes (GUIDs)
 * share one, which no CSV can tell; -ENOMEM, -EIO; with err. */
int plan_write_csv(const struct plan *p, FILE *out, char *err, size_t errlen);

#endif
