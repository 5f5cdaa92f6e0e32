/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_ident.h: who a control client is, for the access checks of
 * write commands (daemon/core/ctl.c): its user name and groups, looked up in the
 * user and group databases off the event loop.
 *
 * Why a thread: getpwuid_r, getgrnam_r and getgrouplist go through NSS,
 * which may be LDAP or SSSD on a cluster's management node and may wait on
 * the network for as long as its timeouts say. On the loop that would stop
 * everything loomd does (OpenSM's reports are datagrams: they would be
 * lost). So a lookup runs on a thread of its own, the request that needs it
 * waits (its connection with it: requests are served in order), and the
 * loop is told when the answer is there. Answers are kept for
 * CTL_IDENT_TTL_S seconds; after that the next write command of that uid
 * waits for a fresh lookup, so a user removed from a group loses the right
 * within that time.
 *
 * A lookup also resolves the group names the checks need (control.
 * admin_group, tenants.groups) at the same time, so that nothing of NSS is
 * left for the loop; an identity is fresh only for the names it was made
 * with. At shutdown, lookups still blocked in NSS are left to end on their
 * own: nothing waits for them. */
#ifndef LOOMD_CTL_IDENT_H
#define LOOMD_CTL_IDENT_H

#include <stddef.h>
#include <sys/types.h>

#define CTL_IDENT_TTL_S 60

struct event_base;
struct ctl_idents;
struct ctl_ident;

/* The cache; ready(arg) runs on the loop of `base` whenever lookups have
 * ended (several may end in one call). NULL with err. */
struct ctl_idents *ctl_idents_new(struct event_base *base, void (*ready)(void *arg), void *arg,
				  char *err, size_t errlen);
/* Loop thread. Lookups under way end unseen. */
void ctl_idents_free(struct ctl_idents *c);

/* The identity of uid, fresh and made with the group names `groups` (a
 * comma-separated list, "" for none): 1 with *out (valid until the next
 * call on c from the loop returns to it), 0 when a lookup has been started
 * or is under way (ready() follows), -ENOMEM. Loop thread. */
int ctl_idents_get(struct ctl_idents *c, uid_t uid, const char *groups,
		   const struct ctl_ident **out);

/* Is the client (its identity, and gid, its primary group from the socket)
 * in group `name`: 1, 0, or -ENOENT when no such group exists. */
int ctl_ident_in_group(const struct ctl_ident *id, gid_t gid, const char *name);
/* Is it in one of the groups of `list` ("a,b,c"): 1 or 0. */
int ctl_ident_in_groups(const struct ctl_ident *id, gid_t gid, const char *list);
/* Is its user name in `list` ("a,b,c")? */
int ctl_ident_user_in(const struct ctl_ident *id, const char *list);
/* 0, or -errno when the databases failed (not "no such user or group"):
 * what it does not hold may then be wrong. Such an identity is kept only a
 * few seconds. */
int ctl_ident_error(const struct ctl_ident *id);

#endif
