/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/swept_fabs.c: see swept_fabs.h. */
#include "autoconf.h"
#include "daemon/ib/swept_fabs.h"

#include <stdio.h>
#include <string.h>

static int index_of(const struct swept_fabs *f, const char *subnet)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->s[i].name, subnet))
			return (int)i;
	return -1;
}

int swept_fabs_keep(struct swept_fabs *f, const char *subnet, struct fab *fab)
{
	int i = index_of(f, subnet);

	if (i < 0) {
		if (f->n == SWEPT_FABS_MAX) {
			fab_free(fab);
			return -1;
		}
		i = (int)f->n++;
		memset(&f->s[i], 0, sizeof(f->s[i]));
		snprintf(f->s[i].name, sizeof(f->s[i].name), "%s", subnet);
	}
	fab_free(f->s[i].last);
	f->s[i].last = fab;
	return i;
}

int swept_fabs_find(const struct swept_fabs *f, const char *subnet)
{
	int i = index_of(f, subnet);

	return i >= 0 && f->s[i].last ? i : -1;
}

int swept_fabs_choose(const struct swept_fabs *f, const char *want, const char *dflt,
		      const char *what, char *why, size_t len)
{
	const char *name = want && want[0] ? want : dflt;
	int found = -1;

	if (name && name[0]) {
		if ((found = swept_fabs_find(f, name)) < 0)
			snprintf(why, len, "subnet \"%s\" was not swept since loomd started", name);
		return found;
	}
	for (size_t i = 0; i < f->n; i++) {
		if (!f->s[i].last)
			continue;
		if (found >= 0) {
			snprintf(why, len, "loomd sweeps several subnets (%s, %s...): set %s",
				 f->s[found].name, f->s[i].name, what);
			return -1;
		}
		found = (int)i;
	}
	if (found < 0)
		snprintf(why, len, "no subnet was swept since loomd started: try again after "
			 "`loomctl discover --wait`");
	return found;
}

void swept_fabs_clear(struct swept_fabs *f)
{
	for (size_t i = 0; i < f->n; i++)
		fab_free(f->s[i].last);
	memset(f, 0, sizeof(*f));
}
