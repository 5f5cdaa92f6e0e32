/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/hostlist.h: Slurm's hostlist syntax, as scontrol and SLURM_JOB_NODELIST
 * write it: names separated by commas, where a bracketed list of numbers and
 * ranges expands (zero-padded to the width of its first number):
 * "node[001-003,070],login1" is node001 node002 node003 node070 login1, and
 * several brackets in one name make every combination ("r[1-2]n[1-2]"). */
#ifndef LOOM_HOSTLIST_H
#define LOOM_HOSTLIST_H

#include <stddef.h>

/* The most names one list may expand to. */
#define HOSTLIST_MAX 65536
/* The longest name (bytes, without the NUL). */
#define HOSTLIST_NAME_MAX 63

struct hostlist {
	char **names; /* in the list's order, duplicates removed */
	size_t n;
};

/* Expand `list` into *hl (owned by the caller: hostlist_clear). 0, or
 * -EINVAL / -E2BIG / -ENOMEM with a message that quotes the offending part
 * of the list. */
int hostlist_expand(const char *list, struct hostlist *hl, char *err, size_t errlen);
void hostlist_clear(struct hostlist *hl);

/* The shortest form hostlist_expand reads back as the same set of names:
 * names that differ only in a trailing number (at most 9 digits) share one
 * bracket, runs as ranges, each range zero-padded as its names are
 * ("gpu[001-018,020],login1"). Groups in order of their prefix, numbers
 * ascending: the same set gives the same text, whatever its order. A new
 * string (free it), or NULL (out of memory, or n == 0). */
char *hostlist_compress(char *const *names, size_t n);

#endif
