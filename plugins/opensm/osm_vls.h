/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/opensm/osm_vls.h: the VL counts of PortInfo's encodings, for the
 * plugin's files that read ports (osm_graph.c, osm_sls.c); header only. */
#ifndef LOOM_OSM_VLS_H
#define LOOM_OSM_VLS_H

#include <stdint.h>

/* Data VLs a port offers, from its PortInfo:VLCap or OperationalVLs
 * encoding (1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7, 5: VL0-14); 0 for 0. */
static inline unsigned losm_vls(uint8_t code)
{
	return code == 0 ? 0 : code >= 5 ? 15 : 1u << (code - 1);
}

#endif
