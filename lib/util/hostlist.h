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

#endif
