/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/authz.c: the roles and their one table (see authz.h). */
#include "autoconf.h"
#include "daemon/core/authz.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const role_names[] = {
	[AUTHZ_READ] = "read", [AUTHZ_TENANT] = "tenant", [AUTHZ_ADMIN] = "admin",
};

enum authz_role authz_needed(enum ctl_access access)
{
	switch (access) {
	case CTL_READ:
		return AUTHZ_READ;
	case CTL_TENANT:
		return AUTHZ_TENANT;
	case CTL_WRITE:
	default:
		return AUTHZ_ADMIN;
	}
}

int authz_allows(enum authz_role role, enum ctl_access access)
{
	return role >= authz_needed(access);
}

const char *authz_role_name(enum authz_role role)
{
	return (unsigned)role < sizeof(role_names) / sizeof(role_names[0]) ? role_names[role] :
									    "?";
}

int authz_role_parse(const char *s, enum authz_role *out)
{
	for (size_t i = 0; i < sizeof(role_names) / sizeof(role_names[0]); i++)
		if (!strcmp(s, role_names[i])) {
			*out = (enum authz_role)i;
			return 0;
		}
	return -EINVAL;
}

void authz_principal_unix(struct authz_principal *p, int uid, enum authz_role role)
{
	memset(p, 0, sizeof(*p));
	if (uid == 0)
		snprintf(p->name, sizeof(p->name), "root");
	else
		snprintf(p->name, sizeof(p->name), "uid %d", uid);
	snprintf(p->how, sizeof(p->how), "unix uid %d", uid);
	p->role = role;
	p->uid = uid;
}

void authz_principal_named(struct authz_principal *p, const char *kind, const char *name,
			   enum authz_role role)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->how, sizeof(p->how), "%s %s", kind, name);
	p->role = role;
	p->uid = -1;
}
