/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/config_writable.h: `loomd -n -u USER`: could USER write every
 * path the configuration makes loomd write (the sections' `written` lists,
 * config_parse.h)? Judged from the files' owners and modes as the kernel
 * would for that user's uid, gid and supplementary groups, without being
 * that user; POSIX ACLs and capabilities are not looked at. The answer is
 * a warning, never a refusal: the start itself tells for sure. */
#ifndef LOOMD_CONFIG_WRITABLE_H
#define LOOMD_CONFIG_WRITABLE_H

#include <stdio.h>
#include <sys/types.h>

#include "daemon/core/config.h"

#define CFG_USER_MAX_GROUPS 256

struct cfg_user {
	char name[64];
	uid_t uid;
	gid_t gid;
	int n_groups;                       /* groups: gid and the supplementary ones */
	gid_t groups[CFG_USER_MAX_GROUPS];
};

/* The user called name (or a decimal uid), with the groups the system
 * database gives it; NULL: the calling process's own ids and groups.
 * 0, or -errno with err saying why (-ENOENT: no such user). */
int cfg_user_lookup(const char *name, struct cfg_user *u, char *err, size_t errlen);

/* 0 when u may make or replace path (how: enum cfg_write), else -EACCES
 * (or -EROFS, -ENOTDIR, another -errno) with why naming the directory or
 * file at fault, its owner and mode. */
int cfg_user_may_write(const struct cfg_user *u, const char *path, int how, char *why,
		       size_t whylen);

/* One "loomd: warning: KEY: PATH: why" line on out for every path of c
 * that u could not write. With unit set, u is loomd.service's User=: the
 * paths under the unit's own directories (/var/lib/loom, /run/loom, which
 * systemd gives to that user) pass, and every other one is also warned
 * about as read-only under the unit. The count of warnings. */
int config_warn_unwritable(const struct loom_config *c, const struct cfg_user *u, int unit,
			   FILE *out);

#endif
