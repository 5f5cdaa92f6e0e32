/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/isolated_set.h: the isolated set (issue 42), the links loomd takes
 * out of the routes while they stay up: the file loomd writes
 * (daemon/isolation/) and libloomosm reads at each routing run
 * (plugins/opensm/osm_isolated.c), and what removing them from a fabric
 * graph means. Pure: no I/O, no process.
 *
 * The file, one text (default /var/lib/loom/isolated-links):
 *     # loom: links taken out of the routes (...)
 *     version 7
 *     0x0002c90300001234 17 # why, free text to end of line
 * "version N" (an unsigned 64-bit decimal, at most once, 0 when absent; loomd
 * reads the run reports with jansson: keep it below 2^63), then
 * one line per isolated link naming ONE end of it: the node GUID in hex with
 * 0x and the port number 1..254. '#' starts a comment anywhere; blank lines
 * are fine; anything else is an error naming its line. At most
 * ISO_SET_MAX entries. */
#ifndef LOOM_ISOLATED_SET_H
#define LOOM_ISOLATED_SET_H

#include <stddef.h>
#include <stdint.h>

struct fab;

#define ISO_SET_MAX 65536   /* entries a file may hold */
#define ISO_SET_PATH "/var/lib/loom/isolated-links"

struct iso_port { uint64_t guid; uint8_t port; };
struct iso_set { uint64_t version; struct iso_port *v; size_t n; };

/* Parse text (len bytes, need not be NUL-terminated) into *out (zeroed
 * first). 0, or -EINVAL with err "line N: ..." (or -ENOMEM). The entries
 * come out sorted, duplicates dropped. */
int iso_set_parse(const char *text, size_t len, struct iso_set *out, char *err, size_t errlen);
/* The file's text: the header comment, "version N", one line per entry with
 * comments[i] (NULL or a string; newlines and '#' in it replaced by spaces)
 * after " # ". comments may be NULL. malloc'd, NULL on ENOMEM. */
char *iso_set_format(const struct iso_set *s, const char *const *comments);
/* Is (guid, port) an end of an isolated link in s? s sorted by iso_set_sort
 * first (parse sorts). */
int iso_set_has(const struct iso_set *s, uint64_t guid, uint8_t port);
/* Sort by (guid, port) and drop duplicates. */
void iso_set_sort(struct iso_set *s);
void iso_set_free(struct iso_set *s);   /* frees v, zeroes s */
/* Remove from fab every link with an end in s (both directions), as if the
 * cable were absent (fab_unlink: both ports lose their peer); returns how
 * many links were removed. s sorted. */
size_t iso_set_apply(const struct iso_set *s, struct fab *fab);

#endif
