/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/authz.h: who may run what, for every transport (issue 20).
 *
 * A principal is someone a transport has identified: a unix socket peer
 * (its uid), an HTTP client with a bearer token, or one with a TLS client
 * certificate. Each transport maps its principal to one of three roles;
 * authz_allows() is the one table that says which commands (by their
 * ctl_access) a role may run, so the control socket and the HTTP API can
 * never disagree:
 *
 *   role     CTL_READ  CTL_TENANT  CTL_WRITE
 *   read     yes       no          no
 *   tenant   yes       yes         no
 *   admin    yes       yes         yes
 *
 * The unix socket's mapping (daemon/core/ctl.c): root and members of
 * control.admin_group are admin; the users and groups of tenants.users /
 * tenants.groups are tenant; every other local user is read. */
#ifndef LOOMD_AUTHZ_H
#define LOOMD_AUTHZ_H

#include <stddef.h>

#include "daemon/core/ctl.h"

enum authz_role {
	AUTHZ_READ,
	AUTHZ_TENANT,
	AUTHZ_ADMIN,
};

#define AUTHZ_NAME_LEN 64
#define AUTHZ_HOW_LEN 96

struct authz_principal {
	char name[AUTHZ_NAME_LEN];   /* "root", "uid 1000", "slurm" (a token's name) */
	enum authz_role role;
	char how[AUTHZ_HOW_LEN];     /* "unix uid 0", "token slurm", "cert node01" */
	int uid;                     /* the unix peer's uid; -1 for other transports */
};

/* May `role` run a command of `access`? 1 or 0. */
int authz_allows(enum authz_role role, enum ctl_access access);
/* The least role that may run a command of `access`. */
enum authz_role authz_needed(enum ctl_access access);
/* "read", "tenant", "admin". */
const char *authz_role_name(enum authz_role role);
/* The role of its name: 0, or -EINVAL for another word. */
int authz_role_parse(const char *s, enum authz_role *out);
/* Fill p for a unix socket peer. */
void authz_principal_unix(struct authz_principal *p, int uid, enum authz_role role);
/* Fill p for a named credential: kind "token" or "cert". */
void authz_principal_named(struct authz_principal *p, const char *kind, const char *name,
			   enum authz_role role);

#endif
