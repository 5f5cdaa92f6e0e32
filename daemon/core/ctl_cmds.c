/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/ctl_cmds.c: the control socket's table of handlers: each
 * module hands in the handler of a command declared in lib/util/commands.c
 * (ctl.h's ctl_handle; access and arguments come from the declaration),
 * ctl_unhandled names the declared ones still without a handler, and ctl.c
 * looks a request's command up (ctl_impl.h's ctl_cmd_find), or answers
 * unknown-command naming them all. */
#include "autoconf.h"
#include "daemon/core/ctl_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/authz.h"
#include "lib/util/commands.h"
#include "lib/util/proto.h"

const struct ctl_cmd *ctl_cmd_find(const struct ctl *ctl, const char *name)
{
	for (const struct ctl_cmd *c = ctl->cmds; c; c = c->next)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* The answer to an unknown command (a new reference). */
json_t *ctl_cmd_unknown_new(const struct ctl *ctl, json_int_t id, const char *name)
{
	char list[512] = "";
	size_t off = 0;

	/* Every command is public (their access is checked per request), so
	 * naming them all helps and hides nothing. */
	for (const struct ctl_cmd *c = ctl->cmds; c && off < sizeof(list); c = c->next) {
		int w = snprintf(list + off, sizeof(list) - off, "%s%s", off ? ", " : "", c->name);

		if (w > 0)
			off += (size_t)w;
	}
	return proto_response_err_new(id, PROTO_ERR_UNKNOWN, "unknown command \"%.64s\"; "
				      "commands: %s", name, list);
}

void ctl_set_declarations(struct ctl *ctl, const struct cmds_decl *table)
{
	ctl->decls = table;
}

int ctl_handle(struct ctl *ctl, const char *cmd, ctl_handler_fn fn, void *arg)
{
	const struct cmds_decl *d;
	struct ctl_cmd *c, **tail;
	size_t len;

	if (!cmd || !*cmd || !fn)
		return -EINVAL;
	d = cmds_find(ctl->decls, cmd);
	if (!d || !(d->flags & CMDS_LOOMD))
		return -ENOENT;   /* declare it in lib/util/commands.c first */
	if (ctl_cmd_find(ctl, cmd))
		return -EEXIST;
	len = strlen(cmd);
	if (!(c = calloc(1, sizeof(*c) + len + 1)))
		return -ENOMEM;
	memcpy(c->name, cmd, len + 1);
	c->access = (enum ctl_access)d->access;
	c->fn = fn;
	c->arg = arg;
	c->args = d->args;
	/* Appended, so "unknown-command" lists them in registration order. */
	for (tail = &ctl->cmds; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	return 0;
}

size_t ctl_unhandled(const struct ctl *ctl, char *names, size_t len)
{
	size_t n = 0, off = 0;

	if (len)
		names[0] = '\0';
	for (const struct cmds_decl *d = ctl->decls; d && d->name; d++) {
		if (!(d->flags & CMDS_LOOMD) || ctl_cmd_find(ctl, d->name))
			continue;
		n++;
		if (off < len) {
			int w = snprintf(names + off, len - off, "%s%s", off ? ", " : "", d->name);

			if (w > 0)
				off += (size_t)w;
		}
	}
	return n;
}

int ctl_set_version(struct ctl *ctl, const char *cmd, ctl_version_fn fn, void *arg)
{
	struct ctl_cmd *c = (struct ctl_cmd *)ctl_cmd_find(ctl, cmd);

	if (!c)
		return -ENOENT;
	if (c->access != CTL_READ)
		return -EINVAL;   /* only reads are ever kept */
	c->version = fn;
	c->version_arg = arg;
	return 0;
}

int ctl_version(struct ctl *ctl, const char *name, const struct authz_principal *who,
		unsigned *version)
{
	const struct ctl_cmd *c = ctl_cmd_find(ctl, name);

	return c && c->version && authz_allows(who->role, c->access) &&
	       c->version(c->version_arg, version) == 0;
}
