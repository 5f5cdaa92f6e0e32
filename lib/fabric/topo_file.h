/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/topo_file.h: read a topology file into a fabric graph, so that routing
 * engines can run offline. Two formats, told apart by their content:
 *
 * - ibsim net files (`Switch 8 "name"` / `Hca 2 "name"` / `Rt 2 "name"`
 *   headers, optionally `# "description"` after them, `[port] "peer"[port]
 *   w=N s=N` cables). GUIDs are assigned exactly as ibsim does (CAs from
 *   0x100000 and routers from 0, each advancing by nports + 1; switches from
 *   0x200000, by 1; a CA's or router's port GUID is node GUID + port, a
 *   switch's is the node GUID), the node description is the `# "..."` trailer
 *   or else the name, ports get the attributes ibsim reports
 *   (4x SDR unless w=/s= say otherwise), and LIDs are 0 (not assigned yet).
 * - ibnetdiscover output (default format): GUIDs, LIDs, LMC, descriptions and
 *   active width/speed are taken from it. Enabled/supported masks are not in
 *   that output and are set to the active value.
 *
 * Either way a switch has every port 0..N present (the unlisted ones down), a
 * CA only its cabled ports. A cable may be written on one end only (the other
 * end is completed); contradictions are refused. The result is fab_sort()ed
 * and passes fab_check(). */
#ifndef LOOM_TOPO_FILE_H
#define LOOM_TOPO_FILE_H

#include <stddef.h>

#include "lib/fabric/fabric.h"

/* Read the file at path; subnet names the fabric (fab_new). Returns a new
 * fabric (fab_free it) or NULL with "file:line: what" in err. */
struct fab *topo_file_read(const char *path, const char *subnet, char *err, size_t errlen);

/* The same on text already in memory (len bytes, need not be terminated);
 * name is what error messages call the file. */
struct fab *topo_file_parse(const char *name, const char *text, size_t len,
			    const char *subnet, char *err, size_t errlen);

#endif
