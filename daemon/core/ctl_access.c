/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_access.c: who may run a command on the control socket
 * (ctl.h): a socket peer's role from root, control.admin_group and the
 * tenant writers, the decision by authz_allows() (authz.h), the refusal
 * that says which key of loom.yaml would allow it, and the audit log. */
#include "autoconf.h"
#include "daemon/core/ctl.h"
#include "daemon/core/authz.h"
#include "daemon/core/ctl_ident.h"
#include "daemon/core/ctl_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/util/clock.h"
#include "lib/util/log.h"

int ctl_list_has(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, n))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* The group names the checks need: the admin group and the tenant writers'
 * groups, so that one identity serves every command. */
static void needed_groups(const struct ctl *ctl, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", ctl->admin_group,
		 ctl->admin_group[0] && ctl->tenant_groups[0] ? "," : "", ctl->tenant_groups);
}

/* The role of a socket peer (not root) whose identity is id (authz.h):
 * admin in the admin group, tenant among the tenant writers, else read. */
static enum authz_role peer_role(struct ctl *ctl, gid_t gid, const struct ctl_ident *id)
{
	int rc = ctl->admin_group[0] ? ctl_ident_in_group(id, gid, ctl->admin_group) : 0;

	if (rc == 1)
		return AUTHZ_ADMIN;
	if (rc == -ENOENT && !ctl_ident_error(id) && !ctl->warned_admin) {
		/* Said once per setting; an unknown group only means root
		 * alone may write, which is safe. */
		ctl->warned_admin = 1;
		log_warn("control: admin group \"%s\" does not exist: only root may run write "
			 "commands", ctl->admin_group);
	}
	if (ctl_ident_user_in(id, ctl->tenant_users) ||
	    ctl_ident_in_groups(id, gid, ctl->tenant_groups))
		return AUTHZ_TENANT;
	return AUTHZ_READ;
}

/* May uid/gid, whose identity is id, run `cmd` (not a read, not root)? 0
 * with its principal in *who, or -EPERM with the refusal in why, saying
 * who may, so that the operator knows which key of loom.yaml to change;
 * -EIO when the user and group databases failed to say (a refusal too,
 * but "try again", not "denied"). The decision is authz_allows()'s. */
int ctl_access_check(struct ctl *ctl, uid_t uid, gid_t gid, const struct ctl_cmd *cmd,
		     const struct ctl_ident *id, struct authz_principal *who, char *why,
		     size_t whylen)
{
	char list[3 * CTL_LIST_LEN];
	size_t n;
	enum authz_role role = peer_role(ctl, gid, id);
	int rc;

	authz_principal_unix(who, (int)uid, role);
	if (authz_allows(role, cmd->access))
		return 0;
	if ((rc = ctl_ident_error(id)) < 0) {
		snprintf(why, whylen, "\"%s\" changes loomd: uid %d could not be looked up in the "
			 "user and group databases (%s), so its rights are unknown; try again",
			 cmd->name, (int)uid, strerror(-rc));
		return -EIO;
	}
	n = (size_t)snprintf(list, sizeof(list), "root");
	if (ctl->admin_group[0])
		n += (size_t)snprintf(list + n, sizeof(list) - n, ", group %s (control.admin_group)",
				      ctl->admin_group);
	if (cmd->access == CTL_TENANT && ctl->tenant_users[0])
		n += (size_t)snprintf(list + n, sizeof(list) - n, ", users %s (tenants.users)",
				      ctl->tenant_users);
	if (cmd->access == CTL_TENANT && ctl->tenant_groups[0])
		snprintf(list + n, sizeof(list) - n, ", groups %s (tenants.groups)",
			 ctl->tenant_groups);
	snprintf(why, whylen, "\"%s\" changes loomd: permission denied for uid %d (only %s may "
		 "run it)", cmd->name, (int)uid, list);
	return -EPERM;
}

int ctl_rate_check(struct ctl *ctl, const struct ctl_req *req, const json_t *args, char *why,
		   size_t whylen)
{
	unsigned wait;

	if (req->answer || req->who.role != AUTHZ_READ || !ctl_limits_spends(req->cmd->name, args))
		return 0;
	wait = ctl_limits_rate_take(&ctl->rate, req->uid, clock_mono(), ctl->limits.read_rate_s);
	if (!wait)
		return 0;
	snprintf(why, whylen, "\"%s\" sends MADs or switch requests: uid %d may run such a "
		 "command once every %u s (control.read_rate_s; root and control.admin_group "
		 "are not limited); try again in %u s", req->cmd->name, (int)req->uid,
		 ctl->limits.read_rate_s, wait);
	log_debug("control: %s", why);
	return -EBUSY;
}

/* The audit log: every command that changes loomd, with who asked, from
 * any transport (the loom log; tenant changes are also events). */
void ctl_audit(const struct ctl_cmd *cmd, const struct authz_principal *who,
	       const char *refused)
{
	if (cmd->access == CTL_READ)
		return;
	if (refused)
		log_notice("audit: \"%s\" refused to %s (role %s): %s", cmd->name, who->how,
			   authz_role_name(who->role), refused);
	else
		log_notice("audit: \"%s\" run by %s (role %s)", cmd->name, who->how,
			   authz_role_name(who->role));
}

/* The identity of a write request's client: 1 with *id, 0 while it is
 * looked up, -errno. */
int ctl_identity(struct ctl *ctl, uid_t uid, const struct ctl_ident **id)
{
	char groups[2 * CTL_LIST_LEN];

	needed_groups(ctl, groups, sizeof(groups));
	return ctl_idents_get(ctl->idents, uid, groups, id);
}
