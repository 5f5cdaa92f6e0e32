/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/nodename.h: the site's names of nodes, by node GUID, in the
 * node-name-map format of OpenSM and infiniband-diags (ibnetdiscover
 * --node-name-map, complib's cl_nodenamemap.c), and the one rule that gives a
 * node its display name: the map's name for its GUID, else its
 * NodeDescription. The format, line by line:
 *     # a comment; blank lines are skipped
 *     0x0002c90300a1b2c3 "spine-01"          (a quoted name may hold spaces)
 *     0x0002c90300a1b2c4 leaf-01  # comment  (unquoted: up to '#' or the end,
 *                                             trailing blanks dropped)
 * The GUID is read as strtoull(base 0) reads it (0x... hex, or decimal).
 * Stricter than complib where complib silently keeps garbage: a line with no
 * name, an unclosed quote, text after the closing quote (other than a
 * comment), a control character, a name over NODENAME_LEN - 1 bytes or a GUID
 * given twice is an error naming "FILE:LINE: what". A map is immutable once
 * made and reference counted (nodename_map_hold / nodename_map_free, from
 * any thread), so that a job keeps the map it started with across a reload.
 * Pure: lib knows no process; the daemon's names module loads it
 * (daemon/fabric/names.c), the database keeps its lines (lib/db/names_db.h). */
#ifndef LOOM_NODENAME_H
#define LOOM_NODENAME_H

#include <stddef.h>
#include <stdint.h>

#define NODENAME_LEN 256    /* a name, with its NUL (complib reads 256-byte lines) */

struct nodename_map;

/* The map in file path: 0 with *out (free with nodename_map_free), or
 * -errno with err "PATH: why" or "PATH:LINE: what a line must be". */
int nodename_map_read(const char *path, struct nodename_map **out, char *err, size_t errlen);
/* The same from text (len bytes); source names it in errors. */
int nodename_map_parse(const char *text, size_t len, const char *source,
		       struct nodename_map **out, char *err, size_t errlen);

/* An empty map to fill with nodename_map_add (a database's copy), then
 * nodename_map_seal before any lookup. NULL on ENOMEM. */
struct nodename_map *nodename_map_new(void);
/* 0, -EINVAL (name empty or too long), -ENOMEM. A GUID added twice keeps
 * its first name. */
int nodename_map_add(struct nodename_map *m, uint64_t guid, const char *name);
void nodename_map_seal(struct nodename_map *m);

struct nodename_map *nodename_map_hold(struct nodename_map *m);
void nodename_map_free(struct nodename_map *m);   /* drops a reference; NULL is fine */

size_t nodename_map_count(const struct nodename_map *m);  /* 0 for NULL */
/* The i-th line, by GUID order. */
void nodename_map_entry(const struct nodename_map *m, size_t i, uint64_t *guid,
			const char **name);

/* The map's name for guid, or NULL (m NULL: no map). */
const char *nodename_get(const struct nodename_map *m, uint64_t guid);
/* The display name of the node guid described desc: the map's name, else
 * desc itself (the same pointer: without a map names are descriptions, byte
 * for byte). Every place that names a node asks this (the CLI, the API and
 * the web view through the stored map, events, /metrics' node labels,
 * cabling plans, topology.conf). */
const char *nodename_of(const struct nodename_map *m, uint64_t guid, const char *desc);

#endif
